"""Fixtures for the Graph2Text tests: a few real WebNLG entries and a tiny trained model.

Registered for every test in ``tests/conftest.py`` (the core's tests of the model, the guard
and the tools, and ``kgmodels``' tests of training, publishing and serving).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kgeval.datasets import default_data_dir


@pytest.fixture(scope="session")
def small_webnlg(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The first 48 train and 8 dev entries of the real WebNLG files."""
    folder = tmp_path_factory.mktemp("webnlg")
    source = default_data_dir() / "webnlg"
    for split, n in (("train", 48), ("dev", 8)):
        lines = (source / f"webnlg_en_v1.6_{split}.jsonl").read_text().splitlines()[:n]
        (folder / f"{split}.jsonl").write_text("\n".join(lines) + "\n")
    return folder / "train.jsonl", folder / "dev.jsonl"


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory, small_webnlg: tuple[Path, Path]) -> Path:
    """A scratch:tiny Graph2Text folder after a few steps (plumbing, not quality)."""
    from kgmodels.graph2text import TrainConfig, train

    out = tmp_path_factory.mktemp("g2t-tiny")
    config = TrainConfig(
        base="scratch:tiny",
        output_dir=str(out),
        train_files=[str(small_webnlg[0])],
        epochs=1,
        max_steps=3,
        batch_size=8,
        progress=False,
        threads=1,
    )
    return train(config).best_dir
