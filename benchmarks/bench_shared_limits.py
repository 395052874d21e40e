"""What the per-address limits shared in Redis cost a connection and an HTTP request
under ``serve --redis`` (docs/redis.md, "The per-address limits, shared";
docs/performance.md).

Run from the repository root (``redis-server`` on PATH)::

    python benchmarks/bench_shared_limits.py                  # 3 rounds x 300 of each
    python benchmarks/bench_shared_limits.py --rounds 5 --count 500 --json

One ``redis-server`` (``--appendonly yes --appendfsync always``, as docs/redis.md
asks) and two ``rollbridge serve --redis URL --trusted-proxy 127.0.0.1`` processes:
*shared*, with the default limits, and *off*, with ``--max-connections-per-address
0 --http-rate-per-address 0`` (no limit, so nothing asked of Redis: what a
connection and a request cost before, when each process counted its own in memory).
Each round, one after the other, on fresh connections, each naming a client
address in ``X-Forwarded-For`` (200 of them in turn, so none is refused):

* ``join``: from opening the connection to the ``hello``'s welcome (the GM's right
  token; under *shared* the connection is counted in Redis before its first frame
  is read: one script call, awaited; its close is written in the background);
* ``http``: a ``GET /healthz`` answered (under *shared* one script call, awaited).

Also timed, directly, on one asyncio client: the connections' script (a take), the
HTTP bucket's script (a take) and a ``PING``.

Figures: the median and p90 of each, per round, and the medians' differences.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_wrong_tokens import welcome  # noqa: E402

from tests.hostile.wire import http_get  # noqa: E402
from tests.stores.cluster_harness import durable_redis, make_table, serve_quietly  # noqa: E402

ENV = {**os.environ, "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"}
OFF = ("--max-connections-per-address", "0", "--http-rate-per-address", "0")


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _address(n: int) -> dict[str, str]:
    return {"X-Forwarded-For": f"203.0.113.{n % 200 + 1}"}


async def _joins(port: int, table: str, token: str, count: int) -> list[float]:
    """``count`` connections, one after the other: seconds from opening to welcome."""
    times = []
    hello = json.dumps({"type": "hello", "id": "h", "table": table, "token": token})
    for n in range(count):
        started = time.perf_counter()
        async with connect(f"ws://127.0.0.1:{port}/", additional_headers=_address(n)) as ws:
            await ws.send(hello)
            await welcome(ws)
            times.append(time.perf_counter() - started)
    return times


async def _requests(port: int, count: int) -> list[float]:
    """``count`` ``GET /healthz``, one after the other: seconds each."""
    times = []
    for n in range(count):
        started = time.perf_counter()
        status, _, _ = await http_get(port, "/healthz", _address(n))
        times.append(time.perf_counter() - started)
        assert status == 200, status
    return times


async def _scripts(url: str, count: int) -> dict[str, list[float]]:
    """``count`` calls of each shared limit's script, and as many PINGs."""
    import redis.asyncio as aioredis

    from rollbridge.server.shared_limits import SharedConnections, SharedHttpRate

    client = aioredis.Redis.from_url(url)
    connections = SharedConnections(client, "bench:", "bench-node", 64, ttl=15)
    rate = SharedHttpRate(client, "bench:", 20.0, 200.0)
    times: dict[str, list[float]] = {"connections_script": [], "http_script": [], "ping": []}
    try:
        await client.ping()
        for n in range(count):
            address = f"198.51.100.{n % 200 + 1}"
            started = time.perf_counter()
            await connections.take(address, 1)
            times["connections_script"].append(time.perf_counter() - started)
            await connections.write(address, 0)
            started = time.perf_counter()
            await rate.take(address)
            times["http_script"].append(time.perf_counter() - started)
            started = time.perf_counter()
            await client.ping()
            times["ping"].append(time.perf_counter() - started)
    finally:
        await client.aclose()
    return times


def _figures(values: list[float]) -> dict[str, int]:
    return {
        "p50_us": round(statistics.median(values) * 1e6),
        "p90_us": round(_percentile(values, 0.9) * 1e6),
    }


def _line(figures: dict[str, Any]) -> str:
    """One round's figures, as a line."""
    p50 = {name: value["p50_us"] for name, value in figures.items() if isinstance(value, dict)}
    return (
        f"join off p50 {p50['join_off']} µs, shared {p50['join_shared']} µs "
        f"(+{figures['join_extra_p50_us']}) | http off p50 {p50['http_off']} µs, shared "
        f"{p50['http_shared']} µs (+{figures['http_extra_p50_us']}) | scripts p50: "
        f"connections {p50['connections_script']} µs, http {p50['http_script']} µs, "
        f"PING {p50['ping']} µs"
    )


def run(rounds: int, count: int, quiet: bool = False) -> dict[str, Any]:
    """Start Redis and both processes, time ``rounds`` rounds of ``count`` of each;
    the figures (printed per round unless ``quiet``)."""
    with durable_redis("bench-shared-limits-") as url:
        table = make_table(url)
        serving: list[subprocess.Popen] = []
        try:
            shared, shared_port = serve_quietly(url, "--trusted-proxy", "127.0.0.1")
            serving.append(shared)
            off, off_port = serve_quietly(url, "--trusted-proxy", "127.0.0.1", *OFF)
            serving.append(off)
            token = table["tokens"]["gm"]
            results = []
            for _ in range(rounds):
                times = {
                    "join_off": asyncio.run(_joins(off_port, table["table"], token, count)),
                    "join_shared": asyncio.run(_joins(shared_port, table["table"], token, count)),
                    "http_off": asyncio.run(_requests(off_port, count)),
                    "http_shared": asyncio.run(_requests(shared_port, count)),
                    **asyncio.run(_scripts(url, count)),
                }
                figures: dict[str, Any] = {name: _figures(v) for name, v in times.items()}
                for kind in ("join", "http"):
                    figures[f"{kind}_extra_p50_us"] = (
                        figures[f"{kind}_shared"]["p50_us"] - figures[f"{kind}_off"]["p50_us"]
                    )
                results.append(figures)
                if not quiet:
                    print(_line(figures))
            return {"count": count, "rounds": results}
        finally:
            for process in serving:
                process.terminate()
                process.wait(timeout=30)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run as the module docstring says; the figures."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    options = parser.parse_args(argv)
    figures = run(options.rounds, options.count, quiet=options.json)
    if options.json:
        print(json.dumps(figures, indent=2))
    return figures


if __name__ == "__main__":
    main()
