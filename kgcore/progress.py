"""Progress bars in a library: shown when stderr is a terminal or when asked, never in an
app's logs (the command line asks for them).

Example
-------
>>> with quiet_model_loading(show=False):
...     pass  # a model loaded here draws no "Loading weights" bar
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

__all__ = ["quiet_model_loading", "show_progress"]


def show_progress(asked: bool | None = None) -> bool:
    """Whether to draw a progress bar: ``asked`` when given, else whether stderr is a
    terminal."""
    if asked is not None:
        return asked
    isatty = getattr(sys.stderr, "isatty", None)
    return bool(isatty and isatty())


@contextlib.contextmanager
def quiet_model_loading(show: bool | None = None) -> Iterator[None]:
    """Within it, transformers and the Hugging Face Hub draw no progress bar ("Loading
    weights") unless :func:`show_progress` says so; their setting is restored after."""
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:  # pragma: no cover - no transformers, no bars
        yield
        return
    if show_progress(show) or not hf_logging.is_progress_bar_enabled():
        yield
        return
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.enable_progress_bar()
