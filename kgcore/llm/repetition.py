"""Detect a reply that has started to repeat itself, so a local model can stop generating.

A small model at a low temperature sometimes falls into a loop ("Drama; Comedy; Drama;
Comedy; ...", or one step of its reasoning written again and again) and writes until the token
cap. Such a reply never reaches a closing brace, so it is no answer however long it runs, and
its tokens cost time (how often it happened: ``docs/research/code_measurements.md#repetition``).
:func:`repeating_tail` tells when the generated tokens end in the same span written over and
over, and :class:`RepetitionStop` is a llama-cpp-python logits processor that then ends the
reply (it makes end-of-text the only choice).

Written here because neither llama.cpp nor llama-cpp-python stops on a loop: their repetition
penalties and DRY sampler change which tokens are drawn (and so every reply), while this only
ends a reply that is already a loop and leaves every other token as it was.

Example
-------
>>> repeating_tail([7, 1, 2, 3] + [4, 5] * 30)
True
>>> repeating_tail(list(range(100)))
False
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: A loop is at least this many tokens written as a repeated span...
MIN_LOOP_TOKENS = 48
#: ...of at most this many tokens (one step of reasoning, written again).
MAX_PERIOD = 64
#: ...seen at least this many times in a row.
MIN_REPEATS = 3


def repeating_tail(
    tokens: Sequence[int],
    min_tokens: int = MIN_LOOP_TOKENS,
    max_period: int = MAX_PERIOD,
    min_repeats: int = MIN_REPEATS,
) -> bool:
    """Whether ``tokens`` end in one span of at most ``max_period`` tokens written at least
    ``min_repeats`` times in a row, over at least ``min_tokens`` tokens.

    Exact repeats only: a list that goes on naming new things is not a loop.

    >>> repeating_tail([1, 2, 3] * 16)  # 48 tokens, period 3
    True
    >>> repeating_tail([1, 2, 3] * 15)  # 45 tokens: too short to call a loop
    False
    >>> repeating_tail(list(range(40)) * 2)  # one span twice: not enough repeats
    False
    """
    n = len(tokens)
    if n < min_tokens:
        return False
    # the longest span checked: max_period tokens, min_repeats times (or min_tokens)
    tail = list(tokens[-max(min_tokens, max_period * min_repeats) :])
    size = len(tail)
    for period in range(1, max_period + 1):
        needed = max(min_tokens, period * min_repeats)
        if needed > size:
            break
        # the last `needed` tokens repeat with this period: tail[i] == tail[i - period]
        if all(tail[i] == tail[i - period] for i in range(size - needed + period, size)):
            return True
    return False


class RepetitionStop:
    """A llama-cpp-python logits processor that ends a reply once it loops
    (:func:`repeating_tail` on the tokens generated so far).

    Make one per request: the first call learns where the prompt ends, so only generated
    tokens are looked at. Until a loop it returns the scores unchanged; then every token but
    ``eos_token`` is ruled out, so the next token ends the reply. ``stopped`` says whether it
    did.

    >>> import numpy as np
    >>> stop = RepetitionStop(eos_token=0)
    >>> prompt = [5, 6, 7]
    >>> scores = np.zeros(10, dtype=np.float32)
    >>> _ = stop(np.array(prompt), scores)
    >>> out = stop(np.array(prompt + [1, 2] * 30), scores.copy())
    >>> stop.stopped, int(out.argmax())
    (True, 0)
    """

    def __init__(self, eos_token: int, min_tokens: int = MIN_LOOP_TOKENS) -> None:
        self.eos_token = int(eos_token)
        self.min_tokens = int(min_tokens)
        self.prompt_length: int | None = None
        self.stopped = False

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        if self.prompt_length is None:
            self.prompt_length = len(input_ids)
            return scores
        generated = input_ids[self.prompt_length :]  # repeating_tail reads only its tail
        if self.stopped or repeating_tail(generated, self.min_tokens):
            self.stopped = True
            scores[:] = float("-inf")
            scores[self.eos_token] = 0.0
        return scores
