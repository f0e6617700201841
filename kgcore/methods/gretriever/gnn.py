"""``gretriever-gnn`` for the evaluation harness: PCST retrieval, then the graph-prompted LLM.

The engine retrieves the question's subgraph with :class:`~kgcore.gretriever.GRetriever` (a
per-question graph such as ExplaGraphs' is small enough to be searched whole), turns it into a
PyG ``Data`` from the retriever's own embeddings, and answers with the checkpoint's model (GNN
graph token + frozen LLM). It asks the harness's chat model nothing: the answer comes from
the checkpoint's LLM. Loaded models are shared by every engine of the process (the harness
builds one engine per ExplaGraphs question).

Example
-------
.. code-block:: console

    $ kgqa eval --method gretriever-gnn --data explagraphs:test:50 --llm local-small \\
          --set checkpoint=models/gretriever-gnn/prompt-cpu/best.safetensors --out runs/
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kgcore.exceptions import ConfigurationError
from kgcore.graph.store import GraphStore
from kgcore.llm.protocol import Steps
from kgcore.methods.base import StepMethod
from kgcore.methods.result import MethodResult
from kgcore.validation import check_question

_MODELS: dict[tuple[str, str | None], Any] = {}
_MODELS_LOCK = threading.Lock()


def shared_model(checkpoint: str | Path, llm: str | None = None) -> Any:
    """The model of ``checkpoint``, loaded once per process."""
    from kgcore.gretriever.gnn.model import load_model

    key = (str(Path(checkpoint).resolve()), llm)
    with _MODELS_LOCK:
        if key not in _MODELS:
            _MODELS[key] = load_model(checkpoint, llm=llm)
        return _MODELS[key]


class GRetrieverGNNQA(StepMethod[MethodResult]):
    """Retrieve the PCST subgraph, answer with a trained graph prompt.

    Parameters
    ----------
    store : GraphStore
        The knowledge graph (or one question's graph).
    checkpoint : path
        A ``best.safetensors`` written by ``kgqa gretriever train``.
    llm : str, optional
        Another location of the checkpoint's LLM.
    model : GraphPromptModel, optional
        A loaded model to use instead of ``checkpoint``.
    embedder : TextEmbedder, optional
        Default: the offline all-MiniLM-L6-v2 (the embeddings the model was trained on).
    labels : sequence of str, optional
        Answer words read from the reply (default ExplaGraphs' ``support``/``counter``); an
        empty sequence, or a reply naming none, gives the reply itself as the answer.
    settings :
        PCST and region settings, as for ``gretriever``.
    """

    name = "gretriever-gnn"

    def __init__(
        self,
        store: GraphStore,
        checkpoint: str | Path | None = None,
        llm: str | None = None,
        model: Any = None,
        embedder: Any = None,
        labels: Sequence[str] | None = None,
        **settings: Any,
    ) -> None:
        if model is None and checkpoint is None:
            raise ConfigurationError(
                "gretriever-gnn needs a trained model: --set checkpoint=PATH/best.safetensors"
            )
        from kgcore.methods.gretriever.qa import GRetrieverQA

        # Reuse the text-prompted engine's retriever set-up (whole small graphs, regions of
        # large ones); its text format is the paper's, as the model was trained on.
        self._text_engine = GRetrieverQA(
            store, embedder=embedder, text_format="paper", max_graph_tokens=None, **settings
        )
        self.retriever = self._text_engine.retriever
        from kgcore.gretriever.gnn.labels import EXPLAGRAPHS_LABELS

        self.labels = tuple(EXPLAGRAPHS_LABELS if labels is None else labels)
        self.model = model if model is not None else shared_model(checkpoint, llm)  # type: ignore[arg-type]

    def answer(self, question: str, topic_entities: Sequence[str] | None = None) -> MethodResult:
        """Retrieve and answer ``question`` (no chat model involved)."""
        from kgcore.gretriever.gnn.graph_data import result_to_data
        from kgcore.gretriever.gnn.labels import UNPARSEABLE, parse_label
        from kgcore.gretriever.gnn.model import GraphPrompt

        question = check_question(question)
        started = time.perf_counter()
        retrieved = self.retriever.retrieve(question, topic_entities=topic_entities or None)
        data = result_to_data(retrieved, self.retriever.embedder, self.retriever.index)
        text = retrieved.textualize("paper")
        graph_seconds = time.perf_counter() - started
        llm_started = time.perf_counter()
        reply = self.model.generate([GraphPrompt(question, text, data)])[0]
        label = parse_label(reply, self.labels) if self.labels else UNPARSEABLE
        result = MethodResult(
            question=question,
            answer=label if label != UNPARSEABLE else reply.strip()[:200],
            method=self.name,
            llm_calls=1,
            graph_seconds=graph_seconds,
            llm_seconds=time.perf_counter() - llm_started,
            context=text,
        )
        result.extra.update(
            {"reply": reply[:200], "nodes": retrieved.num_nodes, "edges": retrieved.num_edges}
        )
        result.total_seconds = time.perf_counter() - started
        return result

    def steps(
        self, question: str, topic_entities: Sequence[str] | None = None
    ) -> Steps[MethodResult]:
        """A step generator that yields no request: the checkpoint's LLM answers."""
        return self.answer(question, topic_entities)
        yield  # pragma: no cover - makes this a generator
