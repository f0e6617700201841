"""How often path planning can reach a gold answer, with no LLM.

For each question, FastToG's path planning lists the relation paths around the topic entities
(``paths.max_hops``) and ranks them by closeness to the question as ``kgqa`` builds it (with the
offline embedding model). This script counts the questions whose gold answer (normalised, any of
them) is reached by some listed path (``any``), by one of the ``paths.offered`` paths the model
is shown (``offered``), and by the best-ranked path (``top1``: among its answers; ``top1_first``:
its first answer), then the average number of paths listed and the seconds a question. It
measures what the model chooses among, in seconds; hit@1 is measured by ``kgqa eval``.

Usage::

    .venv/bin/python benchmarks/path_reach.py [--data pathquestion:PQ-3H,...] [--start 50]
        [--stop 150] [--set paths.offered=8 ...]

Last line: ``path_reach <dataset>=<any>/<offered>/<top1>/<n> ...``.
"""

from __future__ import annotations

import sys
import time

from fasttog_start_reach import (  # the benchmarks folder is the script's
    fasttog_engines,
    reach_arguments,
    set_options,
)

from kgcore.paths.ranking import rank_paths
from kgcore.paths.reading import distinct_paths, list_paths
from kgcore.paths.settings import OFFERED
from kgcore.text.answer_forms import normalize_answer


def distinct_order(paths: list, order: list[int]) -> list[int]:
    """``order`` without the paths that reach what an earlier one reaches."""
    kept = {id(p) for p in distinct_paths([paths[i] for i in order])}
    return [i for i in order if id(paths[i]) in kept]


def main(argv: list[str] | None = None) -> int:
    args = reach_arguments(__doc__.splitlines()[0]).parse_args(argv)
    figures = []
    for dataset, engine in fasttog_engines(args.data, set_options(args.set)):
        settings = engine.config.paths
        scorer = engine.paths.scorer()  # as FastToG ranks
        examples = dataset.examples[args.start : args.stop]
        counts = {"any": 0, "offered": 0, "top1": 0, "top1_first": 0, "top3": 0}
        listed = 0
        tick = time.perf_counter()
        for example in examples:
            golds = {normalize_answer(a) for a in example.answers}
            topic = [t for t in example.topic_entities if engine.store.has_node(t)]
            paths = list_paths(engine.store, example.question, topic, settings, scorer)
            listed += len(paths)
            if not paths:
                continue
            order = rank_paths(example.question, paths, scorer, topic)

            def reaches(
                index: int, paths: list = paths, topic: list = topic, golds: set = golds
            ) -> bool:
                ends = paths[index].answers(topic)
                return any(normalize_answer(e) in golds for e in ends)

            counts["any"] += any(reaches(i) for i in range(len(paths)))
            counts["offered"] += any(reaches(i) for i in order[:OFFERED])
            counts["top1"] += reaches(order[0])
            counts["top3"] += any(reaches(i) for i in distinct_order(paths, order)[:3])
            first = paths[order[0]].answers(topic)[:1]
            counts["top1_first"] += bool(first) and normalize_answer(first[0]) in golds
        n = len(examples)
        seconds = (time.perf_counter() - tick) / max(n, 1)
        print(
            f"{dataset.name} questions {args.start + 1}-{args.start + n}: "
            + ", ".join(f"{k} {v}/{n}" for k, v in counts.items())
            + f", {listed / max(n, 1):.0f} paths listed, {seconds:.2f} s a question",
            flush=True,
        )
        figures.append(f"{dataset.name}={counts['any']}/{counts['offered']}/{counts['top1']}/{n}")
    print("path_reach " + " ".join(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
