"""The settings FastToG's chain and retriever share, and the engine they build from them.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> fields = FastToGFields(graph=InMemoryGraphStore.from_triples([("a", "r", "b")]))
>>> fields.engine().config.width
3
>>> paper = FastToGFields(graph=fields.graph, preset="paper", width=2)
>>> paper.config.first_choice, paper.config.width
('llm', 2)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import ConfigDict, Field, field_validator, model_validator

from kgcore.builder import build_method, fasttog_embedder
from kgcore.methods.fasttog import FastToG, FastToGConfig
from langchain_fasttog.base import GraphField
from langchain_fasttog.embeddings import as_text_embedder
from langchain_fasttog.llm import SamplingPolicy
from langchain_fasttog.method_config import fold_config

if TYPE_CHECKING:
    from kgcore.embeddings import TextEmbedder

#: Config fields and the step purposes they set when the user changes them.
_TEMPERATURE_FIELDS = {"prune_temperature": "prune", "reason_temperature": "reason"}
_MAX_TOKEN_FIELDS = {"prune_max_tokens": "prune", "reason_max_tokens": "reason"}


class FastToGFields(GraphField):
    """``graph``, ``config`` (or ``preset``), ``textualizer`` and ``embeddings``, and
    :meth:`engine` built from them by :func:`kgcore.builder.build_method`, as ``kgqa`` builds
    it.

    :class:`~kgcore.methods.fasttog.FastToGConfig` settings may be given directly
    (``FastToGRetriever(graph=g, llm=m, width=1, max_depth=1)``), dotted ones through a dict
    (``**{"paths.max_hops": 0}``); they override ``config``'s. ``preset="paper"`` starts from
    the paper's FastToG (:meth:`~kgcore.methods.fasttog.FastToGConfig.paper`, the same as
    ``config=FastToGConfig.paper()``; settings given directly override it) and, unless
    ``sampling`` says otherwise, sends its temperatures and token caps with every call;
    ``preset="metaqa"`` gives the movie demonstrations. An unknown preset, or a preset with
    ``config``, is refused when the retriever or chain is built. Any other unknown keyword is
    refused.

    ``embeddings`` (a LangChain ``Embeddings``, a LlamaIndex ``BaseEmbedding`` or a
    kg-retrievers ``TextEmbedder``) ranks communities and topic facts by similarity. Without
    it, the offline all-MiniLM-L6-v2 does when the ``embeddings`` extra is installed (as in
    ``kgqa``), so the default ``first_choice="auto"`` and ``topic_facts`` act the same in
    both; without the extra, ``"auto"`` asks the LLM and ``topic_facts`` is off, which one
    warning says when the object is built (:mod:`kgcore.builder.embedder`).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    config: FastToGConfig = Field(default_factory=FastToGConfig)
    preset: str | None = None
    textualizer: Any = None
    embeddings: Any = None
    method: str = "fasttog"

    @field_validator("embeddings")
    @classmethod
    def _check_embeddings(cls, value: Any) -> Any:
        as_text_embedder(value)  # a clear error for anything else; the app's object is kept
        return value

    @model_validator(mode="before")
    @classmethod
    def _fold_config_fields(cls, data: Any) -> Any:
        return fold_config(data, "fasttog")

    def model_post_init(self, context: Any) -> None:
        super().model_post_init(context)
        self.text_embedder()  # says now, once, which settings are off without embeddings

    def requested_sampling(self) -> SamplingPolicy:
        """Temperatures and token caps of the config fields the user changed from the defaults;
        with ``preset="paper"``, every step's (the paper's temperatures and output cap)."""
        if self.preset == "paper":
            return SamplingPolicy.paper(max_tokens=True)
        default = FastToGConfig()

        def changed(fields: dict[str, str]) -> frozenset[str]:
            return frozenset(
                purpose
                for name, purpose in fields.items()
                if getattr(self.config, name) != getattr(default, name)
            )

        return SamplingPolicy(
            temperature=changed(_TEMPERATURE_FIELDS), max_tokens=changed(_MAX_TOKEN_FIELDS)
        )

    def engine(self) -> FastToG:
        """The FastToG engine of these settings (built per call: engines hold per-run state)."""
        engine: FastToG = build_method(
            "fasttog",
            self.graph,
            embeddings=self.text_embedder(),
            options={"config": self.config, "textualizer": self.textualizer},
        )
        return engine

    def text_embedder(self) -> TextEmbedder | None:
        """What ranks by similarity (:func:`kgcore.builder.fasttog_embedder`): ``embeddings``,
        else the offline all-MiniLM-L6-v2 (one per process) unless the LLM makes both choices;
        ``None`` without the ``embeddings`` extra (``"auto"`` then asks the LLM)."""
        return fasttog_embedder(self.config, self.embeddings)
