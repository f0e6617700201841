"""Training the graph prompt (and LoRA adapters): AdamW, cosine warm-up, early stopping, resume.

The paper's recipe: AdamW (lr 1e-5, weight decay 0.05), batch 4 with 2 gradient-accumulation
steps, a cosine schedule after a warm-up (the paper warms up for 1 of 10 epochs: ratio 0.1),
gradient norm clipped at 0.1, early stopping with patience 2 on validation accuracy.

Everything a run needs to resume lives in its output folder: ``state.json`` (position,
history, best accuracy), ``last.safetensors`` (trained parameters), ``optimizer.pt``
(optimizer and schedule) and ``best.safetensors`` (the best epoch's parameters, the
checkpoint to use). Only the trained parts are saved, never the frozen LLM. The batch order
of epoch ``e`` is a permutation seeded by ``seed + e``, so a resumed run sees the same batches.

Example
-------
>>> trainer = Trainer(model, train, val, "runs/gnn", TrainConfig())  # doctest: +SKIP
>>> trainer.run().best_accuracy                                    # doctest: +SKIP
0.62
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm.auto import tqdm

from kgcore.exceptions import ConfigurationError
from kgcore.gretriever.gnn.labels import UNPARSEABLE, parse_label
from kgcore.gretriever.gnn.model import GraphPromptModel
from kgmodels.gnn.explagraphs import LabelledPrompt

STATE_FILE = "state.json"
LAST_FILE = "last.safetensors"
BEST_FILE = "best.safetensors"
OPTIMIZER_FILE = "optimizer.pt"


@dataclass(frozen=True)
class TrainConfig:
    """Optimisation settings (paper defaults).

    Attributes
    ----------
    epochs : int
        Most epochs (the paper: 10).
    lr, weight_decay : float
        AdamW's (1e-5, 0.05).
    batch_size, grad_accumulation : int
        Examples per forward pass, and passes per optimiser step (4, 2).
    warmup_ratio : float
        Share of the optimiser steps spent warming up (0.1).
    patience : int
        Epochs without a better validation accuracy before stopping (2).
    max_grad_norm : float
        Gradient clipping (0.1).
    eval_batch_size : int
        Examples per generation batch when validating.
    save_every : int
        Optimiser steps between resumable snapshots.
    balance : bool
        Class-balanced epochs: each label's examples are drawn (the rarer ones repeated,
        seeded) as often as the commonest label's, so a model cannot settle on the majority
        answer (ExplaGraphs is 59 % ``support``).
    seed : int
        Seeds the batch order (and dropout).
    progress : bool
        Progress bars on stderr.
    projector_lr : float, optional
        The projector's learning rate (``lr`` when not given; not in the paper): a projector
        starting from scratch in front of a stage-1 GNN (:mod:`kgmodels.gnn.pretrain`)
        learns faster than the GNN should move.
    """

    epochs: int = 10
    lr: float = 1e-5
    weight_decay: float = 0.05
    batch_size: int = 4
    grad_accumulation: int = 2
    warmup_ratio: float = 0.1
    patience: int = 2
    max_grad_norm: float = 0.1
    eval_batch_size: int = 8
    save_every: int = 25
    balance: bool = False
    seed: int = 0
    progress: bool = True
    projector_lr: float | None = None

    def __post_init__(self) -> None:
        if self.projector_lr is not None and not self.projector_lr > 0:
            raise ConfigurationError(f"projector_lr must be positive, got {self.projector_lr}")
        for name in (
            "epochs",
            "batch_size",
            "grad_accumulation",
            "patience",
            "eval_batch_size",
            "save_every",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigurationError(f"{name} must be a positive integer, got {value!r}")
        if not self.lr > 0 or self.weight_decay < 0 or not 0 <= self.warmup_ratio < 1:
            raise ConfigurationError("need lr > 0, weight_decay >= 0 and 0 <= warmup_ratio < 1")
        if not self.max_grad_norm > 0:
            raise ConfigurationError(f"max_grad_norm must be positive, got {self.max_grad_norm}")

    def to_dict(self) -> dict[str, Any]:
        """The fields, for ``state.json`` (``projector_lr`` only when set, so runs written
        before it existed still resume)."""
        values = asdict(self)
        if values["projector_lr"] is None:
            del values["projector_lr"]
        return values

    @classmethod
    def paper(cls, **overrides: Any) -> TrainConfig:
        """The paper's optimisation: AdamW lr 1e-5, weight decay 0.05, 10 epochs, batch 4 with 2
        accumulation steps, 10 % warm-up, patience 2, gradient norm 0.1.

        Example
        -------
        >>> TrainConfig.paper().lr, TrainConfig.paper().epochs
        (1e-05, 10)
        """
        values: dict[str, Any] = {
            "epochs": 10,
            "lr": 1e-5,
            "weight_decay": 0.05,
            "batch_size": 4,
            "grad_accumulation": 2,
            "warmup_ratio": 0.1,
            "patience": 2,
            "max_grad_norm": 0.1,
        }
        return cls(**{**values, **overrides})


@dataclass
class Accuracy:
    """Accuracy of a model on labelled prompts, with each reply and parsed label."""

    accuracy: float
    predictions: list[str]
    replies: list[str]
    seconds: float

    @property
    def unparseable(self) -> int:
        """Replies with no label in them."""
        return sum(p == UNPARSEABLE for p in self.predictions)


def evaluate_accuracy(
    model: GraphPromptModel,
    examples: Sequence[LabelledPrompt],
    batch_size: int = 8,
    progress: bool = False,
    desc: str = "eval",
    graph_token: bool = True,
) -> Accuracy:
    """Generate an answer for every example and count the parsed labels that match.

    ``graph_token=False`` leaves the soft graph token out (the text-only ablation).

    Example
    -------
    >>> evaluate_accuracy(model, val[:8]).accuracy    # doctest: +SKIP
    0.5
    """
    if not examples:
        raise ConfigurationError("no examples to evaluate")
    started = time.perf_counter()
    labels = tuple(sorted({e.label for e in examples}))
    replies: list[str] = []
    predictions: list[str] = []
    hits = 0
    bar = tqdm(total=len(examples), desc=desc, disable=not progress, file=sys.stderr)
    for first in range(0, len(examples), batch_size):
        chunk = examples[first : first + batch_size]
        for example, reply in zip(
            chunk, model.generate([e.prompt for e in chunk], graph_token=graph_token), strict=True
        ):
            label = parse_label(reply, labels)
            replies.append(reply)
            predictions.append(label)
            hits += label == example.label
        bar.update(len(chunk))
        bar.set_postfix(acc=f"{hits / len(predictions):.3f}")
    bar.close()
    return Accuracy(hits / len(examples), predictions, replies, time.perf_counter() - started)


def balanced_order(labels: Sequence[str], rng: np.random.Generator) -> np.ndarray:
    """Indices where every label occurs as often as the commonest one, shuffled by ``rng``.

    Each label's own examples all occur; a rarer label's are repeated (a seeded draw without
    replacement, then again) up to the commonest label's count.

    Example
    -------
    >>> order = balanced_order(["a", "a", "a", "b"], np.random.default_rng(0))
    >>> sorted(order.tolist())
    [0, 1, 2, 3, 3, 3]
    """
    groups: dict[str, list[int]] = {}
    for index, label in enumerate(labels):
        groups.setdefault(label, []).append(index)
    if not groups:
        return np.zeros(0, dtype=np.int64)
    most = max(len(group) for group in groups.values())
    chosen: list[int] = []
    for label in sorted(groups):
        group = np.asarray(groups[label], dtype=np.int64)
        repeats, rest = divmod(most, len(group))
        chosen.extend(np.tile(group, repeats).tolist())
        chosen.extend(rng.choice(group, size=rest, replace=False).tolist())
    return rng.permutation(np.asarray(chosen, dtype=np.int64))


def parameter_groups(model: GraphPromptModel, config: TrainConfig) -> list[dict[str, Any]]:
    """AdamW's parameter groups: every trained parameter at ``lr``, or the projector's at
    ``projector_lr`` when it is given."""
    named = [(n, p) for n, p in model.inner.named_parameters() if p.requires_grad]
    if config.projector_lr is None:
        params = [p for _, p in named]
        return [{"params": params, "lr": config.lr, "weight_decay": config.weight_decay}]
    projector = [p for n, p in named if n.startswith("projector.")]
    rest = [p for n, p in named if not n.startswith("projector.")]
    groups = [{"params": projector, "lr": config.projector_lr, "weight_decay": config.weight_decay}]
    if rest:
        groups.append({"params": rest, "lr": config.lr, "weight_decay": config.weight_decay})
    return groups


@dataclass
class TrainState:
    """Where a run stands (``state.json``)."""

    epoch: int = 0
    batches_done: int = 0
    optimizer_steps: int = 0
    best_accuracy: float = -1.0
    best_epoch: int = -1
    bad_epochs: int = 0
    finished: bool = False
    train_seconds: float = 0.0
    train_batches: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)
    losses: list[float] = field(default_factory=list)

    @property
    def seconds_per_step(self) -> float | None:
        """Mean seconds per training batch (forward and backward)."""
        return self.train_seconds / self.train_batches if self.train_batches else None


class Trainer:
    """Train a :class:`GraphPromptModel` on labelled prompts, validating every epoch.

    Parameters
    ----------
    model : GraphPromptModel
        Mode ``prompt`` or ``lora`` (an inference-only model has nothing to train).
    train, val : sequence of LabelledPrompt
        Training and validation examples.
    out_dir : path
        The run's folder (created; an existing run there is resumed).
    config : TrainConfig
        Optimisation settings.
    """

    def __init__(
        self,
        model: GraphPromptModel,
        train: Sequence[LabelledPrompt],
        val: Sequence[LabelledPrompt],
        out_dir: str | Path,
        config: TrainConfig | None = None,
    ) -> None:
        if model.config.mode == "inference":
            raise ConfigurationError("an inference-only model has nothing to train")
        if not train or not val:
            raise ConfigurationError("training needs training and validation examples")
        self.model = model
        self.train_set = list(train)
        self.val_set = list(val)
        self.out_dir = Path(out_dir)
        self.config = config or TrainConfig()
        cfg = self.config
        self.epoch_size = len(self._order(0))
        self.batches_per_epoch = math.ceil(self.epoch_size / cfg.batch_size)
        steps_per_epoch = math.ceil(self.batches_per_epoch / cfg.grad_accumulation)
        self.total_steps = steps_per_epoch * cfg.epochs
        self.optimizer = torch.optim.AdamW(parameter_groups(model, cfg), betas=(0.9, 0.95))
        from transformers import get_cosine_schedule_with_warmup

        self.scheduler = get_cosine_schedule_with_warmup(
            self.optimizer, int(cfg.warmup_ratio * self.total_steps), self.total_steps
        )
        self.state = TrainState()

    # -- files ----------------------------------------------------------------------------
    def _identity(self) -> dict[str, Any]:
        return {
            "model": self.model.config.to_dict(),
            "train": {k: v for k, v in self.config.to_dict().items() if k != "progress"},
            "train_examples": len(self.train_set),
            "val_examples": len(self.val_set),
        }

    def _write_state(self) -> None:
        self.out_dir.mkdir(parents=True, exist_ok=True)
        payload = {"run": self._identity(), "state": asdict(self.state)}
        tmp = self.out_dir / (STATE_FILE + ".tmp")
        tmp.write_text(json.dumps(payload, indent=1))
        tmp.replace(self.out_dir / STATE_FILE)

    def _snapshot(self) -> None:
        self.model.save(self.out_dir / LAST_FILE, extra={"state": "last"})
        tmp = self.out_dir / (OPTIMIZER_FILE + ".tmp")
        torch.save(
            {"optimizer": self.optimizer.state_dict(), "scheduler": self.scheduler.state_dict()},
            tmp,
        )
        tmp.replace(self.out_dir / OPTIMIZER_FILE)
        self._write_state()

    def resume(self) -> bool:
        """Load the run in ``out_dir`` if there is one; ``False`` when starting afresh."""
        path = self.out_dir / STATE_FILE
        if not path.is_file():
            return False
        payload = json.loads(path.read_text())
        if payload.get("run") != json.loads(json.dumps(self._identity())):
            raise ConfigurationError(
                f"{self.out_dir} holds a run with other settings; use another --out folder"
            )
        self.state = TrainState(**payload["state"])
        if (self.out_dir / LAST_FILE).is_file():
            self.model.load_trained(self.out_dir / LAST_FILE)
            saved = torch.load(self.out_dir / OPTIMIZER_FILE, weights_only=True)
            self.optimizer.load_state_dict(saved["optimizer"])
            self.scheduler.load_state_dict(saved["scheduler"])
        return True

    # -- loop -----------------------------------------------------------------------------
    def _order(self, epoch: int) -> np.ndarray:
        """Epoch ``epoch``'s example indices (class-balanced when ``balance``), seeded."""
        rng = np.random.default_rng(self.config.seed + epoch)
        if not self.config.balance:
            return rng.permutation(len(self.train_set))
        return balanced_order([e.label for e in self.train_set], rng)

    def _step(self) -> None:
        params = [p for p in self.model.inner.parameters() if p.requires_grad]
        torch.nn.utils.clip_grad_norm_(params, self.config.max_grad_norm)
        self.optimizer.step()
        self.scheduler.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.state.optimizer_steps += 1
        if self.state.optimizer_steps % self.config.save_every == 0:
            self._snapshot()

    def _train_epoch(self, epoch: int) -> None:
        cfg, state = self.config, self.state
        order = self._order(epoch)
        torch.manual_seed(cfg.seed * 1000 + epoch * 100003 + state.batches_done)
        self.model.train()
        bar = tqdm(
            total=self.batches_per_epoch,
            initial=state.batches_done,
            desc=f"epoch {epoch + 1}/{cfg.epochs}",
            disable=not cfg.progress,
            file=sys.stderr,
        )
        pending = 0
        for batch_number in range(state.batches_done, self.batches_per_epoch):
            ids = order[batch_number * cfg.batch_size : (batch_number + 1) * cfg.batch_size]
            batch = [self.train_set[i] for i in ids]
            started = time.perf_counter()
            loss = self.model.loss([e.prompt for e in batch], [e.label for e in batch])
            (loss / cfg.grad_accumulation).backward()
            pending += 1
            value = float(loss.detach())
            state.losses.append(round(value, 5))
            state.batches_done = batch_number + 1
            if pending == cfg.grad_accumulation or state.batches_done == self.batches_per_epoch:
                pending = 0
                self._step()
            state.train_seconds += time.perf_counter() - started
            state.train_batches += 1
            bar.update(1)
            recent = state.losses[-20:]
            bar.set_postfix(loss=f"{sum(recent) / len(recent):.3f}")
        bar.close()

    def run(self) -> TrainState:
        """Train until ``epochs`` or early stopping; returns the final state."""
        self.resume()
        cfg, state = self.config, self.state
        while not state.finished and state.epoch < cfg.epochs:
            if state.batches_done < self.batches_per_epoch:
                self._train_epoch(state.epoch)
                self._snapshot()
            result = evaluate_accuracy(
                self.model,
                self.val_set,
                cfg.eval_batch_size,
                cfg.progress,
                desc=f"val {state.epoch + 1}",
            )
            epoch_losses = state.losses[-self.batches_per_epoch :]
            state.history.append(
                {
                    "epoch": state.epoch + 1,
                    "train_loss": round(sum(epoch_losses) / len(epoch_losses), 5),
                    "val_accuracy": round(result.accuracy, 5),
                    "val_unparseable": result.unparseable,
                    "val_seconds": round(result.seconds, 1),
                }
            )
            print(json.dumps(state.history[-1]), file=sys.stderr)
            if result.accuracy > state.best_accuracy:
                state.best_accuracy, state.best_epoch, state.bad_epochs = (
                    result.accuracy,
                    state.epoch + 1,
                    0,
                )
                self.model.save(
                    self.out_dir / BEST_FILE,
                    extra={
                        "epoch": state.epoch + 1,
                        "val_accuracy": result.accuracy,
                        "train": self._identity()["train"],
                        "train_examples": len(self.train_set),
                    },
                )
            else:
                state.bad_epochs += 1
            state.epoch += 1
            state.batches_done = 0
            if state.bad_epochs >= cfg.patience:
                state.finished = True
            self._write_state()
        state.finished = True
        self._write_state()
        return state
