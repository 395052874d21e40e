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
from collections.abc import Callable
from typing import Any

#: A log row as the undone read decodes it: (first, last, the bytes of its events).
Row = tuple[int, int, bytes]


class UnfilledRows:
    """The damaged rows without ``undos`` of each table, found once a process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
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
            lo, hi = self._read.get(table_id, (latest, latest))
            unread: list[Row] = []
            if table_id not in self._read:  # the whole range, once
                unread = self._select(conn, table_id, "last > ? AND first <= ?", (start, latest))
                self._read[table_id] = (start, latest)
            elif start < lo:  # older rows than read before
                unread = self._select(conn, table_id, "last > ? AND last <= ?", (start, lo))
                self._read[table_id] = (start, hi)
            damaged = self._damaged.setdefault(table_id, set())
            for first, last, blob in unread:
                try:
                    readable(table_id, first, last, blob)
                except Exception:  # reported by the read that asked
                    damaged.add(first)
            if not damaged:
                return []
            marks = ", ".join("?" * len(damaged))
            return self._select(
                conn, table_id, f"last > ? AND first IN ({marks})", (start, *sorted(damaged))
            )

    @staticmethod
    def _select(
        conn: sqlite3.Connection, table_id: str, where: str, args: tuple[int, ...]
    ) -> list[Row]:
        return conn.execute(
            'SELECT first, last, events FROM log WHERE "table" = ? AND undos IS NULL'
            f" AND {where} ORDER BY first",
            (table_id, *args),
        ).fetchall()
