"""Derived files go to the user cache, never into the directory the user runs from (issue 37)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import kglocal.locations
from kgcore.gretriever import GraphIndex
from kgcore.gretriever.gnn import local_llm
from kgcore.gretriever.index import default_cache_dir
from kgcore.gretriever.textgraph import TextualGraph
from kglocal.locations import user_cache_dir
from kgmodels.gnn.explagraphs import cached_lookup
from tests.support.fake_embedder import FakeEmbedder


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A working directory, a home and an XDG cache, all empty; no KGQA_CACHE_DIR."""
    found = {name: tmp_path / name for name in ("cwd", "home", "xdg")}
    for folder in found.values():
        folder.mkdir()
    monkeypatch.chdir(found["cwd"])
    monkeypatch.setenv("HOME", str(found["home"]))
    monkeypatch.delenv("KGQA_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    return found


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, "home/.cache/kg-retrievers"),
        ({"XDG_CACHE_HOME": "xdg"}, "xdg/kg-retrievers"),
        ({"XDG_CACHE_HOME": "xdg", "KGQA_CACHE_DIR": "mine"}, "mine"),
    ],
)
@pytest.mark.parametrize(
    ("folder", "sub"),
    [
        (user_cache_dir, ""),
        (local_llm.default_hf_cache_dir, "hf"),
        (default_cache_dir, "gretriever"),
    ],
)
def test_cache_folders_follow_the_environment_not_the_working_directory(
    places: dict[str, Path],
    monkeypatch: pytest.MonkeyPatch,
    env: dict[str, str],
    expected: str,
    folder: Callable[[], Path],
    sub: str,
) -> None:
    root = places["cwd"].parent
    for name, value in env.items():
        monkeypatch.setenv(name, str(root / value))
    assert folder() == root / expected / sub
    assert not folder().is_relative_to(places["cwd"])


def test_the_model_converter_writes_to_the_user_cache(
    places: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    converted: list[tuple[Path, Path]] = []

    def fake_convert(gguf: Path, out_dir: Path) -> Path:
        converted.append((Path(gguf), Path(out_dir)))
        return Path(out_dir)

    monkeypatch.setattr(local_llm, "convert_gguf_to_hf", fake_convert)
    monkeypatch.setattr(kglocal.locations, "smollm_gguf_path", lambda: Path("smollm2.gguf"))
    path = local_llm.resolve_llm_path("smollm2")
    expected = places["home"] / ".cache" / "kg-retrievers" / "hf" / "smollm2-135m-instruct"
    assert converted == [(Path("smollm2.gguf"), expected)]
    assert path == str(expected)


def test_vector_caches_write_to_the_user_cache(places: dict[str, Path]) -> None:
    embedder = FakeEmbedder()
    cached_lookup(["a node", "a relation"], embedder)
    graph = TextualGraph.from_triples([("Cleopatra", "directed_by", "Joseph L. Mankiewicz")])
    GraphIndex.build(graph, embedder, progress=False)
    cache = places["home"] / ".cache" / "kg-retrievers"
    assert len(list((cache / "gretriever-gnn").glob("texts-*.npz"))) == 1
    assert len(list((cache / "gretriever").glob("*.npz"))) == 1
    assert list(places["cwd"].iterdir()) == []  # no .kgcache where the user runs from
