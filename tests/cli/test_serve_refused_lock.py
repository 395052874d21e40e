"""A ``serve`` refused after it took the serve lock leaves no ``FILE.lock`` it made.

A current file with one of its tables missing opened, and was refused only when its
tables were read: the lock file this start had made stayed beside the database, as it
did after a port another program held. Every refusal before the port is held now
removes the lock file the start made (still holding the lock); a lock file that was
there before stays. A real SQLite file and a real port each time."""

from __future__ import annotations

import io
import os
import socket
import sqlite3
from contextlib import closing, redirect_stderr, redirect_stdout
from pathlib import Path

from rollbridge.cli import main, serve_lock
from rollbridge.stores.sqlite import SQLiteStore
from tests.stores.conftest import _free_port


def _serve(db: Path, port: int = 0) -> tuple[int, str]:
    """``rollbridge serve`` of ``db``: its exit status and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(
            ["serve", "--db", str(db), "--port", str(port), "--no-demo", "--locale", "en"]
        )
    return status, err.getvalue()


def _current_without(db: Path, table: str) -> None:
    """A database of this rollbridge's schema with ``table`` dropped (never served)."""
    SQLiteStore(db).close()
    with closing(sqlite3.connect(db)) as conn:
        conn.execute(f"DROP TABLE {table}")
        conn.commit()


def test_a_file_missing_a_table_leaves_no_lock_file_and_says_the_same_again(tmp_path: Path):
    db = tmp_path / "games.db"
    _current_without(db, "tables")
    status, err = _serve(db)
    assert status == 1 and "store_error" in err and "no such table: tables" in err
    assert not Path(serve_lock.lock_path(db)).exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.db"]
    # a second start is refused for the same reason, not as a database in use
    again, said = _serve(db)
    assert again == 1 and said == err and "database_in_use" not in said
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.db"]


def test_a_port_held_by_another_program_leaves_no_lock_file_beside_a_kept_database(
    tmp_path: Path,
):
    db = tmp_path / "games.db"
    SQLiteStore(db).close()
    before = db.read_bytes()
    port = _free_port()
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", port))
        holder.listen()
        status, err = _serve(db, port)
    assert status == 1 and "cannot_listen" in err
    assert not Path(serve_lock.lock_path(db)).exists()
    assert db.read_bytes() == before  # the database that was there is kept as it was


def test_a_lock_file_there_before_stays_through_a_refused_start(tmp_path: Path):
    db = tmp_path / "games.db"
    _current_without(db, "tables")
    taken = serve_lock.take_serve_lock(db)  # a serve that ran on it once and stopped
    assert taken is not None and taken.created
    taken_lock = Path(serve_lock.lock_path(db))
    os.close(taken.descriptor)
    status, err = _serve(db)
    assert status == 1 and "no such table: tables" in err
    assert taken_lock.exists()
