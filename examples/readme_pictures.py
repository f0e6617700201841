"""Draw the README's two pictures: a FastToG chain picture and a G-Retriever subgraph.

Both answer the MetaQA dev question "which person directed the films acted by [Jane Seymour]":
FastToG with the local Qwen2.5-Coder-1.5B model (or ``--llm provider:model``), G-Retriever with
the offline all-MiniLM-L6-v2 embeddings on the question's candidate region (no LLM).

Usage::

    .venv/bin/python examples/readme_pictures.py [--llm local] [--out docs/images]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kgcore.graph import InMemoryGraphStore
from kgcore.gretriever import GRetriever, SentenceTransformerEmbedder
from kgcore.methods.fasttog import FastToG, FastToGConfig
from kgeval.datasets import default_data_dir

QUESTION = "which person directed the films acted by [Jane Seymour]"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm", default="local", help="local | local-small | provider:model")
    parser.add_argument("--out", default="docs/images", help="folder of the PNG files")
    args = parser.parse_args(argv)
    out = Path(args.out)
    graph = InMemoryGraphStore.from_file(default_data_dir() / "metaqa" / "kb.txt", progress=False)

    retriever = GRetriever(store=graph, embedder=SentenceTransformerEmbedder())
    retrieved = retriever.retrieve(QUESTION, topic_entities=["Jane Seymour"])
    gold = "Sam Wanamaker"  # one of the question's gold answers, ringed where it appears
    print("G-Retriever:", retrieved.draw(out / "gretriever_subgraph.png", answer=gold))

    from langchain_fasttog import resolve_chat_model
    from langchain_fasttog.llm import LangChainLLM

    result = FastToG(graph, FastToGConfig()).run(
        QUESTION, LangChainLLM(resolve_chat_model(args.llm))
    )
    print(f"FastToG answer: {result.answer} ({result.llm_calls} LLM calls)")
    print("FastToG:", result.draw(out / "fasttog_chain.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
