"""The embedded store: one SQLite file in WAL mode, durable at every commit.

:class:`SQLiteStore` implements :class:`~rollbridge.stores.base.Store` with
the semantics of :class:`~rollbridge.stores.memory.MemoryStore` (one contract
suite, ``tests/stores/test_store_contract.py``, runs on both), and adds group
commit (:meth:`SQLiteStore.commit_many`: several commits, one transaction, one
fsync) and :meth:`SQLiteStore.prepare` (serialise a commit now, write it
later).

Durability. ``journal_mode=WAL`` and ``synchronous=FULL``: a commit returns
only after its WAL frames are fsynced, so whatever a caller acknowledged after
:meth:`~SQLiteStore.commit` returned survives ``kill -9`` and power loss. Every
write runs in ``BEGIN IMMEDIATE``, so a writer waits (``busy_timeout``) for
another process's write — the CLI administering the same file while a server
runs — instead of failing.

Schema (version :data:`SCHEMA_VERSION`, kept in ``PRAGMA user_version``;
:data:`MIGRATIONS` brings an older file up to date when it is opened)::

    tables(id PK, name, ruleset, ruleset_version, settings, epoch, seq, meta, state, created)
    log("table", first, last, epoch, info, events, state, undos, UNIQUE("table", first))
                                                           a row a commit
    replies("table", key, reply, seq, PK("table", key))   idempotency keys
    tokens(id PK, "table", role, name, hash, created, UNIQUE("table", hash))
    admin_tokens(id PK, name, created, hash UNIQUE)        the server's admin tokens

**Append-only.** A commit is one new ``log`` row: its events (the bytes the engine
packed), the records it changed and removed (and the order of every actor, when
an undone removal put one back where it stood), and what it changed of the table's
info and meta: the info (name, ruleset, its version, settings, epoch) only when it
is not the table's last (an empty ``info`` otherwise), and of the meta (encounter,
pending requests, undo and redo, dice segment) only the fields that differ from the
table's last, under ``changed`` (schema 6; a row written before holds the whole info
and meta, and is read as it is). The writer knows the last ones from its previous
commit of the table, kept as long as the table's head is (below; a field of 1 KiB
or more as its SHA-256); when it does not, the row holds them all. Plus one
``replies`` row per request it answers; its undos and redos are also in ``undos``
(schema 7; NULL when it has none, a partial index over the others), which
``state``'s ``undone`` reads alone (:meth:`SQLiteStore.undos_after`). Nothing is
updated in place.
A table's state is its *snapshot* in ``tables`` (info, meta, and ``state``: every
actor record in order, as of ``seq``) with the log rows after it folded in; every
:data:`SNAPSHOT_EVERY` events a commit also writes a fresh snapshot and prunes the
rows and replies no longer needed (older than the snapshot and the retained log).
A commit without events (a table moved to a new epoch, say) has no log row: it is
folded into a fresh snapshot at once, in seq order with the batch's other commits,
and at the snapshot's own seq the snapshot, not the log row, tells the table's
info. The retained log and the reply window are enforced when reading, so a pruning
that has not happened yet is never visible. Group commit (:meth:`commit_many`)
writes a batch with one statement per kind of row (a multi-row ``INSERT``: each
statement's step releases and takes the GIL, which the event loop wants too).

``settings``, ``meta``, ``state``, ``info``, ``events`` and ``reply`` are msgpack
blobs (:mod:`rollbridge.plain`: msgpack rather than JSON because it is smaller and
cheaper to read, and the design card names it; ``docs/performance.md`` has the
figures). Child rows reference ``tables(id)`` with ``ON DELETE
CASCADE``. Actors come back in the table's order: as they were added, as from a
dict, but for an actor an undone removal put back where it stood. Tables come back
oldest first (``created``).

Sequence guard. Within one epoch a commit must continue the stored log: its
first event has the stored seq + 1 and the table's seq becomes its last
event's. Anything else — another process wrote to the same table, or a caller
wrote a stale commit — raises :class:`~rollbridge.exceptions.StoreError`
having written nothing, so seq never has a gap or a repeat. The writer reads a
table's head (epoch, seq, snapshot) once and keeps it between group commits
while ``PRAGMA data_version`` (read under the write lock) shows that no other
connection committed and its own connection wrote nothing else; otherwise it
reads the heads again.
:mod:`rollbridge.protocol` then loads the table again from
the store.
"""

from __future__ import annotations

import errno
import hmac
import logging
import os
import re
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from hashlib import sha256
from operator import itemgetter
from pathlib import Path
from typing import Any, NamedTuple, NoReturn

from rollbridge.engine.epochs import moved as epochs_moved
from rollbridge.engine.history import UNDO_KINDS
from rollbridge.engine.model import (
    NOBODYS,
    ActorRecord,
    Commit,
    Event,
    TableInfo,
    TableSnapshot,
)
from rollbridge.exceptions import Conflict, RollbridgeError, StoreError, UnknownTable
from rollbridge.paths import file_in_the_way
from rollbridge.plain import (
    JSON,
    NotPlain,
    Packed,
    join_array,
    map_header,
    pack,
    pack_map,
    unpack,
)
from rollbridge.plain import pack_array as _array
from rollbridge.stores.actor_changes import events_changes
from rollbridge.stores.base import (
    CANNOT_OPEN,
    DEFAULT_RETAIN,
    IS_FOLDER,
    NO_FOLDER,
    NOT_A_FOLDER,
    SYMLINK_LOOP,
    TABLE_EXISTS,
    UNSTORABLE_COMMIT,
    in_order,
    reply_window,
    say,
    unknown_table,
)
from rollbridge.stores.redis_fence import new_epoch
from rollbridge.stores.sqlite_faults import (
    FileIdentity,
    LockWait,
    explain,
    need_room,
    store_wide,
)
from rollbridge.stores.sqlite_rows import SAME_INFO
from rollbridge.stores.sqlite_undos import (
    NOT_RECORDED,
    UndosChecked,
    UnfilledRows,
    checked_after,
    forget,
    made_at,
    record_whole,
    unfilled_count,
)
from rollbridge.system_words import system_reason
from rollbridge.tokens import AdminTokenRecord, TokenRecord

__all__ = [
    "DEFAULT_BUSY_TIMEOUT",
    "IN_FILE",
    "JOURNAL_SIZE_LIMIT",
    "MIGRATIONS",
    "RESTORE_MARK",
    "SCHEMA_VERSION",
    "PreparedCommit",
    "Restored",
    "SQLiteStore",
    "check_cells",
    "check_schema_version",
    "has_restore_mark",
    "schema_mismatch",
    "schema_newer",
]

log = logging.getLogger("rollbridge.store")

#: The table ``rollbridge backup`` makes in its copy (``taken_at``: Unix time): the
#: file is a backup, and the first server (or migration) of it is a restore that moves
#: every table to a new epoch (:meth:`SQLiteStore.finish_restore`). Not part of the
#: schema: no migration makes or needs it.
RESTORE_MARK = "rollbridge_restore"
#: The random part added to a restored table's time-based epoch (ms): two restores of
#: one backup share an epoch one time in a million at most, even when the backup's
#: epoch is ahead of the clock (epochs stay below 2^53).
_EPOCH_SPREAD = 1_000_000


def has_restore_mark(conn: sqlite3.Connection) -> bool:
    """Whether the database ``conn`` reads is a backup not served since (it holds
    :data:`RESTORE_MARK`)."""
    return (
        conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (RESTORE_MARK,)
        ).fetchone()
        is not None
    )


#: Seconds a write waits for another connection's write (``busy_timeout``).
DEFAULT_BUSY_TIMEOUT = 10.0
#: The size (bytes) the ``-wal`` file is cut back to when SQLite starts it over
#: after a checkpoint (``PRAGMA journal_size_limit``; SQLite's default never cuts it).
#: SQLite checkpoints every 1,000 pages (4 MiB of 4 KiB pages), so in ordinary use the
#: file cycles up to about 4 MiB and is reused as it is; twice that is never cut then
#: (no shrinking and growing again: a file that grows costs each commit's fsync its
#: size change too), and a file grown far past it while a long read held the
#: checkpoint back (a backup, a table's export) is cut back to it.
JOURNAL_SIZE_LIMIT = 8 * 1024 * 1024


# -- schema and migrations ----------------------------------------------------

_SCHEMA_V1 = (
    """
    CREATE TABLE tables (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        ruleset TEXT NOT NULL,
        ruleset_version TEXT NOT NULL,
        settings BLOB NOT NULL,
        epoch INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        meta BLOB NOT NULL,
        created REAL NOT NULL
    )
    """,
    """
    CREATE TABLE actors (
        "table" TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
        id TEXT NOT NULL,
        pos INTEGER NOT NULL,
        record BLOB NOT NULL,
        PRIMARY KEY ("table", id)
    )
    """,
    """
    CREATE TABLE events (
        "table" TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        data BLOB NOT NULL,
        PRIMARY KEY ("table", seq)
    )
    """,
    """
    CREATE TABLE replies (
        "table" TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        reply BLOB NOT NULL,
        PRIMARY KEY ("table", key)
    )
    """,
    """
    CREATE TABLE tokens (
        id TEXT PRIMARY KEY,
        "table" TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
        role TEXT NOT NULL,
        name TEXT NOT NULL,
        hash TEXT NOT NULL,
        UNIQUE ("table", hash)
    )
    """,
)


def _create_v1(conn: sqlite3.Connection) -> None:
    for statement in _SCHEMA_V1:
        conn.execute(statement)


def _replies_seq_v2(conn: sqlite3.Connection) -> None:
    """v2: replies remember the seq of the commit that stored them, to be pruned."""
    conn.execute("ALTER TABLE replies ADD COLUMN seq INTEGER NOT NULL DEFAULT 0")
    conn.execute('CREATE INDEX replies_by_seq ON replies ("table", seq)')


def _append_only_v3(conn: sqlite3.Connection) -> None:
    """v3: one log row per commit instead of actors and events updated in place.
    Each table's actors become its snapshot; each retained event a log row."""
    conn.execute("ALTER TABLE tables ADD COLUMN state BLOB")
    conn.execute(
        """
        CREATE TABLE log (
            "table" TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
            first INTEGER NOT NULL,
            last INTEGER NOT NULL,
            epoch INTEGER NOT NULL,
            info BLOB NOT NULL,
            events BLOB NOT NULL,
            state BLOB NOT NULL,
            UNIQUE ("table", first)
        )
        """
    )
    nothing = pack({"actors": [], "removed": [], "meta": None})
    for table_id, name, ruleset, version, settings, epoch in conn.execute(
        "SELECT id, name, ruleset, ruleset_version, settings, epoch FROM tables"
    ).fetchall():
        records = [
            unpack(row[0])
            for row in conn.execute(
                'SELECT record FROM actors WHERE "table" = ? ORDER BY pos', (table_id,)
            )
        ]
        conn.execute("UPDATE tables SET state = ? WHERE id = ?", (pack(records), table_id))
        info = pack(_info_data(name, ruleset, version, unpack(settings), epoch))
        conn.executemany(
            "INSERT INTO log VALUES (?, ?, ?, ?, ?, ?, ?)",  # (v3: seven columns)
            [
                (table_id, seq, seq, epoch, info, _array([Packed(data)]), nothing)
                for seq, data in conn.execute(
                    'SELECT seq, data FROM events WHERE "table" = ?', (table_id,)
                ).fetchall()
            ],
        )
    conn.execute("DROP TABLE actors")
    conn.execute("DROP TABLE events")


def _admin_tokens_v4(conn: sqlite3.Connection) -> None:
    """v4: the server's admin tokens (``rollbridge admin-token``), by hash; and each
    reply stored for an integer request id found under the key that id has since
    (:func:`_integer_ids_keyed`)."""
    _integer_ids_keyed(conn)
    conn.execute(
        """
        CREATE TABLE admin_tokens (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            created REAL NOT NULL,
            hash TEXT NOT NULL UNIQUE
        )
        """
    )


def _token_created_v5(conn: sqlite3.Connection) -> None:
    """v5: when each join token was made (NULL for the tokens made before: not known)."""
    conn.execute("ALTER TABLE tokens ADD COLUMN created REAL")


def _changes_only_v6(conn: sqlite3.Connection) -> None:
    """v6: a log row holds the table's info only when its commit changed it (an empty
    ``info`` otherwise) and, of the table's meta, only the fields its commit changed
    (``changed`` in its ``state``, in place of the whole ``meta``). The rows written
    before hold their whole info and meta, which v6 reads as they are: nothing is
    rewritten. The version keeps an older rollbridge, which would read an empty info
    as damage, from the file."""
    del conn  # nothing to rewrite


def _undos_v7(conn: sqlite3.Connection) -> None:
    """v7: a log row keeps its commit's undos and redos apart, packed, in ``undos``
    (NULL when it has none), under a partial index: ``state``'s ``undone`` reads
    them alone (:meth:`SQLiteStore.undos_after`), never decoding the rest of the log.
    The rows written before are read once here to fill it; a row that cannot be read
    as :func:`_row_events` reads it (its bytes, and each event) keeps its bytes there
    too, so the undone read reports it as every other read of it does (a StoreError
    naming the table and seqs), where it skipped it. Each table is then said whole
    in the file (:func:`~rollbridge.stores.sqlite_undos.record_whole`, a record outside
    the schema, added to this step after the fact): its first undone read decodes no
    row again, where it decoded the whole log once per table (a file an earlier
    rollbridge brought to schema 7 has no such record, and is read so)."""
    conn.execute("ALTER TABLE log ADD COLUMN undos BLOB")
    conn.execute('CREATE INDEX log_undos ON log ("table", first) WHERE undos IS NOT NULL')
    filled = []
    for table_id, first, blob in conn.execute('SELECT "table", first, events FROM log'):
        try:
            events = unpack(blob)
            for data in events:  # what every other read of the row reads it as
                Event.from_dict(data)
            found = [e for e in events if e["kind"] in UNDO_KINDS]
        except Exception:  # a damaged row: the undone read says so too
            filled.append((blob, table_id, first))
            continue
        if found:
            filled.append((_array(found), table_id, first))
    conn.executemany('UPDATE log SET undos = ? WHERE "table" = ? AND first = ?', filled)
    record_whole(conn)  # filled whole here: no first undone read decodes the log again


#: A reply key of a server before schema 4 whose id may have been an integer.
_DIGITS_KEY = re.compile(r"(.+)/(0|[1-9][0-9]{0,18})")


def _integer_ids_keyed(conn: sqlite3.Connection) -> None:
    """Schema 4 came with the server that keys an integer request id ``N`` as
    ``TOKEN#N`` (``Table.reply_key``: ``41`` and ``"41"`` are two ids). Every server
    before it made the id a string first and stored its reply as ``TOKEN/41``, so a
    client repeating ``{"id": 41}`` after the upgrade would miss it and have its
    request run a second time. Each such reply is also filed under ``TOKEN#41``:
    for those servers ``41`` and ``"41"`` were the same id, and stay so for the
    replies they stored. (Added to this step after the fact: a file brought to
    schema 4 by an earlier rollbridge keeps its old keys only.)"""
    copies = []
    for table, key, *rest in conn.execute("SELECT * FROM replies").fetchall():
        found = _DIGITS_KEY.fullmatch(key)
        if found and int(found[2]) < 2**63:
            copies.append((table, f"{found[1]}#{found[2]}", *rest))
    if copies:
        marks = ", ".join("?" * len(copies[0]))
        conn.executemany(f"INSERT OR IGNORE INTO replies VALUES ({marks})", copies)


#: ``MIGRATIONS[n]`` brings a database from schema version ``n`` to ``n + 1``;
#: each runs inside the opening transaction, so a failed migration changes
#: nothing. To change the schema, append a step and never change what an old one
#: makes of the schema. (One data repair was added to the v4 step after the fact,
#: :func:`_integer_ids_keyed`: it concerns only files written before v4 existed; and
#: to the v7 step its record of the tables it filled, in ``undos_checked``.)
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _create_v1,
    _replies_seq_v2,
    _append_only_v3,
    _admin_tokens_v4,
    _token_created_v5,
    _changes_only_v6,
    _undos_v7,
)

#: The schema version this code writes (``PRAGMA user_version``).
SCHEMA_VERSION = len(MIGRATIONS)
#: The tables a file of :data:`SCHEMA_VERSION` holds (a test holds it to a new file's).
SCHEMA_TABLES = frozenset({"admin_tokens", "log", "replies", "tables", "tokens"})


# Translators: {path} is the database file; {version} and {supported} schema versions.
SCHEMA_NEWER = say(
    "store.schema_newer",
    "{path} has schema version {version}, newer than this rollbridge's {supported}: "
    "upgrade rollbridge",
)


def schema_newer(path: Path, version: int) -> StoreError:
    """The error of a file whose schema a newer rollbridge wrote."""
    return StoreError(SCHEMA_NEWER(path=str(path), version=version, supported=SCHEMA_VERSION),
                      details={"schema_version": version})  # fmt: skip


# Translators: {path} is the database file; {version} a schema version below 0.
SCHEMA_NEGATIVE = say(
    "store.schema_negative",
    "{path} has schema version {version}, which no rollbridge writes: the file is damaged "
    "or another program's; restore it from a backup",
)


# Translators: {path} is the database file; {version} its schema version; {error}
# SQLite's own words (e.g. "duplicate column name: seq"). The file says an older
# schema version than its tables are: bringing it up to date failed at once.
SCHEMA_MISMATCH = say(
    "store.schema_mismatch",
    "{path} has schema version {version}, but its tables are not that version's "
    "({error}): the file is damaged, or another program changed its version; nothing "
    "was written: restore it from a backup",
)


#: SQLite's words for a statement of a migration step that meets tables of another
#: schema than the step expects (a column or table already there, or not there).
_NOT_THAT_SCHEMA = re.compile(
    r"duplicate column name|no such (table|column|index)|(table|index) \S+ already exists"
)


def schema_mismatch(path: Path, version: int, exc: sqlite3.Error) -> StoreError:
    """The error of a file whose tables do not match its schema version ``version``:
    a step of :data:`MIGRATIONS` failed on them (``exc``)."""
    return StoreError(SCHEMA_MISMATCH(path=str(path), version=version, error=str(exc)),
                      details={"schema_version": version})  # fmt: skip


def check_schema_version(path: Path, version: int) -> None:
    """Refuse a file whose schema version this rollbridge cannot read or bring up to
    date: a newer one's, or one below 0, which no rollbridge writes (it was taken for
    an older schema, and ``serve`` ran the last migration on it before failing).

    :raises StoreError: ``details["schema_version"]`` the version.
    """
    if version < 0:
        raise StoreError(SCHEMA_NEGATIVE(path=str(path), version=version),
                         details={"schema_version": version})  # fmt: skip
    if version > SCHEMA_VERSION:
        raise schema_newer(path, version)


#: A commit also writes a fresh snapshot (and prunes) once this many events were
#: logged since the last one: loading folds at most this many rows.
SNAPSHOT_EVERY = 128


# -- prepared commits ---------------------------------------------------------


def _info_data(name: str, ruleset: str, version: str, settings: Any, epoch: int) -> JSON:
    return {
        "name": name,
        "ruleset": ruleset,
        "ruleset_version": version,
        "settings": settings,
        "epoch": epoch,
    }


#: Most rows one ``INSERT`` writes (SQLite before 3.32 allows 999 parameters; a log
#: row has 8: 256). A live server's group commit holds ~13 commits (at most the
#: writer's ``MAX_BATCH``, 256: then one statement per 32 rows).
_ROWS_PER_INSERT = 32
#: Statements a connection keeps prepared (the sqlite3 module's cache, 128 by
#: default): :func:`_insert`'s 32 forms for each of the two kinds of row a group
#: commit writes, and every other statement of the store, with room to spare.
_CACHED_STATEMENTS = 256


def _insert(conn: sqlite3.Connection, head: str, width: int, rows: list[tuple]) -> None:
    """``head VALUES (?, …), (?, …)…``: every row in one statement (one per 32
    rows), not a statement per row nor a few: each statement's step releases the
    GIL and takes it back, which the event loop's thread wants too. Its forms (one
    for each count of rows) stay prepared (:data:`_CACHED_STATEMENTS`).

    Bytes are bound as ``bytearray`` (the same BLOB): the ``sqlite3`` module binds
    an ``int``, ``float``, ``str`` or ``bytearray`` as it is, but asks every other
    value — ``bytes`` too — for an adapter first, a lookup that fails through an
    ``AttributeError`` formatted and dropped: ~2,500 instructions a value against
    a few hundred for the copy, four values a commit (docs/performance.md, "The glue
    cut, 7 December (night)")."""
    placeholder = "(" + ", ".join("?" * width) + ")"
    for start in range(0, len(rows), _ROWS_PER_INSERT):
        chunk = rows[start : start + _ROWS_PER_INSERT]
        marks = ", ".join([placeholder] * len(chunk))
        values = [bytearray(v) if v.__class__ is bytes else v for r in chunk for v in r]
        conn.execute(f"{head} {marks}", values)


class PreparedCommit(NamedTuple):
    """A :class:`~rollbridge.engine.model.Commit` serialised: only bytes and
    numbers, so it no longer shares anything with the live table.

    Made by :meth:`SQLiteStore.prepare`; accepted by :meth:`SQLiteStore.commit`
    and :meth:`SQLiteStore.commit_many` in place of a ``Commit``. The events and
    records are the bytes the engine packed already. The writer stores ``info`` and
    each field of ``meta`` only when they differ from the table's last ones
    (:func:`_as_stored`).
    """

    epoch: int
    seq: int
    seqs: tuple[int, ...]
    #: The table's info (name, ruleset, its version, settings, epoch), packed.
    info: bytes
    events: bytes
    #: Its undos and redos (packed as ``events``), or None when it has none.
    undos: bytes | None
    #: The records the commit changed and removed (and the order): a msgpack map.
    state: bytes
    #: Each field of the table's meta after the commit, packed, in the meta's order.
    meta: tuple[tuple[str, bytes], ...]
    replies: tuple[tuple[str, bytes], ...]


def _prepare(commit: Commit) -> PreparedCommit:
    info = commit.info
    events = commit.events
    records = commit.actors
    if len(records) == 1:  # nearly every commit changes one actor, or none
        actors = _ONE + records[0].packed()
    else:
        actors = join_array([r.packed() for r in records])
    if commit.order is None:  # nearly every commit: the state map written as it packs
        state = _STATE_HEAD + _pack_field(commit.removed) + _ACTORS + actors
    else:  # an actor put back where it stood: the whole order
        fields = {"removed": commit.removed, "order": commit.order, "actors": Packed(actors)}
        state = pack_map(fields)
    if len(events) == 1:  # nearly every commit: one event
        event = events[0]
        written = _ONE + event.packed()
        seqs: tuple[int, ...] = (int(event.seq),)
        undos = written if event.kind in UNDO_KINDS else None
    else:
        blobs = [e.packed() for e in events]
        written = join_array(blobs)
        seqs = tuple([int(e.seq) for e in events])
        undone = [blob for e, blob in zip(events, blobs, strict=True) if e.kind in UNDO_KINDS]
        undos = join_array(undone) if undone else None
    return PreparedCommit(
        epoch=int(info.epoch),
        seq=int(info.seq),
        seqs=seqs,
        info=pack(
            _info_data(
                info.name, info.ruleset, info.ruleset_version, info.settings, int(info.epoch)
            )
        ),
        events=written,
        undos=undos,
        state=state,
        meta=tuple([(key, _pack_field(value)) for key, value in commit.meta.items()]),
        replies=commit.packed_replies  # packed as the table staged them
        if commit.packed_replies is not None
        else tuple([(key, pack(reply)) for key, reply in commit.replies.items()]),
    )


#: A log row's ``state`` map of two fields, up to ``removed``'s value (then ``actors``).
_STATE_HEAD = map_header(2) + pack("removed")
#: The key of the records in a log row's ``state``.
_ACTORS = pack("actors")
#: The msgpack header of an array of one value (a commit's one event, its one record).
_ONE = b"\x91"


def _pack_field(value: Any) -> bytes:
    """``pack(value)``, without the call for what a meta's field holds most often:
    nothing, an empty list or map (a call costs more than the rest of the meta)."""
    if value is None:
        return b"\xc0"
    if not value:
        if value.__class__ is list:
            return b"\x90"
        if value.__class__ is dict:
            return b"\x80"
    return pack(value)


#: The key of a log row's ``state`` under which the meta's changed fields are.
_CHANGED = pack("changed")
#: The meta's keys packed (:meth:`~rollbridge.engine.model.TableSnapshot.meta`).
_KEYS = {key: pack(key) for key in ("encounter", "pending", "undo", "redo", "dice")}


#: A table's last info or meta field of this many bytes or more is kept as its digest.
_KEPT_WHOLE = 1024


def _kept(value: bytes) -> bytes:
    """What the writer keeps of a table's last info or meta field, to compare the
    next one with: the bytes, or their SHA-256 from :data:`_KEPT_WHOLE` bytes on (a
    table's head holds at most ~6 KB, never its 64 KiB of waiting requests; the
    undo stack and the info, changed or compared at nearly every commit, are
    compared as they are)."""
    return value if len(value) < _KEPT_WHOLE else sha256(value).digest()


def _as_stored(head: list[Any], p: PreparedCommit) -> tuple[bytes, bytes]:
    """The ``info`` and ``state`` a log row stores for ``p``: its info only if it is
    not the table's last (``head[3]``), and only the fields of its meta that differ
    from the table's last (``head[4]``), under ``changed``; all of them when the
    last ones are not known (None). ``head`` then holds ``p``'s (:func:`_kept`)."""
    kept_info = p.info if len(p.info) < _KEPT_WHOLE else _kept(p.info)
    info = SAME_INFO if kept_info == head[3] else p.info
    last, fields = head[4], p.meta
    kept = [(k, v if len(v) < _KEPT_WHOLE else _kept(v)) for k, v in fields]  # no call: small
    if last is None or len(last) != len(kept):
        changed = fields
    else:  # the fields in the same order (TableSnapshot.meta): one differs in key or bytes
        changed = [f for f, now, before in zip(fields, kept, last, strict=True) if now != before]
    head[3], head[4] = kept_info, kept
    if not changed:
        return info, p.state
    # ``p.state`` is a fixmap (at most three fields): one more, then the changed ones
    parts = [bytes((p.state[0] + 1,)), p.state[1:], _CHANGED, map_header(len(changed))]
    for key, value in changed:
        parts += (_KEYS.get(key) or pack(key), value)
    return info, b"".join(parts)


# -- the store ----------------------------------------------------------------

_TOKEN_COLUMNS = 'id, "table", role, name, hash, created'
_EMPTY = bytes((0x90,))  # an empty msgpack array
_INFO_COLUMNS = "id, name, ruleset, ruleset_version, settings, epoch, seq"


#: What a cell read back must be, by the name :func:`check_cells` says it with.
_KINDS: dict[str, tuple[type, ...]] = {
    "text": (str,),
    "a whole number": (int,),
    "a number": (int, float),
    "a map": (dict,),
}
# Translators: what a stored value should have been, in "{cell} is {value}, not {kind}".
_KIND_NAMES = {
    "text": say("store.kind.text", "text"),
    "a whole number": say("store.kind.whole", "a whole number"),
    "a number": say("store.kind.number", "a number"),
    "a map": say("store.kind.map", "a map"),
}
# Translators: {cell} a database column (tables.seq), {value} the value found there,
# {kind} what it should be ("a whole number").
WRONG_KIND = say(
    "store.wrong_kind",
    "{cell} is {value}, not {kind}: the database is damaged; restore it from a backup",
)
# Translators: {path} the database file; {error} why it cannot be read (a
# translated message: store.wrong_kind).
IN_FILE = say("store.in_file", "{path}: {error}")


def check_cells(values: Sequence[Any], names: Sequence[str], kinds: Sequence[str]) -> None:
    """Refuse a value read back from the file that is not of the kind its column
    holds (another program's, a damaged disk's): the commands and the server would
    otherwise fail on it later, with Python's words or a traceback.

    :raises StoreError: naming the column, the value and the kind, in the caller's
        language (:data:`WRONG_KIND`, details ``cell``); :meth:`SQLiteStore._transaction`
        names the file around it, a table's load the table.
    """
    for value, name, kind in zip(values, names, kinds, strict=True):
        if isinstance(value, bool) or not isinstance(value, _KINDS[kind]):
            raise StoreError(WRONG_KIND(cell=name, value=f"{value!r:.60}",
                                        kind=_KIND_NAMES[kind]()),
                             details={"cell": name})  # fmt: skip


def _info(row: Sequence[Any], latest: Sequence[Any] | None = None) -> TableInfo:
    """A table's info from its ``tables`` row, or as its log rows past the snapshot
    left it: ``latest`` is the seq of the latest row and the latest ``info`` stored
    past the snapshot (None: none was, the rows left the info as it was). A row at
    the snapshot's seq is folded into it, and the snapshot may hold more: a commit
    without events made after it.

    :raises StoreError: a cell of another kind than its column's (:func:`check_cells`).
    """
    id_, name, ruleset, version, blob, epoch, seq = row[:7]
    settings = unpack(blob)
    whole = "a whole number"
    check_cells((id_, name, ruleset, version, settings, epoch, seq),
           ("tables.id", "tables.name", "tables.ruleset", "tables.ruleset_version",
            "tables.settings", "tables.epoch", "tables.seq"),
           ("text", "text", "text", "text", "a map", whole, whole))  # fmt: skip
    if latest is not None:
        check_cells(latest[:1], ("log.last",), ("a whole number",))
        if latest[0] > seq:
            if latest[1] is not None:
                return _logged_info(id_, latest[0], latest[1])
            seq = latest[0]
    return TableInfo(id_, name, ruleset, version, settings, epoch, seq)


def _logged_info(table_id: str, seq: int, blob: bytes) -> TableInfo:
    """A table's info as a log row (or a commit without events) left it at ``seq``.

    :raises StoreError: a field of another kind than it is written with.
    """
    data = unpack(blob)
    check_cells((seq, data), ("log.last", "log.info"), ("a whole number", "a map"))
    fields = ("name", "ruleset", "ruleset_version", "settings", "epoch")
    check_cells([data.get(key) for key in fields], [f"log.info.{key}" for key in fields],
           ("text", "text", "text", "a map", "a whole number"))  # fmt: skip
    return TableInfo(table_id, data["name"], data["ruleset"], data["ruleset_version"],
                     data["settings"], data["epoch"], seq)  # fmt: skip


def _fold(
    row: Sequence[Any], rows: Sequence[Sequence[Any]]
) -> tuple[TableInfo, dict[str, ActorRecord], JSON]:
    """A table's info, actors (in the table's order) and meta: its snapshot
    (``row``: the info columns, meta and state) with log rows (``last``, ``info``,
    ``state``) applied in order. A row's empty ``info`` leaves the info as it was
    (but its seq); its ``changed`` replaces those fields of the meta, its ``meta``
    (a row written before schema 6) the whole meta. Each actor's record is made once,
    from its last version: a version a later row replaced is not read again (a
    snapshot folds up to :data:`SNAPSHOT_EVERY` rows, most of them changing the same
    actor or two)."""
    info = _info(row)
    found: dict[str, Any] = {data["id"]: data for data in unpack(row[8] or _EMPTY)}
    meta = unpack(row[7])
    for last, info_blob, state_blob in rows:
        state = unpack(state_blob)
        for data in state["actors"]:  # changed in place; a new one at the end, as in a dict
            found[data["id"]] = data
        for actor_id in state["removed"]:
            found.pop(actor_id, None)
        if state.get("order") is not None:  # rows written before it have none
            found = in_order(found, state["order"])
        if state.get("meta") is not None:  # rows written before schema 6
            meta = state["meta"]
        if "changed" in state:
            meta = {**meta, **state["changed"]}
        if info_blob:
            info = _logged_info(row[0], last, info_blob)
        else:  # made by this fold, shared with nothing
            info.seq = last
    actors = {key: ActorRecord.from_dict(data, fresh=True) for key, data in found.items()}
    return info, actors, meta


# Translators: {table} a table's id; {first} and {last} seqs; {error} Python's (English) reason.
CORRUPT_ROW = say(
    "store.corrupt_row",
    "table {table}: the stored events of seqs {first} to {last} cannot be read ({error}): "
    "the database is damaged; restore it from a backup",
)

# Translators: {table} a table's id; {error} Python's (English) reason.
CORRUPT_STATE = say(
    "store.corrupt_state",
    "table {table}: its stored state cannot be read ({error}): the database is damaged; "
    "restore it from a backup",
)

# Translators: {table} a table's id; {key} a request's idempotency key; {error}
# Python's (English) reason.
CORRUPT_REPLY = say(
    "store.corrupt_reply",
    "table {table}: the stored reply to request {key} cannot be read ({error}): the "
    "database is damaged; restore it from a backup",
)


def _whole_events(blob: bytes) -> list[Event]:
    nobodys = NOBODYS in blob  # a form of no actor to look for in a marked outcome
    return [Event.from_dict(data, nobodys=nobodys) for data in unpack(blob)]


def _row_events(
    table_id: str,
    first: int,
    last: int,
    blob: bytes,
    decode: Callable[[bytes], list[Event]] = _whole_events,
) -> list[Event]:
    """The events of one log row, whole or as ``decode`` reads them
    (:func:`~rollbridge.stores.actor_changes.events_changes`: their changes alone).
    :raises StoreError: naming the table and seqs, when the row cannot be read."""
    try:
        return decode(blob)
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"[:200]
        raise StoreError(
            CORRUPT_ROW(table=table_id, first=first, last=last, error=error),
            details={"table": table_id, "first": first, "last": last},
        ) from exc


def _token(row: Sequence[Any]) -> TokenRecord:
    """A table's token from its ``tokens`` row. :raises StoreError: (:func:`check_cells`)"""
    check_cells(row[:5], [f"tokens.{name}" for name in ("id", "table", "role", "name", "hash")],
           ("text",) * 5)  # fmt: skip
    if row[5] is not None:  # rows made before schema version 5 have none
        check_cells(row[5:6], ("tokens.created",), ("a number",))
    return TokenRecord(id=row[0], table=row[1], role=row[2], name=row[3], hash=row[4],
                       created=row[5])  # fmt: skip


def _admin_token(row: Sequence[Any]) -> AdminTokenRecord:
    """An admin token from its ``admin_tokens`` row. :raises StoreError: (:func:`check_cells`)"""
    check_cells(row, [f"admin_tokens.{name}" for name in ("id", "name", "created", "hash")],
           ("text", "text", "a number", "text"))  # fmt: skip
    return AdminTokenRecord(id=row[0], name=row[1], created=row[2], hash=row[3])


# Translators: {path} the database file; {mode} SQLite's journal mode (a word such as
# "delete", kept as it is); WAL is a name.
NO_WAL = say("store.no_wal", "{path}: SQLite would not use WAL mode (journal_mode={mode})")
# Translators: {path} the database file; a program's fault, not the operator's.
CLOSED = say("store.closed", "{path}: the store was closed already")
# Translators: {table} a table's id; {error} why (a translated sentence, then Python's
# own words in parentheses).
UNSTORABLE_TABLE = say("store.unstorable_table", "table {table} cannot be stored: {error}")


class Restored(NamedTuple):
    """What :meth:`SQLiteStore.finish_restore` did."""

    #: When the backup was taken (Unix time), as its mark says.
    taken_at: float
    #: The tables moved to a new epoch.
    moved: list[str]
    #: The tables that could not be read, left as they were (each was logged).
    skipped: list[str]


def _cannot_open(path: Path, exc: sqlite3.Error) -> StoreError:
    """``exc``, raised opening ``path``, as the error to show: a folder that is not
    there, or a folder given for the file, said as such (SQLite's "unable to open"
    was told as permissions to check) — the folder of the file a symlink leads to,
    for one that leads nowhere —, a symlink that leads back to itself (``resolve``
    raises ``RuntimeError`` on Python 3.11 and 3.12, which reached the operator as a
    traceback; on 3.13 a non-strict ``resolve`` raises nothing and returns the loop's
    own path, which was said as permissions to check: only a strict one says ``ELOOP``),
    else what SQLite said and what to do."""
    try:
        target = path.resolve(strict=True)  # SQLite opens the file a symlink leads to
    except RuntimeError:  # a symlink loop on 3.11 and 3.12
        return StoreError(CANNOT_OPEN(path=str(path), error=SYMLINK_LOOP()))
    except OSError as strict:
        if strict.errno == errno.ELOOP:  # a symlink loop on 3.13
            return StoreError(CANNOT_OPEN(path=str(path), error=SYMLINK_LOOP()))
        try:  # no file there (a symlink that leads nowhere): where it would be
            target = path.resolve()
        except (OSError, RuntimeError):
            return StoreError(CANNOT_OPEN(path=str(path), error=SYMLINK_LOOP()))
    try:
        folder, parent = path.is_dir(), target.parent.is_dir()
    except OSError as looked:  # a name too long, a folder not searchable: the reason
        return StoreError(CANNOT_OPEN(path=str(path), error=system_reason(looked)))
    if folder:
        error: object = IS_FOLDER()
    elif not parent:
        blocker = file_in_the_way(target.parent)
        error = NOT_A_FOLDER(file=str(blocker)) if blocker else NO_FOLDER(folder=str(target.parent))
    else:
        error = explain(exc)
    return StoreError(CANNOT_OPEN(path=str(path), error=error))


class SQLiteStore:
    """Tables, actors, the retained event log, idempotency replies and tokens
    in one SQLite file; see the module docstring for durability and schema.

    :param path: the database file (created, with its schema, if missing; its
        folder must exist — see :func:`rollbridge.paths.default_db_path`).
    :param retain: events kept per table for resume and undo.
    :param busy_timeout: seconds a statement waits for another connection's
        lock before failing with :class:`~rollbridge.exceptions.StoreError`.
    :param copy_of: the file ``path`` is a temporary copy of: what :attr:`path`,
        and so every error, names instead of the copy.

    **Threading contract.** Every method may be called from any thread. Each
    thread gets its own connection (``threading.local``), opened on first use
    and closed by :meth:`close`; a connection is never shared between
    threads. The intended use is one writer thread (the server's commit
    thread, calling :meth:`commit` / :meth:`commit_many`) and reads from the
    event loop's thread (:meth:`load`, :meth:`events_after`, :meth:`reply`,
    :meth:`find_token`, …). WAL lets those reads run while a write is in
    progress; each read sees the last committed state, and multi-statement
    reads (:meth:`load`, :meth:`events_after`, :meth:`list_tokens`) run in
    one read transaction, so they never see half a commit. Writes in this
    process are serialised by a lock; writes from another process (the CLI)
    wait up to ``busy_timeout``. sqlite3 releases the GIL while it works,
    so a commit's fsync does not stall the event loop. Call :meth:`close`
    once, after the other threads stopped using the store; every later call
    raises :class:`~rollbridge.exceptions.StoreError`. Threads that come and
    go (a thread pool) each keep a connection until then.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        retain: int = DEFAULT_RETAIN,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
        copy_of: str | os.PathLike[str] | None = None,
    ) -> None:
        #: The file the connections open.
        self._file = Path(path)
        #: The file errors name: ``copy_of`` when ``path`` is a temporary copy of it
        #: (:mod:`rollbridge.stores.sqlite_read`: a file the operator never made).
        self.path = self._file if copy_of is None else Path(copy_of)
        self.retain = retain
        self.busy_timeout = busy_timeout
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._closed = False
        #: The log rows an earlier schema 7 fill left without undos, damaged (the undone read).
        self._unfilled = UnfilledRows()
        #: The files opened (None until they are): a write checks they are still there.
        self._files: FileIdentity | None = None
        #: How long a write waits for another program's lock.
        self._lock_wait = LockWait(busy_timeout)
        try:
            conn = self._conn()
            # A file with a schema is migrated (or refused: a newer schema, one that
            # cannot be migrated) before WAL is switched on, which writes the file's
            # header: a file refused is left as it was (one of the sqlite3 shell's, in
            # its rollback journal). A new file gets its schema in WAL, as it always did.
            made = conn.execute("PRAGMA user_version").fetchone()[0] != 0
            if made:
                self._migrate(conn)
            mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StoreError(NO_WAL(path=str(self.path), mode=str(mode)))
            if not made:
                self._migrate(conn)
            self._files = FileIdentity(self._file.absolute())
        except BaseException as exc:
            self.close()
            if isinstance(exc, sqlite3.Error):
                raise _cannot_open(self.path, exc) from exc
            raise

    def __repr__(self) -> str:
        return f"SQLiteStore({str(self.path)!r}, retain={self.retain})"

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- connections and transactions ----------------------------------------

    def _conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            return conn
        with self._connections_lock:
            if self._closed:
                raise StoreError(CLOSED(path=str(self.path)))
            target, uri = self._target()
            try:
                conn = sqlite3.connect(
                    target,
                    uri=uri,
                    timeout=self.busy_timeout,
                    isolation_level=None,  # transactions are explicit
                    check_same_thread=False,  # so close() can close every one
                    cached_statements=_CACHED_STATEMENTS,
                )
            except sqlite3.Error as exc:
                if self._files is not None and not self._files.same():
                    self._refuse_replaced()  # removed since it was opened
                raise _cannot_open(self.path, exc) from exc
            try:
                conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
                conn.execute("PRAGMA synchronous = FULL")
                conn.execute("PRAGMA foreign_keys = ON")
                # A group commit's multi-row INSERT keeps a statement journal (to undo
                # the statement alone); past 64 KiB SQLite spills it to a temporary
                # file, a write system call per page. In memory it is a copy.
                conn.execute("PRAGMA temp_store = MEMORY")
                # WAL is never shrunk by default: one grown while a long read held the
                # checkpoint back would stay at its largest for good.
                conn.execute(f"PRAGMA journal_size_limit = {JOURNAL_SIZE_LIMIT}")
            except (sqlite3.Error, UnicodeDecodeError) as exc:  # a damaged schema's
                # words may be no UTF-8, and Python's sqlite3 then raises this instead
                conn.close()
                raise StoreError(CANNOT_OPEN(path=str(self.path), error=explain(exc))) from exc
            if self._files is not None and not self._files.same():
                # the path names another file now (or its -wal is another): this
                # connection would see that file (under the old -wal, a mix), never
                # what was committed; the copy is taken from the first connection
                conn.close()
                self._refuse_replaced()
            self._connections.append(conn)
        self._local.conn = conn
        return conn

    def _target(self) -> tuple[str | Path, bool]:
        """What a new connection opens, and whether it is a URI: the file (made with
        its schema if missing) until the store is open; then only the file opened,
        never a new empty one where it was removed. A store that only reads
        (:mod:`rollbridge.stores.sqlite_read`) opens it read-only instead."""
        if self._files is None:
            return self._file, False
        return self._files.path.as_uri() + "?mode=rw", True

    def _refuse_replaced(self) -> NoReturn:
        """A connection cannot be opened on the files the store opened: they were
        removed or replaced. :raises StoreUnavailable: the database copied from the
        store's first connection (on those files) — never from one opened since,
        which sees the other file (under the old ``-wal``, a mix)."""
        assert self._files is not None
        with self._write_lock:
            raise self._files.refused(self._connections[0] if self._connections else None)

    @contextmanager
    def _transaction(
        self, *, write: bool = False, begin: bool = True, wait: bool = True
    ) -> Iterator[sqlite3.Connection]:
        """This thread's connection, in a transaction (``BEGIN IMMEDIATE`` to
        write; ``begin=False`` for a single read statement, atomic by itself;
        ``wait=False`` for a write that does not wait for another program's lock:
        ``SQLITE_BUSY`` at once, and the next write waits as it would have).

        Everything is rolled back on an error; errors other than rollbridge's
        become :class:`StoreError`.
        """
        conn = self._conn()
        lock = self._write_lock if write else None
        if lock is not None:
            lock.acquire()
        try:
            if write and self._files is not None:
                self._files.check(conn)
                if wait:
                    self._lock_wait.set(conn, self._local)
            if write and not wait:
                conn.execute("PRAGMA busy_timeout = 0")
                self._local.busy_wait = None  # the next write sets its own wait
            if begin or write:
                conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield conn
                if conn.in_transaction:
                    conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    with suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                raise
            if write and wait:
                self._lock_wait.done(None)
        except StoreError as exc:
            if "cell" in exc.details:  # a cell of another kind (check_cells): the file's
                details = {**exc.details, "path": str(self.path)}
                text = IN_FILE(path=str(self.path), error=exc.text)
                raise StoreError(text, details=details) from exc
            raise
        except RollbridgeError:
            raise
        except Exception as exc:
            wide = store_wide(self.path, exc)
            if write and wait and wide is not None:
                self._lock_wait.done(wide)
            raise wide or StoreError(IN_FILE(path=str(self.path), error=explain(exc))) from exc
        finally:
            if write and not wait:  # reads wait for a lock as before
                with suppress(sqlite3.Error):
                    conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
            if lock is not None:
                lock.release()

    def _migrate(self, conn: sqlite3.Connection) -> None:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == SCHEMA_VERSION:
            # read only, before WAL is switched on (which writes the file's header): a
            # file of this version without its tables (one cut to nothing, its version
            # set by another program) is refused as it is, never written
            have = {row[0] for row in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}  # fmt: skip
            missing = sorted(SCHEMA_TABLES - have)
            if missing:
                gone = sqlite3.OperationalError(f"no such table: {missing[0]}")
                raise schema_mismatch(self.path, version, gone)
            return
        check_schema_version(self.path, version)  # before the write lock: nothing written
        with self._transaction(write=True):
            # Read again under the write lock: another process may have migrated.
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            check_schema_version(self.path, version)
            try:
                for step in MIGRATIONS[version:]:
                    step(conn)
            except sqlite3.OperationalError as exc:  # rolled back: the file is as it was
                if not _NOT_THAT_SCHEMA.match(str(exc)):
                    raise  # a full disk, a lock, an I/O error: said as any write's
                raise schema_mismatch(self.path, version, exc) from exc
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    @staticmethod
    def _require(conn: sqlite3.Connection, table_id: str) -> None:
        if conn.execute("SELECT 1 FROM tables WHERE id = ?", (table_id,)).fetchone() is None:
            raise unknown_table(table_id)

    @staticmethod
    def _head(conn: sqlite3.Connection, table_id: str) -> tuple[int, int, int]:
        """``(epoch, latest seq, snapshot seq)`` of a table. :raises UnknownTable:"""
        row = conn.execute(
            "SELECT t.epoch, t.seq, l.epoch, l.last FROM tables AS t LEFT JOIN"
            ' (SELECT epoch, last FROM log WHERE "table" = ? ORDER BY first DESC LIMIT 1)'
            " AS l WHERE t.id = ?",
            (table_id, table_id),
        ).fetchone()
        if row is None:
            raise unknown_table(table_id)
        epoch, snapshot, log_epoch, last = row
        if last is not None and last > snapshot:  # at the snapshot's seq: folded into it
            return log_epoch, last, snapshot
        return epoch, snapshot, snapshot

    # -- tables ---------------------------------------------------------------

    def create_table(self, info: TableInfo, tokens: list[TokenRecord]) -> None:
        """Store a new table (seq 0, no actors) with its first tokens.

        :raises Conflict: if a table with this id exists (nothing is replaced).
        """
        try:
            settings = pack(info.settings)
            meta = pack(TableSnapshot(info, {}).meta())
        except NotPlain as exc:
            raise StoreError(UNSTORABLE_TABLE(table=repr(info.id), error=explain(exc)),
                             details={"table": info.id}) from exc  # fmt: skip
        with self._transaction(write=True) as conn:
            if conn.execute("SELECT 1 FROM tables WHERE id = ?", (info.id,)).fetchone():
                raise Conflict(TABLE_EXISTS(table=repr(info.id)), details={"table": info.id})
            conn.execute(
                "INSERT INTO tables (id, name, ruleset, ruleset_version, settings, epoch, seq,"
                " meta, state, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (info.id, info.name, info.ruleset, info.ruleset_version, settings,
                 info.epoch, info.seq, meta, _EMPTY, time.time()),
            )  # fmt: skip
            for record in tokens:
                self._put_token(conn, info.id, record)
            record_whole(conn, info.id)  # every row it gets holds its undos

    def import_table(
        self,
        snapshot: TableSnapshot,
        events: Sequence[Event],
        replies: Sequence[tuple[str, JSON, int]],
        tokens: Sequence[TokenRecord],
        *,
        created: float | None = None,
    ) -> None:
        """Write a whole table moved from another store (``rollbridge migrate --from
        redis://…``) in one transaction, as
        :meth:`~rollbridge.stores.redis.RedisStore.import_table` does in Redis: its
        snapshot at its latest seq, its retained ``events``, its ``replies``
        (idempotency key, reply, the seq of the commit that stored it) and its join
        ``tokens`` (:func:`~rollbridge.stores.sqlite_import.write_whole_table`).

        :raises Conflict: the file holds a table of this id (nothing written).
        :raises StoreError: the table cannot be written (nothing written).
        """
        from rollbridge.stores.sqlite_import import write_whole_table

        with self._transaction(write=True) as conn:
            write_whole_table(conn, snapshot, events, replies, tokens, created=created)

    def delete_table(self, table_id: str) -> None:
        """Remove a table and everything of it. :raises UnknownTable:"""
        with self._transaction(write=True) as conn:
            self._require(conn, table_id)
            for child in ("log", "replies", "tokens"):
                conn.execute(f'DELETE FROM {child} WHERE "table" = ?', (table_id,))
            conn.execute("DELETE FROM tables WHERE id = ?", (table_id,))
            forget(conn, table_id)  # its undos_checked row, where the file has one

    def tables(self) -> list[TableInfo]:
        """Every table as its latest commit left it, oldest first."""
        with self._transaction() as conn:
            rows = conn.execute(
                f"SELECT {_INFO_COLUMNS} FROM tables ORDER BY created, rowid"
            ).fetchall()
            found = []
            for row in rows:
                latest = conn.execute(
                    'SELECT last, (SELECT info FROM log WHERE "table" = ? AND first > ?'
                    " AND length(info) > 0 ORDER BY first DESC LIMIT 1)"
                    ' FROM log WHERE "table" = ? ORDER BY first DESC LIMIT 1',
                    (row[0], row[6], row[0]),
                ).fetchone()
                found.append(_info(row, latest))
        return found

    def load(self, table_id: str) -> tuple[TableSnapshot, dict[int, Event]]:
        """A table's state — its snapshot with the log rows after it folded in —
        and the retained events its undo/redo stacks name.

        :raises UnknownTable:
        """
        with self._transaction() as conn:
            row = conn.execute(
                f"SELECT {_INFO_COLUMNS}, meta, state FROM tables WHERE id = ?", (table_id,)
            ).fetchone()
            if row is None:
                raise unknown_table(table_id)
            rows = conn.execute(
                'SELECT last, info, state FROM log WHERE "table" = ? AND first > ? ORDER BY first',
                (table_id, row[6]),
            ).fetchall()
            try:
                info, actors, meta = _fold(row, rows)
            except StoreError as exc:  # a cell's kind (check_cells), in the reader's words
                raise StoreError(CORRUPT_STATE(table=table_id, error=exc.text),
                                 details={"table": table_id}) from exc  # fmt: skip
            except Exception as exc:
                error = f"{type(exc).__name__}: {exc}"[:200]
                raise StoreError(CORRUPT_STATE(table=table_id, error=error),
                                 details={"table": table_id}) from exc  # fmt: skip
            wanted = sorted(s for s in {*meta["undo"], *meta["redo"]} if s > info.seq - self.retain)
            history: dict[int, Event] = {}
            if wanted:
                for row in conn.execute(
                    'SELECT first, last, events FROM log WHERE "table" = ? AND last >= ?'
                    " AND first <= ?",
                    (table_id, wanted[0], wanted[-1]),
                ):
                    for event in _row_events(table_id, *row):
                        if event.seq in wanted:
                            history[event.seq] = event
        snapshot = TableSnapshot.from_meta(info, actors, meta)
        return snapshot, history

    def events_after(self, table_id: str, seq: int, until: int | None = None) -> list[Event] | None:
        """Every event with a seq above ``seq`` — and at most ``until``, when given —
        in order; ``[]`` when ``seq`` is the latest (or ``until <= seq``); None if
        some of them have left the retained log. Only the log rows that hold them
        are read: from the one holding ``seq + 1`` to the one holding the last
        wanted, a range of the ``("table", first)`` index.

        :raises UnknownTable: StoreError: a log row cannot be read (it names the
            table and the seqs).
        """
        return self._after(table_id, seq, until, _whole_events)

    def changes_after(
        self, table_id: str, seq: int, until: int | None = None
    ) -> list[Event] | None:
        """:meth:`events_after`, each event with its actors' and the table's changes
        alone (:mod:`~rollbridge.stores.actor_changes`: the rest of its stored form is
        stepped over, not decoded): what ``state`` at an earlier seq walks back through.

        :raises UnknownTable: StoreError: a log row cannot be read.
        """
        return self._after(table_id, seq, until, events_changes)

    def _after(
        self,
        table_id: str,
        seq: int,
        until: int | None,
        decode: Callable[[bytes], list[Event]],
    ) -> list[Event] | None:
        """The events after ``seq`` (:meth:`events_after`), each row's read by ``decode``."""
        with self._transaction() as conn:
            _, latest, _ = self._head(conn, table_id)
            last = latest if until is None else min(until, latest)
            if seq >= last:
                return []
            if seq < latest - self.retain:
                return None
            rows = conn.execute(
                'SELECT first, last, events FROM log WHERE "table" = ? AND first <= ?'
                ' AND first >= (SELECT max(first) FROM log WHERE "table" = ? AND first <= ?)'
                " ORDER BY first",
                (table_id, last, table_id, seq + 1),
            ).fetchall()
        events = [
            e for row in rows for e in _row_events(table_id, *row, decode) if seq < e.seq <= last
        ]
        if [e.seq for e in events] != list(range(seq + 1, last + 1)):
            return None
        return events

    def undos_after(self, table_id: str, seq: int) -> list[Event]:
        """The undos and redos of the retained log with a seq above ``seq``, in
        order: only the log rows that hold one are read (the partial index on
        ``undos``), and only those events decoded, however long the log — but for
        a process's first read of a table (and of an older part of its log), which
        decodes the rows without undos from ``seq`` on once, one at a time, for one
        an earlier schema 7 fill left damaged
        (:class:`~rollbridge.stores.sqlite_undos.UnfilledRows`).

        :raises UnknownTable: StoreError: a log row cannot be read (it names the
            table and the seqs).
        """
        with self._transaction() as conn:
            _, latest, _ = self._head(conn, table_id)
            start = max(seq, latest - self.retain)
            rows = conn.execute(
                'SELECT first, last, undos FROM log WHERE "table" = ? AND last > ?'
                " AND undos IS NOT NULL ORDER BY first",
                (table_id, start),
            ).fetchall()
            # a row an earlier schema 7 fill could not read, left without undos
            damaged = self._unfilled.rows(conn, table_id, start, latest, _row_events)
        # read whole: said in the file, for the next process (a write failing is left)
        self._unfilled.write_checked(lambda: self._transaction(write=True, wait=False))
        rows = sorted([*rows, *damaged], key=itemgetter(0))
        return [e for row in rows for e in _row_events(table_id, *row)
                if start < e.seq <= latest and e.kind in UNDO_KINDS]  # fmt: skip

    def check_undos(
        self, table_id: str, reading: Callable[[int], None] | None = None
    ) -> UndosChecked:
        """Pay ahead the first undone read's work of table ``table_id`` (``rollbridge
        check``): read once every row of its log without ``undos`` — whatever the
        ``retain`` of the server that will read it — and, none damaged, write in the
        file that the table needs no such read again (:data:`~rollbridge.stores.
        sqlite_undos.CHECKED`, seq 0), waiting for a server's write lock as its
        commits do. Only a file an earlier rollbridge brought to schema 7 has such
        rows; another table is found checked at once. ``reading`` is told the rows
        about to be read, when the table was not checked before (progress).

        :raises UnknownTable: (also deleted while it was read) StoreError: the file
            cannot be read, or the record cannot be written.
        """
        with self._transaction() as conn:
            _, latest, _ = self._head(conn, table_id)
            created = made_at(conn, table_id)
            before = checked_after(conn, table_id, created) == 0
            unread = 0 if before else unfilled_count(conn, table_id)
            if not before and reading is not None:
                reading(unread)
            damaged = self._unfilled.rows(conn, table_id, 0, latest, _row_events)
        if not damaged and not before:
            self._unfilled.write_checked(lambda: self._transaction(write=True))
            with self._transaction(begin=False) as conn:
                if checked_after(conn, table_id, created) != 0:  # the write failed
                    now = conn.execute("SELECT created FROM tables WHERE id = ?", (table_id,))
                    row = now.fetchone()
                    if row is None or row[0] != created:  # deleted while it was read
                        raise unknown_table(table_id)  # (made again: another table)
                    raise StoreError(NOT_RECORDED(path=str(self.path), table=repr(table_id)))
        return UndosChecked(table_id, unread, before, [(row[0], row[1]) for row in damaged])

    def event(self, table_id: str, seq: int) -> Event | None:
        """One retained event, or None if it is not (or no longer) in the log.

        :raises StoreError: its log row cannot be read.
        """
        with self._transaction() as conn:
            try:
                _, latest, _ = self._head(conn, table_id)
            except UnknownTable:
                return None
            if not latest - self.retain < seq <= latest:
                return None
            row = conn.execute(
                'SELECT first, last, events FROM log WHERE "table" = ? AND first <= ? AND last >= ?'
                " ORDER BY first DESC LIMIT 1",
                (table_id, seq, seq),
            ).fetchone()
        if row is None:
            return None
        for event in _row_events(table_id, *row):
            if event.seq == seq:
                return event
        return None

    def reply(self, table_id: str, key: str) -> JSON | None:
        """The stored reply to the request with this idempotency key (kept for
        :func:`~rollbridge.stores.base.reply_window` seqs).

        :raises UnknownTable: StoreError: the stored reply cannot be read (naming
            the table and the request).
        """
        with self._transaction() as conn:
            _, latest, _ = self._head(conn, table_id)
            row = conn.execute(
                'SELECT reply, seq FROM replies WHERE "table" = ? AND key = ?', (table_id, key)
            ).fetchone()
            if row is not None:  # a seq of another kind: said, not compared
                check_cells(row[1:], ("replies.seq",), ("a whole number",))
        if row is None or row[1] <= latest - reply_window(self.retain):
            return None
        try:
            return unpack(row[0])
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"[:200]
            raise StoreError(CORRUPT_REPLY(table=table_id, key=key, error=error),
                             details={"table": table_id, "key": key}) from exc  # fmt: skip

    def reply_keys(self, table_id: str) -> list[str]:
        """The idempotency key of every stored reply of a table. :raises UnknownTable:"""
        with self._transaction() as conn:
            _, latest, _ = self._head(conn, table_id)
            keys = [
                row[0]
                for row in conn.execute(
                    'SELECT key FROM replies WHERE "table" = ? AND seq > ?',
                    (table_id, latest - reply_window(self.retain)),
                )
            ]
            for key in keys:  # a key of another kind: said, not met later (sorted, sent)
                check_cells((key,), ("replies.key",), ("text",))
            return keys

    # -- commits ----------------------------------------------------------------

    def prepare(self, commit: Commit) -> PreparedCommit:
        """Serialise a commit now, to write it later with :meth:`commit_many`.

        A :class:`~rollbridge.engine.model.Commit` shares objects with the live
        table, so a server that executes the next request before this one is
        written should prepare it first, on the thread that executed it.

        :raises StoreError: the commit holds something that cannot be stored.
        """
        try:
            return _prepare(commit)
        except Exception as exc:
            raise StoreError(UNSTORABLE_COMMIT(error=explain(exc))) from exc

    def commit(self, table_id: str, commit: Commit | PreparedCommit) -> None:
        """Write a commit atomically, durable when this returns.

        :raises UnknownTable: StoreError: having written nothing.
        """
        self.commit_many([(table_id, commit)])

    def commit_many(self, items: Sequence[tuple[str, Commit | PreparedCommit]]) -> None:
        """Write several commits in one transaction (group commit): all of them
        or nothing, durable when this returns, with one fsync for the lot.
        Commits of the same table apply in the order given.

        On an error nothing is written; a caller batching independent requests
        may retry them one by one to find the one that failed.

        :raises UnknownTable: StoreError: having written nothing.
        """
        prepared = [
            (table_id, c if isinstance(c, PreparedCommit) else self.prepare(c))
            for table_id, c in items
        ]
        if not prepared:
            return
        local = self._local
        known, local.heads = getattr(local, "heads", None), None  # back only on success
        with self._transaction(write=True) as conn:
            version = conn.execute("PRAGMA data_version").fetchone()[0]
            if known is None or known[0] != (version, conn.total_changes):
                heads: dict[str, list[int]] = {}
            else:
                heads = known[1]
            rows, replies, empty = [], [], []
            for table_id, p in prepared:
                head = heads.get(table_id)
                if head is None:  # the table's last info and meta: not known
                    head = heads[table_id] = [*self._head(conn, table_id), None, None]
                self._check_sequence(table_id, head[0], head[1], p)
                head[0], head[1] = p.epoch, p.seq
                info, state = _as_stored(head, p)
                if p.seqs:
                    rows.append((table_id, p.seqs[0], p.seqs[-1], p.epoch, info, p.events, state,
                                 p.undos))  # fmt: skip
                else:
                    empty.append((table_id, (p.seq, info, state)))
                replies += [(table_id, key, reply, p.seq) for key, reply in p.replies]
            _insert(conn, "INSERT INTO log VALUES", 8, rows)
            _insert(conn, 'INSERT OR REPLACE INTO replies ("table", key, reply, seq) VALUES',
                    4, replies)  # fmt: skip
            forced = {t for t, _ in empty}
            for table_id in dict.fromkeys(t for t, _ in prepared):  # this batch's, in order
                head = heads[table_id]
                if table_id in forced or head[1] - head[2] >= SNAPSHOT_EVERY:
                    head[2] = self._snapshot(conn, table_id, [e for t, e in empty if t == table_id])
            mark = (version, conn.total_changes)  # COMMIT changes no row
        local.heads = (mark, heads)

    def _snapshot(
        self, conn: sqlite3.Connection, table_id: str, extra: list[tuple[int, bytes, bytes]]
    ) -> int:
        """Fold the log — and ``extra``, this batch's commits without events (seq,
        info and state, as a log row would store them), each after the commit that
        brought its seq — into a fresh snapshot, then prune
        what no read needs any more: log rows older than the snapshot and the
        retained log, replies past the window. Returns the snapshot's seq."""
        row = conn.execute(
            f"SELECT {_INFO_COLUMNS}, meta, state FROM tables WHERE id = ?", (table_id,)
        ).fetchone()
        rows = conn.execute(
            'SELECT last, info, state FROM log WHERE "table" = ? AND first > ? ORDER BY first',
            (table_id, row[6]),
        ).fetchall()
        if extra:  # a stable sort: at one seq, the log row, then these in batch order
            rows = sorted([*rows, *extra], key=itemgetter(0))
        info, actors, meta = _fold(row, rows)
        conn.execute(
            "UPDATE tables SET name = ?, ruleset = ?, ruleset_version = ?, settings = ?,"
            " epoch = ?, seq = ?, meta = ?, state = ? WHERE id = ?",
            (info.name, info.ruleset, info.ruleset_version, pack(info.settings), info.epoch,
             info.seq, pack(meta), _array([Packed(r.packed()) for r in actors.values()]),
             table_id),
        )  # fmt: skip
        # ``first <= ?`` says nothing more than ``last <= ?`` (a row's first is at
        # most its last) but lets the index stop the scan at the retained rows.
        kept_after = min(info.seq, info.seq - max(0, self.retain))
        conn.execute(
            'DELETE FROM log WHERE "table" = ? AND first <= ? AND last <= ?',
            (table_id, kept_after, kept_after),
        )
        conn.execute(
            'DELETE FROM replies WHERE "table" = ? AND seq <= ?',
            (table_id, info.seq - reply_window(self.retain)),
        )
        return info.seq

    @staticmethod
    def _check_sequence(table_id: str, epoch: int, seq: int, p: PreparedCommit) -> None:
        """Within an epoch a commit continues the stored log exactly."""
        if p.epoch != epoch:
            return
        expected = list(range(seq + 1, seq + 1 + len(p.seqs)))
        if list(p.seqs) == expected and p.seq == (p.seqs[-1] if p.seqs else seq):
            return
        raise StoreError(
            f"table {table_id!r} is at seq {seq} in the store, but the commit brings "
            f"events {list(p.seqs)} and seq {p.seq}: another process may have written to "
            "this table; reload it",
            details={"table": table_id, "stored_seq": seq, "commit_seq": p.seq},
        )

    # -- tokens -------------------------------------------------------------------

    @staticmethod
    def _put_token(conn: sqlite3.Connection, table_id: str, record: TokenRecord) -> None:
        conn.execute(
            f"INSERT INTO tokens ({_TOKEN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)"
            ' ON CONFLICT (id) DO UPDATE SET "table" = excluded."table",'
            " role = excluded.role, name = excluded.name, hash = excluded.hash,"
            " created = excluded.created",
            (record.id, table_id, record.role, record.name, record.hash, record.created),
        )

    def add_token(self, record: TokenRecord) -> None:
        """Store a token record (its hash only). :raises UnknownTable:"""
        with self._transaction(write=True) as conn:
            self._require(conn, record.table)
            self._put_token(conn, record.table, record)

    def find_token(self, table_id: str, token_hash: str) -> TokenRecord | None:
        """The token of this table with this hash (None for an unknown table)."""
        with self._transaction(begin=False) as conn:
            row = conn.execute(
                f'SELECT {_TOKEN_COLUMNS} FROM tokens WHERE "table" = ? AND hash = ?',
                (table_id, token_hash),
            ).fetchone()
            if row is None or not hmac.compare_digest(row[4], token_hash):
                return None
            return _token(row)

    def list_tokens(self, table_id: str) -> list[TokenRecord]:
        """Every token of a table, oldest first. :raises UnknownTable:"""
        with self._transaction() as conn:
            self._require(conn, table_id)
            rows = conn.execute(
                f'SELECT {_TOKEN_COLUMNS} FROM tokens WHERE "table" = ? ORDER BY rowid',
                (table_id,),
            ).fetchall()
            return [_token(row) for row in rows]

    def revoke_token(self, table_id: str, token_id: str) -> bool:
        """Remove a token; whether it existed. :raises UnknownTable:"""
        with self._transaction(write=True) as conn:
            self._require(conn, table_id)
            cursor = conn.execute(
                'DELETE FROM tokens WHERE "table" = ? AND id = ?', (table_id, token_id)
            )
            return cursor.rowcount > 0

    def token_ids(self) -> set[str]:
        """The id of every token of every table (one read)."""
        with self._transaction(begin=False) as conn:
            return {row[0] for row in conn.execute("SELECT id FROM tokens")}

    # -- admin tokens -----------------------------------------------------------

    def add_admin_token(self, record: AdminTokenRecord) -> None:
        """Store an admin token record (its hash only)."""
        with self._transaction(write=True) as conn:
            conn.execute(
                "INSERT INTO admin_tokens (id, name, created, hash) VALUES (?, ?, ?, ?)",
                (record.id, record.name, record.created, record.hash),
            )

    def find_admin_token(self, token_hash: str) -> AdminTokenRecord | None:
        """The admin token with this hash."""
        with self._transaction(begin=False) as conn:
            row = conn.execute(
                "SELECT id, name, created, hash FROM admin_tokens WHERE hash = ?", (token_hash,)
            ).fetchone()
            if row is None or not hmac.compare_digest(row[3], token_hash):
                return None
            return _admin_token(row)

    def list_admin_tokens(self) -> list[AdminTokenRecord]:
        """Every admin token, oldest first."""
        with self._transaction(begin=False) as conn:
            rows = conn.execute(
                "SELECT id, name, created, hash FROM admin_tokens ORDER BY created, rowid"
            ).fetchall()
            return [_admin_token(row) for row in rows]

    def revoke_admin_token(self, token_id: str) -> bool:
        """Remove an admin token; whether it existed."""
        with self._transaction(write=True) as conn:
            cursor = conn.execute("DELETE FROM admin_tokens WHERE id = ?", (token_id,))
            return cursor.rowcount > 0

    # -- restores -----------------------------------------------------------------

    def restore_pending(self) -> float | None:
        """When the backup this file is was taken (Unix time), if it was made by
        ``rollbridge backup`` and not served since; else None."""
        with self._transaction() as conn:
            if not has_restore_mark(conn):
                return None
            row = conn.execute(f"SELECT max(taken_at) FROM {RESTORE_MARK}").fetchone()
        return float(row[0]) if row and isinstance(row[0], int | float) else 0.0

    def finish_restore(self) -> Restored | None:
        """Make a restored backup servable; None if this file is no backup
        (:data:`RESTORE_MARK`).

        Every table moves to a new epoch (a commit without events, as a Redis fence
        makes, docs/protocol.md): the file goes on from the seqs the backup holds,
        while clients may have seen later seqs of the history that was lost, so none
        of them may resume across it. The epoch is the time now in milliseconds, so
        the same backup restored twice gets two epochs. A table whose verifiable
        segment is open keeps the epoch that segment was committed under (its
        ``dice`` field's ``epoch``: its seed can still be revealed) and is marked
        ``restored``: its dice are refused until the GM ends it, since its seed may
        have been revealed in the lost history (docs/dice.md). Its meta records the
        epochs its history ran through (``epochs``: :mod:`rollbridge.engine.epochs`,
        the new one going on from the backup's seq), which a ``welcome`` shows. A
        table that cannot be
        read is left as it was, with a WARNING naming it. The mark is dropped last;
        call this before serving any client.

        :raises StoreError: the file cannot be written.
        """
        taken_at = self.restore_pending()
        if taken_at is None:
            return None
        moved: list[str] = []
        skipped: list[str] = []
        for info in self.tables():
            try:
                snapshot, _ = self.load(info.id)
            except StoreError as exc:  # a damaged table: the others are restored
                log.warning(
                    "restore of %s: table %s cannot be read, so it stays at its epoch "
                    "(clients may resume it across the restore): %s",
                    self.path,
                    info.id,
                    exc,
                )
                skipped.append(info.id)
                continue
            table = snapshot.info
            meta = snapshot.meta()
            dice = meta.get("dice")
            if isinstance(dice, dict) and dice.get("open"):
                meta["dice"] = {**dice, "epoch": dice.get("epoch", table.epoch),
                                "restored": True}  # fmt: skip
            # time-based, and apart from any other restore of the same backup even
            # when the backup's epoch is ahead of this clock
            fresh = new_epoch(table.epoch) + secrets.randbelow(_EPOCH_SPREAD)
            meta["epochs"] = epochs_moved(
                meta.get("epochs"), self._log_epochs(info.id), table.epoch, table.seq, fresh
            )
            table.epoch = fresh
            self.commit(info.id, Commit([], [], [], table, meta))  # a failure: raised, mark kept
            moved.append(info.id)
        with self._transaction(write=True) as conn:
            conn.execute(f"DROP TABLE IF EXISTS {RESTORE_MARK}")
        return Restored(taken_at, moved, skipped)

    def _log_epochs(self, table_id: str) -> list[tuple[int, int, int]]:
        """``(first, last, epoch)`` of each retained log row of a table, in seq order
        (what :func:`rollbridge.engine.epochs.from_log` reads)."""
        with self._transaction() as conn:
            rows = conn.execute(
                'SELECT first, last, epoch FROM log WHERE "table" = ? ORDER BY first', (table_id,)
            ).fetchall()
        return [(int(first), int(last), int(epoch)) for first, last, epoch in rows]

    def probe_write(self) -> None:
        """The file's schema version written again as it is (read in the same
        transaction: a newer rollbridge may have moved it on), a write of its first
        page that another program's lock or a file removed refuses as it would a
        commit; then room on the disk for the ``-wal`` as it is and 1 MiB more
        (:func:`~rollbridge.stores.sqlite_faults.need_room`), since a commit that
        found none had filled the ``-wal``'s file as far as it could, where one page
        still fits. :raises StoreError:"""
        with self._transaction(write=True) as conn:
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            conn.execute(f"PRAGMA user_version = {version}")
        need_room(self.path)

    def check_writable(self) -> None:
        """Whether this process may write the file, changing nothing: the schema
        version written again as it is, then rolled back. SQLite refuses the first
        page's write of a file it opened read-only (its mode, an immutable file) as
        it would a commit's, before anything reaches the file or its ``-wal``.

        Another program's lock held meanwhile (a ``sqlite3`` shell in a
        transaction) passes at once, without waiting for it: SQLite asks for the
        lock only on a file it opened for writing, and a change waits for that lock
        as it always does (docs/operations.md).
        :raises StoreError: the ``read_only`` fault, naming the file."""
        try:
            with self._transaction(write=True, wait=False) as conn:
                version = int(conn.execute("PRAGMA user_version").fetchone()[0])
                conn.execute(f"PRAGMA user_version = {version}")
                conn.execute("ROLLBACK")
        except StoreError as exc:
            if exc.details.get("reason") != "locked":
                raise

    def ping(self) -> None:
        """One indexed read of the file: proves it answers. :raises StoreError:"""
        with self._transaction(begin=False) as conn:
            conn.execute("SELECT 1 FROM tables LIMIT 1").fetchone()

    # -- closing ------------------------------------------------------------------

    def close(self) -> None:
        """Close every connection (the last one checkpoints the WAL into the
        file). Idempotent; later calls raise :class:`StoreError`."""
        with self._connections_lock:
            self._closed = True
            connections, self._connections = self._connections, []
        for conn in connections:
            with suppress(sqlite3.Error):
                conn.close()
        self._local = threading.local()
