"""SQLiteStore beyond the Store contract: durability settings, group commit,
other processes on the same file, threads, kill -9, schema versions."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from rollbridge.dice import SeededDice
from rollbridge.engine import (
    ActorRecord,
    Commit,
    Event,
    Principal,
    Table,
    TableInfo,
    TableSnapshot,
)
from rollbridge.exceptions import StoreError, UnknownTable
from rollbridge.offline import TableService
from rollbridge.stores import sqlite as sqlite_module
from rollbridge.stores.sqlite import SCHEMA_VERSION, SQLiteStore
from rollbridge.testing import host_with
from rollbridge.tokens import hash_token, new_token

GM = Principal("gm", "gm", "tok-gm")
CONFTEST = Path(__file__).resolve().parents[1] / "conftest.py"
#: The size the ``-wal`` file is cut back to (docs/operations.md, "Backups").
WAL_LIMIT = 8 * 1024 * 1024


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "rollbridge.db"


@pytest.fixture
def store(db: Path):
    opened = SQLiteStore(db)
    yield opened
    opened.close()


def info(table_id: str = "t") -> TableInfo:
    return TableInfo(table_id, f"Table {table_id}", "tally", "1.2.0", {"approval": False})


def commit_at(table_id: str, first: int, events: int = 1, **data: Any) -> Commit:
    """A commit bringing events ``first`` .. ``first + events - 1``."""
    last = first + events - 1
    new = [Event(table_id, 1, n, "roll", data={"total": n, **data}) for n in range(first, last + 1)]
    actor = ActorRecord(f"a{last}", "A", {"hp": 5}, {"damage": 0})
    meta = {"encounter": None, "pending": {}, "undo": [], "redo": []}
    table = TableInfo(table_id, f"Table {table_id}", "tally", "1.2.0", {"approval": False}, 1, last)
    return Commit(new, [actor], [], table, meta, {f"k{last}": {"seq": last}})


def dump(path: Path) -> list[Any]:
    """Every row of every table, read with a plain connection."""
    conn = sqlite3.connect(path)
    try:
        return [
            conn.execute(f"SELECT * FROM {name} ORDER BY 1, 2").fetchall()
            for name in ("tables", "log", "replies", "tokens")
        ]
    finally:
        conn.close()


def run_python(code: str, *args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


class TestSettings:
    def test_wal_synchronous_full_foreign_keys_busy_timeout(self, store, db):
        def pragmas() -> tuple[Any, ...]:
            conn = store._conn()
            return tuple(
                conn.execute(f"PRAGMA {name}").fetchone()[0]
                for name in ("journal_mode", "synchronous", "foreign_keys", "busy_timeout")
            )

        assert pragmas() == ("wal", 2, 1, 10_000)  # synchronous 2 = FULL
        # every thread's connection gets them
        seen: list[Any] = []
        thread = threading.Thread(target=lambda: seen.append(pragmas()))
        thread.start()
        thread.join()
        assert seen == [("wal", 2, 1, 10_000)]
        assert len(store._connections) == 2
        # WAL is a property of the file: a plain connection sees it too
        plain = sqlite3.connect(db)
        assert plain.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        plain.close()

    def test_every_connection_limits_the_wal_file(self, store):
        """``journal_size_limit`` holds for the connection of each thread (whichever
        writes after a checkpoint cuts the file back)."""

        def limit() -> int:
            return store._conn().execute("PRAGMA journal_size_limit").fetchone()[0]

        seen: list[int] = []
        threads = [threading.Thread(target=lambda: seen.append(limit())) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert [limit(), *seen] == [WAL_LIMIT] * 4
        assert len(store._connections) == 4
        assert sqlite_module.JOURNAL_SIZE_LIMIT == WAL_LIMIT

    def test_a_wal_grown_while_a_read_held_the_checkpoint_is_cut_back(self, store, db):
        """A long read keeps SQLite from starting the WAL over, so it grows past the
        limit; once the read is done, the next commits checkpoint it and start it over
        at most the limit long (before, it stayed at its largest for good)."""
        store.create_table(info("t"), [])
        wal = db.with_name(db.name + "-wal")
        reader = sqlite3.connect(db, isolation_level=None)
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM log").fetchone()  # holds its snapshot
        seq, filler = 1, "x" * 60_000
        while wal.stat().st_size <= WAL_LIMIT + 4 * 1024 * 1024:
            store.commit_many([("t", commit_at("t", n, filler=filler))
                               for n in range(seq, seq + 20)])  # fmt: skip
            seq += 20
        grown = wal.stat().st_size
        reader.execute("COMMIT")
        reader.close()
        for n in range(seq, seq + 3):  # a checkpoint, then a write that starts it over
            store.commit("t", commit_at("t", n))
        assert wal.stat().st_size <= WAL_LIMIT < grown
        assert [e.seq for e in store.events_after("t", seq - 1)] == [seq, seq + 1, seq + 2]

    def test_schema_version_is_recorded(self, store, db):
        plain = sqlite3.connect(db)
        assert plain.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 7
        plain.close()

    def test_closed_store_refuses_calls(self, db):
        store = SQLiteStore(db)
        store.close()
        store.close()  # idempotent
        with pytest.raises(StoreError, match="closed"):
            store.tables()

    def test_a_file_that_is_not_a_database(self, db):
        db.write_bytes(b"this is not sqlite" * 100)
        with pytest.raises(StoreError, match="cannot open"):
            SQLiteStore(db)


class TestMigrations:
    def test_a_newer_file_is_refused(self, db):
        SQLiteStore(db).close()
        plain = sqlite3.connect(db)
        plain.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        plain.close()
        with pytest.raises(StoreError, match="newer"):
            SQLiteStore(db)

    def test_a_migration_step_runs_once_on_an_older_file(self, db, monkeypatch):
        with SQLiteStore(db) as store:
            store.create_table(info(), [])
        calls = []

        def add_index(conn: sqlite3.Connection) -> None:
            calls.append(1)
            conn.execute('CREATE INDEX events_by_kind ON log ("table", last DESC)')

        monkeypatch.setattr(sqlite_module, "MIGRATIONS", (*sqlite_module.MIGRATIONS, add_index))
        monkeypatch.setattr(sqlite_module, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
        for _ in range(2):
            with SQLiteStore(db) as store:
                assert [i.id for i in store.tables()] == ["t"]
        assert calls == [1]
        plain = sqlite3.connect(db)
        assert plain.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
        assert plain.execute("SELECT name FROM sqlite_master WHERE name = 'events_by_kind'")
        plain.close()

    def test_a_version_3_file_gets_admin_tokens_keeping_its_tables(self, db):
        plain = sqlite3.connect(db, isolation_level=None)
        for step in sqlite_module.MIGRATIONS[:3]:
            step(plain)
        plain.execute("PRAGMA user_version = 3")
        plain.close()
        with SQLiteStore(db) as store:
            store.create_table(info(), [])
            assert store.list_admin_tokens() == []
        plain = sqlite3.connect(db)
        assert plain.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 7
        plain.close()

    def test_a_version_1_file_is_brought_up_to_date_keeping_replies(self, db):
        plain = sqlite3.connect(db, isolation_level=None)
        sqlite_module.MIGRATIONS[0](plain)  # the schema as version 1 wrote it
        plain.execute("PRAGMA user_version = 1")
        plain.execute(
            "INSERT INTO tables (id, name, ruleset, ruleset_version, settings, epoch, seq, meta,"
            " created) VALUES ('t', 'T', 'tally', '1.2.0', ?, 1, 5, ?, 0)",
            (sqlite_module.pack({}), sqlite_module.pack(TableSnapshot(info(), {}).meta())),
        )
        plain.execute("""INSERT INTO replies ("table", key, reply) VALUES ('t', 'k', ?)""",
                      (sqlite_module.pack({"seq": 5}),))  # fmt: skip
        plain.close()
        with SQLiteStore(db) as store:
            assert store.reply("t", "k") == {"seq": 5}
            assert store.tables()[0].seq == 5
        plain = sqlite3.connect(db)
        assert plain.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        plain.close()

    def test_a_version_2_file_becomes_append_only_keeping_everything(self, db, tally):
        """v2 kept actors and events as rows updated in place; v3 a snapshot and a log."""
        plain = sqlite3.connect(db, isolation_level=None)
        for step in sqlite_module.MIGRATIONS[:2]:
            step(plain)
        plain.execute("PRAGMA user_version = 2")
        settings = {"approval": False, "player_dice": False, "ruleset": {}}
        meta = {"encounter": None, "pending": {}, "undo": [3], "redo": []}
        plain.execute(
            "INSERT INTO tables (id, name, ruleset, ruleset_version, settings, epoch, seq, meta,"
            " created) VALUES ('t', 'Old', 'tally', '1.2.0', ?, 1, 3, ?, 0)",
            (sqlite_module.pack(settings), sqlite_module.pack(meta)),
        )
        records = [
            ActorRecord("bo", "Bo", {"hp": 8}, {"damage": 2, "rounds": 0, "turns": 0}, ["bob"]),
            ActorRecord("ana", "Ana", {"hp": 10}, {"damage": 0, "rounds": 0, "turns": 0}),
        ]
        for pos, record in enumerate(records):
            plain.execute(
                'INSERT INTO actors ("table", id, pos, record) VALUES (?, ?, ?, ?)',
                ("t", record.id, pos, sqlite_module.pack(record.to_dict())),
            )
        for seq in (2, 3):  # seq 1 had left the log
            event = Event("t", 1, seq, "adjusted", data={"n": seq}, undoable=True)
            plain.execute(
                'INSERT INTO events ("table", seq, data) VALUES (?, ?, ?)',
                ("t", seq, sqlite_module.pack(event.to_dict())),
            )
        plain.execute(
            """INSERT INTO replies ("table", key, reply, seq) VALUES ('t', 'g/r3', ?, 3)""",
            (sqlite_module.pack({"seq": 3, "status": "done", "event": {"seq": 3}}),),
        )
        plain.close()
        with SQLiteStore(db) as store:
            (table,) = store.tables()
            assert (table.name, table.seq, table.settings) == ("Old", 3, settings)
            snapshot, history = store.load("t")
            assert list(snapshot.actors) == ["bo", "ana"]
            assert snapshot.actors["bo"] == records[0]
            assert snapshot.undo == [3] and sorted(history) == [3]
            assert [e.seq for e in store.events_after("t", 1)] == [2, 3]
            assert store.reply("t", "g/r3")["event"] == {"seq": 3}
            service = TableService(store, host_with(tally))
            done = service.handle("t", {"type": "roll", "id": "n", "formula": "1d6"}, GM)
            assert done["seq"] == 4
            assert service.handle("t", {"type": "undo", "id": "u"}, GM)["seq"] == 5
        with SQLiteStore(db) as store:
            assert [e.seq for e in store.events_after("t", 1)] == [2, 3, 4, 5]
            names = {r[0] for r in sqlite3.connect(db).execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}  # fmt: skip
            assert {"log", "tables", "replies", "tokens"} <= names
            assert not names & {"actors", "events"}

    def test_a_failed_migration_changes_nothing(self, db, monkeypatch):
        SQLiteStore(db).close()
        before = dump(db)

        def broken(conn: sqlite3.Connection) -> None:
            conn.execute("CREATE TABLE extra (x)")
            raise RuntimeError("half-way")

        monkeypatch.setattr(sqlite_module, "MIGRATIONS", (*sqlite_module.MIGRATIONS, broken))
        monkeypatch.setattr(sqlite_module, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
        with pytest.raises(StoreError, match="half-way"):
            SQLiteStore(db)
        plain = sqlite3.connect(db)
        assert plain.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert not plain.execute("SELECT 1 FROM sqlite_master WHERE name = 'extra'").fetchall()
        plain.close()
        assert dump(db) == before


class TestGroupCommit:
    def test_a_batch_is_one_transaction(self, store):
        store.create_table(info("a"), [])
        store.create_table(info("b"), [])
        store.commit("a", commit_at("a", 1))
        statements: list[str] = []
        store._conn().set_trace_callback(statements.append)
        store.commit_many(
            [
                ("a", commit_at("a", 2, events=2)),
                ("b", commit_at("b", 1)),
                ("a", store.prepare(commit_at("a", 4))),  # prepared commits mix in
            ]
        )
        store._conn().set_trace_callback(None)
        assert statements.count("BEGIN IMMEDIATE") == statements.count("COMMIT") == 1
        assert [e.seq for e in store.events_after("a", 0)] == [1, 2, 3, 4]
        assert [e.seq for e in store.events_after("b", 0)] == [1]
        assert [(i.id, i.seq) for i in store.tables()] == [("a", 4), ("b", 1)]
        assert list(store.load("a")[0].actors) == ["a1", "a3", "a4"]
        assert store.reply("b", "k1") == {"seq": 1}

    @pytest.mark.parametrize("failure", ["unserialisable", "unknown table", "stale seq"])
    def test_a_batch_is_all_or_nothing(self, store, db, failure):
        store.create_table(info("a"), [])
        store.create_table(info("b"), [])
        store.commit("a", commit_at("a", 1))
        before = dump(db)
        good_a = commit_at("a", 2, events=2)
        good_b = commit_at("b", 1)
        if failure == "unserialisable":
            bad = ("b", commit_at("b", 2, lock=threading.Lock()))
        elif failure == "unknown table":
            bad = ("nope", commit_at("nope", 1))
        else:  # a second commit for b that repeats seq 1
            bad = ("b", commit_at("b", 1))
        error = UnknownTable if failure == "unknown table" else StoreError
        with pytest.raises(error):
            store.commit_many([("a", good_a), ("b", good_b), bad])
        assert dump(db) == before
        store.commit_many([("a", good_a), ("b", good_b)])  # the good ones still apply
        assert [i.seq for i in store.tables()] == [3, 1]

    def test_an_empty_batch_is_nothing(self, store, db):
        before = dump(db)
        store.commit_many([])
        assert dump(db) == before


class TestReplyFilter:
    """The table's filter of stored reply keys (built from the store when the
    table opens) spares the idempotency check of a new request id a store read."""

    @staticmethod
    def reads(service: TableService, table_id: str, message: dict[str, Any]) -> list[str]:
        """The store reads the protocol asks for while handling ``message``."""
        from rollbridge.protocol.effects import Read

        protocol = service.protocol(table_id)
        seen: list[str] = []
        pending = protocol.receive(message, GM)
        while pending:
            effect = pending.pop(0)
            if isinstance(effect, Read):
                seen.append(type(effect).__name__)
                pending[:0] = effect.resume(effect.run(service.store))
            elif hasattr(effect, "commit") and effect.commit is not None:
                service.store.commit(effect.table_id, effect.commit)
                pending[:0] = effect.resume(None)
        return seen

    def test_an_unseen_key_is_executed_without_reading_the_store(self, db, tally):
        service = TableService(SQLiteStore(db), host_with(tally))
        service.create_table("Filter", "tally", table_id="t")
        reads = [
            self.reads(service, "t", {"type": "roll", "id": f"fresh-{n}", "formula": "1d6"})
            for n in range(200)
        ]
        assert sum(len(r) for r in reads) < 20  # only the filter's rare false "maybe"
        service.store.close()

    def test_a_key_stored_before_the_table_opened_is_looked_up(self, db, tally):
        first = TableService(SQLiteStore(db), host_with(tally))
        first.create_table("Filter", "tally", table_id="t")
        reply = first.handle("t", {"type": "roll", "id": "k1", "formula": "1d6"}, GM)
        first.store.close()
        restarted = TableService(SQLiteStore(db), host_with(tally))
        assert self.reads(restarted, "t", {"type": "roll", "id": "k1", "formula": "1d6"}) == [
            "FindReply",
            "ReadEvent",  # the reply names its event; the view is built from the log
        ]
        assert restarted.handle("t", {"type": "roll", "id": "k1", "formula": "1d6"}, GM) == reply
        assert restarted.table("t").info.seq == 1
        restarted.store.close()

    def test_a_reply_stored_by_another_store_is_never_applied_twice(self, db, tally):
        """Two services on one file: the second opened its table (and read its
        keys) before the first stored request x. A retry of x at the second fails
        the sequence guard (its table is stale), and the retry after that finds
        x's reply."""
        first = TableService(SQLiteStore(db), host_with(tally))
        first.create_table("Shared", "tally", table_id="t")
        roll = {"type": "roll", "formula": "1d6"}
        first.handle("t", {**roll, "id": "a1"}, GM)
        second = TableService(SQLiteStore(db), host_with(tally))
        second.handle("t", {**roll, "id": "b1"}, GM)  # opens the second's table
        with pytest.raises(StoreError):
            first.handle("t", {**roll, "id": "x"}, GM)  # stale: reloads
        stored = first.handle("t", {**roll, "id": "x"}, GM)
        with pytest.raises(StoreError, match="at seq 3"):
            second.handle("t", {**roll, "id": "x"}, GM)  # its table is stale
        assert second.handle("t", {**roll, "id": "x"}, GM) == stored
        assert [e.request for e in first.store.events_after("t", 0)] == ["a1", "b1", "x"]
        first.store.close()
        second.store.close()

    def test_reply_keys_of_a_table(self, store):
        with pytest.raises(UnknownTable):
            store.reply_keys("nope")
        store.create_table(info(), [])
        store.commit("t", commit_at("t", 1))
        store.commit("t", commit_at("t", 2))
        assert sorted(store.reply_keys("t")) == ["k1", "k2"]
        store.delete_table("t")
        with pytest.raises(UnknownTable):
            store.reply("t", "k1")


class TestSequenceGuard:
    def test_a_stale_commit_is_refused_and_the_service_recovers(self, db, tally):
        """Two services on one file (as a CLI and a server would be): the one
        with a stale table gets a StoreError, reloads, and goes on."""
        first = TableService(SQLiteStore(db), host_with(tally))
        first.create_table("Shared", "tally", table_id="t")
        roll = {"type": "roll", "formula": "1d6"}
        assert first.handle("t", {**roll, "id": "a1"}, GM)["seq"] == 1
        second = TableService(SQLiteStore(db), host_with(tally))
        assert second.handle("t", {**roll, "id": "b1"}, GM)["seq"] == 2
        with pytest.raises(StoreError, match="at seq 2"):
            first.handle("t", {**roll, "id": "a2"}, GM)  # its table still says seq 1
        assert first.handle("t", {**roll, "id": "a2"}, GM)["seq"] == 3  # reloaded
        assert [e.request for e in first.store.events_after("t", 0)] == ["a1", "b1", "a2"]
        first.store.close()
        second.store.close()


class TestOtherProcesses:
    CLI = """
        import sys, time
        from rollbridge.engine import TableInfo
        from rollbridge.stores import SQLiteStore
        from rollbridge.tokens import new_token
        store = SQLiteStore(sys.argv[1])
        print("ready", flush=True)
        start = time.monotonic()
        secret, record = new_token("from-cli", "gm")
        store.create_table(TableInfo("from-cli", "Made by the CLI", "tally", "1.2.0"), [record])
        if sys.argv[2] != "-":
            store.revoke_token(sys.argv[2], sys.argv[3])
        print(secret, round(time.monotonic() - start, 3))
        store.close()
    """

    def test_a_table_created_by_another_process_is_seen(self, store):
        _, token = new_token("t", "player", "alice")
        store.create_table(info(), [token])
        assert store.tables()[0].id == "t"  # this thread's connection is open and used
        done = run_python(self.CLI, str(store.path), "t", token.id)
        assert done.returncode == 0, done.stderr
        secret = done.stdout.split()[1]
        assert [i.id for i in store.tables()] == ["t", "from-cli"]
        assert store.find_token("from-cli", hash_token(secret)).role == "gm"
        assert store.list_tokens("t") == []  # revoked by the other process
        store.commit("t", commit_at("t", 1))  # and this process still writes

    def test_a_writer_waits_for_another_process_s_write(self, store):
        store.create_table(info(), [])
        holder = sqlite3.connect(store.path, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")  # another writer holds the lock ...
        child = subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(self.CLI), str(store.path), "-"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert child.stdout.readline().strip() == "ready"  # it is about to write
        time.sleep(0.5)
        # ... and this process's reads still work meanwhile (WAL)
        assert [i.id for i in store.tables()] == ["t"]
        holder.execute("COMMIT")
        holder.close()
        out, err = child.communicate(timeout=30)
        assert child.returncode == 0, err
        assert float(out.split()[1]) >= 0.3  # it waited instead of failing
        assert [i.id for i in store.tables()] == ["t", "from-cli"]

    def test_a_commit_waits_for_another_connection_s_write(self, store):
        store.create_table(info(), [])
        holder = sqlite3.connect(store.path, isolation_level=None, check_same_thread=False)
        holder.execute("BEGIN IMMEDIATE")
        threading.Timer(0.3, lambda: holder.execute("COMMIT")).start()
        start = time.monotonic()
        store.commit("t", commit_at("t", 1))
        assert time.monotonic() - start >= 0.2
        holder.close()
        assert store.tables()[0].seq == 1


class TestThreads:
    def test_one_writer_thread_and_a_reader_thread(self, store, tally):
        service = TableService(store, host_with(tally), dice=lambda: SeededDice(3))
        service.create_table("Busy", "tally", table_id="t")
        service.handle("t", {"type": "actor.create", "id": "c", "actor": {
            "id": "guard", "name": "Guard", "sheet": {"hp": 6}}}, GM)  # fmt: skip
        writes = 60
        errors: list[BaseException] = []
        lengths: list[int] = []

        def writer() -> None:
            try:
                for n in range(writes):
                    message = {"type": "resolve", "id": f"h{n}", "action": "hit",
                               "targets": ["guard"]}  # fmt: skip
                    if n % 3 == 0:
                        message = {"type": "adjust", "id": f"h{n}", "actor": "guard",
                                   "track": "damage", "delta": -6}  # fmt: skip
                    service.handle("t", message, GM)
            except BaseException as exc:
                errors.append(exc)

        def reader() -> None:
            try:
                while thread.is_alive():
                    events = store.events_after("t", 0)
                    assert [e.seq for e in events] == list(range(1, len(events) + 1))
                    snapshot, _ = store.load("t")
                    assert snapshot.info.seq >= len(events)
                    lengths.append(len(events))
            except BaseException as exc:
                errors.append(exc)

        thread = threading.Thread(target=writer)
        thread.start()
        watcher = threading.Thread(target=reader)
        watcher.start()
        thread.join(60)
        watcher.join(60)
        assert not errors, errors
        assert lengths == sorted(lengths)  # a reader never goes back in time
        assert store.tables()[0].seq == writes + 1
        assert len(store._connections) == 3  # main, writer, reader


KILLED_WRITER = """
    import importlib.util, sys
    from rollbridge.dice import SeededDice
    from rollbridge.engine import Principal
    from rollbridge.offline import TableService
    from rollbridge.stores import SQLiteStore
    from rollbridge.testing import host_with

    spec = importlib.util.spec_from_file_location("tally_conftest", sys.argv[2])
    tally = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tally)
    service = TableService(SQLiteStore(sys.argv[1]), host_with(tally.Tally()),
                           dice=lambda: SeededDice(5))
    gm = Principal("gm", "gm", "tok-gm")
    n = 0
    while True:
        n += 1
        if n % 2:
            message = {"type": "roll", "id": f"r{n}", "formula": "4d6"}
        else:
            message = {"type": "resolve", "id": f"r{n}", "action": "hit",
                       "targets": ["guard"]}
        reply = service.handle("t", message, gm)  # returns once committed
        print(n, reply["seq"], flush=True)  # acknowledged
"""


class TestKill9:
    def test_nothing_acknowledged_is_lost_and_seq_goes_on(self, db, tally):
        with SQLiteStore(db) as store:
            setup = TableService(store, host_with(tally))
            setup.create_table("Killed", "tally", table_id="t")
            setup.handle("t", {"type": "actor.create", "id": "c", "actor": {
                "id": "guard", "name": "Guard", "sheet": {"hp": 100}}}, GM)  # fmt: skip
        child = subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(KILLED_WRITER), str(db), str(CONFTEST)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        watchdog = threading.Timer(30, child.kill)
        watchdog.start()
        acked: list[tuple[int, int]] = []
        try:
            while len(acked) < 40:
                line = child.stdout.readline()
                if not line:
                    pytest.fail(f"the writer stopped: {child.stderr.read()}")
                n, seq = map(int, line.split())
                acked.append((n, seq))
            os.kill(child.pid, signal.SIGKILL)
            child.wait(10)
        finally:
            watchdog.cancel()
            child.stdout.close()
            child.stderr.close()
        assert child.returncode == -signal.SIGKILL
        assert Path(f"{db}-wal").exists()  # recovery goes through the WAL

        assert [seq for _, seq in acked] == list(range(2, 42))  # actor.create was seq 1
        plain = sqlite3.connect(db)
        assert plain.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        plain.close()
        with SQLiteStore(db) as store:
            seq = store.tables()[0].seq
            assert seq >= acked[-1][1]
            events = store.events_after("t", 0)
            assert [e.seq for e in events] == list(range(1, seq + 1))  # no gap
            for n, acked_seq in acked:
                assert events[acked_seq - 1].request == f"r{n}"
                key = Table.reply_key(GM, f"r{n}")
                assert store.reply("t", key)["seq"] == acked_seq
            # a restarted service continues at seq + 1, and a retry is not re-applied
            service = TableService(store, host_with(tally), dice=lambda: SeededDice(9))
            last_n, last_seq = acked[-1]
            retry = {"type": "roll", "id": f"r{last_n}", "formula": "4d6"}
            if last_n % 2 == 0:
                retry = {"type": "resolve", "id": f"r{last_n}", "action": "hit",
                         "targets": ["guard"]}  # fmt: skip
            assert service.handle("t", retry, GM)["seq"] == last_seq
            fresh = service.handle("t", {"type": "roll", "id": "after", "formula": "1d6"}, GM)
            assert fresh["seq"] == seq + 1
            assert [e.seq for e in store.events_after("t", seq - 1)] == [seq, seq + 1]


class TestAppendOnly:
    """Schema v3: a commit is one log row; snapshots bound what a load folds."""

    def test_a_batch_writes_one_statement_per_kind_of_row(self, store):
        store.create_table(info("a"), [])
        store.create_table(info("b"), [])
        statements: list[str] = []
        store._conn().set_trace_callback(statements.append)
        store.commit_many(
            [("a", commit_at("a", n)) for n in range(1, 8)] + [("b", commit_at("b", 1))]
        )
        store._conn().set_trace_callback(None)
        writes = [s for s in statements if s.split()[0] in ("INSERT", "UPDATE", "DELETE")]
        logs = [s for s in writes if s.startswith("INSERT INTO log")]
        assert len(logs) == 1 and logs[0].count("), (") == 7  # the 8 rows in one statement
        assert sum(s.startswith("INSERT OR REPLACE INTO replies") for s in writes) == 1
        assert not any(s.startswith(("UPDATE", "DELETE")) for s in writes)  # nothing in place
        reads = [s for s in statements if s.startswith("SELECT")]
        assert len(reads) == 2  # one look at each table's head, for the whole batch
        assert [e.seq for e in store.events_after("a", 0)] == list(range(1, 8))
        assert [e.seq for e in store.events_after("b", 0)] == [1]

    @pytest.mark.parametrize("size", [1, 3, 31, 32, 33, 127, 128, 129, 300])
    def test_rows_past_one_statement_s_share_are_all_written_in_order(self, store, size):
        """A statement takes at most 32 rows (SQLite before 3.32 allows 999
        parameters; tests/stores/test_sqlite_statements.py): a batch is one statement
        per 32 rows, and nothing is lost."""
        store.create_table(info(), [])
        statements: list[str] = []
        store._conn().set_trace_callback(statements.append)
        store.commit_many([("t", commit_at("t", n)) for n in range(1, size + 1)])
        store._conn().set_trace_callback(None)
        logs = [s for s in statements if s.startswith("INSERT INTO log")]
        assert len(logs) == -(-size // 32)
        assert [e.seq for e in store.events_after("t", 0)] == list(range(1, size + 1))
        assert store.reply("t", f"k{size}") == {"seq": size}

    def test_the_heads_are_read_once_while_nothing_else_writes(self, store):
        store.create_table(info(), [])
        store.commit("t", commit_at("t", 1))
        statements: list[str] = []
        store._conn().set_trace_callback(statements.append)
        store.commit("t", commit_at("t", 2))
        store.commit("t", commit_at("t", 3))
        store._conn().set_trace_callback(None)
        assert not [s for s in statements if s.startswith("SELECT")]
        assert [e.seq for e in store.events_after("t", 0)] == [1, 2, 3]

    def test_another_connection_s_commit_is_seen_the_stale_commit_refused(self, db, store):
        """The writer keeps each table's head between group commits only while
        ``PRAGMA data_version`` shows no other connection wrote: a commit of
        another process (here a second store on the file) is found, and a commit
        built on the old head is refused by the sequence guard, writing nothing."""
        store.create_table(info(), [])
        store.commit("t", commit_at("t", 1))
        other = SQLiteStore(db)
        try:
            other.commit("t", commit_at("t", 2, events=2))  # seqs 2 and 3
        finally:
            other.close()
        with pytest.raises(StoreError, match="at seq 3 in the store"):
            store.commit("t", commit_at("t", 2))
        assert [e.seq for e in store.events_after("t", 0)] == [1, 2, 3]
        store.commit("t", commit_at("t", 4))  # the head read again: it goes on
        assert [e.seq for e in store.events_after("t", 0)] == [1, 2, 3, 4]

    def test_the_same_connection_s_other_writes_drop_the_heads_it_kept(self, store):
        """A table deleted and made again on the writer's own connection (which
        ``data_version`` does not count) is read afresh: its log starts at 1."""
        store.create_table(info(), [])
        store.commit_many([("t", commit_at("t", 1)), ("t", commit_at("t", 2))])
        store.delete_table("t")
        store.create_table(info(), [])
        store.commit("t", commit_at("t", 1))
        assert [e.seq for e in store.events_after("t", 0)] == [1]

    def test_pruning_reads_only_the_rows_it_deletes(self, db, monkeypatch):
        """The snapshot's prune searches the log's index up to the seq it keeps,
        not every retained row of the table (each read for its ``last``)."""
        monkeypatch.setattr(sqlite_module, "SNAPSHOT_EVERY", 4)
        store = SQLiteStore(db, retain=2)
        store.create_table(info(), [])
        statements: list[str] = []
        store._conn().set_trace_callback(statements.append)
        for n in range(1, 6):
            store.commit("t", commit_at("t", n))
        store._conn().set_trace_callback(None)
        prunes = [s for s in statements if s.startswith("DELETE FROM log")]
        assert prunes
        plan = store._conn().execute("EXPLAIN QUERY PLAN " + prunes[0]).fetchall()
        assert "first<" in plan[0][3].replace(" ", ""), plan
        assert [e.seq for e in store.events_after("t", 3)] == [4, 5]
        store.close()

    def test_the_kept_heads_are_what_the_store_holds(self, store):
        """After every group commit the heads the writer keeps equal a fresh read,
        and the table's epoch is the same whether listed or loaded: with a commit
        without events that moves the table to a new epoch (folded into a snapshot
        at the seq of the log's last row), and one in a batch before commits with
        events (folded in seq order, not after them)."""

        def epoch_moved(seq: int, epoch: int) -> Commit:
            table = TableInfo("t", "Table t", "tally", "1.2.0", {"approval": False}, epoch, seq)
            meta = {"encounter": None, "pending": {}, "undo": [], "redo": []}
            return Commit([], [], [], table, meta, {})

        def later(first: int, epoch: int) -> Commit:
            commit = commit_at("t", first)
            commit.info.epoch = commit.events[0].epoch = epoch
            return commit

        def check() -> None:
            conn = store._conn()
            assert store._local.heads[1]["t"][:3] == list(store._head(conn, "t"))
            [listed] = store.tables()
            assert listed.epoch == store.load("t")[0].info.epoch
            assert listed.seq == store.load("t")[0].info.seq

        store.create_table(info(), [])
        store.commit("t", commit_at("t", 1))
        check()
        store.commit("t", epoch_moved(1, 2))
        check()
        assert store.tables()[0].epoch == 2
        with pytest.raises(StoreError):  # the guard holds in the new epoch: 5 is not 2
            store.commit("t", later(5, 2))
        store.commit_many([("t", epoch_moved(1, 3)), ("t", later(2, 3))])
        check()
        snapshot, _ = store.load("t")
        assert (snapshot.info.epoch, snapshot.info.seq) == (3, 2)
        assert [a.id for a in snapshot.actors.values()] == ["a1", "a2"]

    def test_a_refused_batch_keeps_no_head_of_its_own(self, store):
        store.create_table(info(), [])
        store.commit("t", commit_at("t", 1))
        with pytest.raises(StoreError):
            store.commit_many([("t", commit_at("t", 2)), ("t", commit_at("t", 9))])
        store.commit("t", commit_at("t", 2))  # had the head kept seq 2, this would fail
        assert [e.seq for e in store.events_after("t", 0)] == [1, 2]

    def test_a_snapshot_every_so_often_bounds_the_fold_and_keeps_everything(self, db, monkeypatch):
        monkeypatch.setattr(sqlite_module, "SNAPSHOT_EVERY", 8)
        store = SQLiteStore(db, retain=5)
        store.create_table(info(), [])
        for n in range(1, 30):
            store.commit("t", commit_at("t", n))
        plain = sqlite3.connect(db)
        snapshot_seq = plain.execute("SELECT seq FROM tables").fetchone()[0]
        rows = plain.execute("SELECT first, last FROM log ORDER BY first").fetchall()
        plain.close()
        assert snapshot_seq == 24  # the latest multiple of 8 reached
        # pruned at the snapshot to its retained log (20 - 24); rows since are all kept,
        # and reads hold to the retained log of now (25 - 29) anyway
        assert [r[0] for r in rows] == list(range(20, 30))
        snapshot, _history = store.load("t")
        assert snapshot.info.seq == 29 and list(snapshot.actors) == [f"a{n}" for n in range(1, 30)]
        assert [e.seq for e in store.events_after("t", 24)] == [25, 26, 27, 28, 29]
        assert store.events_after("t", 23) is None  # left the retained log
        assert store.reply("t", "k29") == {"seq": 29}
        store.close()
        with SQLiteStore(db, retain=5) as again:
            assert again.load("t")[0].actors == snapshot.actors
            assert again.tables()[0].seq == 29
