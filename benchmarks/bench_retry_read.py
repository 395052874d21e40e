"""What a repeated request costs the store when its reply names an old event.

Run from anywhere, with the Python rollbridge is developed with (3.11+)::

    python benchmarks/bench_retry_read.py
    python benchmarks/bench_retry_read.py --before 20 --back 10 --after 980 --dir /var/tmp

An sr2 table on a SQLite file (the default retention, 1,000 events): Tukan attacks a
guard ``--before`` times, the server restarts (the table is loaded again), Tukan
attacks ``--after`` times more, then repeats the request of the attack ``--back``
events before the restart. Its reply names that event, which the table shows as it
left the table (docs/engine.md, "Views"): the protocol reads it from the log with
the events it walks back through. Printed: how many events that read returns, and
its time on the store's thread (``Read.run``; the median of ``--repeats``), then
that the repeat's event reads as it did live. Only the protocol's public effects
are used, so the same script times an older tree (``PYTHONPATH``, as
docs/performance.md shows).
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from rollbridge.dice.sources import SeededDice
from rollbridge.engine.model import Principal
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.protocol.effects import Read, Reply
from rollbridge.stores.sqlite import SQLiteStore

GM = Principal("gm", "gm", "tok-gm")
ALICE = Principal("player", "alice", "tok-alice")
ATTACK = {"type": "resolve", "action": "attack", "actor": "tukan", "targets": ["guard"],
          "params": {"weapon": "Hackler", "range": "short"}}  # fmt: skip


def service_on(path: Path, host: PluginHost, draws: Any) -> TableService:
    return TableService(SQLiteStore(path), host, dice=lambda: SeededDice(f"b:{next(draws)}"))


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=int, default=20, help="attacks before the restart")
    parser.add_argument(
        "--back", type=int, default=10, help="the repeated attack: this many before the restart"
    )
    parser.add_argument("--after", type=int, default=980, help="attacks after the restart")
    parser.add_argument("--repeats", type=int, default=31)
    parser.add_argument("--dir", default=None, help="where the database file is made")
    args = parser.parse_args(argv)
    host = PluginHost(environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    sheets = host.rulesets["sr2"].example_sheets
    draws = itertools.count()
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        path = Path(folder) / "retry.db"
        service = service_on(path, host, draws)
        service.create_table("T", "sr2", table_id="t")
        for actor in ({"id": "tukan", "name": "Tukan", "sheet": sheets["Tukan"],
                       "controllers": ["alice"]},
                      {"id": "guard", "name": "Guard A", "sheet": sheets["Guard A"]}):  # fmt: skip
            service.handle("t", {"type": "actor.create", "id": actor["id"], "actor": actor}, GM)
        live = {}
        for n in range(args.before):
            live[f"a{n}"] = service.handle("t", {**ATTACK, "id": f"a{n}"}, ALICE)
        restarted_at = service.table("t").info.seq
        service.store.close()
        service = service_on(path, host, draws)  # the restart: the table loaded again
        for n in range(args.after):
            service.handle("t", {**ATTACK, "id": f"b{n}"}, ALICE)
        store, protocol = service.store, service.protocol("t")
        retried = f"a{args.before - 1 - args.back}"
        (find,) = protocol.receive({**ATTACK, "id": retried}, ALICE)
        (read,) = find.resume(find.run(store))
        assert isinstance(read, Read), read
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            stored = read.run(store)
            times.append(time.perf_counter() - start)
        (reply,) = read.resume(stored)
        assert isinstance(reply, Reply), reply
        count = len(stored) if isinstance(stored, list) else 1
        same = reply.message["event"] == live[retried]["event"]
        latest = protocol.table.info.seq
        store.close()
    figures = {
        "events_read": float(count),
        "median_ms": statistics.median(times) * 1000,
        "best_ms": min(times) * 1000,
        "as_live": float(same),
    }
    print(f"retry of seq {live[retried]['seq']}, table at {latest} (restarted at "
          f"{restarted_at}): {type(read).__name__} of {count} events")  # fmt: skip
    print(f"store read: median {figures['median_ms']:.2f} ms, "
          f"best {figures['best_ms']:.2f} ms over {args.repeats}")  # fmt: skip
    print(f"the repeat's event reads as it did live: {same}")
    return figures


if __name__ == "__main__":
    main()
