from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kgcore.llm.parsing import is_unknown, parse_answer, parse_choices, parse_entities
from kgcore.validation import MAX_ANSWER_CHARS


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("{B, D}", [1, 3]),
        ("I think {B, D} are relevant.", [1, 3]),
        ('["A", "C"]', [0, 2]),
        ("Answer: C", [2]),
        ("A and C", [0, 2]),
        ("A community of films is best: C", [2]),  # the article "A" is not a choice
        ("{A, B, C, D}", [0, 1, 2]),  # more than max_choices: the first ones kept
        ("{E, F}", None),  # only letters outside the options
        ("{none}", []),
        ("None of them.", []),
        ("Let me think about it", None),
    ],
)
def test_letter_choices(reply: str, expected: list[int] | None) -> None:
    assert parse_choices(reply, n_options=4, max_choices=3) == expected


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("{1, 3, 5}", [0, 2, 4]),
        ("{2, 5, 6}", [1, 4]),  # 6 is not an option
        ("2", [1]),
        ("1 and 3", [0, 2]),
        ("Answer: 4", [3]),
        ("the 3 groups are good", None),  # a number in prose is not a choice
        ("{1963}", None),
        ("{none}", []),
    ],
)
def test_number_choices(reply: str, expected: list[int] | None) -> None:
    assert parse_choices(reply, n_options=5, max_choices=3, labels="numbers") == expected


def test_unknown_label_style_is_refused() -> None:
    with pytest.raises(ValueError, match="labels"):
        parse_choices("{1}", 3, 1, labels="roman")


@given(
    text=st.text(max_size=200),
    n=st.integers(0, 26),
    k=st.integers(1, 5),
    labels=st.sampled_from(["letters", "numbers"]),
)
def test_choices_never_crash_and_stay_in_range(text: str, n: int, k: int, labels: str) -> None:
    picked = parse_choices(text, n, k, labels)
    assert picked is None or (len(picked) <= k and all(0 <= i < n for i in picked))
    if picked:
        assert len(set(picked)) == len(picked)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("{Joseph L. Mankiewicz}", "Joseph L. Mankiewicz"),
        ("Answer: {Joseph L. Mankiewicz}", "Joseph L. Mankiewicz"),
        ("The answer is in the context.\nAnswer: Giant", "Giant"),
        ("{Giant | Shane}", "Giant | Shane"),
        ("{Unknown}", None),
        ("Unknown.", None),
        ("I am not sure.\nThe context does not say\nwho it is.", None),
        ("Giant", "Giant"),
    ],
)
def test_answers(reply: str, expected: str | None) -> None:
    assert parse_answer(reply) == expected


FILMS = [f"The Film Called Number {i:02d}" for i in range(30)]


def test_a_list_answer_longer_than_the_cap_keeps_the_whole_names_that_fit() -> None:
    answer = parse_answer("Steps: ... Answer: {" + "; ".join(FILMS) + "}")
    assert answer is not None and len(answer) <= MAX_ANSWER_CHARS
    names = answer.split("; ")
    assert names == FILMS[: len(names)] and len(names) > 5
    assert parse_answer("{" + "x" * 400 + "}") is None  # one name too long is no answer


def test_a_reply_cut_inside_its_braces_gives_the_whole_names_before_the_cut() -> None:
    assert parse_answer("Answer: {Shane; Giant; The Big Sl") == "Shane; Giant"
    closed = parse_answer("Answer: {" + "; ".join(FILMS) + "}")
    assert parse_answer("Answer: {" + "; ".join(FILMS)[:-3]) == closed  # long, then cut
    assert parse_answer("Answer: {Shane; Gi} and then {Giant; Sha") == "Shane; Gi"  # closed wins
    assert parse_answer("{Unknown; N") is None


@given(st.text(max_size=300))
def test_answer_parsing_never_crashes(text: str) -> None:
    value = parse_answer(text)
    assert value is None or (value and not is_unknown(value))


def test_entities() -> None:
    assert parse_entities('["Cleopatra", "Elizabeth Taylor"]') == ["Cleopatra", "Elizabeth Taylor"]
    assert parse_entities("Entities: Cleopatra, Elizabeth Taylor") == [
        "Cleopatra",
        "Elizabeth Taylor",
    ]
    assert parse_entities("- Cleopatra\n- Giant\n- Cleopatra") == ["Cleopatra", "Giant"]
    assert parse_entities("") == []


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"answer": "George Stevens"}', "George Stevens"),
        ('The answer: {"answer": "George Stevens"} as asked.', "George Stevens"),
        ('{"answers": ["Shane", "Giant"]}', "Shane; Giant"),
        ('{"Final Answer": "Shane"}', "Shane"),
        ('{"thought": "x", "answer": {"name": "Shane"}}', "Shane"),
        ('{"director": "George Stevens"}', "George Stevens"),  # its only value
        ('{"answer": 1963}', "1963"),
        ('{"answer": 1963.0}', "1963"),
        ("{'answer': 'George Stevens'}", "George Stevens"),
        ("{answer: George Stevens}", "George Stevens"),
        ('{"answer": "Unknown"}', None),
        ('{"answer": null}', None),
        ('{"answer": NaN}', None),
        ('{"answer": true}', None),
        ('{"answer": []}', None),
        ('{"a": "x", "b": "y"}', None),  # no answer key, several values
        ('{"answer": "' + "x" * 5000 + '"}', None),  # not a phrase
        ('{"answer": ' * 3000 + '"x"' + "}" * 3000, None),  # deeper than the parser goes
        ('{Unknown} ... {"answer": "Shane"}', "Shane"),  # the last object
        ("Titanic (1997)", "Titanic (1997)"),
        ("{(Paris)}", "Paris"),
    ],
)
def test_json_replies_are_read_as_json(reply: str, expected: str | None) -> None:
    assert parse_answer(reply) == expected


@given(
    st.dictionaries(
        st.text(max_size=8),
        st.recursive(
            st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=20),
            lambda inner: (
                st.lists(inner, max_size=4)
                | st.dictionaries(st.text(max_size=5), inner, max_size=3)
            ),
            max_leaves=12,
        ),
        max_size=4,
    )
)
def test_any_json_object_reply_gives_a_phrase_or_none(obj: dict[str, object]) -> None:
    answer = parse_answer(json.dumps(obj))
    assert answer is None or (isinstance(answer, str) and answer.strip() == answer and answer)
