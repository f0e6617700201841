"""Answer a MetaQA question with G-Retriever in a LlamaIndex ``RetrieverQueryEngine``.

The MetaQA knowledge graph (134k triples) is read into memory; the question's topic entity (in
brackets) seeds a candidate region whose node and relation texts are embedded on demand with the
offline all-MiniLM-L6-v2 (cached by text in the user cache, ``~/.cache/kg-retrievers/``, so the
cache grows with each question and a second run embeds nothing); PCST picks the subgraph, and the
local Qwen2.5-Coder-1.5B GGUF answers through llama-index's ``LlamaCPP`` (ChatML template) with the
package's graph-QA prompt. It prints the time from start to the first answer. ``--build-index``
embeds the whole graph first instead (minutes; with an estimate and a progress bar).

Usage::

    python examples/gretriever_metaqa.py
    python examples/gretriever_metaqa.py --question "who directed [Cleopatra]" --hops 1
    python examples/gretriever_metaqa.py --dev 1:3     # the 3rd question of dev_1hop.txt
    python examples/gretriever_metaqa.py --build-index # embed all 43k nodes up front
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from kgcore.graph import read_triples
from kgeval.datasets import default_data_dir
from llamaindex_gretriever import GRetrieverRetriever, build_llamacpp_llm, graph_query_engine

DEFAULT_QUESTION = "[Ruggero Raimondi] appears in which movies"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--question",
        default=DEFAULT_QUESTION,
        help="a question with its topic entity in [brackets]",
    )
    parser.add_argument(
        "--dev",
        metavar="HOP:N",
        help="ask the N-th question of dev_{HOP}hop.txt and show its gold answers",
    )
    parser.add_argument(
        "--hops",
        type=int,
        default=None,
        help="size of the candidate region (default: 1, or HOP with --dev)",
    )
    parser.add_argument(
        "--data", type=Path, default=default_data_dir(), help="the shared data folder (KGQA_DATA)"
    )
    parser.add_argument("--threads", type=int, default=2, help="llama.cpp threads")
    parser.add_argument(
        "--build-index", action="store_true", help="embed the whole graph before the question"
    )
    args = parser.parse_args(argv)
    gold = None
    if args.dev:
        hop, number = (int(x) for x in args.dev.split(":"))
        lines = (args.data / "metaqa" / f"dev_{hop}hop.txt").read_text(encoding="utf-8")
        args.question, gold, _ = lines.splitlines()[number - 1].split("\t")
        args.hops = args.hops or hop
    args.hops = args.hops or 1

    started = time.perf_counter()
    triples = list(read_triples(args.data / "metaqa" / "kb.txt", progress=False))
    retriever = GRetrieverRetriever.from_triples(
        triples, text_format="triples", path_depth=args.hops
    )
    if args.build_index:
        retriever.build_index()
    print(f"read {len(triples):,} triples in {time.perf_counter() - started:.1f} s")

    llm = build_llamacpp_llm(max_new_tokens=64, context_window=4096, n_threads=args.threads)
    engine = graph_query_engine(retriever, llm=llm)
    response = engine.query(args.question)
    meta = response.source_nodes[0].node.metadata
    print(f"question: {args.question}")
    print(
        f"subgraph: {len(meta['nodes'])} of {meta['searched_nodes']} region nodes, "
        f"{len(meta['triples'])} triples, PCST objective {meta['objective']:.2f}"
    )
    print(response.source_nodes[0].node.text)
    print(f"answer: {str(response).strip()}")
    print(f"first answer {time.perf_counter() - started:.1f} s after the start")
    if gold is not None:
        print(f"gold answers: {gold.replace('|', ', ')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
