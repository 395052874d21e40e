"""``rollbridge migrate --from DB --to redis://…`` (issue 13, item 3): a real SQLite file
moved to a real ``redis-server`` (``tests/stores/conftest.py``), never a fake.

A played table — actors, events past the reply window, a pending approval, an
encounter, undo and redo, tokens (one revoked), verifiable dice with an open
segment — moves whole: Redis loads what SQLite loads, holds the same event bytes,
replies (in the same place of the reply window) and tokens, and the seed committed
before the move is revealed after it (docs/dice.md). The migration refuses to
overwrite, verifies by counts and checksum (a tampered copy is caught), leaves the
SQLite file as it was, and ``serve --redis`` resumes a client from before the move.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import os
import re
import socket
import subprocess
import sys
import time
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
import pytest
from websockets.asyncio.client import connect

from rollbridge.cli import main
from rollbridge.dice import SeededDice
from rollbridge.dice.verifiable import BAD_KEY
from rollbridge.dice.verify import verify_events
from rollbridge.engine import Principal
from rollbridge.exceptions import Conflict
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores import migrate as migrate_module
from rollbridge.stores.migrate import SQLiteSource, checksum, dump_table, verify_table
from rollbridge.stores.redis import RedisStore
from rollbridge.stores.sqlite import SQLiteStore
from rollbridge.tokens import hash_token, new_admin_token, new_token

#: A short log, so that the played table has events and replies past it.
RETAIN = 4
GM = Principal("gm", "gm", "key-gm")
ALICE = Principal("player", "alice", "key-alice")
ENV = {**os.environ, "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"}


@dataclass
class Played:
    """A SQLite file with two tables played through the real service."""

    db: Path
    tokens: dict[str, str]
    #: Every event of ``mig`` as it was committed (the log keeps only the last few).
    log: list[Any] = field(default_factory=list)
    commitment: str = ""
    admin_hash: str = ""
    revoked: str = ""


def play(folder: Path) -> Played:
    """Table ``mig`` (bandits, verifiable, approval) and a plain table ``other``."""
    (folder / "sqlite").mkdir()
    db = folder / "sqlite" / "tables.db"
    store = SQLiteStore(db, retain=RETAIN)
    host = PluginHost()
    service = TableService(store, host)
    _info, tokens = service.create_table("Mig", "bandits", settings={"verifiable": True},
                                         table_id="mig")  # fmt: skip
    played = Played(db, tokens)
    played.log += store.events_after("mig", 0) or []
    sheets = host.ruleset("bandits").example_sheets
    count = 0

    def send(message: dict[str, Any], who: Principal = GM, seed: int | None = None) -> Any:
        nonlocal count
        count += 1
        reply = service.handle("mig", {"id": f"r{count}", **message}, who,
                               None if seed is None else SeededDice(seed))  # fmt: skip
        played.log += store.events_after("mig", played.log[-1].seq) or []
        return reply

    send({"type": "actor.create", "actor": {"id": "ana", "name": "Ana", "sheet": sheets["Ana"],
                                            "controllers": ["alice"]}})  # fmt: skip
    for name, sheet in sheets.items():
        if name != "Ana":
            send({"type": "actor.create", "actor": {"name": name, "sheet": sheet}})
    for _ in range(45):  # past the reply window (10 × RETAIN seqs)
        send({"type": "roll", "formula": "2d6"})
    send({"type": "settings", "settings": {"approval": True}})
    send({"type": "encounter.start", "order": ["ana"]}, seed=1)
    assert send({"type": "roll", "formula": "1d6"}, ALICE)["status"] == "pending"
    send({"type": "adjust", "actor": "ana", "track": "wounds", "delta": 1})
    send({"type": "undo"})
    played.commitment = store.load("mig")[0].dice["commitment"]
    _secret, alice = new_token("mig", "player", "alice")
    store.add_token(alice)
    played.revoked = store.list_tokens("mig")[2].id  # the observer's
    assert store.revoke_token("mig", played.revoked)
    service.create_table("Other", "bandits", table_id="other")
    _admin, record = new_admin_token("ops")
    store.add_admin_token(record)
    played.admin_hash = record.hash
    store.close()
    return played


@pytest.fixture
def played(tmp_path: Path) -> Played:
    return play(tmp_path)


def run(*argv: str) -> tuple[int, str, str]:
    """``rollbridge …`` in this process: exit status, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


def migrate(played: Played, url: str, *extra: str) -> tuple[int, str, str]:
    return run("migrate", "--from", str(played.db), "--to", url, "--retain", str(RETAIN), *extra)


def everything(store: RedisStore) -> dict[bytes, Any]:
    """Every key of a Redis server and its value (to see that nothing was written)."""
    found = {}
    for key in store.client.keys("*"):
        kind = store.client.type(key)
        if kind == b"hash":
            found[key] = store.client.hgetall(key)
        elif kind == b"zset":
            found[key] = store.client.zrange(key, 0, -1, withscores=True)
        else:
            found[key] = store.client.get(key)
    return found


def folder_state(db: Path) -> dict[str, str]:
    """The SHA-256 of every file beside (and of) the database."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in db.parent.iterdir()}


def sqlite_event_bytes(db: Path, table: str) -> dict[int, bytes]:
    """The packed bytes of each event in the SQLite log, as written (not re-packed)."""
    import sqlite3

    found = {}
    with sqlite3.connect(db) as conn:
        for (blob,) in conn.execute('SELECT events FROM log WHERE "table" = ?', (table,)):
            unpacker = msgpack.Unpacker(raw=False)
            unpacker.feed(blob)
            size = unpacker.read_array_header()
            for _ in range(size):
                start = unpacker.tell()
                data = unpacker.unpack()
                found[data["seq"]] = blob[start : unpacker.tell()]
    return found


def sqlite_reply_seqs(db: Path, table: str) -> dict[str, int]:
    """The seq at which SQLite stored each reply of a table."""
    import sqlite3

    with sqlite3.connect(db) as conn:
        return dict(conn.execute('SELECT key, seq FROM replies WHERE "table" = ?', (table,)))


# -- the move ------------------------------------------------------------------------


def test_a_played_table_moves_whole_and_verified(played, redis_factory):
    redis = redis_factory()
    before = folder_state(played.db)
    status, out, err = migrate(played, redis.url)
    assert status == 0, err
    assert "moved mig: actors 3, events 4" in out
    assert re.search(r"tokens \d+, checksum ok", out), out
    assert "moved other: actors 0" in out
    assert "admin tokens: 1 moved" in out and "dice key: moved to Redis" in out
    assert folder_state(played.db) == before  # only read: no byte, no file changed

    sqlite, target = SQLiteStore(played.db, retain=RETAIN), RedisStore(redis.url, retain=RETAIN)
    try:
        for table in ("mig", "other"):
            assert target.load(table) == sqlite.load(table)
            latest = sqlite.load(table)[0].info.seq
            assert target.events_after(table, latest - RETAIN) == sqlite.events_after(
                table, latest - RETAIN
            )
            assert target.reply_keys(table) == sqlite.reply_keys(table)
            assert target.list_tokens(table) == sqlite.list_tokens(table)
        assert [t.id for t in target.tables()] == ["mig", "other"]
        snapshot, history = target.load("mig")
        assert snapshot.pending and snapshot.encounter.order == ["ana"]
        retained = {s for s in snapshot.undo + snapshot.redo if s > snapshot.info.seq - RETAIN}
        assert snapshot.redo and len(retained) == 2 and set(history) == retained
        assert snapshot.dice["open"] and snapshot.dice["commitment"] == played.commitment
        # the same seqs and the same packed bytes as SQLite wrote
        keys = target.keys.table("mig")
        raw = dict((int(s), m) for m, s in target.client.zrange(keys.log, 0, -1, withscores=True))
        wanted = sqlite_event_bytes(played.db, "mig")
        latest = played.log[-1].seq
        assert raw == {s: wanted[s] for s in raw}
        assert sorted(raw) == list(range(latest - RETAIN + 1, latest + 1))
        # every reply of the window, with its reply and its place in the window
        keys_ = sqlite.reply_keys("mig")
        assert len(keys_) == 40 and "key-gm/r1" not in keys_  # r1 left the window
        for key in keys_:
            assert target.reply("mig", key) == sqlite.reply("mig", key)
        stored_at = sqlite_reply_seqs(played.db, "mig")
        assert stored_at["key-gm/r9"] == 11  # r9 is the 9th request: the roll at seq 11
        assert {k: target.client.zscore(keys.reply_seqs, k) for k in keys_} == {
            k: stored_at[k] for k in keys_
        }
        # tokens still authenticate; the revoked one stays revoked
        gm = target.find_token("mig", hash_token(played.tokens["gm"]))
        assert gm is not None and gm.role == "gm"
        assert target.find_token("mig", hash_token(played.tokens["observer"])) is None
        assert played.revoked not in target.token_ids()
        assert [r.hash for r in target.list_admin_tokens()] == [played.admin_hash]
        key_file = Path(f"{played.db}.dice-key").read_text().strip()
        assert target.stored_dice_secret() == bytes.fromhex(key_file)
    finally:
        sqlite.close()
        target.close()


def test_the_segment_committed_before_the_move_reveals_its_seed_after_it(played, redis_factory):
    """docs/dice.md, verifiable dice: the seed revealed on Redis is the one SQLite's
    server committed to, and every die rolled before the move verifies."""
    redis = redis_factory()
    assert migrate(played, redis.url)[0] == 0
    later = assert_revealed_after(RedisStore(redis.url, retain=RETAIN), played)
    before = [e.seq for e in played.log if e.data.get("draws")]
    after = [e.seq for e in later if e.data.get("draws")]
    assert len(before) == 45 and len(after) == 1  # the 45 rolls before the move, one after


def assert_revealed_after(store: Any, played: Played) -> list[Any]:
    """On the store a table moved to (closed after): a roll, then ``dice.reveal``;
    the seed revealed is the one committed before the move, and the whole log (before
    and after) verifies, every roll. The events after the move."""
    try:
        service = TableService(store, PluginHost())
        service.handle("mig", {"type": "roll", "id": "after", "formula": "3d6"}, GM)
        service.handle("mig", {"type": "dice.reveal", "id": "reveal"}, GM)
        later = store.events_after("mig", played.log[-1].seq)
    finally:
        store.close()
    revealed = [e for e in later if e.kind == "dice.revealed"]
    assert len(revealed) == 1
    seed = bytes.fromhex(revealed[0].data["seed"])
    assert hashlib.sha256(seed).hexdigest() == played.commitment
    log = [{"kind": e.kind, "seq": e.seq, "data": e.data} for e in played.log + later]
    assert [e["seq"] for e in log] == list(range(1, len(log) + 1))
    report = verify_events(json.loads(json.dumps(log)))
    assert report.ok, report.problems
    assert report.segments[1] == "revealed"
    before = [e.seq for e in played.log if e.data.get("draws")]
    after = [e.seq for e in later if e.data.get("draws")]
    assert report.verified_seqs == before + after
    return later


def test_a_backup_moves_as_its_database_does(played, redis_factory, tmp_path):
    """A ``rollbridge backup`` is not in WAL mode: it is read from a copy, untouched;
    being a backup, its tables reach Redis at a new epoch (a restore), everything else
    as the database holds it, and an open verifiable segment marked ``restored``."""
    redis = redis_factory()
    backup = tmp_path / "backup.db"
    assert run("backup", "--db", str(played.db), str(backup))[0] == 0
    key = Path(f"{played.db}.dice-key").read_text()
    Path(f"{backup}.dice-key").write_text(key)  # copied by hand (docs/operations.md)
    before = hashlib.sha256(backup.read_bytes()).hexdigest()
    status, out, _err = run("migrate", "--from", str(backup), "--to", redis.url,
                            "--retain", str(RETAIN), "--json")  # fmt: skip
    assert status == 0, _err
    assert hashlib.sha256(backup.read_bytes()).hexdigest() == before
    beside = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("backup"))
    assert beside == ["backup.db", "backup.db.dice-key"]  # no -wal, no -shm made
    report = json.loads(out)
    assert report["restored"] == 2 and all(t["ok"] for t in report["tables"])
    source, target = SQLiteSource(played.db, retain=RETAIN), RedisStore(redis.url, retain=RETAIN)
    try:
        for table in ("mig", "other"):  # the database itself, at a new epoch
            original, moved = dump_table(source.store, table), dump_table(target, table)
            assert moved.snapshot.info.epoch > original.snapshot.info.epoch
            assert [e.packed() for e in moved.events] == [e.packed() for e in original.events]
            assert moved.replies == original.replies and moved.tokens == original.tokens
            dice = original.snapshot.dice
            if dice and dice.get("open"):
                epoch = original.snapshot.info.epoch
                assert moved.snapshot.dice == {**dice, "epoch": epoch, "restored": True}
    finally:
        source.close()
        target.close()


def test_a_migrated_backup_carries_which_epochs_its_history_ran_through(
    played, redis_factory, tmp_path
):
    """A backup migrated is a restore: each table reaches Redis with the record of its
    epochs (``epochs`` in its meta, which every ``welcome`` shows: docs/protocol.md),
    the new epoch going on from the backup's seq, and a serve on Redis reads it."""
    redis = redis_factory()
    backup = tmp_path / "backup.db"
    assert run("backup", "--db", str(played.db), str(backup))[0] == 0
    Path(f"{backup}.dice-key").write_text(Path(f"{played.db}.dice-key").read_text())
    status, _out, err = run("migrate", "--from", str(backup), "--to", redis.url,
                            "--retain", str(RETAIN), "--json")  # fmt: skip
    assert status == 0, err
    source, target = SQLiteSource(played.db, retain=RETAIN), RedisStore(redis.url, retain=RETAIN)
    try:
        for table in ("mig", "other"):
            original, moved = dump_table(source.store, table), dump_table(target, table)
            was, now = original.snapshot.info, moved.snapshot.info
            # mig's log starts at seq 1 (its first epoch went on from 0); other has no
            # event, so no log row tells where its first epoch began
            first = 0 if table == "mig" else None
            assert moved.snapshot.epochs == [[was.epoch, first], [now.epoch, was.seq]]
            assert target.load(table)[0].epochs == moved.snapshot.epochs
    finally:
        source.close()
        target.close()


def test_named_tables_only(played, redis_factory):
    redis = redis_factory()
    status, out, _err = migrate(played, redis.url, "--table", "other", "--json")
    assert status == 0
    report = json.loads(out)
    assert [t["table"] for t in report["tables"]] == ["other"] and report["ok"]
    store = RedisStore(redis.url, retain=RETAIN)
    try:
        assert store.table_ids() == ["other"]
    finally:
        store.close()
    # the rest later: the admin tokens and the dice key are there already, once
    status, out, _err = migrate(played, redis.url, "--table", "mig", "--json")
    report = json.loads(out)
    assert status == 0 and report["admin_tokens"] == 0 and report["admin_tokens_present"] == 1
    assert report["dice_key"] == "same"


def test_an_unknown_table_is_refused(played, redis_factory):
    redis = redis_factory()
    status, _out, err = migrate(played, redis.url, "--table", "nope")
    assert status == 1 and "unknown_table" in err and "'nope'" in err


def test_a_missing_file_is_refused_and_not_made(tmp_path, redis_factory):
    redis = redis_factory()
    (tmp_path / "empty").mkdir()
    missing = tmp_path / "empty" / "x.db"
    status, _out, err = run("migrate", "--from", str(missing), "--to", redis.url)
    assert status == 1 and "no_database" in err
    assert list(missing.parent.iterdir()) == []


def test_many_tables_report_progress_on_stderr(tmp_path, redis_factory):
    redis = redis_factory()
    store = SQLiteStore(tmp_path / "many.db")
    service = TableService(store, PluginHost())
    made = [service.create_table(f"T{n}", "bandits")[0].id for n in range(12)]
    store.close()
    Path(f"{tmp_path / 'many.db'}.dice-key").unlink()  # made by the service; never used
    status, out, err = run("migrate", "--from", str(tmp_path / "many.db"), "--to", redis.url)
    assert status == 0
    assert [line.split(":")[0] for line in out.splitlines()[:12]] == [f"moved {t}" for t in made]
    assert "1/12 tables moved" in err and f"12/12 tables moved ({made[-1]})" in err
    assert "dice key: none beside the database" in out  # no table is verifiable
    assert not Path(f"{tmp_path / 'many.db'}.dice-key").exists()  # nor made by migrate


# -- refusals: nothing written -----------------------------------------------------


def test_a_table_in_redis_already_is_refused_and_nothing_written(played, redis_factory):
    redis = redis_factory()
    store = RedisStore(redis.url, retain=RETAIN)
    try:
        service = TableService(store, PluginHost())
        service.create_table("Mine", "bandits", table_id="other")
        before = everything(store)
        status, out, err = migrate(played, redis.url)
        assert status == 1 and out == ""
        assert "table_exists" in err and "other" in err and "mig" not in err
        assert everything(store) == before  # not a key more, not a byte changed
    finally:
        store.close()


def test_the_import_script_itself_refuses_an_existing_table(played, redis_factory):
    """The check before writing has a twin inside the script (a table made meanwhile)."""
    redis = redis_factory()
    source = SQLiteSource(played.db, retain=RETAIN)
    store = RedisStore(redis.url, retain=RETAIN)
    try:
        dump = dump_table(source.store, "other")
        store.create_table(dump.snapshot.info, [])
        before = everything(store)
        with pytest.raises(Conflict, match="already exists"):
            migrate_module.write_table(store, dump, source)
        assert everything(store) == before
    finally:
        source.close()
        store.close()


def test_another_dice_key_is_refused_while_a_segment_is_open(played, redis_factory):
    redis = redis_factory()
    store = RedisStore(redis.url, retain=RETAIN)
    try:
        theirs = store.adopt_dice_secret(os.urandom(32))
        before = everything(store)
        status, _out, err = migrate(played, redis.url)
        assert status == 1 and "dice_key_differs" in err and "mig" in err
        assert everything(store) == before
        # a table without an open segment moves; Redis keeps its own key
        status, out, _err = migrate(played, redis.url, "--table", "other")
        assert status == 0 and "dice key: Redis keeps its own" in out
        assert store.stored_dice_secret() == theirs
    finally:
        store.close()


def test_another_dice_key_says_what_to_do_and_doing_it_moves_the_table(
    played, redis_factory, monkeypatch
):
    """A Redis already in service has a dice key of its own, and a verifiable table
    always has a segment open (a reveal opens the next): the refusal says how to move
    it anyway, and doing what it says moves it, its revealed dice still checkable."""
    monkeypatch.setenv("LANGUAGE", "en")
    redis = redis_factory()
    store = RedisStore(redis.url, retain=RETAIN)
    try:
        store.adopt_dice_secret(os.urandom(32))
        status, _out, err = migrate(played, redis.url, "--table", "mig")
        assert status == 1 and "dice_key_differs" in err
        assert "turn the setting verifiable off" in err and "nothing was written" in err
        with SQLiteStore(played.db, retain=RETAIN) as sqlite:  # what the GM does
            reply = TableService(sqlite, PluginHost()).handle(
                "mig", {"id": "off", "type": "settings", "settings": {"verifiable": False}}, GM
            )
            assert reply["status"] == "done"
            seq = sqlite.load("mig")[0].info.seq
            kinds = [event.kind for event in sqlite.events_after("mig", seq - 3) or []]
        assert "dice.revealed" in kinds
        status, out, err = migrate(played, redis.url, "--table", "mig")
        assert status == 0, err
        assert "dice key: Redis keeps its own" in out
    finally:
        store.close()


def test_an_open_segment_without_its_dice_key_is_refused(played, redis_factory):
    redis = redis_factory()
    Path(f"{played.db}.dice-key").unlink()
    status, _out, err = migrate(played, redis.url)
    assert status == 1 and "dice_key_missing" in err and "mig" in err
    store = RedisStore(redis.url)
    try:
        assert everything(store) == {}
    finally:
        store.close()


@pytest.mark.parametrize(
    "junk",
    [b"\xff\xfe\x00 not text", b"zz\n", b"ab" * 31 + b"\n"],
    ids=["bytes", "not hex", "short"],
)
def test_a_dice_key_that_is_none_is_refused_in_the_language_nothing_written(
    played, redis_factory, junk
):
    """The key beside the file read as bytes that are not text ended ``migrate`` with
    a traceback (UnicodeDecodeError), and one that is no key was said in English
    with Python's words (``non-hexadecimal number found in fromhex() arg``); it reads
    the key as the server does now: one line, ``bad_dice_key``, in the reader's
    language, Redis left empty."""
    redis = redis_factory()
    Path(f"{played.db}.dice-key").write_bytes(junk)
    status, _out, err = migrate(played, redis.url, "--locale", "cs")
    assert status == 1 and err.count("\n") == 1, err
    key = f"{played.db}.dice-key"
    assert err == f"rollbridge: error: bad_dice_key: {BAD_KEY(path=key).render('cs')}\n"
    store = RedisStore(redis.url)
    try:
        assert everything(store) == {}
    finally:
        store.close()


# -- verification ------------------------------------------------------------------


def test_a_copy_tampered_between_write_and_verify_is_a_mismatch(played, redis_factory,
                                                                monkeypatch):  # fmt: skip
    redis = redis_factory()
    written = migrate_module.write_table

    def write_then_tamper(target, dump, source):
        written(target, dump, source)
        if dump.snapshot.info.id == "mig":  # one event's bytes changed in Redis
            log = target.keys.table("mig").log
            (member, score), *_ = target.client.zrange(log, 0, 0, withscores=True)
            event = msgpack.unpackb(member)
            event["by"] = "mallory"
            target.client.zrem(log, member)
            target.client.zadd(log, {msgpack.packb(event): score})

    monkeypatch.setattr(migrate_module, "write_table", write_then_tamper)
    status, out, _err = migrate(played, redis.url)
    assert status == 1
    assert "MISMATCH mig: Redis differs in checksum" in out and "moved other:" in out


def test_admin_tokens_are_read_back_too(played, redis_factory, monkeypatch):
    redis = redis_factory()
    monkeypatch.setattr(RedisStore, "add_admin_token", lambda self, record: None)  # lost
    status, out, _err = migrate(played, redis.url)
    assert status == 1 and "moved mig:" in out
    assert "MISMATCH: Redis does not hold every admin token of the file" in out


def test_verify_compares_counts_and_checksum(played, redis_factory):
    redis = redis_factory()
    assert migrate(played, redis.url)[0] == 0
    source = SQLiteSource(played.db, retain=RETAIN)
    target = RedisStore(redis.url, retain=RETAIN)
    try:
        dump = dump_table(source.store, "mig")
        assert verify_table(dump, target).ok
        assert checksum(dump) == checksum(dump_table(target, "mig"))
        gm = target.list_tokens("mig")[0]
        target.revoke_token("mig", gm.id)
        result = verify_table(dump, target)
        assert not result.ok and result.moved["tokens"] == result.counts["tokens"] - 1
        assert result.source_checksum != result.target_checksum
        target.delete_table("mig")
        gone = verify_table(dump, target)
        assert not gone.ok and gone.moved["events"] == 0
    finally:
        source.close()
        target.close()


# -- serving the moved tables ------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def resume(port: int, table: str, token: str, seq: int) -> tuple[dict, list[dict]]:
    """A client that last saw ``seq`` joins again: its welcome and the events resent."""
    async with connect(f"ws://127.0.0.1:{port}/") as ws:
        await ws.send(json.dumps({"type": "hello", "id": "h", "table": table, "token": token,
                                  "resume": {"epoch": 1, "seq": seq}}))  # fmt: skip
        welcome = json.loads(await ws.recv())
        events = []
        for _ in range(welcome.get("resume", {}).get("missed", 0)):
            events.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
        return welcome, events


def served_resume(store: list[str], token: str, seq: int) -> tuple[dict, list[dict]]:
    """``rollbridge serve`` on ``store`` (``--redis URL`` or ``--db FILE``), a real port:
    a client of table ``mig`` that last saw ``seq`` joins again (:func:`resume`)."""
    port = free_port()
    serving = subprocess.Popen(
        [sys.executable, "-m", "rollbridge", "serve", "--port", str(port), *store,
         "--retain", str(RETAIN), "--no-demo"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert serving.poll() is None and time.monotonic() < deadline, "no serve"
                time.sleep(0.05)
        return asyncio.run(resume(port, "mig", token, seq))
    finally:
        serving.terminate()
        serving.communicate(timeout=20)


def test_serve_on_the_moved_tables_resumes_a_client_from_before_the_move(played, redis_factory):
    redis = redis_factory()
    assert migrate(played, redis.url)[0] == 0
    last = played.log[-1].seq
    welcome, events = served_resume(["--redis", redis.url], played.tokens["gm"], last - 2)
    assert welcome["type"] == "welcome" and welcome["seq"] == last
    assert welcome["resume"] == {"recovered": True, "missed": 2}
    assert [(e["type"], e["seq"]) for e in events] == [("event", last - 1), ("event", last)]
    assert [e["kind"] for e in events] == [e.kind for e in played.log[-2:]]


def test_a_file_that_is_no_database_is_one_error_line(tmp_path, redis_factory):
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(os.urandom(50_000))
    status, _, err = run("migrate", "--from", str(garbage), "--to", redis_factory().url)
    assert status == 1 and err.count("\n") == 1
    assert err.startswith("rollbridge: error: store_error: ") and str(garbage) in err


def test_a_corrupt_log_row_is_refused_before_anything_is_written(played, redis_factory):
    import sqlite3

    with sqlite3.connect(played.db) as conn:
        (last,) = conn.execute("SELECT max(last) FROM log WHERE \"table\" = 'mig'").fetchone()
        conn.execute("UPDATE log SET events = X'c1c1' WHERE \"table\" = 'mig' AND last = ?",
                     (last,))  # fmt: skip
    redis = redis_factory()
    store = RedisStore(redis.url)
    status, out, err = migrate(played, redis.url)
    assert status == 1 and out == "" and err.count("\n") == 1
    assert err.startswith("rollbridge: error: store_error: table mig: ") and f"{last}" in err
    assert everything(store) == {}  # no admin token, no dice key, no table


# -- a file a server runs on ---------------------------------------------------------


def test_a_file_a_serve_runs_on_is_refused_and_backup_still_runs(played, redis_factory, tmp_path):
    """``serve`` holds the file's lock: ``migrate`` refuses (``database_in_use``, naming
    the file and the server) and writes nothing, while ``rollbridge backup`` (online)
    still copies the file beside the server; once the server stopped, the file moves.
    While ``migrate`` holds the lock, a ``serve`` refuses to start on the file."""
    from rollbridge.cli.serve_lock import hold_unserved
    from tests.server.test_server_lifecycle import Serve

    redis = redis_factory()
    serving = Serve(played.db, "--no-demo", "--retain", str(RETAIN))
    try:
        status, out, err = migrate(played, redis.url)
        real = played.db.resolve()
        assert (status, out) == (1, "")
        assert err == (
            f"rollbridge: error: database_in_use: a rollbridge serve is running on {real}, "
            f"or another migrate reads it (it holds {real}.lock): stop the serve before "
            "migrating, so that it changes nothing after the copy\n"
        )
        target = RedisStore(redis.url, retain=RETAIN)
        try:
            assert everything(target) == {}  # nothing written
        finally:
            target.close()
        status, out, err = run("backup", "--db", str(played.db), str(tmp_path / "copy.db"))
        assert status == 0 and out.startswith("backed up ") and err == ""
        assert serving.process.poll() is None
    finally:
        assert serving.stop() == 0
        serving.process.communicate(timeout=20)
    held = hold_unserved(played.db)  # as migrate holds it while it reads
    try:
        status, _out, err = run("serve", "--db", str(played.db), "--no-demo", "--port", "0")
        assert status == 1 and err.startswith("rollbridge: error: database_in_use: ")
        assert "or a migrate reading or writing it (wait until it ends)" in err
    finally:
        assert held is not None
        held.release()
    status, out, err = migrate(played, redis.url, "--json")
    assert status == 0 and json.loads(out)["ok"], err


def test_a_file_never_served_is_locked_while_it_moves_and_left_as_it_was(
    played, redis_factory, monkeypatch
):
    """A file no ``serve`` ever ran on has no lock file: ``migrate`` makes it and holds
    it while it reads, so a ``serve`` started meanwhile refuses (before, it took the
    lock and ran beside the copy), then removes it: nothing is left beside the file."""
    from rollbridge.cli import migrate as migrate_command
    from rollbridge.cli.serve_lock import lock_database, lock_path

    lock = Path(lock_path(played.db))
    assert not lock.exists()
    before = folder_state(played.db)
    seen = []
    move = migrate_command._move

    def a_serve_starts_meanwhile(args):
        seen.append(lock.exists())
        with pytest.raises(Conflict) as caught:
            lock_database(played.db)
        seen.append(caught.value.code)
        return move(args)

    monkeypatch.setattr(migrate_command, "_move", a_serve_starts_meanwhile)
    status, _out, err = migrate(played, redis_factory().url, "--json")
    assert status == 0, err
    assert seen == [True, "database_in_use"]
    assert folder_state(played.db) == before  # the lock file it made is gone
    served = lock_database(played.db)  # and the lock is free
    assert served is not None
    os.close(served)
