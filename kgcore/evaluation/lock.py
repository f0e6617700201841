"""One evaluation process per output folder: a lock file that the operating system releases.

Two ``kgqa eval`` processes writing the same traces would interleave records; the second one
is refused with :class:`~kgcore.exceptions.RunLockedError` instead. The lock is ``filelock``'s
(``flock`` on POSIX, ``msvcrt`` on Windows), so a killed process leaves no stale lock behind.
The same process may take it again once released (runs one after another).

Example
-------
>>> import tempfile
>>> folder = tempfile.mkdtemp()
>>> with output_folder_lock(folder):
...     pass
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from filelock import FileLock, Timeout

from kgcore.exceptions import ConfigurationError, RunLockedError

#: The lock file's name inside the output folder.
LOCK_NAME = ".kgqa-eval.lock"

F = TypeVar("F", bound=Callable[..., Any])


def check_output_folder(path: str | Path) -> Path:
    """``path`` as an output folder: refused when it names an existing file.

    >>> import tempfile, pathlib
    >>> file = pathlib.Path(tempfile.mkdtemp()) / "runs.txt"
    >>> _ = file.write_text("")
    >>> check_output_folder(file)
    Traceback (most recent call last):
    ...
    kgcore.exceptions.ConfigurationError: output folder ... is a file; pass a folder (--out DIR)
    """
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise ConfigurationError(f"output folder {folder} is a file; pass a folder (--out DIR)")
    return folder


@contextmanager
def output_folder_lock(path: str | Path) -> Iterator[Path]:
    """Hold the folder's lock (creating the folder) for the duration of the block.

    Raises
    ------
    RunLockedError
        When another process (or another open run) holds it.
    ConfigurationError
        When ``path`` is a file.
    """
    folder = check_output_folder(path)
    folder.mkdir(parents=True, exist_ok=True)
    lock = FileLock(folder / LOCK_NAME, timeout=0)
    try:
        lock.acquire()
    except Timeout as err:
        raise RunLockedError(
            f"another evaluation is writing to {folder} (lock {folder / LOCK_NAME}); "
            "wait for it to finish or use another --out folder"
        ) from err
    try:
        yield folder
    finally:
        lock.release()


def locks_output_folder(function: F) -> F:
    """Run ``function`` holding the lock of its ``out_dir`` argument (when it is given)."""
    signature = inspect.signature(function)

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        out_dir = signature.bind(*args, **kwargs).arguments.get("out_dir")
        if out_dir is None:
            return function(*args, **kwargs)
        with output_folder_lock(out_dir):
            return function(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
