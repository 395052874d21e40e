"""``rollbridge check FILE``: a file an earlier rollbridge brought to schema 7 had each
table's first ``state`` with ``undone`` read its log rows without undos once (41–224 ms
at 1,000 retained events, 2.3–7.7 s at 40,000, the player waiting); the command pays
that work ahead for every table, beside a running server too, and writes so in the
file (docs/operations.md, "Paying the first undone read ahead")."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import sys

import pytest

from rollbridge.cli import main
from rollbridge.cli.check import DAMAGED_EXIT
from rollbridge.stores.sqlite import SQLiteStore
from tests.server.conftest import Tables, make_host, seed_tables, start
from tests.stores.test_store_contract import make_commit, make_info
from tests.stores.test_undos_after import _as_an_earlier_fill_left, _decoded, _fill, _seen

#: ``_fill``'s undos and redos, and the rows holding them.
WHOLE, UNDO_ROWS = [(2, "undo"), (4, "redo"), (7, "undo")], [2, 4, 7]


def _earlier(path, tables=("t", "u")) -> None:
    """A file as an earlier rollbridge's schema 7 fill left it: ``tables``, each
    ``_fill``'s log and 20 rolls, none said checked."""
    with SQLiteStore(path) as store:
        for table_id in tables:
            store.create_table(make_info(table_id), [])
            _fill(store, table_id)
            for _ in range(20):
                store.commit(table_id, make_commit(store, table_id))
    _as_an_earlier_fill_left(path)


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_check_pays_every_tables_first_undone_read_ahead(tmp_path, capsys, monkeypatch):
    """Each table's rows without undos are read by the command (progress on stderr, a
    line per table), so a server's first undone read of a table decodes the rows
    holding an undo alone; run again, nothing is read."""
    monkeypatch.setenv("LANGUAGE", "en")
    path = tmp_path / "t.db"
    _earlier(path)
    code, out, err = _run(capsys, "check", str(path))
    assert code == 0
    assert err.splitlines() == [
        "rollbridge: checking table 't' (1 of 2): reading 23 log rows",
        "rollbridge: checking table 'u' (2 of 2): reading 23 log rows",
    ]
    assert out == (f"checked {path}: 2 tables, 2 read now, 0 checked before; no first state"
                   " with undone reads their logs again\n")  # fmt: skip
    decoded = _decoded(monkeypatch)
    for table_id in ("t", "u"):
        decoded.clear()
        with SQLiteStore(path) as store:  # a server's process after the check
            assert _seen(store.undos_after(table_id, 0)) == WHOLE
        assert decoded == UNDO_ROWS
    code, out, err = _run(capsys, "check", "--db", str(path), "--json")
    assert (code, err) == (0, "")
    assert json.loads(out)["tables"] == [
        {"table": t, "read": 0, "checked_before": True, "damaged": []} for t in ("t", "u")
    ]


def test_a_damaged_row_is_named_and_the_other_tables_checked(tmp_path, capsys, monkeypatch):
    """A row the earlier fill could not read: the table is named with the row's seqs,
    exit status 3, and left unsaid in the file (every undone read reports it); the
    other table is checked."""
    monkeypatch.setenv("LANGUAGE", "en")
    path = tmp_path / "t.db"
    _earlier(path)
    with sqlite3.connect(path) as plain:
        plain.execute("UPDATE log SET events = ?, undos = NULL WHERE \"table\" = 't' AND first = 3",
                      (b"\xc1",))  # fmt: skip
    code, out, err = _run(capsys, "check", str(path))
    assert code == DAMAGED_EXIT == 3
    assert err.splitlines()[-1] == (
        f"rollbridge: {path}: table 't' has log rows that cannot be read (seqs 3-3): every"
        " state with undone reaching them reports them, and rollbridge check reads the table"
        " again each time; restore the file from a backup taken before the damage"
    )
    assert out.startswith(f"checked {path}: 2 tables, 1 read now, 0 checked before")
    with sqlite3.connect(path) as plain:
        assert plain.execute('SELECT "table", after FROM undos_checked').fetchall() == [("u", 0)]


@pytest.mark.parametrize("deleted", ["u", "t"], ids=["before_its_turn", "while_it_is_read"])
def test_a_table_deleted_while_the_check_runs_is_left_out(tmp_path, capsys, monkeypatch, deleted):
    """A table deleted (by another process: an admin's ``table delete``) while ``t`` is
    read — ``u``, before its turn, or ``t`` itself, its rows read in the check's own
    read transaction as they stood — is left out of the summary, not an error that
    ended the check: ``t`` deleted so found its record unwritten, a ``store_error``
    (exit status 1) with ``u`` never checked, until rev29o."""
    monkeypatch.setenv("LANGUAGE", "en")
    path = tmp_path / "t.db"
    _earlier(path)
    real = sys.stderr.write

    def deleting(text: str) -> int:
        if "checking table 't'" in text:
            with SQLiteStore(path) as other:
                other.delete_table(deleted)
        return real(text)

    monkeypatch.setattr(sys.stderr, "write", deleting)
    code, out, err = _run(capsys, "check", str(path))
    assert code == 0, err
    assert ("checking table 'u'" in err) is (deleted == "t")
    assert out.startswith(f"checked {path}: 1 table, 1 read now, 0 checked before")
    with sqlite3.connect(path) as plain:
        kept = plain.execute('SELECT "table", after FROM undos_checked').fetchall()
    assert kept == [({"t": "u", "u": "t"}[deleted], 0)]


def test_a_schema_6_file_is_brought_up_to_date_and_found_checked(tmp_path, capsys, monkeypatch):
    """As every command that writes, the check brings an older file up to date; the
    schema 7 step reads every row and records each table, so nothing is read again."""
    monkeypatch.setenv("LANGUAGE", "en")
    path = tmp_path / "t.db"
    _earlier(path)
    with sqlite3.connect(path) as plain:  # as schema 6 left it
        plain.execute("DROP INDEX log_undos")
        plain.execute("ALTER TABLE log DROP COLUMN undos")
        plain.execute("PRAGMA user_version = 6")
    code, out, err = _run(capsys, "check", str(path))
    assert (code, err) == (0, "")
    assert out.startswith(f"checked {path}: 2 tables, 0 read now, 2 checked before")
    with sqlite3.connect(path) as plain:
        assert plain.execute("PRAGMA user_version").fetchone()[0] == 7


def test_a_redis_url_or_no_file_is_refused_and_nothing_made(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LANGUAGE", "en")
    code, out, err = _run(capsys, "check", "--redis", "redis://:secret@127.0.0.1:1/0")
    assert (code, out) == (1, "")
    assert err.startswith("rollbridge: error: redis_check: rollbridge check reads a SQLite")
    assert "secret" not in err
    missing = tmp_path / "none.db"
    code, _, err = _run(capsys, "check", str(missing))
    assert code == 1
    assert err.startswith(f"rollbridge: error: no_database: no database file {missing}")
    assert not missing.exists()


def test_a_file_given_twice_is_refused_as_such(tmp_path, capsys, monkeypatch):
    """FILE and --db both given: the refusal said "give --db or --redis, not both" (the
    store options' text), naming an option the command line did not hold."""
    monkeypatch.setenv("LANGUAGE", "en")
    one, other = tmp_path / "a.db", tmp_path / "b.db"
    code, out, err = _run(capsys, "check", str(one), "--db", str(other))
    assert (code, out) == (1, "")
    assert err == ("rollbridge: error: invalid_request: give the file as FILE or as --db, not"
                   " both\n")  # fmt: skip
    assert not one.exists() and not other.exists()


@pytest.mark.parametrize("locale", ["cs", "de", "ru"])
def test_check_speaks_the_operators_language(tmp_path, capsys, locale):
    path = tmp_path / "t.db"
    _earlier(path, tables=("t",))
    code, out, err = _run(capsys, "check", str(path), "--locale", locale)
    assert code == 0
    english = ("checking table", "checked ", "no first state")
    assert not any(word in out + err for word in english), (out, err)
    code, out, err = _run(capsys, "check", str(path), "--db", str(path), "--locale", locale)
    assert code == 1 and "not both" not in err and "--db" in err, err


async def test_check_beside_a_server_rolling_on_the_file(tally, tmp_path, capsys, monkeypatch):
    """A real server commits rolls to the file throughout the check: the check waits
    for its write lock as a commit does, every roll is answered, and the next process's
    first undone read of each table decodes the rows holding an undo alone."""
    monkeypatch.setenv("LANGUAGE", "en")
    host, path = make_host(tally), tmp_path / "rollbridge.db"
    with SQLiteStore(path) as seed:
        tokens = seed_tables(seed, host)
    _as_an_earlier_fill_left(path)
    server, live_store = await start(path, host)
    world = Tables(server, live_store, path, tokens)
    try:
        gm, _ = await world.join("tally", "gm")
        stop, rolled = asyncio.Event(), 0

        async def keep_rolling() -> None:
            nonlocal rolled
            while not stop.is_set() or rolled < 3:
                assert (await gm.request({"type": "roll", "formula": "1d6"}))["status"] == "done"
                rolled += 1

        roller = asyncio.create_task(keep_rolling())
        code = await asyncio.to_thread(main, ["check", str(path)])
        stop.set()
        await roller
    finally:
        for peer in world.peers:
            peer._reader.cancel()
        await server.stop()
    out, _ = capsys.readouterr()
    assert code == 0 and out.startswith(f"checked {path}: 2 tables, 2 read now")
    with sqlite3.connect(path) as plain:
        checked = dict(plain.execute('SELECT "table", after FROM undos_checked').fetchall())
    assert checked == {"sr2": 0, "tally": 0}
    decoded = _decoded(monkeypatch)
    with SQLiteStore(path) as store:
        assert store.undos_after("tally", 0) == [] and decoded == []
