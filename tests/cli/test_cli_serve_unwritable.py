"""``rollbridge serve`` of a database file its user may read but not write.

The file opened, ``serve`` listed its tables as served, and only the first commit —
a player's roll at game night — failed ``store_error``. It is now refused at the
start, as ``table create`` refuses it, and nothing is written or left behind.

A root process writes a file whatever its mode says (``CAP_DAC_OVERRIDE``): run as
root, the server is started without that capability (dropped from its bounding set
before ``exec``, as ``capsh --drop`` does), so the file's mode binds it as it binds an
operator's service user.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_upgrade_cli import _run

#: prctl(2)'s PR_CAPBSET_DROP, and the capabilities that let root write any file.
_PR_CAPBSET_DROP = 24
_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH = 1, 2


def _as_a_service_user() -> None:
    """In the child before ``exec``: as root, give up writing files whose mode forbids
    it (the bounding set limits what ``exec`` grants root)."""
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH):
        if libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


#: CAP_SETPCAP: what dropping a capability from the bounding set takes.
_CAP_SETPCAP = 8


def _may_give_up_writing() -> bool:
    """Whether this process can start one that obeys a file's mode: any user but
    root, and root that holds CAP_SETPCAP (a container may withhold it)."""
    if os.geteuid() != 0:
        return True
    status = Path("/proc/self/status").read_text()
    effective = next(line for line in status.splitlines() if line.startswith("CapEff:"))
    return bool(int(effective.split()[1], 16) >> _CAP_SETPCAP & 1)


#: The tests that start a server obeying the file's mode (:func:`_as_a_service_user`).
as_a_service_user = pytest.mark.skipif(
    not _may_give_up_writing(), reason="root without CAP_SETPCAP: it writes every file"
)


def _files(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


@as_a_service_user
def test_serve_refuses_a_database_file_it_may_not_write(tmp_path):
    db = tmp_path / "rollbridge.db"
    assert _run("table", "create", "--ruleset", "sr2", "--name", "T", "--db", str(db))[0] == 0
    db.chmod(0o444)  # the folder stays writable: the lock file can be made
    before = _files(tmp_path)
    try:
        serve = subprocess.run(
            [sys.executable, "-m", "rollbridge", "serve", "--db", str(db), "--port", "0"],
            capture_output=True, text=True, timeout=60, preexec_fn=_as_a_service_user,
            env={**os.environ, "LANGUAGE": "en"},
        )  # fmt: skip
    finally:
        db.chmod(0o644)
    assert serve.returncode == 1, (serve.stdout, serve.stderr)
    assert "serving" not in serve.stdout
    assert serve.stderr.splitlines()[-1].startswith(
        f"rollbridge: error: store_error: {db}: the file cannot be written: check the "
        "permissions of the file and its folder, and the file system; nothing was written"
    ), serve.stderr
    assert "Traceback" not in serve.stderr
    # nothing written, and neither its lock file nor a -wal left beside it
    assert _files(tmp_path) == before


@as_a_service_user
def test_serve_still_serves_a_file_it_may_write(tmp_path):
    """The check writes nothing a later start would notice: the same file, writable,
    is served (and its tables listed) by a process without the capability too."""
    db = tmp_path / "rollbridge.db"
    assert _run("table", "create", "--ruleset", "sr2", "--name", "T", "--db", str(db))[0] == 0
    process = subprocess.Popen(
        [sys.executable, "-m", "rollbridge", "serve", "--db", str(db), "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=_as_a_service_user, env={**os.environ, "LANGUAGE": "en"},
    )  # fmt: skip
    try:
        line = process.stdout.readline()
        assert line.startswith("rollbridge serving 1 table on ws://127.0.0.1:"), line
    finally:
        process.terminate()
        process.communicate(timeout=30)


def test_serve_serves_a_file_another_program_holds_locked(tmp_path):
    """Another program's write lock at the start (a ``sqlite3`` shell left in a
    transaction) says nothing of the file's mode: the file is served, and a change
    waits for the lock as docs/operations.md says. The check once waited the 10 s
    for it and refused the start, ``store_error: … another program holds the
    database's lock``."""
    db = tmp_path / "rollbridge.db"
    assert _run("table", "create", "--ruleset", "sr2", "--name", "T", "--db", str(db))[0] == 0
    shell = sqlite3.connect(db, isolation_level=None)
    shell.execute("BEGIN IMMEDIATE")  # held until the server said what it serves
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "rollbridge", "serve", "--db", str(db), "--port", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "LANGUAGE": "en"},
        )  # fmt: skip
        try:
            line = process.stdout.readline()  # "" when it exits refusing
        finally:
            process.terminate()
            _out, err = process.communicate(timeout=30)
    finally:
        shell.execute("ROLLBACK")
        shell.close()
    assert line.startswith("rollbridge serving 1 table on ws://127.0.0.1:"), err
    assert "Traceback" not in err


def test_the_check_writes_nothing(tmp_path):
    """The check a start runs (:meth:`SQLiteStore.check_writable`) rolls its write
    back: the file and its ``-wal`` are byte for byte as before — a refusal found
    after it (a damaged table) must leave the file as it was."""
    from rollbridge.stores.sqlite import SQLiteStore

    db = tmp_path / "rollbridge.db"
    assert _run("table", "create", "--ruleset", "sr2", "--name", "T", "--db", str(db))[0] == 0
    with SQLiteStore(db) as store:
        store.tables()
        before = _files(tmp_path)
        store.check_writable()  # a commit (probe_write) would change both
        assert _files(tmp_path) == before


def test_the_check_does_not_wait_for_a_lock_but_the_store_does(tmp_path):
    """The check asks for the lock without waiting (SQLite's ``busy_timeout`` 0), and
    puts the wait back: the statements the store runs after it — loading the tables, the
    first change — wait for another program's lock as they did before the check."""
    from rollbridge.stores.sqlite import SQLiteStore

    db = tmp_path / "rollbridge.db"
    assert _run("table", "create", "--ruleset", "sr2", "--name", "T", "--db", str(db))[0] == 0
    shell = sqlite3.connect(db, isolation_level=None)
    shell.execute("BEGIN IMMEDIATE")
    try:
        with SQLiteStore(db) as store:
            waits = store._conn().execute("PRAGMA busy_timeout").fetchone()[0]
            store.check_writable()  # at once: another program's lock is no refusal
            assert store._conn().execute("PRAGMA busy_timeout").fetchone()[0] == waits > 0
    finally:
        shell.execute("ROLLBACK")
        shell.close()
