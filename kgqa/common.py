"""What the ``kgqa`` subcommands share: the graph and model options, and the missing-extra
message.

Example
-------
>>> missing_extra_message(ModuleNotFoundError("x", name="neo4j"))
"this command needs 'neo4j': pip install 'kg-retrievers[neo4j]'"
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from kgcore.exceptions import ConfigurationError
from kgcore.graph.store import GraphStore
from kgqa.door import check_bolt_uri

#: URL schemes that are not a graph ``--kg`` can read (Neo4j's browser / HTTP API ports).
WEB_SCHEMES = ("http://", "https://")


def check_kg_spec(spec: str) -> str:
    """``spec`` unchanged, unless it is a web address: Neo4j's HTTP port (7474) is not a graph,
    and read as a file name it would only fail later as a missing file.

    Example
    -------
    >>> check_kg_spec("bolt://localhost:7687")
    'bolt://localhost:7687'
    >>> try:
    ...     check_kg_spec("http://localhost:7474")
    ... except ConfigurationError as err:
    ...     print(str(err)[:59])
    --kg 'http://localhost:7474' is a web address, not a graph:
    """
    if spec.strip().lower().startswith(WEB_SCHEMES):
        raise ConfigurationError(
            f"--kg {spec!r} is a web address, not a graph: for a Neo4j server give its Bolt "
            "URI, bolt://HOST:7687 or neo4j://HOST:7687 (neo4j+s:// with TLS), not the "
            "browser's http(s):// address; otherwise a triple file path"
        )
    check_bolt_uri(spec)  # a port that is no number from 1 to 65535, no host
    return spec


def kg_argument(text: str) -> str:
    """The ``--kg`` option's ``argparse`` type: a web address is a usage error (exit 2) before
    anything loads.

    >>> kg_argument("kb.txt")
    'kb.txt'
    """
    try:
        return check_kg_spec(text)
    except ConfigurationError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def open_graph(spec: str | None, progress: bool = True) -> GraphStore:
    """A graph store for a triple file path or a Neo4j URI (a web address is refused)."""
    spec = spec or os.environ.get("KGQA_KG")
    if not spec:
        raise ConfigurationError("no knowledge graph: pass --kg PATH or set KGQA_KG")
    check_kg_spec(spec)
    try:
        from kgcore.graph.open import open_store  # Neo4j URIs and triple files
    except ImportError:
        from kgcore.graph.memory import InMemoryGraphStore

        return InMemoryGraphStore.from_file(spec, progress=progress)
    return open_store(spec, progress=progress)


#: Optional modules and the extra that installs each.
EXTRA_OF_MODULE = {
    "langchain": "langchain",
    "langchain_core": "langchain",
    "langchain_community": "local",
    "llama_index": "llamaindex",
    "llama_cpp": "local",
    "sentence_transformers": "embeddings",
    "torch": "embeddings",
    "neo4j": "neo4j",
    "matplotlib": "eval",
}


def missing_extra_message(err: ImportError) -> str:
    """What to install for a missing optional module.

    Example
    -------
    >>> missing_extra_message(ModuleNotFoundError("x", name="langchain_core.messages"))
    "this command needs 'langchain_core.messages': pip install 'kg-retrievers[langchain]'"
    """
    name = getattr(err, "name", None) or ""
    extra = EXTRA_OF_MODULE.get(name.split(".")[0])
    if extra is None:
        return f"a module is missing: {err}"
    return f"this command needs {name!r}: pip install 'kg-retrievers[{extra}]'"


def llm_for(spec: str, sampling: str, run_name_prefix: str = "fasttog") -> Any:
    """The kgcore LLM of ``--llm`` with the ``--sampling`` preset applied."""
    from langchain_fasttog.llm import LangChainLLM, SamplingPolicy
    from langchain_fasttog.models import paper_sampling, resolve_chat_model

    policy = paper_sampling(spec) if sampling == "paper" else SamplingPolicy()
    return LangChainLLM(resolve_chat_model(spec), run_name_prefix=run_name_prefix, sampling=policy)


def llm_timeout_argument(text: str) -> float:
    """The ``--llm-timeout`` option's ``argparse`` type: seconds in (0, 600], else a usage
    error (exit 2) before anything loads.

    >>> llm_timeout_argument("30")
    30.0
    >>> llm_timeout_argument("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: --llm-timeout must be a number of seconds in (0, 600], got '0'
    """
    from kgcore.llm.protocol.retry import MAX_LLM_TIMEOUT

    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not 0 < seconds <= MAX_LLM_TIMEOUT:  # NaN and inf fail here too
        raise argparse.ArgumentTypeError(
            f"--llm-timeout must be a number of seconds in (0, {MAX_LLM_TIMEOUT:g}], got {text!r}"
        )
    return seconds


def llm_retry(args: argparse.Namespace) -> Any:
    """The :class:`~kgcore.llm.protocol.RetryPolicy` of ``--llm-timeout`` (the default policy,
    with its deadline, when the option is absent)."""
    from kgcore.llm.protocol import DEFAULT_RETRY, RetryPolicy

    seconds = getattr(args, "llm_timeout", None)
    return DEFAULT_RETRY if seconds is None else RetryPolicy(timeout=seconds)


def add_llm_arguments(parser: argparse.ArgumentParser) -> None:
    """``--llm``, ``--sampling`` and ``--llm-timeout``, shared by the subcommands that run a
    model."""
    parser.add_argument(
        "--llm",
        default="local",
        help="local (Qwen2.5-Coder-1.5B) | local-small (SmolLM2-135M) | provider:model "
        "(LangChain's init_chat_model, e.g. openai:gpt-4o-mini) (default: %(default)s)",
    )
    parser.add_argument(
        "--sampling",
        choices=("paper", "model"),
        default="paper",
        help="paper: each step at the method's temperature (and, for local models, its token "
        "cap); model: the model's own settings (default: %(default)s)",
    )
    from kgcore.llm.protocol import DEFAULT_LLM_TIMEOUT

    parser.add_argument(
        "--llm-timeout",
        type=llm_timeout_argument,
        metavar="SECONDS",
        help="deadline of each model call, at most 600; a call past it is cut off (and "
        f"retried), a local model stops generating (default: {DEFAULT_LLM_TIMEOUT:g})",
    )


def preset_help() -> str:
    """The help of ``--preset`` (``kgqa ask`` and ``kgqa eval``), naming every preset.

    >>> "paper" in preset_help()
    True
    """
    from kgcore.methods.fasttog.presets import PRESETS

    return (
        f"FastToG preset, one of {', '.join(sorted(PRESETS))}: paper is the paper's FastToG as "
        "written (LLM choices, rho 0.5, one sentence per triple, none of this project's "
        "additions; docs/fasttog.md), metaqa the movie demonstrations; the options given "
        "override it (default: none, the project's defaults); G-Retriever's paper is the "
        "paper's retrieval alone, without the question's planned relation paths"
    )
