"""Real storage faults under a running ``rollbridge serve`` on SQLite, with a GM and
a player at a table (docs/operations.md, "When the storage fails"): a file past its
size limit (as a full disk), a lock held by another process, the database file
removed or replaced. Whatever happens, every request is answered (a result, or
``store_error``); every result is in the file afterwards; nobody is shown an event
that was not stored; the server takes changes again by itself once the fault is
mended; and the operator's log says what happened once, not once per request."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from rollbridge.exceptions import StoreUnavailable
from rollbridge.stores.sqlite import SQLiteStore
from tests.server.storage_harness import ENV, Seat, Serve, make_table, stored_seqs

HACKLER = {"name": "Hackler", "code": "7M", "skill": 6}
TUKAN = {"id": "tukan", "name": "Tukan", "controllers": ["player"],
         "sheet": {"body": 5, "weapons": [HACKLER]}}  # fmt: skip
GUARD = {"id": "guard", "name": "Guard", "sheet": {"body": 4}}
ATTACK = {"type": "resolve", "action": "attack", "actor": "tukan", "targets": ["guard"],
          "params": {"weapon": "Hackler", "range": "short"}}  # fmt: skip
#: The attack with the GM's dice: six 2s, not one success (TN 4), so the guard is
#: untouched — an event that changes nothing, which no undo can take back.
MISS = {**ATTACK, "dice": [2] * 6}
#: A roll whose event fills a good part of a page (a label at its longest).
BIG_ROLL = {"type": "roll", "formula": "40d6", "label": "x" * 200}


async def seated(served: Serve, table: str, tokens: dict[str, str]) -> tuple[Seat, Seat, Seat]:
    gm, _ = await Seat.take(served.port, table, tokens["gm"])
    player, _ = await Seat.take(served.port, table, tokens["player"])
    observer, _ = await Seat.take(served.port, table, tokens["observer"])
    return gm, player, observer


@contextlib.asynccontextmanager
async def gm_served(tmp_path: Path) -> AsyncIterator[tuple[Path, str, Serve, Seat]]:
    """An sr2 table made by the CLI on ``rollbridge.db``, ``serve`` on it and its GM
    seated: the file, the table's id, the server and the GM, who leaves before the
    server stops (on the way out, whatever happened)."""
    db = tmp_path / "rollbridge.db"
    table, tokens = make_table("--db", str(db))
    served = Serve(tmp_path / "serve.log", "--db", str(db))
    try:
        gm, _ = await Seat.take(served.port, table, tokens["gm"])
        yield db, table, served, gm
        await gm.close()
    finally:
        served.stop()


def settled(seat: Seat) -> list[int]:
    return [event["seq"] for event in seat.events]


def acknowledged(replies: list[dict[str, Any]]) -> list[int]:
    return [reply["seq"] for reply in replies if reply["type"] == "result" and "seq" in reply]


def check_refusals(replies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every reply a result or ``store_error`` (never ``internal``); the refusals."""
    refused = [reply for reply in replies if reply["type"] == "error"]
    for reply in refused:
        assert reply["code"] == "store_error", reply
        assert "could not confirm this" in reply["message"], reply
    return refused


def errors(served: Serve) -> list[dict[str, Any]]:
    return [line for line in served.lines() if line["level"] in ("ERROR", "CRITICAL")]


async def play_round(
    gm: Seat, player: Seat, attack: dict[str, Any] = ATTACK, attacker: Seat | None = None
) -> list[dict[str, Any]]:
    """A GM and a player at once: rolls, an attack (the player's, unless ``attacker``);
    the GM takes the attack back, naming it, when it was made; the player looks at the
    table.

    An attack that changed nothing (a miss) is no change to undo (docs/engine.md,
    "Undo and redo"): an ``undo`` without ``seq`` took back the change before it —
    the guard's creation, when the undo stack held nothing else — and the next attack
    was refused ``unknown_actor``. Named, that undo is refused ``not_latest``."""
    made = await asyncio.gather(gm.ask(BIG_ROLL), player.ask(BIG_ROLL),
                                (attacker or player).ask(attack))  # fmt: skip
    replies = list(made)
    hit = made[-1]
    if hit["type"] == "result":
        undo = await gm.ask({"type": "undo", "seq": hit["seq"]})
        if hit["event"]["actors"]:  # the guard as the attack left it: the latest change
            replies.append(undo)  # a result, or store_error (check_refusals)
        else:
            assert undo["code"] == "not_latest" and undo["details"]["seq"] == hit["seq"], undo
    state = await player.ask({"type": "state"})
    assert state["type"] == "result", state  # reading goes on, whatever the disk does
    return replies


def serve_with_little_room(tmp_path: Path) -> tuple[Path, str, dict[str, str], Serve]:
    """A table made in a new file, then ``rollbridge serve`` on it, which may write
    files of 96 KiB more than it (``ulimit -f``): the file, the table, its tokens, the
    server."""
    db = tmp_path / "rollbridge.db"
    table, tokens = make_table("--db", str(db))
    room = max(os.path.getsize(db), 32 * 1024) + 96 * 1024
    return db, table, tokens, Serve(tmp_path / "serve.log", "--db", str(db), file_size=room)


@pytest.mark.parametrize("end", ["stopped", "killed"])
async def test_a_full_disk_refuses_changes_loses_nothing_and_recovers_by_itself(tmp_path, end):
    """Then the server is stopped, or killed (kill -9): the file holds exactly what
    was acknowledged, before the disk filled up and after it had room again."""
    db, table, tokens, served = serve_with_little_room(tmp_path)
    try:
        gm, player, observer = await seated(served, table, tokens)
        for actor in (TUKAN, GUARD):
            assert (await gm.ask({"type": "actor.create", "actor": actor}))["type"] == "result"
        replies = await play_round(gm, player, MISS, gm)  # a miss, then as they come
        for _ in range(60):  # until the file can grow no more
            replies += await play_round(gm, player)
            if len(check_refusals(replies)) >= 8:
                break
        refused = check_refusals(replies)
        assert len(refused) >= 8, "the file never filled up"
        await observer.quiet()
        done = acknowledged(replies)
        # nobody was shown a change the file does not hold
        assert set(settled(observer)) - {1, 2} == set(done)
        assert served.metric("rollbridge_store_failing") == 1
        served.lift_file_size_limit()  # the operator frees space: no restart
        after = await gm.ask(BIG_ROLL)
        assert after["type"] == "result", after
        assert after["seq"] == max([2, *done]) + 1
        assert served.metric("rollbridge_store_failing") == 0
        lines = served.lines()
        failing = errors(served)
        recovered = [line for line in lines if line["message"].startswith("the store works")]
        # each outage said once, however many requests it refused, and its end once:
        # usually one; a smaller change that still fitted in the file's last room
        # ends one and the next refusal begins another (seen in 1 run of 8, before
        # and after the store's messages were translated)
        assert 1 <= len(failing) == len(recovered) < len(refused), (failing, recovered)
        for line in failing:
            assert "size limit" in line["message"] and "nothing was written" in line["message"]
        said = [
            re.search(r"(\d+) requests? (?:was|were) refused", line["message"])
            for line in recovered
        ]
        assert all(said), recovered
        assert sum(int(found.group(1)) for found in said) == len(refused), recovered
        for seat in (gm, player, observer):
            await seat.close()
    finally:
        if end == "killed":
            served.process.kill()
            served.process.wait(timeout=20)
        assert served.stop() == (0 if end == "stopped" else -signal.SIGKILL)
    assert stored_seqs(SQLiteStore(db), table) == list(range(1, after["seq"] + 1))
    assert "Traceback" not in served.log.read_text()


def probes_refused(served: Serve) -> float:
    """``rollbridge_store_reads_total{outcome="failed"}``: the server's own tries of
    the store refused, while its clients have left (each read nothing else)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{served.port}/metrics", timeout=10) as got:
        text = got.read().decode()
    name = 'rollbridge_store_reads_total{outcome="failed"}'
    return sum(float(line.split()[-1]) for line in text.splitlines() if line.startswith(name))


async def test_an_idle_server_on_a_full_disk_stays_failing_until_it_has_room(tmp_path):
    """A real ``rollbridge serve`` past its file size limit (``ulimit -f``), its
    players gone: the commit that failed had grown the ``-wal`` up to the limit, so
    the server's own one-page try of the store was written there and said "the store
    works again" (the gauge 0) with no room for any change. Now its tries are refused
    until the limit is lifted; the next one then ends the outage, once."""
    _, table, tokens, served = serve_with_little_room(tmp_path)
    try:
        gm, player, observer = await seated(served, table, tokens)
        for _ in range(60):  # until the file can grow no more
            if check_refusals([await gm.ask(BIG_ROLL)]):
                break
        else:
            raise AssertionError("the file never filled up")
        for seat in (gm, player, observer):
            await seat.close()
        async with asyncio.timeout(60):  # two of the server's own tries (every 5 s)
            while await asyncio.to_thread(probes_refused, served) < 2:
                assert served.metric("rollbridge_store_failing") == 1, served.lines()[-1]
                await asyncio.sleep(0.2)
        assert served.metric("rollbridge_store_failing") == 1
        served.lift_file_size_limit()  # the operator frees space
        async with asyncio.timeout(60):
            while served.metric("rollbridge_store_failing") == 1:
                await asyncio.sleep(0.2)
        said = [line["message"] for line in served.lines()]
        assert len(errors(served)) == 1, said
        assert len([m for m in said if m.startswith("the store works again")]) == 1, said
    finally:
        assert served.stop() == 0
    assert not (tmp_path / "rollbridge.db-probe").exists()
    assert "Traceback" not in served.log.read_text()


def hold_lock(db: Path) -> subprocess.Popen:
    """Another process (an operator's sqlite3 shell) holding the write lock."""
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sqlite3, sys\n"
         f"c = sqlite3.connect({str(db)!r}, isolation_level=None)\n"
         "c.execute('BEGIN IMMEDIATE'); print('held', flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


async def test_a_lock_held_by_another_process_fails_each_batch_once_and_recovers(
    make_tables, debug_log
):
    """Every table's change waits out the lock once (``busy_timeout``), not once
    per table queued behind it: a batch the lock failed is not retried commit by
    commit; once a wait ran out, later changes wait a tenth of it. Nothing is
    applied or shown; after the lock goes, all goes on."""
    world = await make_tables(busy_timeout=1.5)
    sr2, _ = await world.join("sr2", "gm")
    tally, _ = await world.join("tally", "gm")
    watcher, _ = await world.join("tally", "observer")
    before = [await t.request({"type": "state"}) for t in (sr2, tally)]
    holder = hold_lock(world.path)
    try:
        started = time.monotonic()
        refused = await asyncio.gather(
            sr2.request({"type": "roll", "formula": "2d6"}),
            tally.request({"type": "resolve", "action": "hit", "targets": ["guard"],
                           "dice": [3]}),
            tally.request({"type": "roll", "formula": "1d6"}),
        )  # fmt: skip
        waited = time.monotonic() - started
        started = time.monotonic()  # the lock is held for long: later changes wait less
        later = await sr2.request({"type": "roll", "formula": "2d6"})
        shorter = time.monotonic() - started
    finally:
        holder.communicate("", timeout=10)
    assert [r["code"] for r in [*refused, later]] == ["store_error"] * 4, [*refused, later]
    assert waited < 3.5, f"{waited:.1f} s: the lock was waited out once per table"
    assert shorter < 0.9, f"{shorter:.2f} s: each change waits the whole busy timeout"
    assert watcher.events == []
    for peer, was in zip((sr2, tally), before, strict=True):
        assert (await peer.request({"type": "state"}))["table"] == was["table"]
    again = await tally.request({"type": "roll", "formula": "1d6"})
    assert again["seq"] == before[1]["table"]["seq"] + 1
    await watcher.wait_for(lambda p: [e["seq"] for e in p.events] == [again["seq"]])
    logged = debug_log.getvalue()
    assert logged.count('"level": "ERROR"') == 1, logged
    assert "another program holds the database's lock" in logged
    assert "the store works again" in logged


async def refused_under_a_lock(world: Any, probe: Any) -> tuple[Any, subprocess.Popen]:
    """``probe`` made the store's ``probe_write``; a GM's change refused for the write
    lock another process holds, so the outage of changes is on: the GM, the holder."""
    world.server.store.probe_write = probe
    gm, _ = await world.join("tally", "gm")
    holder = hold_lock(world.path)
    try:
        refused = await gm.request({"type": "roll", "formula": "1d6"})
        assert refused["code"] == "store_error", refused
    except BaseException:
        holder.communicate("", timeout=10)
        raise
    return gm, holder


async def test_a_server_nobody_writes_to_sees_the_store_mended_by_itself(make_tables, debug_log):
    """A lock held by another program refuses a change; then the client leaves, and
    the lock goes. Nobody sends another change: the server's outage of changes ended
    only with a commit, so ``rollbridge_store_failing`` stayed 1 and "the store works
    again" never came (an alert that never clears; found in the Redis drills, where a
    process's tables had all moved to another). It now tries a write while changes
    fail (every ``probe_interval`` s) and ends the outage once one is written."""
    world = await make_tables(busy_timeout=0.5, probe_interval=0.1)
    tried: list[int] = []
    probe = world.server.store.probe_write

    def counted() -> None:
        try:
            probe()
        finally:
            tried.append(1)

    gm, holder = await refused_under_a_lock(world, counted)
    try:
        assert world.server.health.changes_failing
        await gm.close()
        async with asyncio.timeout(20):  # two tries refused while the lock is held
            while len(tried) < 2:
                await asyncio.sleep(0.05)
        assert world.server.health.changes_failing
        assert "the store works again" not in debug_log.getvalue()
    finally:
        holder.communicate("", timeout=10)
    async with asyncio.timeout(20):
        while world.server.health.failing is not None:
            await asyncio.sleep(0.05)
    assert "rollbridge_store_failing 0.0" in world.server.metrics.render().decode()
    logged = debug_log.getvalue()
    assert logged.count("the store works again") == 1, logged
    assert "Traceback" not in logged and logged.count('"level": "ERROR"') == 1, logged


async def test_a_probe_refused_before_a_commit_ended_the_outage_does_not_begin_another(
    make_tables, debug_log
):
    """The probe's write is refused (the lock still held); the lock goes, and a change
    sent is written — the outage is over — before the probe's refusal reaches the event
    loop. That refusal told of a store that works again: it began a new outage (an
    ERROR, the gauge 1, until the next try ended it with another "works again")."""
    world = await make_tables(busy_timeout=0.5, probe_interval=0.05)
    calls: list[int] = []
    entered, go = threading.Event(), threading.Event()

    def held() -> None:
        calls.append(1)
        if len(calls) > 1:
            return  # later tries: the store takes writes
        entered.set()
        go.wait(20)
        raise StoreUnavailable("the lock is held", details={"reason": "locked"})

    gm, holder = await refused_under_a_lock(world, held)
    try:
        assert await asyncio.to_thread(entered.wait, 20)
    finally:
        holder.communicate("", timeout=10)
    written = await gm.request({"type": "roll", "formula": "1d6"})
    assert written["status"] == "done", written
    assert world.server.health.failing is None
    go.set()
    async with asyncio.timeout(20):  # until the probe's refusal came back
        while 'rollbridge_store_reads_total{outcome="failed"}' not in (
            world.server.metrics.render().decode()
        ):
            await gm.request({"type": "state"})
    await gm.request({"type": "state"})
    assert world.server.health.failing is None
    assert "rollbridge_store_failing 0.0" in world.server.metrics.render().decode()
    logged = debug_log.getvalue()
    assert logged.count('"level": "ERROR"') == 1, logged
    assert logged.count("the store works again") == 1, logged


async def test_a_probe_written_before_a_commit_failed_does_not_end_the_outage(
    make_tables, debug_log
):
    """The probe's write is taken; before its success reaches the event loop, a change
    sent fails (the lock taken again). That success was older news than the failure:
    it ended the outage — "the store works again", the gauge 0 — with the store
    refusing changes. Now only the next try, or a commit, can end it."""
    world = await make_tables(busy_timeout=0.5, probe_interval=0.05)
    calls: list[int] = []
    entered, go = threading.Event(), threading.Event()
    probe = world.server.store.probe_write

    def written_then_late() -> None:
        calls.append(1)
        if len(calls) > 1:
            return probe()  # later tries: as the store is
        entered.set()
        go.wait(20)  # written: the success comes back late

    gm, holder = await refused_under_a_lock(world, written_then_late)
    try:
        assert await asyncio.to_thread(entered.wait, 20)
        refused = await gm.request({"type": "roll", "formula": "1d6"})  # after the probe
        assert refused["code"] == "store_error", refused
        go.set()
        async with asyncio.timeout(20):  # the late success came back, and a try after it
            while len(calls) < 2 and world.server.health.failing is not None:
                await asyncio.sleep(0.01)
        assert world.server.health.failing is not None
        assert "the store works again" not in debug_log.getvalue()
    finally:
        holder.communicate("", timeout=10)
    async with asyncio.timeout(20):  # the lock gone: the next try ends it, once
        while world.server.health.failing is not None:
            await asyncio.sleep(0.01)
    assert debug_log.getvalue().count("the store works again") == 1


@pytest.mark.parametrize("mistake", ["removed", "replaced", "wal removed"])
async def test_a_database_file_removed_or_replaced_is_not_written_to(tmp_path, mistake):
    """SQLite would go on writing to the file it has open — gone from the folder, or
    no longer the one there — and every change acknowledged from then on would be
    lost with the process. The server refuses them, copies what it holds beside the
    path, and that copy, put in place, serves everything acknowledged."""
    db = tmp_path / "rollbridge.db"
    table, tokens = make_table("--db", str(db))
    served = Serve(tmp_path / "serve.log", "--db", str(db))
    try:
        gm, player, observer = await seated(served, table, tokens)
        done = [await gm.ask({"type": "roll", "formula": "3d6"}) for _ in range(3)]
        if mistake == "removed":
            db.unlink()
        elif mistake == "replaced":  # a copy of the file made before the rolls
            shutil.copy(db, tmp_path / "copy.db")
            os.replace(tmp_path / "copy.db", db)
        else:
            db.with_name(db.name + "-wal").unlink()
        replies = await asyncio.gather(
            gm.ask({"type": "roll", "formula": "2d6"}),
            player.ask({"type": "roll", "formula": "1d6"}),
        )
        assert [r["code"] for r in replies] == ["store_error"] * 2, replies
        await observer.quiet()
        assert settled(observer) == [r["seq"] for r in done]
        failing = errors(served)
        assert len(failing) == 1, failing
        assert "removed, moved or replaced" in failing[0]["message"]
        (rescued,) = tmp_path.glob("rollbridge.db.rescued-*")
        assert str(rescued) in failing[0]["message"]
        for seat in (gm, player, observer):
            await seat.close()
    finally:
        served.stop()
    for name in ("rollbridge.db", "rollbridge.db-wal", "rollbridge.db-shm"):
        (tmp_path / name).unlink(missing_ok=True)
    os.replace(rescued, db)  # what the log says to do
    assert stored_seqs(SQLiteStore(db), table) == [r["seq"] for r in done]


async def test_a_database_file_moved_back_is_written_to_again(tmp_path):
    async with gm_served(tmp_path) as (db, table, served, gm):
        first = await gm.ask({"type": "roll", "formula": "3d6"})
        db.rename(tmp_path / "moved.db")
        refused = await gm.ask({"type": "roll", "formula": "3d6"})
        assert refused["code"] == "store_error", refused
        (tmp_path / "moved.db").rename(db)
        again = await gm.ask({"type": "roll", "formula": "3d6"})
        assert again["seq"] == first["seq"] + 1, again
        assert [line for line in served.lines() if line["message"].startswith("the store works")]
    assert stored_seqs(SQLiteStore(db), table) == [first["seq"], again["seq"]]
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_serve_on_a_full_disk_says_so_and_exits(tmp_path):
    """A start that cannot write (the file, its -wal) is a store_error saying what
    to do, exit 1 — not SQLite's bare "disk I/O error"."""
    db = tmp_path / "rollbridge.db"
    make_table("--db", str(db))

    def full() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (2000, resource.RLIM_INFINITY))

    ended = subprocess.run(
        [sys.executable, "-m", "rollbridge", "serve", "--db", str(db), "--port", "0"],
        capture_output=True, text=True, env=ENV, preexec_fn=full, timeout=60,
    )  # fmt: skip
    assert ended.returncode == 1, ended.stderr
    assert "store_error: cannot open" in ended.stderr
    assert "the disk may be full, the file past a size limit (ulimit -f)" in ended.stderr
    assert "Traceback" not in ended.stderr


async def test_a_file_replaced_before_the_first_change_is_rescued_from_the_file_served(
    tmp_path,
):
    """``mv other.db rollbridge.db`` after the server started and before anyone changed
    anything: the writer thread opens its connection at that first change — on the
    other file. The copy the log says to put in place must be of the file the server
    opened (its tables), not of the one now at the path."""
    db = tmp_path / "rollbridge.db"
    table, tokens = make_table("--db", str(db))
    other = tmp_path / "other.db"
    make_table("--db", str(other))
    served = Serve(tmp_path / "serve.log", "--db", str(db))
    try:
        gm, _ = await Seat.take(served.port, table, tokens["gm"])
        os.replace(other, db)
        refused = await gm.ask({"type": "roll", "formula": "3d6"})
        assert refused["code"] == "store_error", refused
        (rescued,) = tmp_path.glob("rollbridge.db.rescued-*")
        await gm.close()
    finally:
        served.stop()
    with SQLiteStore(rescued) as copy:
        assert [t.id for t in copy.tables()] == [table]


async def test_a_removed_shm_is_told_to_the_operator_and_loses_nothing_of_the_servers(tmp_path):
    """``rm rollbridge.db-shm`` under a running server: changes go on being taken and
    kept; the log says once, as a WARNING, to restart before any other program opens
    the file (docs/operations.md, "A removed -shm")."""
    async with gm_served(tmp_path) as (db, table, served, gm):
        done = [await gm.ask({"type": "roll", "formula": "3d6"})]
        db.with_name(db.name + "-shm").unlink()
        done += [await gm.ask({"type": "roll", "formula": "3d6"}) for _ in range(3)]
        assert all(reply["type"] == "result" for reply in done), done
        told = [line for line in served.lines() if "the -wal's index" in line["message"]]
        assert [line["level"] for line in told] == ["WARNING"], told
        assert "restart the server before any other program" in told[0]["message"]
    assert stored_seqs(SQLiteStore(db), table) == [r["seq"] for r in done]


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,  # the table lost at the stop, not a start or a command that failed
    reason="a program that opens the database after its -shm was removed writes unseen "
    "by the server, whose stop checkpoints without it (docs/operations.md)",
)
async def test_a_table_made_after_the_shm_was_removed_survives_the_servers_stop(tmp_path):
    async with gm_served(tmp_path) as (db, table, _served, gm):
        await gm.ask({"type": "roll", "formula": "3d6"})
        db.with_name(db.name + "-shm").unlink()
        other, _ = make_table("--db", str(db))
    with SQLiteStore(db) as store:
        assert sorted(t.id for t in store.tables()) == sorted([table, other])
