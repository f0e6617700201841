"""Training Graph2Text: from scratch (``scratch:tiny|small``) or from a Hub checkpoint.

``scratch:*`` builds a CPU-sized T5 (:data:`SCRATCH_PRESETS`) and a Unigram tokenizer learnt
from the training texts, and trains on delexicalised pairs with one reference text per entry
per epoch (sampled, seeded), so that an epoch is short and many epochs fit. A Hub checkpoint
(``google-t5/t5-base``) is fine-tuned with the paper's settings: lr 1e-5, 2 epochs, every
reference text, no delexicalisation, the ``<H>``/``<R>``/``<T>`` markers added to its vocabulary.

After each epoch the model is scored on the dev set (BLEU with sacrebleu, ROUGE-L), saved to
``OUT/last`` with the optimiser state, and copied to ``OUT/best`` when its BLEU is the best so
far; a rerun resumes from ``OUT/last``. ``OUT/history.jsonl`` holds one line per epoch.

Example
-------
>>> config = TrainConfig(base="scratch:tiny", output_dir="runs/g2t", epochs=1)  # doctest: +SKIP
>>> train(config).best_bleu                                                     # doctest: +SKIP
"""

from __future__ import annotations

import json
import logging
import math
import random
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from kgcore.exceptions import ConfigurationError, MissingDependencyError
from kgcore.text.graph2text.delex import delexicalize
from kgcore.text.graph2text.linearize import MARKERS, linearize
from kgcore.text.graph2text.model import Graph2Text, pick_device
from kgcore.text.graph2text.settings import G2TSettings
from kgmodels.graph2text.data import WebNLGEntry, read_webnlg
from kgmodels.graph2text.metrics import corpus_scores

log = logging.getLogger(__name__)

#: T5 sizes trainable on a CPU. ``small`` (d_model 128, 2+2 layers, 2k vocabulary, ~1.2M
#: parameters) is the committed model, the largest that converged in the time a CPU had
#: (docs/research/code_measurements.md); ``tiny`` is for tests.
SCRATCH_PRESETS: dict[str, dict[str, int]] = {
    "tiny": {"d_model": 32, "d_ff": 64, "num_layers": 1, "num_heads": 2, "vocab_size": 300},
    "small": {"d_model": 128, "d_ff": 512, "num_layers": 2, "num_heads": 4, "vocab_size": 2000},
}
T5_PREFIX = "translate Graph to English: "


@dataclass
class TrainConfig:
    """Everything a training run needs; unset values take the base's defaults.

    Parameters
    ----------
    base : str
        ``scratch:tiny``, ``scratch:small``, or a Hub id / folder of a seq2seq checkpoint.
    output_dir : str
        Where ``last/``, ``best/`` and ``history.jsonl`` go.
    train_files, dev_file : list of str, str
        WebNLG-format JSONL files (synthetic pairs use the same format).
    epochs, batch_size, learning_rate, warmup_steps : optional
        Defaults: scratch 20 epochs, batch 32, lr 2e-3, 200 warm-up steps; Hub 2 epochs,
        batch 8, lr 1e-5 (the paper), no warm-up.
    max_steps : int, optional
        Stop after this many optimiser steps (tests, smoke runs).
    val_limit : int, optional
        Score on the first N dev entries only (generation is the slow part of an epoch).
    """

    base: str = "scratch:small"
    output_dir: str = "runs/graph2text"
    train_files: list[str] = field(default_factory=list)
    dev_file: str | None = None
    epochs: int | None = None
    batch_size: int | None = None
    learning_rate: float | None = None
    warmup_steps: int | None = None
    weight_decay: float = 0.01
    label_smoothing: float = 0.1
    max_steps: int | None = None
    val_limit: int | None = None
    seed: int = 0
    delexicalize: bool | None = None
    one_text_per_entry: bool | None = None
    max_source_tokens: int = 256
    max_target_tokens: int = 128
    threads: int | None = None
    resume: bool = True
    progress: bool = True

    @property
    def scratch(self) -> bool:
        return self.base.startswith("scratch:")

    def resolved(self) -> TrainConfig:
        """A copy with every ``None`` default filled in for the base."""
        scratch = self.scratch
        if scratch and self.base.split(":", 1)[1] not in SCRATCH_PRESETS:
            raise ConfigurationError(
                f"unknown base {self.base!r}; scratch presets: "
                + ", ".join(f"scratch:{name}" for name in SCRATCH_PRESETS)
            )
        if not self.train_files:
            raise ConfigurationError("no training data: pass at least one WebNLG JSONL file")
        defaults: dict[str, Any] = (
            {"epochs": 20, "batch_size": 32, "learning_rate": 2e-3, "warmup_steps": 200}
            if scratch
            else {"epochs": 2, "batch_size": 8, "learning_rate": 1e-5, "warmup_steps": 0}
        )
        defaults["delexicalize"] = scratch
        defaults["one_text_per_entry"] = scratch
        values = asdict(self)
        for key, value in defaults.items():
            if values[key] is None:
                values[key] = value
        return TrainConfig(**values)

    def settings(self) -> G2TSettings:
        return G2TSettings(
            delexicalize=bool(self.delexicalize),
            prefix="" if self.scratch else T5_PREFIX,
            max_source_tokens=self.max_source_tokens,
            max_target_tokens=self.max_target_tokens,
        )


@dataclass
class TrainResult:
    """What a run did: per-epoch history, per-step losses, the best dev BLEU and its folder."""

    history: list[dict[str, Any]]
    losses: list[float]
    best_bleu: float
    best_dir: Path
    last_dir: Path


def training_pairs(
    entries: Sequence[WebNLGEntry], settings: G2TSettings, one_text: bool, rng: random.Random
) -> list[tuple[str, str]]:
    """``(source, target)`` pairs: every reference text, or one sampled text per entry."""
    pairs: list[tuple[str, str]] = []
    for entry in entries:
        if not entry.texts:
            continue
        texts = [rng.choice(entry.texts)] if one_text else entry.texts
        for text in texts:
            if settings.delexicalize:
                delex = delexicalize(entry.triples, text)
                pairs.append((settings.prefix + linearize(delex.triples), delex.target or ""))
            else:
                pairs.append((settings.prefix + linearize(entry.triples), text))
    return pairs


def length_buckets(
    pairs: list[tuple[str, str]], batch_size: int, rng: random.Random, window: int = 50
) -> list[list[tuple[str, str]]]:
    """Shuffled batches of similar-length pairs (less padding: CPU steps cost much less).

    Pairs are shuffled, sorted by length within windows of ``window`` batches, cut into
    batches, and the batches shuffled again; ``rng`` makes it repeat.

    >>> pairs = [("a" * n, "b") for n in range(10)]
    >>> batches = length_buckets(pairs, 4, random.Random(0))
    >>> sorted(len(b) for b in batches), sorted(p for b in batches for p in b) == pairs
    ([2, 4, 4], True)
    """
    pairs = list(pairs)
    rng.shuffle(pairs)
    span = batch_size * window
    batches: list[list[tuple[str, str]]] = []
    for start in range(0, len(pairs), span):
        chunk = sorted(pairs[start : start + span], key=lambda p: (len(p[0]), len(p[1])))
        batches.extend(chunk[i : i + batch_size] for i in range(0, len(chunk), batch_size))
    rng.shuffle(batches)
    return batches


def _new_scratch_model(preset: str, entries: Sequence[WebNLGEntry], settings: G2TSettings) -> Any:
    from transformers import T5Config, T5ForConditionalGeneration

    from kgmodels.graph2text.tokenizer import train_unigram_tokenizer

    sizes = SCRATCH_PRESETS[preset]
    corpus = [source for source, _ in training_pairs(entries, settings, False, random.Random(0))]
    corpus += [target for _, target in training_pairs(entries, settings, False, random.Random(0))]
    tokenizer = train_unigram_tokenizer(corpus, vocab_size=sizes["vocab_size"])
    heads = sizes["num_heads"]
    options: dict[str, Any] = dict(
        vocab_size=len(tokenizer),
        d_model=sizes["d_model"],
        d_kv=sizes["d_model"] // heads,
        d_ff=sizes["d_ff"],
        num_layers=sizes["num_layers"],
        num_decoder_layers=sizes["num_layers"],
        num_heads=heads,
        dropout_rate=0.1,
        feed_forward_proj="relu",
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        decoder_start_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=True,
    )
    return T5ForConditionalGeneration(T5Config(**options)), tokenizer


def _hub_model(base: str) -> Any:
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    from kgcore.text.graph2text.model import resolve_model_folder

    folder = resolve_model_folder(base)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    tokenizer.add_tokens([m for m in MARKERS if m not in tokenizer.get_vocab()])
    model = AutoModelForSeq2SeqLM.from_pretrained(folder)
    model.resize_token_embeddings(len(tokenizer))
    return model, tokenizer


def _save(folder: Path, model: Any, tokenizer: Any, settings: G2TSettings) -> None:
    """Write a loadable model folder atomically (a temporary folder, then a rename)."""
    tmp = folder.with_name(folder.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp, safe_serialization=True)
    tokenizer.save_pretrained(tmp)
    settings.save(tmp)
    shutil.rmtree(folder, ignore_errors=True)
    tmp.rename(folder)


def evaluate_model(
    g2t: Graph2Text, entries: Sequence[WebNLGEntry]
) -> tuple[dict[str, float], list[str]]:
    """Dev scores (entries without a reference are skipped) and the generated texts."""
    scored = [e for e in entries if e.texts]
    hypotheses = g2t.generate([e.triples for e in scored])
    return corpus_scores(hypotheses, [e.texts for e in scored]), hypotheses


def train(
    config: TrainConfig, on_epoch: Callable[[dict[str, Any]], None] | None = None
) -> TrainResult:
    """Train (or resume) as ``config`` says; see the module docstring."""
    try:
        import torch
        from tqdm.auto import tqdm
        from transformers import get_linear_schedule_with_warmup
    except ImportError as err:  # pragma: no cover - installed with the [local] extra
        raise MissingDependencyError("torch and transformers", "g2t") from err

    config = config.resolved()
    settings = config.settings()
    if config.threads:
        torch.set_num_threads(config.threads)
    out = Path(config.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    last_dir, best_dir = out / "last", out / "best"
    state_path = out / "trainer_state.pt"
    train_entries = [e for path in config.train_files for e in read_webnlg(path)]
    dev_entries = read_webnlg(config.dev_file, skip_without_text=True) if config.dev_file else []
    if config.val_limit is not None:
        dev_entries = dev_entries[: config.val_limit]

    random.seed(config.seed)
    torch.manual_seed(config.seed)
    resuming = config.resume and state_path.is_file() and (last_dir / "config.json").is_file()
    if resuming:
        from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(last_dir)
        model = AutoModelForSeq2SeqLM.from_pretrained(last_dir)
        settings = G2TSettings.load(last_dir)
    elif config.scratch:
        model, tokenizer = _new_scratch_model(config.base.split(":", 1)[1], train_entries, settings)
    else:
        model, tokenizer = _hub_model(config.base)
    device, _ = pick_device()
    model.to(device)  # training stays in float32; bf16 is for inference

    assert config.epochs is not None and config.batch_size is not None
    per_epoch = (
        len(train_entries)
        if config.one_text_per_entry
        else sum(len(e.texts) for e in train_entries)
    )
    steps_per_epoch = max(1, math.ceil(per_epoch / config.batch_size))
    total_steps = steps_per_epoch * config.epochs
    if config.max_steps is not None:
        total_steps = min(total_steps, config.max_steps)
    decay = [p for n, p in model.named_parameters() if p.ndim >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.ndim < 2]
    groups: list[dict[str, Any]] = [
        {"params": decay, "weight_decay": config.weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=float(config.learning_rate or 0.0))
    scheduler = get_linear_schedule_with_warmup(optimizer, config.warmup_steps, total_steps)
    start_epoch, step, best_bleu = 0, 0, -math.inf
    history: list[dict[str, Any]] = []
    if resuming:
        state = torch.load(state_path, weights_only=False)
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        start_epoch, step, best_bleu = state["epoch"], state["step"], state["best_bleu"]
        history = list(state["history"])
        log.info("resuming after epoch %d (step %d, best BLEU %.2f)", start_epoch, step, best_bleu)

    losses: list[float] = []
    g2t = Graph2Text(model, tokenizer, settings, batch_size=64)
    for epoch in range(start_epoch, config.epochs):
        if config.max_steps is not None and step >= config.max_steps:
            break
        started = time.perf_counter()
        rng = random.Random(config.seed * 1_000_003 + epoch)
        pairs = training_pairs(train_entries, settings, bool(config.one_text_per_entry), rng)
        batches = length_buckets(pairs, config.batch_size, rng)
        model.train()
        epoch_losses: list[float] = []
        bar = tqdm(
            batches,
            desc=f"epoch {epoch + 1}/{config.epochs}",
            disable=not config.progress,
            mininterval=5.0,
        )
        for batch in bar:
            if config.max_steps is not None and step >= config.max_steps:
                break
            inputs = tokenizer(
                [s for s, _ in batch],
                return_tensors="pt",
                padding=True,
                truncation=True,
                max_length=settings.max_source_tokens,
            ).to(device)
            labels = tokenizer(
                [t for _, t in batch],
                return_tensors="pt",
                padding=True,
                truncation=True,
                max_length=settings.max_target_tokens,
            )["input_ids"].to(device)
            labels[labels == tokenizer.pad_token_id] = -100
            logits = model(**inputs, labels=labels).logits
            loss = torch.nn.functional.cross_entropy(
                logits.reshape(-1, logits.size(-1)),
                labels.reshape(-1),
                ignore_index=-100,
                label_smoothing=config.label_smoothing,
            )
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
            step += 1
            epoch_losses.append(float(loss.detach()))
            bar.set_postfix(loss=f"{epoch_losses[-1]:.3f}", refresh=False)
        losses.extend(epoch_losses)
        record: dict[str, Any] = {
            "epoch": epoch + 1,
            "step": step,
            "train_loss": sum(epoch_losses) / max(len(epoch_losses), 1),
            "train_seconds": round(time.perf_counter() - started, 1),
        }
        model.eval()
        if dev_entries:
            scores, _ = evaluate_model(g2t, dev_entries)
            record.update({k: round(v, 2) for k, v in scores.items()})
        record["seconds"] = round(time.perf_counter() - started, 1)
        history.append(record)
        _save(last_dir, model, tokenizer, settings)
        bleu = float(record.get("bleu", -record["train_loss"]))
        if bleu > best_bleu:
            best_bleu = bleu
            shutil.rmtree(best_dir, ignore_errors=True)
            shutil.copytree(last_dir, best_dir)
            (best_dir / "metrics.json").write_text(json.dumps(record, indent=2) + "\n")
        torch.save(
            {
                "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(),
                "epoch": epoch + 1,
                "step": step,
                "best_bleu": best_bleu,
                "history": history,
                "config": asdict(config),
            },
            state_path,
        )
        with (out / "history.jsonl").open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")
        log.info("epoch %s", record)
        if on_epoch is not None:
            on_epoch(record)
    return TrainResult(history, losses, best_bleu, best_dir, last_dir)
