"""G-Retriever's graph-token answer inside LlamaIndex: a response synthesizer for query engines.

:class:`GraphPromptSynthesizer` reads the subgraph a :class:`GRetrieverRetriever` returned (the
node's text is the textualised graph; its metadata holds the node texts and triples), rebuilds
the PyG ``Data`` from the retriever's own embeddings, and answers with a trained
:class:`~kgcore.gretriever.gnn.GraphPromptModel`: the GNN's graph token, then the text, then
the question, into the frozen LLM. Hand it to ``RetrieverQueryEngine``:

Example
-------
>>> from llama_index.core.query_engine import RetrieverQueryEngine
>>> from kgcore.gretriever.gnn import load_model
>>> model = load_model("models/gretriever-gnn/prompt-cpu/best.safetensors")  # doctest: +SKIP
>>> engine = RetrieverQueryEngine(                                           # doctest: +SKIP
...     retriever=retriever, response_synthesizer=GraphPromptSynthesizer(model, retriever))
>>> engine.query("Argument 1: ... Question: support or counter?").response  # doctest: +SKIP
'support'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llama_index.core.base.response.schema import RESPONSE_TYPE, Response
from llama_index.core.callbacks import CBEventType, EventPayload
from llama_index.core.prompts.mixin import PromptDictType
from llama_index.core.response_synthesizers.base import BaseSynthesizer
from llama_index.core.schema import NodeWithScore, QueryBundle, QueryType

from kgcore.concurrency import run_graph_work
from kgcore.exceptions import ConfigurationError
from kgcore.gretriever.gnn.graph_data import VectorLookup, textual_graph_to_data
from kgcore.gretriever.gnn.labels import UNPARSEABLE, parse_label
from kgcore.gretriever.gnn.model import GraphPrompt, GraphPromptModel
from kgcore.gretriever.textgraph import TextualGraph
from llamaindex_gretriever.retriever import GRetrieverRetriever


def node_to_prompt(node: NodeWithScore, question: str, lookup: VectorLookup) -> GraphPrompt:
    """A graph prompt from a G-Retriever node: its text, and ``Data`` from its metadata.

    A node without G-Retriever metadata (no ``triples``) gives a prompt with text only.
    """
    metadata = node.node.metadata or {}
    text = node.node.get_content()
    triples = metadata.get("triples")
    if not isinstance(triples, list) or not triples:
        return GraphPrompt(question, text, None)
    nodes = [str(n) for n in metadata.get("nodes", [])]
    graph = TextualGraph.from_triples([tuple(str(x) for x in t) for t in triples], nodes=nodes)
    return GraphPrompt(question, text, textual_graph_to_data(graph, lookup))


class GraphPromptSynthesizer(BaseSynthesizer):
    """Answer from retrieved G-Retriever subgraphs with a GNN graph token and a frozen LLM.

    Parameters
    ----------
    model : GraphPromptModel
        A trained model (see ``kgqa gretriever train``) or an inference-only one.
    retriever : GRetrieverRetriever, optional
        Whose embeddings build the node and edge features (and embed missing texts); without
        it, ``embedder`` must be given.
    embedder : TextEmbedder, optional
        Embeds node and edge texts when no retriever is given.
    labels : sequence of str, optional
        Words to read the answer as (e.g. ``("support", "counter")``); default: the reply.
    """

    def __init__(
        self,
        model: GraphPromptModel,
        retriever: GRetrieverRetriever | None = None,
        embedder: Any = None,
        labels: Sequence[str] = (),
        **kwargs: Any,
    ) -> None:
        super().__init__(llm=_placeholder_llm(), **kwargs)
        core = retriever.gretriever if retriever is not None else None
        index = core.index if core is not None else None
        embedder = embedder if embedder is not None else (core.embedder if core else None)
        if embedder is None and index is None:
            raise ConfigurationError(
                "GraphPromptSynthesizer needs a GRetrieverRetriever or an embedder"
            )
        self.model = model
        self.labels = tuple(labels)
        self._lookup = VectorLookup(
            embedder, (index.nodes, index.edges) if index is not None else ()
        )

    def _get_prompts(self) -> PromptDictType:
        return {}

    def _update_prompts(self, prompts: PromptDictType) -> None:
        return None

    def _answer(self, prompts: list[GraphPrompt]) -> tuple[str, str]:
        reply = self.model.generate(prompts[:1])[0] if prompts else ""
        if self.labels:
            label = parse_label(reply, self.labels)
            if label != UNPARSEABLE:
                return label, reply
        return reply.strip(), reply

    def answer_nodes(self, question: str, nodes: Sequence[NodeWithScore]) -> Response:
        """The answer to ``question`` from the first (best) retrieved subgraph."""
        prompts = [node_to_prompt(n, question, self._lookup) for n in nodes[:1]]
        answer, reply = self._answer(prompts)
        return Response(
            answer,
            source_nodes=list(nodes),
            metadata={
                "reply": reply,
                "graph_token": bool(prompts and prompts[0].data is not None),
                "mode": self.model.config.mode,
            },
        )

    def synthesize(
        self,
        query: QueryType,
        nodes: list[NodeWithScore],
        additional_source_nodes: Sequence[NodeWithScore] | None = None,
        **response_kwargs: Any,
    ) -> RESPONSE_TYPE:
        bundle = QueryBundle(query_str=query) if isinstance(query, str) else query
        assert isinstance(bundle, QueryBundle)
        with self._callback_manager.event(
            CBEventType.SYNTHESIZE, payload={EventPayload.QUERY_STR: bundle.query_str}
        ) as event:
            response = self.answer_nodes(bundle.query_str, nodes)
            response.source_nodes.extend(additional_source_nodes or [])
            event.on_end(payload={EventPayload.RESPONSE: response})
        return response

    async def asynthesize(
        self,
        query: QueryType,
        nodes: list[NodeWithScore],
        additional_source_nodes: Sequence[NodeWithScore] | None = None,
        **response_kwargs: Any,
    ) -> RESPONSE_TYPE:
        return await run_graph_work(
            self.synthesize, query, nodes, additional_source_nodes, **response_kwargs
        )

    def get_response(self, query_str: str, text_chunks: Sequence[str], **kwargs: Any) -> str:
        """Text-only answer (no graph token) from the first chunk, for callers passing text."""
        chunk = text_chunks[0] if text_chunks else ""
        return self._answer([GraphPrompt(query_str, chunk, None)])[0]

    async def aget_response(self, query_str: str, text_chunks: Sequence[str], **kwargs: Any) -> str:
        return await run_graph_work(self.get_response, query_str, text_chunks)


def _placeholder_llm() -> Any:
    """A placeholder LLM so ``BaseSynthesizer`` does not resolve a default (OpenAI) one."""
    from llama_index.core.llms.mock import MockLLM

    return MockLLM()


def graph_prompt_query_engine(
    retriever: GRetrieverRetriever, model: GraphPromptModel, **kwargs: Any
) -> Any:
    """``RetrieverQueryEngine`` over ``retriever`` answering with ``model``'s graph token."""
    from llama_index.core.query_engine import RetrieverQueryEngine

    return RetrieverQueryEngine(
        retriever=retriever, response_synthesizer=GraphPromptSynthesizer(model, retriever, **kwargs)
    )
