"""The SQLite store's file check (:mod:`rollbridge.stores.sqlite_faults`) on the
cases a review found it wrong: a symlinked ``--db`` (SQLite keeps the ``-wal``
beside the file the link names), the rescued copy's permissions, and a rescue that
cannot be written (a full disk)."""

from __future__ import annotations

import os
import resource
import signal
import stat
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from rollbridge.engine.model import TableInfo
from rollbridge.exceptions import StoreUnavailable
from rollbridge.stores import sqlite_faults
from rollbridge.stores.sqlite import SQLiteStore


def table(store: SQLiteStore, name: str) -> None:
    store.create_table(TableInfo(name, "Game night", "sr2", "1"), [])


def test_a_symlinked_db_has_its_wal_checked(tmp_path: Path) -> None:
    real = tmp_path / "real.db"
    SQLiteStore(real).close()
    link = tmp_path / "rollbridge.db"
    link.symlink_to(real.name)
    with SQLiteStore(link) as store:
        table(store, "before")
        assert Path(f"{real}-wal").exists()  # SQLite's -wal: beside the file, not the link
        os.unlink(f"{real}-wal")
        with pytest.raises(StoreUnavailable) as raised:
            table(store, "after")  # acknowledged, then lost with the process, before
        assert raised.value.details["reason"] == "file_replaced"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_the_rescued_copy_is_no_more_readable_than_the_db(tmp_path: Path) -> None:
    db = tmp_path / "rollbridge.db"
    os.close(os.open(db, os.O_CREAT | os.O_WRONLY, 0o600))
    old = os.umask(0o022)
    try:
        with SQLiteStore(db) as store:
            table(store, "secret")
            os.rename(db, tmp_path / "moved.db")
            with pytest.raises(StoreUnavailable):
                table(store, "after")
    finally:
        os.umask(old)
    (rescued,) = tmp_path.glob("rollbridge.db.rescued-*")
    assert stat.S_IMODE(rescued.stat().st_mode) == 0o600
    with SQLiteStore(rescued) as copy:
        assert [t.id for t in copy.tables()] == ["secret"]


@pytest.mark.skipif(not hasattr(resource, "RLIMIT_FSIZE"), reason="no file-size limit")
def test_a_rescue_that_fails_leaves_no_partial_copy(tmp_path: Path) -> None:
    """A full disk (here a file-size limit, in a child process): no truncated
    ``rescued-*`` file that looks like a good copy is left, and the copy is not
    tried again (the whole database read) at every write."""
    db = tmp_path / "rollbridge.db"
    with SQLiteStore(db) as store:
        for n in range(60):
            store.create_table(TableInfo(f"t{n}", "x" * 20_000, "sr2", "1"), [])
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 1
        try:
            os.close(read)
            store = SQLiteStore(db)
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            limit = 200_000
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
            os.rename(db, tmp_path / "moved.db")
            refused = 0
            for n in range(3):
                try:
                    table(store, f"after{n}")
                except StoreUnavailable:
                    refused += 1
            os.write(write, str(refused).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read) as answer:
        refused = answer.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert refused == "3"
    assert list(tmp_path.glob("rollbridge.db.rescued-*")) == []


def test_a_rescue_that_failed_is_tried_again_later(tmp_path: Path, monkeypatch) -> None:
    """Its folder moved away (the copy cannot be made beside the path), then made
    again: a later write makes the copy there (at most once a minute; here at once)."""
    monkeypatch.setattr(sqlite_faults, "RESCUE_EVERY", 0.0)
    folder = tmp_path / "data"
    folder.mkdir()
    with SQLiteStore(folder / "rollbridge.db") as store:
        table(store, "kept")
        folder.rename(tmp_path / "elsewhere")
        with pytest.raises(StoreUnavailable, match="could not be copied"):
            table(store, "after")
        folder.mkdir()
        with pytest.raises(StoreUnavailable, match="is copied to"):
            table(store, "after")
    (rescued,) = folder.glob("rollbridge.db.rescued-*")
    with SQLiteStore(rescued) as copy:
        assert [t.id for t in copy.tables()] == ["kept"]


def test_a_thread_first_connecting_after_the_file_was_replaced(tmp_path: Path) -> None:
    """``mv other.db rollbridge.db`` while the server runs, before its writer thread's
    first commit (or before a new reader thread starts): the connection that thread
    opens would see the other file under the old ``-wal`` — a mix. It is refused
    (nothing read from or written to the mix), and the rescued copy is taken from a
    connection on the file the store opened: every acknowledged table, sound."""
    db = tmp_path / "rollbridge.db"
    with SQLiteStore(tmp_path / "other.db") as other:
        table(other, "other")
    with SQLiteStore(db) as store:
        for n in range(100):
            store.create_table(TableInfo(f"t{n}", "x" * 3000, "sr2", "1"), [])
        store._conn().execute("PRAGMA wal_checkpoint(TRUNCATE)")
        table(store, "last")
        os.replace(tmp_path / "other.db", db)
        _refused_in_a_new_thread(store.tables)
    (rescued,) = tmp_path.glob("rollbridge.db.rescued-*")
    with SQLiteStore(rescued) as copy:
        assert len(copy.tables()) == 101
        assert copy._conn().execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_thread_first_connecting_after_the_file_was_removed(tmp_path: Path) -> None:
    """``rm rollbridge.db`` before the writer thread's first commit: its connection
    cannot be opened (``mode=rw``); that is the removed file, said so and rescued, not
    'check the permissions'."""
    db = tmp_path / "rollbridge.db"
    with SQLiteStore(db) as store:
        table(store, "kept")
        db.unlink()
        _refused_in_a_new_thread(lambda: table(store, "after"))
    (rescued,) = tmp_path.glob("rollbridge.db.rescued-*")
    with SQLiteStore(rescued) as copy:
        assert [t.id for t in copy.tables()] == ["kept"]


def _refused_in_a_new_thread(use: Callable[[], object]) -> None:
    """``use`` the store from a thread that has no connection yet (as the writer's
    first commit after a start): refused as a replaced file."""
    raised: list[BaseException] = []

    def run() -> None:
        try:
            use()
        except BaseException as exc:
            raised.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert raised and isinstance(raised[0], StoreUnavailable), raised
    assert raised[0].details["reason"] == "file_replaced"


def test_a_removed_shm_is_told_once_and_loses_nothing(tmp_path: Path, caplog) -> None:
    """The -shm (the -wal's index, where writers' locks are taken) removed under an
    open store: writes go on — refusing them would not save another program's
    changes, the store's close checkpointing with its own index anyway
    (docs/operations.md, "A removed -shm") — and the operator is told once to
    restart before anything else opens the file. Nothing written is lost."""
    db = tmp_path / "rollbridge.db"
    with SQLiteStore(db) as store:
        table(store, "before")
        Path(f"{db}-shm").unlink()
        with caplog.at_level("WARNING", logger="rollbridge.store"):
            table(store, "after")
            table(store, "later")
        told = [r.getMessage() for r in caplog.records if r.name == "rollbridge.store"]
        assert len(told) == 1, told
        assert f"{db}-shm (the -wal's index) was removed" in told[0]
        assert "restart the server before any other program" in told[0]
    with SQLiteStore(db) as store:
        assert sorted(t.id for t in store.tables()) == ["after", "before", "later"]
