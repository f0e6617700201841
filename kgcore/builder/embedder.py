"""Which sentence embedder a method gets: the one place FastToG's ``"auto"`` choices are
resolved, the same way for ``kgqa``, the evaluation harness and both adapters.

- Embeddings given (a kg-retrievers ``TextEmbedder``, a LangChain ``Embeddings`` or a
  LlamaIndex ``BaseEmbedding``): those.
- None given: the offline all-MiniLM-L6-v2 when the ``embeddings`` extra is installed (one per
  process, loaded at its first use), for G-Retriever always, for FastToG unless its config asks
  the LLM for both choices (``first_choice="llm", chain_choice="llm"``, the paper preset).
- FastToG without the extra: ``"auto"`` means the LLM chooses and ``topic_facts`` is off; a
  single :class:`EmbeddingsOffWarning` says so (once per process), and ``"similarity"`` is an
  error naming the extra.

Example
-------
>>> from kgcore.methods.fasttog import FastToGConfig
>>> fasttog_embedder(FastToGConfig.paper()) is None  # the LLM makes every choice
True
"""

from __future__ import annotations

import threading
import warnings
from typing import Any

from kgcore.builder.catalogue import MethodSpec
from kgcore.embeddings import (
    TextEmbedder,
    as_text_embedder,
    default_embedder,
    default_embedder_missing,
)
from kgcore.exceptions import ConfigurationError


class EmbeddingsOffWarning(UserWarning):
    """A method runs without sentence embeddings, so the settings that rank by them are off."""


_said: set[str] = set()
_said_lock = threading.Lock()


def warn_once(message: str) -> None:
    """Warn with ``message`` the first time this process meets it (an
    :class:`EmbeddingsOffWarning`)."""
    with _said_lock:
        if message in _said:
            return
        _said.add(message)
    warnings.warn(message, EmbeddingsOffWarning, stacklevel=3)


def fasttog_embedder(config: Any, embeddings: Any = None) -> TextEmbedder | None:
    """The embedder of a FastToG engine with ``config`` (module text): ``embeddings``, else
    the offline one unless the LLM makes both choices; ``None`` without the extra (warned)."""
    given = as_text_embedder(embeddings)
    if given is not None:
        return given
    choices = {"first_choice": config.first_choice, "chain_choice": config.chain_choice}
    if set(choices.values()) == {"llm"}:
        return None
    missing = default_embedder_missing()
    if missing is None:
        return default_embedder()
    forced = [name for name, choice in choices.items() if choice == "similarity"]
    if forced:
        raise ConfigurationError(
            f"{forced[0]}='similarity' ranks FastToG's communities with sentence embeddings: "
            f"{missing}; or pass embeddings=..., or set {forced[0]}=llm to choose them with "
            "the LLM"
        )
    off = [f"{name}='auto' asks the LLM" for name, choice in choices.items() if choice == "auto"]
    if config.topic_facts > 0:
        off.append(f"topic_facts={config.topic_facts} gives no topic facts")
    warn_once(
        f"FastToG has no sentence embeddings ({missing}), so {', '.join(off)}; pass "
        "embeddings=... (a LangChain Embeddings, a LlamaIndex BaseEmbedding or a "
        "kg-retrievers TextEmbedder) to rank by similarity"
    )
    return None


def method_embedder(spec: MethodSpec, folded: dict[str, Any], embeddings: Any) -> Any:
    """The embedder method ``spec`` gets from ``embeddings`` and its folded options (see the
    module text); embeddings given to a method that reads none are refused."""
    if spec.embeddings == "none":
        if embeddings is not None:
            raise ConfigurationError(f"method {spec.name!r} uses no embeddings")
        return None
    if spec.embeddings == "auto":
        return fasttog_embedder(folded["config"], embeddings)
    given = as_text_embedder(embeddings)
    return given if given is not None else default_embedder()
