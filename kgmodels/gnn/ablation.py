"""Ablations of the graph prompt: does the GNN's token carry the graph?

A checkpoint is evaluated on the same examples under three conditions:

- ``intact``: each example with its own graph;
- ``shuffled``: each example with another example's graph (a seeded derangement: no example
  keeps its own), the question and text unchanged;
- ``zeroed``: each example's graph with node and edge features set to zero;
- ``textonly``: the checkpoint's LLM reads the same text prompt with NO graph token (the GNN
  and projector are not run), as inference-only G-Retriever does
  (:func:`uses_graph_token` is false only for it).

If the token carried nothing, the four would score alike. ``majority`` is the share of the
commoner gold label (what answering it always scores). Balanced accuracy (the mean of the
per-label recalls) is reported beside accuracy, so a model answering one label always scores
0.5 whatever the label shares. The result line (:func:`result_line`) is the benchmark's last.

Example
-------
>>> round(balanced_accuracy(["a", "a", "b", "b"], ["a", "a", "a", "b"]), 3)
0.75
>>> derangement(4, seed=0).tolist() != [0, 1, 2, 3]
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from kgcore.exceptions import ConfigurationError
from kgeval.metrics import wilson_interval
from kgmodels.gnn.explagraphs import LabelledPrompt

#: The conditions, in report order.
CONDITIONS: tuple[str, ...] = ("intact", "shuffled", "zeroed", "textonly")
#: The condition without the graph token (the LLM reads only the text prompt).
TEXT_ONLY = "textonly"


def derangement(n: int, seed: int) -> np.ndarray:
    """A seeded permutation of ``range(n)`` with no fixed point (``n >= 2``).

    A seeded shuffle, then each fixed point swapped with its neighbour (which moves both).

    Example
    -------
    >>> order = derangement(5, seed=1)
    >>> sorted(order.tolist()), any(order[i] == i for i in range(5))
    ([0, 1, 2, 3, 4], False)
    """
    if n < 2:
        raise ConfigurationError(f"a derangement needs at least 2 items, got {n}")
    order = np.random.default_rng(seed).permutation(n)
    for i in range(n):
        if order[i] == i:
            j = (i + 1) % n
            order[i], order[j] = order[j], order[i]
    return order


def shuffle_graphs(examples: Sequence[LabelledPrompt], seed: int = 0) -> list[LabelledPrompt]:
    """Each example with another example's graph (``Data``), question, text and label kept."""
    order = derangement(len(examples), seed)
    return [
        replace(e, prompt=replace(e.prompt, data=examples[int(order[i])].prompt.data))
        for i, e in enumerate(examples)
    ]


def zero_features(examples: Sequence[LabelledPrompt]) -> list[LabelledPrompt]:
    """Each example's graph with node and edge features zeroed (structure kept)."""
    out = []
    for example in examples:
        data = example.prompt.data
        if data is not None:
            data = data.clone()
            data.x = data.x.new_zeros(data.x.shape)
            if getattr(data, "edge_attr", None) is not None:
                data.edge_attr = data.edge_attr.new_zeros(data.edge_attr.shape)
        out.append(replace(example, prompt=replace(example.prompt, data=data)))
    return out


def condition_examples(
    examples: Sequence[LabelledPrompt], condition: str, seed: int = 0
) -> list[LabelledPrompt]:
    """The examples as ``condition`` (one of :data:`CONDITIONS`) presents them."""
    if condition in ("intact", TEXT_ONLY):
        return list(examples)
    if condition == "shuffled":
        return shuffle_graphs(examples, seed)
    if condition == "zeroed":
        return zero_features(examples)
    raise ConfigurationError(f"unknown condition {condition!r}; expected one of {CONDITIONS}")


def uses_graph_token(condition: str) -> bool:
    """Whether ``condition`` gives the LLM the soft graph token (all but ``textonly``).

    Example
    -------
    >>> [uses_graph_token(c) for c in CONDITIONS]
    [True, True, True, False]
    """
    if condition not in CONDITIONS:
        raise ConfigurationError(f"unknown condition {condition!r}; expected one of {CONDITIONS}")
    return condition != TEXT_ONLY


def balanced_accuracy(labels: Sequence[str], predictions: Sequence[str]) -> float:
    """Mean over the gold labels of the share of their examples predicted right."""
    if len(labels) != len(predictions) or not labels:
        raise ConfigurationError("balanced accuracy needs one prediction per label, at least one")
    totals = Counter(labels)
    hits = Counter(g for g, p in zip(labels, predictions, strict=True) if g == p)
    return sum(hits[label] / total for label, total in totals.items()) / len(totals)


def majority_share(labels: Sequence[str]) -> float:
    """The share of the commonest label."""
    if not labels:
        raise ConfigurationError("no labels")
    return Counter(labels).most_common(1)[0][1] / len(labels)


@dataclass(frozen=True)
class ConditionScore:
    """One condition's scores on ``n`` examples."""

    condition: str
    n: int
    hits: int
    balanced: float
    predicted: dict[str, int]

    @property
    def accuracy(self) -> float:
        """Share of right answers."""
        return self.hits / self.n

    @property
    def interval(self) -> tuple[float, float]:
        """Wilson 95 % interval of the accuracy."""
        return wilson_interval(self.hits, self.n)

    def to_dict(self) -> dict[str, object]:
        """JSON-friendly figures."""
        low, high = self.interval
        return {
            "n": self.n,
            "accuracy": round(self.accuracy, 4),
            "accuracy_95ci": [round(low, 4), round(high, 4)],
            "balanced_accuracy": round(self.balanced, 4),
            "predicted": dict(sorted(self.predicted.items())),
        }


def score(condition: str, labels: Sequence[str], predictions: Sequence[str]) -> ConditionScore:
    """Scores of one condition's predictions against the gold labels.

    Example
    -------
    >>> s = score("intact", ["yes", "no"], ["yes", "yes"])
    >>> s.accuracy, s.balanced, s.predicted
    (0.5, 0.5, {'yes': 2})
    """
    if len(labels) != len(predictions) or not labels:
        raise ConfigurationError("score needs one prediction per label, and at least one")
    hits = sum(g == p for g, p in zip(labels, predictions, strict=True))
    return ConditionScore(
        condition,
        len(labels),
        hits,
        balanced_accuracy(labels, predictions),
        dict(Counter(predictions)),
    )


def result_line(task: str, scores: dict[str, ConditionScore], majority: float) -> str:
    """``gnn task=T intact=A shuffled=A zeroed=A textonly=A majority=A intact_lo=L shuffled_hi=H``.

    Accuracies and bounds with three decimals.

    Example
    -------
    >>> labels = ["yes", "no"] * 50
    >>> scores = {c: score(c, labels, labels if c == "intact" else ["yes"] * 100)
    ...           for c in CONDITIONS}
    >>> result_line("demo", scores, 0.5).split(" shuffled=")[0]
    'gnn task=demo intact=1.000'
    >>> result_line("demo", scores, 0.5).split(" zeroed=")[1]
    '0.500 textonly=0.500 majority=0.500 intact_lo=0.963 shuffled_hi=0.596'
    """
    missing = [c for c in CONDITIONS if c not in scores]
    if missing:
        raise ConfigurationError(f"result line needs every condition, missing {missing}")
    if not task or any(ch.isspace() for ch in task):
        raise ConfigurationError(f"task must be one word, got {task!r}")
    figures = " ".join(f"{c}={scores[c].accuracy:.3f}" for c in CONDITIONS)
    return (
        f"gnn task={task} {figures} majority={majority:.3f} "
        f"intact_lo={scores['intact'].interval[0]:.3f} "
        f"shuffled_hi={scores['shuffled'].interval[1]:.3f}"
    )
