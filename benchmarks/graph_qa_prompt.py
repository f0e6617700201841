"""Does LlamaIndex's graph-QA prompt make the reader name every answer? Two prompts, one retrieval.

For MetaQA dev questions (``--hop``, ``--start``..``--start + --count - 1``; tune on 51 and later),
G-Retriever retrieves the subgraph once (``GRetrieverRetriever``, as ``graph_query_engine``
users run it) and the local Qwen reads it with each prompt: the package's
:data:`~llamaindex_gretriever.prompts.GRAPH_QA_PROMPT` and the earlier one (a one-answer
example). Per prompt: hit@1 (the first name given is a gold answer), recall (gold answers named,
of those the subgraph holds) and wrong (names given that are not gold), with a 95% interval
for hit@1. One line per question goes to ``--out`` (resumable: questions already there are
skipped).

Example
-------
``.venv/bin/python benchmarks/graph_qa_prompt.py --hop 1 --start 51 --count 30``
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from llama_index.core import PromptTemplate

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kgcore.graph import read_triples  # noqa: E402
from kgeval.datasets import default_data_dir  # noqa: E402
from kgeval.metrics import wilson_interval  # noqa: E402
from llamaindex_gretriever import GRetrieverRetriever, build_llamacpp_llm  # noqa: E402
from llamaindex_gretriever.prompts import GRAPH_QA_PROMPT  # noqa: E402

ONE_ANSWER_PROMPT = PromptTemplate(
    "Answer questions from knowledge-graph facts, written (head, relation, tail). Reply with "
    "the answer names only, separated by commas.\n\n"
    "Facts:\n(Company X, founded by, Person Y)\n"
    "Question: [Person Y] founded which companies\nAnswer: Company X\n\n"
    "Facts:\n{context_str}\nQuestion: {query_str}\nAnswer: "
)
PROMPTS = {"one_answer_example": ONE_ANSWER_PROMPT, "package": GRAPH_QA_PROMPT}


def named(reply: str) -> list[str]:
    """The reply's comma-separated names, as given (stripped), in order."""
    first_line = reply.strip().splitlines()[0] if reply.strip() else ""
    return [n.strip() for n in first_line.split(",") if n.strip()]


def ask(todo: list[tuple[int, str]], hop: int, data: Path, out_path: Path) -> None:
    """Retrieve once per question, read it with each prompt, append one line per question."""
    triples = list(read_triples(data / "kb.txt", progress=False))
    retriever = GRetrieverRetriever.from_triples(triples, text_format="triples", path_depth=hop)
    llm = build_llamacpp_llm(max_new_tokens=64, context_window=4096)
    with out_path.open("a", encoding="utf-8") as out:
        for number, line in todo:
            key = f"{hop}hop:{number}"
            question, gold_text, _ = line.split("\t")
            gold = set(gold_text.split("|"))
            context = retriever.retrieve(question)[0].node.get_content()
            row = {"id": key, "question": question, "gold": sorted(gold)}
            row["held"] = sorted(g for g in gold if g in context)
            for name, prompt in PROMPTS.items():
                text = prompt.format(context_str=context, query_str=question)
                row[name] = llm.complete(text).text.strip()[:400]
            out.write(json.dumps(row) + "\n")
            out.flush()
            print(key, {n: row[n][:80] for n in PROMPTS}, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hop", type=int, default=1)
    parser.add_argument("--start", type=int, default=51, help="first question, 1-based")
    parser.add_argument("--count", type=int, default=30)
    parser.add_argument(
        "--out", type=Path, default=ROOT / "benchmarks" / "results" / "graph_qa_prompt.jsonl"
    )
    args = parser.parse_args(argv)
    data = default_data_dir() / "metaqa"
    lines = (data / f"dev_{args.hop}hop.txt").read_text(encoding="utf-8").splitlines()
    chosen = list(enumerate(lines, 1))[args.start - 1 : args.start - 1 + args.count]
    done = set()
    if args.out.exists():
        done = {
            json.loads(line)["id"] for line in args.out.read_text(encoding="utf-8").splitlines()
        }
    todo = [(n, line) for n, line in chosen if f"{args.hop}hop:{n}" not in done]
    if todo:  # the graph and the model load only for questions not yet answered
        ask(todo, args.hop, data, args.out)
    rows = [json.loads(x) for x in args.out.read_text(encoding="utf-8").splitlines()]
    rows = [r for r in rows if r["id"].startswith(f"{args.hop}hop:")]
    for name in PROMPTS:
        hits = recall = wrong = 0.0
        for r in rows:
            names = named(r[name])
            hits += bool(names) and names[0] in r["gold"]
            held = set(r["held"])
            recall += len(held & set(names)) / len(held) if held else 0.0
            wrong += len([n for n in names if n not in r["gold"]])
        low, high = wilson_interval(int(hits), len(rows))
        print(
            f"graph_qa_prompt prompt={name} n={len(rows)} hit1={hits / len(rows):.2f} "
            f"[{low:.2f}, {high:.2f}] recall_of_held={recall / len(rows):.2f} "
            f"wrong_names_per_q={wrong / len(rows):.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
