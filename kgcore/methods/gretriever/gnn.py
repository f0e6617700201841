"""``gretriever-gnn`` for the evaluation harness: PCST retrieval, then the trained GNN.

A checkpoint's metadata say which G-Retriever it is (:func:`gretriever_gnn` builds the engine
for it): a graph prompt (GNN graph token + frozen LLM, :class:`GRetrieverGNNQA`, e.g. the
ExplaGraphs checkpoints) or an answer-node scorer (the GNN scores the subgraph's nodes and its
best is the answer, :class:`~kgcore.methods.gretriever.scorer.GRetrieverScorerQA`, e.g.
``models/gretriever-gnn/pq-scorer``). Neither asks the harness's chat model anything, so
``kgqa eval`` loads none for them.

The graph-prompt engine retrieves the question's subgraph with
:class:`~kgcore.gretriever.GRetriever` (a per-question graph such as ExplaGraphs' is small
enough to be searched whole), turns it into a PyG ``Data`` from the retriever's own embeddings,
and answers with the checkpoint's model (GNN graph token + frozen LLM): the answer comes from
the checkpoint's LLM. Loaded models are shared by every engine of the process (the harness
builds one engine per ExplaGraphs question).

Example
-------
.. code-block:: console

    $ kgqa eval --method gretriever-gnn --data explagraphs:test:50 \\
          --set checkpoint=models/gretriever-gnn/prompt-cpu/best.safetensors --out runs/
    $ kgqa eval --method gretriever-gnn --data pathquestion:PQ-3H:50 --out runs/ \\
          --set checkpoint=models/gretriever-gnn/pq-scorer/best.safetensors
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


#: Options only the node-scorer engine takes, and only the graph-prompt engine takes.
SCORER_ONLY = ("subgraph", "seed", "scorer")
PROMPT_ONLY = ("llm", "labels", "model")


def gretriever_gnn(store: GraphStore, **options: Any) -> StepMethod[MethodResult]:
    """The ``gretriever-gnn`` engine of a checkpoint, by the ``format`` its metadata name.

    ``model=`` (a loaded graph prompt) or ``scorer=`` (a loaded node scorer) skip the file.
    Anything but a graph-prompt or node-scorer checkpoint is a
    :class:`~kgcore.exceptions.ConfigurationError` naming the two formats expected.
    """
    from kgcore.gretriever.gnn.model import CHECKPOINT_FORMAT
    from kgcore.gretriever.gnn.node_scorer import SCORER_FORMAT, checkpoint_format

    checkpoint = options.get("checkpoint")
    if options.get("scorer") is not None:
        kind = SCORER_FORMAT
    elif options.get("model") is not None or checkpoint is None:
        kind = CHECKPOINT_FORMAT  # GRetrieverGNNQA names what is missing
    else:
        kind = checkpoint_format(checkpoint)
    if kind == SCORER_FORMAT:
        _refuse(options, PROMPT_ONLY, "a node-scorer checkpoint")
        from kgcore.methods.gretriever.scorer import GRetrieverScorerQA

        return GRetrieverScorerQA(store, **options)
    if kind == CHECKPOINT_FORMAT:
        _refuse(options, SCORER_ONLY, "a graph-prompt checkpoint")
        return GRetrieverGNNQA(store, **options)
    raise ConfigurationError(
        f"{checkpoint} is not a gretriever-gnn checkpoint (format {kind or 'missing'!r}): "
        f"expected a graph prompt ({CHECKPOINT_FORMAT!r}) or a node scorer ({SCORER_FORMAT!r})"
    )


def _refuse(options: dict[str, Any], names: Sequence[str], kind: str) -> None:
    given = sorted(n for n in names if n in options)
    if given:
        raise ConfigurationError(f"gretriever-gnn with {kind} takes no {', '.join(given)}")


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
            store,
            embedder=embedder,
            text_format="paper",
            max_graph_tokens=None,
            preset="paper",  # the paper's retrieval, the subgraphs the model was trained on
            **settings,
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
