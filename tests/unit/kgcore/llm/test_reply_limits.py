"""Model replies are untrusted: capped, parsed totally, and never passed through as garbage."""

from __future__ import annotations

import time

import pytest

from kgcore.llm import LLMReply, LLMRequest, ScriptedLLM, run_steps
from kgcore.llm.parsing import parse_answer, parse_choices, parse_entities
from kgcore.llm.protocol import reply_char_cap
from kgcore.validation import MAX_NAME_CHARS, MAX_REPLY_NAMES, MIN_REPLY_CAP_CHARS, answer_phrase

NESTED = "[" * 3000  # the 3 kB reply that raised RecursionError from the JSON parse


def test_nested_brackets_are_unparseable_not_a_recursion_error() -> None:
    assert parse_entities(NESTED) == []
    assert parse_entities(NESTED + "]" * 3000) == []
    assert parse_entities("[" * 100_000 + "]" * 100_000) == []
    assert parse_choices(NESTED, n_options=4, max_choices=2) is None
    assert parse_answer(NESTED) is None


def test_unclosed_brackets_parse_in_linear_time() -> None:
    started = time.perf_counter()
    parse_entities("[" * 30_000 + "x")
    assert time.perf_counter() - started < 1.0


def test_names_from_a_reply_are_capped_in_number_and_length() -> None:
    reply = "[" + ", ".join(f'"name {i}"' for i in range(1000)) + "]"
    names = parse_entities(reply)
    assert names == [f"name {i}" for i in range(MAX_REPLY_NAMES)]
    long_name = "x" * (MAX_NAME_CHARS + 1)
    assert parse_entities(f'["{long_name}", "Titanic"]') == ["Titanic"]
    assert parse_entities(", ".join(f"n{i}" for i in range(1000))) == [
        f"n{i}" for i in range(MAX_REPLY_NAMES)
    ]


@pytest.mark.parametrize(
    "reply",
    [
        "{<|im_end|>}",
        "Answer: Paris<|endoftext|>",
        "{" + "x" * 100_000 + "}",
        "{a\x00b}",
        "{\u2028}",
        "{Paris\u0085Lyon}",
        "{\ud800}",
        "{\ufffd\ufffd}",
        "{!!!}",
        "</s>",
    ],
)
def test_garbage_is_no_answer(reply: str) -> None:
    assert parse_answer(reply) is None


def test_answer_phrase_keeps_real_names() -> None:
    for name in ("Joseph L. Mankiewicz", "Amélie", "東京物語", "1963", "AC/DC"):
        assert answer_phrase(name) == name
        assert parse_answer("{" + name + "}") == name


def test_driver_cuts_a_huge_reply_before_the_method_reads_it() -> None:
    seen: list[int] = []

    def steps():
        reply = yield LLMRequest.from_prompt("q", purpose="io", max_tokens=64)
        seen.append(len(reply.text))
        return reply.text

    run_steps(steps(), ScriptedLLM(["y" * 1_000_000]))
    assert seen == [MIN_REPLY_CAP_CHARS]
    assert reply_char_cap(LLMRequest.from_prompt("q", "io", max_tokens=1000)) == 8000


def test_driver_turns_a_non_text_reply_into_an_empty_one() -> None:
    class Broken:
        def generate(self, request: LLMRequest) -> LLMReply:
            return LLMReply(text=None)  # type: ignore[arg-type]

    def steps():
        reply = yield LLMRequest.from_prompt("q", purpose="io")
        return reply.text

    assert run_steps(steps(), Broken()) == ""
