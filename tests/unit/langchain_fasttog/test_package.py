from __future__ import annotations

import subprocess
import sys

import langchain_fasttog


def test_all_names_are_exported_and_sorted() -> None:
    assert langchain_fasttog.__all__ == sorted(langchain_fasttog.__all__)
    for name in langchain_fasttog.__all__:
        assert hasattr(langchain_fasttog, name), name


def test_kgcore_imports_without_langchain_or_llama_index() -> None:
    code = (
        "import sys, pkgutil, importlib, kgcore\n"
        "for m in pkgutil.walk_packages(kgcore.__path__, 'kgcore.'):\n"
        "    importlib.import_module(m.name)\n"
        "bad = [m for m in sys.modules if m.startswith(('langchain', 'llama_index'))]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
