"""``undos_after``: the undos and redos of the retained log after a seq, read apart from
the other events (docs/protocol.md, ``state``'s ``undone``): every store gives the
same answer (the contract), SQLite from its ``undos`` column (schema 7, filled for a
file of schema 6 when it is opened), Redis from its ``undos`` set (filled by the commit
script and ``migrate``'s import; a log older than the set, or commits of a process of
the version before, are read from the log; a set that version's delete left is not)."""

from __future__ import annotations

import sqlite3

import pytest

from rollbridge.engine.model import Commit, Event
from rollbridge.exceptions import StoreError, UnknownTable
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


def _as_an_earlier_fill_left(path) -> None:
    """The file as a rollbridge before this one brought it to schema 7 leaves it: no
    table said whole (``undos_checked``, which this one's schema 7 step, and its
    ``create_table`` and import, write), so a process's first undone read of a table
    reads its rows without undos once."""
    with sqlite3.connect(path) as plain:
        plain.execute("DROP TABLE IF EXISTS undos_checked")


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


def _decoded(monkeypatch) -> list[int]:
    """The first seqs of the SQLite log rows decoded from now on (a list kept filled)."""
    from rollbridge.stores import sqlite as module

    decoded: list[int] = []
    real = module._row_events

    def noted(table_id, first, last, blob):
        decoded.append(first)
        return real(table_id, first, last, blob)

    monkeypatch.setattr(module, "_row_events", noted)
    return decoded


def test_the_sqlite_read_decodes_only_the_rows_with_an_undo(tmp_path, monkeypatch):
    """What made ``state``'s ``undone`` cost the whole log (every row decoded, on every
    request)."""

    with SQLiteStore(tmp_path / "t.db") as store:
        store.create_table(make_info(), [])
        _fill(store)
        for _ in range(50):
            store.commit("t", make_commit(store))
        _as_an_earlier_fill_left(tmp_path / "t.db")
        decoded = _decoded(monkeypatch)
        # the first read of the table in a process reads once the rows without undos
        # that were in its log (an earlier schema 7 fill left a damaged row so: the
        # test below); every later one decodes the rows with an undo alone
        assert _seen(store.undos_after("t", 0)) == [(2, "undo"), (4, "redo"), (7, "undo")]
        assert sorted(set(decoded)) == [1, 2, 3, 4, *range(6, 58)] and decoded[-3:] == [2, 4, 7]
        for since in (0, 3):
            decoded.clear()
            assert _seen(store.undos_after("t", since))[-1] == (7, "undo")
            assert decoded == [2, 4, 7][since // 3 :]
        store.commit("t", _as(make_commit(store), ("undo", {"undoes": 9})))  # 58
        decoded.clear()
        assert _seen(store.undos_after("t", 0))[-1] == (58, "undo")
        assert decoded == [2, 4, 7, 58]


def test_redis_reads_what_a_process_of_the_version_before_wrote_from_the_log(
    redis_server, redis_prefix
):
    """A rolling upgrade: commits by a process of the version before (which keeps no
    undos set) between commits of this one; and a table whose whole log predates it.
    Until this version's first commit the log is read (sifted by bytes); that commit
    sifts the log into the set once, and a later one the version before's commits
    since the set's end: the undone read then reads no event of the log (it read every
    retained one on each request until ``retain`` commits of this version had
    passed)."""
    from rollbridge.stores.redis import RedisStore
    from tests.stores.redis_commit_before import commit_before

    with RedisStore(redis_server.url, prefix=redis_prefix) as store:
        k = store.keys.table("t")

        def sifted() -> list:  # the log's events the undone read is sent to sift
            return store._run("UNDOS_AFTER", [k.info, k.log, k.undos], [0, store.retain])[2]

        store.create_table(make_info(), [])
        _fill(store, write=lambda c: commit_before(store, "t", c))  # the log predates the set
        assert store.client.zcard(k.undos) == 0
        assert len(sifted()) == 7  # every event of the log
        assert _seen(store.undos_after("t", 0)) == [(2, "undo"), (4, "redo"), (7, "undo")]
        store.commit("t", _as(make_commit(store), ("redo", {"redoes": 6})))  # 8, in the set
        assert sifted() == []
        assert _seen(store.undos_after("t", 0)) == [
            (2, "undo"),
            (4, "redo"),
            (7, "undo"),
            (8, "redo"),
        ]
        assert commit_before(store, "t", _as(make_commit(store), ("undo", {"undoes": 6})))[0] == 1
        assert len(sifted()) == 1  # the version before's 9
        store.commit("t", make_commit(store))  # 10: after the version before's 9
        store.commit("t", _as(make_commit(store), ("undo", {"undoes": 10})))  # 11
        assert sifted() == []
        expected = [(2, "undo"), (4, "redo"), (7, "undo"), (8, "redo"), (9, "undo"), (11, "undo")]
        assert _seen(store.undos_after("t", 0)) == expected
        assert _seen(store.undos_after("t", 8)) == expected[-2:]
        kept = store.client.zrange(k.undos, 0, -1, withscores=True)
        assert [int(s) for _, s in kept] == [2, 4, 7, 8, 9, 11]
        assert store.client.hmget(k.info, "undos", "undos_to") == [b"1", b"11"]


def test_redis_fills_the_set_with_the_undo_kinds_alone(redis_server, redis_prefix):
    """The log a version before wrote is sifted into the set by bytes: a roll whose
    data holds ``{"kind": "undo"}`` (as its bytes an undo's kind) is kept there, and
    the read answers the undos and redos alone, as the log's own read does."""
    from rollbridge.stores.redis import RedisStore
    from tests.stores.redis_commit_before import commit_before

    with RedisStore(redis_server.url, prefix=redis_prefix) as store:
        store.create_table(make_info(), [])
        write = lambda c: commit_before(store, "t", c)  # noqa: E731
        write(_as(make_commit(store), ("roll", {"kind": "undo", "undoes": 1})))
        _fill(store, write=write)  # 2-8
        store.commit("t", make_commit(store))  # 9: fills the set
        assert store.client.zcard(store.keys.table("t").undos) == 4  # the roll's too
        assert _seen(store.undos_after("t", 0)) == [(3, "undo"), (5, "redo"), (8, "undo")]


def _delete_as_before(store, table_id: str) -> None:
    """``delete_table`` of the version before: its DELETE_TABLE was sent every key of
    the table it knew (redis_keys.TABLE_KINDS), which held no undos set."""
    keys = [k for k in store.keys.table(table_id).all() if k != store.keys.table(table_id).undos]
    assert store._run("DELETE_TABLE", [*keys, store.keys.glob("tables")], [table_id]) == 1


@pytest.mark.parametrize("again", ["moved", "created"])
def test_a_set_a_delete_of_the_version_before_left_is_not_read(redis_server, redis_prefix, again):
    """A table deleted by a process of the version before (its delete left the undos
    set), then moved in again from SQLite (``migrate``: the same id, the same epoch) or
    created with its id: the old set's undos and redos, of seqs the new log uses again,
    were answered as the new table's (an event never undone said undone)."""
    from rollbridge.stores.migrate import dump_table
    from rollbridge.stores.redis import RedisStore

    with RedisStore(redis_server.url, prefix=redis_prefix) as store:
        store.create_table(make_info(), [])
        for _ in range(4):
            store.commit("t", make_commit(store))
        at_4 = dump_table(store, "t")
        store.commit("t", make_commit(store))
        store.commit("t", _as(make_commit(store), ("undo", {"undoes": 3})))  # 6
        _delete_as_before(store, "t")
        assert store.client.zcard(store.keys.table("t").undos) == 1  # left behind
        if again == "moved":
            store.import_table(at_4.snapshot, at_4.events, [], [])
        else:
            store.create_table(make_info(), [])
            for _ in range(4):
                store.commit("t", make_commit(store))
        assert store.undos_after("t", 0) == []
        for _ in range(3):
            store.commit("t", make_commit(store))  # 5-7: rolls, none an undo
        assert store.undos_after("t", 0) == []
        store.commit("t", _as(make_commit(store), ("redo", {"redoes": 3})))  # 8
        assert _seen(store.undos_after("t", 0)) == [(8, "redo")]


def test_a_table_moved_into_redis_has_its_undos_in_the_set(redis_server, redis_prefix, tmp_path):
    """``migrate`` (``import_table``) fills the undos set from the events it moves: the
    undone read of a moved table reads no event of its log (it read every retained
    one, sifted by bytes, until as many commits as the log retains had passed)."""
    from rollbridge.stores.migrate import SQLiteSource, migrate
    from rollbridge.stores.redis import RedisStore

    with SQLiteStore(tmp_path / "t.db") as sqlite:
        sqlite.create_table(make_info(), [])
        _fill(sqlite)
    source = SQLiteSource(tmp_path / "t.db")
    with RedisStore(redis_server.url, prefix=redis_prefix) as store:
        try:
            assert migrate(source, store).ok
        finally:
            source.close()
        k = store.keys.table("t")
        for _ in range(2):  # moved; then a roll committed after
            found = store._run("UNDOS_AFTER", [k.info, k.log, k.undos], [0, store.retain])
            assert found[2] == []  # no event of the log to sift
            assert _seen(store.undos_after("t", 0)) == [(2, "undo"), (4, "redo"), (7, "undo")]
            store.commit("t", make_commit(store))
        assert store.client.hmget(k.info, "undos", "undos_to") == [b"1", b"9"]


@pytest.mark.parametrize("damage", ["garbage", "no events"])
def test_a_row_damaged_before_schema_7_is_reported_by_the_undone_read(tmp_path, damage):
    """A log row that could not be read when schema 7 filled ``undos`` was left
    without one: the undone read skipped it (answering as though it held no undo)
    where ``events_after`` and ``event`` report it (a StoreError naming the table and
    its seqs, tests/stores/test_sqlite_corrupt_rows.py). It reports it the same way:
    bytes that are no MessagePack, and MessagePack that holds no events (a map with a
    kind alone, which the fill read as no undo while every other read refuses it)."""
    from rollbridge.plain import pack

    blob = b"\xc1\xc1" if damage == "garbage" else pack([{"kind": "roll"}])

    path = tmp_path / "t.db"
    with SQLiteStore(path) as store:
        store.create_table(make_info(), [])
        _fill(store)
    with sqlite3.connect(path) as plain:  # schema 6, its row of seq 3 garbage
        plain.execute("DROP INDEX log_undos")
        plain.execute("ALTER TABLE log DROP COLUMN undos")
        plain.execute("PRAGMA user_version = 6")
        plain.execute("UPDATE log SET events = ? WHERE \"table\" = 't' AND first = 3", (blob,))
    with SQLiteStore(path) as store:
        _row_3_reported(store)


def _row_3_reported(store) -> None:
    """The undone read reports the damaged row of seq 3 as ``events_after`` does (the
    same code, details and words), and answers the log after it."""

    reports = []
    for read in (lambda: store.events_after("t", 0), lambda: store.undos_after("t", 0)):
        with pytest.raises(StoreError) as caught:
            read()
        reports.append((caught.value.code, caught.value.details, str(caught.value)))
    assert reports[0] == reports[1]
    assert reports[1][:2] == ("store_error", {"table": "t", "first": 3, "last": 3})
    # after the damaged row, read as before
    assert _seen(store.undos_after("t", 3)) == [(4, "redo"), (7, "undo")]


def _undone_now(store, asked: list[int]) -> dict:
    """``state``'s ``undone`` (the GM's) of ``asked`` as the table is now."""
    from rollbridge.engine.history import undone_states

    return undone_states(store.undos_after("t", 0), asked, gm=True)


def test_an_undo_before_a_sqlite_restore_is_answered_after_it(tmp_path):
    """A backup restored and served moves the table to a new epoch, its log kept: the
    undos and redos in that log (of the epoch before) are its history, and ``state``'s
    ``undone`` says them; it said nothing of them (never undone) after a restore."""
    import shutil

    from rollbridge.stores.backup import backup

    path = tmp_path / "t.db"
    with SQLiteStore(path) as store:
        store.create_table(make_info(), [])
        _fill(store)  # 2 undoes 1, 4 redoes it, 7 undoes 6
        backup(path, tmp_path / "copy.db")
        store.commit("t", _as(make_commit(store), ("redo", {"redoes": 6})))  # 8: lost
    path.unlink()
    shutil.copyfile(tmp_path / "copy.db", path)
    with SQLiteStore(path) as store:
        before = store.load("t")[0].info.epoch
        assert store.finish_restore() is not None
        assert store.load("t")[0].info.epoch != before  # a new epoch
        assert _undone_now(store, [1, 3, 6]) == {"1": False, "6": True}
        store.commit("t", _as(make_commit(store), ("undo", {"undoes": 3})))  # 8, the new epoch
        assert _undone_now(store, [1, 3, 6]) == {"1": False, "3": True, "6": True}


def test_an_undo_before_a_redis_fence_is_answered_after_it(redis_server, redis_prefix):
    """Redis fenced to a new epoch (a restore of an older copy, a failover to a replica
    that lagged): the undos and redos its log kept from the epoch before are answered."""
    from rollbridge.stores.redis import RedisStore

    with RedisStore(redis_server.url, prefix=redis_prefix) as store:
        store.create_table(make_info(), [])
        _fill(store)
        info = store.load("t")[0].info
        assert store.fence("t", info.epoch, info.seq + 1).moved  # seq 8 was lost
        assert store.load("t")[0].info.epoch != info.epoch
        assert _undone_now(store, [1, 3, 6]) == {"1": False, "6": True}
        store.commit("t", _as(make_commit(store), ("undo", {"undoes": 3})))
        assert _undone_now(store, [1, 3, 6]) == {"1": False, "3": True, "6": True}


def test_an_undo_lost_with_redis_gone_back_marks_nothing_after_the_fence(
    redis_server, redis_prefix
):
    """Redis gone back to an older copy (every key of the table as it was before seq 8,
    a redo of 6, was committed; restored with DUMP and RESTORE), fenced to a new epoch
    that reuses seq 8 for an undo of 3: the lost redo is in neither the log nor the
    undos set, so 6 is still undone; the new 8 is answered (the epoch is not filtered:
    docs/protocol.md)."""
    from rollbridge.stores.redis import RedisStore

    with RedisStore(redis_server.url, prefix=redis_prefix) as store:
        store.create_table(make_info(), [])
        _fill(store)  # 2 undoes 1, 4 redoes it, 7 undoes 6
        keys = list(store.client.scan_iter(match=f"{redis_prefix}*"))
        copy = {key: store.client.dump(key) for key in keys}
        info = store.load("t")[0].info
        store.commit("t", _as(make_commit(store), ("redo", {"redoes": 6})))  # 8: lost
        assert _undone_now(store, [1, 3, 6]) == {"1": False, "6": False}
        for key in store.client.scan_iter(match=f"{redis_prefix}*"):
            store.client.delete(key)
        for key, blob in copy.items():
            store.client.restore(key, 0, blob)
        assert store.fence("t", info.epoch, info.seq + 1).moved  # 8 was committed
        assert _undone_now(store, [1, 3, 6]) == {"1": False, "6": True}
        store.commit("t", _as(make_commit(store), ("undo", {"undoes": 3})))  # 8 again
        assert store.load("t")[0].info.seq == 8
        assert _undone_now(store, [1, 3, 6, 8]) == {"1": False, "3": True, "6": True}


def test_redis_fills_the_set_of_a_long_old_log_a_bounded_part_a_commit(redis_server, redis_prefix):
    """A retained log of 5,000 events the version before wrote (every 500th an undo):
    each commit of this version sifts at most UNDOS_FILL of them into the set (2,000:
    its own and 3,001-5,000, then 1,001, then 1), answering as the log does throughout;
    it sifted the whole retained log inside the first commit (0.75 s of Redis serving
    nothing else at 100,000 events, past its 5 s busy threshold at some 700,000).
    Then an older process's run longer than UNDOS_FILL starts the set anew, filled the
    same way."""
    from rollbridge.stores.redis import RedisStore
    from rollbridge.stores.redis_scripts import UNDOS_FILL
    from tests.stores.redis_commit_before import commit_before

    assert UNDOS_FILL == 2000

    def old_commits(store, count: int) -> None:  # 500 events each, the first an undo
        for _ in range(count):
            commit = make_commit(store, events=500)
            _as(commit, ("undo", {"undoes": commit.events[0].seq - 1}), *[("roll", {})] * 499)
            assert commit_before(store, "t", commit)[0] == 1

    with RedisStore(redis_server.url, prefix=redis_prefix, retain=20_000) as store:
        k = store.keys.table("t")
        store.create_table(make_info(), [])
        old_commits(store, 10)  # 1-5000
        whole = _seen(store.undos_after("t", 0))
        assert len(whole) == 10
        filled = []
        for _ in range(4):
            store.commit("t", make_commit(store))
            filled.append(int(store.client.hget(k.info, "undos")))
            assert _seen(store.undos_after("t", 0)) == whole
        assert filled == [3001, 1001, 1, 1]  # 5,001 first, 3,001-5,000; then on down
        assert store.client.zcard(k.undos) == 10
        old_commits(store, 6)  # 5005-8004: 3,000 events of the version before
        whole = _seen(store.undos_after("t", 0))
        assert len(whole) == 16
        store.commit("t", make_commit(store))  # 8005: the set anew, 6,005-8,004 sifted
        assert int(store.client.hget(k.info, "undos")) == 6005
        for _ in range(4):
            assert _seen(store.undos_after("t", 0)) == whole
            store.commit("t", make_commit(store))
        assert int(store.client.hget(k.info, "undos")) == 1
        assert _seen(store.undos_after("t", 0)) == whole


@pytest.mark.parametrize("damage", ["garbage", "no events"])
def test_a_file_at_schema_7_with_a_row_damaged_before_reports_it(tmp_path, damage):
    """A file brought to schema 7 by a rollbridge whose fill skipped a log row it could
    not read (before 749dfbd9 and f7536122) holds that row without ``undos``, as though
    it had no undo: opened at schema 7 nothing fills it again, and the undone read
    skipped it, answering for the whole log where ``events_after`` reports the row. It
    reports it as ``events_after`` does (a StoreError naming the table and its seqs),
    asked again too, and answers what lies after it; a row that reads whole is not
    taken for damaged."""
    from rollbridge.plain import pack

    blob = b"\xc1\xc1" if damage == "garbage" else pack([{"kind": "roll"}])
    path = tmp_path / "t.db"
    with SQLiteStore(path) as store:
        store.create_table(make_info(), [])
        _fill(store)
    _as_an_earlier_fill_left(path)
    with sqlite3.connect(path) as plain:  # the earlier fill's work: no undos for row 3
        (whole,) = plain.execute(
            "SELECT events FROM log WHERE \"table\" = 't' AND first = 3"
        ).fetchone()
        assert plain.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 7
        plain.execute(
            "UPDATE log SET events = ?, undos = NULL WHERE \"table\" = 't' AND first = 3", (blob,)
        )
    with SQLiteStore(path) as store:
        for _ in range(2):  # asked again: reported again
            _row_3_reported(store)
        # a commit after it: the damaged row is still reported, the new undo answered
        store.commit("t", _as(make_commit(store), ("undo", {"undoes": 5})))  # 8
        with pytest.raises(StoreError):
            store.undos_after("t", 2)
        assert _seen(store.undos_after("t", 3)) == [(4, "redo"), (7, "undo"), (8, "undo")]
    with sqlite3.connect(path) as plain:  # the row mended, still without undos: read whole
        plain.execute("UPDATE log SET events = ? WHERE \"table\" = 't' AND first = 3", (whole,))
    with SQLiteStore(path) as store:
        assert _seen(store.undos_after("t", 0)) == [
            (2, "undo"),
            (4, "redo"),
            (7, "undo"),
            (8, "undo"),
        ]


def test_the_one_time_read_holds_one_row_at_a_time(tmp_path):
    """The first undone read of a process reads every row without undos of the range
    asked (a damaged one left by an earlier schema 7 fill): one at a time, as the
    cursor gives them. They were fetched all at once — a 40,000-event log's 190 MB
    held by the reader thread (benchmarks: tracemalloc's peak 196 MB). Here 120 rows
    of 40 kB (4.8 MB): the read's peak of Python memory stays under a fifth of that."""
    import tracemalloc

    with SQLiteStore(tmp_path / "t.db", retain=1_000) as store:
        store.create_table(make_info(), [])
        for n in range(120):
            store.commit("t", make_commit(store, data={"note": f"{n:04}" * 10_000}))
        store.commit("t", _as(make_commit(store), ("undo", {"undoes": 1})))  # 121
    _as_an_earlier_fill_left(tmp_path / "t.db")
    with SQLiteStore(tmp_path / "t.db", retain=1_000) as store:
        store.tables()  # the file opened and its connection made, outside the count
        tracemalloc.start()
        try:
            assert _seen(store.undos_after("t", 0)) == [(121, "undo")]
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert peak < 120 * 40_000 // 5, peak


def test_a_tables_one_time_read_holds_no_other_tables_read(tmp_path, monkeypatch):
    """Two reader threads (the server's): while one table's first undone read decodes
    its log (seconds on a long one), another table's undone read answers. One lock
    for every table held the other read until the first was done."""
    import threading

    from rollbridge.stores import sqlite as module

    path = tmp_path / "t.db"
    with SQLiteStore(path) as store:
        for table_id in ("slow", "other"):
            store.create_table(make_info(table_id), [])
            _fill(store, table_id)
    with SQLiteStore(path) as store:
        store.undos_after("other", 0)  # read once already
        inside, answered = threading.Event(), []
        real = module._row_events

        def slow(table_id, first, last, blob):
            if table_id == "slow" and not inside.is_set():
                inside.set()
                # the other table's read, from another thread, while this one reads
                other = threading.Thread(
                    target=lambda: answered.append(_seen(store.undos_after("other", 0)))
                )
                other.start()
                other.join(60)  # a guard against a hang, not a measure: it answers at once
            return real(table_id, first, last, blob)

        monkeypatch.setattr(module, "_row_events", slow)
        assert _seen(store.undos_after("slow", 0)) == [(2, "undo"), (4, "redo"), (7, "undo")]
        assert inside.is_set()
        assert answered == [[(2, "undo"), (4, "redo"), (7, "undo")]]


def test_a_log_read_whole_once_is_not_read_again_by_the_next_process(tmp_path, monkeypatch):
    """A process's first undone read of a table decodes its rows without ``undos``
    once (a damaged row an earlier schema 7 fill left: the test above); found whole, the
    file says so (``undos_checked``), and the next process — a new store on the file —
    decodes the rows with an undo alone, as every later read did; a read asking from
    further back reads the older rows alone. Before, every process decoded the whole
    log again: a 40,000-event sr2 log some 6 s on a reader thread, after each restart
    (docs/performance.md, "`state`'s `undone` on a long log")."""

    path = tmp_path / "t.db"
    with SQLiteStore(path) as store:
        store.create_table(make_info(), [])
        _fill(store)
        for _ in range(50):
            store.commit("t", make_commit(store))
    _as_an_earlier_fill_left(path)
    decoded = _decoded(monkeypatch)
    with SQLiteStore(path) as store:  # the first process: reads the log whole, once
        assert _seen(store.undos_after("t", 20)) == []
        assert sorted(set(decoded)) == list(range(21, 58))
    for _ in range(2):  # each process after it: the rows with an undo alone
        decoded.clear()
        with SQLiteStore(path) as store:
            assert _seen(store.undos_after("t", 20)) == []
            assert decoded == []
    decoded.clear()
    with SQLiteStore(path) as store:  # from further back: the older rows, once
        assert _seen(store.undos_after("t", 0)) == [(2, "undo"), (4, "redo"), (7, "undo")]
        assert sorted(set(decoded)) == [1, 2, 3, 4, *range(6, 21)]
    decoded.clear()
    with SQLiteStore(path) as store:
        assert _seen(store.undos_after("t", 0)) == [(2, "undo"), (4, "redo"), (7, "undo")]
        assert decoded == [2, 4, 7]


def test_a_damaged_row_is_reported_by_every_process(tmp_path):
    """A table whose one-time read found a damaged row is not said to be whole in the
    file: each process's undone read reports the row, and once it is mended, reads it
    whole and says so."""

    path = tmp_path / "t.db"
    with SQLiteStore(path) as store:
        store.create_table(make_info(), [])
        _fill(store)
    _as_an_earlier_fill_left(path)
    with sqlite3.connect(path) as plain:  # an earlier fill's work: no undos for row 3
        (whole,) = plain.execute("SELECT events FROM log WHERE first = 3").fetchone()
        plain.execute("UPDATE log SET events = ?, undos = NULL WHERE first = 3", (b"\xc1",))
    for _ in range(2):
        with SQLiteStore(path) as store, pytest.raises(StoreError):
            store.undos_after("t", 0)
    with sqlite3.connect(path) as plain:
        plain.execute("UPDATE log SET events = ? WHERE first = 3", (whole,))
    with SQLiteStore(path) as store:
        assert _seen(store.undos_after("t", 0)) == [(2, "undo"), (4, "redo"), (7, "undo")]
    with sqlite3.connect(path) as plain:
        assert plain.execute('SELECT "table", after FROM undos_checked').fetchall() == [("t", 0)]


def _damage_row_3(path) -> bytes:
    """Row 3 of table ``t`` as an earlier schema 7 fill left one it could not read:
    bytes that are no events, ``undos`` NULL, no table said whole; returns its bytes
    before."""
    _as_an_earlier_fill_left(path)
    with sqlite3.connect(path) as plain:
        (whole,) = plain.execute("SELECT events FROM log WHERE first = 3").fetchone()
        plain.execute("UPDATE log SET events = ?, undos = NULL WHERE first = 3", (b"\xc1",))
    return whole


def test_a_table_deleted_and_made_again_is_checked_again(tmp_path):
    """What a read found whole of a table is not taken for a new table of the same id
    (deleted, then made again): its damaged row is reported — by the next process
    (the file's ``undos_checked`` row of the table before) and by the process that
    read the table before (what it remembered). Before, the new table's damaged row
    was read by neither: its events skipped, unreported."""

    path = tmp_path / "t.db"
    with SQLiteStore(path) as store:
        store.create_table(make_info(), [])
        _fill(store)
        assert _seen(store.undos_after("t", 0)) == [(2, "undo"), (4, "redo"), (7, "undo")]
        store.delete_table("t")
        store.create_table(make_info(), [])
        _fill(store)
        _damage_row_3(path)
        with pytest.raises(StoreError):  # the process that read the table before
            store.undos_after("t", 0)
    with SQLiteStore(path) as store, pytest.raises(StoreError):  # the next process
        store.undos_after("t", 0)


def test_a_table_deleted_after_its_read_is_not_written_checked(tmp_path, monkeypatch):
    """A table read whole, then deleted and made again before the read's check is
    written to the file (another reader thread, another process), is not written
    checked for the new table."""
    from rollbridge.stores import sqlite_undos

    path = tmp_path / "t.db"
    with SQLiteStore(path) as store:
        store.create_table(make_info(), [])
        _fill(store)
        real = sqlite_undos.UnfilledRows.write_checked

        def later(self, transaction):  # meanwhile, another program's delete and create
            with SQLiteStore(path) as other:
                other.delete_table("t")
                other.create_table(make_info(), [])
                _fill(other)
            _damage_row_3(path)
            real(self, transaction)

        monkeypatch.setattr(sqlite_undos.UnfilledRows, "write_checked", later)
        store.undos_after("t", 0)
    monkeypatch.undo()
    with SQLiteStore(path) as store, pytest.raises(StoreError):
        store.undos_after("t", 0)


def test_a_checked_table_without_created_is_made_anew(tmp_path):
    """The first shape of ``undos_checked`` (9740db89: the table's id and the seq, not
    when the table was made) is made anew by the next write of a check; its rows,
    which cannot tell a table made again, are not read."""
    path = tmp_path / "t.db"
    with SQLiteStore(path) as store:
        store.create_table(make_info(), [])
        _fill(store)
    _as_an_earlier_fill_left(path)
    with sqlite3.connect(path) as plain:
        plain.execute('CREATE TABLE undos_checked ("table" TEXT PRIMARY KEY, after INTEGER)')
        plain.execute("INSERT INTO undos_checked VALUES ('t', 0)")
    _damage_row_3(path)
    with SQLiteStore(path) as store, pytest.raises(StoreError):  # not taken as checked
        store.undos_after("t", 0)
    with sqlite3.connect(path) as plain:
        plain.execute("DELETE FROM log WHERE first = 3")  # mended: the row left the log
    with SQLiteStore(path) as store:
        assert _seen(store.undos_after("t", 0)) == [(2, "undo"), (4, "redo"), (7, "undo")]
    with sqlite3.connect(path) as plain:
        (created,) = plain.execute("SELECT created FROM tables WHERE id = 't'").fetchone()
        rows = plain.execute('SELECT "table", after, created FROM undos_checked').fetchall()
    assert rows == [("t", 0, created)]


def test_a_check_finding_the_files_lock_held_is_left(tmp_path):
    """Another program holding the file's write lock (a second process, a ``sqlite3``
    shell in a transaction): the read is answered all the same, its check not written
    (not waited for: ``wait=False``), and a later process's read writes it."""
    path = tmp_path / "t.db"
    with SQLiteStore(path) as store:
        store.create_table(make_info(), [])
        _fill(store)
    _as_an_earlier_fill_left(path)
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        with SQLiteStore(path) as store:
            assert _seen(store.undos_after("t", 0)) == [(2, "undo"), (4, "redo"), (7, "undo")]
        other.execute("ROLLBACK")
        named = "SELECT name FROM sqlite_master WHERE name = 'undos_checked'"
        assert other.execute(named).fetchall() == []
        with SQLiteStore(path) as store:
            assert _seen(store.undos_after("t", 0)) == [(2, "undo"), (4, "redo"), (7, "undo")]
        assert other.execute('SELECT "table", after FROM undos_checked').fetchall() == [("t", 0)]
    finally:
        other.close()
