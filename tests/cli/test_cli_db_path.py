"""A ``--db`` whose folder is not there, or that is a folder: ``serve``, ``table
create`` and ``admin-token`` (the commands that make a database) say which, where
they said "the file cannot be written: check the permissions" — the first thing an
operator's unit file with a mistyped ``/var/lib`` path met."""

from __future__ import annotations

from pathlib import Path

import pytest

from rollbridge.exceptions import StoreError
from rollbridge.stores.sqlite import SQLiteStore
from tests.cli.test_cli_tables import run

pytestmark = pytest.mark.usefixtures("english_without_stores")

MAKERS = [
    ("serve", "--port", "0", "--no-demo"),
    ("table", "create", "--ruleset", "sr2", "--name", "Friday"),
    ("admin-token", "--name", "web"),
]
#: Those and two that only read.
EVERY = [*MAKERS, ("table", "list"), ("admin-token", "--list")]


@pytest.mark.parametrize("command", MAKERS, ids=lambda c: c[0])
def test_a_database_in_a_folder_not_there_is_named_as_such(tmp_path: Path, capsys, command):
    db = tmp_path / "srv" / "rollbridge" / "rollbridge.db"
    code, out, err = run(capsys, *command, "--db", str(db))
    assert code == 1 and out == ""
    assert err == (
        f"rollbridge: error: store_error: cannot open {db}: its folder {db.parent} does not"
        " exist: make it (mkdir -p), or give another --db (or $ROLLBRIDGE_DB)\n"
    )
    assert list(tmp_path.iterdir()) == []  # nothing made: no folder, no lock, no key


@pytest.mark.parametrize("command", MAKERS, ids=lambda c: c[0])
def test_a_symlink_to_a_folder_not_there_names_that_folder(tmp_path: Path, capsys, command):
    """A ``--db`` that is a symlink leading into a folder that is not there (a data
    disk not mounted, a link left from another machine) was told "the file cannot be
    written: check the permissions"; the folder SQLite would open the file in is named."""
    target = tmp_path / "disk" / "rollbridge.db"
    (tmp_path / "here").mkdir()
    db = tmp_path / "here" / "rollbridge.db"
    db.symlink_to(target)
    code, out, err = run(capsys, *command, "--db", str(db))
    assert code == 1 and out == ""
    assert err == (
        f"rollbridge: error: store_error: cannot open {db}: its folder {target.parent} does"
        " not exist: make it (mkdir -p), or give another --db (or $ROLLBRIDGE_DB)\n"
    )
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["here", "rollbridge.db"]


@pytest.mark.parametrize("command", MAKERS, ids=lambda c: c[0])
def test_a_symlink_loop_is_a_store_error(tmp_path: Path, capsys, command):
    """A ``--db`` that is a symlink leading back to itself: naming the folder of the
    file it leads to (``Path.resolve``) raised ``RuntimeError: Symlink loop``, a
    traceback; then SQLite's "check the permissions". It is a ``store_error`` naming
    the path and saying what it is."""
    db = tmp_path / "rollbridge.db"
    db.symlink_to(db)
    code, out, err = run(capsys, *command, "--db", str(db))
    assert (code, out) == (1, "")
    assert err == (
        f"rollbridge: error: store_error: cannot open {db}: it is a symbolic link that leads"
        " back to itself, to no file: give --db (or $ROLLBRIDGE_DB) the path of a file, or"
        " point the link at one\n"
    )
    assert [p.name for p in tmp_path.iterdir()] == ["rollbridge.db"]


@pytest.mark.parametrize("command", MAKERS, ids=lambda c: c[0])
def test_a_folder_given_for_the_database_is_named_as_such(tmp_path: Path, capsys, command):
    code, _, err = run(capsys, *command, "--db", str(tmp_path))
    assert code == 1
    assert err == (
        f"rollbridge: error: store_error: cannot open {tmp_path}: it is a folder, not a"
        " database file: give --db (or $ROLLBRIDGE_DB) the path of a file\n"
    )


def test_the_store_says_it_in_the_clients_language(tmp_path: Path):
    with pytest.raises(StoreError) as caught:
        SQLiteStore(tmp_path / "nowhere" / "r.db")
    assert "/nowhere does not exist" in caught.value.render("en")
    assert "nowhere" in caught.value.render("cs")
    assert caught.value.render("cs") != caught.value.render("en")


@pytest.mark.parametrize(
    "command", [("table", "list"), ("table", "tokens", "friday"), ("table", "delete", "friday")],
    ids=lambda c: " ".join(c[:2]),
)  # fmt: skip
def test_a_folder_given_to_a_command_that_only_reads_is_named_as_such(
    tmp_path: Path, capsys, command
):
    """``table list --db FOLDER`` said "no database file FOLDER" — the folder is there,
    and the operator looked for a file that was never meant: now as the commands that
    make a database say it (review, 5 December)."""
    code, out, err = run(capsys, *command, "--db", str(tmp_path))
    assert code == 1 and out == ""
    assert err == (  # the code a script may look for stays no_database
        f"rollbridge: error: no_database: cannot open {tmp_path}: it is a folder, not a"
        " database file: give --db (or $ROLLBRIDGE_DB) the path of a file\n"
    )
    assert list(tmp_path.iterdir()) == []  # nothing made in it


@pytest.mark.parametrize("content", [b"", b"S"], ids=["empty", "one byte"])
@pytest.mark.parametrize(
    "command",
    [("table", "list"), ("table", "stats", "t"), ("table", "export", "t", "--as", "gm",
     "--format", "jsonl"), ("table", "tokens", "t"), ("admin-token", "--list")],
    ids=lambda c: " ".join(c[:2]),
)  # fmt: skip
def test_a_file_too_short_for_a_database_is_named_and_not_written(
    tmp_path: Path, capsys, command, content
):
    """A database file cut to nothing (or to one byte, which SQLite takes alike for a
    new database): the commands that only read wrote a new, empty database into it
    and said "no tables" or "no table 't'" (the SQLite fuzzer, 5 December). Now they
    say the file holds no database, as for a file not there, and leave it as it is."""
    db = tmp_path / "rollbridge.db"
    db.write_bytes(content)
    code, out, err = run(capsys, *command, "--db", str(db))
    assert (code, out) == (1, "")
    assert err == (
        f"rollbridge: error: no_database: no database in {db}: the file is empty or cut short"
        " (shorter than a SQLite file's header); check --db (or $ROLLBRIDGE_DB), or restore"
        " the file from a backup\n"
    )
    assert db.read_bytes() == content
    assert sorted(path.name for path in tmp_path.iterdir()) == ["rollbridge.db"]


def test_an_empty_sqlite_file_is_named_and_not_written(tmp_path: Path, capsys):
    """A SQLite file that holds nothing (schema version 0, no table: the sqlite3
    shell's, or one emptied): the commands that only read wrote rollbridge's schema
    into it, as into a new file, and said "no table 'x'" (the SQLite fuzzer, seed
    505, 5 December). Now they say the file holds no database and leave it as it is;
    a file with rollbridge's tables is read as before."""
    import sqlite3

    db = tmp_path / "rollbridge.db"
    with sqlite3.connect(db) as conn:
        conn.execute("VACUUM")  # a header page, and nothing in it
    before = db.read_bytes()
    assert len(before) >= 100
    code, out, err = run(capsys, "table", "tokens", "x", "--db", str(db))
    assert (code, out) == (1, "")
    assert err == (
        f"rollbridge: error: no_database: no database in {db}: it is an empty SQLite file,"
        " without rollbridge's tables; check --db (or $ROLLBRIDGE_DB); rollbridge serve or"
        " rollbridge table create makes them\n"
    )
    assert db.read_bytes() == before
    made = run(capsys, "table", "create", "--ruleset", "sr2", "--name", "t", "--db", str(db))
    assert made[0] == 0 and run(capsys, "table", "list", "--db", str(db))[0] == 0


@pytest.mark.parametrize("content", [b"S", b"my notes\n", b"x" * 99], ids=len)
@pytest.mark.parametrize("command", MAKERS, ids=lambda c: c[0])
def test_a_command_that_makes_a_database_does_not_overwrite_a_short_file(
    tmp_path: Path, capsys, command, content
):
    """A file of 1 to 99 bytes is no database (shorter than SQLite's header): SQLite
    took a file of one byte for a new one and wrote over it (``--db`` mistyped to name
    it lost it: the SQLite fuzzer's leftover, 5 December), and said only "file is not a
    database" (``store_error``) of a longer one. The commands that make a database
    refuse it as the reading ones do, leaving it as it was."""
    db = tmp_path / "notes.txt"
    db.write_bytes(content)
    code, out, err = run(capsys, *command, "--db", str(db))
    assert (code, out) == (1, "")
    assert err.startswith(f"rollbridge: error: no_database: no database in {db}: the file")
    assert db.read_bytes() == content
    # no database, WAL, key or serve lock made beside it (serve took its lock first
    # and left the lock file: it goes when the store does not open)
    assert [path.name for path in tmp_path.iterdir()] == ["notes.txt"]


@pytest.mark.parametrize("command", MAKERS[1:], ids=lambda c: c[0])
def test_an_empty_file_may_become_the_database(tmp_path: Path, capsys, command):
    """An empty file (made with ``touch``, say) is where a database may be made."""
    db = tmp_path / "rollbridge.db"
    db.touch()
    assert run(capsys, *command, "--db", str(db))[0] == 0
    assert db.read_bytes()[:16] == b"SQLite format 3\x00"


@pytest.mark.parametrize("command", MAKERS, ids=lambda c: c[0])
def test_serve_leaves_no_lock_beside_a_path_it_does_not_serve(tmp_path: Path, capsys, command):
    """``serve`` takes its lock before the store opens; when the store does not (a
    folder, a file that is no SQLite database), the lock file it made was left beside
    the path (``FOLDER.lock``, ``notes.txt.lock``): it is removed. The other commands
    take no lock: nothing was made by them either."""
    folder = tmp_path / "data"
    folder.mkdir()
    note = tmp_path / "notes.txt"
    note.write_bytes(b"not a database, but longer than its header: " + b"x" * 100)
    for db in (folder, note):
        code, out, err = run(capsys, *command, "--db", str(db))
        assert (code, out) == (1, "") and err.startswith("rollbridge: error: "), err
    assert sorted(path.name for path in tmp_path.iterdir()) == ["data", "notes.txt"]
    assert list(folder.iterdir()) == []


def test_serve_keeps_a_lock_file_that_was_there(tmp_path: Path, capsys):
    """A lock file there before (the database's, from an earlier serve) is not this
    start's to remove."""
    note = tmp_path / "notes.txt"
    note.write_bytes(b"my notes\n")
    lock = tmp_path / "notes.txt.lock"
    lock.touch()
    assert run(capsys, *MAKERS[0], "--db", str(note))[0] == 1
    assert lock.exists()


@pytest.mark.parametrize("command", EVERY, ids=lambda c: " ".join(c[:2]))
def test_a_pipe_is_no_database_file(tmp_path: Path, capsys, command):
    """A pipe (or a device, a socket) at ``--db``: SQLite failed on it with "writing
    to the disk failed: the disk may be full …" (``store_error``), and next to a
    device it wrote its journal (``--db /dev/null`` made ``/dev/null-journal``); the
    reading commands said "no database file" of a path that is there. Each command
    now says what it is, ``no_database``, and makes nothing beside it."""
    import os

    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    code, out, err = run(capsys, *command, "--db", str(pipe))
    assert (code, out) == (1, "")
    assert err == (
        f"rollbridge: error: no_database: cannot open {pipe}: it is not a regular file but"
        " a pipe, a device or a socket: give --db (or $ROLLBRIDGE_DB) the path of a file\n"
    )
    assert [path.name for path in tmp_path.iterdir()] == ["pipe"]


@pytest.mark.parametrize("command", EVERY, ids=lambda c: " ".join(c[:2]))
def test_another_programs_sqlite_database_is_left_as_it_is(tmp_path: Path, capsys, command):
    """A SQLite database of another program (schema version 0 with tables in it: a
    rollbridge database always has a version) at a mistyped ``--db``: every command
    wrote rollbridge's schema into it beside the program's tables, set its version
    and switched it to WAL, and ``table create`` made a table there. Each now says
    whose it is not, ``no_database``, naming a few of its tables quoted, and leaves it
    as it was; nothing is made beside it."""
    import sqlite3
    from contextlib import closing

    db = tmp_path / "places.sqlite"
    with closing(sqlite3.connect(db)) as conn:
        for name in ("moz_places", "moz\nbookmarks", "moz_keywords", "moz_origins"):
            conn.execute(f'CREATE TABLE "{name}" (id INTEGER)')
        conn.commit()
    before = db.read_bytes()
    code, out, err = run(capsys, *command, "--db", str(db))
    assert (code, out) == (1, "")
    assert err == (
        f"rollbridge: error: no_database: no database in {db}: it is another program's"
        " SQLite database (its tables: 'moz_places', 'moz\\nbookmarks', 'moz_keywords'…),"
        " not rollbridge's, and was left as it is; check --db (or $ROLLBRIDGE_DB)\n"
    )
    assert db.read_bytes() == before
    assert [path.name for path in tmp_path.iterdir()] == ["places.sqlite"]


@pytest.mark.parametrize("command", EVERY, ids=lambda c: " ".join(c[:2]))
def test_another_programs_database_with_a_name_not_utf8_is_left_as_it_is(
    tmp_path: Path, capsys, command
):
    """A foreign SQLite database one of whose tables has a name that is not UTF-8 (a
    Latin-1 ``café``): reading its names failed to decode, the file was taken for one
    SQLite cannot read, and the store wrote rollbridge's schema into it and switched
    it to WAL (``table list`` said "no tables"). Now it is refused like any other
    foreign database, the byte shown as U+FFFD, the file as it was."""
    import sqlite3
    from contextlib import closing

    db = tmp_path / "notes.sqlite"
    with closing(sqlite3.connect(db)) as conn:
        conn.execute('CREATE TABLE "cafX" (id INTEGER)')
        conn.commit()
    db.write_bytes(db.read_bytes().replace(b"cafX", b"caf\xe9"))  # same length: in place
    before = db.read_bytes()
    code, out, err = run(capsys, *command, "--db", str(db))
    assert (code, out) == (1, "")
    assert err.startswith(
        f"rollbridge: error: no_database: no database in {db}: it is another program's"
        " SQLite database (its tables: 'caf\ufffd'), not rollbridge's"
    )
    assert db.read_bytes() == before
    assert [path.name for path in tmp_path.iterdir()] == ["notes.sqlite"]


def test_serve_never_removes_another_serves_lock(tmp_path: Path, capsys, monkeypatch):
    """A ``serve`` whose store does not open removes the lock file it made, but only
    while the name is still the file it holds: one removed meanwhile (by hand, a
    cleaner of old files) and made again by another ``serve``, which holds it, is that
    one's. Before, it was removed, and a third ``serve`` could open the database
    beside the second."""
    import fcntl
    import os

    from rollbridge.cli import serve
    from rollbridge.cli.serve_lock import lock_path

    note = tmp_path / "notes.txt"
    note.write_bytes(b"not a database, but longer than its header: " + b"x" * 100)
    opened = serve.open_store
    others: list[int] = []

    def meanwhile(*args, **kwargs):
        os.unlink(lock_path(note))  # removed by hand, then another serve takes it
        other = os.open(lock_path(note), os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        others.append(other)
        return opened(*args, **kwargs)

    monkeypatch.setattr(serve, "open_store", meanwhile)
    try:
        code, out, err = run(capsys, *MAKERS[0], "--db", str(note))
        assert (code, out) == (1, "") and err.startswith("rollbridge: error: store_error")
        assert os.path.exists(lock_path(note))
        assert os.fstat(others[0]).st_ino == os.stat(lock_path(note)).st_ino
    finally:
        for other in others:
            os.close(other)


def _foreign_with_a_wal_left(db: Path) -> None:
    """Another program's database in WAL mode whose ``-wal`` holds its last change, as
    the program left it when it stopped without closing (no checkpoint)."""
    import subprocess
    import sys

    program = (  # commits into the -wal, and ends without closing
        "import os, sqlite3, sys\n"
        "conn = sqlite3.connect(sys.argv[1])\n"
        "conn.execute('PRAGMA journal_mode=WAL')\n"
        "conn.execute('PRAGMA wal_autocheckpoint=0')\n"
        "conn.execute('CREATE TABLE moz_places (id INTEGER)')\n"
        "conn.commit()\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", program, str(db)], check=True)


@pytest.mark.parametrize("command", [*EVERY, ("backup", "copy.db")], ids=lambda c: " ".join(c[:2]))
def test_another_programs_wal_database_keeps_its_wal(tmp_path: Path, capsys, command):
    """Another program's database in WAL mode, its ``-wal`` left holding pages: the
    look that finds it foreign read it through an ordinary connection, whose close,
    the file's last, checkpointed the ``-wal`` into the file and removed it — the file
    said to be "left as it is" grew by a page. Now it and its ``-wal`` keep their
    bytes (the ``-shm``, the ``-wal``'s index, is SQLite's to rewrite)."""
    import hashlib

    db = tmp_path / "places.sqlite"
    _foreign_with_a_wal_left(db)
    wal = tmp_path / "places.sqlite-wal"
    assert wal.stat().st_size > 0

    def state() -> dict[str, str]:
        return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in (db, wal)}

    before = state()
    code, out, err = run(capsys, *command, "--db", str(db))
    assert (code, out) == (1, "")
    assert "it is another program's SQLite database (its tables: 'moz_places')" in err
    assert wal.exists() and state() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "places.sqlite", "places.sqlite-shm", "places.sqlite-wal"
    ]  # fmt: skip
