"""``FastToGConfig.paper()``: the paper's FastToG as written (issue 38), setting by setting,
and what the preset changes in a run.

Sources: *paper* is Liang et al., "Fast Think-on-Graph: Wider, Deeper and Faster Reasoning of
Large Language Model on Knowledge Graph", AAAI 2025 (arXiv 2501.14300); *reference* is the
authors' code, github.com/dosonleung/FastToG (``fasttog.py``'s argument defaults and
``community_search``, ``kg_client.py``'s ``get_n_hop_neighbors``, ``llms_client.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from kgcore.exceptions import InvalidSettingError
from kgcore.graph import InMemoryGraphStore
from kgcore.llm import ScriptedLLM
from kgcore.methods.fasttog import FastToG, FastToGConfig
from kgcore.methods.fasttog.config import LeafSettings
from kgcore.methods.fasttog.presets import PAPER, PRESETS
from kgcore.paths import PathSettings
from kgcore.text.triple2text import Triple2Text
from kgcore.types import Triple


def _setting(config: FastToGConfig, path: str) -> Any:
    """A setting of ``config`` by its dotted path (``lcs.radius``, ``leaves.kept``)."""
    owner: Any = config
    for part in path.split("."):
        owner = getattr(owner, part)
    return owner


PAPER_SETTINGS: list[tuple[str, Any]] = [
    # paper: W = 3 reasoning chains; reference: fasttog.py --reasoning_chain_width default 3.
    ("width", 3),
    # paper: D_max = 5; reference: --reasoning_chain_depth default 5 (the initial phase's
    # reasoning, then depth - 1 rounds of the main phase).
    ("max_depth", 5),
    # paper: communities of at most M = 4 nodes; reference: the README's run passes
    # --community_max_size 4 (the argparse default is 5).
    ("lcs.max_community_size", 4),
    # paper: Louvain; reference: --community_detect_algorithm default louvain_method.
    ("lcs.algorithm", "louvain"),
    # reference: --search_max_hop default 3, the n_hop of kg_client.get_n_hop_neighbors.
    ("lcs.radius", 3),
    # paper: a node n hops away is sampled with probability rho^(n-1), rho = 0.5 (issue 38);
    # reference: community_search passes decline_rate=0.5.
    ("lcs.decay", 0.5),
    # reference: get_n_hop_neighbors draws max(int(20 * 0.5**hop), 1) random neighbours of a
    # node at distance hop (--search_max_neighbor 20): 20, 10, 5 at hops 1, 2, 3.
    ("lcs.neighbors_per_hop", (20, 10, 5)),
    # reference: get_n_hop_neighbors keeps the topk=100 nearest nodes.
    ("lcs.max_subgraph_nodes", 100),
    # reference: _get_neighbor_nodes draws among all of a node's neighbours (ORDER BY rand()).
    ("lcs.max_neighbors_per_node", None),
    # paper and reference: no node is held back as an attribute hub.
    ("lcs.hub_degree", None),
    # reference: --community_max_candidate default 8 (graph_prune, the modularity top-k).
    ("lcs.coarse_top_k", 8),
    # paper and reference: coarse pruning by modularity alone, no slots for one-node leaves;
    # the start community is the topic entity's own community, and a chain community is
    # shown as it is (no one-node neighbours shown).
    ("leaves.kept", 0),
    ("leaves.shown", False),
    # paper and reference: any candidate may start a chain.
    ("leaves.start_chains", True),
    # paper and reference: no path planning (this project's, issue 48), communities only.
    ("paths.max_hops", 0),
    ("paths.enabled", False),
    # paper: fine pruning by the LLM picks the first W communities (reference:
    # community_prune_by_triples with keep_candidate=W).
    ("first_choice", "llm"),
    # paper: fine pruning by the LLM picks each chain's next community (reference:
    # keep_candidate=1, "BEST SELECTION").
    ("chain_choice", "llm"),
    # reference: options are lettered (id_of_comm = 'ABC...').
    ("option_labels", "letters"),
    # reference: an option shows its whole community (bfs2text), no triple cap: 64 is the
    # range's top, above the triples of any community of 4 nodes and its links.
    ("max_option_triples", 64),
    # paper: temperature 0.4 for pruning (reference: --llm_prune_temperature default 0.4).
    ("prune_temperature", 0.4),
    # paper: temperature 0.1 for reasoning (the reference's CLI default is 0.7).
    ("reason_temperature", 0.1),
    # reference: llm_client(..., max_tokens=4096) caps every call.
    ("prune_max_tokens", 4096),
    ("reason_max_tokens", 4096),
    # paper: Triple2Text writes one sentence per triple, nothing merged.
    ("sentence_per", "triple"),
    ("merge_shared", False),
    # paper and reference: the model's answer as it gives it, no grounding in the facts.
    ("grounded_answers", False),
    ("neighbour_answers", False),
    # paper and reference: no "linked to each of" start facts, no joint-first ranking.
    ("joint_limit", 0),
    ("shared_topics", False),
    # paper: the start community is the topic's community, nothing ranked by the question.
    ("topic_facts", 0),
    # paper: CoT prompting answers when the graph gave no answer (reference: cot_answer_prompt).
    ("fallback", "cot"),
    # paper: no demonstration beyond the prompt's instruction (the reference's worked examples
    # are not reproduced, see docs/fasttog.md).
    ("reason_demos", ()),
]


@pytest.mark.parametrize(("path", "value"), PAPER_SETTINGS, ids=[p for p, _ in PAPER_SETTINGS])
def test_each_paper_setting(path: str, value: Any) -> None:
    assert _setting(FastToGConfig.paper(), path) == value
    assert _setting(FastToGConfig.preset("paper"), path) == value


def test_the_table_covers_every_setting_the_preset_changes() -> None:
    covered = {path.split(".")[0] for path, _ in PAPER_SETTINGS}
    prompts = {"prune_prompt", "reason_prompt", "reason_system"}  # tested by behaviour below
    flat = set(PAPER) - {"leaves"}
    lcs_fields = set(FastToGConfig().lcs.setting_names())
    assert {f"lcs.{f}" for f in flat & lcs_fields} <= {p for p, _ in PAPER_SETTINGS}
    assert {f"paths.{f}" for f in _paths_the_paper_changes()} <= {p for p, _ in PAPER_SETTINGS}
    assert (flat - lcs_fields) - prompts <= covered
    # Every project default that differs from the paper preset is a setting tested above.
    paper, default = FastToGConfig.paper(), FastToGConfig()
    differing = {
        name
        for name in FastToGConfig.setting_names()
        if name not in FastToGConfig.flat_settings
        and getattr(paper, name) != getattr(default, name)
    }
    assert differing - prompts - {"lcs", "leaves"} <= covered


def _paths_the_paper_changes() -> set[str]:
    """The :class:`PathSettings` fields the paper preset sets away from their defaults."""
    paper, default = PAPER["paths"], PathSettings()
    return {n for n in PathSettings.setting_names() if getattr(paper, n) != getattr(default, n)}


def test_no_default_changes() -> None:
    config = FastToGConfig()
    assert (config.first_choice, config.chain_choice, config.lcs.decay) == ("auto", "auto", 1.0)
    assert (config.lcs.radius, config.sentence_per, config.option_labels) == (
        2,
        "relation",
        "numbers",
    )
    assert config.shared_topics and config.merge_shared and config.grounded_answers
    assert config.paths == PathSettings() and config.paths.enabled


def test_overrides_apply_after_the_preset_and_an_unknown_preset_lists_them() -> None:
    assert FastToGConfig.paper(width=2, decay=1.0).width == 2
    assert FastToGConfig.paper(decay=1.0).lcs.decay == 1.0
    with pytest.raises(InvalidSettingError, match="the presets are metaqa, paper"):
        FastToGConfig.preset("papr")
    with pytest.raises(InvalidSettingError, match="width"):
        FastToGConfig.paper(width=0)
    assert sorted(PRESETS) == ["metaqa", "paper"]


@pytest.fixture()
def store() -> InMemoryGraphStore:
    return InMemoryGraphStore.from_triples(
        [
            ("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
            ("All About Eve", "directed_by", "Joseph L. Mankiewicz"),
            ("Cleopatra", "release_year", "1963"),
            ("Cleopatra", "in_language", "English"),
            ("Cleopatra", "starred_actors", "Elizabeth Taylor"),
            ("Giant", "starred_actors", "Elizabeth Taylor"),
            ("Giant", "directed_by", "George Stevens"),
            ("Cleopatra", "has_genre", "Drama"),
            ("Giant", "has_genre", "Drama"),
        ]
    )


class Constant:
    """A toy embedder: ``first_choice="auto"`` would rank by similarity with it."""

    def embed(self, texts: list[str], progress: bool = False) -> np.ndarray:
        return np.ones((len(texts), 2))


def test_a_paper_run_asks_the_llm_with_lettered_options_and_the_paper_prompt(
    store: InMemoryGraphStore,
) -> None:
    engine = FastToG(store, FastToGConfig.paper(max_community_size=2), embedder=Constant())
    llm = ScriptedLLM(["{A, B, C}", "To sum up, the answer is {Joseph L. Mankiewicz}."])
    result = engine.run("who directed [Cleopatra]", llm)
    assert result.answer == "Joseph L. Mankiewicz" and result.llm_calls == 2
    # No relation path was followed: nothing but communities, no path chain, no path answers.
    assert not {"path", "answers"} & set(result.extra)
    assert not [s for s in result.extra["steps"] if s["purpose"] in ("path", "paths")]
    prune, reason = llm.requests
    assert prune.purpose == "prune" and result.extra["first_choice"] == "llm"  # embedder unused
    prompt = prune.messages[-1].content
    assert "\nA. " in prompt and "\nB. " in prompt and prompt.endswith("Your choice:")
    assert "letters" in prune.messages[-1].content and "\n1. " not in prompt
    assert (prune.temperature, prune.max_tokens) == (0.4, 4096)
    # Reasoning: a plain system message, then one user turn (no demonstration).
    assert [m.role for m in reason.messages] == ["system", "user"]
    asked = reason.messages[-1].content
    assert "{Unknown}" in asked and "context:\n1. " in asked and asked.endswith("\nA:")
    assert (reason.temperature, reason.max_tokens) == (0.1, 4096)


def test_the_paper_start_community_shows_no_leaves_and_texts_are_one_triple_a_sentence(
    store: InMemoryGraphStore,
) -> None:
    paper = FastToG(store, FastToGConfig.paper(max_community_size=2))
    project = FastToG(store, FastToGConfig(max_community_size=2))
    step = paper.search.step(["Cleopatra"], {"Cleopatra"}, depth=0, chain=0)
    assert paper.start.build(["Cleopatra"], step.candidates).triples == ()
    assert project.start.build(["Cleopatra"], step.candidates).triples  # year, language
    assert isinstance(paper.textualizer, Triple2Text)
    merged = [Triple("A", "directed_by", "X"), Triple("B", "directed_by", "X")]
    assert paper.textualizer(["A", "B", "X"], merged) == "A directed by X. B directed by X."
    assert project.textualizer(["A", "B", "X"], merged) == "A; B directed by X."


def test_the_paper_keeps_the_models_answer_where_the_project_grounds_it(
    store: InMemoryGraphStore,
) -> None:
    question = "what is the capital of the country of [Cleopatra]"  # not in the graph
    paper = FastToG(store, FastToGConfig.paper(max_community_size=2, max_depth=1, width=1))
    result = paper.run(question, ScriptedLLM(["{A}", "{Alexandria}"]))
    assert (result.answer, result.fell_back, result.grounded) == ("Alexandria", False, False)
    # The project's grounding of the community phases' reply: path planning off (its own
    # reading of a chain question is held by test_path_planning.py).
    project = FastToG(
        store,
        FastToGConfig(
            max_community_size=2,
            max_depth=1,
            width=1,
            first_choice="llm",
            paths=PathSettings(max_hops=0),
        ),
    )
    grounded = project.run(question, ScriptedLLM(["{1}", "{Alexandria}", "{Unknown}"]))
    reason = [s for s in grounded.extra["steps"] if s["purpose"] == "reason"]
    assert reason[0]["parsed"] == "Alexandria" and reason[0]["answer"] is None  # refused
    assert grounded.answer == "Unknown" and grounded.fell_back  # then the CoT fallback


def test_several_topic_entities_start_every_candidate_in_the_paper(
    store: InMemoryGraphStore,
) -> None:
    paper = FastToG(store, FastToGConfig.paper(max_community_size=2))
    project = FastToG(store, FastToGConfig(max_community_size=2))
    topic = ["Cleopatra", "Giant"]
    candidates = project.search.step(topic, set(topic), depth=0, chain=0).candidates
    assert len(project.start.first_options(candidates, topic)) < len(
        candidates
    )  # joining ones only
    assert paper.start.first_options(candidates, topic) == list(range(len(candidates)))
    assert paper.topic_facts.joint_neighbours(topic) == ([], [])
    assert project.topic_facts.joint_neighbours(topic)[0]  # Elizabeth Taylor, Drama


def test_the_docs_table_names_every_setting_of_the_preset() -> None:
    from tests.support.paths import REPO

    named: set[str] = set()
    for line in (REPO / "docs" / "fasttog.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0].startswith("`"):
            named |= {n.split()[0].strip("`") for n in cells[0].split(",")}
    expected = {f"leaves.{name}" for name in LeafSettings.setting_names()}
    expected |= {f"paths.{name}" for name in _paths_the_paper_changes()}
    expected |= set(PAPER) - {"leaves", "paths"}
    assert expected <= named, sorted(expected - named)
