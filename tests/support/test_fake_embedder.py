"""The shared fake embedder: the same vectors in every process, and the options tests use."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from kgcore.embeddings import TextEmbedder
from tests.support.fake_embedder import FakeEmbedder
from tests.support.paths import REPO

TEXTS = ["who directed Cleopatra", "Cleopatra directed_by Joseph L. Mankiewicz", "1963", ""]
SETTINGS: list[dict[str, object]] = [
    {"dim": 16, "seed": 0},
    {"dim": 16, "seed": 3, "unit": "text"},
    {"dim": 8, "seed": 1, "keywords": ["directed"]},
]
_CHILD = """
import json, sys
from tests.support.fake_embedder import FakeEmbedder
settings, texts = json.loads(sys.stdin.read())
print(json.dumps([FakeEmbedder(**s).embed(texts).tobytes().hex() for s in settings]))
"""


def _in_a_fresh_process(hash_seed: str) -> list[str]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD],
        input=json.dumps([SETTINGS, TEXTS]),
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        check=True,
        timeout=120,
    )
    result: list[str] = json.loads(done.stdout)
    return result


def test_the_vectors_are_the_same_in_every_process_whatever_the_hash_seed() -> None:
    here = [FakeEmbedder(**s).embed(TEXTS).tobytes().hex() for s in SETTINGS]  # type: ignore[arg-type]
    assert _in_a_fresh_process("1") == here
    assert _in_a_fresh_process("4242") == here
    # Python's hash() of the texts does differ between those processes.
    probe = "import sys; print(hash(sys.argv[1]))"
    hashes = {
        subprocess.run(
            [sys.executable, "-c", probe, TEXTS[0]],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
            check=True,
        ).stdout
        for seed in ("1", "4242")
    }
    assert len(hashes) == 2


def test_it_is_a_text_embedder_with_unit_float32_rows() -> None:
    embedder = FakeEmbedder(dim=12)
    assert isinstance(embedder, TextEmbedder) and embedder.dimension == 12
    rows = embedder.embed(TEXTS)
    assert rows.dtype == np.float32 and rows.shape == (4, 12)
    np.testing.assert_allclose(np.linalg.norm(rows[:3], axis=1), 1.0, rtol=1e-6)
    assert not rows[3].any()  # a text without a word
    assert embedder.embed([]).shape == (0, 12)
    assert embedder.calls == 2 and embedder.embedded == TEXTS
    assert embedder.embed_query("1963") == rows[2].tolist()
    assert embedder.embed_documents(TEXTS[:2]) == rows[:2].tolist()
    with pytest.raises(TypeError):
        embedder.embed([3])  # type: ignore[list-item]


def test_words_make_texts_similar_and_the_seed_changes_the_vectors() -> None:
    question, fact, other = FakeEmbedder(dim=32).embed(
        ["who directed Cleopatra", "Cleopatra directed_by X", "Giant release_year 1956"]
    )
    assert question @ fact > 0.5 > abs(question @ other)
    same_words = FakeEmbedder(dim=32).embed(["Directed, Cleopatra!", "cleopatra directed"])
    np.testing.assert_allclose(same_words[0], same_words[1])  # case, order, punctuation
    assert not np.allclose(FakeEmbedder(seed=1).embed(["x"]), FakeEmbedder(seed=2).embed(["x"]))
    text = FakeEmbedder(dim=32, unit="text").embed(["Cleopatra", "cleopatra", "Cleopatra"])
    assert abs(text[0] @ text[1]) < 0.9 and text[0] @ text[2] == pytest.approx(1.0)


def test_keywords_outweigh_the_other_words() -> None:
    texts = ["who directed the film Cleopatra", "directed_by Mankiewicz", "the film Cleopatra"]
    plain = FakeEmbedder(dim=16).embed(texts)
    keyed = FakeEmbedder(dim=16, keywords=("directed",)).embed(texts)
    assert plain[0] @ plain[2] > plain[0] @ plain[1]  # three shared words against one
    assert keyed[0] @ keyed[1] > keyed[0] @ keyed[2]  # ... but one of them is the keyword
    assert keyed[1][0] > 0.9  # the keyword's own dimension
    with pytest.raises(ValueError, match="one word"):
        FakeEmbedder(keywords=("directed by",))
    with pytest.raises(ValueError, match="no room"):
        FakeEmbedder(dim=2, keywords=("a", "b"))
    with pytest.raises(ValueError, match="unit='word'"):
        FakeEmbedder(unit="text", keywords=("a",))


def test_fixed_vectors_are_returned_as_given_and_named_in_the_model_id() -> None:
    unit = np.array([0.6, 0.8, 0.0], dtype=np.float32)
    embedder = FakeEmbedder(vectors={"q": unit, "long": [3.0, 0.0, 4.0]})
    rows = embedder.embed(["q", "long", "anything else"])
    assert embedder.dim == 3 and rows[0].tobytes() == unit.tobytes()
    np.testing.assert_allclose(rows[1], [0.6, 0.0, 0.8])
    assert FakeEmbedder(vectors={"q": unit}).model_id != FakeEmbedder(dim=3).model_id
    with pytest.raises(ValueError, match="length"):
        FakeEmbedder(dim=4, vectors={"q": unit})
