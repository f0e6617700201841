"""End a local model's generation once its caller has stopped waiting.

When a call's deadline passes, the driver sets the request's ``cancel`` event
(:attr:`kgcore.llm.protocol.LLMRequest.cancel`) and stops waiting; the worker thread running
the call is free again only once the call returns. :class:`CancelStop` is a llama-cpp-python
logits processor that makes end-of-text the only choice as soon as the event is set (or its
own deadline passes), so the generation ends at the next token and the thread is reused,
instead of writing up to the token cap for nobody. The prompt's evaluation, before the first
token, cannot be cut short this way; it ends on its own.

Example
-------
>>> import threading
>>> import numpy as np
>>> cancel = threading.Event()
>>> stop = CancelStop(eos_token=0, cancel=cancel)
>>> scores = np.zeros(4, dtype=np.float32)
>>> int(stop([1, 2], scores.copy()).argmax()), stop.stopped
(0, False)
>>> cancel.set()
>>> out = stop([1, 2, 3], scores.copy())
>>> stop.stopped, int(out.argmax()), float(out[1])
(True, 0, -inf)
"""

from __future__ import annotations

import threading
import time
from typing import Any

__all__ = ["CancelStop"]


class CancelStop:
    """A llama-cpp-python logits processor that ends a reply once ``cancel`` is set or the
    ``deadline`` (a :func:`time.monotonic` instant) has passed; ``stopped`` says whether it
    did. Until then the scores pass unchanged."""

    def __init__(
        self,
        eos_token: int,
        cancel: threading.Event | None = None,
        deadline: float | None = None,
    ) -> None:
        self.eos_token = int(eos_token)
        self.cancel = cancel
        self.deadline = deadline
        self.stopped = False

    def due(self) -> bool:
        """Whether the call should end now."""
        if self.cancel is not None and self.cancel.is_set():
            return True
        return self.deadline is not None and time.monotonic() >= self.deadline

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        if self.stopped or self.due():
            self.stopped = True
            scores[:] = float("-inf")
            scores[self.eos_token] = 0.0
        return scores
