"""Bytes a commit sends to Redis, counted by Redis (``INFO stats``'s
``total_net_input_bytes``), per kind of request.

Run from anywhere, with the Python rollbridge is developed with (3.11+)::

    python benchmarks/bench_redis_commit_bytes.py
    python benchmarks/bench_redis_commit_bytes.py --requests 50 --json

It starts a ``redis-server`` of its own (no persistence: only the traffic is
counted), makes an sr2 table over :class:`~rollbridge.stores.redis.RedisStore`
with the offline :class:`~rollbridge.offline.TableService` (each request's commit
written at once, one ``EVALSHA`` each) and counts, around each measured request,
what Redis read from all its clients (the ``INFO stats`` that reads the count
after is taken off: its own bytes, packed as redis-py sends it). The phases:

* ``roll``: the GM's ``1d6`` rolls;
* ``attack``: Tukan shoots a guard with a Hackler (sr2's ``resolve``; a hit is
  undone after it, not counted);
* ``waiting roll``: the GM's ``1d6`` rolls while 8 players' requests wait for
  approval (each the largest a player may keep waiting: ~62 KB of meta);
* ``waiting attack``: the attacks while they wait (each changes the undo stack:
  the script makes the meta anew from the stored one);
* ``approve``: the GM approves those 8 (each commit changes the waiting list).

Beside the bytes, Redis's own time per request: in the commit script (``INFO
commandstats``, ``evalsha``'s ``usec``) and its whole CPU (``INFO cpu``, user + system:
reading the commands too, and the ``INFO`` calls that count). Times move with the
machine's load; the bytes do not.

Measured before and after a change by running this script with the other code
first on the path (``PYTHONPATH``; docs/performance.md, "Scale-out over Redis").
The dice are seeded: the same requests, the same commits, on every run.
"""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rollbridge.dice import SeededDice
from rollbridge.engine import Principal
from rollbridge.host import PluginHost
from rollbridge.offline import TableService

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_store_growth import SUPPLIED, RedisChild

GM = Principal("gm", "gm", "gm-key")
WAITING = 8
TUKAN = {"body": 5, "combat_pool": 6,
         "weapons": [{"name": "Hackler", "code": "7M", "skill": 6}]}  # fmt: skip
GUARD = {"body": 4, "combat_pool": 4, "armor": {"ballistic": 4, "impact": 2}}
ATTACK = {"type": "resolve", "action": "attack", "actor": "tukan", "targets": ["guard"],
          "params": {"weapon": "Hackler", "rounds": 3, "range": "medium"}}  # fmt: skip


def player(n: int) -> Principal:
    """A player token of its own."""
    return Principal("player", f"player-{n}", f"player-key-{n}")


class Counter:
    """Bytes Redis read from its clients since the last :meth:`take`."""

    def __init__(self, client: Any) -> None:
        self.client = client
        conn = client.connection_pool.get_connection()
        try:
            self.own = sum(map(len, conn.pack_command("INFO", "stats")))
        finally:
            client.connection_pool.release(conn)
        self.last = self._read()

    def _read(self) -> int:
        return int(self.client.info("stats")["total_net_input_bytes"])

    def take(self) -> int:
        """Bytes read since the last call, without this call's own ``INFO``."""
        now = self._read()
        got, self.last = now - self.last - self.own, now
        return got


def redis_usec(client: Any) -> tuple[int, float]:
    """Microseconds Redis spent in ``EVALSHA`` so far (``INFO commandstats``), and of
    CPU (``INFO cpu``: user + system)."""
    script = int(client.info("commandstats").get("cmdstat_evalsha", {}).get("usec", 0))
    cpu = client.info("cpu")
    return script, (float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"])) * 1e6


def run(requests: int) -> dict[str, Any]:
    """Each phase's bytes per measured request (its commit, one script)."""
    from rollbridge.stores.redis import RedisStore

    folder = Path(tempfile.mkdtemp(prefix="rb-commit-bytes-"))
    child = RedisChild(folder)
    try:
        store = RedisStore(child.url)
        host = PluginHost({}, environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
        seeds = itertools.count(1)
        service = TableService(store, host, clock=None, dice=lambda: SeededDice(next(seeds)))
        info, _ = service.create_table("Bytes", "sr2", table_id="bytes")
        ids = itertools.count()

        def send(message: dict[str, Any], who: Principal = GM) -> Any:
            return service.handle(info.id, {**message, "id": f"r{next(ids)}"}, who)

        for actor_id, sheet in (("tukan", TUKAN), ("guard", GUARD)):
            send({"type": "actor.create",
                  "actor": {"id": actor_id, "name": actor_id.title(), "sheet": sheet}})  # fmt: skip
        roll = {"type": "roll", "formula": "1d6"}
        for _ in range(3):  # the script loaded, the connection open
            send(roll)
        counter = Counter(child.client)
        phases: dict[str, list[int]] = {}
        usec: dict[str, tuple[float, float]] = {}

        def phase(name: str, count: int, one: Callable[[int], None]) -> None:
            sizes = []
            script, cpu = redis_usec(child.client)
            for n in range(count):
                counter.take()
                one(n)
                sizes.append(counter.take())
            script_after, cpu_after = redis_usec(child.client)
            phases[name] = sizes
            usec[name] = ((script_after - script) / count, (cpu_after - cpu) / count)

        phase("roll", requests, lambda _n: send(roll))

        def attack(_n: int) -> None:
            reply = send(ATTACK)
            if service.table(info.id).undo_stack[-1:] == [reply["seq"]]:  # a hit: heal it
                counter.take()
                send({"type": "undo"})

        phase("attack", requests, attack)
        send({"type": "settings", "settings": {"approval": True, "player_dice": True}})
        supplied = {**roll, "formula": SUPPLIED, "dice": [1_000_000] * 1499}
        for n in range(WAITING):
            send(supplied, player(n))
        table = service.table(info.id)
        assert len(table.pending) == WAITING, table.pending
        phase("waiting roll", requests, lambda _n: send(roll))
        phase("waiting attack", requests, attack)
        waiting = list(table.pending)
        phase("approve", WAITING, lambda n: send({"type": "approve", "request": waiting[n]}))
        assert not table.pending
        store.close()
    finally:
        child.stop()
        shutil.rmtree(folder, ignore_errors=True)
    return {
        name: {"requests": len(sizes), "median": statistics.median(sizes), "min": min(sizes),
               "max": max(sizes), "mean": round(statistics.fmean(sizes), 1),
               "script_usec": round(usec[name][0], 1), "cpu_usec": round(usec[name][1], 1)}
        for name, sizes in phases.items()
    }  # fmt: skip


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Parse the options, run, print the figures (``--json``: one JSON document)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=50, help="measured per phase")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args(argv)
    result = run(args.requests)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print("bytes into Redis per request (its commit), counted by INFO stats")
        for name, figures in result.items():
            print(f"  {name:>13}: median {figures['median']:>8,} (min {figures['min']:,}, "
                  f"max {figures['max']:,}, {figures['requests']} requests); Redis: "
                  f"script {figures['script_usec']} µs, CPU {figures['cpu_usec']} µs a "
                  "request")  # fmt: skip
    return result


if __name__ == "__main__":
    main()
