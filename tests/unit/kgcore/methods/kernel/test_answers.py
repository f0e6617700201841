"""What counts as an answer: topic entities and sentences restating the question are not."""

from __future__ import annotations

import random
import string

import pytest

from kgcore.methods.kernel import drop_topic_answer, sentence_answer


@pytest.mark.parametrize(
    ("reply", "topics", "expected"),
    [
        # Fallback answers recorded on MetaQA dev (FastToG, ToG and CoT traces).
        (
            "The screenwriter of Tim Meadows starred movies is John Hughes. |",
            ["Tim Meadows"],
            "John Hughes",
        ),
        (
            "The movie [Mr. Pip] was written by George Orwell. This answer is directly stated in "
            "the question.",
            ["Mr. Pip"],
            "George Orwell",
        ),
        (
            "The main languages in George Peppard's starred movies include English, Spanish, "
            "and French",
            ["George Peppard"],
            "English; Spanish; French",
        ),
        (
            "The movies written by Ali Selim are in the genres of drama, comedy, and action",
            ["Ali Selim"],
            "drama; comedy; action",
        ),
        (
            'The director of Snow Cake also directed "The Dark Knight" and "The Dark Knight Rises"',
            ["Snow Cake"],
            "The Dark Knight; The Dark Knight Rises",
        ),
        (
            'Luana Anders] appears in the movie "The Dark Knight" (2008)',
            ["Luana Anders"],
            "The Dark Knight",
        ),
        (  # was "with [James Cameron": the name is taken out of its brackets
            "The director [Sean McEwen] co-directed movies with [James Cameron].",
            ["Sean McEwen"],
            "James Cameron",
        ),
    ],
)
def test_a_sentence_about_the_topic_gives_its_named_part(
    reply: str, topics: list[str], expected: str
) -> None:
    assert drop_topic_answer(reply, topics) == expected


@pytest.mark.parametrize(
    ("reply", "topics"),
    [
        ("The scriptwriter of One False Move also wrote movies", ["One False Move"]),
        ("Jay McInerney directed the films written by [Jay McInerney]", ["Jay McInerney"]),
        ("The writer of [Bounce] directed films for the director of [Bounce]", ["Bounce"]),
        ("Leonid Mozgovoy starred in [Leonid Mozgovoy", ["Leonid Mozgovoy"]),
    ],
)
def test_a_sentence_that_only_restates_the_question_is_no_answer(
    reply: str, topics: list[str]
) -> None:
    assert drop_topic_answer(reply, topics) is None


@pytest.mark.parametrize(
    ("answer", "topics"),
    [
        # A list of names that includes the topic is not a sentence: kept as it is.
        ("The Big Bounce, Hombre, Jackie Brown, Joe Kidd", ["The Big Bounce"]),
        # Short titles that contain the topic's name stay answers.
        ("Star Wars: The Empire Strikes Back", ["Star Wars"]),
        ("Who Is Afraid of Virginia Woolf", ["Virginia Woolf"]),
        # A sentence that does not name a topic entity is left alone.
        ("Joseph L. Mankiewicz is the director", ["Cleopatra"]),
    ],
)
def test_names_and_sentences_about_other_things_are_kept(answer: str, topics: list[str]) -> None:
    assert drop_topic_answer(answer, topics) == answer


def test_the_topic_itself_is_still_no_answer() -> None:
    assert drop_topic_answer("the Giant", ["Giant"]) is None
    assert drop_topic_answer("Shane", ["Giant"]) == "Shane"


def test_sentence_answer_is_total() -> None:
    rng = random.Random(7)
    alphabet = string.printable + "“”[]{}()\u2028\ufffd"
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 400)))
        value = sentence_answer(text + " is " + text, ["x"])
        assert value is None or isinstance(value, str)
    assert sentence_answer("is " * 100_000, ["Giant"]) is None
    assert sentence_answer("The films of Giant are " + "A, " * 5000, ["Giant"]).count(";") < 40
