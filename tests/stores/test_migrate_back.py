"""``rollbridge migrate --from redis://… --to DB_FILE``: tables back from a real
``redis-server`` (``tests/stores/conftest.py``) to a real SQLite file, never a fake.

Before, ``migrate`` took ``--from`` for a file and ``--to`` for Redis only: an
operator scaling back to one machine had no way back (``--from redis://…`` was
refused as "no database file"). The played table of ``test_migrate`` goes SQLite →
Redis → SQLite and reads back the same in every store (the same checksum on both
sides, its undos kept apart as schema 7 keeps them), with its admin token and dice
key; the move refuses a file that holds a table, a file a ``serve`` runs on, a
Redis its ``serve --redis`` processes still claim (unless ``--processes-stopped``),
and both or neither side a URL.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from rollbridge.cli.migrate_back import _report
from rollbridge.cli.serve_lock import hold_unserved
from rollbridge.engine.model import TableInfo
from rollbridge.exceptions import Conflict, StoreError
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.server.cluster_peers import shared
from rollbridge.stores.migrate import SQLiteSource, checksum, dump_table
from rollbridge.stores.migrate_back import RedisSource, migrate_back
from rollbridge.stores.redis import RedisStore
from rollbridge.stores.sqlite import SCHEMA_VERSION, SQLiteStore
from tests.stores.test_migrate import (
    GM,
    RETAIN,
    Played,
    assert_revealed_after,
    migrate,
    play,
    run,
    served_resume,
)
from tests.stores.test_migrate import everything as everything_in


@pytest.fixture
def on_redis(tmp_path: Path, redis_factory) -> tuple[Played, str]:
    """The played file moved to a Redis of its own."""
    played = play(tmp_path)
    redis = redis_factory()
    status, _out, err = migrate(played, redis.url)
    assert status == 0, err
    return played, redis.url


def back(url: str, db: Path, *extra: str) -> tuple[int, str, str]:
    return run("migrate", "--from", url, "--to", str(db), "--retain", str(RETAIN), *extra)


def everything(db: Path) -> dict[str, list]:
    """Every row of every table of a SQLite file (to see nothing was written)."""
    with sqlite3.connect(db) as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {n: sorted(map(repr, conn.execute(f'SELECT * FROM "{n}"'))) for n in names}


def test_tables_go_back_to_a_new_file_whole_and_verified(on_redis, tmp_path):
    played, url = on_redis
    db = tmp_path / "back" / "tables.db"
    db.parent.mkdir()
    redis = RedisStore(url)
    try:
        held = everything_in(redis)
        status, out, err = back(url, db)
        assert everything_in(redis) == held  # Redis only read
    finally:
        redis.close()
    assert status == 0, err
    assert "moved mig: actors 3, events 4" in out and "checksum ok" in out
    assert "moved other: actors 0" in out
    assert "admin tokens: 1 moved" in out and "dice key: written beside the file" in out
    assert not Path(f"{db}.lock").exists()  # the lock it made, removed
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    original = SQLiteSource(played.db, retain=RETAIN)
    redis, moved = RedisStore(url, retain=RETAIN), SQLiteStore(db, retain=RETAIN)
    try:
        for table in ("mig", "other"):
            was, there, now = (dump_table(s, table) for s in (original.store, redis, moved))
            assert checksum(was) == checksum(there) == checksum(now)
            assert moved.load(table) == original.store.load(table)
            latest = was.snapshot.info.seq
            for seq in range(latest - RETAIN + 1, latest + 1):
                assert moved.event(table, seq) == original.store.event(table, seq)
            # schema 7's undos: the undone read of the file reads them as the original's
            assert moved.undos_after(table, 0) == original.store.undos_after(table, 0)
        assert moved.undos_after("mig", 0)  # the played undo is among them
        assert [t.id for t in moved.tables()] == ["mig", "other"]
        # each reply in the same place of the window as the original's
        with sqlite3.connect(played.db) as a, sqlite3.connect(db) as b:
            query = 'SELECT key, seq FROM replies WHERE "table" = ? ORDER BY key'
            latest = original.store.load("mig")[0].info.seq
            window = {k: s for k, s in a.execute(query, ("mig",)) if s > latest - 10 * RETAIN}
            assert dict(b.execute(query, ("mig",))) == window
        assert [r.hash for r in moved.list_admin_tokens()] == [played.admin_hash]
        assert played.revoked not in moved.token_ids()
    finally:
        original.close()
        redis.close()
        moved.close()
    assert Path(f"{db}.dice-key").read_text() == Path(f"{played.db}.dice-key").read_text()


def test_an_existing_file_holding_none_of_the_tables_takes_them(on_redis, tmp_path):
    _played, url = on_redis
    db = tmp_path / "other.db"
    with SQLiteStore(db) as store:  # a table of its own, none of Redis's
        store.create_table(TableInfo("solo", "Solo", "bandits", "1", {}, 1, 0), [])
    status, out, err = back(url, db, "--table", "other", "--json")
    assert status == 0, err
    report = json.loads(out)
    assert [t["table"] for t in report["tables"]] == ["other"] and report["ok"]
    (other,) = report["tables"]  # Redis's checksum, and the file's (named as such)
    assert other["checksum"] == other["sqlite_checksum"] and "redis_checksum" not in other
    with SQLiteStore(db) as store:
        assert sorted(t.id for t in store.tables()) == ["other", "solo"]


def test_a_file_that_holds_one_of_the_tables_is_refused_and_left_as_it_was(on_redis, tmp_path):
    played, url = on_redis
    db = tmp_path / "half.db"
    assert back(url, db, "--table", "other")[0] == 0
    before = everything(db)
    status, out, _err = back(url, db, "--json")
    error = json.loads(out)
    assert (
        status == 1 and error["code"] == "table_exists" and error["details"]["tables"] == ["other"]
    )
    assert everything(db) == before
    del played


def test_a_serve_on_the_file_refuses_the_move(on_redis, tmp_path):
    _played, url = on_redis
    db = tmp_path / "served.db"
    SQLiteStore(db).close()
    before = everything(db)
    lock = hold_unserved(db)  # what a running serve holds
    try:
        status, out, _err = back(url, db, "--json")
    finally:
        assert lock is not None
        lock.release()
    assert status == 1 and json.loads(out)["code"] == "database_in_use"
    assert everything(db) == before


def claim(url: str, node: str, seconds: float) -> None:
    """A ``serve --redis`` process's claim of its settings, as it writes it."""
    store = RedisStore(url)
    try:
        until = int(store.client.time()[0] * 1000 + seconds * 1000)
        store.client.hset(f"{store.keys.prefix}processes", node,
                          f"{until}|{shared(RETAIN, None, 1000)}")  # fmt: skip
    finally:
        store.close()


def test_live_serve_processes_refuse_the_move_unless_said_stopped(on_redis, tmp_path):
    _played, url = on_redis
    claim(url, "gone-long-ago", -60)  # a claim run out: no process
    claim(url, "node-a", 600)
    db = tmp_path / "live.db"
    status, _out, err = back(url, db)
    assert status == 1 and "node-a" in err and "gone-long-ago" not in err
    assert "--processes-stopped" in err
    assert not db.exists() and not Path(f"{db}.lock").exists()  # nothing made
    status, _out, err = back(url, db, "--processes-stopped")
    assert status == 0, err


@pytest.mark.parametrize("pair", [("redis://127.0.0.1:1/0", "redis://127.0.0.1:2/0"),
                                  ("a.db", "b.db")])  # fmt: skip
def test_both_or_neither_side_a_url_is_refused(tmp_path, pair):
    os.chdir(tmp_path)
    status, out, _err = run("migrate", "--from", pair[0], "--to", pair[1], "--json")
    assert status == 1 and json.loads(out)["code"] == "migrate_direction"
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing made


def test_serve_on_the_file_accepts_the_old_tokens_and_resumes(on_redis, tmp_path):
    """SQLite → Redis → SQLite: ``serve --db`` on the new file lets in the GM's join
    token made before both moves and resends what a client from before missed, then
    takes a new roll after (a live commit on the imported rows)."""
    played, url = on_redis
    db = tmp_path / "again.db"
    assert back(url, db)[0] == 0
    last = played.log[-1].seq
    welcome, events = served_resume(["--db", str(db)], played.tokens["gm"], last - 2)
    assert welcome["type"] == "welcome" and welcome["seq"] == last
    assert welcome["resume"] == {"recovered": True, "missed": 2}
    assert [(e["type"], e["seq"]) for e in events] == [("event", last - 1), ("event", last)]
    assert [e["kind"] for e in events] == [e.kind for e in played.log[-2:]]
    with SQLiteStore(db, retain=RETAIN) as store:  # a live commit after the import
        service = TableService(store, PluginHost())
        service.handle("mig", {"type": "roll", "id": "after", "formula": "2d6"}, GM)
        assert [e.seq for e in store.events_after("mig", last) or []] == [last + 1]
        assert store.load("mig")[0].info.seq == last + 1


def test_the_file_is_locked_while_it_is_written(on_redis, tmp_path, monkeypatch):
    """A ``serve`` started on the file while the tables are written refuses
    (``database_in_use``); the lock file the move made is gone after it."""
    from rollbridge.cli.serve_lock import lock_database
    from rollbridge.stores import migrate_back as module

    _played, url = on_redis
    db = tmp_path / "locked.db"
    seen = []
    real = module.migrate_back

    def a_serve_starts_meanwhile(*args, **kwargs):
        with pytest.raises(Conflict) as caught:
            lock_database(db)
        seen.append(caught.value.code)
        assert "or a migrate reading or writing it" in caught.value.render("en")
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "migrate_back", a_serve_starts_meanwhile)
    assert back(url, db)[0] == 0
    assert seen == ["database_in_use"]
    assert not Path(f"{db}.lock").exists()


def test_a_new_file_refused_before_any_table_is_not_left_made(on_redis, tmp_path):
    _played, url = on_redis
    db = tmp_path / "never.db"
    status, out, _err = back(url, db, "--table", "nope", "--json")
    assert status == 1 and json.loads(out)["code"] == "unknown_table"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("never")) == []


def test_redis_gone_midway_leaves_the_tables_before_written_and_the_next_not_at_all(
    tmp_path, redis_factory
):
    """One transaction a table: Redis stopped after the first table was written and
    verified — the file holds that one whole and nothing of the second."""
    played = play(tmp_path)
    redis = redis_factory()
    assert migrate(played, redis.url)[0] == 0
    db = tmp_path / "midway.db"
    source, target = RedisSource(redis.url, retain=RETAIN), SQLiteStore(db, retain=RETAIN)
    try:
        with pytest.raises(StoreError):
            migrate_back(source, target, progress=lambda done, total, table: redis.stop())
        assert [t.id for t in target.tables()] == ["mig"]
        assert target.list_tokens("mig") and len(dump_table(target, "mig").events) == RETAIN
        with sqlite3.connect(db) as conn:
            for child in ("log", "replies", "tokens"):
                rows = conn.execute(f'SELECT count(*) FROM {child} WHERE "table" = ?', ("other",))
                assert rows.fetchone()[0] == 0, child
    finally:
        source.close()
        target.close()


@pytest.mark.parametrize(
    ("locale", "words"),
    [("de", "beanspruchen diesen Redis noch"), ("cs", "si tento Redis stále nárokují"),
     ("ru", "всё ещё заявляют этот Redis"), ("en", "still claim this Redis")],
)  # fmt: skip
def test_the_refusal_of_live_processes_is_in_the_operators_language(
    on_redis, tmp_path, locale, words
):
    _played, url = on_redis
    claim(url, "node-b", 600)
    status, _out, err = back(url, tmp_path / "x.db", "--locale", locale)
    assert status == 1 and words in err and "redis_in_use" in err


def test_a_to_that_can_hold_no_file_is_named_by_its_option(tmp_path):
    """``--to`` a folder, or a file in a folder that does not exist: said with
    ``--to`` (the store's own words said ``give --db``, which names ``--from`` here),
    nothing made, Redis not asked."""
    url = "redis://127.0.0.1:1/0"  # nothing answers: never asked
    status, _out, err = run("migrate", "--from", url, "--to", str(tmp_path))
    assert status == 1 and "it is a folder, not a database file: give --to" in err
    status, _out, err = run("migrate", "--from", url, "--to", str(tmp_path / "no" / "x.db"))
    assert status == 1 and f"its folder {tmp_path / 'no'} does not exist" in err
    assert "--db" not in err and sorted(p.name for p in tmp_path.iterdir()) == []


def test_another_dice_key_beside_the_file_is_refused_for_an_open_segment(on_redis, tmp_path):
    """``mig``'s verifiable segment is open: a key file of another key beside the file
    could never reveal its seed, so nothing is written (and the key stays)."""
    _played, url = on_redis
    db = tmp_path / "keyed.db"
    key = Path(f"{db}.dice-key")
    key.write_text("ab" * 32 + "\n")
    status, out, _err = back(url, db, "--json")
    assert status == 1 and json.loads(out)["code"] == "dice_key_differs"
    assert json.loads(out)["details"]["tables"] == ["mig"]
    assert key.read_text() == "ab" * 32 + "\n" and not db.exists()
    status, out, err = back(url, db, "--table", "other", "--json")  # no open segment
    assert status == 0 and json.loads(out)["dice_key"] == "kept", err


def damage(url: str, how: str) -> tuple[str, str]:
    """Damage one entry in Redis (by hand, another program): the table and key."""
    redis = RedisStore(url)
    try:
        mig, other = redis.keys.table("mig"), redis.keys.table("other")
        if how == "token":  # a join token that is no map
            redis.client.hset(other.tokens, redis.client.hkeys(other.tokens)[0], b"\x01")
            return "other", other.tokens
        if how == "table_id":  # a table id that is no UTF-8
            redis.client.zadd("rb:tables", {b"\xff\xfe": 0})
            return "\ufffd\ufffd", "rb:tables"
        if how == "admin":  # an admin token that is no map
            redis.client.hset("rb:admin_tokens", redis.client.hkeys("rb:admin_tokens")[0], b"\x01")
            return "", "rb:admin_tokens"
        if how == "dice_key":  # no 32-byte key: the file's server could never load it
            redis.client.set("rb:dice_key", b"\x01\x02")
            return "", "rb:dice_key"
        if how == "created":  # no finite time: SQLite would store NULL
            redis.client.hset(other.info, "created", "nan")
            return "other", other.info
        reply = redis.client.hkeys(mig.replies)[0]  # a reply's seq no commit gave
        redis.client.zadd(mig.reply_seqs, {reply: 1e300})
        return "mig", mig.reply_seqs
    finally:
        redis.close()


@pytest.mark.parametrize("how", ["token", "created", "reply_seq", "dice_key", "admin", "table_id"])
def test_a_damaged_entry_is_named_and_nothing_is_written(on_redis, tmp_path, how):
    """A damaged entry in Redis — of the second table too — is a typed error naming
    the table and the key before any table is written (before: a token was a
    traceback; a created time ``nan`` failed SQLite's NOT NULL after ``mig`` was
    written; a reply's seq 1e300 failed as the file's error; a dice key of 2 bytes
    was written beside the file, every table moved, and ``serve`` on it refused it;
    an admin token or a table id of no UTF-8 was a traceback, for ``serve --redis``
    too).
    The file never made."""
    _played, url = on_redis
    table, key = damage(url, how)
    db = tmp_path / "damaged.db"
    status, out, _err = back(url, db, "--json")
    said = json.loads(out)
    assert status == 1 and said["code"] == "store_error", out
    assert said["details"] == {**said["details"], "reason": "damaged", "key": key}
    assert said["details"].get("table", "") == table and key in said["message"]
    assert f"table {table}" in said["message"] if table else "damaged" in said["message"]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("damaged")) == []


def test_a_table_written_in_redis_while_it_moves_is_named_not_ok(on_redis, tmp_path, capsys):
    """A ``serve --redis`` that claims the Redis after the check (or
    ``--processes-stopped`` said too soon) commits to ``mig`` once it was copied:
    that commit is not in the file, so the move is not ok and names the table and
    both seqs (before: every table "checksum ok", exit 0, the commit silently lost)."""
    _played, url = on_redis
    db = tmp_path / "raced.db"
    source, target = RedisSource(url, retain=RETAIN), SQLiteStore(db, retain=RETAIN)
    late = RedisStore(url, retain=RETAIN)

    def meanwhile(done: int, _total: int, table: str) -> None:
        if done == 1:  # mig copied and verified: a process commits to it
            TableService(late, PluginHost()).handle(
                "mig", {"type": "roll", "id": "late", "formula": "1d6"}, GM
            )

    try:
        report = migrate_back(source, target, progress=meanwhile)
        moved = target.tables()[0].seq
        now = late.tables()[0].seq
    finally:
        source.close()
        target.close()
        late.close()
    assert now > moved and report.changed == {"mig": [moved, now]}
    assert all(t.ok for t in report.tables) and not report.ok
    assert report.to_dict()["changed"] == {"mig": [moved, now]}
    args = argparse.Namespace(json=False, locale="en")
    assert _report(args, report) == 1
    assert (
        f"CHANGED mig: Redis was written to while it moved (seq {moved} moved, seq {now} now)"
        in capsys.readouterr().out
    )


def test_the_file_moved_back_reveals_the_seed_committed_before_both_moves(on_redis, tmp_path):
    """docs/dice.md: the segment opened on SQLite, carried to Redis and back, is revealed
    by the moved file's server (its key written beside it), and the player's whole log
    (before and after both moves) verifies. Checked holding in review rev24m."""
    played, url = on_redis
    db = tmp_path / "revealed.db"
    assert back(url, db)[0] == 0
    later = assert_revealed_after(SQLiteStore(db, retain=RETAIN), played)
    assert [e.kind for e in later][-2:] == ["dice.revealed", "dice.committed"]


def test_a_new_file_removed_after_a_failed_first_table_leaves_no_dice_key(
    tmp_path, redis_factory, monkeypatch
):
    """Redis stops once the dice key was written beside the new file, before its first
    table: the file made for the move is removed, and now the key written beside it
    too (before, ``<db>.dice-key`` was left behind, and a later move to that path met
    it as the file's own key)."""
    import rollbridge.stores.migrate_back as back_module

    played = play(tmp_path)
    redis = redis_factory()
    assert migrate(played, redis.url)[0] == 0
    placed = back_module.place_key

    def place_then_stop(path: Path, secret: bytes) -> bool:
        done = placed(path, secret)
        redis.stop()  # Redis gone before the first table is read to be written
        return done

    monkeypatch.setattr(back_module, "place_key", place_then_stop)
    db = tmp_path / "failed.db"
    status, _out, err = back(redis.url, db)
    assert status == 1 and "store_error" in err, err
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("failed")) == []


def test_a_dice_key_there_before_the_move_stays_when_the_new_file_is_removed(
    tmp_path, redis_factory, monkeypatch
):
    """A key file that was beside the path before the move is not the move's: kept."""
    import rollbridge.stores.migrate_back as back_module

    played = play(tmp_path)
    redis = redis_factory()
    assert migrate(played, redis.url)[0] == 0
    db = tmp_path / "kept.db"
    key = Path(f"{db}.dice-key")
    key.write_bytes(Path(f"{played.db}.dice-key").read_bytes())  # the same key
    finish = back_module.finish

    def stop_then_finish(*args: Any) -> Any:
        redis.stop()  # Redis gone before the first table is read to be written
        return finish(*args)

    monkeypatch.setattr(back_module, "finish", stop_then_finish)
    status, _out, err = back(redis.url, db)
    assert status == 1 and "store_error" in err, err
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("kept")) == [key.name]


@pytest.mark.parametrize(
    ("locale", "words"),
    [("en", "is for a move from Redis"), ("de", "gilt für ein Verschieben aus Redis"),
     ("cs", "patří k přesunu z Redisu"), ("ru", "относится к переносу из Redis")],
)  # fmt: skip
def test_processes_stopped_toward_redis_is_refused_not_ignored(
    tmp_path, redis_factory, locale, words
):
    """``--processes-stopped`` says nothing of a move toward Redis (the file's own
    serve refuses it, said or not): refused with ``migrate_option``, nothing moved.
    Before, it was taken and ignored."""
    played = play(tmp_path)
    redis = redis_factory()
    status, out, err = migrate(played, redis.url, "--processes-stopped", "--locale", locale)
    assert status == 1 and words in err and "migrate_option" in err, (out, err)
    store = RedisStore(redis.url)
    try:
        assert store.client.dbsize() == 0  # nothing written
    finally:
        store.close()
    status, out, _err = migrate(played, redis.url, "--processes-stopped", "--json")
    assert status == 1 and json.loads(out)["code"] == "migrate_option"


def test_moved_rows_carry_the_whole_info_once_per_table(on_redis, tmp_path):
    """Each moved log row repeated the table's whole ``info`` (+35 % on the file, 20
    tables of 100 rolls, docs/redis.md): the first row of a table holds it, the rest
    the store's same-info mark, as a served commit writes them; the file reads back
    the same (checksum, load, each event)."""
    played, url = on_redis
    db = tmp_path / "back.db"
    status, _out, err = back(url, db)
    assert status == 0, err
    with sqlite3.connect(db) as conn:
        query = 'SELECT length(info) FROM log WHERE "table" = ? ORDER BY first'
        sizes = [n for (n,) in conn.execute(query, ("mig",))]
    assert len(sizes) > 1 and sizes[0] > 0
    assert sizes[1:] == [0] * (len(sizes) - 1)
    original, moved = SQLiteSource(played.db, retain=RETAIN), SQLiteStore(db, retain=RETAIN)
    try:
        was, now = dump_table(original.store, "mig"), dump_table(moved, "mig")
        assert checksum(was) == checksum(now)
        assert moved.load("mig") == original.store.load("mig")
        latest = was.snapshot.info.seq
        for seq in range(latest - RETAIN + 1, latest + 1):
            assert moved.event("mig", seq) == original.store.event("mig", seq)
    finally:
        original.close()
        moved.close()
