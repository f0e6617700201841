"""Pictures of FastToG chains, G-Retriever subgraphs and ToG/CGPE paths."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kgcore.exceptions import KGRetrieverError, MissingDependencyError
from kgcore.gretriever.result import GRetrieverResult
from kgcore.llm import ScriptedLLM
from kgcore.methods.baselines import PromptBaseline
from kgcore.methods.cgpe import CGPE
from kgcore.methods.fasttog import ChainCommunity, FastToG, FastToGConfig, FastToGResult
from kgcore.methods.tog import ToG
from kgcore.types import Triple
from kgcore.visualize import (
    DrawingError,
    NothingToDrawError,
    fasttog_scene,
    gretriever_scene,
    paths_scene,
)
from kgcore.visualize.render import auto_figsize, layout
from kgcore.visualize.scene import (
    ANSWER_RING,
    PRUNED_ALPHA,
    TOPIC_COLOUR,
    answer_matches,
    chain_colour,
    keep_core_and_neighbours,
)
from tests.support.paths import REPO


def _image(path: Path) -> np.ndarray:
    import matplotlib.image

    return np.asarray(matplotlib.image.imread(path))


def _pixels_near(image: np.ndarray, colour: str, tolerance: float = 0.03) -> int:
    rgb = np.array([int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)])
    return int((np.abs(image[..., :3] - rgb).max(axis=-1) < tolerance).sum())


def _assert_picture(path: Path, size: tuple[int, int], colours: list[str]) -> None:
    """Written, ``size`` pixels (width, height), not blank, and showing ``colours``."""
    assert path.is_file() and path.stat().st_size > 5_000
    image = _image(path)
    assert image.shape[:2] == (size[1], size[0])
    not_white = (image[..., :3] < 0.95).any(axis=-1).mean()
    assert not_white > 0.01, f"picture is almost blank ({not_white:.3%} drawn)"
    for colour in colours:
        assert _pixels_near(image, colour) > 30, f"no {colour} in the picture"


def _community(chain: int, depth: int, nodes: tuple[str, ...], links=()) -> ChainCommunity:
    return ChainCommunity(chain, depth, nodes, (), tuple(links), " ".join(nodes))


def _fasttog_result() -> FastToGResult:
    return FastToGResult(
        question="which films share the director of [Cleopatra]",
        answer="All About Eve",
        method="fasttog",
        depth=2,
        topic_entities=["Cleopatra"],
        start=_community(-1, 0, ("Cleopatra",)),
        chains=[
            [
                _community(
                    0,
                    1,
                    ("Joseph L. Mankiewicz",),
                    [Triple("Cleopatra", "directed_by", "Joseph L. Mankiewicz")],
                ),
                _community(
                    0,
                    2,
                    ("All About Eve", "Bette Davis"),
                    [Triple("All About Eve", "directed_by", "Joseph L. Mankiewicz")],
                ),
            ],
            [
                _community(
                    1, 1, ("Elizabeth Taylor",), [Triple("Cleopatra", "stars", "Elizabeth Taylor")]
                )
            ],
        ],
        pruned=[_community(-1, 1, ("1963",), [Triple("Cleopatra", "release_year", "1963")])],
    )


# -- FastToG --------------------------------------------------------------------------------
def test_fasttog_scene_colours_chains_numbers_depths_fades_pruned_rings_answer() -> None:
    scene = fasttog_scene(_fasttog_result())
    nodes = {n.name: n for n in scene.nodes}
    assert scene.title == "which films share the director of [Cleopatra]"
    assert nodes["Cleopatra"].colour == TOPIC_COLOUR and nodes["Cleopatra"].shape == "s"
    assert nodes["Joseph L. Mankiewicz"].colour == chain_colour(0)
    assert nodes["All About Eve"].colour == chain_colour(0)
    assert nodes["Elizabeth Taylor"].colour == chain_colour(1) != chain_colour(0)
    assert [nodes[n].badge for n in ("Joseph L. Mankiewicz", "All About Eve")] == ["1", "2"]
    assert nodes["1963"].alpha == PRUNED_ALPHA and nodes["1963"].badge == ""
    assert [n.name for n in scene.nodes if n.ring] == ["All About Eve"]
    assert nodes["All About Eve"].ring == ANSWER_RING
    pruned_edge = next(e for e in scene.edges if e.target == "1963")
    assert pruned_edge.dashed and pruned_edge.alpha == PRUNED_ALPHA
    assert "answer: All About Eve;" in scene.note and "2 chain(s)" in scene.note


def test_fasttog_draw_writes_a_picture_of_the_expected_size(tmp_path: Path) -> None:
    out = _fasttog_result().draw(tmp_path / "sub" / "chain.png", figsize=(9, 6), dpi=80)
    assert out == tmp_path / "sub" / "chain.png"
    _assert_picture(out, (720, 480), [chain_colour(0), chain_colour(1), ANSWER_RING])


def test_fasttog_run_records_the_pruned_candidates_it_offered(movie_store) -> None:
    llm = ScriptedLLM.by_purpose({"prune": ["{1}"], "reason": ["{All About Eve}"]})
    # A real choice (one of several); the scripted answer is a placeholder.
    config = FastToGConfig(max_community_size=2, width=1, grounded_answers=False)
    result = FastToG(movie_store, config).run("which films share the director of [Cleopatra]", llm)
    assert result.chains and result.pruned
    prompt = next(r for r in llm.requests if r.purpose == "prune").prompt_text
    chosen = set(result.chains[0][0].nodes)
    for community in result.pruned:
        assert (community.chain, community.depth) == (-1, 1)
        assert community.text in prompt  # it was offered...
        assert not chosen & set(community.nodes)  # ...and not chosen
    assert result.to_dict()["pruned"][0]["nodes"] == result.pruned[0].nodes


def _big_fasttog_result(pruned_nodes: int = 2_000) -> FastToGResult:
    chain_nodes = [("J. L. Mankiewicz",), ("All About Eve", "Bette Davis")]
    pruned = []
    for i in range(pruned_nodes // 4):
        nodes = tuple(f"film {i}-{k}" for k in range(4))
        anchor = chain_nodes[i % 2][0]
        pruned.append(_community(i % 2, 1 + i % 2, nodes, [Triple(nodes[0], "r", anchor)]))
    return FastToGResult(
        question="q",
        answer="Bette Davis",
        method="fasttog",
        topic_entities=["Cleopatra"],
        start=_community(-1, 0, ("Cleopatra",)),
        chains=[
            [
                _community(0, 1, chain_nodes[0], [Triple("Cleopatra", "d", "J. L. Mankiewicz")]),
                _community(
                    0, 2, chain_nodes[1], [Triple("All About Eve", "d", "J. L. Mankiewicz")]
                ),
            ]
        ],
        pruned=pruned,
    )


def test_a_2000_node_result_draws_the_chains_and_their_neighbours_only(tmp_path: Path) -> None:
    result = _big_fasttog_result()
    scene = fasttog_scene(result, max_nodes=120)
    names = [n.name for n in scene.nodes]
    assert len(names) == 120
    assert {"Cleopatra", "J. L. Mankiewicz", "All About Eve", "Bette Davis"} <= set(names)
    # Neighbours are the nodes linked to the chains, in the result's order.
    assert names[4:7] == ["film 0-0", "film 2-0", "film 4-0"]  # J. L. Mankiewicz's first
    assert "showing 120 of 2004 nodes" in scene.note
    # (Time: benchmarks/draw.py prints the seconds this takes.)
    size = tuple(round(s * 100) for s in auto_figsize(scene))  # a larger canvas
    _assert_picture(result.draw(tmp_path / "big.png"), size, [chain_colour(0)])


def test_the_layout_does_not_depend_on_the_hash_seed() -> None:
    script = (
        f"import json; from {__name__} import _fasttog_result;"
        "from kgcore.visualize import fasttog_scene; from kgcore.visualize.render import layout;"
        "pos = layout(fasttog_scene(_fasttog_result()));"
        "print(json.dumps(sorted((str(k), round(x, 6), round(y, 6)) for k, (x, y) in pos.items())))"
    )
    outputs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO)}
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, cwd=REPO, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        outputs.append(json.loads(done.stdout))
    assert outputs[0] == outputs[1]
    assert len(outputs[0]) == len(layout(fasttog_scene(_fasttog_result())))


# -- G-Retriever ----------------------------------------------------------------------------
def _gretriever_result() -> GRetrieverResult:
    return GRetrieverResult(
        question="who directed the films of [Elizabeth Taylor]",
        node_ids=(0, 1, 2, 3),
        node_texts=("Elizabeth Taylor", "Giant", "George Stevens", "Cleopatra"),
        edge_ids=(0, 1, 2),
        edges=(
            Triple("Giant", "starred_actors", "Elizabeth Taylor"),
            Triple("Giant", "directed_by", "George Stevens"),
            Triple("Cleopatra", "starred_actors", "Elizabeth Taylor"),
        ),
        edge_endpoints=((1, 0), (1, 2), (3, 0)),
        node_prizes=(3.0, 0.0, 2.0, 1.0),
        edge_prizes=(0.0, 2.5, 0.2),
        objective=7.0,
        edge_cost=0.5,
        searched_nodes=40,
        searched_edges=60,
        seeds=("Elizabeth Taylor",),
    )


def test_gretriever_scene_sizes_by_prize_shows_virtual_edge_nodes_and_topic() -> None:
    scene = gretriever_scene(_gretriever_result(), answer="George Stevens")
    nodes = {n.key: n for n in scene.nodes}
    assert nodes[0].shape == "s" and nodes[0].colour == TOPIC_COLOUR
    assert nodes[2].size > nodes[3].size > nodes[1].size  # prize 2 > 1 > 0 (connector)
    virtual = [n for n in scene.nodes if isinstance(n.key, tuple)]
    assert [(n.key, n.name, n.shape) for n in virtual] == [(("edge", 1), "directed_by", "D")]
    assert scene.has_edge(1, ("edge", 1)) and scene.has_edge(("edge", 1), 2)
    assert not scene.has_edge(1, 2)  # the virtual node stands between them
    assert [e.label for e in scene.edges if e.label] == ["starred_actors", "starred_actors"]
    assert [n.name for n in scene.nodes if n.ring] == ["George Stevens"]
    assert "3 edges (1 virtual) of 40 nodes / 60 edges searched" in scene.note


def test_gretriever_draw_writes_a_picture(tmp_path: Path) -> None:
    out = _gretriever_result().draw(tmp_path / "pcst.png", answer="George Stevens")
    _assert_picture(out, (1200, 800), ["#2171b5", "#e6550d", ANSWER_RING])


def test_a_2000_node_subgraph_keeps_topic_and_prized_nodes_first() -> None:
    n = 2_000
    edges = tuple(Triple(f"n{i}", "r", f"n{i + 1}") for i in range(n - 1))
    prizes = tuple(5.0 if i in (1_000, 1_500) else 0.0 for i in range(n))
    result = GRetrieverResult(
        question="q",
        node_ids=tuple(range(n)),
        node_texts=tuple(f"n{i}" for i in range(n)),
        edge_ids=tuple(range(n - 1)),
        edges=edges,
        edge_endpoints=tuple((i, i + 1) for i in range(n - 1)),
        node_prizes=prizes,
        edge_prizes=(0.0,) * (n - 1),
        objective=1.0,
        edge_cost=0.5,
        searched_nodes=n,
        searched_edges=n - 1,
        seeds=("n0",),
    )
    scene = gretriever_scene(result, max_nodes=60)
    keys = [n.key for n in scene.nodes]
    assert len(keys) == 60 and {0, 1_000, 1_500} <= set(keys)
    assert {999, 1_001, 1_499, 1_501, 1} <= set(keys)  # their neighbours
    assert "showing 60 of 2000 nodes" in scene.note


# -- ToG and CGPE ---------------------------------------------------------------------------
def test_tog_records_and_draws_its_explored_paths(movie_store, tmp_path: Path) -> None:
    llm = ScriptedLLM.by_purpose(
        {"tog_relations": ["{A: 1.0}"], "tog_reason": ["{Joseph L. Mankiewicz}"]}
    )
    result = ToG(movie_store, width=1).run("who directed [Cleopatra]", llm)
    assert result.answer == "Joseph L. Mankiewicz"
    assert result.extra["topic_entities"] == ["Cleopatra"]
    assert result.extra["explored"] == [
        {"depth": 1, "kept": [["Cleopatra", "directed_by", "Joseph L. Mankiewicz"]], "pruned": []}
    ]
    scene = paths_scene(result)
    nodes = {n.name: n for n in scene.nodes}
    assert nodes["Joseph L. Mankiewicz"].badge == "1"
    assert nodes["Joseph L. Mankiewicz"].ring == ANSWER_RING
    json.dumps(result.to_dict())  # the record survives a JSONL trace
    _assert_picture(result.draw(tmp_path / "tog.png"), (1200, 800), [])


def test_cgpe_records_kept_and_dropped_candidates_per_depth(movie_store) -> None:
    # Step 1 lists release_year, starred_actors, directed_by: C leads to the director.
    replies = ['["Cleopatra", "director"]', "{C: director}", "{A}", "{Joseph L. Mankiewicz}"]
    result = CGPE(movie_store).run("who is the director of Cleopatra", ScriptedLLM(replies))
    assert result.extra["topic_entities"] == ["Cleopatra"]
    level = result.extra["explored"][0]
    assert level["depth"] == 1
    assert level["kept"] == [["Cleopatra", "directed_by", "Joseph L. Mankiewicz"]]
    assert ["Cleopatra", "release_year", "1963"] in level["pruned"]
    scene = paths_scene(result)
    faded = {n.name for n in scene.nodes if n.alpha < 1}
    assert {"1963", "Elizabeth Taylor"} <= faded
    assert "clues: Cleopatra, director" in scene.note


def test_paths_branch_into_colours_and_keep_depth_numbers() -> None:
    from kgcore.methods.result import MethodResult

    result = MethodResult(question="q", answer="x", method="tog")
    result.extra.update(
        topic_entities=["a"],
        explored=[
            {"depth": 1, "kept": [["a", "r", "b"], ["a", "r", "c"]], "pruned": []},
            {"depth": 2, "kept": [["b", "s", "d"], ["e", "s", "c"]], "pruned": [["d", "t", "z"]]},
        ],
    )
    nodes = {n.name: n for n in paths_scene(result).nodes}
    assert nodes["b"].colour == nodes["d"].colour == chain_colour(0)
    assert nodes["c"].colour == nodes["e"].colour == chain_colour(1)
    assert [nodes[k].badge for k in "bcde"] == ["1", "1", "2", "2"]


def test_a_result_that_explored_no_graph_says_so(movie_store, tmp_path: Path) -> None:
    result = PromptBaseline("io").run("who directed Cleopatra", ScriptedLLM(["{x}"]))
    with pytest.raises(NothingToDrawError, match="'io' result records no explored paths"):
        result.draw(tmp_path / "io.png")
    assert not (tmp_path / "io.png").exists()


# -- shared rules ---------------------------------------------------------------------------
def test_bad_requests_get_clear_errors(tmp_path: Path) -> None:
    result = _fasttog_result()
    with pytest.raises(DrawingError, match=r"use a \.png, \.svg"):
        result.draw(tmp_path / "chain.txt")
    with pytest.raises(DrawingError, match="max_nodes must be a positive integer"):
        result.draw(tmp_path / "chain.png", max_nodes=0)
    with pytest.raises(DrawingError, match="figsize and dpi must be positive"):
        result.draw(tmp_path / "chain.png", dpi=0)
    assert issubclass(DrawingError, KGRetrieverError)


def test_other_formats_follow_the_suffix(tmp_path: Path) -> None:
    svg = _fasttog_result().draw(tmp_path / "chain.svg")
    assert svg.read_text().lstrip().startswith("<?xml") and "<svg" in svg.read_text()
    assert _fasttog_result().draw(tmp_path / "chain.pdf").read_bytes().startswith(b"%PDF")


def test_missing_matplotlib_names_the_extra(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(MissingDependencyError, match=r"kg-retrievers\[visualize\]"):
        _fasttog_result().draw(tmp_path / "chain.png")


def test_answer_matching_and_neighbour_order() -> None:
    names = ["Giant", "George Stevens", "1963"]
    assert answer_matches("george stevens and 1963", names) == ["George Stevens", "1963"]
    assert answer_matches("Unknown", names) == []
    triples = [Triple("a", "r", "b"), Triple("c", "r", "a"), Triple("b", "r", "d")]
    assert keep_core_and_neighbours(["a"], triples, 10) == ["a", "b", "c", "d"]
    assert keep_core_and_neighbours(["a", "b"], triples, 1) == ["a", "b"]  # core kept whole
