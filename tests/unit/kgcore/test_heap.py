"""The heap trimmer: trims when resident memory grew past the slack, not more than once a
second, and a run's end asks for it (sync and async drivers)."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from kgcore import heap
from kgcore.heap import MIN_INTERVAL_S, SLACK, HeapTrimmer, resident_bytes
from kgcore.llm import LLMReply, LLMRequest
from kgcore.llm.protocol.driver import arun_steps, run_steps


class Process:
    """A fake process: resident memory, a clock, and a trim that frees ``freed`` bytes."""

    def __init__(self, resident: int, freed: int) -> None:
        self.resident, self.freed, self.now, self.trims = resident, freed, 0.0, 0

    def trim(self) -> None:
        self.trims += 1
        self.resident -= self.freed

    def trimmer(self) -> HeapTrimmer:
        return HeapTrimmer(self.trim, rss=lambda: self.resident, clock=lambda: self.now)


def test_it_trims_at_the_first_end_and_then_only_past_the_slack():
    process = Process(resident=2_000, freed=1_000)
    trimmer = process.trimmer()
    assert trimmer.release() and process.resident == 1_000
    process.now += 10
    process.resident = int(1_000 * (1 + SLACK))  # at the slack: not due
    assert not trimmer.release() and process.trims == 1
    process.resident += 1
    assert trimmer.release() and process.trims == 2


def test_it_trims_at_most_once_per_interval():
    process = Process(resident=2_000, freed=0)
    trimmer = process.trimmer()
    assert trimmer.release()
    process.resident = 5_000
    process.now += MIN_INTERVAL_S / 2
    assert not trimmer.release()
    process.now += MIN_INTERVAL_S
    assert trimmer.release() and process.trims == 2


def test_it_does_nothing_without_a_trim_or_a_resident_size():
    assert not HeapTrimmer(None).release()
    calls: list[int] = []
    assert not HeapTrimmer(lambda: calls.append(1), rss=lambda: None).release()
    assert calls == []


def test_a_thread_finding_another_trimming_goes_on():
    process = Process(resident=2_000, freed=0)
    trimmer = process.trimmer()
    trimmer._lock.acquire()
    try:
        assert not trimmer.release()
    finally:
        trimmer._lock.release()
    assert process.trims == 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")
def test_resident_bytes_reads_this_process():
    size = resident_bytes()
    assert size is not None and 10_000_000 < size < 100_000_000_000


def test_a_malformed_setting_is_refused_on_import():
    code = "import kgcore.heap"
    env = {"KG_HEAP_TRIM": "yes", "PATH": ""}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode != 0 and "KG_HEAP_TRIM must be 0 or 1, got 'yes'" in done.stderr


def _ask():
    reply = yield LLMRequest.from_prompt("q", purpose="io")
    return reply.text


class Echo:
    def generate(self, request):
        return LLMReply(text="a")

    async def agenerate(self, request):
        return LLMReply(text="b")


def test_both_drivers_ask_for_a_trim_when_a_run_ends(monkeypatch):
    ends: list[str] = []
    monkeypatch.setattr("kgcore.llm.protocol.driver.release_free_heap", lambda: ends.append("x"))
    assert run_steps(_ask(), Echo()) == "a" and ends == ["x"]
    assert asyncio.run(arun_steps(_ask(), Echo())) == "b" and ends == ["x", "x"]


def test_the_process_trimmer_is_off_by_default_and_on_with_the_setting(monkeypatch):
    monkeypatch.delenv("KG_HEAP_TRIM", raising=False)
    assert heap._trimmer_from_env().trim is None
    monkeypatch.setenv("KG_HEAP_TRIM", "1")
    on = heap._trimmer_from_env()
    assert on.trim is not None or not sys.platform.startswith("linux")
