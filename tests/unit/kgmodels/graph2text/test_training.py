"""Graph2Text training: a tiny from-scratch T5 learns, checkpoints, resumes and reloads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgcore.exceptions import ConfigurationError
from kgcore.text.graph2text import Graph2Text
from kgcore.text.graph2text.settings import G2TSettings
from kgmodels.graph2text import TrainConfig, train
from kgmodels.graph2text.data import read_webnlg


def _config(files: tuple[Path, Path], out: Path, **kw: object) -> TrainConfig:
    defaults: dict[str, object] = {
        "base": "scratch:tiny",
        "output_dir": str(out),
        "train_files": [str(files[0])],
        "dev_file": str(files[1]),
        "batch_size": 8,
        "learning_rate": 3e-3,
        "warmup_steps": 0,
        "label_smoothing": 0.0,
        "progress": False,
        "threads": 1,
    }
    defaults.update(kw)
    return TrainConfig(**defaults)  # type: ignore[arg-type]


def test_tiny_training_lowers_the_loss_and_saves_a_loadable_model(small_webnlg, tmp_path):
    result = train(_config(small_webnlg, tmp_path, epochs=6))
    first, last = result.losses[:6], result.losses[-6:]
    assert sum(last) / len(last) < 0.8 * sum(first) / len(first)
    assert [h["epoch"] for h in result.history] == [1, 2, 3, 4, 5, 6]
    assert {"bleu", "rougeL", "chrf", "train_loss"} <= set(result.history[0])
    best = json.loads((result.best_dir / "metrics.json").read_text())
    assert best["bleu"] == max(h["bleu"] for h in result.history)
    assert (result.best_dir / "model.safetensors").is_file()
    assert G2TSettings.load(result.best_dir).delexicalize is True
    g2t = Graph2Text.from_pretrained(result.best_dir, max_new_tokens=12)
    texts = g2t.generate([e.triples for e in read_webnlg(small_webnlg[1])[:3]])
    assert len(texts) == 3 and all(isinstance(t, str) for t in texts)
    assert len((tmp_path / "history.jsonl").read_text().splitlines()) == 6


def test_training_resumes_after_the_last_saved_epoch(small_webnlg, tmp_path):
    train(_config(small_webnlg, tmp_path, epochs=1))
    resumed = train(_config(small_webnlg, tmp_path, epochs=2))
    assert [h["epoch"] for h in resumed.history] == [1, 2]
    assert resumed.history[1]["step"] == 2 * resumed.history[0]["step"]
    lines = (tmp_path / "history.jsonl").read_text().splitlines()
    assert [json.loads(line)["epoch"] for line in lines] == [1, 2]


def test_max_steps_stops_the_run(small_webnlg, tmp_path):
    result = train(_config(small_webnlg, tmp_path, epochs=3, max_steps=4))
    assert len(result.losses) == 4


def test_bad_bases_and_missing_data_are_named(small_webnlg, tmp_path):
    with pytest.raises(ConfigurationError, match="scratch:small"):
        _config(small_webnlg, tmp_path, base="scratch:huge").resolved()
    with pytest.raises(ConfigurationError, match="no training data"):
        TrainConfig(base="scratch:tiny").resolved()
    with pytest.raises(ConfigurationError, match="not found"):
        train(_config(small_webnlg, tmp_path, train_files=[str(tmp_path / "none.jsonl")]))
