"""Hypothesis fuzzing (bounded) of every parser and every method with bad model replies.

0 crashes, no run over 2 s with a scripted model, every answer a phrase or ``Unknown``.
"""

from __future__ import annotations

import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgcore.graph import InMemoryGraphStore
from kgcore.llm import LLMRequest, ScriptedLLM
from kgcore.llm.parsing import parse_answer, parse_choices, parse_entities
from kgcore.methods.baselines import PromptBaseline
from kgcore.methods.cgpe import CGPE, parse_clue_matches
from kgcore.methods.fasttog import FastToG, FastToGConfig
from kgcore.methods.tog import ToG, parse_graph_answer, parse_scores, parse_sufficiency
from kgcore.validation import MAX_NAME_CHARS, MAX_REPLY_NAMES, answer_phrase

NAMES = ["Cleopatra", "Joseph L. Mankiewicz", "Elizabeth Taylor", "1963", "Giant"]
SPECIAL = ["<|im_end|>", "<|endoftext|>", "</s>", "[INST]", "<|im_start|>assistant"]
ODD = ["\u0085", "\u2028", "\ud800", "\u202e", "\ufeff", "\x00", "\x1b"]

nested = st.builds(
    lambda opener, depth, close: opener * depth + ("]" * depth if close else ""),
    st.sampled_from(["[", "{", "(", '["']),
    st.integers(1, 5000),
    st.booleans(),
)
huge = st.builds(
    lambda c, n: c * n, st.sampled_from(["x", "{", "[A", "é"]), st.integers(1, 100_000)
)
special = st.builds(
    lambda tok, name: rng_join(tok, name), st.sampled_from(SPECIAL), st.sampled_from(NAMES)
)
odd = st.builds(
    lambda name, ch, i: "{" + name[:i] + ch + name[i:] + "}",
    st.sampled_from(NAMES),
    st.sampled_from(ODD),
    st.integers(0, 10),
)
formed = st.builds(
    lambda pre, name: pre + name + "}",
    st.sampled_from(["{", "Yes {", "Answer: {", "{A: ", "{1, "]),
    st.sampled_from(NAMES),
)
many = st.builds(
    lambda n: "[" + ", ".join(f'"{NAMES[i % 5]} {i}"' for i in range(n)) + "]", st.integers(0, 1000)
)
garbage = st.one_of(
    st.text(max_size=300),
    st.binary(max_size=300).map(lambda b: b.decode("latin-1")),
    huge,
    nested,
    special,
    odd,
    formed,
    many,
)


def rng_join(token: str, name: str) -> str:
    return "{" + name + token + "}"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(garbage)
def test_every_parser_is_total(reply: str) -> None:
    started = time.perf_counter()
    answer = parse_answer(reply)
    assert answer is None or answer_phrase(answer) == answer
    graph_answer = parse_graph_answer(reply)
    assert graph_answer is None or answer_phrase(graph_answer) == graph_answer
    names = parse_entities(reply)
    assert len(names) <= MAX_REPLY_NAMES and all(len(n) <= MAX_NAME_CHARS for n in names)
    for labels in ("letters", "numbers"):
        picked = parse_choices(reply, n_options=5, max_choices=3, labels=labels)
        assert picked is None or all(0 <= i < 5 for i in picked)
    scores = parse_scores(reply, n_options=4, max_choices=3)
    assert scores is None or all(0 <= i < 4 for i in scores)
    verdict = parse_sufficiency(reply)
    assert verdict is None or verdict[1] is None or answer_phrase(verdict[1]) == verdict[1]
    parse_clue_matches(reply, 3, ["film", "director"])
    assert time.perf_counter() - started < 2.0


STORE = InMemoryGraphStore.from_triples(
    [
        ("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
        ("Cleopatra", "starred_actors", "Elizabeth Taylor"),
        ("Cleopatra", "release_year", "1963"),
        ("Giant", "starred_actors", "Elizabeth Taylor"),
        ("All About Eve", "directed_by", "Joseph L. Mankiewicz"),
    ]
)
METHODS = [
    FastToG(STORE, FastToGConfig(max_community_size=2)),
    FastToG(STORE, FastToGConfig.node_level()),
    ToG(STORE),
    CGPE(STORE),
    PromptBaseline("io"),
    PromptBaseline("cot"),
    PromptBaseline("cot-sc", n=3),
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(range(len(METHODS))),
    st.lists(garbage, min_size=1, max_size=12),
    st.sampled_from(["who directed [Cleopatra]", "tell me about Giant", "who is it?"]),
)
def test_every_method_survives_bad_replies(index: int, replies: list[str], question: str) -> None:
    position = iter(range(10**6))

    def reply(_request: LLMRequest) -> str:
        return replies[next(position) % len(replies)]

    started = time.perf_counter()
    result = METHODS[index].run(question, ScriptedLLM(reply))  # type: ignore[attr-defined]
    assert time.perf_counter() - started < 2.0
    assert result.answer == "Unknown" or answer_phrase(result.answer) == result.answer
