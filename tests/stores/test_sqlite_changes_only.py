"""A SQLite log row holds the table's info and meta only as far as its commit changed
them (schema 6): every read is what it was when each row held them whole.

Before, each row repeated the table's whole info (~170 bytes) and meta — the requests
waiting for the GM's approval among it, up to 64 KiB — so a table at ``--retain 100``
held up to ~6 MB of meta stored again and again (docs/operations.md, "What one table
can store"). Now the writer compares each commit's packed info and each field of its
meta with the table's last ones and stores only those that differ; a writer that does
not know the last ones (a table it has not written since its heads were read again, a
refused batch) stores them all.
"""

from __future__ import annotations

import random
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from rollbridge.dice import SeededDice
from rollbridge.engine import ActorRecord, Commit, Event, Principal, TableInfo
from rollbridge.exceptions import StoreError
from rollbridge.offline import TableService
from rollbridge.plain import pack, unpack
from rollbridge.stores import sqlite as sqlite_module
from rollbridge.stores.memory import MemoryStore
from rollbridge.stores.sqlite import SCHEMA_VERSION, SQLiteStore
from rollbridge.testing import host_with
from tests.upgrade_files import old_file

GM = Principal("gm", "gm", "tok-gm")


def table_info(seq: int = 0, epoch: int = 1, settings: dict | None = None) -> TableInfo:
    return TableInfo("t", "Table t", "tally", "1.2.0", settings or {"approval": False}, epoch,
                     seq)  # fmt: skip


def meta(**fields: Any) -> dict[str, Any]:
    return {"encounter": None, "pending": {}, "undo": [], "redo": [], "dice": None, **fields}


def commit(first: int, count: int, info: TableInfo, fields: dict[str, Any]) -> Commit:
    """``count`` events from ``first`` (none: a commit without events at ``first - 1``),
    an actor changed by each, the table's ``info`` and a meta of ``fields``."""
    last = first + count - 1 if count else first - 1
    events = [Event("t", info.epoch, n, "roll", data={"total": n}) for n in range(first, last + 1)]
    actors = [ActorRecord(f"a{n % 3}", "A", {"hp": n}, {}) for n in range(first, last + 1)]
    info.seq = last
    return Commit(events, actors, [], info, meta(**fields), {f"k{last}-{count}": {"seq": last}})


def rows(path: Path) -> list[tuple[bytes, dict[str, Any], int]]:
    """Each log row's info, unpacked state and its state's bytes (a plain connection)."""
    with sqlite3.connect(path) as plain:
        found = plain.execute('SELECT info, state FROM log ORDER BY "table", first')
        return [(info, unpack(state), len(state)) for info, state in found.fetchall()]


def reads(store: Any, retain: int) -> tuple[Any, ...]:
    """What a server reads of table ``t``: the table, its listing, its retained log."""
    snapshot, history = store.load("t")
    seq = snapshot.info.seq
    return (snapshot, history, store.tables(), store.events_after("t", max(0, seq - retain)))


def test_a_row_holds_the_info_and_meta_only_when_they_change(tmp_path):
    path = tmp_path / "t.db"
    store = SQLiteStore(path)
    store.create_table(table_info(), [])
    waiting = {"gm/1": {"request": {"type": "roll", "label": "x" * 30_000}}}
    store.commit("t", commit(1, 1, table_info(), {"pending": waiting}))  # first: all of it
    store.commit("t", commit(2, 1, table_info(), {"pending": waiting}))  # nothing changed
    store.commit("t", commit(3, 1, table_info(), {"pending": waiting, "undo": [3]}))
    store.commit("t", commit(4, 1, table_info(settings={"approval": True}), {"undo": [3]}))
    store.commit("t", commit(5, 1, table_info(epoch=2, settings={"approval": True}),
                             {"undo": [3]}))  # fmt: skip
    first, second, third, fourth, fifth = rows(path)
    assert unpack(first[0])["settings"] == {"approval": False} and first[2] > 30_000
    assert first[1]["changed"] == meta(pending=waiting) and "meta" not in first[1]
    assert second[0] == b"" and set(second[1]) == {"removed", "actors"}
    assert third[0] == b"" and third[1]["changed"] == {"undo": [3]}
    assert unpack(fourth[0])["settings"] == {"approval": True}
    assert fourth[1]["changed"] == {"pending": {}}
    assert unpack(fifth[0])["epoch"] == 2 and "changed" not in fifth[1]
    assert max(row[2] for row in (second, third, fourth, fifth)) < 100
    snapshot, _ = store.load("t")
    assert (snapshot.info.seq, snapshot.info.epoch, snapshot.info.settings) == (
        5, 2, {"approval": True})  # fmt: skip
    assert (snapshot.pending, snapshot.undo) == ({}, [3])
    store.close()


def test_the_writer_keeps_a_digest_of_a_large_meta_not_the_meta(tmp_path):
    """To compare, the writer keeps each table's last info and meta fields as long
    as its heads: a field of 1 KiB or more is kept as its SHA-256, so a server
    writing to thousands of tables does not hold their waiting requests twice."""
    store = SQLiteStore(tmp_path / "t.db")
    store.create_table(table_info(), [])
    waiting = {"gm/1": {"request": {"type": "roll", "label": "x" * 30_000}}}
    store.commit("t", commit(1, 1, table_info(), {"pending": waiting, "undo": [1]}))
    store.commit("t", commit(2, 1, table_info(), {"pending": waiting, "undo": [1, 2]}))
    head = store._local.heads[1]["t"]
    assert len(head[3]) + sum(len(key) + len(value) for key, value in head[4]) < 200
    assert rows(tmp_path / "t.db")[1][1]["changed"] == {"undo": [1, 2]}
    store.close()


def test_requests_waiting_for_the_gm_are_stored_once_not_with_every_roll(tmp_path, tally):
    """Through the real engine: players' requests wait for approval (~40 KB of meta),
    then the GM rolls; each of the GM's rows holds no meta but the undo stack."""
    path = tmp_path / "t.db"
    store = SQLiteStore(path)
    service = TableService(store, host_with(tally), clock=None)
    service.dice = lambda: SeededDice(7)
    service.create_table("Growth", "tally", table_id="t")
    service.handle("t", {"type": "settings", "id": "s", "settings": {"approval": True}}, GM)
    for n in range(4):
        player = Principal("player", f"p{n}", f"tok-p{n}")
        label = f"{n}".ljust(200, "l")
        for k in range(8):
            service.handle("t", {"type": "roll", "id": f"w{k}".ljust(64, "w"), "formula": "1d6",
                                 "label": label}, player)  # fmt: skip
    waiting = store.load("t")[0].pending
    assert len(waiting) == 32
    with sqlite3.connect(path) as plain:
        before = plain.execute("SELECT max(first) FROM log").fetchone()[0]
    for n in range(20):
        service.handle("t", {"type": "roll", "id": f"g{n}", "formula": "1d6"}, GM)
    with sqlite3.connect(path) as plain:
        sizes = plain.execute(
            "SELECT length(info), length(state) FROM log WHERE first > ?", (before,)
        ).fetchall()
    assert len(sizes) == 20 and len(pack(waiting)) > 10_000
    assert all(info == 0 and state < 200 for info, state in sizes), sizes
    store.close()
    with SQLiteStore(path) as again:
        snapshot, _ = again.load("t")
        assert snapshot.pending == waiting and snapshot.info.seq == before + 20


@pytest.mark.parametrize("seed", range(6))
def test_every_read_is_what_the_commits_left(tmp_path, monkeypatch, seed):
    """Batches of commits, each changing some of the info and the meta's fields, some
    without events moving the table to a new epoch, snapshots and pruning every few
    events: after each batch, what the writing store reads, what a store opened anew
    reads and what the memory store fed the same commits reads are the same."""
    monkeypatch.setattr(sqlite_module, "SNAPSHOT_EVERY", 5)
    retain = 4
    path = tmp_path / "t.db"
    store = SQLiteStore(path, retain=retain)
    memory = MemoryStore(retain=retain)
    for each in (store, memory):
        each.create_table(table_info(), [])
    rng = random.Random(seed)
    fields: dict[str, Any] = {}
    settings, epoch, seq = {"approval": False}, 1, 0
    for _ in range(40):
        batch = []
        for _ in range(rng.randint(1, 4)):
            if rng.random() < 0.3:
                settings = {"approval": not settings["approval"]}
            if rng.random() < 0.1:
                epoch += 1
            if rng.random() < 0.4:
                pad = "x" * rng.choice((0, 2000))  # kept by the writer as its digest
                fields["pending"] = {f"p/{rng.randint(0, 3)}": {"n": rng.randint(0, 9), "pad": pad}}
            if rng.random() < 0.5:
                fields["undo"] = [*fields.get("undo", []), seq + 1][-3:]
            if rng.random() < 0.2:
                fields["encounter"] = {"order": ["a0", "a1"], "turn": rng.randint(0, 1),
                                       "round": 1}  # fmt: skip
            if rng.random() < 0.2:
                fields["dice"] = {"segment": rng.randint(0, 3), "open": True}
            count = 0 if rng.random() < 0.15 else rng.randint(1, 3)
            info = table_info(epoch=epoch, settings=dict(settings))
            batch.append(commit(seq + 1, count, info, dict(fields)))
            seq += count
        store.commit_many([("t", c) for c in batch])
        memory.commit_many([("t", c) for c in batch])
        with SQLiteStore(path, retain=retain) as fresh:
            assert reads(store, retain) == reads(fresh, retain) == reads(memory, retain)
    store.close()


def test_a_refused_batch_leaves_the_next_commit_whole(tmp_path):
    """A batch refused half-way (its changes rolled back) is not what the next commit
    is compared with: the rows left out nothing of what the file holds."""
    path = tmp_path / "t.db"
    store = SQLiteStore(path)
    store.create_table(table_info(), [])
    store.commit("t", commit(1, 1, table_info(), {"undo": [1]}))
    changed = commit(2, 1, table_info(settings={"approval": True}), {"pending": {"a": {}}})
    with pytest.raises(StoreError):
        store.commit_many([("t", changed), ("t", commit(9, 1, table_info(), {}))])
    store.commit("t", commit(2, 1, table_info(settings={"approval": True}),
                             {"pending": {"a": {}}}))  # fmt: skip
    snapshot, _ = store.load("t")
    assert snapshot.info.settings == {"approval": True} and snapshot.pending == {"a": {}}
    assert snapshot.undo == []
    store.close()


def _v5_reads(path: Path) -> dict[str, tuple[dict, dict, int]]:
    """Each table's info, meta and seq as a rollbridge of schema 5 read them: the
    snapshot's, then each log row past it holding the whole info and meta."""
    found = {}
    with sqlite3.connect(path) as plain:
        for table_id, name, ruleset, version, settings, epoch, seq, meta_blob in plain.execute(
            "SELECT id, name, ruleset, ruleset_version, settings, epoch, seq, meta FROM tables"
        ).fetchall():
            info = {"name": name, "ruleset": ruleset, "ruleset_version": version,
                    "settings": unpack(settings), "epoch": epoch}  # fmt: skip
            meta_now = unpack(meta_blob)
            for last, blob, state in plain.execute(
                'SELECT last, info, state FROM log WHERE "table" = ? AND first > ? ORDER BY first',
                (table_id, seq),
            ).fetchall():
                info, seq = unpack(blob), last
                if unpack(state)["meta"] is not None:
                    meta_now = unpack(state)["meta"]
            found[table_id] = (info, meta_now, seq)
    return found


#: The columns of a log row of schema 5 and 6.
V5_LOG = '"table", first, last, epoch, info, events, state'


def test_a_schema_5_file_reads_as_before_and_goes_on(tmp_path):
    """The last schema-5 rollbridge's own file (``tests/fixtures/upgrade/598451c``):
    brought to schema 6 with nothing rewritten, each table reads as every row holding
    the whole info and meta says, and commits made after it read back."""
    old = old_file("598451c", tmp_path)
    with sqlite3.connect(old.path) as plain:
        assert plain.execute("PRAGMA user_version").fetchone()[0] == 5
        log_before = plain.execute(f'SELECT {V5_LOG} FROM log ORDER BY "table", first').fetchall()
    expected = _v5_reads(old.path)
    store = SQLiteStore(old.path)
    with sqlite3.connect(old.path) as plain:
        assert plain.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 7
        # (schema 7 adds a column, undos, filled from the events: the rest as it was)
        assert (
            plain.execute(f'SELECT {V5_LOG} FROM log ORDER BY "table", first').fetchall()
            == log_before
        )
    listed = {i.id: i for i in store.tables()}
    assert set(listed) == set(expected)
    for table_id, (info, meta_then, seq) in expected.items():
        snapshot, _ = store.load(table_id)
        for got in (snapshot.info, listed[table_id]):
            assert {k: v for k, v in got.to_dict().items() if k not in ("id", "seq")} == info
            assert got.seq == seq
        assert snapshot.meta() == {"dice": None, **meta_then}
    service = TableService(store, host_with(builtins=True), clock=None)
    service.dice = lambda: SeededDice(3)
    table_id = old.tables["sr2"]["table"]
    gm = Principal("gm", "gm", "upgrade-gm")
    for n in range(3):
        service.handle(table_id, {"type": "roll", "id": f"after-{n}", "formula": "1d6"}, gm)
    live = store.load(table_id)
    store.close()
    with SQLiteStore(old.path) as again:
        assert again.load(table_id) == live
        assert live[0].info.seq == expected[table_id][2] + 3


def test_a_file_of_schema_6_is_refused_by_a_rollbridge_of_schema_5(tmp_path, monkeypatch):
    """An older rollbridge would read a row's empty info as damage: it refuses the
    file by its version, as every newer schema is refused."""
    path = tmp_path / "t.db"
    SQLiteStore(path).close()
    copy = tmp_path / "copy.db"
    shutil.copyfile(path, copy)
    with sqlite3.connect(copy) as plain:  # as schema 6 left it (the version is what counts)
        plain.execute("PRAGMA user_version = 6")
    monkeypatch.setattr(sqlite_module, "MIGRATIONS", sqlite_module.MIGRATIONS[:5])
    monkeypatch.setattr(sqlite_module, "SCHEMA_VERSION", 5)
    with pytest.raises(StoreError, match="schema version 6, newer than this rollbridge's 5"):
        SQLiteStore(copy)
