"""A ``store_error`` a user or an operator reads is said in their language: the
sentence is a message of the catalogue (cs, de, ru), SQLite's or Python's own
English words only after it, in parentheses, as its technical detail. Before, such
messages were those words themselves — ``cannot open FILE: file is not a database``,
``… database is locked``, ``the commit cannot be stored: TypeError: …`` — in every
language."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from rollbridge.engine.model import Commit, TableInfo
from rollbridge.exceptions import StoreError, StoreUnavailable
from rollbridge.stores.base import UNEXPECTED
from rollbridge.stores.memory import MemoryStore
from rollbridge.stores.sqlite import SQLiteStore
from tests.cli.test_upgrade_cli import _run

#: By locale: the start of what a non-database says, and of a held lock's advice.
SAID = {
    "en": ("it is not a SQLite database", "another program holds the database's lock"),
    "cs": ("není to databáze SQLite", "zámek databáze drží jiný program"),
    "de": ("sie ist keine SQLite-Datenbank", "ein anderes Programm hält die Sperre"),
    "ru": ("это не база данных SQLite", "блокировку базы данных держит другая программа"),
}
#: By locale: "cannot be stored".
UNSTORABLE = {
    "en": "cannot be stored",
    "cs": "nelze uložit",
    "de": "lässt sich nicht speichern",
    "ru": "нельзя сохранить",
}


@pytest.mark.parametrize("locale", sorted(SAID))
@pytest.mark.parametrize("command", [("table", "list"), ("backup",)], ids=lambda c: c[0])
def test_a_file_that_is_no_database_is_said_in_the_language(tmp_path, locale, command):
    db = tmp_path / "notes.db"
    db.write_bytes(b"Friday: bring dice\n" * 20)  # past a header's length: SQLite reads it
    argv = [*command, "--db", str(db), "--locale", locale]
    if command == ("backup",):
        argv[1:1] = [str(tmp_path / "copy.db")]
    status, out, err = _run(*argv)
    assert (status, out) == (1, "")
    head = "rollbridge: error: store_error: "
    assert err.startswith(head) and err.count("\n") == 1, err
    assert SAID[locale][0] in err, err
    # SQLite's own words only as the detail, at the end
    assert err.endswith(" (SQLITE_NOTADB: file is not a database)\n"), err
    assert db.read_bytes() == b"Friday: bring dice\n" * 20
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.db"]


@pytest.mark.parametrize("locale", sorted(SAID))
def test_a_held_lock_is_said_in_the_language(tmp_path, locale):
    db = tmp_path / "rollbridge.db"
    SQLiteStore(db).close()
    store = SQLiteStore(db, busy_timeout=0.05)
    with closing(sqlite3.connect(db, isolation_level=None)) as holder:
        holder.execute("BEGIN IMMEDIATE")  # another program's write lock, held
        with pytest.raises(StoreUnavailable) as caught:
            store.add_admin_token(_token())
        holder.execute("ROLLBACK")
    store.close()
    said = caught.value.render(locale)
    assert said.startswith(f"{db}: {SAID[locale][1]}"), said
    assert said.endswith("(SQLITE_BUSY: database is locked)"), said
    assert caught.value.details == {"reason": "locked"}


def _token():
    from rollbridge.tokens import new_admin_token

    return new_admin_token("web")[1]


@pytest.mark.parametrize("locale", sorted(UNSTORABLE))
@pytest.mark.parametrize("store", [MemoryStore, SQLiteStore], ids=["memory", "sqlite"])
def test_a_commit_that_cannot_be_stored_is_said_in_the_language(tmp_path, locale, store):
    made = store() if store is MemoryStore else store(tmp_path / "x.db")
    info = TableInfo("t", "Friday", "tally", "1.2.0")
    made.create_table(info, [])
    bad = Commit(events=[], actors=[], removed=[], info=info, meta={"odd": object()})
    with pytest.raises(StoreError) as caught:
        if isinstance(made, SQLiteStore):
            made.prepare(bad)
        else:
            made.commit("t", bad)
    made.close()
    said = caught.value.render(locale)
    assert UNSTORABLE[locale] in said.split("(")[0], said
    assert "TypeError" not in said.split("(")[0] and "NotPlain" not in said.split("(")[0], said


@pytest.mark.parametrize("locale", sorted(UNSTORABLE))
def test_a_table_that_cannot_be_stored_is_said_in_the_language(tmp_path, locale):
    with SQLiteStore(tmp_path / "x.db") as store, pytest.raises(StoreError) as caught:
        store.create_table(TableInfo("t", "F", "tally", "1.2.0", {"odd": {1, 2}}), [])
    said = caught.value.render(locale)
    assert "'t'" in said.split("(")[0], said
    assert UNSTORABLE[locale] in said.split("(")[0], said
    assert caught.value.details == {"table": "t"}


def test_every_new_store_message_is_in_every_catalogue():
    """The sentences this change made are translated (not the English text)."""
    from rollbridge.stores import sqlite_faults

    for advice in [*sqlite_faults._ADVICE.values(), *sqlite_faults._FILE_FAULTS.values(),
                   sqlite_faults.OTHER_FAULT, UNEXPECTED]:  # fmt: skip
        english = advice().render("en")
        for locale in ("cs", "de", "ru"):
            assert advice().render(locale) != english, (locale, english)


def test_a_file_path_is_kept(tmp_path: Path):
    """The path in a message is the file's, as given (nothing translated in it)."""
    db = tmp_path / "Übung.db"
    db.write_bytes(b"x" * 200)
    status, _, err = _run("table", "list", "--db", str(db), "--locale", "ru")
    assert status == 1 and str(db) in err


#: By locale: the start of what a write says once the file was replaced.
REPLACED = {
    "en": "(or its -wal) was removed, moved or replaced",
    "cs": "(nebo jeho -wal) byl odstraněn, přesunut nebo nahrazen",
    "de": "(oder ihre -wal) wurde entfernt, verschoben oder ersetzt",
    "ru": "(или его -wal) был удалён, перемещён или заменён",
}


@pytest.mark.parametrize("locale", sorted(REPLACED))
def test_a_replaced_file_is_said_in_the_language(tmp_path, locale):
    db, other = tmp_path / "rollbridge.db", tmp_path / "other.db"
    store = SQLiteStore(db)
    SQLiteStore(other).close()
    other.replace(db)  # another file where the store's was
    with pytest.raises(StoreUnavailable) as caught:
        store.add_admin_token(_token())
    store.close()
    said = caught.value.render(locale)
    assert said.startswith(f"{db} {REPLACED[locale]}"), said
    assert f"{db.name}.rescued-" in said, said  # the copy it made, named


#: By locale: the start of what a failed read says, and of what a failed write says.
READ_OR_WRITE = {
    "en": ("reading from the disk failed", "writing to the disk failed"),
    "cs": ("čtení z disku selhalo", "zápis na disk selhal"),
    "de": ("das Lesen vom Datenträger ist fehlgeschlagen", "das Schreiben auf den Datenträger"),
    "ru": ("чтение с диска не удалось", "запись на диск не удалась"),
}


def _io_error(name: str) -> sqlite3.OperationalError:
    """An I/O error as SQLite raises it: its extended name on the exception (the
    attributes Python's sqlite3 sets; a failing disk cannot be had here)."""
    exc = sqlite3.OperationalError("disk I/O error")
    exc.sqlite_errorname = name
    return exc


@pytest.mark.parametrize("locale", sorted(READ_OR_WRITE))
def test_a_failed_read_is_not_said_to_be_a_failed_write(tmp_path, locale):
    """SQLite names a failed read and a failed write both ``SQLITE_IOERR``; a read of
    a failing disk was said "writing to the disk failed: the disk may be full …",
    sending the operator to free space. Its own sentence now; a write's is kept."""
    from rollbridge.stores.sqlite_faults import explain, store_wide

    read, write = READ_OR_WRITE[locale]
    for name in ("SQLITE_IOERR_READ", "SQLITE_IOERR_SHORT_READ"):
        said = [explain(_io_error(name)).render(locale)]
        said.append(store_wide(tmp_path / "x.db", _io_error(name)).render(locale))
        for text in said:
            assert read in text and write not in text and f"({name}: disk I/O error)" in text
    wrote = store_wide(tmp_path / "x.db", _io_error("SQLITE_IOERR_WRITE"))
    assert wrote.details == {"reason": "io"} and write in wrote.render(locale)
