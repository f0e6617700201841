"""The Bolt store answers as the in-memory store does, on all of MetaQA (issue 35's checks).

MetaQA's knowledge base is loaded into an ArcadeDB server (Bolt) with a full-text index on the
names; then

- **fuzzy linking**: 1,000 names (existing, misspelt by two swapped letters, made up) are linked
  on both stores; the Bolt store finds its candidates with the full-text index
  (``name_search="fulltext"``), the in-memory store ranks every name. Both apply the same strict
  score-and-margin rule, so each name must give the same node or the same refusal;
- **G-Retriever**: the first ``--questions`` dev 2-hop questions are retrieved on both stores
  with the same embedder; the Bolt store's regions are read by Cypher and their texts embedded
  as they are reached (no vector is in the database, and nothing embeds the whole graph), and
  each subgraph must be the in-memory one.

The last line (also written to ``--results``) is ``neo4j_agreement names=N same=S
gretriever_questions=Q same_subgraphs=G texts_embedded=E graph_texts=T``.

Example
-------
``.venv/bin/python benchmarks/neo4j_agreement.py``
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import arcadedb  # noqa: E402

from kgcore.embeddings import SentenceTransformerEmbedder  # noqa: E402
from kgcore.exceptions import EntityNotFoundError  # noqa: E402
from kgcore.graph.memory import InMemoryGraphStore  # noqa: E402
from kgcore.graph.neo4j_loader import write_triples_to_neo4j  # noqa: E402
from kgcore.graph.neo4j_store import DEFAULT_MAPPING, Neo4jGraphStore  # noqa: E402
from kgcore.gretriever.retriever import GRetriever  # noqa: E402
from kgcore.linking import link_entity_details  # noqa: E402
from kgeval.datasets import default_data_dir  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATA = default_data_dir() / "metaqa"
MAPPING = replace(DEFAULT_MAPPING, search_property="search", fulltext_index="Entity[search]")


def sample_names(names: list[str], count: int, seed: int = 0) -> list[str]:
    """A third existing names, a third misspelt (two letters swapped), a third made up."""
    rng = random.Random(seed)
    third = count // 3
    existing = rng.sample(names, third)
    misspelt = []
    for name in rng.sample(names, third):
        spots = [i for i in range(1, len(name) - 2) if name[i].isalpha() and name[i + 1].isalpha()]
        if spots:
            i = rng.choice(spots)
            name = name[:i] + name[i + 1] + name[i] + name[i + 2 :]
        misspelt.append(name)
    words = [w for n in rng.sample(names, 400) for w in n.split() if w.isalpha()]
    made_up = [" ".join(rng.sample(words, rng.randint(1, 3))) for _ in range(count - 2 * third)]
    return existing + misspelt + made_up


def outcome(store: object, name: str) -> str:
    try:
        return link_entity_details(store, name).node  # type: ignore[arg-type]
    except EntityNotFoundError:
        return "(refused)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--names", type=int, default=1000)
    parser.add_argument("--questions", type=int, default=50)
    parser.add_argument(
        "--results", type=Path, default=ROOT / "benchmarks" / "results" / "neo4j_agreement.txt"
    )
    args = parser.parse_args(argv)
    memory = InMemoryGraphStore.from_file(DATA / "kb.txt", progress=False)
    server = arcadedb.start(Path(tempfile.mkdtemp(prefix="kg-agreement-")), heap="3g")
    lines = []
    try:
        store = Neo4jGraphStore(**server.conn, mapping=MAPPING, name_search="fulltext")
        print(write_triples_to_neo4j(store, DATA / "kb.txt", progress=False, mode="create"))
        arcadedb.sql(server, "CREATE PROPERTY Entity.search IF NOT EXISTS STRING")
        arcadedb.sql(server, "CREATE INDEX IF NOT EXISTS ON Entity (search) FULL_TEXT")
        store.refresh_names()

        names = sample_names(sorted(memory.graph.nodes), args.names)
        started = time.perf_counter()
        differ = []
        for name in names:
            a, b = outcome(memory, name), outcome(store, name)
            if a != b:
                differ.append((name, a, b))
        for name, a, b in differ[:20]:
            lines.append(f"differs: {name!r}: memory {a!r}, bolt {b!r}")
        same = len(names) - len(differ)
        print(f"linking: {same}/{len(names)} the same in {time.perf_counter() - started:.0f} s")

        embedder = SentenceTransformerEmbedder()
        on_memory = GRetriever(store=memory, embedder=embedder)
        on_server = GRetriever(store=store, embedder=embedder)
        asked = []
        for line in (DATA / "dev_2hop.txt").read_text(encoding="utf-8").splitlines():
            if len(asked) >= args.questions:
                break
            question = line.split("\t", 1)[0]
            asked.append((question, question[question.index("[") + 1 : question.index("]")]))
        same_subgraphs = 0
        for question, entity in asked:
            got = on_server.retrieve(question, topic_entities=[entity])
            want = on_memory.retrieve(question, topic_entities=[entity])
            if [tuple(t) for t in got.edges] == [tuple(t) for t in want.edges]:
                same_subgraphs += 1
            else:
                lines.append(f"subgraph differs: {question}")
        vectors = on_server.embedder
        embedded = int(getattr(vectors, "embedded_count", -1))
        total = memory.num_nodes() + len({r for _, _, r in memory.graph.edges(keys=True)})
        store.close()
    finally:
        server.stop()
    summary = (
        f"neo4j_agreement names={len(names)} same={same} gretriever_questions={len(asked)} "
        f"same_subgraphs={same_subgraphs} texts_embedded={embedded} graph_texts={total}"
    )
    lines.append(summary)
    print("\n".join(lines))
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
