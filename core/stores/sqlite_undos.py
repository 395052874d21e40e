"""The undone read's check of the log rows an earlier schema 7 fill left without
``undos``: a file brought to schema 7 by a rollbridge from before 749dfbd9 and
f7536122 holds a row that fill could not read with ``undos`` NULL, as though it held
no undo, and opened at schema 7 nothing fills it again. :class:`UnfilledRows` reads
the rows without ``undos`` that were in the log when a table's undone read first
asked (once a process: the rows committed since hold their undos, whoever wrote them
at schema 7) and keeps those it cannot read, which that read and every later one
then report as :meth:`~rollbridge.stores.sqlite.SQLiteStore.events_after` does."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

#: A log row as the undone read decodes it: (first, last, the bytes of its events).
Row = tuple[int, int, bytes]


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
                return []
            marks = ", ".join("?" * len(damaged))
            return list(
                self._rows(
                    conn, table_id, f"last > ? AND first IN ({marks})", (start, *sorted(damaged))
                )
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
