"""Step records reach listeners as they are made, for every method and on both paths."""

from __future__ import annotations

import asyncio

import pytest

from kgcore.graph import InMemoryGraphStore
from kgcore.llm import LLMRequest, ScriptedLLM
from kgcore.methods.baselines import PromptBaseline
from kgcore.methods.fasttog import FastToG, FastToGConfig
from kgcore.methods.kernel import listening_to_steps, report_step
from kgcore.methods.tog import ToG
from kgcore.paths import PathSettings

QUESTION = "which films share the director of [Cleopatra]"


def _fasttog(store: InMemoryGraphStore) -> FastToG:
    # Path planning off: these runs pin the community phases' steps (test_path_planning.py).
    off = PathSettings(max_hops=0)
    config = FastToGConfig(width=1, max_community_size=2, grounded_answers=False, paths=off)
    return FastToG(store, config)


def test_each_record_is_seen_before_the_next_model_call(movie_store: InMemoryGraphStore) -> None:
    seen: list[dict[str, object]] = []
    seen_at_call: list[int] = []
    replies = iter(["{1}", "{All About Eve}"])

    def script(request: LLMRequest) -> str:
        seen_at_call.append(len(seen))
        return next(replies)

    with listening_to_steps(seen.append):
        result = _fasttog(movie_store).run(QUESTION, ScriptedLLM(script))
    assert result.answer == "All About Eve"
    assert seen == result.extra["steps"]
    assert [s["purpose"] for s in seen] == ["prune", "reason"]
    assert seen_at_call == [0, 1]  # the choice was reported before the reasoning call


def test_the_async_path_reports_from_its_worker_threads(movie_store: InMemoryGraphStore) -> None:
    seen: list[dict[str, object]] = []

    async def run() -> object:
        with listening_to_steps(seen.append):
            return await _fasttog(movie_store).arun(
                QUESTION, ScriptedLLM(["{1}", "{All About Eve}"])
            )

    result = asyncio.run(run())
    assert seen == result.extra["steps"]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("method", "replies"),
    [
        (PromptBaseline("io"), ["{Joseph L. Mankiewicz}"]),
        (PromptBaseline("cot"), ["So {Joseph L. Mankiewicz}"]),
        (ToG, ["{directed_by: 1.0}", "{Joseph L. Mankiewicz: 1.0}", "Yes {Joseph L. Mankiewicz}"]),
    ],
    ids=["io", "cot", "tog"],
)
def test_every_method_reports_its_trace(
    movie_store: InMemoryGraphStore, method: object, replies: list[str]
) -> None:
    engine = method(movie_store) if isinstance(method, type) else method
    seen: list[dict[str, object]] = []
    with listening_to_steps(seen.append):
        result = engine.run("who directed [Cleopatra]", ScriptedLLM(replies))  # type: ignore[attr-defined]
    assert seen and seen == result.extra["steps"]


def test_listeners_nest_and_end_with_their_block() -> None:
    outer: list[dict[str, object]] = []
    inner: list[dict[str, object]] = []
    with listening_to_steps(outer.append):
        with listening_to_steps(inner.append):
            record = report_step({"purpose": "reason"})
        report_step({"purpose": "prune"})
    report_step({"purpose": "cot"})
    assert [r["purpose"] for r in outer] == ["reason", "prune"]
    assert inner == [record] and inner[0] is not record  # a copy
