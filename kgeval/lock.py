"""One evaluation process per output folder: a lock file that the operating system releases.

Two ``kgqa eval`` processes writing the same traces would interleave records; the second one
is refused with :class:`~kgcore.exceptions.RunLockedError` instead. The lock is ``filelock``'s
(``flock`` on POSIX, ``msvcrt`` on Windows), so a killed process leaves no stale lock behind.
The same process may take it again once released (runs one after another). A run that made
the folder and wrote nothing in it (refused: a bad option, every first question failing, ...)
takes the folder away again, so no folder holding only the lock file is left behind.

Example
-------
>>> import tempfile
>>> folder = tempfile.mkdtemp()
>>> with output_folder_lock(folder):
...     pass
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
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
    """``path`` as an output folder, checked before any work: refused when it is empty (it
    would be the current folder), names an existing file, holds something other than a file
    where the lock goes, or cannot be created (``/proc/x``, a read-only disk: the first missing
    folder on its way is made and taken away again).

    >>> import tempfile, pathlib
    >>> file = pathlib.Path(tempfile.mkdtemp()) / "runs.txt"
    >>> _ = file.write_text("")
    >>> check_output_folder(file)
    Traceback (most recent call last):
    ...
    kgcore.exceptions.ConfigurationError: output folder ... is a file; pass a folder (--out DIR)
    """
    if not str(path).strip():
        raise ConfigurationError(
            "the output folder is empty: give a folder (--out DIR); '.' for the current one"
        )
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise ConfigurationError(f"output folder {folder} is a file; pass a folder (--out DIR)")
    lock = folder / LOCK_NAME
    if lock.exists() and not lock.is_file():
        raise ConfigurationError(
            f"the lock {lock} is not a file (a folder?); remove it or use another --out folder"
        )
    problem = folder_problem(folder)
    if problem is not None:
        raise ConfigurationError(f"output folder {folder} {problem}")
    return folder


def folder_problem(folder: Path) -> str | None:
    """Why ``folder`` cannot be written in or made (``None``: it can), found without leaving
    anything behind: the first missing folder on its way is made and taken away again, so
    ``/proc/x`` or a read-only disk is found out before any work.

    >>> import tempfile, pathlib
    >>> folder_problem(pathlib.Path(tempfile.mkdtemp()) / "a" / "b") is None
    True
    >>> folder_problem(pathlib.Path("/proc/x"))
    'cannot be made: /proc/x: No such file or directory'
    """
    if folder.exists():
        if not folder.is_dir():
            return "is a file, not a folder"
        if not os.access(folder, os.W_OK | os.X_OK):
            return "cannot be written (permissions)"
        return None
    missing = folder
    while not missing.parent.exists() and missing.parent != missing:
        missing = missing.parent
    if not missing.parent.is_dir():
        return f"cannot be made: {missing.parent} is a file"
    try:
        missing.mkdir()
    except OSError as err:
        return f"cannot be made: {missing}: {err.strerror or err}"
    missing.rmdir()
    return None


@contextmanager
def output_folder_lock(path: str | Path) -> Iterator[Path]:
    """Hold the folder's lock (creating the folder) for the duration of the block.

    A folder this call created is removed on the way out when nothing but the lock file is
    in it (the lock file is unlinked while still held, so no other process can take it), and
    so are the folders it made on the way to it.

    Raises
    ------
    RunLockedError
        When another process (or another open run) holds it.
    ConfigurationError
        When ``path`` is a file.
    """
    folder = check_output_folder(path)
    created = not folder.exists()
    made = [folder, *[p for p in folder.parents if not p.exists()]]  # innermost first
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ConfigurationError(
            f"output folder {folder} cannot be made: {err.strerror or err}"
        ) from None
    lock = FileLock(folder / LOCK_NAME, timeout=0)
    try:
        lock.acquire()
    except Timeout as err:
        raise RunLockedError(
            f"another evaluation is writing to {folder} (lock {folder / LOCK_NAME}); "
            "wait for it to finish or use another --out folder"
        ) from err
    except OSError as err:
        raise ConfigurationError(
            f"cannot take the lock {folder / LOCK_NAME}: {err.strerror or err}"
        ) from None
    try:
        yield folder
    finally:
        empty = created and [p.name for p in folder.iterdir()] == [LOCK_NAME]
        if empty:
            with contextlib.suppress(OSError):  # Windows cannot unlink an open file
                (folder / LOCK_NAME).unlink()
        lock.release()
        if empty:
            with contextlib.suppress(OSError):  # something was written in the meantime
                for made_folder in made:  # and the folders made on its way, when empty
                    made_folder.rmdir()


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
