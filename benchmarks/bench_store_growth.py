"""What one table can store: does a hostile player grow the store without bound?

Run from the repository root::

    python benchmarks/bench_store_growth.py                 # --retain 1000 (the default)
    python benchmarks/bench_store_growth.py --retain 100    # a quicker look
    python benchmarks/bench_store_growth.py --json          # one JSON document

One table on each store — a real SQLite file (``serve``) and a real
``redis-server`` this script starts on a free port (``serve --redis``) — is driven
through the real engine and protocol (:class:`~rollbridge.offline.TableService`,
seeded dice) with what its clients may send most of, each kind for a bounded
count:

* ``rolls``: a player's ``roll`` with a unique 64-character request id and a
  200-character label (the largest both may be), ``2 × 10 × retain + retain`` of
  them — past twice the reply window (:func:`~rollbridge.stores.base.reply_window`);
* ``large``: ``2 × retain`` rolls of :data:`BIG`, whose events are ~128 KiB each
  (``--max-event-size``): the retained log at its largest;
* ``actors``: the GM's ``actor.create`` of the largest sheet sr2 accepts (100
  weapons of 80-character names, a 200-character name, 64 controllers) until
  ``max_actors`` (1,000) refuses one more, then as many ``actor.update``;
* ``pending``: with ``approval`` and ``player_dice`` on, players' rolls of
  :data:`SUPPLIED` with their 1,499 dice supplied (the most a player's 8 KiB holds),
  left waiting for the GM, past
  :data:`~rollbridge.engine.pending.MAX_PENDING_BYTES` (64 KiB a table); then
  ``2 × retain`` of the GM's rolls while they wait (before SQLite's schema 6 each
  commit stored the table's whole meta, the pending requests with it; now only the
  commits that change them);
* ``worst``: with those requests still waiting, ``2 × retain`` of the GM's rolls of
  :data:`BIG`: the log at its largest (before schema 6, each SQLite row with the
  largest meta);
* ``verifiable``: with ``verifiable`` on, the GM's ``dice.reveal`` (each ends a
  segment and opens the next) ``2 × retain`` times, and rolls in between.

After each quarter of a phase it samples what the table holds: on Redis every key
of the table (``MEMORY USAGE key SAMPLES 0``, ``ZCARD``/``HLEN``), ``DBSIZE`` and
``INFO memory``'s ``used_memory``; on SQLite the rows of each table of the file,
``page_count × page_size`` (after a checkpoint of the WAL) and the bytes of the log
rows' ``info``, ``state`` and ``events`` (printed as each one's mean per row). A structure is
bounded when its count stops growing at its bound while the requests go on; the
last sample of each phase is the table at its bounds. At the end the table is
deleted, and what is left of it is listed (nothing: only keys of no table). The
bytes a table takes at all its bounds, × 500, is the estimate of docs/operations.md
("What one table can store").
"""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rollbridge.dice import SeededDice
from rollbridge.engine import Principal
from rollbridge.engine.pending import MAX_PENDING
from rollbridge.engine.table import MAX_ACTORS
from rollbridge.exceptions import RollbridgeError
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores import DEFAULT_RETAIN, SQLiteStore
from rollbridge.stores.base import reply_window
from rollbridge.stores.redis_keys import RedisKeys

GM = Principal("gm", "gm", "gm-key")
LABEL = "L" * 200
#: A roll whose event is nearly ``--max-event-size`` (128 KiB): 2,997 dice, each
#: recorded with its result of up to seven digits.
BIG = "999d1000000+999d1000000+999d1000000"
#: The roll with supplied dice whose pending request is the largest one player may keep
#: waiting (:data:`~rollbridge.engine.pending.MAX_PENDING_BYTES_PER_PLAYER`): 1,499 dice.
SUPPLIED = "999d1000000+500d1000000"


def player(n: int) -> Principal:
    """A player token (each scopes its own request ids)."""
    return Principal("player", f"player-{n}", f"player-key-{n}")


def request_id(kind: str, n: int) -> str:
    """A unique request id of the largest length a request may have (64)."""
    return f"{kind}-{n}-".ljust(64, "x")


def big_sheet(n: int) -> dict[str, Any]:
    """The largest actor sr2 accepts: 100 weapons with 80-character names."""
    weapons = [{"name": f"{n}-{w}".ljust(80, "w"), "code": "7M", "skill": 6} for w in range(100)]
    return {"body": 5, "combat_pool": 6, "weapons": weapons}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class RedisChild:
    """A ``redis-server`` of this run, in a temporary folder (no persistence: the
    figures are of memory)."""

    def __init__(self, folder: Path) -> None:
        self.port = _free_port()
        server = shutil.which("redis-server") or "/usr/bin/redis-server"
        self.process = subprocess.Popen(
            [server, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(folder),
             "--save", "", "--appendonly", "no", "--daemonize", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        self.url = f"redis://127.0.0.1:{self.port}/0"
        import redis

        self.client = redis.Redis.from_url(self.url)
        for _ in range(200):
            try:
                self.client.ping()
                return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not answer")

    def stop(self) -> None:
        """End the server this run started (its own pid only)."""
        self.process.terminate()
        self.process.wait(10)


def redis_sample(client: Any, prefix: str, table_id: str) -> dict[str, Any]:
    """Every key of the table: its count of members and its bytes; and the server's."""
    keys = RedisKeys(prefix).table(table_id)
    out: dict[str, Any] = {"keys": {}}
    total = 0
    for kind in ("info", "actors", "order", "log", "replies", "reply_seqs", "commits", "tokens"):
        name = getattr(keys, kind)
        kind_of = client.type(name).decode()
        count = {"hash": client.hlen, "zset": client.zcard}.get(kind_of, lambda _k: 1)(name)
        size = client.memory_usage(name, samples=0) or 0
        total += size
        out["keys"][kind] = {"count": count if kind_of != "none" else 0, "bytes": size}
    out["table_bytes"] = total
    out["dbsize"] = client.dbsize()
    out["used_memory"] = client.info("memory")["used_memory"]
    return out


def sqlite_sample(path: Path) -> dict[str, Any]:
    """Rows of each table of the file and its bytes (after a WAL checkpoint)."""
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        rows = {
            name: conn.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0]
            for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        free = conn.execute("PRAGMA freelist_count").fetchone()[0]
        info, state, events = conn.execute(
            "SELECT total(length(info)), total(length(state)), total(length(events)) FROM log"
        ).fetchone()
    log_bytes = {"info": int(info), "state": int(state), "events": int(events)}
    return {"rows": rows, "file_bytes": pages * size, "used_bytes": (pages - free) * size,
            "log_bytes": log_bytes}  # fmt: skip


def drive(
    service: TableService, table_id: str, sample: Callable[[], dict[str, Any]], retain: int
) -> dict[str, list[dict[str, Any]]]:
    """Each phase's samples (four a phase, the last at its end)."""
    seeds = itertools.count(1)
    service.dice = lambda: SeededDice(next(seeds))
    phases: dict[str, list[dict[str, Any]]] = {}
    refused: dict[str, int] = {}
    current = [""]

    def send(message: dict[str, Any], who: Principal) -> None:
        try:
            service.handle(table_id, message, who)
        except RollbridgeError as exc:
            key = f"{current[0]}:{exc.code}"
            refused[key] = refused.get(key, 0) + 1

    def settings(name: str, **values: bool) -> None:
        send({"type": "settings", "id": name, "settings": values}, GM)

    def phase(name: str, count: int, one: Callable[[int], None]) -> None:
        current[0] = name
        samples = []
        for n in range(count):
            one(n)
            if (n + 1) % max(1, count // 4) == 0 or n + 1 == count:
                samples.append({"requests": n + 1, **sample()})
        phases[name] = samples

    roll = {"type": "roll", "formula": "1d6", "label": LABEL}
    big = {**roll, "formula": BIG}

    def small_roll(n: int) -> None:
        send({**roll, "id": request_id("r", n)}, player(1))

    def large_roll(n: int) -> None:
        send({**big, "id": request_id("b", n)}, player(1))

    phase("rolls", 2 * reply_window(retain) + retain, small_roll)
    phase("large", 2 * retain, large_roll)

    def actor(n: int) -> None:
        ident = f"a{n % MAX_ACTORS}".ljust(64, "a")
        if n < MAX_ACTORS + 10:
            controllers = [f"p{c}".ljust(64, "c") for c in range(64)]
            spec = {"id": f"a{n}".ljust(64, "a"), "name": f"{n}".ljust(200, "n"),
                    "sheet": big_sheet(n), "controllers": controllers}  # fmt: skip
            send({"type": "actor.create", "id": request_id("c", n), "actor": spec}, GM)
        else:
            name = f"u{n}".ljust(200, "u")
            send({"type": "actor.update", "id": request_id("u", n), "actor": ident, "name": name},
                 GM)  # fmt: skip

    phase("actors", 2 * MAX_ACTORS, actor)

    settings("approval-on", approval=True, player_dice=True)
    players = MAX_PENDING // 8 * 2  # twice as many players as the table holds requests of
    # the largest a player may keep waiting
    supplied = {**roll, "formula": SUPPLIED, "dice": [1_000_000] * 1499}

    def pending(n: int) -> None:
        if n < players * 16:  # the players fill the table's pending requests
            send({**supplied, "id": request_id("p", n)}, player(n % players))
        else:  # then the GM plays on, while they wait
            send({**roll, "id": request_id("g", n)}, GM)

    def worst(n: int) -> None:
        send({**big, "id": request_id("x", n)}, GM)

    phase("pending", players * 16 + 2 * retain, pending)
    # the worst a table holds: the log full of the largest events, each row (on
    # SQLite) with the meta of 64 KiB of requests still waiting
    phase("worst", 2 * retain, worst)
    settings("approval-off", approval=False, player_dice=False)
    settings("verifiable-on", verifiable=True)

    def verifiable(n: int) -> None:
        if n % 2:
            send({"type": "dice.reveal", "id": request_id("v", n)}, GM)
        else:
            send({**roll, "formula": "20d6", "id": request_id("w", n)}, player(1))

    phase("verifiable", 4 * retain, verifiable)
    phases["refused"] = [refused]  # type: ignore[list-item]
    return phases


def run(retain: int, folder: Path) -> dict[str, Any]:
    """Both stores, one table each, at ``retain``."""
    host = PluginHost({}, environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    result: dict[str, Any] = {"retain": retain, "reply_window": reply_window(retain)}

    path = folder / "growth.db"
    sqlite_store = SQLiteStore(path, retain=retain)
    try:
        service = TableService(sqlite_store, host, clock=None)
        info, _ = service.create_table("Growth", "sr2", table_id="growth")
        result["sqlite"] = drive(service, info.id, lambda: sqlite_sample(path), retain)
        sqlite_store.delete_table(info.id)  # and then nothing of it is left
        result["sqlite_deleted"] = sqlite_sample(path)
    finally:
        sqlite_store.close()

    from rollbridge.stores.redis import RedisStore

    child = RedisChild(folder)
    try:
        empty = child.client.info("memory")["used_memory"]
        redis_store = RedisStore(child.url, retain=retain)
        service = TableService(redis_store, host, clock=None)
        info, _ = service.create_table("Growth", "sr2", table_id="growth")
        result["redis_empty_used_memory"] = empty
        result["redis"] = drive(
            service, info.id, lambda: redis_sample(child.client, "rb:", info.id), retain
        )
        redis_store.delete_table(info.id)
        result["redis_deleted"] = {"keys": sorted(k.decode() for k in child.client.keys("*"))}
        redis_store.close()
    finally:
        child.stop()
    return result


def report(result: dict[str, Any]) -> None:
    """The figures, one line a sample."""
    print(f"retain {result['retain']}, reply window {result['reply_window']} seqs")
    deleted = result["sqlite_deleted"]
    print(f"  deleted: sqlite rows {deleted['rows']}, redis keys {result['redis_deleted']['keys']}")
    for phase, samples in result["sqlite"].items():
        if phase == "refused":
            print(f"  sqlite refused: {samples[0]}")
            continue
        for s in samples:
            rows, logged = s["rows"]["log"], s["log_bytes"]
            per_row = {k: round(v / rows) if rows else 0 for k, v in logged.items()}
            print(f"  sqlite {phase:10} {s['requests']:6} requests: "
                  f"{s['used_bytes']:>11,} bytes used, rows {s['rows']}, "
                  f"log row bytes (mean) {per_row}")  # fmt: skip
    for phase, samples in result["redis"].items():
        if phase == "refused":
            print(f"  redis refused: {samples[0]}")
            continue
        for s in samples:
            counts = {k: (v["count"], v["bytes"]) for k, v in s["keys"].items() if v["count"]}
            print(f"  redis  {phase:10} {s['requests']:6} requests: "
                  f"{s['table_bytes']:>11,} bytes in the table's keys, "
                  f"used_memory {s['used_memory']:,}, dbsize {s['dbsize']}, "
                  f"(members, bytes) {counts}")  # fmt: skip


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run and print (or ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--retain", type=int, default=DEFAULT_RETAIN)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        result = run(args.retain, Path(folder))
    if args.json:
        json.dump(result, sys.stdout, indent=1)
        print()
    else:
        report(result)
    return result


if __name__ == "__main__":
    main()
