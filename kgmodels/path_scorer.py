"""Train a relation-path scorer (:class:`kgcore.paths.learned.LearnedPathScorer`) on CPU.

The training data are questions, each with the relation paths that lead from its topic entity
to its answers: WebQSP's training paths (``train_webqsp_paths.jsonl``, RoG's weak labels), or
a user's own questions with answers on their graph, whose paths are found by search
(:func:`paths_from_answers`). Questions and paths are embedded once with the frozen sentence
embedder; two linear projections, started at the identity (the untrained scorer is the
embedder's plain cosine), are trained so that a question's own paths outrank every other path
of the training set (a softmax over all of them, several positives each). A seeded tenth of
the questions is held out; the epoch with the best held-out mean reciprocal rank is kept.

Example
-------
>>> import numpy as np, tempfile
>>> def embed(texts):  # a toy embedder: which of three words a text holds
...     return np.array([[float(w in t) + 0.1 for w in ("born", "child", "wife")] for t in texts])
>>> data = [PathQuestion("where was ann born", (("people.born_in",),)),
...         PathQuestion("who is the child of bob", (("people.child",),))] * 10
>>> with tempfile.TemporaryDirectory() as out:
...     report = train_path_scorer(data, embed, out, epochs=20, seed=0)
>>> report["questions"], report["paths"]
(20, 2)
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kgcore.exceptions import ConfigurationError
from kgcore.graph.compound import compound_view
from kgcore.graph.store import GraphStore
from kgcore.paths.learned import CONFIG_FILE, WEIGHTS_FILE, path_relations, relations_text
from kgcore.paths.walk import relation_paths
from kgcore.text.answer_forms import normalize_answer

__all__ = ["PathQuestion", "paths_from_answers", "read_path_questions", "train_path_scorer"]


@dataclass(frozen=True)
class PathQuestion:
    """A training question and the relation paths (stored relation names) that answer it."""

    question: str
    paths: tuple[tuple[str, ...], ...]


def read_path_questions(path: str | Path) -> list[PathQuestion]:
    """The questions of a JSON-lines file of ``{"question": ..., "paths": [[rel, ...], ...]}``
    (the form of ``train_webqsp_paths.jsonl``); records without a path are skipped.

    Raises
    ------
    ConfigurationError
        A line that is not such a record (its number is named).
    """
    found = []
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                question = record["question"]
                paths = tuple(tuple(str(r) for r in p) for p in record.get("paths") or () if p)
            except (ValueError, KeyError, TypeError) as exc:
                raise ConfigurationError(f"{path}:{number}: not a path record ({exc})") from exc
            if not isinstance(question, str) or not question.strip():
                raise ConfigurationError(f"{path}:{number}: the question must be a non-empty text")
            if paths:
                found.append(PathQuestion(question.strip(), paths))
    return found


def paths_from_answers(
    store: GraphStore,
    examples: Iterable[tuple[str, Sequence[str], Sequence[str]]],
    max_hops: int = 2,
) -> list[PathQuestion]:
    """Training questions from ``(question, topic entities, answers)`` on a user's graph: the
    relation paths of up to ``max_hops`` hops (through compound nodes) from a topic entity that
    reach a gold answer; a question whose answers no path reaches is left out."""
    graph = compound_view(store)
    found = []
    for question, topics, answers in examples:
        gold = {normalize_answer(a) for a in answers}
        paths: dict[tuple[str, ...], None] = {}
        for topic in topics:
            if not graph.has_node(topic):
                continue
            for path in relation_paths(graph, topic, max_hops):
                if any(normalize_answer(node) in gold for node in path.reached):
                    paths[tuple(path_relations(path.hops))] = None
        if paths:
            found.append(PathQuestion(question, tuple(paths)))
    return found


def train_path_scorer(
    questions: Sequence[PathQuestion],
    embed: Callable[[list[str]], Any],
    out: str | Path,
    *,
    seed: int = 0,
    epochs: int = 300,
    learning_rate: float = 1e-3,
    temperature: float = 0.05,
    holdout: float = 0.1,
    embedder_name: str = "all-MiniLM-L6-v2",
) -> dict[str, Any]:
    """Train and save a scorer in folder ``out``; returns what the training did (sizes, time,
    held-out mean reciprocal rank and hit@3 before and after), also saved in its config.

    Raises
    ------
    ConfigurationError
        Fewer than two questions, or a setting out of range.
    """
    import torch
    from safetensors.torch import save_file

    if len(questions) < 2:
        raise ConfigurationError("training a path scorer needs at least two questions")
    if not (0 <= holdout < 1 and epochs >= 1 and learning_rate > 0 and temperature > 0):
        raise ConfigurationError("holdout in [0, 1), epochs >= 1, rates above 0")
    started = time.monotonic()
    texts = sorted({relations_text(p) for q in questions for p in q.paths})
    index = {t: i for i, t in enumerate(texts)}
    asked = np.asarray(embed([q.question for q in questions]), dtype=np.float32)
    pool = np.asarray(embed(texts), dtype=np.float32)
    positive = np.zeros((len(questions), len(texts)), dtype=bool)
    for row, q in enumerate(questions):
        for p in q.paths:
            positive[row, index[relations_text(p)]] = True
    order = list(range(len(questions)))
    random.Random(seed).shuffle(order)
    held = sorted(order[: int(len(order) * holdout)])
    train = sorted(order[len(held) :])
    torch.manual_seed(seed)
    dim = asked.shape[1]
    q_proj = torch.nn.Parameter(torch.eye(dim))
    p_proj = torch.nn.Parameter(torch.eye(dim))
    optimizer = torch.optim.Adam([q_proj, p_proj], lr=learning_rate)
    q_all, p_all = torch.from_numpy(asked), torch.from_numpy(pool)
    pos = torch.from_numpy(positive)

    def scores(rows: list[int]) -> torch.Tensor:
        qv = torch.nn.functional.normalize(q_all[rows] @ q_proj, dim=1)
        pv = torch.nn.functional.normalize(p_all @ p_proj, dim=1)
        return qv @ pv.T

    def held_out() -> dict[str, float]:
        if not held:
            return {}
        with torch.no_grad():
            s = scores(held)
        best = s.masked_fill(~pos[held], -2).max(dim=1).values
        rank = (s > best[:, None]).sum(dim=1) + 1  # the best-placed right path's rank
        return {"mrr": float((1.0 / rank).mean()), "hit@3": float((rank <= 3).float().mean())}

    before = held_out()
    best_state, best_mrr, best_epoch = None, -1.0, 0
    for epoch in range(1, epochs + 1):
        optimizer.zero_grad()
        logits = scores(train) / temperature
        wanted = logits.masked_fill(~pos[train], float("-inf")).logsumexp(dim=1)
        loss = (logits.logsumexp(dim=1) - wanted).mean()
        loss.backward()
        optimizer.step()
        if held and (epoch % 10 == 0 or epoch == epochs):
            mrr = held_out()["mrr"]
            if mrr > best_mrr:
                best_mrr, best_epoch = mrr, epoch
                best_state = (q_proj.detach().clone(), p_proj.detach().clone())
    if best_state is None:
        best_state, best_epoch = (q_proj.detach().clone(), p_proj.detach().clone()), epochs
    with torch.no_grad():
        q_proj.copy_(best_state[0])
        p_proj.copy_(best_state[1])
    report = {
        "questions": len(questions),
        "paths": len(texts),
        "held_out": len(held),
        "seed": seed,
        "epochs": epochs,
        "best_epoch": best_epoch,
        "learning_rate": learning_rate,
        "temperature": temperature,
        "before": before,
        "after": held_out(),
        "seconds": round(time.monotonic() - started, 1),
    }
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    save_file(
        {"question": best_state[0].contiguous(), "path": best_state[1].contiguous()},
        str(folder / WEIGHTS_FILE),
    )
    config = {"dimension": dim, "embedder": embedder_name, "training": report}
    (folder / CONFIG_FILE).write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    return report
