"""ToG and CGPE record every LLM step: purpose, raw reply, what was read, what was offered."""

from __future__ import annotations

import json

from kgcore.graph import InMemoryGraphStore
from kgcore.llm import ScriptedLLM
from kgcore.methods.cgpe import CGPE
from kgcore.methods.tog import ToG
from tests.unit.kgcore.methods.test_cgpe import TRIPLES as CGPE_TRIPLES
from tests.unit.kgcore.methods.tog.test_engine import TRIPLES as TOG_TRIPLES


def test_tog_records_each_reply_with_the_options_offered() -> None:
    llm = ScriptedLLM.by_purpose(
        {
            "tog_relations": ["no idea", "{A: 0.9, B: 0.1}"],
            "tog_entities": ["{A: 0.8, B: 0.2}"],
            "tog_reason": ["{Unknown}", "{All About Eve}"],
        }
    )
    store = InMemoryGraphStore.from_triples(TOG_TRIPLES)
    result = ToG(store).run("which films share the director of [Cleopatra]", llm)
    steps = result.extra["steps"]
    assert [s["reply"] for s in steps] == [
        "no idea",
        "{A: 0.9, B: 0.1}",
        "{Unknown}",
        "{A: 0.8, B: 0.2}",
        "{All About Eve}",
    ]
    assert [s["purpose"] for s in steps] == [r.purpose for r in llm.requests]
    first, retry = steps[0], steps[1]
    assert first["parsed"] is None and not first["retry"]
    assert retry["retry"] and retry["parsed"] == {"0": 0.9, "1": 0.1}
    assert len(first["offered"]) == 2 and "directed by" in first["offered"][0]
    entities = next(s for s in steps if s["purpose"] == "tog_entities")
    assert sorted(entities["offered"]) == ["All About Eve", "Guys and Dolls"]
    assert steps[-1]["parsed"] == [True, "All About Eve"]
    json.dumps(result.to_dict())  # a trace line


def test_cgpe_records_each_reply_including_the_cot_fallback() -> None:
    llm = ScriptedLLM.by_purpose(
        {
            "cgpe_clues": ['["Nobody Known", "films"]'],
            "cot": ["Thinking... {Unknown}"],
        }
    )
    store = InMemoryGraphStore.from_triples(CGPE_TRIPLES)
    result = CGPE(store).run("which films did Nobody Known make", llm)
    steps = result.extra["steps"]
    assert [s["purpose"] for s in steps] == [r.purpose for r in llm.requests]
    assert steps[0]["parsed"] == ["Nobody Known", "films"]
    assert result.fell_back and steps[-1]["purpose"] == "cot"


def test_cgpe_step_records_show_the_offered_options() -> None:
    llm = ScriptedLLM.by_purpose(
        {
            "cgpe_clues": ['["Jane Seymour", "films", "director"]'],
            "cgpe_step1": ["{A: films}", "{B: director}"],
            "cgpe_step2": ["{A, B}", "{A, B}"],
            "cgpe_step3": ["{A: films, B: films}"],
            "cgpe_answer": ["{Jeannot Szwarc}"],
        }
    )
    store = InMemoryGraphStore.from_triples(CGPE_TRIPLES)
    result = CGPE(store).run("which person directed the films acted by Jane Seymour", llm)
    steps = result.extra["steps"]
    assert len(steps) == result.llm_calls == 7
    step2 = steps[2]
    assert step2["purpose"] == "cgpe_step2"
    assert "starred actors: Somewhere in Time" in step2["offered"]
    assert steps[-1]["parsed"] == "Jeannot Szwarc"
