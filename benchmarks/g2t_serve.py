"""Dynamic batching of the Graph2Text server: N concurrent requests, batched vs unbatched.

Starts ``kgqa g2t serve`` on a free loopback port twice (``--max-batch-size 16`` and ``1``),
sends N requests at once (each a real WebNLG test community) with a bounded client
(``--concurrency`` in flight, a per-request timeout), and counts errors and lost requests.
Loopback only; nothing leaves the machine. Last line:
``g2t_serve batched_rps=… unbatched_rps=… ratio=… errors=…``.
"""

from __future__ import annotations

import argparse
import asyncio
import time

import httpx

from kgeval.datasets import default_data_dir
from kgmodels.graph2text.data import read_webnlg
from kgmodels.graph2text.serve_process import serving


async def fire(
    url: str, bodies: list[dict], concurrency: int, timeout: float
) -> tuple[float, int, int]:
    """Send every body, ``concurrency`` at a time; ``(seconds, errors, answered)``."""
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    gate = asyncio.Semaphore(concurrency)
    errors = answered = 0
    async with httpx.AsyncClient(limits=limits, timeout=timeout) as client:

        async def one(body: dict) -> None:
            nonlocal errors, answered
            async with gate:
                try:
                    response = await client.post(f"{url}/predict", json=body)
                    ok = response.status_code == 200 and isinstance(
                        response.json().get("text"), str
                    )
                except (httpx.HTTPError, ValueError):
                    ok = False
            answered += ok
            errors += not ok

        started = time.perf_counter()
        await asyncio.gather(*(one(b) for b in bodies))
        return time.perf_counter() - started, errors, answered


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="models/graph2text-webnlg-small")
    parser.add_argument("-n", type=int, default=200, help="requests per run")
    parser.add_argument("--concurrency", type=int, default=200)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--timeout", type=float, default=300.0)
    args = parser.parse_args()
    test = read_webnlg(default_data_dir() / "webnlg" / "webnlg_en_v1.6_test.jsonl", True)
    bodies = [{"triples": [list(t) for t in e.triples]} for e in test[: args.n]]
    rps: dict[str, float] = {}
    errors = 0
    for name, size in (("batched", args.batch_size), ("unbatched", 1)):
        extra = ["--max-batch-size", str(size), "--timeout", str(args.timeout)]
        with serving(args.model, extra_args=extra) as url:
            asyncio.run(fire(url, bodies[:8], 8, args.timeout))  # warm-up
            seconds, failed, answered = asyncio.run(
                fire(url, bodies, args.concurrency, args.timeout)
            )
        lost = len(bodies) - answered - failed
        errors += failed + lost
        rps[name] = len(bodies) / seconds
        print(f"{name}: {len(bodies)} requests in {seconds:.1f}s, errors={failed} lost={lost}")
    ratio = rps["batched"] / rps["unbatched"]
    print(
        f"g2t_serve batched_rps={rps['batched']:.2f} unbatched_rps={rps['unbatched']:.2f} "
        f"ratio={ratio:.2f} errors={errors}"
    )


if __name__ == "__main__":
    main()
