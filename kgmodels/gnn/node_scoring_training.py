"""Train G-Retriever's GNN as an answer-node scorer on PathQuestion's training questions.

Each training question is read as the ``gretriever-gnn`` method reads it
(:class:`~kgcore.methods.gretriever.scorer_input.SubgraphReader` over its set's graph
``kb_<SET>.txt``, with :data:`DEFAULT_RETRIEVAL`), every node labelled "gold answer or not";
questions whose subgraph holds no gold answer are left out (nothing to learn). The epoch is
chosen by hit@1 (the best-scored node is a gold answer; a question whose subgraph holds none
is a miss) on the deciding questions, dev questions 51-150 of PQ-3H and PQL-3H
(:data:`DECIDING_SETS`, :data:`DECIDING_ROWS`), never on the first 50, which are reported;
without them a seeded share of the training questions is held out instead. The model
(:class:`~kgcore.gretriever.gnn.node_scorer.NodeScorer`) is trained with binary cross-entropy
and AdamW, one torch thread, seeded: the same data and seed give the same checkpoint.

Example
-------
.. code-block:: console

    $ kgqa gretriever train --data pathquestion --mode scorer \\
          --out models/gretriever-gnn/pq-scorer
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch

from kgcore.exceptions import ConfigurationError
from kgcore.gretriever.gnn.node_scorer import NodeScorer, NodeScorerConfig, save_scorer
from kgeval.datasets import EvalExample, read_benchmark_rows

#: PathQuestion's training sets, each answered over its own graph.
PATHQUESTION_SETS = ("PQ-2H", "PQ-3H", "PQL-2H", "PQL-3H")
#: The trained method's retrieval: 3 hops (the questions' longest path), and 100 prized nodes
#: and edges for PCST, chosen on PQ-3H dev 51-150 and training questions (answer recall 0.93
#: and 0.86 against 0.55 and 0.56 with the defaults; docs/gretriever.md).
DEFAULT_RETRIEVAL: dict[str, Any] = {"hops": 3, "k_nodes": 100, "k_edges": 100}
BEST_FILE = "best.safetensors"
#: The dev questions the epoch is chosen on: rows 51-150 of these sets' ``dev_<SET>.jsonl``.
DECIDING_SETS = ("PQ-3H", "PQL-3H")
DECIDING_ROWS = (50, 150)


@dataclass(frozen=True)
class ScorerTrainConfig:
    """How the scorer is trained.

    Attributes
    ----------
    epochs, batch_size : int
        Passes over the training questions, and questions per step.
    lr, weight_decay : float
        AdamW's.
    held_out : float
        Share of the training questions held out to choose the epoch when no validation
        questions are given.
    seed : int
        Seeds the split, the order, dropout and the initial weights.
    """

    epochs: int = 20
    batch_size: int = 16
    lr: float = 1e-3
    weight_decay: float = 1e-4
    held_out: float = 0.1
    seed: int = 0


def read_questions(path: Path, first: int = 0, last: int | None = None) -> list[EvalExample]:
    """Rows ``first+1`` to ``last`` of a PathQuestion ``.jsonl`` file (all by default), read as
    the evaluation reads them (:func:`~kgeval.datasets.read_benchmark_rows`)."""
    if not path.is_file():
        raise ConfigurationError(f"training questions not found: {path}")
    return read_benchmark_rows(path)[first:last]


def prepare_examples(
    data_dir: Path,
    sets: Sequence[str] = PATHQUESTION_SETS,
    retrieval: dict[str, Any] | None = None,
    embedder: Any = None,
    limit: int | None = None,
    progress: bool = True,
    part: str = "train",
    first: int = 0,
    keep_all: bool = False,
) -> tuple[list[Any], dict[str, Any]]:
    """The labelled ``Data`` of the questions of ``<part>_<SET>.jsonl`` (from row ``first``,
    ``limit`` of them) whose subgraph holds a gold answer, or of every one with ``keep_all``
    (features kept in half precision), and counts: questions, kept, answer recall."""
    from kgcore.graph.memory import InMemoryGraphStore
    from kgcore.methods.gretriever.scorer_input import SubgraphReader

    retrieval = dict(DEFAULT_RETRIEVAL if retrieval is None else retrieval)
    examples: list[Any] = []
    counts: dict[str, Any] = {}
    for name in sets:
        last = None if limit is None else first + limit
        rows = read_questions(data_dir / f"{part}_{name}.jsonl", first, last)
        kb = data_dir / f"kb_{name}.txt"
        if not kb.is_file():
            raise ConfigurationError(f"graph not found: {kb}")
        store = InMemoryGraphStore.from_file(kb, progress=False)
        reader = SubgraphReader(store, embedder, **retrieval)
        kept = 0
        for row in rows:
            read = reader.read(row.question, row.topic_entities, row.answers)
            holds = float(read.data.y.sum()) > 0
            if holds or keep_all:
                data = read.data
                data.x, data.edge_attr, data.q = data.x.half(), data.edge_attr.half(), data.q.half()
                examples.append(data)
            kept += holds
        counts[name] = {"questions": len(rows), "hold": kept, "recall": kept / max(len(rows), 1)}
        if progress:
            print(f"{part} {name}: {kept} of {len(rows)} subgraphs hold an answer", file=sys.stderr)
    return examples, counts


def _batch(examples: Sequence[Any]) -> Any:
    from torch_geometric.data import Batch

    batch = Batch.from_data_list(list(examples))
    batch.x, batch.edge_attr, batch.q = batch.x.float(), batch.edge_attr.float(), batch.q.float()
    return batch


def hit_at_1(model: NodeScorer, examples: Sequence[Any], batch_size: int = 64) -> float:
    """Share of ``examples`` whose best-scored node is a gold answer."""
    from torch_geometric.utils import scatter

    model.eval()
    hits = 0
    with torch.no_grad():
        for start in range(0, len(examples), batch_size):
            batch = _batch(examples[start : start + batch_size])
            logits = model(batch)
            best = scatter(logits, batch.batch, reduce="max")
            is_best = logits >= best[batch.batch]
            gold_best = scatter((is_best & (batch.y > 0)).float(), batch.batch, reduce="max")
            hits += int(gold_best.sum())
    return hits / max(len(examples), 1)


def held_out_split(examples: Sequence[Any], share: float, seed: int) -> tuple[list[Any], list[Any]]:
    """A seeded ``(train, held_out)`` split."""
    order = list(range(len(examples)))
    random.Random(seed).shuffle(order)
    cut = int(round(len(order) * share))
    return [examples[i] for i in order[cut:]], [examples[i] for i in order[:cut]]


def train_scorer(
    examples: Sequence[Any],
    out: Path,
    config: ScorerTrainConfig,
    model_config: NodeScorerConfig,
    retrieval: dict[str, Any],
    facts: dict[str, Any] | None = None,
    progress: bool = True,
    validation: Sequence[Any] | None = None,
) -> dict[str, Any]:
    """Train, keep the epoch with the best hit@1 on ``validation`` (else on a held-out share
    of ``examples``) as ``out/best.safetensors``; the training facts (also written to
    ``out/state.json``)."""
    torch.manual_seed(config.seed)
    if validation:
        train, held = list(examples), list(validation)
    else:
        train, held = held_out_split(examples, config.held_out, config.seed)
    if not train:
        raise ConfigurationError("no training question holds a gold answer in its subgraph")
    model = NodeScorer(model_config)
    optimiser = torch.optim.AdamW(
        model.parameters(), lr=config.lr, weight_decay=config.weight_decay
    )
    loss_fn = torch.nn.BCEWithLogitsLoss()
    order = random.Random(config.seed)
    history: list[dict[str, float]] = []
    best = {"epoch": 0, "validation_hit@1": -1.0}
    started = time.perf_counter()
    for epoch in range(1, config.epochs + 1):
        model.train()
        indices = list(range(len(train)))
        order.shuffle(indices)
        total = 0.0
        for start in range(0, len(indices), config.batch_size):
            batch = _batch([train[i] for i in indices[start : start + config.batch_size]])
            loss = loss_fn(model(batch), batch.y)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += loss.item() * batch.num_graphs
        score = hit_at_1(model, held) if held else hit_at_1(model, train)
        history.append({"epoch": epoch, "loss": total / len(train), "validation_hit@1": score})
        if progress:
            print(f"epoch {epoch}: loss {total / len(train):.4f} validation hit@1 {score:.3f}",
                  file=sys.stderr)  # fmt: skip
        if score > best["validation_hit@1"]:
            best = {"epoch": epoch, "validation_hit@1": score}
            summary = {
                **(facts or {}),
                "train": asdict(config),
                "best": best,
                "train_questions": len(train),
                "held_out_questions": len(held),
            }
            save_scorer(model, out / BEST_FILE, retrieval, extra=summary)
    state = {
        **(facts or {}),
        "train": asdict(config),
        "model": asdict(model_config),
        "retrieval": retrieval,
        "best": best,
        "history": history,
        "train_questions": len(train),
        "held_out_questions": len(held),
        "seconds": round(time.perf_counter() - started, 1),
    }
    (out / "state.json").write_text(json.dumps(state, indent=1))
    return state
