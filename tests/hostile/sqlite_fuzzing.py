"""A property-based fuzzer of the commands that read a SQLite file, on hostile files.

:func:`make_store` plays verify's night (tests/hostile/verify_fuzzing.py: four
verifiable tables, their actors, rolls, resolutions, undo and redo, an encounter,
reveals) in a SQLite file and adds an admin token. :func:`damage` changes a copy as a
broken disk, a bad restore, another program or a forger would: a cell of any of its
tables replaced by another SQLite value (NULL, an integer at and past 64 bits, a
float, a text, a blob of garbage or of valid msgpack of another shape), a msgpack
blob decoded, changed inside (tests/hostile/fuzzing.py's hostile values) and packed
again, a row deleted, a table or an index dropped, the schema version set to another
number, the file cut short or bytes of it flipped. :class:`Reader` runs a command on
it — ``table list``, ``table export`` (JSON Lines, Markdown, as the GM and as a
player), ``table stats``, ``table tokens``, ``admin-token --list``, ``backup``, and
the writing ``table create`` and ``table delete``; and ``migrate`` to a real
redis-server (:func:`migrate_command`) — in this process
(tests/hostile/cli_fuzzing.py) and asserts:

- the exit status is 0 or 1, and nothing escapes :func:`~rollbridge.cli.main` (an
  exception would be the traceback the command prints);
- an error is one line with a documented code, never ``internal``; a ``store_error``
  names the file or the table it could not read;
- a refused command wrote nothing: the file's bytes are as they were (``migrate``,
  which only reads, writes nothing either way).

:meth:`Reader.check_serve` starts ``rollbridge serve`` on the file (a subprocess on
a free port), and stops it once it listens: it starts and stops cleanly (exit status
0), or refuses in one line with a documented code (exit status 1) and the file as it
was; never a traceback, in its log either.

tests/hostile/test_fuzz_sqlite.py runs it; ``ROLLBRIDGE_FUZZ_EXAMPLES`` sets how many
examples (docs/operations.md, "Hostile input").
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import msgpack
from hypothesis import strategies as st

from tests.conftest import stop_process
from tests.hostile.cli_fuzzing import ERROR_LINE, WARNING, error_of, run_cli
from tests.hostile.fuzzing import ODD_INTS, ODD_TEXTS, _mutate, pick
from tests.hostile.verify_fuzzing import TABLES, play_night

#: The tables of the file and their columns (schema version 6, as 5): :func:`make_store`
#: checks them against the file, so that a column a later schema adds is not left
#: undamaged.
COLUMNS = {
    "tables": ("id", "name", "ruleset", "ruleset_version", "settings", "epoch", "seq", "meta",
               "created", "state"),
    "log": ("table", "first", "last", "epoch", "info", "events", "state", "undos"),
    "tokens": ("id", "table", "role", "name", "hash", "created"),
    "replies": ("table", "key", "reply", "seq"),
    "admin_tokens": ("id", "name", "created", "hash"),
    # each table made says its rows need no one-time read (rollbridge.stores.sqlite_undos)
    "undos_checked": ("table", "after", "created"),
}  # fmt: skip
#: What a dropped name may be: a table, an index.
DROPPED = ("TABLE log", "TABLE tokens", "TABLE replies", "TABLE admin_tokens",
           "TABLE tables", "INDEX replies_by_seq", "INDEX log_undos")  # fmt: skip
#: A table's own refusal (docs/operations.md: a table being loaded is named, not the
#: file): its id as the file holds it, which the damage may have changed to anything.
TABLE_REFUSED = re.compile(
    r"table .+: (its stored state|the stored events of seqs .+|the stored reply to request .+)"
    r" cannot be read \(.+\): the database is damaged; restore it from a backup"
)


def names_what_it_could_not_read(message: str, path: Path) -> bool:
    """Whether a ``store_error``'s ``message`` names the file, one of the night's
    tables, or a table by the id the damaged file gave it."""
    return (
        path.name in message
        or any(t in message for t in TABLES)
        or TABLE_REFUSED.fullmatch(message) is not None
    )


#: A SQLite value of any storage class.
cells = st.one_of(
    st.none(),
    st.sampled_from(ODD_INTS).filter(lambda n: -(2**63) <= n < 2**63),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False),
    st.sampled_from(ODD_TEXTS).map(lambda text: text.encode("utf-8", "surrogatepass").decode(
        "utf-8", "replace")),
    st.text(max_size=12),
    st.binary(max_size=24),
    st.sampled_from((b"\x90", b"\x80", b"\xc0", b"\x92\xc0\xc0", b"\xc1", b"\xdd\xff\xff\xff\xff")),
)  # fmt: skip


def make_store(folder: Path) -> Path:
    """The night's file (and its dice key beside it), with an admin token."""
    db = folder / "night.db"
    play_night(db)
    status, _out, err = run_cli(["admin-token", "--db", str(db), "--name", "ops"])
    assert status == 0, err
    with contextlib.closing(sqlite3.connect(db)) as conn:
        names = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        made = {table: tuple(row[1] for row in conn.execute(f'PRAGMA table_info("{table}")'))
                for (table,) in names}  # fmt: skip
    assert made == COLUMNS, made
    return db


def _rows(conn: sqlite3.Connection, table: str) -> list[int]:
    return [row[0] for row in conn.execute(f'SELECT rowid FROM "{table}" ORDER BY rowid')]


def _repack(data: st.DataObject, blob: Any) -> Any:
    """A msgpack blob decoded, changed inside, packed again (else a hostile value packed)."""
    try:
        value = msgpack.unpackb(blob, strict_map_key=False) if isinstance(blob, bytes) else None
    except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError):
        value = None
    changed = _mutate(value, data)
    try:
        return msgpack.packb(changed, unicode_errors="surrogatepass")
    except (OverflowError, TypeError, ValueError):
        return msgpack.packb(repr(changed), unicode_errors="surrogatepass")


def _in_sql(data: st.DataObject, conn: sqlite3.Connection, how: str) -> str:
    """One change through SQL; what it did, for the failure's report."""
    if how == "version":
        version = data.draw(st.sampled_from((0, 1, 3, 4, 6, 99, -1, 2**31 - 1)))
        conn.execute(f"PRAGMA user_version = {version}")
        return f"version {version}"
    if how == "drop":
        dropped = data.draw(st.sampled_from(DROPPED))
        conn.execute(f"DROP {dropped}")
        return f"drop {dropped}"
    table = data.draw(st.sampled_from(sorted(COLUMNS)))
    rows = _rows(conn, table)
    if not rows:
        return f"{table}: no row"
    rowid = data.draw(pick(rows))
    if how == "delete":
        conn.execute(f'DELETE FROM "{table}" WHERE rowid = ?', (rowid,))
        return f"{table} row {rowid} deleted"
    column = data.draw(st.sampled_from(COLUMNS[table]))
    if how == "repack":
        old = conn.execute(f'SELECT "{column}" FROM "{table}" WHERE rowid = ?', (rowid,))
        value = _repack(data, old.fetchone()[0])
    else:
        value = data.draw(cells)
    conn.execute(f'UPDATE "{table}" SET "{column}" = ? WHERE rowid = ?', (value, rowid))
    return f"{table}.{column} of row {rowid} = {value!r:.120}"


def _in_bytes(data: st.DataObject, path: Path, how: str) -> str:
    """One change to the file's bytes; what it did."""
    raw = bytearray(path.read_bytes())
    at = data.draw(st.integers(0, max(len(raw) - 1, 0)))
    if how == "cut":
        path.write_bytes(bytes(raw[:at]))
        return f"cut at byte {at}"
    for offset in range(data.draw(st.integers(1, 16))):
        if at + offset < len(raw):
            raw[at + offset] ^= data.draw(st.integers(1, 255))
    path.write_bytes(bytes(raw))
    return f"bytes flipped from {at}"


def damage(data: st.DataObject, path: Path) -> list[str]:
    """One to three changes to the file at ``path``; what each did. A change SQLite
    refuses (a constraint, a file it can no longer read) is left out."""
    done = []
    for _ in range(data.draw(st.integers(1, 3))):
        how = data.draw(st.sampled_from(("cell",) * 4 + ("repack",) * 4 + ("delete", "version",
                                         "drop", "cut", "flip")))  # fmt: skip
        if how in ("cut", "flip"):
            done.append(_in_bytes(data, path, how))
            continue
        # SQLite's words on a damaged schema may be no UTF-8: Python then raises this
        refused = (sqlite3.Error, UnicodeDecodeError)
        with contextlib.suppress(*refused), contextlib.closing(sqlite3.connect(path)) as conn:
            conn.execute("PRAGMA foreign_keys = OFF")
            said = _in_sql(data, conn, how)
            conn.commit()
            done.append(said)
    return done


def commands(data: st.DataObject, db: Path, folder: Path) -> list[str]:
    """One command on the file at ``db`` (``folder``: where a backup goes)."""
    table = data.draw(st.sampled_from((*TABLES, "nope")))
    where = ["--db", str(db)]
    chosen = data.draw(st.sampled_from((
        ["table", "list"],
        ["table", "export", table, "--as", data.draw(st.sampled_from(("gm", "player"))),
         "--format", data.draw(st.sampled_from(("jsonl", "markdown")))],
        ["table", "stats", table],
        ["table", "tokens", table],
        ["admin-token", "--list"],
        ["backup", str(folder / "copy.db")],
        ["table", "create", "--ruleset", "sr2", "--name", "late"],
        ["table", "delete", table],
    )))  # fmt: skip
    asked_json = chosen[1] != "export" and data.draw(st.booleans())  # export has none
    return [*chosen, *where, *(["--json"] if asked_json else [])]


def migrate_command(data: st.DataObject, db: Path, redis_url: str) -> list[str]:
    """``migrate`` of the file at ``db`` to ``redis_url`` (every table, or some)."""
    chosen = ["migrate", "--from", str(db), "--to", redis_url]
    if data.draw(st.booleans()):
        chosen += ["--table", data.draw(st.sampled_from((*TABLES, "nope")))]
    return [*chosen, *(["--json"] if data.draw(st.booleans()) else [])]


#: Seconds ``serve`` is given to start listening or to refuse (a bound, not a measure:
#: it ends a hung start as a failure).
SERVE_START = 60


def serve_once(db: Path, folder: Path) -> tuple[int | None, str, str]:
    """Start ``rollbridge serve`` on ``db``; once it listens (or has exited), stop it.
    Its exit status, standard output and standard error (its log among it)."""
    out_path, err_path = folder / "serve.out", folder / "serve.err"
    env = {**os.environ, "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1", "LANGUAGE": "en"}
    argv = [sys.executable, "-m", "rollbridge", "serve", "--db", str(db), "--host",
            "127.0.0.1", "--port", "0", "--no-demo", "--log-level", "INFO"]  # fmt: skip
    with out_path.open("w") as out, err_path.open("w") as err:
        process = subprocess.Popen(argv, stdout=out, stderr=err, env=env, cwd=folder)
    try:
        deadline = time.monotonic() + SERVE_START
        while process.poll() is None and "listening on" not in err_path.read_text(errors="replace"):
            assert time.monotonic() < deadline, "serve neither listened nor exited"
            time.sleep(0.05)
    finally:
        status = stop_process(process)
    return status, out_path.read_text(errors="replace"), err_path.read_text(errors="replace")


def _digest(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


class Reader:
    """Runs commands on damaged copies of the file ``db`` in ``folder`` and checks
    each (``codes``: the documented ones); counts outcomes and remembers a message
    per code. (No dataclass: Hypothesis would print every code with a failure.)"""

    def __init__(self, db: Path, folder: Path, codes: set[str]) -> None:
        self.db, self.folder, self.codes = db, folder, codes
        self.runs = 0
        self.outcomes: Counter[str] = Counter()
        self.said: dict[str, str] = {}

    def __repr__(self) -> str:
        return f"Reader({self.db})"

    def copy(self) -> Path:
        """A fresh copy of the file and its dice key, replacing the last."""
        for old in self.folder.glob("hostile.db*"):
            old.unlink()
        for old in self.folder.glob("copy.db*"):
            old.unlink()
        copy = self.folder / "hostile.db"
        shutil.copyfile(self.db, copy)
        key = self.db.with_name(self.db.name + ".dice-key")
        if key.exists():
            shutil.copyfile(key, copy.with_name(copy.name + ".dice-key"))
        return copy

    def check(self, argv: list[str], path: Path, changes: list[str]) -> int:
        """Run ``argv`` on the damaged file at ``path`` and assert the properties of
        the module's docstring; its exit status."""
        self.runs += 1
        before = _digest(path)
        status, out, err = run_cli(argv)
        where = (f"rollbridge {' '.join(argv)}\nchanges: {changes}\nexit {status}\n"
                 f"stdout: {out[-2000:]}\nstderr: {err[-3000:]}")  # fmt: skip
        assert status in (0, 1), where
        said = "ok"
        if status == 1:
            code, message = error_of(out, err, "--json" in argv, where)
            assert code != "internal" and code in self.codes, where
            if code == "store_error":  # the file or the table it could not read
                assert names_what_it_could_not_read(message, path), where
            assert _digest(path) == before, f"the refused command wrote the file\n{where}"
            self.said.setdefault(code, message)
            said = code
        command = argv[0] if argv[0] in ("backup", "migrate") else f"{argv[0]} {argv[1]}"
        if argv[0] == "migrate":  # it only reads, whatever it finds
            assert _digest(path) == before, f"migrate wrote the file\n{where}"
        self.outcomes[f"{command}: {said}"] += 1
        return status

    def check_serve(self, path: Path, changes: list[str]) -> int | None:
        """Start and stop ``serve`` on the damaged file at ``path``; assert the
        properties of the module's docstring; its exit status."""
        self.runs += 1
        before = _digest(path)
        status, out, err = serve_once(path, self.folder)
        where = (f"rollbridge serve --db {path}\nchanges: {changes}\nexit {status}\n"
                 f"stdout: {out[-2000:]}\nstderr: {err[-3000:]}")  # fmt: skip
        assert "Traceback" not in err and "Traceback" not in out, where
        assert status in (0, 1), where
        said = "ok"
        errors = [line for line in err.splitlines() if line.startswith("rollbridge: error: ")]
        if status == 1:
            assert len(errors) == 1, where
            found = ERROR_LINE.fullmatch(errors[0])
            assert found, where
            code, message = found.group(1), found.group(2)
            assert code != "internal" and code in self.codes, where
            if code == "store_error":
                assert names_what_it_could_not_read(message, path), where
            assert _digest(path) == before, f"the refused serve wrote the file\n{where}"
            self.said.setdefault(f"serve {code}", message)
            said = code
        else:
            assert not errors and "listening on" in err, where
            assert not [line for line in err.splitlines() if line.startswith(WARNING)], where
        self.outcomes[f"serve: {said}"] += 1
        return status
