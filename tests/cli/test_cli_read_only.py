"""The commands that only read a database write nothing to it: ``table list``,
``table tokens`` (a list), ``table export``, ``table stats``, ``admin-token --list``
and ``backup``. Given a file of an older schema (the upgrade fixture of schema 5,
``598451c``) the table commands brought it up to date in place, and switched a file
in a rollback journal (a backup, a fixture) to WAL: a copy, a backup, or a file an
older rollbridge still serves was rewritten by a ``table list``. Now such a file is
read from a temporary copy (brought up to date there), and the file's bytes, and the
files beside it, are as they were. ``backup`` of an empty file reported "0 tables";
it is refused as the others refuse it (``no_database``), and leaves no copy."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
from contextlib import closing
from pathlib import Path

import pytest

from rollbridge.stores.sqlite import SCHEMA_VERSION, SQLiteStore
from rollbridge.stores.sqlite_read import read_only
from tests.cli.test_upgrade_cli import _run
from tests.conftest import stop_process
from tests.upgrade_files import old_file

#: The last version of schema 5 (every older fixture is older still).
OLD = "598451c"


def _state(folder: Path) -> dict[str, str]:
    """Every file of ``folder`` by name, as the SHA-256 of its bytes."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def _version(path: Path) -> int:
    """The file's schema version, read as the reading commands read (a ``mode=ro``
    connection to a file in WAL mode without a ``-wal`` makes one, and its ``-shm``,
    and leaves them)."""
    with closing(read_only(path)) as conn:
        return conn.execute("PRAGMA user_version").fetchone()[0]


def _reading_commands(table: str) -> list[tuple[str, ...]]:
    return [
        ("table", "list"),
        ("table", "list", "--json"),
        ("table", "tokens", table),
        ("table", "export", table, "--as", "gm", "--format", "jsonl"),
        ("table", "stats", table),
        ("admin-token", "--list"),
    ]


@pytest.fixture(autouse=True)
def english(monkeypatch):
    monkeypatch.setenv("LANGUAGE", "en")


@pytest.mark.parametrize("wal", [False, True], ids=["rollback-journal", "wal"])
def test_reading_an_older_schema_writes_nothing(tmp_path, wal):
    old = old_file(OLD, tmp_path / "db")
    if wal:  # as a stopped older server leaves it
        with sqlite3.connect(old.path) as conn:
            conn.execute("PRAGMA journal_mode=WAL")
        conn.close()
    table = next(iter(old.tables.values()))["table"]
    before = _state(old.path.parent)
    assert _version(old.path) < SCHEMA_VERSION
    for command in _reading_commands(table):
        status, out, err = _run(*command, "--db", str(old.path))
        assert status == 0 and err == "", (command, err)
        assert out, command
        assert _state(old.path.parent) == before, command  # nor a -wal or -shm left
    status, listed, _ = _run("table", "list", "--json", "--db", str(old.path))
    assert {t["id"] for t in json.loads(listed)} == {m["table"] for m in old.tables.values()}
    assert _version(old.path) < SCHEMA_VERSION


def test_reading_answers_as_the_file_brought_up_to_date_would(tmp_path):
    """The copy read is the file brought up to date: the same answers as reading the
    file after ``serve`` (a write command) upgraded it."""
    old = old_file(OLD, tmp_path / "db")
    table = next(iter(old.tables.values()))["table"]
    read = [_run(*c, "--db", str(old.path))[1] for c in _reading_commands(table)]
    SQLiteStore(old.path).close()  # what serving it does first
    assert _version(old.path) == SCHEMA_VERSION
    assert [_run(*c, "--db", str(old.path))[1] for c in _reading_commands(table)] == read


def test_reading_a_backup_leaves_it_as_it_was(tmp_path):
    """A backup (this schema, in a rollback journal, marked) read with ``table
    export`` was switched to WAL; now its bytes stay, and it is still a backup."""
    db, copy = tmp_path / "rollbridge.db", tmp_path / "backups" / "copy.db"
    copy.parent.mkdir()
    assert _run("table", "create", "--ruleset", "sr2", "--name", "Friday", "--db", str(db))[0] == 0
    assert _run("backup", "--db", str(db), str(copy))[0] == 0
    before = _state(copy.parent)
    status, listed, _ = _run("table", "list", "--json", "--db", str(copy))
    assert status == 0
    table = json.loads(listed)[0]["id"]
    for command in _reading_commands(table):
        status, _, err = _run(*command, "--db", str(copy))
        assert status == 0 and err == "", (command, err)
    assert _state(copy.parent) == before


def test_a_write_still_brings_an_older_file_up_to_date(tmp_path):
    """A command that writes (a new token) upgrades the file, as serving it does."""
    old = old_file(OLD, tmp_path / "db")
    table = next(iter(old.tables.values()))["table"]
    status, _, err = _run("table", "tokens", table, "--new", "observer", "--db", str(old.path))
    assert status == 0, err
    assert _version(old.path) == SCHEMA_VERSION


def test_reading_a_newer_schema_is_refused_and_writes_nothing(tmp_path):
    db = tmp_path / "db" / "rollbridge.db"
    db.parent.mkdir()
    SQLiteStore(db).close()
    with sqlite3.connect(db) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    before = _state(db.parent)
    status, out, err = _run("table", "list", "--db", str(db))
    assert (status, out) == (1, "")
    assert err == (
        f"rollbridge: error: store_error: {db} has schema version {SCHEMA_VERSION + 1},"
        f" newer than this rollbridge's {SCHEMA_VERSION}: upgrade rollbridge\n"
    )
    assert _state(db.parent) == before


def _marked(db: Path, version: int, dropped: tuple[str, ...] = ()) -> dict[str, str]:
    """A database of one table made at ``db`` (its folder made), ``dropped`` tables
    dropped and its schema version set to ``version``; its folder's state then."""
    db.parent.mkdir()
    assert _run("table", "create", "--ruleset", "sr2", "--name", "T", "--db", str(db))[0] == 0
    with closing(sqlite3.connect(db)) as conn:
        for name in dropped:
            conn.execute(f"DROP TABLE {name}")
        conn.execute(f"PRAGMA user_version = {version}")
        conn.commit()
    return _state(db.parent)


def _refused_by_each(commands: list[tuple[str, ...]], said: str, db: Path, before: dict) -> None:
    """Each of ``commands`` refuses (status 1), saying ``said``, and writes nothing."""
    for command in commands:
        assert _run(*command) == (1, "", said), command
        assert _state(db.parent) == before, command


@pytest.mark.parametrize("dropped", [(), ("admin_tokens", "log")], ids=["whole", "tables dropped"])
def test_a_schema_version_below_zero_is_refused_by_every_command_and_written_by_none(
    tmp_path, dropped
):
    """A file whose schema version is below 0 (no rollbridge writes one: damaged, or
    another program's) was taken for an older schema: ``serve`` ran the last migration
    on it, wrote version 6 and then failed ("no such table: log") — a refusal that
    changed the file (found by tests/hostile/test_fuzz_sqlite.py, seed 91406) — and
    ``migrate`` told the operator to serve it once. Each command now refuses it,
    naming the version, and writes nothing."""
    db = tmp_path / "db" / "rollbridge.db"
    before = _marked(db, -1, dropped)
    said = (
        f"rollbridge: error: store_error: {db} has schema version -1, which no rollbridge"
        " writes: the file is damaged or another program's; restore it from a backup\n"
    )
    commands = [
        ("table", "list", "--db", str(db)),
        ("table", "tokens", "t", "--new", "player", "--name", "x", "--db", str(db)),
        ("migrate", "--from", str(db), "--to", "redis://127.0.0.1:9/0"),
    ]
    _refused_by_each(commands, said, db, before)
    serve = subprocess.run(
        [sys.executable, "-m", "rollbridge", "serve", "--db", str(db), "--port", "0"],
        capture_output=True, text=True, timeout=60, env={**os.environ, "LANGUAGE": "en"},
    )  # fmt: skip
    assert (serve.returncode, serve.stderr.splitlines()[-1:]) == (1, [said.strip()]), serve.stderr
    assert {
        name: digest for name, digest in _state(db.parent).items() if name != "rollbridge.db.lock"
    } == before
    # backup copies it as it is (as it copies a damaged table, docs/operations.md),
    # saying its version; the copy is refused as the file is
    copy = tmp_path / "copy.db"
    status, out, err = _run("backup", "--db", str(db), str(copy), "--json")
    assert (status, err, json.loads(out)["schema_version"]) == (0, "", -1), (out, err)
    assert _run("table", "list", "--db", str(copy)) == (1, "", said.replace(str(db), str(copy)))


def test_a_file_marked_older_than_its_tables_is_refused_in_the_words_of_a_schema(tmp_path):
    """A current file marked schema version 1 (another program set it, or the file was
    pieced together) said only SQLite's ``duplicate column name: seq``, the first
    migration's failure, and nothing told the operator what was wrong or what to do.
    Each command now names the version, what does not match and the fix, in the
    reader's language, and writes nothing."""
    db = tmp_path / "db" / "rollbridge.db"
    before = _marked(db, 1)
    said = (
        f"rollbridge: error: store_error: {db} has schema version 1, but its tables are not"
        " that version's (duplicate column name: seq): the file is damaged, or another"
        " program changed its version; nothing was written: restore it from a backup\n"
    )
    commands = [
        ("table", "list", "--db", str(db)),
        ("migrate", "--from", str(db), "--to", "redis://127.0.0.1:9/0"),
        ("serve", "--db", str(db), "--port", "0", "--no-demo"),
    ]
    _refused_by_each(commands, said, db, before)
    german = _run("table", "list", "--db", str(db), "--locale", "de")[2]
    assert "duplicate column name: seq" in german and "Sicherung" in german, german


@pytest.mark.parametrize("content", [b"", b"x" * 40, None], ids=["empty", "short", "no-schema"])
def test_backup_of_no_database_is_refused_and_leaves_no_copy(tmp_path, content):
    db, dest = tmp_path / "db" / "x.db", tmp_path / "copy.db"
    db.parent.mkdir()
    if content is None:  # a SQLite file that holds nothing (schema version 0)
        with sqlite3.connect(db) as conn:
            conn.execute("CREATE TABLE t (a)")
            conn.execute("DROP TABLE t")
        conn.close()
    else:
        db.write_bytes(content)
    before = _state(db.parent)
    status, out, err = _run("backup", "--db", str(db), str(dest))
    assert (status, out) == (1, "")
    assert err.startswith(f"rollbridge: error: no_database: no database in {db}: "), err
    assert err.count("\n") == 1
    assert not dest.exists() and list(tmp_path.iterdir()) == [db.parent]
    assert _state(db.parent) == before
    status, out, _ = _run("backup", "--db", str(db), str(dest), "--json")
    assert status == 1 and json.loads(out)["code"] == "no_database"


def test_backup_of_a_missing_file_says_no_database(tmp_path):
    """As the other reading commands say it (it was ``store_error``)."""
    db = tmp_path / "none.db"
    status, _, err = _run("backup", "--db", str(db), str(tmp_path / "copy.db"))
    assert status == 1
    assert err.startswith(f"rollbridge: error: no_database: no database file {db}: "), err
    assert list(tmp_path.iterdir()) == []


# -- a killed server's -wal: read, never checkpointed ---------------------------------

#: The environment of a ``serve`` process a test starts.
SERVE_ENV = {**os.environ, "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1", "LANGUAGE": "en"}


def _serving(db: Path) -> subprocess.Popen:
    """A ``rollbridge serve`` of ``db`` on a free port, once it says it serves."""
    process = subprocess.Popen(
        [sys.executable, "-m", "rollbridge", "serve", "--db", str(db), "--port", "0",
         "--no-demo"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env=SERVE_ENV,
    )  # fmt: skip
    assert process.stdout is not None
    assert "ws://127.0.0.1:" in process.stdout.readline()
    return process


def _new_table(db: Path, name: str) -> str:
    status, made, err = _run("table", "create", "--ruleset", "sr2", "--name", name, "--json",
                             "--db", str(db))  # fmt: skip
    assert status == 0, err
    return json.loads(made)["id"]


def _killed_with_a_wal(db: Path, *, commits: bool) -> tuple[str, str]:
    """``db`` as a ``serve`` killed with SIGKILL leaves it: its ``-wal`` and ``-shm``
    beside it, holding (``commits``) a table and a token made while it served (the
    server's connection open, nothing checkpointed them), else nothing but the
    ``-wal``'s header, if that. The ids of the first table, and of the last (or the
    first again)."""
    first = _new_table(db, "Friday")
    process = _serving(db)
    try:
        last = first
        if commits:
            last = _new_table(db, "Saturday")
            status, _, err = _run("table", "tokens", last, "--new", "observer", "--name",
                                  "latest", "--db", str(db))  # fmt: skip
            assert status == 0, err
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=60)
    return first, last


@pytest.mark.parametrize("commits", [True, False], ids=["commits", "idle"])
def test_reading_a_killed_servers_file_leaves_it_and_its_wal_byte_for_byte(tmp_path, commits):
    """A ``-wal`` a SIGKILLed server left, no server running: every reading command's
    store closed the file's last connection, which checkpointed the ``-wal`` into the
    file and removed it and the ``-shm`` (the content the same, the bytes not). Now
    the three files keep their bytes, and the commands still see the last commits."""
    db = tmp_path / "db" / "rollbridge.db"
    db.parent.mkdir()
    first, last = _killed_with_a_wal(db, commits=commits)
    wal = db.with_name(db.name + "-wal")
    assert wal.exists() and db.with_name(db.name + "-shm").exists()
    if commits:
        assert wal.stat().st_size > 4096  # pages no checkpoint moved into the file
    before = _state(db.parent)
    for command in [*_reading_commands(last), ("backup", str(tmp_path / "copy.db"))]:
        status, _, err = _run(*command, "--db", str(db))
        assert status == 0 and err == "", (command, err)
        assert _state(db.parent) == before, command
    status, listed, _ = _run("table", "list", "--json", "--db", str(db))
    assert [t["id"] for t in json.loads(listed)] == list(dict.fromkeys([first, last]))
    tokens = _run("table", "tokens", last, "--db", str(db))[1]
    assert ("latest" in tokens) == commits
    status, copied, _ = _run("table", "list", "--json", "--db", str(tmp_path / "copy.db"))
    assert copied == listed  # the backup holds them too
    assert _state(db.parent) == before


def test_reading_a_wal_without_its_index_makes_no_file(tmp_path, monkeypatch):
    """A file and its ``-wal`` copied without the ``-shm``: any connection would make
    one (a read-only one, and leave it). The two are read from a copy, and nothing is
    made beside them; the copies are removed."""
    db = tmp_path / "db" / "rollbridge.db"
    db.parent.mkdir()
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    _, last = _killed_with_a_wal(db, commits=True)
    db.with_name(db.name + "-shm").unlink()
    before = _state(db.parent)
    for command in [*_reading_commands(last), ("backup", str(tmp_path / "copy.db"))]:
        status, _, err = _run(*command, "--db", str(db))
        assert status == 0 and err == "", (command, err)
        assert _state(db.parent) == before, command
    assert "latest" in _run("table", "tokens", last, "--db", str(db))[1]
    assert "latest" in _run("table", "tokens", last, "--db", str(tmp_path / "copy.db"))[1]
    assert list(temporary.iterdir()) == []


def test_reading_beside_a_running_server_sees_its_commits(tmp_path):
    """In place, read-only, beside the server's connection: what was committed while
    it serves is read, and its files are the server's to change."""
    db = tmp_path / "rollbridge.db"
    first = _new_table(db, "Friday")
    process = _serving(db)
    try:
        last = _new_table(db, "Saturday")
        for command in _reading_commands(last):
            status, _, err = _run(*command, "--db", str(db))
            assert status == 0 and err == "", (command, err)
        status, listed, _ = _run("table", "list", "--json", "--db", str(db))
        assert [t["id"] for t in json.loads(listed)] == [first, last]
        assert process.poll() is None
    finally:
        stop_process(process)


@pytest.mark.parametrize("locale", ["en", "cs", "de", "ru"])
def test_a_copy_that_cannot_be_brought_up_to_date_is_said_of_the_file(
    tmp_path, monkeypatch, locale
):
    """A file of an older schema whose upgrade fails in the read's temporary copy (its
    version says 4, but it has schema 5's column already): the error named the copy,
    a file in the temporary folder the operator never made. Now it names the file,
    and the copy is gone."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    tmp_path = tmp_path / "db"
    tmp_path.mkdir()
    db = tmp_path / "rollbridge.db"
    _new_table(db, "Friday")
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA user_version = 4")
        conn.commit()
    before = _state(tmp_path)
    status, out, err = _run("table", "list", "--db", str(db), "--locale", locale)
    assert (status, out) == (1, "")
    # the file's version and tables said as not matching (test above): of the file
    assert err.startswith("rollbridge: error: store_error: ") and f" {db} " in err, err
    assert "(duplicate column name: created)" in err
    assert "rollbridge-read-" not in err  # the copy's folder
    status, out, _ = _run("table", "list", "--db", str(db), "--json")
    assert json.loads(out)["message"].startswith(f"{db} has schema version 4, but its tables")
    assert _state(tmp_path) == before
    assert list(temporary.iterdir()) == []


# -- the copy's temporary folder without room ------------------------------------------

#: The size limit (``ulimit -f``) of a command whose copy finds no room: two pages.
NO_ROOM = 8192


def _without_room(*argv: str, temporary: Path, locale: str = "en") -> tuple[int, str]:
    """``rollbridge *argv`` in a process whose files cannot grow past :data:`NO_ROOM`
    bytes (as on a full disk: the reading commands write only their copy), its
    temporary folder ``temporary``: the status and what it said on stderr."""
    import resource

    def limited() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past it fails (EFBIG)
        resource.setrlimit(resource.RLIMIT_FSIZE, (NO_ROOM, NO_ROOM))

    done = subprocess.run(
        [sys.executable, "-m", "rollbridge", *argv, "--locale", locale],
        env={**SERVE_ENV, "TMPDIR": str(temporary)}, capture_output=True, text=True,
        preexec_fn=limited, timeout=120,
    )  # fmt: skip
    return done.returncode, done.stderr


@pytest.mark.parametrize("locale", ["en", "cs", "de", "ru"])
@pytest.mark.parametrize("case", ["older-schema", "wal-without-index"])
def test_no_room_for_the_copy_is_said_of_the_temporary_folder(tmp_path, case, locale):
    """A read from a temporary copy (an older schema: copied by SQLite; a ``-wal``
    without its ``-shm``: copied as files, also by ``backup`` and ``migrate``, which
    read their source so) whose copy could not be written said
    ``cannot open FILE: writing to the disk failed …`` or ``… a value could not be
    read or written (OSError …)``: the operator made room on the file's disk, where
    none was missing. Now it names the temporary folder the copy was written to, and
    TMPDIR; the file and its folder are as they were, no copy left."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    if case == "older-schema":
        db = old_file(OLD, tmp_path / "db").path
    else:
        db = tmp_path / "db" / "rollbridge.db"
        db.parent.mkdir()
        _killed_with_a_wal(db, commits=True)
        db.with_name(db.name + "-shm").unlink()
    assert db.stat().st_size > NO_ROOM
    before = _state(db.parent)
    commands = [
        ("table", "list", "--db", str(db)),
        ("migrate", "--from", str(db), "--to", "redis://127.0.0.1:9/0"),  # fails before
    ]
    if case != "older-schema":  # read in place, into a backup, whose faults it names
        commands.append(("backup", "--db", str(db), str(tmp_path / "copy.db")))
    for command in commands:
        status, err = _without_room(*command, temporary=temporary, locale=locale)
        assert status == 1, err
        assert err.startswith("rollbridge: error: store_error: "), err
        assert str(db) in err and str(temporary) in err and "TMPDIR" in err, err
        english = f"cannot read {db}: it is read from a copy in the temporary folder "
        assert (english in err) == (locale == "en"), err  # else said in the language
        assert "cannot open" not in err, err
        assert _state(db.parent) == before
        assert list(temporary.iterdir()) == []
    assert not (tmp_path / "copy.db").exists()


# -- a file or folder this user cannot write -----------------------------------------


def _unprivileged(*argv: str) -> tuple[int, str, str]:
    """``rollbridge *argv`` in a process that file permissions hold to: as root (the
    tests' user), without its right to write any file (``setpriv`` drops it)."""
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("root, and no setpriv to give up its right to write any file")
        prefix = [setpriv, "--bounding-set=-dac_override,-dac_read_search"]
    done = subprocess.run([*prefix, sys.executable, "-m", "rollbridge", *argv], env=SERVE_ENV,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize("what", ["folder", "file"])
def test_a_stopped_servers_file_this_user_cannot_write_is_read_leaving_nothing(tmp_path, what):
    """A file in WAL mode with no ``-wal`` (its server stopped) that this user cannot
    write — in a folder it cannot write, or the file itself read-only (an archived
    copy; a file of the server's user in a folder the operator may write): an
    ordinary connection opened the file read-only, made a ``-wal`` and a ``-shm``
    beside it, and could not remove them (files of this user, as read-only as the
    file, which a server of the file's user then could not write). Now it is read
    from a copy, nothing left beside it; the read-only folder was not tried (the
    tests run as root: ``setpriv`` drops its right here)."""
    folder = tmp_path / "db"
    folder.mkdir()
    db = folder / "rollbridge.db"
    table = _new_table(db, "Friday")
    assert _in_wal_without_a_wal(db)
    before = _state(folder)
    locked = folder if what == "folder" else db
    mode = locked.stat().st_mode
    locked.chmod(0o555 if what == "folder" else 0o444)
    try:
        for command in [*_reading_commands(table), ("backup", str(tmp_path / "copy.db"))]:
            status, _, err = _unprivileged(*command, "--db", str(db))
            assert status == 0 and err == "", (command, err)
            assert _state(folder) == before, command
    finally:
        locked.chmod(mode)
    status, out, _ = _run("table", "list", "--json", "--db", str(tmp_path / "copy.db"))
    assert [t["id"] for t in json.loads(out)] == [table]


def _in_wal_without_a_wal(db: Path) -> bool:
    """Whether ``db`` is in WAL mode (its header says so) with no ``-wal`` beside it."""
    with db.open("rb") as file:
        header = file.read(20)
    return header[18:20] == b"\x02\x02" and not db.with_name(db.name + "-wal").exists()
