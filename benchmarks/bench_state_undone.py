"""What ``state`` with ``undone`` costs the store's reader thread on a long log.

Run from anywhere, with the Python rollbridge is developed with (3.11+)::

    python benchmarks/bench_state_undone.py
    python benchmarks/bench_state_undone.py --events 40000 --undo-every 500 --dir /var/tmp

An sr2 table on a SQLite file that retains every event (``--events``, 40,000 by
default): Tukan attacks the guard, and every ``--undo-every`` attacks the GM undoes
the last one. Then a player's ``state`` asks ``undone: [1]`` (a page whose oldest line
is the table's first event), with and without ``at`` (the seq before the last
attack). Timed on the store's thread (``Read.run``, the median of ``--repeats``): the
read the protocol sends now, and in the same run the read it sent before
(:func:`before_undone`, :func:`before_at`: every event after the lowest seq asked,
decoded then sifted; every retained event), with the garbage collector's
collections during each. Then that both answer the same. Before those, the first
undone read of a process (a store opened anew on the file): of the first process to
read the table, then of the next one (a table this rollbridge made: the file says
from the start that its rows need no reading), and of the first process on a file an
earlier rollbridge brought to schema 7 (the file's record of the table removed: its
rows without undos read once, :mod:`rollbridge.stores.sqlite_undos`), and of the
first process on that file after ``rollbridge check`` ran on it (the check's own time
printed too: the work it pays ahead, with no player waiting).
"""

from __future__ import annotations

import argparse
import gc
import itertools
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rollbridge.cli import main as cli
from rollbridge.dice.sources import SeededDice
from rollbridge.engine.history import UNDO_KINDS, undone_states
from rollbridge.engine.model import Principal
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.protocol.effects import Read
from rollbridge.stores.sqlite import SQLiteStore

GM = Principal("gm", "gm", "tok-gm")
ALICE = Principal("player", "alice", "tok-alice")
ATTACK = {"type": "resolve", "action": "attack", "actor": "tukan", "targets": ["guard"],
          "params": {"weapon": "Hackler", "range": "short"}}  # fmt: skip


def before_undone(store: SQLiteStore, table_id: str, latest: int, since: int) -> list[Any]:
    """The read of ``undone`` before (main at a799d97a): every event after ``since``,
    decoded, then sifted on the reader thread."""
    start = max(0, latest - store.retain, since)
    return [e for e in store.events_after(table_id, start) or [] if e.kind in UNDO_KINDS]


def before_at(store: SQLiteStore, table_id: str, latest: int) -> list[Any]:
    """The read of ``undone`` with ``at`` before: every retained event."""
    return store.events_after(table_id, max(0, latest - store.retain)) or []


def timed(read: Callable[[], Any], repeats: int) -> tuple[float, int, Any]:
    """The median milliseconds of ``read``, the collections of the garbage
    collector's oldest generation during all of them, and its last result."""
    times, result = [], None
    full = gc.get_stats()[2]["collections"]
    for _ in range(repeats):
        start = time.perf_counter()
        result = read()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000, gc.get_stats()[2]["collections"] - full, result


def tukan_and_the_guard(service: TableService, host: PluginHost) -> None:
    """The sr2 table "t" made on ``service``: Tukan (alice's) and the guard."""
    service.create_table("T", "sr2", table_id="t")
    sheets = host.rulesets["sr2"].example_sheets
    for actor in ({"id": "tukan", "name": "Tukan", "sheet": sheets["Tukan"],
                   "controllers": ["alice"]},
                  {"id": "guard", "name": "Guard A", "sheet": sheets["Guard A"]}):  # fmt: skip
        service.handle("t", {"type": "actor.create", "id": actor["id"], "actor": actor}, GM)


def logged(folder: Path, events: int, undo_every: int) -> tuple[TableService, float]:
    """The sr2 table "t" on a SQLite file in ``folder`` that retains every event:
    Tukan's ``events`` attacks on the guard, the GM undoing every ``undo_every``-th;
    with the seconds that took."""
    host = PluginHost(environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    draws = itertools.count()
    store = SQLiteStore(folder / "undone.db", retain=events + 100)
    service = TableService(store, host, dice=lambda: SeededDice(f"b:{next(draws)}"))
    tukan_and_the_guard(service, host)
    started = time.perf_counter()
    for n in range(events):
        service.handle("t", {**ATTACK, "id": f"a{n}"}, ALICE)
        if n % undo_every == undo_every - 1:
            service.handle("t", {"type": "undo", "id": f"u{n}"}, GM)
    return service, time.perf_counter() - started


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=40_000, help="attacks in the log")
    parser.add_argument("--undo-every", type=int, default=500, help="attacks between undos")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--dir", default=None, help="where the database file is made")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        service, made = logged(Path(folder), args.events, args.undo_every)
        store = service.store
        protocol = service.protocol("t")
        latest = protocol.table.info.seq
        figures: dict[str, float] = {"events": float(latest)}
        for name, request in (("undone", {"type": "state", "id": "s", "undone": [1]}),
                              ("at", {"type": "state", "id": "t", "undone": [1],
                                      "at": latest - 2})):  # fmt: skip
            (read,) = protocol.receive(request, ALICE)
            assert isinstance(read, Read), read
            if name == "undone":  # a new process's first read: the file opened anew
                # its first process, then the next one; then, the table's record
                # removed, the first process on a file an earlier rollbridge filled
                for which in ("first", "next", "earlier", "checked"):
                    if which in ("earlier", "checked"):
                        with sqlite3.connect(store.path) as plain:
                            plain.execute("DROP TABLE IF EXISTS undos_checked")
                    if which == "checked":  # paid ahead by the command, then read
                        started = time.perf_counter()
                        assert cli(["check", str(store.path)]) == 0
                        figures["check_ms"] = (time.perf_counter() - started) * 1000
                        print(f"rollbridge check of the earlier rollbridge's file "
                              f"{figures['check_ms']:9.2f} ms")  # fmt: skip
                    fresh = SQLiteStore(store.path, retain=store.retain)
                    started = time.perf_counter()
                    read.run(fresh)
                    figures[f"{which}_ms"] = (time.perf_counter() - started) * 1000
                    fresh.close()
                    who = {"first": "the first process", "next": "the next process",
                           "earlier": "an earlier rollbridge's file",
                           "checked": "that file after check"}[which]  # fmt: skip
                    print(f"state undone: {who:29}, first read "
                          f"{figures[f'{which}_ms']:9.2f} ms")  # fmt: skip
            now_ms, now_gc, now = timed(lambda r=read: r.run(store), args.repeats)
            if name == "undone":
                old = lambda: before_undone(store, "t", latest, 1)  # noqa: E731
            else:
                old = lambda: before_at(store, "t", latest)  # noqa: E731
            old_ms, old_gc, then = timed(old, args.repeats)
            read.resume(now)  # answered: the next request's read is sent at once
            same = undone_states(now, [1, latest - 1], gm=False) == undone_states(
                then, [1, latest - 1], gm=False
            )
            figures |= {f"{name}_ms": now_ms, f"{name}_before_ms": old_ms,
                        f"{name}_events": float(len(now)),
                        f"{name}_before_events": float(len(then))}  # fmt: skip
            print(f"state {name:6}: now {now_ms:9.2f} ms ({len(now):6} events decoded, "
                  f"{now_gc} full collections); before {old_ms:9.2f} ms ({len(then):6} "
                  f"events, {old_gc} full collections); {old_ms / now_ms:7.1f}x; "
                  f"same answer: {same}")  # fmt: skip
        store.close()
    print(f"log of {latest} events on SQLite (made in {made:.0f} s), "
          f"median of {args.repeats} reads each")  # fmt: skip
    return figures


if __name__ == "__main__":
    main()
