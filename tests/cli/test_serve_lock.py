"""The serve lock (docs/operations.md, "One server per database file") where it is not
plainly held or free: a database never served (``migrate`` makes the lock file, holds
it and removes it again), a process that opened the lock file just before ``migrate``
removed it, and ``flock`` failing for another reason than another holder (a file
system without locks: a ``store_error``, never "a serve is running")."""

from __future__ import annotations

import errno
import fcntl
import io
import os
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from rollbridge.cli import main
from rollbridge.cli.serve_lock import hold_unserved, lock_database, lock_path
from rollbridge.exceptions import Conflict, StoreError
from rollbridge.stores.sqlite import SQLiteStore


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A database file no serve ever ran on."""
    path = tmp_path / "never.db"
    SQLiteStore(path).close()
    return path


def test_a_database_never_served_is_held_while_migrate_reads_it(db):
    lock = Path(lock_path(db))
    assert not lock.exists()
    held = hold_unserved(db)
    assert held is not None and held.created and lock.exists()
    try:
        with pytest.raises(Conflict) as caught:  # a serve started meanwhile
            lock_database(db)
        assert caught.value.code == "database_in_use"
        with pytest.raises(Conflict) as caught:  # or a second migrate
            hold_unserved(db)
        assert "or another migrate reads it" in caught.value.message
    finally:
        held.release()
    assert not lock.exists()  # made by migrate, removed by it: nothing left beside the file
    served = lock_database(db)
    assert served is not None
    os.close(served)  # the serve ended: its lock file stays, and migrate leaves it
    held = hold_unserved(db)
    assert held is not None and not held.created
    held.release()
    assert lock.exists()


def test_a_missing_database_gets_no_lock_file(tmp_path):
    assert hold_unserved(tmp_path / "nothing.db") is None
    assert list(tmp_path.iterdir()) == []


def test_a_serve_that_opened_the_lock_file_migrate_then_removed_takes_the_new_one(db, monkeypatch):
    """``migrate`` removes the lock file it made while still holding it; a ``serve``
    that opened that file just before gets its lock once ``migrate`` let go, but the
    name is no longer that file: it takes the lock of the file the name is now (else
    a second serve would lock a new file and run beside it)."""
    held = hold_unserved(db)
    assert held is not None
    real_flock = fcntl.flock
    locked = []

    def migrate_ends_first(descriptor: int, operation: int) -> None:
        if not locked:  # the serve has the old file open: now the migrate ends
            held.release()
        locked.append(descriptor)
        real_flock(descriptor, operation)

    monkeypatch.setattr(fcntl, "flock", migrate_ends_first)
    served = lock_database(db)
    assert served is not None
    try:
        assert len(locked) == 2  # the removed file's lock let go, the new file's taken
        assert os.path.exists(lock_path(db))
        with pytest.raises(Conflict):  # so a second serve refuses, as it must
            lock_database(db)
    finally:
        os.close(served)


@pytest.mark.parametrize("code", [errno.EWOULDBLOCK, errno.EACCES])
def test_flock_saying_another_holds_it_is_a_serve_running(db, monkeypatch, code):
    def held_elsewhere(_descriptor: int, _operation: int) -> None:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(fcntl, "flock", held_elsewhere)
    with pytest.raises(Conflict) as caught:
        lock_database(db)
    assert caught.value.code == "database_in_use"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


def test_flock_failing_otherwise_is_a_clear_error_not_a_running_serve(db, monkeypatch):
    """Before, any error of ``flock`` read as another holder: on a file system without
    locks (``ENOLCK``) ``migrate`` said a serve was running, and ``serve`` that another
    process held the file."""

    def no_locks(_descriptor: int, _operation: int) -> None:
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))

    monkeypatch.setattr(fcntl, "flock", no_locks)
    lock = lock_path(db)
    for take in (lock_database, hold_unserved):
        with pytest.raises(StoreError) as caught:
            take(db)
        assert caught.value.code == "store_error"
        assert (
            caught.value.message == f"cannot lock the lock file {lock}: {os.strerror(errno.ENOLCK)}"
        )
    status, out, err = run("migrate", "--from", str(db), "--to", "redis://127.0.0.1:9/0")
    assert (status, out) == (1, "")
    assert (
        err == f"rollbridge: error: store_error: cannot lock the lock file {lock}: "
        f"{os.strerror(errno.ENOLCK)}\n"
    )
    assert not Path(lock).exists()  # what hold_unserved made is not left behind
    status, _out, err = run("serve", "--db", str(db), "--no-demo", "--port", "0")
    assert status == 1 and err.startswith("rollbridge: error: store_error: cannot lock ")


def test_an_existing_lock_file_is_opened_for_writing_where_it_may_be(db, monkeypatch):
    """An exclusive flock on NFS (a POSIX lock there) needs a descriptor open for
    writing: the lock file is opened so; read-only only where this user may not write
    it (review of 4 December: serve opened it read-only, refused on NFS every time)."""
    os.close(lock_database(db))  # a serve that ran: the lock file stays
    assert os.path.exists(lock_path(os.path.realpath(db)))
    opened: list[int] = []
    real_open = os.open

    def recording(path, flags, *rest):
        if str(path) == lock_path(os.path.realpath(db)):
            opened.append(flags & (os.O_RDONLY | os.O_WRONLY | os.O_RDWR))
        return real_open(path, flags, *rest)

    monkeypatch.setattr(os, "open", recording)
    held = lock_database(db)
    assert opened and opened[-1] == os.O_RDWR
    os.close(held)
    opened.clear()

    def refusing_writes(path, flags, *rest):
        mine = str(path) == lock_path(os.path.realpath(db))
        if mine and flags & os.O_RDWR and not flags & os.O_CREAT:
            raise PermissionError(errno.EACCES, "Permission denied")
        return recording(path, flags, *rest)

    monkeypatch.setattr(os, "open", refusing_writes)
    held = lock_database(db)
    assert held is not None and opened[-1] == os.O_RDONLY
    os.close(held)
