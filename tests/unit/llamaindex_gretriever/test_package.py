from __future__ import annotations

import inspect

import llamaindex_gretriever


def test_all_lists_exactly_the_public_names() -> None:
    exported = set(llamaindex_gretriever.__all__)
    public = {
        name
        for name, value in vars(llamaindex_gretriever).items()
        if not name.startswith("_") and not inspect.ismodule(value)
    }
    assert exported == public
    assert llamaindex_gretriever.__all__ == sorted(llamaindex_gretriever.__all__)
    for name in exported:
        assert getattr(llamaindex_gretriever, name).__doc__, f"{name} has no docstring"


def test_core_does_not_import_llamaindex_or_langchain() -> None:
    import subprocess
    import sys

    code = (
        "import sys, kgcore.gretriever; "
        "bad = [m for m in sys.modules if m.startswith(('llama_index', 'langchain'))]; "
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
