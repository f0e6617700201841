from __future__ import annotations

import numpy as np
import pytest

from kgcore.llm.repetition import MIN_LOOP_TOKENS, RepetitionStop, repeating_tail


@pytest.mark.parametrize("period", [1, 2, 5, 17, 64])
def test_a_span_written_over_and_over_is_a_loop(period: int) -> None:
    span = list(range(100, 100 + period))
    reply = [1, 2, 3] + span * (MIN_LOOP_TOKENS // period + 3)
    assert repeating_tail(reply)


def test_a_loop_must_be_long_enough_and_repeated_often_enough() -> None:
    assert not repeating_tail([7] * (MIN_LOOP_TOKENS - 1))  # too short
    assert not repeating_tail(list(range(30)) * 2)  # 60 tokens, the span seen twice
    assert repeating_tail(list(range(30)) * 3)  # three times
    assert not repeating_tail(list(range(65)) * 3)  # a span longer than MAX_PERIOD


def test_a_reply_that_names_new_things_is_no_loop() -> None:
    # "Drama; Comedy; Thriller; ...": the separator repeats, the names do not.
    separator = 11
    reply = [token for name in range(200, 260) for token in (name, separator)]
    assert not repeating_tail(reply)


def test_a_loop_that_has_ended_is_not_one() -> None:
    assert not repeating_tail([5, 6] * 40 + list(range(300, 310)))


def test_the_processor_ends_only_a_looping_reply() -> None:
    prompt = list(range(1000, 1100)) + [4, 5] * 40  # a prompt that itself repeats
    vocabulary = 50
    stop = RepetitionStop(eos_token=3)
    scores = np.linspace(0.0, 1.0, vocabulary, dtype=np.float32)
    out = stop(np.array(prompt), scores.copy())
    assert np.array_equal(out, scores) and not stop.stopped  # the prompt is not looked at
    reply = [9, 8, 7]
    assert np.array_equal(stop(np.array(prompt + reply), scores.copy()), scores)
    looping = prompt + reply + [21, 22, 23] * 20
    out = stop(np.array(looping), scores.copy())
    assert stop.stopped and int(out.argmax()) == 3 and np.isinf(out[out != out[3]]).all()
    # Once stopped, it stays stopped: end-of-text is the only choice.
    assert int(stop(np.array(looping + [40]), scores.copy()).argmax()) == 3
