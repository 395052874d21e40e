"""Whether ``serve`` made its lock file: it decided by the file's absence a moment
before it took the lock, and another process could make or remove the file between
(a ``migrate`` of a database never served makes it, holds it, and removes it when it
ends). A start that failed then left a lock file beside a database never served, or
removed one this start had not made. Now the lock's own ``O_CREAT | O_EXCL`` says."""

from __future__ import annotations

import io
import os
import sqlite3
from contextlib import closing, redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from rollbridge.cli import main, serve_lock
from rollbridge.stores.sqlite import SCHEMA_VERSION, SQLiteStore


def _newer(db: Path) -> None:
    """A database ``serve`` refuses to open (a newer schema), never served."""
    SQLiteStore(db).close()
    with closing(sqlite3.connect(db)) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        conn.commit()


def test_a_failed_start_removes_the_lock_file_it_made_after_another_removed_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """The lock file is there when ``serve`` looks (a ``migrate`` holding it), gone when
    it takes the lock (that ``migrate`` ended): this ``serve`` makes it, fails to start,
    and leaves nothing beside the database."""
    db = tmp_path / "never.db"
    _newer(db)
    lock = Path(serve_lock.lock_path(db))
    held = serve_lock.hold_unserved(db)  # a migrate reading the file
    assert held is not None and held.created
    take = serve_lock._take

    def migrate_ends_first(fcntl, path):  # the interleaving, injected where it happens
        held.release()
        return take(fcntl, path)

    monkeypatch.setattr(serve_lock, "_take", migrate_ends_first)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["serve", "--db", str(db), "--port", "0", "--no-demo"])
    assert status == 1 and "newer than this rollbridge's" in err.getvalue()
    assert not lock.exists()  # the lock file it made removed with its failed start
    assert sorted(p.name for p in tmp_path.iterdir()) == ["never.db"]


def test_a_failed_start_keeps_a_lock_file_it_did_not_make(tmp_path: Path):
    """A database served before keeps its lock file through a start that fails."""
    db = tmp_path / "served.db"
    _newer(db)
    taken = serve_lock.take_serve_lock(db)
    assert taken is not None and taken.created
    os.close(taken.descriptor)  # that serve stopped: its lock file stays
    again = serve_lock.take_serve_lock(db)
    assert again is not None and not again.created
    os.close(again.descriptor)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        assert main(["serve", "--db", str(db), "--port", "0", "--no-demo"]) == 1
    assert Path(serve_lock.lock_path(db)).exists()
