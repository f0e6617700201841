"""``kgqa eval`` on a three-member cluster goes on when the member it reads from is killed:
every question answered once, with the answers the same graph gives in memory.

The eval reads through the store's member list (``--kg bolt://m1,bolt://m2,bolt://m3``,
:mod:`kgcore.graph.failover`). Two clusters (:mod:`tests.support.arcadedb_cluster`): an
ArcadeDB HA cluster loaded through its leader (skipped where ArcadeDB's HA module is missing,
as in the ``arcadedb-embedded`` wheel), and three read replicas each loaded with the graph. The
scripted chat model kills the first member, the one being read, at its first call once 7 of
the 20 questions are answered.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("arcadedb_embedded", reason="the ArcadeDB wheel is in the dev extra")
pytest.importorskip("neo4j", reason="the neo4j driver is in the neo4j extra")
fake_chat = pytest.importorskip(
    "langchain_core.language_models.fake_chat_models", reason="the langchain extra"
)

pytestmark = pytest.mark.slow

QUESTIONS = 20
KILL_AFTER = 7  # answered questions before the kill
#: A MetaQA-like graph: 20 films, each with a director, two actors, a year and a genre.
FILMS = [
    f"Film {name}" for name in "Alder Birch Cedar Dogwood Elm Fir Ginkgo Hazel Ivy Juniper".split()
]
FILMS += [
    f"Picture {name}"
    for name in "Larch Maple Nutmeg Oak Pine Quince Rowan Spruce Teak Willow".split()
]


def graph_triples() -> list[tuple[str, str, str]]:
    triples = []
    for i, film in enumerate(FILMS):
        triples += [
            (film, "directed_by", f"Director {i % 7}"),
            (film, "starred_actors", f"Actor {i % 11}"),
            (film, "starred_actors", f"Actor {(i + 3) % 11}"),
            (film, "release_year", str(1960 + i)),
            (film, "has_genre", ("Drama", "Comedy", "Western")[i % 3]),
        ]
    return triples


def write_data(folder: Path) -> tuple[Path, Path]:
    kb = folder / "kb.txt"
    kb.write_text("".join(f"{h}|{r}|{t}\n" for h, r, t in graph_triples()))
    qa = folder / "qa.jsonl"
    rows = [
        {
            "id": f"q{i:02d}",
            "question": f"who directed [{film}]",
            "answers": [f"Director {i % 7}"],
        }
        for i, film in enumerate(FILMS)
    ]
    qa.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return kb, qa


def scripted_reply(prompt: str) -> str:
    """What the scripted model says: ToG's relation choice is ``directed by``; a prompt
    holding a director's fact is answered with that director (so a right answer needs the
    graph read), any other with ``{Unknown}``."""
    relation = re.search(r"([A-Z])\. directed by", prompt)
    if relation and "Pick up to" in prompt:
        return "{" + relation.group(1) + ": 1.0}"
    director = re.search(r"Director \d+", prompt)
    if director:
        return "{" + director.group(0) + "}"
    return "{Unknown}"


class HookedChat(fake_chat.FakeListChatModel):  # type: ignore[misc,name-defined]
    """The scripted model (:func:`scripted_reply`); :data:`BEFORE_CALL` runs before each
    reply."""

    def _call(self, messages: list[Any], *args: Any, **kwargs: Any) -> str:
        BEFORE_CALL[0]()
        return scripted_reply(" ".join(str(message.content) for message in messages))


BEFORE_CALL: list[Callable[[], None]] = [lambda: None]


def run_eval(
    monkeypatch: pytest.MonkeyPatch, kg: str, qa: Path, out: Path
) -> dict[str, dict[str, Any]]:
    """``kgqa eval --method tog`` with the scripted model; the records by id (ids must be
    unique)."""
    import langchain_fasttog.models as models
    from kgqa.eval import add_eval_subcommand

    monkeypatch.setattr(models, "resolve_chat_model", lambda spec: HookedChat(responses=["unused"]))
    parser = argparse.ArgumentParser(prog="kgqa")
    add_eval_subcommand(parser.add_subparsers(dest="command"))
    args = parser.parse_args(
        ["eval", "--method", "tog", "--data", f"jsonl:{qa}", "--kg", kg, "--llm", "fake:x"]
        + ["--out", str(out), "--quiet", "--no-plots"]
    )
    assert args.handler(args) == 0
    (records_file,) = out.glob("tog__*.jsonl")
    records = [json.loads(line) for line in records_file.read_text().splitlines()]
    ids = [record["id"] for record in records]
    assert len(ids) == len(set(ids)), f"a question answered twice: {sorted(ids)}"
    return {record["id"]: record for record in records}


def wait_until_every_member_has(cluster: Any, triples: int, timeout: float = 300) -> None:
    """Replication: poll each member until it holds ``triples`` triples."""
    from kgcore.graph.neo4j_store import Neo4jGraphStore

    deadline = time.monotonic() + timeout
    for uri in cluster.uris:
        while True:
            try:
                with Neo4jGraphStore(uri, **cluster.login) as store:
                    if store.num_triples() == triples:
                        break
            except Exception:  # noqa: BLE001, S110 - not replicated yet; polled until the deadline
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"{uri} did not get the {triples} triples in {timeout:g} s")
            time.sleep(1)


def load(cluster: Any, kb: Path) -> None:
    """The graph on every member: through the leader (HA; the routing URI sends writes to
    it), or into each replica."""
    from kgcore.graph.open import write_file_to_neo4j

    targets = [cluster.routing_uri] if cluster.ha else cluster.uris
    for uri in targets:
        write_file_to_neo4j(uri, kb, progress=False, **cluster.login)
    wait_until_every_member_has(cluster, len(graph_triples()))


@pytest.fixture(params=["ha", "replicas"])
def cluster(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    from tests.support.arcadedb_cluster import (
        ha_classpath,
        ha_unavailable,
        start_arcadedb_cluster,
    )
    from tests.support.arcadedb_server import ArcadeDBStartError

    ha = request.param == "ha"
    if ha and (reason := ha_unavailable(ha_classpath())):
        pytest.skip(reason)
    try:
        started = start_arcadedb_cluster(tmp_path / "cluster", ha=ha)
    except ArcadeDBStartError as err:
        pytest.fail(str(err), pytrace=False)
    try:
        yield started
    finally:
        started.stop()


def test_eval_goes_on_when_the_member_being_read_is_killed(
    cluster: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    kb, qa = write_data(tmp_path)
    load(cluster, kb)
    expected = run_eval(monkeypatch, str(kb), qa, tmp_path / "memory")

    out = tmp_path / "cluster-run"
    killed: list[float] = []

    def kill_the_first_member_once_7_are_answered() -> None:
        records = next(iter(out.glob("tog__*.jsonl")), None)
        answered = len(records.read_text().splitlines()) if records else 0
        if not killed and answered >= KILL_AFTER:
            cluster.kill(0)
            killed.append(time.monotonic())

    login = cluster.login
    monkeypatch.setenv("NEO4J_USERNAME", login["username"])
    monkeypatch.setenv("NEO4J_PASSWORD", login["password"])
    monkeypatch.setenv("NEO4J_DATABASE", login["database"])
    BEFORE_CALL[0] = kill_the_first_member_once_7_are_answered
    try:
        with caplog.at_level(logging.WARNING, logger="kgcore.graph.failover"):
            got = run_eval(monkeypatch, cluster.spec, qa, out)
    finally:
        BEFORE_CALL[0] = lambda: None

    assert killed, "the eval ended before the kill"
    assert cluster.members[0].process.poll() is not None
    # Every question answered once, none with an error, each as the in-memory graph answers it.
    assert sorted(got) == [f"q{i:02d}" for i in range(QUESTIONS)]
    errors = {qid: record.get("error") for qid, record in got.items() if record.get("error")}
    assert not errors
    assert {qid: r["prediction"] for qid, r in got.items()} == {
        qid: r["prediction"] for qid, r in expected.items()
    }
    assert all(r["hit"] for r in expected.values())  # each answer needed the graph read
    assert all(r["hit"] for r in got.values())
    # The reads moved from the killed member to the next one.
    moved = [r.getMessage() for r in caplog.records if "is unavailable" in r.getMessage()]
    assert moved and cluster.uris[0] in moved[0] and cluster.uris[1] in moved[0], moved
