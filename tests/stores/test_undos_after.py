"""``undos_after``: the undos and redos of the retained log after a seq, read apart from
the other events (docs/protocol.md, ``state``'s ``undone``): every store gives the
same answer (the contract), SQLite from its ``undos`` column (schema 7, filled for a
file of schema 6 when it is opened), Redis from its ``undos`` set (filled by the commit
script; a log older than the set, or commits of a process of the version before, are
read from the log)."""

from __future__ import annotations

import sqlite3

import pytest

from rollbridge.engine.model import Commit, Event
from rollbridge.exceptions import UnknownTable
from rollbridge.stores import SQLiteStore
from rollbridge.stores.sqlite import SCHEMA_VERSION
from tests.stores import test_store_contract as contract
from tests.stores.test_store_contract import make_commit, make_info

#: The contract suite's fixture: each test on MemoryStore, SQLiteStore and RedisStore.
kit = contract.kit


def _as(commit: Commit, *kinds: tuple[str, dict]) -> Commit:
    """``commit`` with its events made of ``kinds`` (kind, data), in order."""
    for event, (kind, data) in zip(commit.events, kinds, strict=True):
        event.kind, event.data = kind, data
    return commit


def _fill(store, table_id: str = "t", *, write=None) -> None:
    """Seqs 1-7: a roll, an undo of 1, a roll, a redo of 1 with a roll in one commit,
    a roll, an undo of 6."""
    write = write or (lambda c: store.commit(table_id, c))
    roll = ("roll", {"total": 1})
    write(make_commit(store, table_id))
    write(_as(make_commit(store, table_id), ("undo", {"undoes": 1})))
    write(make_commit(store, table_id))
    write(_as(make_commit(store, table_id, events=2), ("redo", {"redoes": 1}), roll))
    write(make_commit(store, table_id))
    write(_as(make_commit(store, table_id), ("undo", {"undoes": 6})))


def _seen(events: list[Event]) -> list[tuple[int, str]]:
    return [(e.seq, e.kind) for e in events]


def test_the_undos_and_redos_of_the_retained_log_after_a_seq(kit):
    store = kit.open(retain=5)  # the log holds 3-8
    store.create_table(make_info(), [])
    store.create_table(make_info("quiet"), [])
    _fill(store)
    store.commit("quiet", _as(make_commit(store, "quiet"), ("undo", {"undoes": 1})))
    store.commit("t", make_commit(store))  # 8: seq 2's undo has left the log
    for current in kit.and_restarted(store):
        assert _seen(current.undos_after("t", 0)) == [(4, "redo"), (7, "undo")]
        assert _seen(current.undos_after("t", 4)) == [(7, "undo")]
        assert current.undos_after("t", 7) == [] == current.undos_after("t", 20)
        assert current.undos_after("t", 3)[0].data == {"redoes": 1}
        assert _seen(current.undos_after("quiet", 0)) == [(1, "undo")]
        with pytest.raises(UnknownTable):
            current.undos_after("nope", 0)


def test_a_schema_6_file_is_given_its_undos_when_opened(tmp_path):
    path = tmp_path / "t.db"
    with SQLiteStore(path) as store:
        store.create_table(make_info(), [])
        _fill(store)
    with sqlite3.connect(path) as plain:  # as schema 6 left it: no undos column
        plain.execute("DROP INDEX log_undos")
        plain.execute("ALTER TABLE log DROP COLUMN undos")
        plain.execute("PRAGMA user_version = 6")
    with SQLiteStore(path) as store:
        assert _seen(store.undos_after("t", 0)) == [(2, "undo"), (4, "redo"), (7, "undo")]
    with sqlite3.connect(path) as plain:
        assert plain.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 7
        # only the rows holding one have it
        kept = plain.execute("SELECT first FROM log WHERE undos IS NOT NULL ORDER BY first")
        assert [r[0] for r in kept] == [2, 4, 7]


def test_the_sqlite_read_decodes_only_the_rows_with_an_undo(tmp_path, monkeypatch):
    """What made ``state``'s ``undone`` cost the whole log (every row decoded)."""
    from rollbridge.stores import sqlite as module

    with SQLiteStore(tmp_path / "t.db") as store:
        store.create_table(make_info(), [])
        _fill(store)
        for _ in range(50):
            store.commit("t", make_commit(store))
        decoded: list[int] = []
        real = module._row_events

        def noted(table_id, first, last, blob):
            decoded.append(first)
            return real(table_id, first, last, blob)

        monkeypatch.setattr(module, "_row_events", noted)
        assert _seen(store.undos_after("t", 0)) == [(2, "undo"), (4, "redo"), (7, "undo")]
        assert decoded == [2, 4, 7]


def test_redis_reads_what_a_process_of_the_version_before_wrote_from_the_log(
    redis_server, redis_prefix
):
    """A rolling upgrade: commits by a process of the version before (which keeps no
    undos set) between commits of this one; and a table whose whole log predates it."""
    from rollbridge.stores.redis import RedisStore
    from tests.stores.redis_commit_before import commit_before

    with RedisStore(redis_server.url, prefix=redis_prefix) as store:
        store.create_table(make_info(), [])
        _fill(store, write=lambda c: commit_before(store, "t", c))  # the log predates the set
        assert store.client.zcard(store.keys.table("t").undos) == 0
        assert _seen(store.undos_after("t", 0)) == [(2, "undo"), (4, "redo"), (7, "undo")]
        store.commit("t", _as(make_commit(store), ("redo", {"redoes": 6})))  # 8, in the set
        assert commit_before(store, "t", _as(make_commit(store), ("undo", {"undoes": 6})))[0] == 1
        store.commit("t", make_commit(store))  # 10: after the version before's 9
        store.commit("t", _as(make_commit(store), ("undo", {"undoes": 10})))  # 11
        expected = [(2, "undo"), (4, "redo"), (7, "undo"), (8, "redo"), (9, "undo"), (11, "undo")]
        assert _seen(store.undos_after("t", 0)) == expected
        assert _seen(store.undos_after("t", 8)) == expected[-2:]
        # read from the set, which holds this version's alone
        kept = store.client.zrange(store.keys.table("t").undos, 0, -1, withscores=True)
        assert [int(s) for _, s in kept] == [8, 11]
