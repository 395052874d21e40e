"""What ``odds`` requests leave in a server's memory: the RSS of a real ``rollbridge serve``.

Run from anywhere, with the Python rollbridge is developed with (3.11+)::

    python benchmarks/bench_odds_memory.py --formula 8dF --cycles 300
    python benchmarks/bench_odds_memory.py --formula 1dF --cycles 300 --no-limits

A ``rollbridge serve`` process on a fresh SQLite file with one sr2 table (its default
limits, as a public server runs; ``--no-limits`` lifts the request rates). One
observer sends ``--cycles`` distinct ``odds`` formulas: ``--formula`` with ``F``
replaced by ``--first`` − i (``8dF``: ``8d2500``, ``8d2499``, …, each answer too
large for a reply; ``1dF``: ``1d2500``, … computed, then too large; ``2dF --first
1000``: ``2d1000``, … answered), waiting out each ``rate_limited`` as told.
Printed (JSON): the replies by code, the seconds taken, and the server's resident
memory (``VmRSS``, MB) before, after the last reply and ``--idle`` seconds later.
Only the CLI and the protocol are used, so the same script measures an older tree
(run it with that tree's Python, as docs/performance.md shows).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_cluster import Child, free_port
from bench_server import ADDRESS, make_host, seed_sqlite


def rss_mb(pid: int) -> float:
    """The resident memory of process ``pid``, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    raise RuntimeError(f"no VmRSS for {pid}")


async def ask_all(port: int, table: str, token: str, formulas: list[str]) -> Counter[str]:
    """One observer asks each formula's odds in turn; the replies' codes counted."""
    codes: Counter[str] = Counter()
    async with websockets.connect(f"ws://{ADDRESS}:{port}/", compression=None) as ws:
        await ws.send(json.dumps({"type": "hello", "id": "h", "table": table, "token": token}))
        assert json.loads(await ws.recv())["type"] == "welcome"
        for n, formula in enumerate(formulas):
            while True:
                await ws.send(json.dumps({"type": "odds", "id": f"o{n}", "formula": formula}))
                while (reply := json.loads(await ws.recv())).get("id") != f"o{n}":
                    pass
                code = reply.get("code", reply["type"])
                if code != "rate_limited":
                    break
                codes[code] += 1
                await asyncio.sleep(reply["details"]["retry_after"])
            codes[code] += 1
    return codes


async def run(args: argparse.Namespace) -> dict:
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        path = Path(folder) / "odds.db"
        tokens = seed_sqlite(path, 1, make_host())[0]
        table, roles = next(iter(tokens.items()))
        port = free_port()
        argv = [sys.executable, "-m", "rollbridge", "serve", "--db", str(path), "--port",
                str(port), "--no-demo", "--log-level", "WARNING"]  # fmt: skip
        if args.no_limits:
            argv += ["--rate-per-connection", "0", "--rate-per-table", "0"]
        server = await Child.start("serve", argv, port, None, Path(folder) / "serve.log")
        try:
            await asyncio.sleep(1)
            before = rss_mb(server.pid)
            formulas = [args.formula.replace("F", str(args.first - i)) for i in range(args.cycles)]
            start = time.perf_counter()
            codes = await ask_all(port, table, roles["observer"], formulas)
            seconds = time.perf_counter() - start
            after = rss_mb(server.pid)
            await asyncio.sleep(args.idle)
            idle = rss_mb(server.pid)
        finally:
            await server.stop()
    return {"formula": args.formula, "first": args.first, "cycles": args.cycles,
            "replies": dict(codes),
            "seconds": round(seconds, 1), "rss_before_mb": before, "rss_after_mb": after,
            f"rss_after_{args.idle:g}s_mb": idle}  # fmt: skip


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--formula", default="8dF", help="F becomes FIRST, FIRST - 1, …")
    parser.add_argument("--first", type=int, default=2500)
    parser.add_argument("--cycles", type=int, default=300)
    parser.add_argument("--idle", type=float, default=10.0, help="seconds before the last reading")
    parser.add_argument("--no-limits", action="store_true", help="no request rates")
    parser.add_argument("--dir", default=None, help="where the database file is made")
    result = asyncio.run(run(parser.parse_args(argv)))
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
