"""Every method: bounded cost on huge or garbage replies, input limits, the answer guard."""

from __future__ import annotations

import time

import pytest

from kgcore.exceptions import InvalidQuestionError, InvalidSettingError
from kgcore.graph import InMemoryGraphStore
from kgcore.llm import LLMRequest, ScriptedLLM
from kgcore.methods.baselines import PromptBaseline
from kgcore.methods.cgpe import CGPE
from kgcore.methods.fasttog import FastToG, FastToGConfig
from kgcore.methods.kernel import cot_sc_steps
from kgcore.methods.tog import ToG
from kgcore.validation import MAX_QUESTION_CHARS, MAX_TOPIC_ENTITIES


def many_names_store(n: int = 3000) -> InMemoryGraphStore:
    triples = [(f"Film number {i}", "directed_by", f"Director {i % 97}") for i in range(n)]
    return InMemoryGraphStore.from_triples(triples)


def engines(store: InMemoryGraphStore) -> list[object]:
    return [
        FastToG(store, FastToGConfig(max_community_size=2)),
        ToG(store),
        CGPE(store),
        PromptBaseline("io"),
        PromptBaseline("cot"),
        PromptBaseline("cot-sc", n=3),
    ]


def test_a_100k_clue_reply_does_not_hang_cgpe() -> None:
    store = many_names_store()
    huge = '["' + "Film number 1" * 8000 + '"]'  # ~100,000 characters
    llm = ScriptedLLM(lambda request: huge if request.purpose == "cgpe_clues" else "{Unknown}")
    started = time.perf_counter()
    result = CGPE(store).run("which films did Director 3 direct", llm)
    assert time.perf_counter() - started < 2.0
    assert result.answer == "Unknown"


def test_a_reply_listing_1000_names_links_at_most_the_cap() -> None:
    store = many_names_store()
    listing = "[" + ", ".join(f'"Film number {i}"' for i in range(1000)) + "]"
    llm = ScriptedLLM(lambda r: listing if r.purpose == "extract_entities" else "Yes {Director 1}")
    started = time.perf_counter()
    ToG(store, max_depth=1).run("who directed these films", llm)
    assert time.perf_counter() - started < 2.0


@pytest.mark.parametrize("index", range(6))
@pytest.mark.parametrize(
    "reply",
    ["[" * 3000, "<|im_end|>", "{<|im_end|>}", "{" + "z" * 100_000 + "}", "\x00\x01\x02{\x07}"],
)
def test_garbage_replies_end_in_unknown_for_every_method(index: int, reply: str) -> None:
    store = InMemoryGraphStore.from_triples(
        [("Cleopatra", "directed_by", "Joseph L. Mankiewicz"), ("Cleopatra", "year", "1963")]
    )
    engine = engines(store)[index]
    started = time.perf_counter()
    result = engine.run("who directed [Cleopatra]", ScriptedLLM(lambda _r: reply))  # type: ignore[attr-defined]
    assert time.perf_counter() - started < 2.0
    assert result.answer == "Unknown"


def test_fasttog_falls_back_when_the_reasoning_reply_is_garbage() -> None:
    store = InMemoryGraphStore.from_triples(
        [("Cleopatra", "directed_by", "Joseph L. Mankiewicz"), ("Giant", "directed_by", "X")]
    )
    llm = ScriptedLLM.by_purpose(
        {"prune": ["{1}"], "reason": ["{<|im_end|>}"] * 10, "cot": ["{Joseph L. Mankiewicz}"]},
    )
    result = FastToG(store, FastToGConfig(max_community_size=2, max_depth=1)).run(
        "who directed [Cleopatra]", llm
    )
    assert result.fell_back and result.answer == "Joseph L. Mankiewicz"


def test_the_final_guard_replaces_a_non_phrase_answer() -> None:
    from kgcore.methods.base import StepMethod
    from kgcore.methods.result import MethodResult

    class Parrot(StepMethod[MethodResult]):
        def steps(self, question, topic_entities=None):
            reply = yield LLMRequest.from_prompt(question, purpose="io")
            return MethodResult(question=question, answer=reply.text, method="parrot")

    result = Parrot().run("q", ScriptedLLM(["line one\nline two<|im_end|>"]))
    assert result.answer == "Unknown" and result.extra["answer_guarded"] is True
    assert Parrot().run("q", ScriptedLLM(["Paris"])).answer == "Paris"


@pytest.mark.parametrize("index", range(6))
def test_too_many_topic_entities_or_too_long_a_question_is_refused(index: int) -> None:
    store = InMemoryGraphStore.from_triples([("a", "r", "b")])
    engine = engines(store)[index]
    llm = ScriptedLLM([])
    with pytest.raises(InvalidQuestionError, match="at most 16"):
        engine.run("q", llm, [f"e{i}" for i in range(10_000)])  # type: ignore[attr-defined]
    with pytest.raises(InvalidQuestionError, match=f"at most {MAX_QUESTION_CHARS}"):
        engine.run("x" * (MAX_QUESTION_CHARS + 1), llm)  # type: ignore[attr-defined]
    assert llm.requests == []


def test_bracketed_names_are_capped() -> None:
    from kgcore.linking import bracketed_entities

    question = " ".join(f"[n{i}]" for i in range(100))
    assert len(bracketed_entities(question)) == MAX_TOPIC_ENTITIES


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda s: FastToGConfig(max_depth=100_000), "max_depth=100000"),
        (lambda s: FastToGConfig(max_subgraph_nodes=10**6), "max_subgraph_nodes"),
        (lambda s: FastToGConfig(radius=9), "radius"),
        (lambda s: ToG(s, width=50), "width=50"),
        (lambda s: ToG(s, max_depth=100), "max_depth"),
        (lambda s: CGPE(s, max_branches=1000), "max_branches"),
        (lambda s: CGPE(s, max_depth=100_000), "max_depth"),
        (lambda s: next(cot_sc_steps("q", n=1000)), "n=1000"),
    ],
)
def test_cost_scaling_settings_have_maxima(build, message: str) -> None:
    store = InMemoryGraphStore.from_triples([("a", "r", "b")])
    with pytest.raises(InvalidSettingError, match=message):
        build(store)


@pytest.mark.parametrize("index", range(6))
def test_every_request_of_a_run_carries_that_runs_cache_scope(index: int) -> None:
    store = many_names_store(300)
    engine = engines(store)[index]
    scopes: list[list[str | None]] = []

    def reply(request: LLMRequest) -> str:
        scopes[-1].append(request.cache_scope)
        return "{Unknown}"

    for _ in range(2):
        scopes.append([])
        engine.run("which films did [Director 3] direct", ScriptedLLM(reply))  # type: ignore[attr-defined]
    first, second = scopes
    assert first and second
    assert len(set(first)) == 1 and None not in first  # one scope for the whole run
    assert len(set(second)) == 1 and set(first) != set(second)  # a new one for the next run
