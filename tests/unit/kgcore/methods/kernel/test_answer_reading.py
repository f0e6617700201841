"""What counts as an answer: topic entities and sentences restating the question are not."""

from __future__ import annotations

import random
import string

import pytest

from kgcore.methods.kernel import drop_topic_answer, parse_graph_answer, sentence_answer


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


# --- one way from a reply to an answer, for every method and fallback -------------------------

from kgcore.graph import InMemoryGraphStore  # noqa: E402
from kgcore.llm import ScriptedLLM  # noqa: E402
from kgcore.methods.baselines import PromptBaseline  # noqa: E402
from kgcore.methods.cgpe import CGPE  # noqa: E402
from kgcore.methods.fasttog import FastToG, FastToGConfig  # noqa: E402
from kgcore.methods.gretriever import GRetrieverQA  # noqa: E402
from kgcore.methods.kernel import check_answer, final_answer, read_answer  # noqa: E402
from kgcore.methods.tog import ToG  # noqa: E402
from tests.support.fake_embedder import FakeEmbedder  # noqa: E402

ENGINES = ["fasttog", "fasttog-fallback", "tog", "tog-fallback", "cgpe", "gretriever"]
ENGINES += ["io", "cot", "cot-sc"]


def engine_named(name: str, store: InMemoryGraphStore) -> object:
    builders = {
        "fasttog": lambda: FastToG(store, FastToGConfig(max_community_size=2, fallback="none")),
        "fasttog-fallback": lambda: FastToG(store, FastToGConfig(max_depth=1, fallback="cot")),
        "tog": lambda: ToG(store, max_depth=1),
        "tog-fallback": lambda: ToG(store, max_depth=1),
        "cgpe": lambda: CGPE(store),
        # the paper preset: the reader alone (the default's path answer: test_gretriever_qa.py)
        "gretriever": lambda: GRetrieverQA(store, embedder=FakeEmbedder(dim=64), preset="paper"),
        "io": lambda: PromptBaseline("io"),
        "cot": lambda: PromptBaseline("cot"),
        "cot-sc": lambda: PromptBaseline("cot-sc", n=3),
    }
    return builders[name]()


def answering(name: str, answer_reply: str) -> ScriptedLLM:
    """A model that gives ``answer_reply`` where ``name`` reads its answer, and goes the way
    to that step (prunes, clues) with plain replies."""

    def reply(request) -> str:  # type: ignore[no-untyped-def]
        purpose = request.purpose
        if purpose == "prune":
            return "{1}"
        if purpose == "cgpe_clues":
            return '["directed by"]'
        if name.endswith("fallback") and purpose in {"reason", "tog_reason"}:
            return "{Unknown}" if name.startswith("fasttog") else "No"
        if purpose == "tog_reason":
            return "Yes " + answer_reply
        return answer_reply

    return ScriptedLLM(reply)


FACTS = [("Cleopatra", "directed_by", "Joseph L. Mankiewicz"), ("Cleopatra", "year", "1963")]


@pytest.mark.parametrize("name", ENGINES)
@pytest.mark.parametrize(
    "reply",
    [
        "{Cleopatra}",  # the topic entity
        "{answer}",  # the prompt's placeholder
        "{m.0w4dx1v}",  # an unnamed graph node
        "The film [Cleopatra] is a film about Cleopatra.",  # a sentence restating the topic
    ],
)
def test_no_method_or_fallback_answers_what_is_no_answer(name: str, reply: str) -> None:
    store = InMemoryGraphStore.from_triples(FACTS)
    engine = engine_named(name, store)
    result = engine.run("who directed [Cleopatra]", answering(name, reply))  # type: ignore[attr-defined]
    assert result.answer == "Unknown"


@pytest.mark.parametrize("name", ENGINES)
def test_every_method_and_fallback_takes_the_named_part_of_a_sentence(name: str) -> None:
    store = InMemoryGraphStore.from_triples(FACTS)
    engine = engine_named(name, store)
    reply = "{The director of Cleopatra is Joseph L. Mankiewicz.}"
    result = engine.run("who directed [Cleopatra]", answering(name, reply))  # type: ignore[attr-defined]
    assert result.answer == "Joseph L. Mankiewicz"


STAR = [
    ("Cobra", "directed_by", "George P. Cosmatos"),
    ("Rambo", "directed_by", "George P. Cosmatos"),
]


@pytest.mark.parametrize("name", ["fasttog", "tog", "gretriever"])  # CGPE: check_answer's own
@pytest.mark.parametrize("reply", ["{Cobra, Rambo}", "{Cobra; Rambo}"])
def test_a_listed_answer_is_the_listed_nodes_for_every_graph_method(name: str, reply: str) -> None:
    """Qwen lists with commas ("{Cobra, Red Sonja}" on MetaQA dev 1-hop-1): G-Retriever, ToG
    and CGPE, which write an answer as the nodes shown (``check_answer(..., nodes=)``),
    answered Unknown."""
    store = InMemoryGraphStore.from_triples(STAR)
    engine = engine_named(name, store)
    question = "which films did [George P. Cosmatos] direct"
    result = engine.run(question, answering(name, reply))  # type: ignore[attr-defined]
    assert set(result.answer.split("; ")) == {"Cobra", "Rambo"}
    assert result.grounded


def test_read_answer_is_check_answer_of_the_parsed_reply() -> None:
    facts = "Cleopatra directed by Joseph L. Mankiewicz"
    for reply in ["{Mankiewicz}", "{Cleopatra; Joseph L. Mankiewicz}", "{Paris}", "none"]:
        parsed = parse_graph_answer(reply)
        assert read_answer(reply, ["Cleopatra"], facts=facts) == check_answer(
            parsed, ["Cleopatra"], facts=facts
        )
    assert read_answer("{Mankiewicz}", [], facts=facts, nodes=["Joseph L. Mankiewicz"]) == (
        "Joseph L. Mankiewicz"
    )


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (None, "Unknown"),
        ("", "Unknown"),
        ("Paris", "Paris"),
        ("m.0abc1; Paris", "Paris"),
        ("x" * 1000, "Unknown"),
        ("line\x00break", "Unknown"),
    ],
)
def test_final_answer(answer: str | None, expected: str) -> None:
    assert final_answer(answer) == expected


def test_check_answer_writes_a_comma_list_as_nodes_and_keeps_a_comma_title_whole() -> None:
    nodes = ["Cobra", "Red Sonja", "Love, Wedding, Marriage", "Washington"]
    assert check_answer("Cobra, Red Sonja", ["Brigitte Nielsen"], nodes=nodes) == "Cobra; Red Sonja"
    assert check_answer("Love, Wedding, Marriage", [], nodes=nodes) == "Love, Wedding, Marriage"
    # names with commas inside a comma list (WebQSP dev, CGPE's reply): the longest runs
    sons = ["Michael Joseph Jackson, Jr.", "Prince Michael Jackson II"]
    reply = "Michael Joseph Jackson, Jr., Prince Michael Jackson II"
    assert check_answer(reply, ["Michael Jackson"], nodes=sons) == "; ".join(sons)
    # not every part is a node: no split (a place with a comma is not two answers)
    assert check_answer("Washington, D.C.", [], nodes=nodes) is None
