"""What the shared throttle of wrong tokens costs a ``hello`` under ``serve --redis``
(docs/redis.md, "The throttle of wrong tokens"; docs/performance.md).

Run from the repository root (``redis-server`` on PATH)::

    python benchmarks/bench_wrong_tokens.py                  # 3 rounds x 300 hellos
    python benchmarks/bench_wrong_tokens.py --rounds 5 --hellos 500 --json

One ``redis-server`` (``--appendonly yes --appendfsync always``, as docs/redis.md
asks) and one ``rollbridge serve --redis URL --trusted-proxy 127.0.0.1``. Each round
sends, one after the other on fresh connections, ``--hellos`` hellos with the GM's
right token in turn *counted* (``X-Forwarded-For`` naming a client address: the token
takes a place in Redis before its lookup and gives it back after, one script call
each) and *exempt* (the proxy's own request, naming no client: not counted, as
loopback). Timed: from sending the hello to its welcome (the connection is open
before). Also timed, directly: one call of the throttle's script (a take, then a give
back) against a ``PING`` on the same asyncio client. ``--no-script`` times the hellos
only: run so with ``PYTHONPATH`` naming a tree of the code before (a package
``rollbridge`` of its ``core``), the same difference counted − exempt shows what a
counted address cost before.

Figures: the median and p90 of each, per round, and the medians' difference.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.stores.cluster_harness import durable_redis, make_table, serve_quietly  # noqa: E402

ENV = {**os.environ, "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"}


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def _hellos(port: int, table: str, token: str, count: int, counted: bool) -> list[float]:
    """``count`` hellos, each on a fresh connection: seconds from hello to welcome."""
    times = []
    for n in range(count):
        headers = {"X-Forwarded-For": f"203.0.113.{n % 200 + 1}"} if counted else {}
        async with connect(f"ws://127.0.0.1:{port}/", additional_headers=headers) as ws:
            hello = {"type": "hello", "id": "h", "table": table, "token": token}
            started = time.perf_counter()
            await ws.send(json.dumps(hello))
            await welcome(ws)
            times.append(time.perf_counter() - started)
    return times


async def welcome(ws: Any) -> None:
    """Read frames until the ``hello``'s answer: a welcome (else AssertionError)."""
    while True:
        answer = json.loads(await ws.recv())
        if answer.get("type") in ("welcome", "error"):
            break
    assert answer["type"] == "welcome", answer


async def _script(url: str, count: int) -> tuple[list[float], list[float]]:
    """``count`` take + give back calls of the throttle's script, and as many PINGs."""
    import redis.asyncio as aioredis

    from rollbridge.server.addresses import address_site
    from rollbridge.server.shared_tokens import SharedWrongTokens

    client = aioredis.Redis.from_url(url)
    shared = SharedWrongTokens(client, "bench:", 10, 100, address_site)
    takes, pings = [], []
    try:
        await client.ping()
        for n in range(count):
            started = time.perf_counter()
            await shared.take(f"198.51.100.{n % 200 + 1}")
            takes.append(time.perf_counter() - started)
            await shared.give_back(f"198.51.100.{n % 200 + 1}")
            started = time.perf_counter()
            await client.ping()
            pings.append(time.perf_counter() - started)
    finally:
        await client.aclose()
    return takes, pings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--hellos", type=int, default=300)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--no-script", action="store_true",
        help="time the hellos only (a tree without the shared throttle: the code before)",
    )  # fmt: skip
    options = parser.parse_args()
    with durable_redis("bench-wrong-tokens-") as url:
        _measure(options, url)


def _measure(options: argparse.Namespace, url: str) -> None:
    """The rounds of :func:`main` against the Redis at ``url``."""
    serving = None
    try:
        table = make_table(url)
        serving, port = serve_quietly(url, "--trusted-proxy", "127.0.0.1")
        token = table["tokens"]["gm"]
        rounds = []
        for _ in range(options.rounds):
            exempt = asyncio.run(_hellos(port, table["table"], token, options.hellos, False))
            counted = asyncio.run(_hellos(port, table["table"], token, options.hellos, True))
            takes, pings = (
                ([0.0], [0.0]) if options.no_script else asyncio.run(_script(url, options.hellos))
            )
            figures = {
                name: {
                    "p50_us": round(statistics.median(values) * 1e6),
                    "p90_us": round(_percentile(values, 0.9) * 1e6),
                }
                for name, values in (
                    ("hello_exempt", exempt),
                    ("hello_counted", counted),
                    ("script", takes),
                    ("ping", pings),
                )
            }
            figures["hello_extra_p50_us"] = (
                figures["hello_counted"]["p50_us"] - figures["hello_exempt"]["p50_us"]
            )
            rounds.append(figures)
            if not options.json:
                print(
                    "hello exempt p50 {e[p50_us]} µs p90 {e[p90_us]} µs | counted p50 "
                    "{c[p50_us]} µs p90 {c[p90_us]} µs | extra p50 {x} µs | script p50 "
                    "{s[p50_us]} µs, PING p50 {p[p50_us]} µs".format(
                        e=figures["hello_exempt"],
                        c=figures["hello_counted"],
                        x=figures["hello_extra_p50_us"],
                        s=figures["script"],
                        p=figures["ping"],
                    )
                )
        if options.json:
            print(json.dumps({"hellos": options.hellos, "rounds": rounds}, indent=2))
    finally:
        if serving is not None:
            serving.terminate()
            serving.wait(timeout=30)


if __name__ == "__main__":
    main()
