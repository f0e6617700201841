from __future__ import annotations

import os
import sys
from typing import Any

import pytest

from kglocal import locations
from kglocal.locations import llama_threads


class _FakePsutil:
    def __init__(self, physical: int | None) -> None:
        self.physical = physical

    def cpu_count(self, logical: bool = True) -> int | None:
        assert logical is False
        return self.physical


@pytest.fixture
def cpus(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Set the machine: physical cores (psutil), logical CPUs and the CPUs this process may use."""

    def set_machine(physical: int | None, logical: int, usable: int) -> None:
        monkeypatch.setitem(sys.modules, "psutil", _FakePsutil(physical))
        monkeypatch.setattr(locations.os, "cpu_count", lambda: logical)
        monkeypatch.setattr(
            locations.os, "sched_getaffinity", lambda pid: set(range(usable)), raising=False
        )

    return set_machine


def test_one_thread_per_physical_core_without_smt(cpus: Any) -> None:
    cpus(physical=2, logical=2, usable=2)  # a 2-vCPU VM: llama-cpp-python's default gives 1
    assert llama_threads() == 2


def test_hardware_threads_do_not_count_as_cores(cpus: Any) -> None:
    cpus(physical=8, logical=16, usable=16)
    assert llama_threads() == 8


def test_never_more_than_the_usable_cpus(cpus: Any) -> None:
    cpus(physical=8, logical=16, usable=3)
    assert llama_threads() == 3


def test_without_psutil_halves_the_logical_cpus(cpus: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    cpus(physical=None, logical=6, usable=6)
    monkeypatch.setitem(sys.modules, "psutil", None)  # import psutil -> ImportError
    assert llama_threads() == 3
    cpus(physical=None, logical=1, usable=1)
    monkeypatch.setitem(sys.modules, "psutil", None)
    assert llama_threads() == 1


def test_this_machine_gets_at_least_one_thread() -> None:
    assert 1 <= llama_threads() <= (os.cpu_count() or 1)
