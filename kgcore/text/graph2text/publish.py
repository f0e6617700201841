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
import os
import shutil
from pathlib import Path
from typing import Any

from kgcore.exceptions import ConfigurationError, MissingDependencyError

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
)

_BODY = """
# {name}

A graph-to-text model: it writes a knowledge-graph community (a few subject-predicate-object
triples) as English sentences, for Fast Think-on-Graph's community textualisation
(`kg-retrievers`, `kgcore.text.graph2text.Graph2Text`).

- Architecture: T5 (`T5ForConditionalGeneration`), {size}.
- Base model: {base}.
- Training data: WebNLG 2017 (enriched v1.6, English) train split{synthetic}; model selection
  on dev BLEU.
- Input: `<H> subject <R> predicate <T> object` per triple.{delex}

## Use

```python
from kgcore.text.graph2text import Graph2Text
g2t = Graph2Text.from_pretrained("{repo_id}")
print(g2t.generate([[("Alan_Bean", "occupation", "Test_pilot")]]))
```

## Evaluation (WebNLG 2017 test, greedy decoding, multi-reference)

{metrics_table}

## Intended use and limits

Intended for turning small knowledge-graph neighbourhoods into text for an LLM to read, and
for research on data-to-text generation. Not for producing facts: **a generation model can
hallucinate** (drop an entity, or name one that is not in the input). kg-retrievers applies a
*hallucination guard*: a text must mention every entity of its triples and no capitalised name
outside them, otherwise the rule-based Triple2Text text is used instead, and results count
those fallbacks. Use the guard (or an equivalent check) wherever the text is trusted.

## Licence

Trained on WebNLG, which is licensed CC BY-NC-SA 4.0: the model is shared under the same
licence, for non-commercial research use.
"""


def _metrics_table(metrics: dict[str, Any]) -> str:
    if not metrics:
        return "Not measured yet: run `python benchmarks/g2t.py`."
    rows = "\n".join(f"| {k} | {v} |" for k, v in metrics.items())
    return "| metric | value |\n|---|---|\n" + rows


def build_card(
    repo_id: str,
    *,
    base_model: str | None,
    metrics: dict[str, Any] | None = None,
    size: str = "trained from scratch",
    delexicalized: bool = False,
    synthetic: bool = False,
) -> Any:
    """A ``huggingface_hub.ModelCard`` with the metadata the Hub shows and filters on."""
    try:
        from huggingface_hub import ModelCard, ModelCardData
    except ImportError as err:  # pragma: no cover - a transformers dependency
        raise MissingDependencyError("huggingface_hub", "g2t") from err
    metrics = dict(metrics or {})
    data = ModelCardData(
        language="en",
        license="cc-by-nc-sa-4.0",
        library_name="transformers",
        pipeline_tag="text2text-generation",
        tags=["graph-to-text", "webnlg", "t5", "knowledge-graph", "kg-retrievers"],
        datasets=["webnlg-challenge/web_nlg"],
        base_model=base_model,
        metrics=["bleu", "chrf", "rouge"],
    )
    body = _BODY.format(
        name=repo_id.split("/")[-1],
        repo_id=repo_id,
        size=size,
        base=base_model or "none (trained from scratch here, with a Unigram tokenizer)",
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
    raw = json.loads(path.read_text())
    out: dict[str, Any] = {}
    for part in ("all", "seen", "unseen"):
        for key in ("bleu", "chrf", "rougeL"):
            if isinstance(raw.get(part), dict) and key in raw[part]:
                out[f"{key}_{part}"] = raw[part][key]
    if "guard_rejects" in raw:
        out["guard_rejection_rate"] = raw["guard_rejects"]
    return out


def stage(
    folder: str | Path, out: str | Path, repo_id: str, metrics: dict[str, Any] | None = None
) -> Path:
    """Copy the model files to ``out`` and write its ``README.md`` model card."""
    from kgcore.text.graph2text.settings import G2TSettings

    folder, out = Path(folder), Path(out)
    if not (folder / "config.json").is_file() or not (folder / "model.safetensors").is_file():
        raise ConfigurationError(f"{folder} is not a Graph2Text model folder (config, weights)")
    out.mkdir(parents=True, exist_ok=True)
    for name in MODEL_FILES:
        if (folder / name).is_file():
            shutil.copy2(folder / name, out / name)
    config = json.loads((folder / "config.json").read_text())
    base = config.get("_name_or_path") or None
    size = (
        f"d_model {config.get('d_model')}, {config.get('num_layers')}+"
        f"{config.get('num_decoder_layers')} layers, vocabulary {config.get('vocab_size')}"
    )
    settings = G2TSettings.load(folder)
    card = build_card(
        repo_id,
        base_model=base if base and "/" in str(base) and not Path(base).exists() else None,
        metrics=metrics,
        size=size,
        delexicalized=settings.delexicalize,
    )
    card.save(out / "README.md")
    return out


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
