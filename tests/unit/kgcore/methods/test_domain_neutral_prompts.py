"""No default prompt, demonstration or reminder speaks of one graph's content (issue 34).

Every method runs on a small graph of people and places with a scripted model that first
replies with nothing usable (so the format reminders are sent too), then with something
plausible; every text any request carries is collected and checked for the words of MetaQA's
movie graph. The question and the graph hold none of them, so whatever is found came from a
default prompt.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from kgcore.graph import InMemoryGraphStore
from kgcore.llm import LLMRequest, ScriptedLLM
from kgcore.methods.cgpe import CGPEConfig
from kgcore.methods.fasttog import FastToGConfig
from kgcore.methods.tog import ToGConfig
from kgeval.registry import make_method
from tests.support.fake_embedder import FakeEmbedder

#: MetaQA's relations, as stored and as the verbaliser writes them, and the words of its domain.
METAQA_WORDS = (
    "directed_by",
    "directed by",
    "written_by",
    "written by",
    "starred_actors",
    "starred",
    "release_year",
    "release year",
    "in_language",
    "has_tags",
    "has_genre",
    "has genre",
    "imdb",
    "film",
    "movie",
    "director",
    "directed",
    "actor",
    "actress",
    "screenwriter",
    "genre",
    "cinema",
    "titanic",
)
_WORD = re.compile("|".join(re.escape(w) for w in METAQA_WORDS), re.IGNORECASE)

GRAPH = [
    ("Ada Lovelace", "people.person.parents", "Lord Byron"),
    ("Ada Lovelace", "people.person.place_of_birth", "London"),
    ("Lord Byron", "people.person.place_of_death", "Missolonghi"),
    ("London", "location.location.containedby", "England"),
    ("Lord Byron", "people.person.nationality", "m.0kingdom"),
    ("m.0kingdom", "common.topic.alias", "United Kingdom"),
]
QUESTIONS = (
    ("where did the father of [Ada Lovelace] die", None),
    ("where did Ada Lovelace's father die?", None),  # no brackets: the model extracts
    ("where did Ada Lovelace's father die?", ["Ada Lovelace"]),
)


def _texts(requests: list[LLMRequest]) -> Iterator[str]:
    for request in requests:
        for message in request.messages:
            yield message.content


def _sloppy_then_plausible(request: LLMRequest) -> str:
    """Nothing usable on the first request of each step, then a plausible reply."""
    seen = _sloppy_then_plausible.seen  # type: ignore[attr-defined]
    first = request.purpose not in seen
    seen.add(request.purpose)
    if first:
        return "hmm"
    if request.purpose in ("extract_entities", "cgpe_clues"):
        return '["Ada Lovelace", "father"]'
    if request.purpose in ("tog_relations", "tog_entities", "cgpe_step1", "cgpe_step3"):
        return "{A: father}" if request.purpose.startswith("cgpe") else "{A: 1.0}"
    if request.purpose in ("prune", "cgpe_step2"):
        return "{1}" if request.purpose == "prune" else "{A}"
    return "{Missolonghi}"


@pytest.mark.parametrize(
    ("method", "options"),
    [
        ("fasttog", {"first_choice": "llm", "max_community_size": 2}),
        ("fasttog", {"first_choice": "llm", "fallback": "cot-sc", "max_depth": 1}),
        ("fasttog", {"first_choice": "llm", "fallback": "io", "max_depth": 1}),
        ("fasttog-node", {"first_choice": "llm"}),
        ("tog", {}),
        ("cgpe", {}),
        ("gretriever", {}),
        ("io", {}),
        ("cot", {}),
        ("cot-sc", {"n": 2}),
    ],
)
def test_no_default_prompt_speaks_of_movies(method: str, options: dict[str, object]) -> None:
    store = InMemoryGraphStore.from_triples(GRAPH)
    if method == "gretriever":
        options = {"embedder": FakeEmbedder()}
    for question, topics in QUESTIONS:
        _sloppy_then_plausible.seen = set()  # type: ignore[attr-defined]
        llm = ScriptedLLM(_sloppy_then_plausible)
        engine = make_method(
            method, store if method not in ("io", "cot", "cot-sc") else None, **options
        )
        engine.run(question, llm, topics)
        assert llm.requests, method
        found = {m.group(0).lower() for text in _texts(llm.requests) for m in _WORD.finditer(text)}
        assert not found, f"{method} prompts mention {sorted(found)}"


def test_no_default_setting_speaks_of_movies() -> None:
    from kgcore.methods.fasttog.prompts import REASON_DEMOS

    texts = [
        value
        for config in (FastToGConfig(), ToGConfig(), CGPEConfig())
        for value in vars(config).values()
        if isinstance(value, str)
    ]
    texts += [part for demo in REASON_DEMOS for part in (demo.facts, demo.question, demo.reply)]
    found = {m.group(0).lower() for text in texts for m in _WORD.finditer(text)}
    assert not found, sorted(found)


def test_the_llamaindex_graph_prompt_speaks_of_no_domain() -> None:
    pytest.importorskip("llama_index.core")
    from llamaindex_gretriever.prompts import GRAPH_QA_PROMPT

    assert not _WORD.search(GRAPH_QA_PROMPT.get_template())
