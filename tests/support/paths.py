"""Where the tests find the checkout and the shared data, wherever a test file lives.

Examples
--------
>>> (REPO / "pyproject.toml").exists()
True
"""

from __future__ import annotations

from pathlib import Path

#: The root of the checkout (the folder holding ``pyproject.toml``).
REPO = Path(__file__).resolve().parents[2]
#: The data shared beside the checkout (``../shared/data``): MetaQA, WebNLG, ...
SHARED_DATA = REPO.parent / "shared" / "data"
#: The packages the wheel ships (``pyproject.toml``'s list; ``tests/unit/test_install_hints.py``
#: checks that the two agree).
PACKAGES = (
    "kgcore", "kgeval", "kglocal", "kgmodels", "kgqa", "langchain_fasttog", "llamaindex_gretriever",
)  # fmt: skip
