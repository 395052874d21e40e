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

    tables(id PK, name, ruleset, ruleset_version, settings, epoch, seq, meta, created)
    actors("table", id, pos, record, PK("table", id))     pos: insertion order*
    events("table", seq, data, PK("table", seq))          the retained log
    replies("table", key, reply, seq, PK("table", key))   idempotency keys (v2: seq)
    tokens(id PK, "table", role, name, hash, UNIQUE("table", hash))

``settings``, ``meta``, ``record``, ``data`` and ``reply`` are msgpack blobs
(see :func:`pack` for why msgpack rather than JSON). Child rows reference
``tables(id)`` with ``ON DELETE CASCADE``. (*) Actors come back in the order
they were added, as from a dict; the order is a column because ``VACUUM`` may
renumber rowids. Tables come back oldest first (``created``).

Sequence guard. Within one epoch a commit must continue the stored log: its
first event has the stored seq + 1 and the table's seq becomes its last
event's. Anything else — another process wrote to the same table, or a caller
wrote a stale commit — raises :class:`~rollbridge.exceptions.StoreError`
having written nothing, so seq never has a gap or a repeat.
:mod:`rollbridge.protocol` then loads the table again from
the store.
"""

from __future__ import annotations

import hmac
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rollbridge.engine.model import ActorRecord, Commit, Encounter, Event, TableInfo, TableSnapshot
from rollbridge.exceptions import Conflict, RollbridgeError, StoreError, UnknownTable
from rollbridge.plain import JSON, NotPlain, pack, unpack
from rollbridge.stores.base import DEFAULT_RETAIN, reply_window
from rollbridge.tokens import TokenRecord

__all__ = [
    "DEFAULT_BUSY_TIMEOUT",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "PreparedCommit",
    "SQLiteStore",
]

#: Seconds a write waits for another connection's write (``busy_timeout``).
DEFAULT_BUSY_TIMEOUT = 10.0


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


#: ``MIGRATIONS[n]`` brings a database from schema version ``n`` to ``n + 1``;
#: each runs inside the opening transaction, so a failed migration changes
#: nothing. To change the schema, append a step and never edit an old one.
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (_create_v1, _replies_seq_v2)

#: The schema version this code writes (``PRAGMA user_version``).
SCHEMA_VERSION = len(MIGRATIONS)


# -- prepared commits ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PreparedCommit:
    """A :class:`~rollbridge.engine.model.Commit` serialised: only bytes and
    numbers, so it no longer shares anything with the live table.

    Made by :meth:`SQLiteStore.prepare`; accepted by :meth:`SQLiteStore.commit`
    and :meth:`SQLiteStore.commit_many` in place of a ``Commit``.
    """

    name: str
    ruleset: str
    ruleset_version: str
    settings: bytes
    epoch: int
    seq: int
    meta: bytes
    actors: tuple[tuple[str, bytes], ...]
    removed: tuple[str, ...]
    events: tuple[tuple[int, bytes], ...]
    replies: tuple[tuple[str, bytes], ...]


def _prepare(commit: Commit) -> PreparedCommit:
    info = commit.info
    return PreparedCommit(
        name=info.name,
        ruleset=info.ruleset,
        ruleset_version=info.ruleset_version,
        settings=pack(info.settings),
        epoch=int(info.epoch),
        seq=int(info.seq),
        meta=pack(commit.meta),
        actors=tuple((r.id, r.packed()) for r in commit.actors),
        removed=tuple(commit.removed),
        events=tuple((int(e.seq), e.packed()) for e in commit.events),
        replies=tuple((key, pack(reply)) for key, reply in commit.replies.items()),
    )


# -- the store ----------------------------------------------------------------

_TOKEN_COLUMNS = 'id, "table", role, name, hash'
_INFO_COLUMNS = "id, name, ruleset, ruleset_version, settings, epoch, seq"


def _unknown(table_id: str) -> UnknownTable:
    return UnknownTable(f"no table {table_id!r}", details={"table": table_id})


def _info(row: Sequence[Any]) -> TableInfo:
    id_, name, ruleset, version, settings, epoch, seq = row[:7]
    return TableInfo(
        id=id_,
        name=name,
        ruleset=ruleset,
        ruleset_version=version,
        settings=unpack(settings),
        epoch=epoch,
        seq=seq,
    )


def _token(row: Sequence[Any]) -> TokenRecord:
    return TokenRecord(id=row[0], table=row[1], role=row[2], name=row[3], hash=row[4])


class SQLiteStore:
    """Tables, actors, the retained event log, idempotency replies and tokens
    in one SQLite file; see the module docstring for durability and schema.

    :param path: the database file (created, with its schema, if missing; its
        folder must exist — see :func:`rollbridge.paths.default_db_path`).
    :param retain: events kept per table for resume and undo.
    :param busy_timeout: seconds a statement waits for another connection's
        lock before failing with :class:`~rollbridge.exceptions.StoreError`.

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
    ) -> None:
        self.path = Path(path)
        self.retain = retain
        self.busy_timeout = busy_timeout
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._closed = False
        try:
            conn = self._conn()
            mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StoreError(
                    f"{self.path}: SQLite would not use WAL mode (journal_mode={mode})"
                )
            self._migrate(conn)
        except BaseException as exc:
            self.close()
            if isinstance(exc, sqlite3.Error):
                raise StoreError(f"cannot open {self.path}: {exc}") from exc
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
                raise StoreError(f"{self!r} is closed")
            try:
                conn = sqlite3.connect(
                    self.path,
                    timeout=self.busy_timeout,
                    isolation_level=None,  # transactions are explicit
                    check_same_thread=False,  # so close() can close every one
                )
            except sqlite3.Error as exc:
                raise StoreError(f"cannot open {self.path}: {exc}") from exc
            try:
                conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
                conn.execute("PRAGMA synchronous = FULL")
                conn.execute("PRAGMA foreign_keys = ON")
            except sqlite3.Error as exc:
                conn.close()
                raise StoreError(f"cannot open {self.path}: {exc}") from exc
            self._connections.append(conn)
        self._local.conn = conn
        return conn

    @contextmanager
    def _transaction(
        self, *, write: bool = False, begin: bool = True
    ) -> Iterator[sqlite3.Connection]:
        """This thread's connection, in a transaction (``BEGIN IMMEDIATE`` to
        write; ``begin=False`` for a single read statement, atomic by itself).

        Everything is rolled back on an error; errors other than rollbridge's
        become :class:`StoreError`.
        """
        conn = self._conn()
        lock = self._write_lock if write else None
        if lock is not None:
            lock.acquire()
        try:
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
        except RollbridgeError:
            raise
        except Exception as exc:
            raise StoreError(f"{self.path}: {type(exc).__name__}: {exc}") from exc
        finally:
            if lock is not None:
                lock.release()

    def _migrate(self, conn: sqlite3.Connection) -> None:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == SCHEMA_VERSION:
            return
        with self._transaction(write=True):
            # Read again under the write lock: another process may have migrated.
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path} has schema version {version}, newer than this "
                    f"rollbridge's {SCHEMA_VERSION}: upgrade rollbridge",
                    details={"schema_version": version},
                )
            for step in MIGRATIONS[version:]:
                step(conn)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    @staticmethod
    def _require(conn: sqlite3.Connection, table_id: str) -> tuple[int, int]:
        row = conn.execute("SELECT epoch, seq FROM tables WHERE id = ?", (table_id,)).fetchone()
        if row is None:
            raise _unknown(table_id)
        return row[0], row[1]

    # -- tables ---------------------------------------------------------------

    def create_table(self, info: TableInfo, tokens: list[TokenRecord]) -> None:
        """Store a new table (seq 0, no actors) with its first tokens.

        :raises Conflict: if a table with this id exists (nothing is replaced).
        """
        try:
            settings = pack(info.settings)
            meta = pack(TableSnapshot(info, {}).meta())
        except NotPlain as exc:
            raise StoreError(f"table {info.id!r} cannot be stored: {exc}") from exc
        with self._transaction(write=True) as conn:
            if conn.execute("SELECT 1 FROM tables WHERE id = ?", (info.id,)).fetchone():
                raise Conflict(f"a table {info.id!r} already exists", details={"table": info.id})
            conn.execute(
                "INSERT INTO tables (id, name, ruleset, ruleset_version, settings, epoch, seq,"
                " meta, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (info.id, info.name, info.ruleset, info.ruleset_version, settings,
                 info.epoch, info.seq, meta, time.time()),
            )  # fmt: skip
            for record in tokens:
                self._put_token(conn, info.id, record)

    def delete_table(self, table_id: str) -> None:
        """Remove a table and everything of it. :raises UnknownTable:"""
        with self._transaction(write=True) as conn:
            self._require(conn, table_id)
            for child in ("actors", "events", "replies", "tokens"):
                conn.execute(f'DELETE FROM {child} WHERE "table" = ?', (table_id,))
            conn.execute("DELETE FROM tables WHERE id = ?", (table_id,))

    def tables(self) -> list[TableInfo]:
        """Every table, oldest first."""
        with self._transaction(begin=False) as conn:
            rows = conn.execute(
                f"SELECT {_INFO_COLUMNS} FROM tables ORDER BY created, rowid"
            ).fetchall()
        return [_info(row) for row in rows]

    def load(self, table_id: str) -> tuple[TableSnapshot, dict[int, Event]]:
        """A table's snapshot and the retained events its undo/redo stacks name.

        :raises UnknownTable:
        """
        with self._transaction() as conn:
            row = conn.execute(
                f"SELECT {_INFO_COLUMNS}, meta FROM tables WHERE id = ?", (table_id,)
            ).fetchone()
            if row is None:
                raise _unknown(table_id)
            actor_rows = conn.execute(
                'SELECT id, record FROM actors WHERE "table" = ? ORDER BY pos', (table_id,)
            ).fetchall()
            meta = unpack(row[7])
            wanted = sorted(set(meta["undo"]) | set(meta["redo"]))
            event_rows = []
            if wanted:
                marks = ", ".join("?" * len(wanted))
                event_rows = conn.execute(
                    f'SELECT seq, data FROM events WHERE "table" = ? AND seq IN ({marks})',
                    (table_id, *wanted),
                ).fetchall()
        snapshot = TableSnapshot(
            info=_info(row),
            actors={actor_id: ActorRecord.from_dict(unpack(data)) for actor_id, data in actor_rows},
            encounter=Encounter.from_dict(meta["encounter"]),
            pending=meta["pending"],
            undo=meta["undo"],
            redo=meta["redo"],
        )
        history = {seq: Event.from_dict(unpack(data)) for seq, data in event_rows}
        return snapshot, history

    def events_after(self, table_id: str, seq: int) -> list[Event] | None:
        """Every event with a seq above ``seq``, in order; ``[]`` when ``seq``
        is the latest; None if some of them have left the retained log.

        :raises UnknownTable:
        """
        with self._transaction() as conn:
            _, latest = self._require(conn, table_id)
            if seq >= latest:
                return []
            rows = conn.execute(
                'SELECT seq, data FROM events WHERE "table" = ? AND seq > ? AND seq <= ?'
                " ORDER BY seq",
                (table_id, seq, latest),
            ).fetchall()
        if not rows or rows[0][0] != seq + 1 or len(rows) != latest - seq:
            return None
        return [Event.from_dict(unpack(data)) for _, data in rows]

    def event(self, table_id: str, seq: int) -> Event | None:
        """One retained event, or None if it is not (or no longer) in the log."""
        with self._transaction() as conn:
            row = conn.execute(
                'SELECT data FROM events WHERE "table" = ? AND seq = ?', (table_id, seq)
            ).fetchone()
        return Event.from_dict(unpack(row[0])) if row is not None else None

    def reply(self, table_id: str, key: str) -> JSON | None:
        """The stored reply to the request with this idempotency key.

        :raises UnknownTable:
        """
        with self._transaction(begin=False) as conn:
            row = conn.execute(
                "SELECT t.id, r.reply FROM tables AS t LEFT JOIN replies AS r"
                ' ON r."table" = t.id AND r.key = ? WHERE t.id = ?',
                (key, table_id),
            ).fetchone()
        if row is None:
            raise _unknown(table_id)
        return unpack(row[1]) if row[1] is not None else None

    def reply_keys(self, table_id: str) -> list[str]:
        """The idempotency key of every stored reply of a table. :raises UnknownTable:"""
        with self._transaction() as conn:
            self._require(conn, table_id)
            return [
                row[0]
                for row in conn.execute('SELECT key FROM replies WHERE "table" = ?', (table_id,))
            ]

    # -- commits ----------------------------------------------------------------

    def prepare(self, commit: Commit) -> PreparedCommit:
        """Serialise a commit now, to write it later with :meth:`commit_many`.

        A :class:`~rollbridge.engine.model.Commit` shares objects with the live
        table (its ``info`` is the table's own), so a server that executes the
        next request before this one is written should prepare it first, on
        the thread that executed it.

        :raises StoreError: the commit holds something that cannot be stored.
        """
        try:
            return _prepare(commit)
        except Exception as exc:
            raise StoreError(f"the commit cannot be stored: {type(exc).__name__}: {exc}") from exc

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
        with self._transaction(write=True) as conn:
            latest: dict[str, int] = {}
            for table_id, p in prepared:
                self._apply(conn, table_id, p)
                latest[table_id] = p.seq
            for table_id, seq in latest.items():
                self._prune(conn, table_id, seq)

    def _apply(self, conn: sqlite3.Connection, table_id: str, p: PreparedCommit) -> None:
        epoch, seq = self._require(conn, table_id)
        self._check_sequence(table_id, epoch, seq, p)
        for actor_id, record in p.actors:
            conn.execute(
                'INSERT INTO actors ("table", id, pos, record) VALUES (?, ?,'
                ' (SELECT coalesce(max(pos), 0) + 1 FROM actors WHERE "table" = ?), ?)'
                ' ON CONFLICT ("table", id) DO UPDATE SET record = excluded.record',
                (table_id, actor_id, table_id, record),
            )
        conn.executemany(
            'DELETE FROM actors WHERE "table" = ? AND id = ?',
            [(table_id, actor_id) for actor_id in p.removed],
        )
        conn.executemany(
            'INSERT OR REPLACE INTO events ("table", seq, data) VALUES (?, ?, ?)',
            [(table_id, event_seq, data) for event_seq, data in p.events],
        )
        conn.execute(
            "UPDATE tables SET name = ?, ruleset = ?, ruleset_version = ?, settings = ?,"
            " epoch = ?, seq = ?, meta = ? WHERE id = ?",
            (p.name, p.ruleset, p.ruleset_version, p.settings, p.epoch, p.seq, p.meta,
             table_id),
        )  # fmt: skip
        conn.executemany(
            'INSERT OR REPLACE INTO replies ("table", key, reply, seq) VALUES (?, ?, ?, ?)',
            [(table_id, key, reply, p.seq) for key, reply in p.replies],
        )

    @staticmethod
    def _check_sequence(table_id: str, epoch: int, seq: int, p: PreparedCommit) -> None:
        """Within an epoch a commit continues the stored log exactly."""
        if p.epoch != epoch:
            return
        seqs = [event_seq for event_seq, _ in p.events]
        expected = list(range(seq + 1, seq + 1 + len(seqs)))
        if seqs == expected and p.seq == (seqs[-1] if seqs else seq):
            return
        raise StoreError(
            f"table {table_id!r} is at seq {seq} in the store, but the commit brings "
            f"events {seqs} and seq {p.seq}: another process may have written to this "
            "table; reload it",
            details={"table": table_id, "stored_seq": seq, "commit_seq": p.seq},
        )

    def _prune(self, conn: sqlite3.Connection, table_id: str, seq: int) -> None:
        """Keep the newest ``retain`` events of a table whose latest seq is ``seq``.

        The log of an epoch is gap-free (see :meth:`_check_sequence`), so
        these are the events with a seq above ``seq - retain``: one index probe,
        where counting from the newest (``OFFSET retain``) walks ``retain``
        index entries at every commit.
        """
        conn.execute(
            'DELETE FROM events WHERE "table" = ? AND seq <= ?',
            (table_id, seq - max(0, self.retain)),
        )
        conn.execute(
            'DELETE FROM replies WHERE "table" = ? AND seq <= ?',
            (table_id, seq - reply_window(self.retain)),
        )

    # -- tokens -------------------------------------------------------------------

    @staticmethod
    def _put_token(conn: sqlite3.Connection, table_id: str, record: TokenRecord) -> None:
        conn.execute(
            f"INSERT INTO tokens ({_TOKEN_COLUMNS}) VALUES (?, ?, ?, ?, ?)"
            ' ON CONFLICT (id) DO UPDATE SET "table" = excluded."table",'
            " role = excluded.role, name = excluded.name, hash = excluded.hash",
            (record.id, table_id, record.role, record.name, record.hash),
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
