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

from pydantic import ConfigDict, Field, PrivateAttr, field_validator, model_validator

from kgcore.exceptions import ConfigurationError
from kgcore.methods.fasttog import FastToG, FastToGConfig
from langchain_fasttog.base import GraphField
from langchain_fasttog.embeddings import as_text_embedder
from langchain_fasttog.llm import SamplingPolicy

if TYPE_CHECKING:
    from kgcore.embeddings import TextEmbedder

CONFIG_FIELDS = FastToGConfig.setting_names()
#: Config fields and the step purposes they set when the user changes them.
_TEMPERATURE_FIELDS = {"prune_temperature": "prune", "reason_temperature": "reason"}
_MAX_TOKEN_FIELDS = {"prune_max_tokens": "prune", "reason_max_tokens": "reason"}


class FastToGFields(GraphField):
    """``graph``, ``config`` (or ``preset``), ``textualizer`` and ``embeddings``, and
    :meth:`engine` built from them.

    :class:`~kgcore.methods.fasttog.FastToGConfig` fields may be given directly
    (``FastToGRetriever(graph=g, llm=m, width=1, max_depth=1)``); they override ``config``'s.
    ``preset="paper"`` starts from the paper's FastToG
    (:meth:`~kgcore.methods.fasttog.FastToGConfig.paper`, the same as
    ``config=FastToGConfig.paper()``; fields given directly override it) and, unless
    ``sampling`` says otherwise, sends its temperatures and token caps with every call;
    ``preset="metaqa"`` gives the movie demonstrations. An unknown preset, or a preset with
    ``config``, is refused when the retriever or chain is built.
    Any other unknown keyword is refused. ``embeddings`` (a LangChain ``Embeddings`` or a
    kg-retrievers ``TextEmbedder``) ranks the first communities: with it, the default
    ``first_choice="auto"`` chooses them by similarity; without it, by the LLM (the paper's),
    and ``first_choice="similarity"`` uses the offline all-MiniLM-L6-v2 (the ``embeddings``
    extra).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    config: FastToGConfig = Field(default_factory=FastToGConfig)
    preset: str | None = None
    textualizer: Any = None
    embeddings: Any = None
    method: str = "fasttog"
    _default_embedder: Any = PrivateAttr(default=None)  # a SentenceTransformerEmbedder

    @field_validator("embeddings")
    @classmethod
    def _check_embeddings(cls, value: Any) -> Any:
        as_text_embedder(value)  # a clear error for anything else; the app's object is kept
        return value

    @model_validator(mode="before")
    @classmethod
    def _fold_config_fields(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        config = data.get("config")
        if isinstance(config, dict):  # a serialised config
            config = FastToGConfig(**config)
            data = {**data, "config": config}
        if config is not None and not isinstance(config, FastToGConfig):
            raise ConfigurationError(f"config must be a FastToGConfig, got {type(config).__name__}")
        preset = data.get("preset")
        if preset is not None:
            if config is not None:
                raise ConfigurationError(
                    f"give preset={preset!r} or config, not both: "
                    f"config=FastToGConfig.preset({preset!r}, ...) sets both"
                )
            if not isinstance(preset, str):
                raise ConfigurationError(f"preset must be a name, got {type(preset).__name__}")
            config = FastToGConfig.preset(preset)  # an unknown name lists the presets
            data = {**data, "config": config}
        if not any(k in data for k in CONFIG_FIELDS):
            return data
        data = dict(data)
        overrides = {k: data.pop(k) for k in CONFIG_FIELDS if k in data}
        data["config"] = (config or FastToGConfig()).with_overrides(**overrides)
        return data

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
        return FastToG(self.graph, self.config, self.textualizer, embedder=self.text_embedder())

    def text_embedder(self) -> TextEmbedder | None:
        """What ranks the first communities: ``embeddings`` (``first_choice="auto"`` then
        ranks by similarity), or else, under ``first_choice="similarity"``, the offline
        all-MiniLM-L6-v2, built once per retriever (an engine is built per call, and each
        would load the model again); ``None`` when nothing is ranked (``"auto"`` then asks the
        LLM)."""
        if self.embeddings is not None:
            return as_text_embedder(self.embeddings)
        if self.config.first_choice != "similarity":
            return None
        if self._default_embedder is None:
            # Imported here: the gretriever package takes about 0.5 s to import.
            from kgcore.embeddings import SentenceTransformerEmbedder

            self._default_embedder = SentenceTransformerEmbedder()
        return self._default_embedder
