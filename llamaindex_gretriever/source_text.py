"""LlamaIndex's ``include_text``: the source chunks a retrieved subgraph was extracted from.

``PropertyGraphIndex`` records, on every entity it extracts, the id of the text chunk it came
from (the ``triplet_source_id`` property). :func:`source_chunks` finds the chunks behind a
retrieved subgraph's entities and :func:`with_source_text` appends their text to the
retrieved node, in the layout of LlamaIndex's own sub-retrievers (preamble, graph text, chunk
text). LlamaIndex's ``BasePGRetriever.add_source_text`` cannot be reused: it maps one
retrieved node to one source chunk, and a G-Retriever subgraph spans several.

Example
-------
>>> from llama_index.core.graph_stores import SimplePropertyGraphStore
>>> from llama_index.core.graph_stores.types import ChunkNode, EntityNode
>>> store = SimplePropertyGraphStore()
>>> chunk = ChunkNode(text="Giant was directed by George Stevens.", id_="c1")
>>> store.upsert_nodes([chunk, EntityNode(name="Giant", properties={"triplet_source_id": "c1"})])
>>> [c.get_content() for c in source_chunks(store, [("Giant", "directed_by", "George Stevens")])]
['Giant was directed by George Stevens.']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from llama_index.core.graph_stores.types import TRIPLET_SOURCE_KEY, ChunkNode, PropertyGraphStore
from llama_index.core.indices.property_graph.sub_retrievers.base import DEFAULT_PREAMBLE
from llama_index.core.schema import BaseNode, NodeWithScore, TextNode

#: Source chunks appended to one retrieved subgraph at most (the prompt stays bounded).
MAX_SOURCE_CHUNKS = 5


def source_chunks(
    graph_store: PropertyGraphStore,
    triples: Iterable[Sequence[str]],
    limit: int = MAX_SOURCE_CHUNKS,
) -> list[TextNode]:
    """The text chunks the entities of ``triples`` were extracted from, first seen first.

    Entities are looked up by name in sorted order, so the chunks are the same in every run;
    a graph loaded from triples (no chunks) gives ``[]``.
    """
    names = sorted({str(name) for h, _r, t in triples for name in (h, t)})
    if not names or limit < 1:
        return []
    source_ids: list[str] = []
    for node in sorted(graph_store.get(ids=names), key=lambda n: str(n.id)):
        source = (getattr(node, "properties", None) or {}).get(TRIPLET_SOURCE_KEY)
        if isinstance(source, str) and source not in source_ids:
            source_ids.append(source)
    source_ids = source_ids[:limit]
    if not source_ids:
        return []
    # ``get_llama_nodes`` rebuilds chunks from their stored metadata and drops chunks stored
    # without it; the chunk's own text is all that is needed here.
    by_id = {str(n.id): n for n in graph_store.get(ids=source_ids) if isinstance(n, ChunkNode)}
    return [TextNode(id_=i, text=by_id[i].text) for i in source_ids if i in by_id]


def with_source_text(
    node: NodeWithScore, chunks: Sequence[BaseNode], preamble: str = DEFAULT_PREAMBLE
) -> NodeWithScore:
    """``node`` with the chunks' text after its graph text (unchanged without chunks)."""
    if not chunks:
        return node
    text = "\n\n".join(chunk.get_content() for chunk in chunks)
    inner = node.node
    copy = TextNode(
        id_=inner.node_id,
        text=f"{preamble}{inner.get_content()}\n\n{text}",
        metadata={**inner.metadata, "source_node_ids": [c.node_id for c in chunks]},
        excluded_llm_metadata_keys=[*inner.excluded_llm_metadata_keys, "source_node_ids"],
        excluded_embed_metadata_keys=[*inner.excluded_embed_metadata_keys, "source_node_ids"],
    )
    return NodeWithScore(node=copy, score=node.score)
