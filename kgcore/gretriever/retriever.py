"""G-Retriever's retrieval: question -> prized graph -> Prize-Collecting Steiner Tree.

:class:`GRetriever` ties the pieces together. A small graph is searched whole, as in the paper.
On a large graph (or when topic entities are given) it first grows a candidate region through the
:class:`~kgcore.graph.store.GraphStore` protocol and runs PCST inside it, so it works on MetaQA's
134k triples and on remote stores.

Example
-------
>>> retriever = GRetriever.from_triples([           # doctest: +SKIP
...     ("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
...     ("Cleopatra", "release_year", "1963"),
... ])
>>> result = retriever.retrieve("who directed Cleopatra")   # doctest: +SKIP
>>> print(result.textualize("triples"))                     # doctest: +SKIP
(Cleopatra, directed_by, Joseph L. Mankiewicz)
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from kgcore.embeddings import TextEmbedder, default_embedder
from kgcore.exceptions import (
    ConfigurationError,
    EmbeddingError,
    EmptyGraphError,
    GraphStoreError,
    InvalidQuestionError,
)
from kgcore.graph.memory import InMemoryGraphStore
from kgcore.graph.store import GraphStore
from kgcore.gretriever.index import EmbeddedTexts, GraphIndex, default_cache_dir
from kgcore.gretriever.planned import PathPlanner, PlannedPaths
from kgcore.gretriever.prize_tree import retrieve_in_graph
from kgcore.gretriever.prizes import top_k_indices
from kgcore.gretriever.region import (
    NodeScorer,
    Region,
    cap_region_texts,
    expand_region,
    lexical_scores,
)
from kgcore.gretriever.result import GRetrieverResult
from kgcore.gretriever.settings import PCSTSettings, RegionSettings
from kgcore.gretriever.store_vectors import StoreVectors, vector_database
from kgcore.gretriever.text_cache import CachedEmbedder, TextVectorCache
from kgcore.gretriever.textgraph import EdgeTextMode, TextualGraph, check_edge_text_mode
from kgcore.linking import link_entities, names_in_question, partly_named, question_as_name
from kgcore.paths.settings import PathSettings
from kgcore.types import Triple

#: Texts embedded per step of :meth:`GRetriever.build_index` (the first one times the estimate).
BUILD_CHUNK = 512


def text_cache_dir(cache_dir: str | Path) -> Path:
    """Folder of the per-text embedding cache (``"default"``: ``.kgcache/gretriever/texts``)."""
    return (default_cache_dir() if cache_dir == "default" else Path(cache_dir)) / "texts"


class GRetriever:
    """Retrieve the subgraph most relevant to a question as a Prize-Collecting Steiner Tree.

    Parameters
    ----------
    index : GraphIndex, optional
        Embeddings of the whole graph. Without it, ``store`` is required and every region is
        embedded when searched (at most ``RegionSettings.max_region_texts`` texts a question).
    store : GraphStore, optional
        Where candidate regions are read from. Default: an in-memory store of ``index``'s graph.
    embedder : TextEmbedder, optional
        Embeds questions (and region texts missing from the index). Default: the index's.
    pcst : PCSTSettings
        ``k_nodes``, ``k_edges``, ``edge_cost`` (paper defaults 3, 5, 0.5).
    region : RegionSettings
        Candidate-region settings for large graphs.
    edge_text : {"relation", "triple"}
        Edge texts of a store-only retriever (an index fixes its own).
    paths : PathSettings, optional
        Prize the question's planned relation path (:mod:`kgcore.gretriever.planned`).
    """

    def __init__(
        self,
        index: GraphIndex | None = None,
        store: GraphStore | None = None,
        embedder: TextEmbedder | None = None,
        pcst: PCSTSettings | None = None,
        region: RegionSettings | None = None,
        edge_text: EdgeTextMode = "relation",
        paths: PathSettings | None = None,
    ) -> None:
        if index is None and store is None:
            raise ConfigurationError("GRetriever needs a GraphIndex, a GraphStore, or both")
        if index is not None:
            index.graph.require_nonempty()
        self.index = index
        self._store = store
        self.embedder = embedder if embedder is not None else (index.embedder if index else None)
        if self.embedder is None:
            raise EmbeddingError("GRetriever needs an embedder for the questions")
        database = vector_database(store) if index is None else None
        if database is not None and not isinstance(self.embedder, StoreVectors):
            # A graph database holds the vectors (write_embeddings): read them per region.
            base = getattr(self.embedder, "uncached", self.embedder)
            self.embedder = StoreVectors(database, base)
        self.pcst = pcst or PCSTSettings()
        self.region = region or RegionSettings()
        self.paths = paths
        self._planner: PathPlanner | None = None
        self.edge_text: EdgeTextMode = index.edge_text if index is not None else edge_text
        self._fresh: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()
        self._triples: list[tuple[str, str, str]] | None = None

    @classmethod
    def from_triples(
        cls,
        triples: Iterable[Sequence[str]],
        embedder: TextEmbedder | None = None,
        edge_text: EdgeTextMode = "relation",
        cache_dir: str | Path | None = "default",
        progress: bool = True,
        pcst: PCSTSettings | None = None,
        region: RegionSettings | None = None,
        paths: PathSettings | None = None,
    ) -> GRetriever:
        """Index ``(head, relation, tail)`` triples (embeddings cached) and wrap them."""
        graph = TextualGraph.from_triples(triples)
        if graph.num_nodes == 0:
            raise EmptyGraphError("no triples were given: nothing to retrieve from")
        index = GraphIndex.build(graph, embedder, edge_text, cache_dir, progress)
        return cls(index, pcst=pcst, region=region, paths=paths)

    @classmethod
    def lazy(
        cls,
        graph: GraphStore | Iterable[Sequence[str]],
        embedder: TextEmbedder | None = None,
        edge_text: EdgeTextMode = "relation",
        cache_dir: str | Path | None = "default",
        pcst: PCSTSettings | None = None,
        region: RegionSettings | None = None,
        paths: PathSettings | None = None,
    ) -> GRetriever:
        """A retriever that embeds only what questions reach, cached by text as it goes.

        Each question embeds the texts of its candidate region (its topic entities'
        neighbourhood) that no earlier question embedded; the vectors are kept in a
        :class:`~kgcore.gretriever.text_cache.TextVectorCache` under ``cache_dir``, so the cache
        grows with use and later runs reuse it. :meth:`build_index` embeds everything up front.
        On a graph database (a Neo4j store) the vectors are the database's
        (:mod:`kgcore.gretriever.store_vectors`): a region's are read in one query, and only
        texts without one are embedded here.

        Parameters
        ----------
        graph : GraphStore or iterable of triples
            The knowledge graph.
        embedder : TextEmbedder, optional
            Default: the offline all-MiniLM-L6-v2.
        edge_text, pcst, region, paths :
            As for :class:`GRetriever`.
        cache_dir : path, "default" or None
            Root of the embedding cache (``None``: memory only).

        Example
        -------
        >>> retriever = GRetriever.lazy([("Cleopatra", "directed_by", "J. Mankiewicz")])
        ... # doctest: +SKIP
        >>> retriever.retrieve("who directed Cleopatra", topic_entities=["Cleopatra"])
        ... # doctest: +SKIP
        """
        check_edge_text_mode(edge_text)
        triples: list[tuple[str, str, str]] | None = None
        if isinstance(graph, GraphStore):
            store = graph
        else:
            triples = [(str(h), str(r), str(t)) for h, r, t in graph]
            if not triples:
                raise EmptyGraphError("no triples were given: nothing to retrieve from")
            store = InMemoryGraphStore.from_triples(triples)
        base = embedder if embedder is not None else default_embedder()
        if cache_dir is not None and vector_database(store) is None:
            # In memory, the file cache; a graph database keeps the vectors itself.
            base = CachedEmbedder(base, TextVectorCache(text_cache_dir(cache_dir), base.model_id))
        retriever = cls(
            store=store, embedder=base, pcst=pcst, region=region, edge_text=edge_text, paths=paths
        )
        retriever._triples = triples
        return retriever

    def _all_triples(self) -> list[tuple[str, str, str]]:
        if self._triples is not None:
            return self._triples
        if self.index is not None:
            return [tuple(t) for t in self.index.graph.triples()]  # type: ignore[misc]
        store = self.store
        if isinstance(store, InMemoryGraphStore):
            return [(h, r, t) for h, t, r in store.graph.edges(keys=True)]
        raise ConfigurationError(
            f"build_index needs every triple; a {type(store).__name__} does not list them: "
            "build the retriever from triples, or give questions topic entities"
        )

    def build_index(self, progress: bool = True) -> GraphIndex:
        """Embed every node and edge text of the graph now (cached), and search with the index.

        Texts already in the cache are not embedded again. With ``progress``, the number of
        texts to embed and an estimate of the time (from the first chunk) are printed to
        stderr, then a progress bar with the rate and the time left.
        """
        if self.index is not None:
            return self.index
        assert self.embedder is not None
        graph = TextualGraph.from_triples(self._all_triples())
        graph.require_nonempty()
        node_unique, node_rows = EmbeddedTexts.dedupe(graph.node_texts)
        edge_unique, edge_rows = EmbeddedTexts.dedupe(graph.edge_texts(self.edge_text))
        texts = list(dict.fromkeys((*node_unique, *edge_unique)))
        cache = getattr(self.embedder, "cache", None)
        missing = texts
        if isinstance(cache, TextVectorCache):
            missing = [texts[i] for i in cache.lookup(texts)[1]]
        with tqdm(
            total=len(missing), unit="text", desc="embedding", disable=not progress or not missing
        ) as bar:
            if missing:  # the first text loads the model: kept out of the timed estimate
                self.embedder.embed(missing[:1])
                bar.update(1)
            for start in range(1, len(missing), BUILD_CHUNK):
                chunk = missing[start : start + BUILD_CHUNK]
                began = time.perf_counter()
                self.embedder.embed(chunk)
                if start == 1 and progress and len(missing) > len(chunk) + 1:
                    rate = len(chunk) / max(time.perf_counter() - began, 1e-6)
                    bar.write(
                        f"embedding {len(missing):,} of {len(texts):,} texts "
                        f"(the rest are cached): about {len(missing) / rate / 60:.1f} min "
                        f"at {rate:.0f} texts/s",
                        file=sys.stderr,
                    )
                bar.update(len(chunk))
        vectors = np.asarray(self.embedder.embed(texts), dtype=np.float32)
        row_of = {t: i for i, t in enumerate(texts)}
        nodes = EmbeddedTexts(node_unique, vectors[[row_of[t] for t in node_unique]], node_rows)
        edges = EmbeddedTexts(edge_unique, vectors[[row_of[t] for t in edge_unique]], edge_rows)
        with self._lock:
            self.index = GraphIndex(graph, nodes, edges, self.edge_text, self.embedder)
        return self.index

    @property
    def store(self) -> GraphStore:
        """The store regions are read from (built from the index on first use)."""
        if self._store is None:
            assert self.index is not None
            self._store = InMemoryGraphStore.from_triples(self.index.graph.triples())
        return self._store

    # -- embeddings --------------------------------------------------------------------
    def embed_question(self, question: str) -> np.ndarray:
        """Unit-norm embedding of the question."""
        if not isinstance(question, str) or not question.strip():
            raise InvalidQuestionError("the question must be a non-empty string")
        assert self.embedder is not None
        # A cached embedder's inner model: questions are one-off texts, kept out of the cache.
        embedder = getattr(self.embedder, "uncached", self.embedder)
        vector = np.asarray(embedder.embed([question]), dtype=np.float32)
        if vector.ndim != 2 or vector.shape[0] != 1:
            raise EmbeddingError(f"the embedder returned shape {vector.shape} for one question")
        if self.index is not None and vector.shape[1] != self.index.dimension:
            raise EmbeddingError(
                f"question embedding has {vector.shape[1]} dimensions, the index "
                f"{self.index.dimension}: embed both with the same model"
            )
        return vector[0]

    def _similarity(
        self, table: EmbeddedTexts | None, texts: Sequence[str], query: np.ndarray
    ) -> np.ndarray:
        """Cosine similarity of ``texts`` to ``query``: index rows, else embedded (memoised)."""
        sims = np.zeros(len(texts), dtype=np.float32)
        missing: list[int] = []
        if table is not None:
            table_sims = table.vectors @ query
            for i, text in enumerate(texts):
                row = table.row_of(text)
                if row is None:
                    missing.append(i)
                else:
                    sims[i] = table_sims[row]
        else:
            missing = list(range(len(texts)))
        if missing:
            with self._lock:
                new = list(dict.fromkeys(texts[i] for i in missing if texts[i] not in self._fresh))
            if new:  # embedded without the lock: other questions go on meanwhile
                assert self.embedder is not None
                fresh = EmbeddedTexts.embed(new, self.embedder)
                with self._lock:
                    self._fresh.update(zip(new, fresh.vectors[fresh.rows], strict=True))
            with self._lock:
                vectors = np.stack([self._fresh[texts[i]] for i in missing])
            sims[missing] = vectors @ query
        return sims

    # -- retrieval ---------------------------------------------------------------------
    def retrieve(
        self,
        question: str,
        topic_entities: Sequence[str] | None = None,
        hops: int | None = None,
        query_vector: np.ndarray | None = None,
    ) -> GRetrieverResult:
        """The PCST subgraph for ``question``.

        Parameters
        ----------
        question : str
            The question (its embedding sets the prizes).
        topic_entities : sequence of str, optional
            Seeds of the candidate region (linked to graph nodes by exact or fuzzy name).
            When given, the search is restricted to their region even on a small graph.
            Without them, a graph that is not searched whole is seeded as
            :meth:`question_topics` says: the node names the question writes, else (with
            no index or vector index to seed by similarity) the question read as one name by
            the strict rules, an :class:`~kgcore.exceptions.EntityNotFoundError` naming the
            closest names when it is none.
        hops : int, optional
            Overrides :attr:`RegionSettings.hops` for this question.
        query_vector : numpy.ndarray, optional
            The question's unit-norm embedding, when already computed (e.g. for a batch).
        """
        if query_vector is None:
            query = self.embed_question(question)
        else:
            query = np.asarray(query_vector, dtype=np.float32).reshape(-1)
            if self.index is not None and query.shape[0] != self.index.dimension:
                raise EmbeddingError(
                    f"query_vector has {query.shape[0]} dimensions, "
                    f"the index {self.index.dimension}"
                )
        if not topic_entities and self.index is None and self._small_listable_graph():
            self.build_index(progress=False)  # a small graph: embedding all of it is cheap
        if not topic_entities:
            topic_entities = self.question_topics(question) or None
        use_region = (
            bool(topic_entities)
            or self.index is None
            or (self.index.graph.num_nodes > self.region.whole_graph_max_nodes)
        )
        if not use_region:
            assert self.index is not None
            return self.search(
                self.index.graph,
                self.index.node_similarity(query),
                self.index.edge_similarity(query),
                question,
            )
        seeds = self._seeds(query, topic_entities)
        planned = self._plan(question, seeds)
        node_table = self.index.nodes if self.index is not None else None
        edge_table = self.index.edges if self.index is not None else None
        region = self._region(
            question, seeds, hops, lambda names: self._similarity(node_table, names, query)
        )
        graph = TextualGraph.from_triples([*region.triples, *planned.facts], nodes=region.nodes)
        return self.search(
            graph,
            self._similarity(node_table, graph.node_texts, query),
            self._similarity(edge_table, graph.edge_texts(self.edge_text), query),
            question,
            seeds=region.seeds,
            bonus=planned.prizes(graph) if planned.facts else None,
        ).with_planned(planned.answers)

    def _plan(self, question: str, seeds: Sequence[str]) -> PlannedPaths:
        if self.paths is None or not seeds:
            return PlannedPaths()
        if self._planner is None:
            assert self.embedder is not None
            self._planner = PathPlanner(self.paths, self.embedder.embed)
        return self._planner.plan(self.store, question, seeds)

    def _region(
        self, question: str, seeds: Sequence[str], hops: int | None, similarity: NodeScorer
    ) -> Region:
        """The candidate region around ``seeds``: scored by the index's vectors, or, without
        an index, by the cheap lexical score and cut to ``max_region_texts`` texts."""
        settings = self.region
        hops = settings.hops if hops is None else hops
        if self.index is not None:  # every text has its vector already: nothing to embed
            return expand_region(
                self.store, seeds, hops, settings.max_nodes, settings.neighbor_limit, similarity
            )

        def lexical(names: Sequence[str]) -> np.ndarray:
            return lexical_scores(question, names)

        region = expand_region(
            self.store,
            seeds,
            hops,
            min(settings.max_nodes, settings.max_region_texts),
            settings.neighbor_limit,
            lexical,
        )
        return cap_region_texts(region, settings.max_region_texts, self._edge_text, lexical)

    def _edge_text(self, triple: Triple) -> str:
        """The text an edge is embedded as (as :meth:`TextualGraph.edge_texts` writes it)."""
        if self.edge_text == "relation":
            return triple.relation
        return f"{triple.head} {triple.relation} {triple.tail}"

    def searches_whole_graph(self) -> bool:
        """Whether a question without topic entities is searched over the whole graph: an
        index of at most ``whole_graph_max_nodes`` nodes, or a graph that small whose triples
        can be listed (embedded whole on the first such question)."""
        if self.index is not None:
            return self.index.graph.num_nodes <= self.region.whole_graph_max_nodes
        return self._small_listable_graph()

    def seeds_by_similarity(self) -> bool:
        """Whether a region can be seeded by the question's embedding alone (an index, or a
        graph database holding the vectors), without topic entities."""
        return self.index is not None or vector_database(self._store) is not None

    def question_topics(self, question: str) -> list[str]:
        """The topic entities of a question given none, for a graph not searched whole.

        The node names the question writes as the graph spells them
        (:func:`~kgcore.linking.names_in_question`: ``Ruggero Raimondi``, ``who starred in
        Giant``); else, when no index or vector index can seed the region by similarity, the
        whole question as one name (:func:`~kgcore.linking.question_as_name`), which linking
        matches by the strict rules (case, punctuation, then the strict fuzzy rule) or refuses
        with :class:`~kgcore.exceptions.EntityNotFoundError` naming the closest names. ``[]``
        for a graph searched whole (the paper's G-Retriever needs no topic entity). No model
        is asked: a method with one extracts names first
        (:class:`~kgcore.methods.gretriever.qa.GRetrieverQA`).
        """
        if self.searches_whole_graph():
            return []
        names = names_in_question(self.store, question)
        if names and partly_named(question, names):  # "Cleopatre 1963": not the year alone
            return [question_as_name(question)]
        if names or self.seeds_by_similarity():
            return names
        name = question_as_name(question)
        return [name] if name else []

    def _small_listable_graph(self) -> bool:
        listable = self._triples is not None or isinstance(self._store, InMemoryGraphStore)
        return listable and self.store.num_nodes() <= self.region.whole_graph_max_nodes

    def _seeds(self, query: np.ndarray, topic_entities: Sequence[str] | None) -> list[str]:
        if topic_entities:
            return link_entities(self.store, list(topic_entities))
        database = vector_database(self._store) if self.index is None else None
        if database is not None:
            try:  # the database's vector index: the whole graph, searched on the server
                nearest = database.nearest_nodes(query.tolist(), self.region.num_seeds * 4)
            except GraphStoreError as err:
                raise ConfigurationError(
                    f"questions without topic entities need the vector index: {err}"
                ) from err
            seeds = [name for name, _ in nearest if self.store.has_node(name)]
            return seeds[: self.region.num_seeds]
        if self.index is None:  # question_topics names a topic whenever this could happen
            raise ConfigurationError(
                "this retriever embeds lazily and needs topic entities to seed a question's "
                "region: pass topic_entities=..., or call build_index() to embed the whole graph"
            )
        best = top_k_indices(self.index.node_similarity(query), self.region.num_seeds)
        return [self.index.graph.node_texts[i] for i in best]

    def search(
        self,
        graph: TextualGraph,
        node_similarity: np.ndarray,
        edge_similarity: np.ndarray,
        question: str = "",
        seeds: Sequence[str] = (),
        bonus: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> GRetrieverResult:
        """The paper's prizes (plus ``bonus``'s) and PCST on ``graph`` with these settings."""
        return retrieve_in_graph(
            graph, node_similarity, edge_similarity, self.pcst, question, seeds, bonus
        )
