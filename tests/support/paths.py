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
