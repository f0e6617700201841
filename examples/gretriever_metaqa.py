"""Answer a MetaQA question with G-Retriever in a LlamaIndex ``RetrieverQueryEngine``.

The MetaQA knowledge graph (134k triples) is indexed once (node and relation embeddings from the
offline all-MiniLM-L6-v2, cached under ``.kgcache/``); the question's topic entity (in brackets)
seeds a candidate region, PCST picks the subgraph, and the local Qwen2.5-Coder-1.5B GGUF answers
through llama-index's ``LlamaCPP`` with its ChatML template.

Usage::

    python examples/gretriever_metaqa.py
    python examples/gretriever_metaqa.py --question "who directed [Cleopatra]" --hops 1
    python examples/gretriever_metaqa.py --dev 1:3     # the 3rd question of dev_1hop.txt
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from llama_index.core import PromptTemplate
from llama_index.core.query_engine import RetrieverQueryEngine

from kgcore.evaluation.datasets import default_data_dir
from kgcore.graph import InMemoryGraphStore, read_triples
from kgcore.gretriever import (
    GraphIndex,
    GRetriever,
    PCSTSettings,
    RegionSettings,
    TextualGraph,
    bracketed_entities,
)
from llamaindex_gretriever import GRetrieverRetriever, build_llamacpp_llm

QA_PROMPT = PromptTemplate(
    "Here is a part of a movie knowledge graph, one (head, relation, tail) triple per line:\n"
    "{context_str}\n\n"
    "Using only these facts, answer the question. Reply with the answer names only, "
    "separated by commas.\nQuestion: {query_str}\nAnswer: "
)
DEFAULT_QUESTION = "what movies did [Joseph L. Mankiewicz] direct"


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
    parser.add_argument("--threads", type=int, default=2)
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
    index = GraphIndex.build(TextualGraph.from_triples(triples), progress=True)
    core = GRetriever(
        index,
        store=InMemoryGraphStore.from_triples(triples),
        pcst=PCSTSettings(),
        region=RegionSettings(hops=args.hops),
    )
    retriever = GRetrieverRetriever(
        core, text_format="triples", entity_extractor=bracketed_entities
    )
    print(
        f"indexed {index.graph.num_nodes} nodes and {index.graph.num_edges} edges "
        f"in {time.perf_counter() - started:.1f} s"
    )

    llm = build_llamacpp_llm(max_new_tokens=64, context_window=4096, n_threads=args.threads)
    engine = RetrieverQueryEngine.from_args(retriever, llm=llm, text_qa_template=QA_PROMPT)
    started = time.perf_counter()
    response = engine.query(args.question)
    meta = response.source_nodes[0].node.metadata
    print(f"question: {args.question}")
    print(
        f"subgraph: {len(meta['nodes'])} of {meta['searched_nodes']} region nodes, "
        f"{len(meta['triples'])} triples, PCST objective {meta['objective']:.2f}"
    )
    print(response.source_nodes[0].node.text)
    print(f"answer: {str(response).strip()}  ({time.perf_counter() - started:.1f} s)")
    if gold is not None:
        print(f"gold answers: {gold.replace('|', ', ')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
