"""Many users at once: FastToG under concurrent clients, in memory and over a Bolt server.

Three measurements, each on MetaQA 2-hop questions and the whole MetaQA graph (133,582
triples), in memory and in an ArcadeDB Bolt server (``arcadedb-embedded``, its database kept in
``benchmarks/out/load_arcadedb`` between runs):

1. **Graph time**: FastToG's time per question with an instant scripted model (every
   pruning picks option 1, every reasoning says ``Unknown``: the chains grow to ``D_max``, the
   most graph work a question can take), median of 16 questions (dev 2-hop 1-16; question 17
   warms up). The code of the start of issue 64 (``--baseline-ref``, checked out as a git
   worktree in ``benchmarks/out/load_baseline``) and this tree run side by side, each in a
   process of its own with its own defaults; ``graph_speedup`` is old over new.
2. **Load**: N concurrent clients (1, 4 and 16) ask questions through ``engine.arun`` for
   ``--seconds`` each, one after another, from a pool of 64 (dev 2-hop 1-64, client i starting
   at question 4i), against one store and one model whose every call is an awaited sleep of
   ``--latency`` seconds (a hosted LLM). Printed: throughput, p50/p95 latency, the event loop's
   worst gap (a 10 ms ticker), errors, RSS at start and end, and whether every answer equals
   the sequential run's.
3. **Memory**: ``--questions`` questions (default 1,000) in one process, per store, the
   instant model, 16 at a time; RSS after the first 100 and at the end.
4. **Busy neighbour** (``--parts busy``): LangChain's ``invoke`` against ``ainvoke`` for the
   same questions while another process keeps every core busy (:func:`busy_neighbour`).

The last full run is committed as ``benchmarks/results/load.json`` (``--out``), with per store
``throughput_ratio_16``, ``max_loop_gap_ms``, ``errors``, ``identical``, ``graph_speedup``, and
``rss_growth`` for the 1,000-question run. Run it alone (about 25 minutes; ``--quick`` for a
short check): ``.venv/bin/python benchmarks/load.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "out"
DATA = ROOT.parent / "shared" / "data"
TRACE = ROOT / "benchmarks" / "results" / "kgqa_dev" / "fasttog__metaqa-2hop.jsonl"
#: The code at the start of issue 64 (graph time is compared against it).
BASELINE_REF = "c2ff57b"


def rss_mb() -> float:
    """This process's resident memory now, in MB (Linux ``/proc``)."""
    with open("/proc/self/statm") as handle:
        pages = int(handle.read().split()[1])
    return pages * resource.getpagesize() / 1e6


def instant_text(purpose: str) -> str:
    """The scripted reply: pruning picks option 1, anything else says ``Unknown``."""
    return "{1}" if purpose == "prune" else "{Unknown}"


def make_models(latency: float) -> tuple[Any, Any]:
    """An instant sync model and an awaited-sleep async model (same replies)."""
    from kgcore.llm import LLMReply

    class Instant:
        def generate(self, request: Any) -> Any:
            return LLMReply(text=instant_text(request.purpose))

    class Sleepy:
        async def agenerate(self, request: Any) -> Any:
            await asyncio.sleep(latency)
            return LLMReply(text=instant_text(request.purpose))

    return Instant(), Sleepy()


def questions(count: int) -> list[str]:
    from kgeval.loaders import load_metaqa

    return [e.question for e in load_metaqa("2hop", limit=count, data_dir=DATA / "metaqa").examples]


def open_graph(kind: str, conn: dict[str, Any] | None) -> Any:
    if kind == "memory":
        from kgcore.graph.open import open_store

        return open_store(str(DATA / "metaqa" / "kb.txt"), progress=False)
    from kgcore.graph.neo4j_store import Neo4jGraphStore

    return Neo4jGraphStore(**(conn or {}))


def build(store: Any) -> Any:
    from kgcore.builder.build import build_method

    return build_method("fasttog", store)


# -- 1. graph time (run in a child process per code tree) ----------------------------------
def recorded_model() -> Any:
    """An instant model replying to each question's requests with the replies the model gave
    it in the committed report run (``benchmarks/results/kgqa_dev/fasttog__metaqa-2hop.jsonl``,
    default settings): each question takes the path it took in the report."""
    from kgcore.llm import ScriptedLLM

    rows = [json.loads(line) for line in TRACE.read_text(encoding="utf-8").splitlines()]
    queues = {
        r["question"]: [s["reply"] for s in r["extra"]["steps"] if "reply" in s] for r in rows
    }
    by_length = sorted(queues, key=len, reverse=True)

    def reply(request: Any) -> str:
        question = next((q for q in by_length if q in request.prompt_text), None)
        queue = queues.get(question) if question is not None else None
        return queue.pop(0) if queue else ""

    return ScriptedLLM(reply)


def graph_time_child(kind: str, conn: dict[str, Any] | None) -> dict[str, Any]:
    asked = questions(17)
    engine = build(open_graph(kind, conn))
    instant, _ = make_models(0.0)
    engine.run(asked[16], instant)  # warm up: model loads, server plans
    out: dict[str, Any] = {}
    for name in ("recorded", "worst"):
        model = recorded_model() if name == "recorded" else instant
        similarity = getattr(engine, "similarity", None)
        for cache in ("_vectors", "_text_vectors"):  # this tree's, the baseline's
            found = getattr(similarity, cache, None)
            if found is not None:
                found.clear()  # each model's pass starts with no cached text embeddings
        times = []
        for question in asked[:16]:
            started = time.perf_counter()
            engine.run(question, model)
            times.append(time.perf_counter() - started)
        out[name] = {"median_s": statistics.median(times), "times": [round(t, 4) for t in times]}
    return out


def run_child(code: Path, kind: str, conn: dict[str, Any] | None) -> dict[str, Any]:
    args = [sys.executable, str(Path(__file__).resolve()), "--child", kind, "--code", str(code)]
    env = {**os.environ, "KG_LOAD_CONN": json.dumps(conn or {}), "PYTHONPATH": str(code)}
    done = subprocess.run(args, cwd=code, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"graph-time child failed ({code}, {kind}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def baseline_tree(ref: str) -> Path:
    tree = OUT / "load_baseline"
    if not (tree / "kgcore").exists():
        subprocess.run(["git", "worktree", "prune"], cwd=ROOT, check=True)
        subprocess.run(
            ["git", "worktree", "add", "--detach", "--force", str(tree), ref], cwd=ROOT, check=True
        )
    return tree  # its children read the data through this tree's DATA


# -- 2. load --------------------------------------------------------------------------------
async def _ticker(gaps: list[float], stop: asyncio.Event) -> None:
    last = time.perf_counter()
    while not stop.is_set():
        await asyncio.sleep(0.01)
        now = time.perf_counter()
        gaps.append(now - last - 0.01)
        last = now


async def load_run(
    engine: Any, pool: list[str], clients: int, seconds: float, latency: float
) -> dict[str, Any]:
    _, sleepy = make_models(latency)
    gaps: list[float] = []
    stop = asyncio.Event()
    ticker = asyncio.create_task(_ticker(gaps, stop))
    latencies: list[float] = []
    answers: dict[str, set[str]] = {}
    errors: list[str] = []
    rss_start = rss_mb()
    deadline = time.perf_counter() + seconds

    async def client(index: int) -> None:
        turn = 4 * index
        while time.perf_counter() < deadline:
            question = pool[turn % len(pool)]
            turn += 1
            started = time.perf_counter()
            try:
                result = await engine.arun(question, sleepy)
            except Exception as err:  # noqa: BLE001 - counted, the run goes on
                errors.append(f"{type(err).__name__}: {err}")
                continue
            latencies.append(time.perf_counter() - started)
            answers.setdefault(question, set()).add(result.answer)

    started = time.perf_counter()
    await asyncio.gather(*(client(i) for i in range(clients)))
    elapsed = time.perf_counter() - started
    stop.set()
    await ticker
    done = len(latencies)
    cuts = statistics.quantiles(latencies, n=20) if done >= 2 else [float("nan")] * 19
    return {
        "clients": clients,
        "questions": done,
        "seconds": round(elapsed, 2),
        "throughput_qps": round(done / elapsed, 4),
        "p50_s": round(statistics.median(latencies), 3) if latencies else None,
        "p95_s": round(cuts[18], 3),
        "max_loop_gap_ms": round(1000 * max(gaps, default=0.0), 1),
        "errors": len(errors),
        "error_examples": errors[:3],
        "rss_start_mb": round(rss_start, 1),
        "rss_end_mb": round(rss_mb(), 1),
        "answers": {q: sorted(a) for q, a in answers.items()},
    }


def load_store(kind: str, conn: dict[str, Any] | None, args: argparse.Namespace) -> dict[str, Any]:
    pool = questions(64)
    engine = build(open_graph(kind, conn))
    instant, _ = make_models(0.0)
    sequential = {q: engine.run(q, instant).answer for q in pool}
    rows = []
    for clients in args.clients:
        row = asyncio.run(load_run(engine, pool, clients, args.seconds, args.latency))
        got = row.pop("answers")
        row["identical"] = all(a == [sequential[q]] for q, a in got.items())
        print(f"  {kind} {json.dumps(row)}", flush=True)
        rows.append(row)
    by = {r["clients"]: r for r in rows}
    most = max(args.clients)
    return {
        "rows": rows,
        f"throughput_ratio_{most}": round(
            by[most]["throughput_qps"] / max(by[min(args.clients)]["throughput_qps"], 1e-9), 2
        ),
        "max_loop_gap_ms": max(r["max_loop_gap_ms"] for r in rows),
        "errors": sum(r["errors"] for r in rows),
        "identical": all(r["identical"] for r in rows),
    }


# -- 4. sync beside a busy process ---------------------------------------------------------
def _spin(seconds: float) -> None:
    stop = time.time() + seconds
    while time.time() < stop:
        pass


def busy_neighbour(count: int = 8) -> dict[str, Any]:
    """LangChain's ``FastToGRetriever`` with an instant chat model: ``invoke`` against
    ``ainvoke`` for the same questions (dev 2-hop 1-``count``, alternating), in memory, while
    another process keeps every core busy (one spinning process per CPU)."""
    import multiprocessing

    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.outputs import ChatGeneration, ChatResult

    from langchain_fasttog import FastToGRetriever

    class Instant(BaseChatModel):
        @property
        def _llm_type(self) -> str:
            return "instant"

        def _generate(
            self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any
        ) -> ChatResult:
            text = str(messages[-1].content)
            prune = "Reply with its number" in text or "Reply with their numbers" in text
            reply = AIMessage("{1}" if prune else "{Unknown}")
            return ChatResult(generations=[ChatGeneration(message=reply)])

    retriever = FastToGRetriever(graph=open_graph("memory", None), llm=Instant())
    asked = questions(count + 1)
    retriever.invoke(asked[count])  # warm up: the embedding model loads
    spinners = [
        multiprocessing.Process(target=_spin, args=(600.0,), daemon=True)
        for _ in range(os.cpu_count() or 1)
    ]
    for spinner in spinners:
        spinner.start()
    sync_s: list[float] = []
    async_s: list[float] = []
    try:
        for question in asked[:count]:
            started = time.perf_counter()
            retriever.invoke(question)
            sync_s.append(time.perf_counter() - started)
            started = time.perf_counter()
            asyncio.run(retriever.ainvoke(question))
            async_s.append(time.perf_counter() - started)
    finally:
        for spinner in spinners:
            spinner.kill()
    sync, awaited = statistics.median(sync_s), statistics.median(async_s)
    return {
        "questions": count,
        "sync_median_s": round(sync, 3),
        "async_median_s": round(awaited, 3),
        "sync_over_async": round(sync / awaited, 2),
    }


# -- 3. memory growth -----------------------------------------------------------------------
def memory_growth(total: int, kind: str, conn: dict[str, Any] | None) -> dict[str, Any]:
    pool = questions(max(64, min(total, 1000)))
    engine = build(open_graph(kind, conn))
    instant, _ = make_models(0.0)
    marks: dict[int, float] = {}

    async def run() -> None:
        limit = asyncio.Semaphore(16)
        finished = 0

        async def one(question: str) -> None:
            nonlocal finished
            async with limit:
                await engine.arun(question, instant)
            finished += 1
            if finished in (100, total):
                marks[finished] = rss_mb()

        await asyncio.gather(*(one(pool[i % len(pool)]) for i in range(total)))

    asyncio.run(run())
    after_100, end = marks[100], marks[total]
    return {
        "questions": total,
        "rss_after_100_mb": round(after_100, 1),
        "rss_end_mb": round(end, 1),
        "rss_growth": round(end / after_100 - 1.0, 4),
    }


def arcadedb_conn() -> tuple[Any, dict[str, Any]]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import arcadedb

    server = arcadedb.start(OUT / "load_arcadedb", heap="2g")
    from kgcore.graph.neo4j_loader import write_triples_to_neo4j
    from kgcore.graph.neo4j_store import Neo4jGraphStore

    store = Neo4jGraphStore(**server.conn)
    if store.num_triples() == 0:
        print(write_triples_to_neo4j(store, DATA / "metaqa" / "kb.txt", progress=False))
    store.close()
    return server, dict(server.conn)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--questions", type=int, default=1000)
    parser.add_argument("--stores", nargs="+", default=["memory", "bolt"])
    parser.add_argument("--parts", nargs="+", default=["graph", "load", "memory", "busy"])
    parser.add_argument("--baseline-ref", default=BASELINE_REF)
    parser.add_argument("--merge", action="store_true", help="update --out with these parts")
    parser.add_argument("--quick", action="store_true", help="30 s per row, 200 questions")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "load.json")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--code", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        sys.path.insert(0, str(args.code))
        conn = json.loads(os.environ.get("KG_LOAD_CONN") or "{}")
        print(json.dumps(graph_time_child(args.child, conn or None)))
        return 0
    if args.quick:
        args.seconds, args.questions = 30.0, 200
    sys.path.insert(0, str(ROOT))
    server, conn = (None, None)
    if "bolt" in args.stores:
        server, conn = arcadedb_conn()
    report: dict[str, Any] = {}
    if args.merge and args.out.exists():  # the parts run now replace theirs
        report = json.loads(args.out.read_text(encoding="utf-8"))
    report |= {
        "latency_s": args.latency,
        "seconds_per_row": args.seconds,
        "cpus": os.cpu_count(),
        "baseline_ref": args.baseline_ref,
    }
    try:
        old_tree = baseline_tree(args.baseline_ref) if "graph" in args.parts else None
        for kind in args.stores:
            use = conn if kind == "bolt" else None
            report.setdefault(kind, {})
            if old_tree is not None:
                old = run_child(old_tree, kind, use)
                new = run_child(ROOT, kind, use)
                for model in ("recorded", "worst"):
                    before, after = old[model]["median_s"], new[model]["median_s"]
                    print(
                        f"{kind} graph time ({model} replies): old {before:.3f} s, new "
                        f"{after:.3f} s, speedup {before / after:.2f}",
                        flush=True,
                    )
                report[kind].update(
                    graph_time_old=old,
                    graph_time_new=new,
                    graph_speedup=round(
                        old["recorded"]["median_s"] / new["recorded"]["median_s"], 2
                    ),
                    graph_speedup_worst=round(
                        old["worst"]["median_s"] / new["worst"]["median_s"], 2
                    ),
                )
            if "load" in args.parts:
                report[kind].update(load_store(kind, use, args))
            if "memory" in args.parts:
                growth = memory_growth(args.questions, kind, use)
                print(f"  {kind} memory growth {json.dumps(growth)}", flush=True)
                report[kind].update(memory_growth=growth, rss_growth=growth["rss_growth"])
            if "busy" in args.parts and kind == "memory":
                report["busy_neighbour"] = busy_neighbour()
                print(f"  busy neighbour {json.dumps(report['busy_neighbour'])}", flush=True)
    finally:
        if server is not None:
            server.stop()
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    summary = {
        k: {f: v for f, v in report[k].items() if not isinstance(v, dict | list)}
        for k in args.stores
        if k in report
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
