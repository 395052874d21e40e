"""The undone read's check of the log rows an earlier schema 7 fill left without
``undos``: a file brought to schema 7 by a rollbridge from before 749dfbd9 and
f7536122 holds a row that fill could not read with ``undos`` NULL, as though it held
no undo, and opened at schema 7 nothing fills it again. :class:`UnfilledRows` reads
the rows without ``undos`` that were in the log when a table's undone read first
asked (once a process: the rows committed since hold their undos, whoever wrote them
at schema 7) and keeps those it cannot read, which that read and every later one
then report as :meth:`~rollbridge.stores.sqlite.SQLiteStore.events_after` does.

A read that finds none writes so in the file (:data:`CHECKED`: the table, the seq
the rows ending after it were read from, and when the table was made — one deleted
and made again with the same id is another, read anew), so that the next process's
first undone read of the table reads nothing again (a 40,000-event sr2 log: some 6 s
of decoding, once per process and table before) — only rows older than that seq,
asked by a read going further back. A table with a damaged row is never written so:
every process reads it once, and reports it. A table this rollbridge makes or imports,
and every table of a file its schema 7 step fills, is written so at once, seq 0
(:func:`record_whole`): no row of it lacks its undos, and no first read decodes its
log (a file this rollbridge upgraded was read whole once more per table, 5 s at
40,000 events); deleting a table removes its row (:func:`forget`). The table
:data:`CHECKED` is made by the first such write (a file without it was checked
nowhere yet); it is not part of the schema an open checks (``SCHEMA_TABLES``), and an
older rollbridge leaves it alone (a table it makes there is read once, as before)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, suppress
from typing import Any, NamedTuple

from rollbridge.exceptions import StoreError
from rollbridge.text import Messages

say = Messages("rollbridge")
# Translators: {path} the database file; {table} a table's id, quoted. rollbridge
# check read the table's log whole but could not write so in the file.
NOT_RECORDED = say(
    "store.sqlite.check_not_recorded",
    "{path}: table {table} was read whole, but that could not be written in the file "
    "(its lock was held too long, or the table was deleted meanwhile): run rollbridge "
    "check again",
)

#: A log row as the undone read decodes it: (first, last, the bytes of its events).
Row = tuple[int, int, bytes]

#: The file's table of the tables checked: each one's rows without ``undos`` ending
#: after ``after`` were all read whole (and rows committed since hold their undos),
#: of the table made at ``created`` (its ``tables.created``): a table deleted and made
#: again with the same id is another, not checked yet.
CHECKED = "undos_checked"
_MAKE_CHECKED = (
    f'CREATE TABLE IF NOT EXISTS {CHECKED} ("table" TEXT PRIMARY KEY, after INTEGER NOT NULL,'
    " created REAL NOT NULL)"
)


def made_at(conn: sqlite3.Connection, table_id: str) -> float | None:
    """When table ``table_id`` was made (``tables.created``), or None: no such table."""
    row = conn.execute("SELECT created FROM tables WHERE id = ?", (table_id,)).fetchone()
    return None if row is None else row[0]


def checked_after(conn: sqlite3.Connection, table_id: str, created: float | None) -> int | None:
    """The seq after which the rows without ``undos`` of table ``table_id`` made at
    ``created`` were found whole by an earlier undone read (of any process), or None
    (never; no such table; a table of that id made at another time)."""
    try:
        row = conn.execute(
            f'SELECT after FROM {CHECKED} WHERE "table" = ? AND created = ?', (table_id, created)
        ).fetchone()
    except sqlite3.OperationalError:  # no table of them: nothing checked in this file
        return None
    return row[0] if row is not None and type(row[0]) is int else None


def unfilled_count(conn: sqlite3.Connection, table_id: str) -> int:
    """How many log rows of table ``table_id`` hold no ``undos``: what a first undone
    read not yet said needless in :data:`CHECKED` decodes."""
    found = 'SELECT count(*) FROM log WHERE "table" = ? AND undos IS NULL'
    return int(conn.execute(found, (table_id,)).fetchone()[0])


class UndosChecked(NamedTuple):
    """What :meth:`~rollbridge.stores.sqlite.SQLiteStore.check_undos` did of a table."""

    #: The table's id.
    table: str
    #: The log rows without ``undos`` read (0: none to read, or checked before).
    read: int
    #: Whether the file said the table checked already (nothing was read).
    before: bool
    #: The (first, last) seqs of each row found damaged: the table is not said
    #: checked, and every undone read reaching them reports them.
    damaged: list[tuple[int, int]]


def _make_checked(conn: sqlite3.Connection) -> None:
    """Make :data:`CHECKED` where the file has none, and anew where it has the shape
    9740db89 made (no ``created``: its rows cannot tell a table made again)."""
    conn.execute(_MAKE_CHECKED)
    if "created" not in {c[1] for c in conn.execute(f"PRAGMA table_info({CHECKED})")}:
        conn.execute(f"DROP TABLE {CHECKED}")
        conn.execute(_MAKE_CHECKED)


def record_whole(conn: sqlite3.Connection, table_id: str | None = None) -> None:
    """Say in the file, in the caller's write transaction, that table ``table_id``
    (every table of the file: None) holds no row without ``undos`` to read: its rows
    were written, or filled, by this rollbridge — a table it makes or imports, a file
    its schema 7 step fills — each with its undos, or its bytes where it cannot be
    read. Its first undone read in any process then decodes nothing but its undos
    (before, each such table's first read decoded its whole log once per file: about
    5 s at 40,000 events). A file without tables is left without :data:`CHECKED`."""
    if table_id is None:
        if conn.execute("SELECT 1 FROM tables LIMIT 1").fetchone() is None:
            return
        where, args = " WHERE true", ()  # SQLite parses ON CONFLICT after a WHERE
    else:
        where, args = " WHERE id = ?", (table_id,)
    _make_checked(conn)
    conn.execute(
        f'INSERT INTO {CHECKED} ("table", after, created) SELECT id, 0, created FROM tables'
        f'{where} ON CONFLICT ("table") DO UPDATE SET after = 0, created = excluded.created',
        args,
    )


def forget(conn: sqlite3.Connection, table_id: str) -> None:
    """Remove table ``table_id``'s row of :data:`CHECKED`, in the caller's write
    transaction (the table's deletion): a file without :data:`CHECKED` is left so."""
    named = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
    if conn.execute(named, (CHECKED,)).fetchone() is not None:
        conn.execute(f'DELETE FROM {CHECKED} WHERE "table" = ?', (table_id,))


class UnfilledRows:
    """The damaged rows without ``undos`` of each table, found once a process."""

    def __init__(self) -> None:
        #: Guards :attr:`_locks`: held for a dict's look-up, never for a read.
        self._lock = threading.Lock()
        #: table → the lock its reads take: a table's first read, the whole log's
        #: rows decoded (seconds on a long one), holds no other table's read (one lock
        #: for all did, the reader threads' other tables waiting behind it).
        self._locks: dict[str, threading.Lock] = {}
        #: table → (lo, hi): the rows ending after lo and starting at hi at most were read.
        self._read: dict[str, tuple[int, int]] = {}
        #: table → the first seqs of its rows found damaged.
        self._damaged: dict[str, set[int]] = {}
        #: table → when the table read was made (``tables.created``): one made again
        #: with the same id (deleted meanwhile) is read anew.
        self._made: dict[str, float | None] = {}
        #: table → the seq after which its rows were read whole here, and when the
        #: table read was made, not yet written to the file (:meth:`write_checked`).
        self._unwritten: dict[str, tuple[int, float | None]] = {}

    def rows(
        self,
        conn: sqlite3.Connection,
        table_id: str,
        start: int,
        latest: int,
        readable: Callable[[str, int, int, bytes], Any],
    ) -> list[Row]:
        """The rows without ``undos`` ending after ``start`` that cannot be read
        (``readable`` raises for them), in ``first`` order: those of the log as it
        stood when first asked are read once, the rows committed since are not."""
        with self._lock:
            table_lock = self._locks.setdefault(table_id, threading.Lock())
        with table_lock:
            created = made_at(conn, table_id)
            if self._made.get(table_id, created) != created:  # deleted, made again
                self._read.pop(table_id, None)
                self._damaged.pop(table_id, None)
            self._made[table_id] = created
            if table_id not in self._read:  # read whole by a process before?
                after = checked_after(conn, table_id, created)
                if after is not None:
                    self._read[table_id] = (after, latest)
            lo, hi = self._read.get(table_id, (latest, latest))
            unread: Iterable[Row] = ()
            read = self._read.get(table_id)
            if table_id not in self._read:  # the whole range, once
                unread = self._rows(conn, table_id, "last > ? AND first <= ?", (start, latest))
                read = (start, latest)
            elif start < lo:  # older rows than read before
                unread = self._rows(conn, table_id, "last > ? AND last <= ?", (start, lo))
                read = (start, hi)
            damaged = self._damaged.setdefault(table_id, set())
            # one row at a time, as the cursor gives them: a long log's bytes all held
            # at once (a 40,000-event log's 190 MB) were the process's memory
            for first, last, blob in unread:
                try:
                    readable(table_id, first, last, blob)
                except Exception:  # reported by the read that asked
                    damaged.add(first)
            if read is not None:  # read to the end (a failed read is read again)
                self._read[table_id] = read
            if not damaged:
                if read is not None and read[0] < lo:  # more read whole: said to the file
                    with self._lock:
                        self._unwritten[table_id] = (read[0], created)
                return []
            marks = ", ".join("?" * len(damaged))
            return list(
                self._rows(
                    conn, table_id, f"last > ? AND first IN ({marks})", (start, *sorted(damaged))
                )
            )

    def write_checked(
        self, transaction: Callable[[], AbstractContextManager[sqlite3.Connection]]
    ) -> None:
        """Write to the file the tables whose rows were read whole here since the
        last call (:data:`CHECKED`), each in a write ``transaction()`` of its own; one
        that fails is left (the next process reads that table once again), and so is
        one deleted since it was read (made again, it is another table)."""
        with self._lock:
            unwritten, self._unwritten = self._unwritten, {}
        for table_id, (after, created) in unwritten.items():
            with suppress(StoreError, sqlite3.Error), transaction() as conn:
                _make_checked(conn)
                conn.execute(
                    f'INSERT INTO {CHECKED} ("table", after, created) SELECT id, ?, created'
                    " FROM tables WHERE id = ? AND created = ? ON CONFLICT"
                    ' ("table") DO UPDATE SET after = CASE WHEN created = excluded.created'
                    " THEN min(after, excluded.after) ELSE excluded.after END,"
                    " created = excluded.created",
                    (after, table_id, created),
                )

    @staticmethod
    def _rows(
        conn: sqlite3.Connection, table_id: str, where: str, args: tuple[int, ...]
    ) -> Iterator[Row]:
        """The rows without ``undos`` of ``table_id`` matching ``where``, in ``first``
        order, one at a time."""
        return conn.execute(
            'SELECT first, last, events FROM log WHERE "table" = ? AND undos IS NULL'
            f" AND {where} ORDER BY first",
            (table_id, *args),
        )
