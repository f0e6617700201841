"""A graph-only yes/no task from MetaQA's movie graph: the answer is in the GNN's input alone.

ExplaGraphs' label depends on two arguments' stances, which a 135M LLM reading one graph token
learns slowly (see ``docs/gretriever.md``). This task checks the narrower claim that the GNN
soft prompt carries information from the graph at all. Each example is a movie of the MetaQA
knowledge base (``<data>/metaqa/kb.txt``) and a question such as "Does the graph say who
directed Casablanca?" (the system turn asks for yes or no). The graph is a star of ``edges``
of the movie's own facts (every example has the same number of edges and nodes):

- ``yes``: one fact of the asked relation (``directed_by``) and ``edges - 1`` other facts;
- ``no``: ``edges`` other facts, none of the asked relation.

The textualised graph is left out of the prompt (``GraphPrompt.text`` is empty), so the only
way the LLM can see the graph is through the GNN's token. The two labels are balanced in each
split, and the question's wording is the same for both labels: the question alone does not
tell the label (a model reading another example's graph, the benchmark's ``shuffled``
condition, scores about 0.5). Movies are split once, seeded, into train, validation and test;
MetaQA's question files are not used.

Example
-------
>>> kb = {"Heat": [("Heat", "directed_by", "Michael Mann"), ("Heat", "release_year", "1995"),
...                ("Heat", "has_genre", "Crime"), ("Heat", "starred_actors", "Al Pacino")]}
>>> [e.answers for e in graph_task_examples(kb, edges=2, seed=0)]
[('yes',)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from kgcore.exceptions import ConfigurationError
from kgcore.types import Triple

#: The task's name in the CLI and the benchmark.
TASK_NAME = "metaqa-graph"
#: The two answers.
LABELS: tuple[str, str] = ("no", "yes")
#: The question asked for each relation the task can be built on.
#: (Short: every prompt token costs a forward and backward pass of the LLM on CPU.)
QUESTIONS: dict[str, str] = {
    "directed_by": "Does the graph say who directed {movie}?",
    "written_by": "Does the graph say who wrote {movie}?",
    "release_year": "Does the graph say when {movie} was released?",
    "in_language": "Does the graph say the language of {movie}?",
}
#: System turn for this task (the ExplaGraphs one speaks of node and edge tables).
SYSTEM_PROMPT = "Answer yes or no."
#: Movies per split (train, validation, test) by default.
DEFAULT_SIZES: tuple[int, int, int] = (1200, 200, 400)


@dataclass(frozen=True)
class GraphTaskExample:
    """One movie's question, its star graph and its answer (``yes``/``no``)."""

    id: str
    question: str
    answers: tuple[str, ...]
    triples: tuple[Triple, ...]


@lru_cache(maxsize=2)
def movie_facts(kb_path: str | Path) -> dict[str, list[Triple]]:
    """Every head of the MetaQA KB with its facts, in file order (read once per path)."""
    from kgcore.graph.loaders import read_triples

    facts: dict[str, list[Triple]] = {}
    for triple in read_triples(kb_path, fmt=None, progress=False):
        facts.setdefault(triple[0], []).append(triple)
    return facts


def graph_task_examples(
    facts: Mapping[str, Sequence[Triple]],
    relation: str = "directed_by",
    edges: int = 6,
    seed: int = 0,
    limit: int | None = None,
) -> list[GraphTaskExample]:
    """Balanced yes/no examples: one per eligible movie, in a seeded order.

    A movie is eligible when it has a fact of ``relation`` and at least ``edges`` other facts.
    Labels alternate along the seeded order (``yes``, ``no``, ...), so any prefix is balanced.
    """
    if relation not in QUESTIONS:
        raise ConfigurationError(
            f"no question for relation {relation!r}; expected one of {', '.join(QUESTIONS)}"
        )
    if isinstance(edges, bool) or not isinstance(edges, int) or edges < 2:
        raise ConfigurationError(f"edges must be an integer >= 2, got {edges!r}")
    movies = sorted(
        movie
        for movie, triples in facts.items()
        if any(t[1] == relation for t in triples)
        and sum(t[1] != relation for t in triples) >= edges
    )
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(movies))
    if limit is not None:
        order = order[:limit]
    examples = []
    for position, index in enumerate(order):
        movie = movies[int(index)]
        asked = [t for t in facts[movie] if t[1] == relation]
        others = [t for t in facts[movie] if t[1] != relation]
        answer = LABELS[1] if position % 2 == 0 else LABELS[0]
        keep = edges - 1 if answer == "yes" else edges
        chosen = [others[int(i)] for i in np.sort(rng.choice(len(others), keep, replace=False))]
        if answer == "yes":
            chosen.insert(int(rng.integers(0, keep + 1)), asked[int(rng.integers(len(asked)))])
        examples.append(
            GraphTaskExample(
                id=f"{TASK_NAME}-{relation}-{position}",
                question=QUESTIONS[relation].format(movie=movie),
                answers=(answer,),
                triples=tuple(chosen),
            )
        )
    return examples


def split_examples(
    examples: Sequence[GraphTaskExample], sizes: tuple[int, int, int] = DEFAULT_SIZES
) -> dict[str, list[GraphTaskExample]]:
    """``train``, ``val`` and ``test``: consecutive runs of the seeded order (no movie twice)."""
    if any(size < 2 or size % 2 for size in sizes):
        raise ConfigurationError(f"split sizes must be even and >= 2, got {sizes}")
    if sum(sizes) > len(examples):
        raise ConfigurationError(f"asked for {sum(sizes)} examples, only {len(examples)} exist")
    train, val, test = sizes
    return {
        "train": list(examples[:train]),
        "val": list(examples[train : train + val]),
        "test": list(examples[train + val : train + val + test]),
    }
