"""Moving tables from a SQLite file to Redis (``rollbridge migrate``, issue 13, item 3).

One job: read every table (or the ones named) through the store interface of the
:class:`~rollbridge.stores.sqlite.SQLiteStore`, refuse before writing anything
when Redis holds one of them already, write each in one script
(:meth:`~rollbridge.stores.redis.RedisStore.import_table`), then read it back from
Redis the same way and compare counts and a checksum (:func:`checksum`). A table
moves with everything the store holds for it (:class:`TableDump`): its snapshot
(info, actors in order, meta: encounter, pending, undo/redo, the verifiable dice
segment), its retained events (the same seqs, the same packed bytes), its
idempotency replies (each with the seq that stored it, so the reply window ends
where it would have), and its join tokens (a revoked token is gone from SQLite, so
it stays gone). The server's admin tokens move once; the dice key beside the file
(``<db>.dice-key``) becomes Redis's, so open verifiable segments reveal the seeds
committed before the move.

The SQLite file is only read, as the reading commands read it
(:func:`~rollbridge.stores.sqlite_read.look`): it is checked first with a connection
that writes nothing (it exists, its schema is this rollbridge's or an older one's), so
opening it never migrates it; a file of this schema in WAL mode is read in place, a
``-wal`` a killed server left read and never checkpointed into the file; a file not
in WAL mode (a ``rollbridge backup``), of an older schema (written by an older
rollbridge) or with a ``-wal`` but no ``-shm`` is read from a temporary copy, since
opening it as a store would switch it to WAL, bring its schema up to date (in the
copy: :data:`~rollbridge.stores.sqlite.MIGRATIONS`, as ``serve`` would) or make the
``-shm``; the copy's errors name the file. No dice key is created beside it.
A backup not served since it was taken (``rollbridge backup``'s mark,
:data:`~rollbridge.stores.sqlite.RESTORE_MARK`) is a restore: it is read from a
temporary copy whose tables are moved to a new epoch first
(:meth:`~rollbridge.stores.sqlite.SQLiteStore.finish_restore`), so what Redis gets
is what serving the backup would serve; the backup itself stays as it is.
``docs/redis.md`` ("Moving tables from SQLite") is the operator's side.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rollbridge.dice.verifiable import DiceKey, key_path
from rollbridge.engine.model import Event, TableSnapshot
from rollbridge.exceptions import Conflict, InvalidRequest, NotFound, StoreError, UnknownTable
from rollbridge.plain import JSON, pack
from rollbridge.stores.base import CANNOT_OPEN, DEFAULT_RETAIN, Store, unknown_table
from rollbridge.stores.redis import RedisStore
from rollbridge.stores.sqlite import (
    IN_FILE,
    SCHEMA_VERSION,
    Restored,
    SQLiteStore,
    check_cells,
    check_schema_version,
    schema_newer,
)
from rollbridge.stores.sqlite_faults import explain
from rollbridge.stores.sqlite_read import (
    FileFacts,
    TemporaryCopy,
    look,
    read_only,
    store_to_read,
)
from rollbridge.text import Messages
from rollbridge.tokens import AdminTokenRecord, TokenRecord

__all__ = [
    "MigrationReport",
    "SQLiteSource",
    "TableDump",
    "TableResult",
    "checksum",
    "choose",
    "dump_table",
    "finish",
    "migrate",
    "open_segments",
    "plan_admins",
    "plan_dice",
    "retained_events",
    "verify_table",
    "write_table",
]

say = Messages("rollbridge")
# Translators: {path} the SQLite file given to rollbridge migrate --from.
NO_DATABASE = say("migrate.no_database", "no database file {path}: nothing to migrate")
# Translators: {path} the SQLite file given to rollbridge migrate --from.
NO_SCHEMA = say(
    "migrate.no_schema",
    "no database in {path}: it has schema version 0, as an empty SQLite file or another "
    "program's database has, not rollbridge's; it was left as it is: check --from",
)
# Translators: {tables} the ids of tables that Redis holds already.
EXISTS = say(
    "migrate.exists",
    "Redis holds these tables already: {tables}; nothing was written (delete them "
    "there, or leave them out with --table)",
)
# Translators: {tables} table ids; {path} the dice key file beside the database.
KEY_DIFFERS = say(
    "migrate.key_differs",
    "Redis holds another dice key than {path}, and these tables have an open "
    "verifiable segment whose seed it could not reveal: {tables}; nothing was written. "
    "Have their GMs turn the setting verifiable off (that reveals the open segment) and "
    "stop the server, migrate, then turn it on again on Redis",
)
# Translators: {tables} table ids; {path} the dice key file that is missing.
KEY_MISSING = say(
    "migrate.key_missing",
    "these tables have an open verifiable segment, but {path} is missing, so its seed "
    "cannot be moved: {tables}; nothing was written",
)
# Translators: {table} a table's id; {seqs} the seqs of events (numbers) its stored log
# lacks.
BROKEN_LOG = say(
    "migrate.broken_log",
    "table {table}: its undo and redo name events its stored log does not hold whole "
    "(seqs {seqs}): the database is damaged; restore it from a backup. Nothing was written",
)
# Translators: {token} an admin token's id.
ADMIN_DIFFERS = say(
    "migrate.admin_differs",
    "Redis holds another admin token with the id {token}; nothing was written",
)


@dataclass(slots=True)
class TableDump:
    """Everything a store holds for one table, read through the store interface."""

    snapshot: TableSnapshot
    #: The retained events the undo/redo stacks name (what ``load`` returns).
    history: dict[int, Event]
    #: The retained event log, in seq order.
    events: list[Event]
    #: ``(idempotency key, reply)``, by key.
    replies: list[tuple[str, JSON]]
    #: The join tokens, oldest first.
    tokens: list[TokenRecord]

    def counts(self) -> dict[str, int]:
        """What the report counts: actors, events, replies, tokens."""
        return {"actors": len(self.snapshot.actors), "events": len(self.events),
                "replies": len(self.replies), "tokens": len(self.tokens)}  # fmt: skip


def retained_events(store: Store, table_id: str, latest: int) -> list[Event]:
    """The retained log of a table at ``latest``: the last ``store.retain`` events,
    or (when the log holds fewer, after a new epoch) its unbroken tail."""
    low = max(0, latest - max(0, store.retain))
    events = store.events_after(table_id, low)
    if events is not None:
        return events
    tail: list[Event] = []
    for seq in range(latest, low, -1):
        event = store.event(table_id, seq)
        if event is None:
            break
        tail.append(event)
    return tail[::-1]


def dump_table(store: Store, table_id: str) -> TableDump:
    """Read one table whole from any store. :raises UnknownTable:"""
    snapshot, history = store.load(table_id)
    events = retained_events(store, table_id, snapshot.info.seq)
    replies = []
    for key in sorted(store.reply_keys(table_id)):
        reply = store.reply(table_id, key)
        if reply is not None:
            replies.append((key, reply))
    tokens = store.list_tokens(table_id)
    return TableDump(snapshot, history, events, replies, tokens)


def checksum(dump: TableDump) -> str:
    """SHA-256 over the canonical packed form of a table: its info, meta, actors in
    order, retained events, the events its undo/redo name, replies by key and
    tokens in order (each part length-prefixed). Computed the same way from
    either store, so equal tables give equal checksums."""
    digest = hashlib.sha256()

    def part(data: bytes) -> None:
        digest.update(len(data).to_bytes(8, "big") + data)

    snapshot = dump.snapshot
    part(pack(snapshot.info.to_dict()))
    part(pack(snapshot.meta()))
    for name, (what, items) in {
        "actors": ("actor", [(i, r.packed()) for i, r in snapshot.actors.items()]),
        "events": ("event", [(str(e.seq), e.packed()) for e in dump.events]),
        "history": ("event", [(str(s), dump.history[s].packed()) for s in sorted(dump.history)]),
        "replies": ("reply", [(k, pack(r)) for k, r in dump.replies]),
        "tokens": (
            "token",
            [(t.id, pack([t.role, t.name, t.hash, t.created])) for t in dump.tokens],
        ),
    }.items():
        part(f"{name}:{len(items)}:{what}".encode())
        for key, blob in items:
            part(key.encode())
            part(blob)
    return digest.hexdigest()


class SQLiteSource:
    """A rollbridge SQLite file opened to be read only.

    :param path: the database file; its dice key is ``<path>.dice-key``.
    :param retain: events per table that count as retained (``serve --retain``).
    :raises NotFound: the file does not exist, or has schema version 0 (an empty
        SQLite file, another program's database: code ``no_database``).
    :raises InvalidRequest: it is a database of a newer schema (code
        ``schema_version``).
    :raises StoreError: it is not a SQLite database at all.
    """

    def __init__(self, path: str | Path, *, retain: int = DEFAULT_RETAIN) -> None:
        self.path = Path(path)
        #: The file read: the database, or a temporary copy of one not in WAL mode.
        self.read_path = self.path
        self._copy: TemporaryCopy | None = None
        self._marked = False
        if not self.path.is_file():
            raise NotFound(NO_DATABASE(path=str(self.path)), code="no_database",
                           details={"path": str(self.path)})  # fmt: skip
        try:
            how = self._check()
        except (sqlite3.Error, UnicodeDecodeError, OSError) as exc:  # garbage, a folder;
            # a damaged schema's words may be no UTF-8: Python's sqlite3 then raises
            # UnicodeDecodeError instead (fuzz seed 60612)
            raise StoreError(CANNOT_OPEN(path=str(self.path), error=explain(exc))) from exc
        #: The store read through its interface, as the reading commands read
        #: (:func:`~rollbridge.stores.sqlite_read.store_to_read`): in place nothing it
        #: does writes to the file or beside it, a ``-wal`` a killed server left read,
        #: not checkpointed; a copy's errors name the file. Only the restore of a
        #: backup writes, in the copy.
        try:
            self.store: SQLiteStore = store_to_read(self.path, how, retain=retain)
        except BaseException:  # an older schema not brought up to date in the copy
            self._discard_copy()
            raise
        #: What the restore of a backup did (None: the file is no backup).
        self.restored: Restored | None = None
        if self._marked:
            try:
                self.restored = self.store.finish_restore()
            except BaseException:
                self.close()
                raise

    def _check(self) -> str | TemporaryCopy:
        """Check the file's schema; say how it is read (a file not in WAL mode, of an
        older schema, a backup: from a copy; :func:`~rollbridge.stores.sqlite_read.look`)."""

        def refuse(facts: FileFacts) -> None:
            if facts.version == 0:  # rollbridge's always has one: "serve it once" misled
                raise NotFound(NO_SCHEMA(path=str(self.path)), code="no_database",
                               details={"path": str(self.path)})  # fmt: skip
            if facts.version < 0:  # no rollbridge's: refused as every command refuses it
                check_schema_version(self.path, facts.version)
            if facts.version > SCHEMA_VERSION:  # a newer rollbridge's: said as every
                # command says it ("serve it once if it is older" was no advice for it)
                newer = schema_newer(self.path, facts.version)
                raise InvalidRequest(newer.text, code="schema_version", details=newer.details)

        # opening it as a store would switch it to WAL (a write), or bring an older
        # schema up to date (a written older rollbridge could not read again); a
        # backup is restored before it is read (new epochs): all in a copy
        facts, how = look(self.path, "rollbridge-migrate-", refuse)
        self._marked = facts.marked
        if isinstance(how, TemporaryCopy):
            self._copy = how
            self.read_path = how.path
        return how

    def _discard_copy(self) -> None:
        """Remove the temporary copy now (a failed open: not left to the garbage
        collector)."""
        if self._copy is not None:
            self._copy.remove()
            self._copy = None

    @property
    def key_path(self) -> Path:
        """The dice key file beside the database (:func:`~rollbridge.dice.verifiable.key_path`)."""
        return key_path(self.path)

    def dice_secret(self) -> bytes | None:
        """The dice key's 32 bytes, or None when there is no key file (never made).

        :raises StoreError: a key file that cannot be read or is not a dice key
            (``bad_dice_key``), as the server says it.
        """
        try:
            return DiceKey.read_file(self.key_path).secret()
        except FileNotFoundError:
            return None

    def stored_at(self, table_id: str) -> tuple[float | None, dict[str, int]]:
        """What the store interface does not say: when the table was created, and
        the seq of the commit that stored each reply (its place in the window)."""
        with closing(read_only(self.read_path)) as conn:
            row = conn.execute("SELECT created FROM tables WHERE id = ?", (table_id,)).fetchone()
            seqs = dict(conn.execute('SELECT key, seq FROM replies WHERE "table" = ?', (table_id,)))
        try:  # values of another kind (a damaged file): said, as the store says them
            check_cells(row or (0,), ("tables.created",), ("a number",))
            for key, seq in seqs.items():
                check_cells((key, seq), ("replies.key", "replies.seq"), ("text", "a whole number"))
        except StoreError as exc:
            raise StoreError(IN_FILE(path=str(self.path), error=exc.text),
                             details={**exc.details, "path": str(self.path)}) from None  # fmt: skip
        return (None if row is None else float(row[0])), seqs

    def close(self) -> None:
        """Close the store's connections (and remove a temporary copy)."""
        self.store.close()
        self._discard_copy()


@dataclass(slots=True)
class TableResult:
    """One table moved and read back."""

    table: str
    counts: dict[str, int]
    #: Counts as read back from the store moved to.
    moved: dict[str, int]
    source_checksum: str
    target_checksum: str
    #: The store moved to, naming its checksum in ``--json``: ``redis``
    #: (``redis_checksum``) or ``sqlite`` (``sqlite_checksum``, migrate back).
    target: str = "redis"

    @property
    def ok(self) -> bool:
        """Whether the store moved to holds exactly what the other did."""
        return self.counts == self.moved and self.source_checksum == self.target_checksum

    def to_dict(self) -> JSON:
        """The result as plain data (``--json``)."""
        return {
            "table": self.table,
            "ok": self.ok,
            **self.counts,
            "moved": self.moved,
            "checksum": self.source_checksum,
            f"{self.target}_checksum": self.target_checksum,
        }


@dataclass(slots=True)
class MigrationReport:
    """What :func:`migrate` did."""

    tables: list[TableResult] = field(default_factory=list)
    #: Admin tokens written, and those Redis held already (the same record).
    admin_tokens: int = 0
    admin_present: int = 0
    #: Whether Redis holds every admin token of the file (id and hash), read back.
    admin_ok: bool = True
    #: The dice key: ``moved``, ``same`` (Redis held this one), ``kept`` (Redis keeps
    #: its own; no moved table has an open segment) or ``none`` (no key file).
    dice_key: str = "none"
    #: A backup's restore: the tables moved to a new epoch before they were read
    #: (None: the file is no backup, :attr:`SQLiteSource.restored`).
    restored: int | None = None
    #: Tables the source was written to while they moved (migrate back: a ``serve
    #: --redis`` that claimed the Redis meanwhile): ``{id: [seq moved, seq after]}``.
    changed: dict[str, list[int]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Whether every table and the admin tokens read back equal, and no table
        changed in the source while it moved."""
        return self.admin_ok and not self.changed and all(t.ok for t in self.tables)

    def to_dict(self) -> JSON:
        """The report as plain data (``--json``)."""
        return {"ok": self.ok, "tables": [t.to_dict() for t in self.tables],
                "admin_tokens": self.admin_tokens, "admin_tokens_present": self.admin_present,
                "admin_tokens_ok": self.admin_ok, "dice_key": self.dice_key,
                "restored": self.restored, "changed": self.changed}  # fmt: skip


def _check_history(dump: TableDump, retain: int) -> None:
    """Refuse a table whose undo and redo name retained events that its retained log,
    read as one unbroken run, does not hold: a log row lost from the file's middle
    (the run then starts after it). Moved, those events would be lost, and the table
    would read back otherwise (a checksum mismatch, after it was written).

    :raises StoreError: naming the table and the seqs (``details``)."""
    low = dump.snapshot.info.seq - max(0, retain)
    held = {event.seq for event in dump.events}
    missing = sorted(seq for seq in dump.history if seq > low and seq not in held)
    if missing:
        table_id = dump.snapshot.info.id
        shown = ", ".join(map(str, missing[:10])) + (", …" if len(missing) > 10 else "")
        raise StoreError(BROKEN_LOG(table=table_id, seqs=shown),
                         details={"table": table_id, "seqs": missing})  # fmt: skip


def write_table(target: RedisStore, dump: TableDump, source: SQLiteSource) -> None:
    """Write one dumped table to Redis in one script. :raises Conflict: StoreError:"""
    created, seqs = source.stored_at(dump.snapshot.info.id)
    latest = dump.snapshot.info.seq
    replies = [(key, reply, seqs.get(key, latest)) for key, reply in dump.replies]
    target.import_table(dump.snapshot, dump.events, replies, dump.tokens, created=created)


def verify_table(dump: TableDump, target: Store) -> TableResult:
    """Read a moved table back from its new store and compare it with its dump."""
    table_id = dump.snapshot.info.id
    try:
        back = dump_table(target, table_id)
    except UnknownTable:
        back = None
    return TableResult(
        table_id,
        dump.counts(),
        back.counts() if back else {k: 0 for k in dump.counts()},
        checksum(dump),
        checksum(back) if back else "",
    )


def _choose(source: SQLiteSource, tables: Sequence[str] | None) -> list[str]:
    return choose([t.id for t in source.store.tables()], tables)


def choose(known: list[str], tables: Sequence[str] | None) -> list[str]:
    """The tables to move: every one ``known``, or ``tables`` (each once).

    :raises UnknownTable: a named table is not among them."""
    if not tables:
        return known
    for table_id in tables:
        if table_id not in known:
            raise unknown_table(table_id)
    return list(dict.fromkeys(tables))


def _admin_plan(source: SQLiteSource, target: RedisStore) -> tuple[list[AdminTokenRecord], int]:
    def differs(token: str) -> Conflict:
        return Conflict(ADMIN_DIFFERS(token=token), code="admin_token_differs",
                        details={"token": token})  # fmt: skip

    return plan_admins(source.store.list_admin_tokens(), target, differs)


def plan_admins(
    records: Sequence[AdminTokenRecord], target: Store, differs: Callable[[str], Conflict]
) -> tuple[list[AdminTokenRecord], int]:
    """The admin tokens ``target`` lacks, and how many it holds already (same id and
    hash). :raises Conflict: ``differs(id)``, a token of that id with another hash."""
    there = {r.id: r for r in target.list_admin_tokens()}
    new, present = [], 0
    for record in records:
        held = there.get(record.id)
        if held is None:
            new.append(record)
        elif held.hash == record.hash:
            present += 1
        else:
            raise differs(record.id)
    return new, present


def open_segments(store: Store, chosen: Sequence[str]) -> list[str]:
    """Read each table whole once (checked: :func:`_check_history`) before anything is
    written; the ones with an open verifiable segment. :raises StoreError:"""
    found = []
    for table_id in chosen:
        checked = dump_table(store, table_id)
        _check_history(checked, store.retain)
        dice: Any = checked.snapshot.dice
        if isinstance(dice, dict) and dice.get("open"):
            found.append(table_id)
    return found


def finish(
    report: MigrationReport,
    source: Store,
    target: Store,
    chosen: Sequence[str],
    admins: Sequence[AdminTokenRecord],
    write: Callable[[TableDump], None],
    progress: Callable[[int, int, str], None] | None,
) -> MigrationReport:
    """Write the admin tokens and each table (``write``), verifying them."""
    for record in admins:
        target.add_admin_token(record)
    report.admin_tokens = len(admins)
    held = {r.id: r.hash for r in target.list_admin_tokens()}
    report.admin_ok = all(held.get(r.id) == r.hash for r in source.list_admin_tokens())
    for done, table_id in enumerate(chosen, 1):
        dump = dump_table(source, table_id)
        write(dump)
        report.tables.append(verify_table(dump, target))
        if progress is not None:
            progress(done, len(chosen), table_id)
    return report


def _dice_plan(source: SQLiteSource, target: RedisStore, open_segments: list[str]) -> str:
    """What to do with the dice key: ``moved``, ``same``, ``kept`` or ``none``.

    :raises Conflict: a moved open segment whose seed Redis could not reveal.
    """
    where = str(source.key_path)
    return plan_dice(source.dice_secret(), target.stored_dice_secret(), open_segments,
                     KEY_MISSING(path=where, tables=", ".join(open_segments)),
                     KEY_DIFFERS(path=where, tables=", ".join(open_segments)))  # fmt: skip


def plan_dice(
    mine: bytes | None, theirs: bytes | None, open_segments: list[str], missing: Any, differs: Any
) -> str:
    """The dice key's move: ``moved`` (the target has none), ``same``, ``kept`` (the
    target's own; no open segment among the tables) or ``none`` (the source has none).

    :raises Conflict: an open segment whose seed the target could not reveal: the
        source has no key (``dice_key_missing``, said by ``missing``) or the target
        another (``dice_key_differs``, ``differs``).
    """
    if mine is None:
        if open_segments:
            raise Conflict(missing, code="dice_key_missing", details={"tables": open_segments})
        return "none"
    if theirs is None:
        return "moved"
    if theirs == mine:
        return "same"
    if open_segments:
        raise Conflict(differs, code="dice_key_differs", details={"tables": open_segments})
    return "kept"


def migrate(
    source: SQLiteSource,
    target: RedisStore,
    tables: Sequence[str] | None = None,
    *,
    progress: Callable[[int, int, str], None] | None = None,
) -> MigrationReport:
    """Move tables (all, or ``tables``) with their logs, replies and tokens, the
    admin tokens and the dice key; verify each table once written.

    Everything is checked before anything is written: the named tables exist in
    SQLite and every one of them reads whole (each is read once to check it, then
    again to write it, so that only one table is held in memory at a time), none of
    them exists in Redis, the admin tokens and the dice key do not clash.
    ``progress(done, total, table)`` is called after each table.

    :raises UnknownTable: a named table is not in the file.
    :raises Conflict: Redis holds a table already (``table_exists``, every one named),
        another admin token of an id, or another dice key while a moved table has an
        open verifiable segment; nothing was written then.
    :raises StoreError: a table in the file cannot be read (naming it and the
        seqs); nothing was written then. Or Redis failed; the tables before were
        written and verified.
    """
    chosen = _choose(source, tables)
    there = set(target.table_ids())
    clash = [t for t in chosen if t in there]
    if clash:
        raise Conflict(EXISTS(tables=", ".join(clash)), code="table_exists",
                       details={"tables": clash})  # fmt: skip
    segments = open_segments(source.store, chosen)
    report = MigrationReport(dice_key=_dice_plan(source, target, segments))
    if source.restored is not None:
        report.restored = len(source.restored.moved)
    admins, report.admin_present = _admin_plan(source, target)
    if report.dice_key == "moved":
        secret = source.dice_secret()
        assert secret is not None
        if target.adopt_dice_secret(secret) != secret:  # another writer was quicker
            report.dice_key = _dice_plan(source, target, segments)
    return finish(report, source.store, target, chosen, admins,
                  lambda dump: write_table(target, dump, source), progress)  # fmt: skip
