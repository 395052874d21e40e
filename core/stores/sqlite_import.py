"""Writing a whole table into a SQLite file (``rollbridge migrate --from redis://…``).

One job: the rows of one table moved from another store, written in the caller's
transaction (:meth:`~rollbridge.stores.sqlite.SQLiteStore.import_table` runs it in
one ``BEGIN IMMEDIATE``), in the form the store reads (schema 7): the table's
snapshot in ``tables`` at its latest seq (info, meta, every actor in order), so
that no log row is folded into it; each retained event as a log row of its own
(``first = last`` = its seq, the bytes :meth:`~rollbridge.engine.model.Event.packed`
gives, its undo or redo also in ``undos``; the table's whole info on its first
row, the store's same-info mark on the rest), read by ``events_after``, ``event``,
the undone read and ``load``'s history, never folded; each reply with the seq of
the commit that stored it (its place in the window); the join tokens in order.
What the store writes for a live commit is not changed: a commit after the
import finds no head kept for the table and writes its whole info and meta, as
after any other process's write.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence

from rollbridge.engine.history import UNDO_KINDS
from rollbridge.engine.model import Event, TableSnapshot
from rollbridge.exceptions import Conflict
from rollbridge.plain import JSON, Packed, pack
from rollbridge.plain import pack_array as packed_array
from rollbridge.stores.base import TABLE_EXISTS
from rollbridge.stores.sqlite_rows import SAME_INFO
from rollbridge.stores.sqlite_undos import record_whole
from rollbridge.tokens import TokenRecord

__all__ = ["write_whole_table"]

#: A log row's ``state`` that changes no actor: the row is never folded (its seq is
#: at most the snapshot's), but every row holds one.
_NOTHING = pack({"actors": [], "removed": []})


def _array(blobs: Sequence[bytes]) -> bytes:
    """A msgpack array of already packed values, as the store writes its rows."""
    return packed_array([Packed(blob) for blob in blobs])


def write_whole_table(
    conn: sqlite3.Connection,
    snapshot: TableSnapshot,
    events: Sequence[Event],
    replies: Sequence[tuple[str, JSON, int]],
    tokens: Sequence[TokenRecord],
    *,
    created: float | None = None,
) -> None:
    """Insert one table's rows on ``conn`` (in the caller's write transaction).

    :param events: the retained log, in seq order.
    :param replies: ``(idempotency key, reply, seq of the commit that stored it)``.
    :raises Conflict: the file holds a table of this id (nothing written).
    """
    info = snapshot.info
    if conn.execute("SELECT 1 FROM tables WHERE id = ?", (info.id,)).fetchone():
        raise Conflict(TABLE_EXISTS(table=repr(info.id)), details={"table": info.id})
    conn.execute(
        "INSERT INTO tables (id, name, ruleset, ruleset_version, settings, epoch, seq,"
        " meta, state, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (info.id, info.name, info.ruleset, info.ruleset_version, pack(info.settings),
         int(info.epoch), int(info.seq), pack(snapshot.meta()),
         _array([record.packed() for record in snapshot.actors.values()]),
         time.time() if created is None else float(created)),
    )  # fmt: skip
    whole = pack({"name": info.name, "ruleset": info.ruleset,
                  "ruleset_version": info.ruleset_version, "settings": info.settings,
                  "epoch": int(info.epoch)})  # fmt: skip
    # the whole info on the first row only, the same-info mark on the rest, as a
    # commit leaving the info as it was writes them (every row's is the same here)
    conn.executemany(
        "INSERT INTO log (\"table\", first, last, epoch, info, events, state, undos)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (info.id, int(e.seq), int(e.seq), int(info.epoch), SAME_INFO if n else whole,
             _array([e.packed()]), _NOTHING,
             _array([e.packed()]) if e.kind in UNDO_KINDS else None)
            for n, e in enumerate(events)
        ],
    )  # fmt: skip
    conn.executemany(
        'INSERT INTO replies ("table", key, reply, seq) VALUES (?, ?, ?, ?)',
        [(info.id, key, pack(reply), int(seq)) for key, reply, seq in replies],
    )
    conn.executemany(
        'INSERT INTO tokens (id, "table", role, name, hash, created) VALUES (?, ?, ?, ?, ?, ?)',
        [(t.id, info.id, t.role, t.name, t.hash, t.created) for t in tokens],
    )
    record_whole(conn, info.id)  # every row written here holds its undos
