"""The first output of every example notebook: the commit it ran at, the model and the settings.

Saved outputs are only worth reading when one can tell what produced them: ``run_record``
prints the commit (``git rev-parse --short HEAD``), whether the checkout had changes beyond the
notebooks themselves (``make notebooks`` rewrites them while it runs), the model and the key
settings each method ran with.

Example
-------
>>> from kgcore.methods.fasttog import FastToGConfig
>>> text = run_record("scripted", fasttog=FastToGConfig(width=2))
>>> text.splitlines()[1]
'model: scripted replies (the test suite; not a model)'
>>> "width=2" in text.splitlines()[2]
True
"""

from __future__ import annotations

import subprocess
import warnings
from dataclasses import fields, is_dataclass
from typing import Any

# tqdm warns on import in a kernel without ipywidgets; progress bars are off in the notebooks,
# and the warning would come before the record as the notebook's first output.
warnings.filterwarnings("ignore", message="IProgress not found")

#: The settings shown per config class (a config's other fields keep their defaults).
KEY_SETTINGS = {
    "FastToGConfig": (
        "width",
        "max_depth",
        "lcs.max_community_size",
        "lcs.algorithm",
        "lcs.radius",
        "first_choice",
        "chain_choice",
        "fallback",
        "grounded_answers",
        "neighbour_answers",
        "seed",
    ),
}


def _git(*args: str) -> str:
    try:
        run = subprocess.run(
            ["git", *args], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    # Only the end is trimmed: a status line starts with its two status letters, " M path".
    return run.stdout.rstrip() if run.returncode == 0 else ""


def commit_line() -> str:
    """``commit <sha>`` and whether the checkout had changes beyond the notebooks."""
    sha = _git("rev-parse", "--short", "HEAD")
    if not sha:
        return "commit unknown (not run in a git checkout)"
    changed = [
        line[3:]
        for line in _git("status", "--porcelain", "--untracked-files=no").splitlines()
        if not line[3:].startswith("examples/notebooks/")
    ]
    if not changed:
        return f"commit {sha}, clean (the notebooks aside)"
    shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
    return f"commit {sha}, DIRTY: uncommitted changes in {shown}"


def model_line(llm: str) -> str:
    """The model the notebook's methods ran on."""
    if llm == "scripted":
        return "model: scripted replies (the test suite; not a model)"
    if llm in ("local", "local-small"):
        from kglocal.locations import qwen_gguf_path

        try:
            name = qwen_gguf_path().name if llm == "local" else "SmolLM2-135M"
        except Exception as err:  # noqa: BLE001 - the record must not stop the notebook
            name = f"not found ({err})"
        return f"model: {llm} ({name}, llama.cpp)"
    return f"model: {llm}"


def _value(config: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        config = getattr(config, part)
    return config


def settings_line(name: str, config: Any) -> str:
    """``name: field=value, ...`` for a config (its key settings, or every simple field)."""
    keys = KEY_SETTINGS.get(type(config).__name__)
    if keys is None and is_dataclass(config):
        keys = tuple(
            f.name
            for f in fields(config)
            if f.repr and isinstance(getattr(config, f.name), int | float | str | bool)
        )
    if keys is None:
        return f"{name}: {config}"
    return f"{name}: " + ", ".join(f"{key.split('.')[-1]}={_value(config, key)!r}" for key in keys)


def run_record(llm: str, **settings: Any) -> str:
    """The record's text: commit, model, then one line per named config or value."""
    lines = [commit_line(), model_line(llm)]
    lines += [settings_line(name, value) for name, value in settings.items()]
    return "\n".join(lines)
