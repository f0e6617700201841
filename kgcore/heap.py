"""Give the C heap's free memory back to the system as questions end (glibc ``malloc_trim``).

Encoding a question's texts allocates and frees tensors of every size in many threads; glibc
keeps what was freed in its per-thread arenas, so a long-running process's resident memory
climbs though nothing stays alive (``benchmarks/load.py``'s 1,000-question run: 17% after the
first 100 questions without this; docs/concurrency.md). When a method's run ends,
:func:`release_free_heap` looks at the process's resident memory (``/proc/self/statm``, a few
microseconds) and, when it has grown more than :data:`SLACK` above what it was after the last
trim, trims the heap: at most once a second, in the thread that ended the run (off the event
loop under ``asyncio``), without Python's GIL (a ``ctypes`` call releases it). So resident
memory stays within about :data:`SLACK` of what is alive. It is off by default and
``KG_HEAP_TRIM=1`` turns it on: a trim holds glibc's heap locks, and the event loop's thread
waited up to 149 ms behind it in ``benchmarks/load.py`` (59 ms without), while without it
resident memory levels off about 17% above its size after 100 questions. Where the C library
is not glibc it does nothing.

Example
-------
>>> resident, calls = [1000], []
>>> def trim():
...     calls.append(resident[0])
...     resident[0] = 900  # what was free went back
>>> trimmer = HeapTrimmer(trim, rss=lambda: resident[0], clock=iter(range(0, 100, 5)).__next__)
>>> trimmer.release(), resident[0]  # the first run's end: trims, 900 is the floor
(True, 900)
>>> resident[0] = 930; trimmer.release()  # 3% above the floor: not yet
False
>>> resident[0] = 1000; trimmer.release(), calls
(True, [1000, 1000])
"""

from __future__ import annotations

import ctypes
import os
import threading
import time
from collections.abc import Callable

from kgcore.exceptions import InvalidSettingError

__all__ = ["MIN_INTERVAL_S", "SLACK", "HeapTrimmer", "release_free_heap", "resident_bytes"]

#: Growth of resident memory over its size after the last trim that makes a trim due.
SLACK = 0.05
#: Seconds between two trims at least (a trim of a 2 GB heap takes 40-70 ms).
MIN_INTERVAL_S = 1.0
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident_bytes() -> int | None:
    """This process's resident memory in bytes, or ``None`` where ``/proc`` has no statm."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


def _glibc_trim() -> Callable[[], object] | None:
    """glibc's ``malloc_trim(0)``, or ``None`` where the C library has none."""
    try:
        trim = getattr(ctypes.CDLL(None), "malloc_trim", None)  # the process's own symbols
    except OSError:
        return None
    if trim is None:
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return lambda: trim(0)


class HeapTrimmer:
    """Calls ``trim`` when ``rss()`` has grown more than :data:`SLACK` above its size after
    the last trim, at most once every :data:`MIN_INTERVAL_S`; a thread that finds another
    trimming goes on without waiting."""

    def __init__(
        self,
        trim: Callable[[], object] | None,
        rss: Callable[[], int | None] = resident_bytes,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.trim = trim
        self.rss = rss
        self.clock = clock
        self._floor: int | None = None
        self._last: float | None = None
        self._lock = threading.Lock()

    def release(self) -> bool:
        """Trim now if it is due; whether it trimmed."""
        if self.trim is None or not self._lock.acquire(blocking=False):
            return False
        try:
            resident = self.rss()
            if resident is None or (
                self._floor is not None and resident <= self._floor * (1.0 + SLACK)
            ):
                return False
            now = self.clock()
            if self._last is not None and now - self._last < MIN_INTERVAL_S:
                return False
            self._last = now
            self.trim()
            self._floor = self.rss()
            return True
        finally:
            self._lock.release()


def _trimmer_from_env() -> HeapTrimmer:
    text = os.environ.get("KG_HEAP_TRIM", "0").strip()
    if text not in ("0", "1"):
        raise InvalidSettingError(f"KG_HEAP_TRIM must be 0 or 1, got {text!r}")
    return HeapTrimmer(_glibc_trim() if text == "1" else None)


#: The process's trimmer (its setting is read, and refused if malformed, on import).
_TRIMMER = _trimmer_from_env()


def release_free_heap() -> bool:
    """Give the heap's free memory back to the system if a trim is due (see the module)."""
    return _TRIMMER.release()
