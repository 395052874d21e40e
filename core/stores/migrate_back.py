"""Moving tables from Redis back to a SQLite file (``rollbridge migrate --from
redis://… --to DB_FILE``): the other direction of :mod:`rollbridge.stores.migrate`.

One job: read every table of the Redis (or the ones named) through the store
interface of the :class:`~rollbridge.stores.redis.RedisStore`
(:func:`~rollbridge.stores.migrate.dump_table`: its snapshot, retained events,
the events its undo and redo name, replies and join tokens), refuse before writing
anything when the file holds one of them already, write each in one transaction
(:meth:`~rollbridge.stores.sqlite.SQLiteStore.import_table`, the rows the SQLite
store reads, the undos kept apart as schema 7 keeps them), then read it back from
the file the same way and compare counts and the same checksum
(:func:`~rollbridge.stores.migrate.checksum`) — equal on both sides when the
table is. The admin tokens move once; Redis's dice key is written beside the file
(``<db>.dice-key``), so the open verifiable segments reveal the seeds committed on
Redis. Redis is only read.

While ``serve --redis`` processes still claim the Redis (their settings'
claims in ``{prefix}processes``, live: :mod:`rollbridge.server.cluster_peers`),
the move is refused (``redis_in_use``), since what they commit after the copy
would be lost — unless the caller says they were stopped (``processes_stopped``:
a process killed keeps its claim three lease lengths).
``docs/redis.md`` ("Moving tables back to SQLite") is the operator's side.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rollbridge.dice.verifiable import KEY_BYTES, DiceKey, key_path, place_key
from rollbridge.exceptions import Conflict, StoreError
from rollbridge.stores.base import DEFAULT_RETAIN
from rollbridge.stores.migrate import (
    MigrationReport,
    TableDump,
    choose,
    finish,
    open_segments,
    plan_admins,
    plan_dice,
)
from rollbridge.stores.redis import RedisStore
from rollbridge.stores.sqlite import SQLiteStore
from rollbridge.text import Messages
from rollbridge.tokens import AdminTokenRecord

__all__ = ["RedisSource", "changed_since", "check_unclaimed", "live_processes", "migrate_back"]

say = Messages("rollbridge")
# Translators: {processes} the ids of rollbridge serve --redis processes; {seconds} how
# long the last claim lasts; --processes-stopped is an option, typed as it is.
IN_USE = say(
    "migrate.redis_in_use",
    "rollbridge serve processes still claim this Redis ({processes}): what they commit "
    "after the copy would be lost; nothing was written. Stop them first (a process "
    "killed without stopping keeps its claim {seconds} s more), or give "
    "--processes-stopped once you have stopped every one",
)
# Translators: {tables} the ids of tables that the SQLite file holds already; {path} it.
EXISTS = say(
    "migrate.file_exists",
    "{path} holds these tables already: {tables}; nothing was written (give another "
    "--to, or leave them out with --table)",
)
# Translators: {tables} table ids; {path} the dice key file beside the database.
KEY_DIFFERS = say(
    "migrate.file_key_differs",
    "{path} holds another dice key than Redis, and these tables have an open verifiable "
    "segment whose seed it could not reveal: {tables}; nothing was written",
)
# Translators: {tables} table ids.
KEY_MISSING = say(
    "migrate.redis_key_missing",
    "these tables have an open verifiable segment, but Redis holds no dice key, so its "
    "seed cannot be moved: {tables}; nothing was written",
)
# Translators: {key} a Redis key's name; {size} how many bytes it holds.
KEY_DAMAGED = say(
    "migrate.redis_key_damaged",
    "Redis key {key} is no dice key (32 bytes; it holds {size}): Redis's data is "
    "damaged; restore it from a backup. Nothing was written",
)
# Translators: {token} an admin token's id; {path} the SQLite file.
ADMIN_DIFFERS = say(
    "migrate.file_admin_differs",
    "{path} holds another admin token with the id {token}; nothing was written",
)


def live_processes(store: RedisStore) -> tuple[list[str], int]:
    """The ``serve --redis`` processes whose claim on this Redis is live (past its
    time: gone), and the ms the longest one lasts. :raises StoreError:"""
    claims, now = store.process_claims()
    live, longest = [], 0
    for node, value in claims.items():
        until, _bar, _settings = value.partition(b"|")
        try:
            left = int(until) - now
        except ValueError:  # not a claim a process wrote: none
            continue
        if left > 0:
            live.append(node)
            longest = max(longest, left)
    return sorted(live), longest


class RedisSource:
    """A Redis server read to move its tables to a SQLite file (only read).

    :param url: the Redis server (``--from``).
    :param retain: events per table that count as retained (``serve --retain``).
    """

    def __init__(self, url: str, *, retain: int = DEFAULT_RETAIN) -> None:
        #: The store read through its interface; its messages name ``--from``.
        self.store = RedisStore(url, retain=retain, option="--from")

    def stored_at(self, table_id: str) -> tuple[float | None, dict[str, int]]:
        """What the store interface does not say: when the table was created, and
        the seq of the commit that stored each reply (its place in the window):
        :meth:`RedisStore.table_created <rollbridge.stores.redis.RedisStore.table_created>`
        and :meth:`~rollbridge.stores.redis.RedisStore.reply_seqs`.

        :raises StoreError: (``reason`` ``damaged``, naming the table and the key) a
            created time that is no finite number, a reply's seq that is no seq."""
        return self.store.table_created(table_id), self.store.reply_seqs(table_id)

    def close(self) -> None:
        """Close the connections to Redis."""
        self.store.close()


def _file_secret(target: SQLiteStore) -> bytes | None:
    try:
        return DiceKey.read_file(key_path(target.path)).secret()
    except FileNotFoundError:
        return None


def redis_secret(source: RedisSource) -> bytes | None:
    """Redis's dice key, or None. :raises StoreError: (``reason`` ``damaged``,
    naming the key) it is no key (a file of it could never be served)."""
    secret = source.store.stored_dice_secret()
    if secret is not None and len(secret) != KEY_BYTES:
        key = source.store.keys.glob("dice_key")
        raise StoreError(KEY_DAMAGED(key=key, size=len(secret)),
                         details={"reason": "damaged", "key": key})  # fmt: skip
    return secret


def _dice_plan(source: RedisSource, target: SQLiteStore, open_segments: list[str]) -> str:
    """``moved`` (written beside the file), ``same``, ``kept`` (the file's own; no
    open segment) or ``none`` (Redis holds none). :raises Conflict: StoreError:"""
    tables = ", ".join(open_segments)
    return plan_dice(redis_secret(source), _file_secret(target), open_segments,
                     KEY_MISSING(tables=tables),
                     KEY_DIFFERS(path=str(key_path(target.path)), tables=tables))  # fmt: skip


def _admin_plan(source: RedisSource, target: SQLiteStore) -> tuple[list[AdminTokenRecord], int]:
    def differs(token: str) -> Conflict:
        return Conflict(ADMIN_DIFFERS(token=token, path=str(target.path)),
                        code="admin_token_differs", details={"token": token})  # fmt: skip

    return plan_admins(source.store.list_admin_tokens(), target, differs)


def check_unclaimed(source: RedisSource) -> None:
    """Refuse while ``serve --redis`` processes claim the Redis.

    :raises Conflict: ``redis_in_use``, ``details["processes"]`` their ids.
    """
    live, left = live_processes(source.store)
    if live:
        raise Conflict(IN_USE(processes=", ".join(live), seconds=-(-left // 1000)),
                       code="redis_in_use", details={"processes": live})  # fmt: skip


def write_table(target: SQLiteStore, dump: TableDump, source: RedisSource) -> None:
    """Write one dumped table to the file in one transaction. :raises Conflict: StoreError:"""
    created, seqs = source.stored_at(dump.snapshot.info.id)
    latest = dump.snapshot.info.seq
    replies = [(key, reply, seqs.get(key, latest)) for key, reply in dump.replies]
    target.import_table(dump.snapshot, dump.events, replies, dump.tokens, created=created)


def changed_since(source: RedisSource, read: dict[str, tuple[int, int]]) -> dict[str, list[int]]:
    """The tables whose epoch or seq in Redis is no longer the one moved (``read``):
    a process committed to them while they moved (it claimed the Redis after the
    check, or ``--processes-stopped`` was said too soon); ``{id: [seq moved, seq now]}``.
    A table deleted meanwhile lost nothing and is not named. :raises StoreError:"""
    now = {info.id: info for info in source.store.tables()}
    return {
        table_id: [seq, now[table_id].seq]
        for table_id, (epoch, seq) in read.items()
        if table_id in now and (now[table_id].epoch, now[table_id].seq) != (epoch, seq)
    }


def migrate_back(
    source: RedisSource,
    target: SQLiteStore,
    tables: Sequence[str] | None = None,
    *,
    processes_stopped: bool = False,
    progress: Callable[[int, int, str], None] | None = None,
) -> MigrationReport:
    """Move tables (all, or ``tables``) from Redis to the SQLite file ``target``
    with their logs, replies, tokens and undos, the admin tokens and the dice key;
    verify each table once written (:func:`~rollbridge.stores.migrate.verify_table`).

    Everything is checked before anything is written: no live ``serve --redis``
    claims the Redis (unless ``processes_stopped``), the named tables exist there and
    each reads whole, the file holds none of them, the admin tokens and the dice key
    do not clash. Each table is one transaction: a failure midway leaves the tables
    before it written and verified, that one not at all. Once all are written, a
    table Redis was written to meanwhile is named in ``report.changed`` (not ok).

    :raises Conflict: ``redis_in_use``, ``table_exists``, ``admin_token_differs``,
        ``dice_key_differs``, ``dice_key_missing``: nothing written.
    :raises UnknownTable: a named table is not in Redis (nothing written).
    :raises StoreError: a table cannot be read (nothing written), or the file
        cannot be written (the tables before it were).
    """
    if not processes_stopped:
        check_unclaimed(source)
    chosen = choose(source.store.table_ids(), tables)
    there = {t.id for t in target.tables()}
    clash = [t for t in chosen if t in there]
    if clash:
        raise Conflict(EXISTS(tables=", ".join(clash), path=str(target.path)),
                       code="table_exists", details={"tables": clash})  # fmt: skip
    segments = open_segments(source.store, chosen)  # each table read whole once
    for table_id in chosen:  # and what the store interface does not say: before any write
        source.stored_at(table_id)
    report = MigrationReport(dice_key=_dice_plan(source, target, segments))
    admins, report.admin_present = _admin_plan(source, target)
    if report.dice_key == "moved":
        secret = redis_secret(source)
        assert secret is not None
        if not place_key(key_path(target.path), secret):  # another writer was quicker
            report.dice_key = _dice_plan(source, target, segments)

    read: dict[str, tuple[int, int]] = {}

    def moved(dump: TableDump) -> None:
        write_table(target, dump, source)
        read[dump.snapshot.info.id] = (dump.snapshot.info.epoch, dump.snapshot.info.seq)

    finish(report, source.store, target, chosen, admins, moved, progress)
    report.changed = changed_since(source, read)
    for result in report.tables:  # their --json names the file's checksum
        result.target = "sqlite"
    return report
