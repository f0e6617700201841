"""Benchmark: does G-Retriever's subgraph still hold the answer, and how small is it?

* MetaQA ``dev_{1,2,3}hop`` (the tuning sample): the candidate region is the topic entity's
  k-hop neighbourhood (k = the question's hop count, at most ``--max-nodes`` nodes, the nodes most
  similar to the question kept); PCST picks the subgraph inside it. Recall: the share of
  questions whose subgraph contains at least one gold answer.
* ExplaGraphs test split (554 rows, G-Retriever's split): each row's explanation graph is
  searched whole with the question "arg1 arg2". Its gold "answer" is the explanation itself, so
  recall is the mean share of the explanation's triples kept.

For both, the size of the subgraph in nodes and in Qwen2.5 tokens of the paper's textual graph is
printed next to the whole neighbourhood's. Last line:
``recall metaqa_1hop=<r> metaqa_2hop=<r> metaqa_3hop=<r> explagraphs=<r>``.

Usage::

    python benchmarks/gretriever_recall.py [--limit 300] [--edge-text relation]
        [--k-nodes 3] [--k-edges 5] [--edge-cost 0.5] [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from kgcore.graph import InMemoryGraphStore, read_triples
from kgcore.gretriever import (
    EmbeddedTexts,
    GraphIndex,
    GRetriever,
    PCSTSettings,
    RegionSettings,
    SentenceTransformerEmbedder,
    TextualGraph,
    retrieve_in_graph,
    textualize_paper,
)
from kgcore.linking import bracketed_entities
from kgeval.datasets import default_data_dir

Tokenizer = Callable[[str], int]


def qwen_token_counter() -> Tokenizer:
    """Token counts with the local Qwen2.5 tokenizer (the LLM's view); words if it is missing."""
    try:
        from llama_cpp import Llama

        from kglocal.locations import qwen_gguf_path

        vocab = Llama(str(qwen_gguf_path()), vocab_only=True, verbose=False)
        return lambda text: len(vocab.tokenize(text.encode("utf-8"), add_bos=False))
    except Exception as err:  # noqa: BLE001 - a benchmark may run without the model
        print(f"(Qwen tokenizer unavailable: {err}; counting words)")
        return lambda text: len(text.split())


def graph_text(graph: TextualGraph) -> str:
    src, dst = graph.edge_index
    return textualize_paper(
        enumerate(graph.node_texts),
        zip(src.tolist(), graph.edge_relations, dst.tolist(), strict=True),
    )


def metaqa(args: argparse.Namespace, count_tokens: Tokenizer) -> dict[int, dict[str, float]]:
    data = args.data / "metaqa"
    triples = list(read_triples(data / "kb.txt", progress=False))
    store = InMemoryGraphStore.from_triples(triples)
    embedder = SentenceTransformerEmbedder(batch_size=args.batch_size)
    started = time.perf_counter()
    index = GraphIndex.build(
        TextualGraph.from_triples(triples), embedder, args.edge_text, progress=args.progress
    )
    print(
        f"metaqa index: {index.graph.num_nodes} nodes, {index.graph.num_edges} edges, "
        f"{time.perf_counter() - started:.1f} s (cached after the first run)"
    )
    retriever = GRetriever(
        index,
        store=store,
        pcst=PCSTSettings(args.k_nodes, args.k_edges, args.edge_cost),
        region=RegionSettings(max_nodes=args.max_nodes, neighbor_limit=args.neighbor_limit),
    )
    scores: dict[int, dict[str, float]] = {}
    for hop in (1, 2, 3):
        lines = (data / f"dev_{hop}hop.txt").read_text(encoding="utf-8").splitlines()[: args.limit]
        hit = region_hit = 0
        sizes, tokens, region_sizes, region_tokens, seconds = [], [], [], [], []
        # Questions are embedded in one batch; the timing below is retrieval per question.
        query_vectors = embedder.embed([line.split("\t")[0] for line in lines])
        for line, query_vector in zip(lines, query_vectors, strict=True):
            question, answers, _kind = line.split("\t")
            gold = {a.casefold() for a in answers.split("|")}
            start = time.perf_counter()
            result = retriever.retrieve(
                question,
                topic_entities=bracketed_entities(question),
                hops=hop,
                query_vector=query_vector,
            )
            seconds.append(time.perf_counter() - start)
            hit += bool(gold & {n.casefold() for n in result.node_texts})
            sizes.append(result.num_nodes)
            tokens.append(count_tokens(result.textualize("paper")))
            # The whole neighbourhood PCST searched, for comparison.
            region = result.searched_graph
            assert region is not None
            region_hit += bool(gold & {n.casefold() for n in region.node_texts})
            region_sizes.append(region.num_nodes)
            region_tokens.append(count_tokens(graph_text(region)))
        n = len(lines)
        scores[hop] = {
            "recall": hit / n,
            "nodes": float(np.mean(sizes)),
            "tokens": float(np.mean(tokens)),
            "region_recall": region_hit / n,
            "region_nodes": float(np.mean(region_sizes)),
            "region_tokens": float(np.mean(region_tokens)),
            "ms": 1000 * float(np.mean(seconds)),
        }
        s = scores[hop]
        print(
            f"metaqa {hop}-hop (n={n}): recall {s['recall']:.3f}, {s['nodes']:.1f} nodes, "
            f"{s['tokens']:.0f} tokens | neighbourhood: recall {s['region_recall']:.3f}, "
            f"{s['region_nodes']:.0f} nodes, {s['region_tokens']:.0f} tokens | "
            f"{s['ms']:.0f} ms/question"
        )
    return scores


def explagraphs(args: argparse.Namespace, count_tokens: Tokenizer) -> dict[str, float]:
    folder = args.data / "explagraphs"
    lines = (folder / "explagraphs_gretriever_format.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in lines.splitlines()]
    test_ids = [int(i) for i in (folder / "split" / "test_indices.txt").read_text().split()]
    by_id = {row["id"]: row for row in rows}
    tests = [by_id[i] for i in test_ids][: args.explagraphs_limit]
    embedder = SentenceTransformerEmbedder(batch_size=args.batch_size)
    graphs = [TextualGraph.from_nodes_and_edges(r["nodes"], r["edges"]) for r in tests]
    questions = [f"{r['arg1']} {r['arg2']}" for r in tests]
    texts = sorted({t for g in graphs for t in g.node_texts + g.edge_relations})
    table = EmbeddedTexts.embed(texts, embedder, progress=args.progress)
    query_vectors = embedder.embed(questions)
    settings = PCSTSettings(args.k_nodes, args.k_edges, args.edge_cost)
    kept, sizes, tokens, whole_sizes, whole_tokens = [], [], [], [], []
    for graph, question, query in zip(graphs, questions, query_vectors, strict=True):
        node_sim = table.vectors_of(graph.node_texts, None) @ query
        edge_sim = table.vectors_of(graph.edge_relations, None) @ query
        result = retrieve_in_graph(graph, node_sim, edge_sim, settings, question)
        kept.append(result.num_edges / max(graph.num_edges, 1))
        sizes.append(result.num_nodes)
        tokens.append(count_tokens(result.textualize("paper")))
        whole_sizes.append(graph.num_nodes)
        whole_tokens.append(count_tokens(graph_text(graph)))
    score = {
        "recall": float(np.mean(kept)),
        "nodes": float(np.mean(sizes)),
        "tokens": float(np.mean(tokens)),
        "whole_nodes": float(np.mean(whole_sizes)),
        "whole_tokens": float(np.mean(whole_tokens)),
    }
    print(
        f"explagraphs test (n={len(tests)}): triple recall {score['recall']:.3f}, "
        f"{score['nodes']:.1f} nodes, {score['tokens']:.0f} tokens | whole graph: "
        f"{score['whole_nodes']:.1f} nodes, {score['whole_tokens']:.0f} tokens"
    )
    return score


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", type=Path, default=default_data_dir(), help="the shared data folder (KGQA_DATA)"
    )
    parser.add_argument("--limit", type=int, default=300, help="MetaQA dev questions per hop")
    parser.add_argument("--explagraphs-limit", type=int, default=None)
    parser.add_argument("--edge-text", choices=("relation", "triple"), default="relation")
    parser.add_argument("--k-nodes", type=int, default=3)
    parser.add_argument("--k-edges", type=int, default=5)
    parser.add_argument("--edge-cost", type=float, default=0.5)
    parser.add_argument("--max-nodes", type=int, default=2000)
    parser.add_argument("--neighbor-limit", type=int, default=None)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--progress", action="store_true")
    args = parser.parse_args(argv)
    print(
        f"settings: k_nodes={args.k_nodes} k_edges={args.k_edges} edge_cost={args.edge_cost} "
        f"edge_text={args.edge_text} max_nodes={args.max_nodes}"
    )
    count_tokens = qwen_token_counter()
    meta = metaqa(args, count_tokens)
    expla = explagraphs(args, count_tokens)
    print(
        f"recall metaqa_1hop={meta[1]['recall']:.3f} metaqa_2hop={meta[2]['recall']:.3f} "
        f"metaqa_3hop={meta[3]['recall']:.3f} explagraphs={expla['recall']:.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
