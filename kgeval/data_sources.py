"""Where the benchmark data is read from, and how to get each benchmark.

The data folder holds one sub-folder per benchmark (``metaqa/``, ``pathquestion/``,
``webqsp_cwq/``, ``explagraphs/``, ``webnlg/``). It is, first found wins:

1. the folder given (``data_dir=``, ``kgqa eval --data-dir DIR``);
2. ``$KGQA_DATA``;
3. in a source checkout, ``../shared/data`` beside the project root;
4. installed from a wheel, the user data folder: ``$XDG_DATA_HOME/kg-retrievers/data``, else
   ``~/.local/share/kg-retrievers/data``.

Nothing is downloaded: :data:`BENCHMARKS` says where each benchmark comes from and which files
the loaders read, and :func:`missing_data_hint` puts that into the error a loader raises when a
file is missing.

Example
-------
>>> import os
>>> os.environ["KGQA_DATA"] = "/data/kgqa"
>>> str(default_data_dir())
'/data/kgqa'
>>> del os.environ["KGQA_DATA"]
"""

from __future__ import annotations

import os
from pathlib import Path

from kglocal.locations import repo_root

DATA_ENV = "KGQA_DATA"

#: Benchmark folder -> (its name, the files read there, where to get it).
BENCHMARKS: dict[str, tuple[str, str, str]] = {
    "metaqa": (
        "MetaQA",
        "kb.txt (head|relation|tail) and dev_1hop.txt, dev_2hop.txt, dev_3hop.txt "
        "(question with [topic]<TAB>answer1|answer2)",
        "https://github.com/yuyuz/MetaQA: kb.txt as it is, and the vanilla qa_*.txt question "
        "files (already in that form) renamed dev_<N>hop.txt",
    ),
    "pathquestion": (
        "PathQuestion",
        "kb_<SET>.txt (head|relation|tail) and dev_<SET>.jsonl ({question, answers, "
        "topic_entities}) for PQ-2H, PQ-3H, PQL-2H, PQL-3H",
        "https://github.com/zmtkeke/IRN (PathQuestion/): the KB files with '_' in names "
        "replaced by spaces, each question file converted to one JSON object a line",
    ),
    "webqsp_cwq": (
        "WebQSP / CWQ",
        "kb.txt (one evidence graph, head|relation|tail), dev_webqsp.jsonl and dev_cwq.jsonl",
        "questions from https://github.com/YaooXu/GoG, the evidence graph from the triples of "
        "https://github.com/Graph-COM/SubgraphRAG, GoG and https://github.com/cmavro/GNN-RAG",
    ),
    "explagraphs": (
        "ExplaGraphs",
        "explagraphs_gretriever_format.jsonl and split/{train,val,test}_indices.txt",
        "G-Retriever's preprocessing, https://github.com/XiaoxinHe/G-Retriever",
    ),
    "webnlg": (
        "WebNLG",
        "webnlg_en_v1.6_{train,dev,test}.jsonl ({triples, texts})",
        "WebNLG 2017 enriched v1.6 English, https://github.com/ThiagoCF05/webnlg",
    ),
}


def user_data_dir() -> Path:
    """The data folder of a wheel install: ``$XDG_DATA_HOME/kg-retrievers/data``, else
    ``~/.local/share/kg-retrievers/data``."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "kg-retrievers" / "data"


def checkout_data_dir() -> Path | None:
    """``../shared/data`` beside the source checkout this code runs from (None in a wheel)."""
    root = repo_root()
    return root.parent / "shared" / "data" if (root / "pyproject.toml").is_file() else None


def default_data_dir() -> Path:
    """The data folder when none is given: ``$KGQA_DATA``, the checkout's ``../shared/data``,
    else the user data folder (see the module doc)."""
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env)
    return checkout_data_dir() or user_data_dir()


def data_location() -> str:
    """One sentence on where data is read from here, for help texts and errors."""
    env = os.environ.get(DATA_ENV)
    where = f"${DATA_ENV} = {env}" if env else f"{default_data_dir()} (${DATA_ENV} is not set)"
    fallback = (
        "../shared/data beside the source checkout"
        if checkout_data_dir() is not None
        else "the user data folder"
    )
    return (
        f"the data folder is --data-dir DIR when given, else $KGQA_DATA, else {fallback}; "
        f"here: {where}"
    )


def missing_data_hint(benchmark: str) -> str:
    """What to do when a file of ``benchmark`` (a folder name of :data:`BENCHMARKS`) is missing.

    >>> print(missing_data_hint("metaqa").split(";")[0])
    put MetaQA into DIR/metaqa/ and pass --data-dir DIR or set KGQA_DATA=DIR
    """
    name, files, source = BENCHMARKS[benchmark]
    return (
        f"put {name} into DIR/{benchmark}/ and pass --data-dir DIR or set {DATA_ENV}=DIR; "
        f"{data_location()}; files read: {files}; get it from {source}"
    )
