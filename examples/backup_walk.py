"""``rollbridge backup`` taken while one ``rollbridge serve`` plays its tables
(docs/operations.md, "An operator's night, measured"): how long the copy takes, what
the players meet meanwhile, and whether the copy holds every roll acknowledged
before it began.

Run from the repository root, with rollbridge installed::

    python examples/backup_walk.py                   # 30 tables of 6 clients
    python examples/backup_walk.py --tables 5 --json

One ``serve --db FILE`` on a port of its own; the tables made with ``rollbridge
table create --db FILE``; each table's six clients (a GM, five players) roll in turn,
one roll a table every ``--every`` seconds (examples/cluster_night.py's seats); after
``--steady`` seconds a backup is taken with the CLI, the rolls going on, then the
copy is read with ``rollbridge table list --db COPY --json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from cluster_night import Night
from cluster_walk import Serve, connect, http, wait_port


class Single:
    """What :class:`~cluster_night.Night` needs of a walk: one process, no balancer."""

    def __init__(self, folder: Path) -> None:
        self.db = folder / "tables.db"
        self.env = {**os.environ, "ROLLBRIDGE_DB": str(self.db)}
        self.serves = [Serve(folder, 0, self.env)]
        self.serves[0].extra = ("--max-connections-per-address", "4096")  # all from here
        self.listen = self.serves[0].port

    def ready(self) -> list[int]:
        return [http(s.port, "/readyz")[0] for s in self.serves]

    def cli(self, *args: str, env: dict[str, str] | None = None) -> Any:
        done = subprocess.run([sys.executable, "-m", "rollbridge", *args, "--json"],
                              capture_output=True, text=True, check=True,
                              env=env or self.env, timeout=300)  # fmt: skip
        return json.loads(done.stdout)


async def run(folder: Path, tables: int, every: float, steady: float) -> dict[str, Any]:
    single = Single(folder)
    night = Night(single, tables, every)  # type: ignore[arg-type]
    night.make_tables(single.env)
    serve = single.serves[0]
    serve.start()
    wait_port(serve.port, serve.process)
    await night.join_all()
    players = night.start()
    try:
        await asyncio.sleep(steady)
        night.phase = "backup"
        acked = dict(night.acked)  # each table's rolls acknowledged before the copy
        copy = folder / "copy.db"
        began = time.monotonic()
        said = await asyncio.to_thread(single.cli, "backup", str(copy))
        seconds = time.monotonic() - began
        night.phase = "after"
        await asyncio.sleep(steady / 2)
    finally:
        night.running = False
        await asyncio.gather(*players, return_exceptions=True)
    listed = single.cli("table", "list", env={**os.environ, "ROLLBRIDGE_DB": str(copy)})
    rows = listed if isinstance(listed, list) else listed.get("tables", [])
    seqs = {row["id"]: row.get("seq", 0) for row in rows}
    short = {t: (seqs.get(t), n) for t, n in acked.items() if (seqs.get(t) or 0) < n}
    for seats in night.seats.values():
        for seat in seats:
            await seat.close()
    serve.stop()
    report = night.report(with_metrics=False)
    report |= {
        "backup": {"seconds": round(seconds, 2), "said": said,
                   "bytes": copy.stat().st_size, "database_bytes": single.db.stat().st_size},
        "tables short in the copy": short,
        "rolls not answered": night.failed,
    }  # fmt: skip
    report["ok"] = not short and not night.failed
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=30, help="tables of 6 clients (30)")
    parser.add_argument("--every", type=float, default=1.0, help="seconds between a table's rolls")
    parser.add_argument("--steady", type=float, default=10.0, help="seconds of play before it")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args(argv)
    if connect is None:
        print("rollbridge is not installed in this Python", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="rollbridge-backup-") as folder:
        report = asyncio.run(run(Path(folder), args.tables, args.every, args.steady))
    print(json.dumps(report, indent=None if args.json else 2))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
