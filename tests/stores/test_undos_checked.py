"""The SQLite file's record of the tables whose rows without ``undos`` need no
reading (``undos_checked``, :mod:`rollbridge.stores.sqlite_undos`): a table this
rollbridge makes, imports or fills at the schema 7 upgrade is said whole at once, so
no process's first undone read decodes its log (docs/performance.md, "`state`'s
`undone` on a long log"); a table's deletion takes its row with it."""

from __future__ import annotations

import sqlite3

import pytest

from rollbridge.exceptions import StoreError
from rollbridge.stores import SQLiteStore
from tests.stores.test_store_contract import make_commit, make_info
from tests.stores.test_undos_after import (
    _as_an_earlier_fill_left,
    _damage_row_3,
    _decoded,
    _fill,
    _seen,
)

#: The undone read of ``_fill``'s log and more rolls after it, and the rows it decodes
#: when nothing but the rows holding an undo is read.
WHOLE, UNDO_ROWS = [(2, "undo"), (4, "redo"), (7, "undo")], [2, 4, 7]


def _checked(path) -> list[tuple]:
    """The file's ``undos_checked`` rows (table, after), or None: it has no such table."""
    with sqlite3.connect(path) as plain:
        try:
            return plain.execute('SELECT "table", after FROM undos_checked').fetchall()
        except sqlite3.OperationalError:
            return None


def _rolled(store, table_id: str = "t") -> None:
    _fill(store, table_id)
    for _ in range(30):
        store.commit(table_id, make_commit(store, table_id))


def test_a_table_this_rollbridge_made_is_never_read_whole(tmp_path, monkeypatch):
    """A table made by this rollbridge: the first undone read of its first process
    decodes the rows holding an undo alone. Before, that read decoded every row of the
    log once per file and table (5 s at 40,000 events)."""
    path = tmp_path / "t.db"
    with SQLiteStore(path) as store:
        store.create_table(make_info(), [])
        _rolled(store)
    assert _checked(path) == [("t", 0)]
    decoded = _decoded(monkeypatch)
    with SQLiteStore(path) as store:  # a new process
        assert _seen(store.undos_after("t", 0)) == WHOLE
    assert decoded == UNDO_ROWS


def test_a_file_upgraded_from_schema_6_is_never_read_whole(tmp_path, monkeypatch):
    """A schema 6 file brought to 7 by this rollbridge: its fill read every row, and
    says so; the first undone read decodes the rows holding an undo alone, and answers
    as before."""
    path = tmp_path / "t.db"
    with SQLiteStore(path) as store:
        for table_id in ("t", "u"):
            store.create_table(make_info(table_id), [])
            _rolled(store, table_id)
    with sqlite3.connect(path) as plain:  # as schema 6 left it
        plain.execute("DROP TABLE undos_checked")
        plain.execute("DROP INDEX log_undos")
        plain.execute("ALTER TABLE log DROP COLUMN undos")
        plain.execute("PRAGMA user_version = 6")
    decoded = _decoded(monkeypatch)
    with SQLiteStore(path) as store:  # the upgrade
        assert _checked(path) == [("t", 0), ("u", 0)]
        decoded.clear()
        assert _seen(store.undos_after("t", 0)) == WHOLE
        assert decoded == UNDO_ROWS


def test_a_schema_6_file_without_tables_gets_no_record(tmp_path):
    """A file without tables is upgraded without making the record's table."""
    path = tmp_path / "t.db"
    SQLiteStore(path).close()
    with sqlite3.connect(path) as plain:
        plain.execute("DROP INDEX log_undos")
        plain.execute("ALTER TABLE log DROP COLUMN undos")
        plain.execute("PRAGMA user_version = 6")
    SQLiteStore(path).close()
    assert _checked(path) is None


def test_an_imported_table_is_never_read_whole(tmp_path, monkeypatch):
    """A table ``migrate`` writes into a file (``import_table``): its rows hold their
    undos, and the file says so."""
    with SQLiteStore(tmp_path / "from.db") as source:
        source.create_table(make_info(), [])
        _rolled(source)
        snapshot, _ = source.load("t")
        events = source.events_after("t", 0)
    with SQLiteStore(tmp_path / "t.db") as store:
        store.import_table(snapshot, events, [], [])
    assert _checked(tmp_path / "t.db") == [("t", 0)]
    decoded = _decoded(monkeypatch)
    with SQLiteStore(tmp_path / "t.db") as store:
        assert _seen(store.undos_after("t", 0)) == WHOLE
    assert decoded == UNDO_ROWS


def test_a_table_an_earlier_rollbridge_filled_is_still_read_once(tmp_path):
    """A file an earlier rollbridge brought to schema 7 (no record): the first
    undone read reads its rows once and reports a damaged one, as before."""
    path = tmp_path / "t.db"
    with SQLiteStore(path) as store:
        store.create_table(make_info(), [])
        _rolled(store)
    _damage_row_3(path)  # and no record, as an earlier rollbridge left it
    with SQLiteStore(path) as store, pytest.raises(StoreError) as caught:
        store.undos_after("t", 0)
    assert caught.value.details == {"table": "t", "first": 3, "last": 3}
    assert _checked(path) is None


@pytest.mark.parametrize("how", ["made here", "read whole by a process"])
def test_a_deleted_table_takes_its_record_with_it(tmp_path, how):
    """``delete_table`` removes the table's ``undos_checked`` row in its transaction,
    and no other table's. Before, the row stayed in the file for good."""
    path = tmp_path / "t.db"
    with SQLiteStore(path) as store:
        for table_id in ("t", "u"):
            store.create_table(make_info(table_id), [])
            _fill(store, table_id)
    if how == "read whole by a process":  # the record an undone read writes
        _as_an_earlier_fill_left(path)
        with SQLiteStore(path) as store:
            for table_id in ("t", "u"):
                store.undos_after(table_id, 0)
    assert sorted(_checked(path)) == [("t", 0), ("u", 0)]
    with SQLiteStore(path) as store:
        store.delete_table("t")
    assert _checked(path) == [("u", 0)]


def test_a_failed_delete_keeps_the_record(tmp_path, monkeypatch):
    """The row goes in the deletion's transaction: a deletion that fails after it
    (here the commit, refused) leaves the table and its row both."""
    from rollbridge.stores import sqlite_undos

    path = tmp_path / "t.db"
    with SQLiteStore(path) as store:
        store.create_table(make_info(), [])
        _fill(store)
        real = sqlite_undos.forget

        def then_fail(conn, table_id):
            real(conn, table_id)
            raise sqlite3.OperationalError("disk I/O error")

        monkeypatch.setattr("rollbridge.stores.sqlite.forget", then_fail)
        with pytest.raises(StoreError):
            store.delete_table("t")
        assert [info.id for info in store.tables()] == ["t"]
    assert _checked(path) == [("t", 0)]


def test_a_file_without_the_record_deletes_a_table(tmp_path):
    """A file an earlier rollbridge wrote, without ``undos_checked``: a table is
    deleted as before, and the record's table is not made by it."""
    path = tmp_path / "t.db"
    with SQLiteStore(path) as store:
        for table_id in ("t", "u"):
            store.create_table(make_info(table_id), [])
            _fill(store, table_id)
    _as_an_earlier_fill_left(path)
    with SQLiteStore(path) as store:
        store.delete_table("t")
        assert [info.id for info in store.tables()] == ["u"]
        assert _checked(path) is None
        assert _seen(store.undos_after("u", 0)) == WHOLE
    assert _checked(path) == [("u", 0)]  # the read of "u" wrote its own
    with SQLiteStore(path) as store:
        store.delete_table("u")
        assert store.tables() == []
    assert _checked(path) == []
