"""The Redis store: every table in a Redis server, shared by any number of processes.

:class:`RedisStore` implements :class:`~rollbridge.stores.base.Store` with the
semantics of :class:`~rollbridge.stores.sqlite.SQLiteStore` (the contract suite,
``tests/stores/test_store_contract.py``, runs on both). It uses redis-py's
synchronous client (``redis.Redis.from_url``, with hiredis when installed): the
server calls a store from its commit-writer thread and a thread pool, and the
client's connection pool is safe to share between threads.

**Keys** (:mod:`rollbridge.stores.redis_keys`): a table's keys all carry its id as
a hash tag, ``rb:{table}:info``, ``rb:{table}:log``, …, so a Redis Cluster would
keep a table in one slot. Values are msgpack bytes, the ones the engine packed.

**A commit is one server-side script** (:data:`~rollbridge.stores.redis_scripts.COMMIT`,
sent with ``EVALSHA``, loaded again when the server lost it). It checks, and only
then writes:

0. whether this very commit was written already (its digest is in the table's
   ``commits`` set at its seq: a retry after a lost reply): then it answers
   "written" and writes nothing twice;
1. the writer's fencing token: if the table's ``owner`` key is set and names
   another process than this store's ``writer``, the commit is refused;
2. the sequence, as SQLite's guard: within an epoch the commit's first event is the
   stored seq + 1 and the table's seq becomes its last event's;
3. the request ids: no reply key of the commit holds a stored reply that names an
   event (an integer ``seq``) — that request was executed already. A reply without
   an event (a pending approval) is replaced when the request is decided;
4. what the commit left out: a commit sent against this process's last one to the
   table (:class:`Sent`, :func:`commit_args`) leaves out the info's head and the
   meta when they did not change; the table must still hold what that commit left
   (its digest in ``mtag`` — or this commit's own: the table holds what it leaves —,
   ``wanted`` ending with the comma this version writes), else the script answers
   ``whole`` and the store sends the commit again with both.

Then it writes the events (trimming the log to the last ``retain``), the actor
records (and their order, when the commit gives it: an undone removal put an actor
back where it stood), the info and meta, the replies (pruning those past the
:func:`~rollbridge.stores.base.reply_window`) and publishes ``"{epoch}:{seq}"`` on
the table's channel ``rb:{table}:events``. A refusal raises
:class:`CommitRefused` (a :class:`~rollbridge.exceptions.StoreError`) having written
nothing.

**Durability** needs ``appendonly yes``, ``appendfsync always`` and
``maxmemory-policy noeviction``; :func:`check_durability` lists what a server lacks.

**Reads** that need more than one key run as one script too, so they see whole
commits only.
"""

from __future__ import annotations

import hashlib
import math
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

import redis
from redis.commands.core import Script

from rollbridge.engine.history import UNDO_KINDS
from rollbridge.engine.model import ActorRecord, Commit, Event, TableInfo, TableSnapshot
from rollbridge.engine.table import HISTORY_IN_MEMORY
from rollbridge.exceptions import Conflict, RollbridgeError, StoreError, StoreUnavailable
from rollbridge.plain import JSON, NotPlain, map_header, pack, unpack
from rollbridge.stores import redis_damaged
from rollbridge.stores import redis_scripts as lua
from rollbridge.stores.actor_changes import event_changes
from rollbridge.stores.base import (
    CANNOT_OPEN,
    DEFAULT_RETAIN,
    TABLE_EXISTS,
    LogTail,
    reply_window,
    unknown_table,
)
from rollbridge.stores.redis_causes import READ_ONLY as READ_ONLY_CAUSE
from rollbridge.stores.redis_causes import cause_of, redis_words
from rollbridge.stores.redis_durability import DurabilityWatch, check_durability
from rollbridge.stores.redis_keys import DEFAULT_PREFIX, RedisKeys, TableKeys
from rollbridge.stores.redis_sent import SENT_BYTES, Sent, SentMemory
from rollbridge.stores.redis_url import (
    OPTION_OR_ENV,
    READ_ONLY,
    UNKNOWN_SETTING,
    address_of,
    check_database,
    safe_error,
    server_of,
    why_not_opened,
    without_password,
)
from rollbridge.text import Text
from rollbridge.tokens import AdminTokenRecord, TokenRecord

if TYPE_CHECKING:
    from rollbridge.stores.redis_fence import Fenced

__all__ = [
    "CLIENT_TIMEOUTS",
    "CommitRefused",
    "Followed",
    "PreparedRedisCommit",
    "RedisStore",
    "Sent",
    "check_durability",
    "commit_args",
    "prepare",
]

T = TypeVar("T")

#: Seconds a Redis connection may take to open, and a reply to come, before the call
#: fails (a ``StoreError`` for the client, and the connection is made again). Set
#: here, not left to redis-py: its default was no timeout before version 8, and a
#: connection whose packets were silently dropped then hung its process for good.
#: A URL's own ``socket_timeout`` / ``socket_connect_timeout`` options win.
CLIENT_TIMEOUTS = {"socket_timeout": 5.0, "socket_connect_timeout": 5.0}

#: The first byte of a stored reply: it names an event (``F``: final, the request
#: was executed) or not (``P``: provisional, a pending approval).
FINAL, PROVISIONAL = b"F", b"P"


class CommitRefused(StoreError):
    """The commit script refused a commit, having written nothing.

    ``details["reason"]`` says why: ``seq`` (another writer moved the table on:
    ``stored_epoch``, ``stored_seq``), ``reply`` (a request of the commit was
    answered already: ``key``) or ``owner`` (another process holds the table's
    lease: ``owner``). The code stays ``store_error``: a client only tries again.
    """


class PreparedRedisCommit(NamedTuple):
    """A :class:`~rollbridge.engine.model.Commit` serialised for the commit script:
    only bytes and numbers (:func:`commit_args` makes the script's arguments)."""

    epoch: int
    seq: int
    events: tuple[tuple[int, bytes], ...]
    actors: tuple[tuple[str, bytes], ...]
    removed: tuple[str, ...]
    info: bytes
    meta: bytes
    wanted: str
    replies: tuple[tuple[str, bytes], ...]
    #: Every actor id in order, when the commit gives the order
    #: (:attr:`Commit.order <rollbridge.engine.model.Commit.order>`); else empty.
    order: tuple[str, ...]
    #: A digest of all of the above: the commit script knows a commit sent again.
    digest: str
    #: ``info`` in two: its fields up to the settings (what a commit seldom
    #: changes), then its epoch and seq.
    info_head: bytes
    info_tail: bytes
    #: The indexes among :attr:`events` of the undos and redos, by commas (the
    #: commit script keeps those apart too: :meth:`RedisStore.undos_after`).
    undos: str = ""


class Followed(NamedTuple):
    """What :meth:`RedisStore.follow` read: the table as stored and what a follower
    needs to take it (``Table(snapshot, ruleset, history, retained=retained)``)."""

    snapshot: TableSnapshot
    #: Packed events of the latest undo and redo entries, by seq (older ones are
    #: read from the log when an undo or redo needs them).
    history: dict[int, bytes]
    #: The seqs of the undo and redo entries whose events are in the retained log.
    retained: set[int]
    #: The idempotency keys of the stored replies in the window.
    keys: list[str]
    #: Every event after ``after`` up to the table's seq; None when some of them
    #: have left the log (as :meth:`RedisStore.events_after`).
    events: list[Event] | None


def _whole(result: Any) -> bool:
    """Whether the commit script answered ``{0, 'whole'}``: the commit, sent against
    the writer's last, is to be sent whole (nothing was written)."""
    return (
        isinstance(result, list) and len(result) == 2 and result[0] == 0 and result[1] == b"whole"
    )


def _final(reply: JSON) -> bool:
    """Whether a reply names the event its request made (an integer ``seq``)."""
    seq = reply.get("seq") if isinstance(reply, dict) else None
    return isinstance(seq, int) and not isinstance(seq, bool)


def _digest(fields: tuple[Any, ...]) -> str:
    """A digest of a commit's serialised fields: SHA-256 of their msgpack array
    (every part length-prefixed by msgpack itself, so no two commits' parts run
    together into the same bytes), its first 16 bytes in hex. SHA-256, not blake2b:
    with the CPU's SHA instructions it is 2.4x faster on a 5 KB commit here."""
    return hashlib.sha256(pack(fields)).hexdigest()[:32]


#: The map header of a table's info (seven fields, :meth:`TableInfo.to_dict`).
_INFO_HEADER = map_header(7)


def _info_parts(info: TableInfo) -> tuple[bytes, bytes]:
    """``pack(info.to_dict())`` in two — the fields up to the settings, then the
    epoch and seq — without copying the settings first (packing copies)."""
    head = pack(
        {
            "id": info.id,
            "name": info.name,
            "ruleset": info.ruleset,
            "ruleset_version": info.ruleset_version,
            "settings": info.settings,
        }
    )
    tail = pack({"epoch": info.epoch, "seq": info.seq})
    return _INFO_HEADER + head[1:], tail[1:]  # both fixmaps: one header byte


def _replies(commit: Commit) -> tuple[tuple[str, bytes], ...]:
    """A commit's replies as the store keeps them: each marked final or provisional,
    its bytes those the table packed when it staged the request
    (:attr:`~rollbridge.engine.model.Commit.packed_replies`), packed here only for a
    commit made without them."""
    staged = dict(commit.packed_replies) if commit.packed_replies is not None else {}
    return tuple(
        (key, (FINAL if _final(reply) else PROVISIONAL) + (staged.get(key) or pack(reply)))
        for key, reply in commit.replies.items()
    )


def prepare(commit: Commit) -> PreparedRedisCommit:
    """Serialise a commit now (on the thread that executed it).

    :raises StoreError: the commit holds something that cannot be stored.
    """
    try:
        meta = commit.meta
        history = sorted({int(s) for s in (*meta.get("undo", ()), *meta.get("redo", ()))})
        info_head, info_tail = _info_parts(commit.info)
        fields = (
            int(commit.info.epoch),
            int(commit.info.seq),
            tuple((int(e.seq), e.packed()) for e in commit.events),
            tuple((r.id, r.packed()) for r in commit.actors),
            tuple(commit.removed),
            info_head + info_tail,
            pack(meta),
            ",".join(map(str, history)),
            _replies(commit),
            tuple(commit.order or ()),
        )
        # without an order (nearly every commit), digested as before orders were
        # stored: a node of the version before knows the same commit by the same digest
        return PreparedRedisCommit(
            *fields,
            digest=_digest(fields if fields[-1] else fields[:-1]),
            info_head=info_head,
            info_tail=info_tail,
            undos=",".join(str(k) for k, e in enumerate(commit.events) if e.kind in UNDO_KINDS),
        )
    except Exception as exc:
        raise StoreError(f"the commit cannot be stored: {type(exc).__name__}: {exc}") from exc


def commit_args(
    keys: TableKeys, writer: str, p: PreparedRedisCommit, retain: int, last: Sent | None = None
) -> tuple[list[str], list[Any]]:
    """The ``KEYS`` and ``ARGV`` of the commit script for one prepared commit.

    ``last``: what this process's last commit to the table left (:class:`Sent`), or
    None. Given, of the same epoch, the commit is sent against it: the info's head
    and the meta each only when it differs from that commit's (else empty), and the
    script checks that the table holds what that commit left (else it answers
    ``whole``, writing nothing). Otherwise both are sent.
    """
    info_head, meta, base = p.info_head, p.meta, ""
    if last is not None and last.epoch == p.epoch:
        base = last.digest
        if info_head == last.info_head:
            info_head = b""
        if meta == last.meta:
            meta = b""
    args: list[Any] = [
        writer,
        p.epoch,
        p.seq,
        len(p.events),
        len(p.actors),
        len(p.removed),
        len(p.replies),
        info_head,
        meta,
        p.wanted,
        retain,
        reply_window(retain),
        keys.channel,
        p.digest,
        len(p.order),
        base,
        p.info_tail,
        p.undos,
    ]
    for pair in (*p.events, *p.actors):
        args += pair
    args += p.removed
    for pair in p.replies:
        args += pair
    args += p.order
    keys_ = [keys.info, keys.actors, keys.order, keys.log, keys.replies, keys.reply_seqs]
    return [*keys_, keys.owner, keys.commits, keys.undos], args


def _snapshot(info: bytes, meta: bytes, records: Sequence[bytes]) -> TableSnapshot:
    """A table's snapshot from its stored info, meta and actor records (in order),
    as ``LOAD`` and ``FOLLOW`` return them."""
    actors = {}
    for blob in records:
        data = unpack(blob)
        actors[data["id"]] = ActorRecord.from_dict(data, fresh=True)
    return TableSnapshot.from_meta(TableInfo.from_dict(unpack(info)), actors, unpack(meta))


#: The kinds ``undo`` and ``redo`` as packed: an event's bytes without either are
#: neither (:meth:`RedisStore.undos_after` decodes only those with one).
_UNDO_BYTES = (pack("undo"), pack("redo"))


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _shown(value: bytes | str) -> str:
    """A name Redis returned, shown in an error even when it is no UTF-8."""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _token(table_id: str, blob: bytes, key: str) -> TokenRecord:
    """A join token from its bytes at Redis ``key``. :raises StoreError: (``reason``
    ``damaged``, naming the table and the key) they are no token."""

    def read() -> TokenRecord:
        data = unpack(blob)
        return TokenRecord(data["id"], table_id, data["role"], data["name"], data["hash"],
                           data.get("created"))  # fmt: skip

    return redis_damaged.state(table_id, key, read)


def _admin(blob: bytes, key: str) -> AdminTokenRecord:
    """An admin token from its bytes at Redis ``key``. :raises StoreError: (``reason``
    ``damaged``, naming the key) they are no admin token."""

    def read() -> AdminTokenRecord:
        data = unpack(blob)
        return AdminTokenRecord(id=data["id"], name=data["name"], created=data["created"],
                                hash=data["hash"])  # fmt: skip

    return redis_damaged.admin(key, read)


class RedisStore:
    """Tables, actors, the retained event log, idempotency replies and tokens in
    a Redis server; see the module docstring for the commit script and keys.

    :param url: ``redis://HOST:PORT/DB`` (``rediss://`` for TLS, ``unix://`` for
        a socket), as ``redis.Redis.from_url`` reads it.
    :param retain: events kept per table for resume and undo.
    :param prefix: put before every key (``rb:``).
    :param writer: this process's id, compared with a table's ``owner`` key (the
        lease holder) by the commit script; None for a process that holds no lease.
    :param client: a ``redis.Redis`` to use instead of one made from ``url``
        (it must have ``decode_responses=False``); :meth:`close` closes it.
    :param sent_bytes: the most bytes of metas and info heads kept to send commits
        against (:class:`~rollbridge.stores.redis_sent.SentMemory`).
    :param option: where the operator gave ``url``, as the messages that say what
        to check name it: ``--redis (or $ROLLBRIDGE_REDIS)`` by default,
        ``migrate``'s ``--to`` (it reads no environment variable).
    :raises StoreError: the server does not answer.

    Every method may be called from any thread.
    """

    def __init__(
        self,
        url: str = "redis://127.0.0.1:6379/0",
        *,
        retain: int = DEFAULT_RETAIN,
        prefix: str = DEFAULT_PREFIX,
        writer: str | None = None,
        client: redis.Redis | None = None,
        sent_bytes: int = SENT_BYTES,
        option: Text | str | None = None,
    ) -> None:
        self.retain = retain
        #: Where the operator gave ``url``, as its messages name it.
        self.option = option or OPTION_OR_ENV()
        self.keys = RedisKeys(prefix)
        self.writer = writer
        #: Checks before commits that Redis still keeps them (:meth:`watch_durability`).
        self.durability: DurabilityWatch | None = None
        #: What this process's last commit to each table left (:class:`Sent`), within
        #: ``sent_bytes``: the next commit sends only what differs from it. A hint
        #: only — the commit script checks the table still holds it — dropped when
        #: the table is read again (a reload, a takeover), deleted, or a commit of it
        #: fails, and the least recently committed first when over budget.
        self.sent = SentMemory(sent_bytes)
        self._closed = False
        self._lock = threading.Lock()
        if client is None:
            check_database(url, self.option)
        try:
            self.client = client or redis.Redis.from_url(
                url, decode_responses=False, **CLIENT_TIMEOUTS
            )
        except ValueError as exc:  # a malformed URL (port, scheme, database): the
            # operator's input, named without any password it holds
            raise StoreError(
                CANNOT_OPEN(path=without_password(url), error=safe_error(str(exc), url)),
                details={"url": without_password(url)},
            ) from None
        self.where = f"redis {server_of(self.client.connection_pool.connection_kwargs)}"
        #: The number of the Redis database used (the URL's, else 0).
        self.database = int(self.client.connection_pool.connection_kwargs.get("db") or 0)
        self._scripts: dict[str, Script] = {
            name: self.client.register_script(getattr(lua, name)) for name in lua.__all__
        }
        try:
            self.client.ping()
        except redis.RedisError as exc:
            self.client.close()
            # unreachable, a password missing or refused, no Redis there: say what to check
            kwargs = self.client.connection_pool.connection_kwargs
            given = bool(kwargs.get("password") or kwargs.get("username"))
            tls = issubclass(self.client.connection_pool.connection_class, redis.SSLConnection)
            address = address_of(kwargs)
            why = why_not_opened(exc, password=given, tls=tls, option=self.option,
                                 address=address, database=self.database)  # fmt: skip
            raise StoreError(CANNOT_OPEN(path=self.where, error=why)) from exc
        except TypeError as exc:  # a query's key redis-py hands its connection unread
            self.client.close()
            why = UNKNOWN_SETTING(error=safe_error(str(exc), url), option=self.option)
            raise StoreError(CANNOT_OPEN(path=self.where, error=why)) from None

    def __repr__(self) -> str:
        return f"RedisStore({self.where!r}, prefix={self.keys.prefix!r}, retain={self.retain})"

    def __enter__(self) -> RedisStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- plumbing -----------------------------------------------------------------

    @contextmanager
    def _io(self, *, reading: bool = False) -> Iterator[None]:
        """Errors other than rollbridge's become :class:`StoreError`; ``reading``: the
        calls only read, and the error says that nothing could be read (not what became
        of a change: there was none)."""
        if self._closed:
            raise StoreError(f"{self!r} is closed")
        try:
            yield
        except RollbridgeError:
            raise
        except Exception as exc:
            raise self._error(exc, reading=reading) from exc

    def error_of(self, exc: BaseException) -> StoreError:
        """What a redis-py error raised talking to this store's Redis (by another
        client: the cluster's asyncio one) is, as the store would raise it."""
        return self._error(exc)

    def _error(self, exc: BaseException, *, reading: bool = False) -> StoreError:
        """A redis-py error as a :class:`StoreError` that says what to do: a
        :class:`StoreUnavailable` when Redis refuses every write (or answers
        nothing), not this one alone. ``reading``: of a call that only reads, said as
        such ("nothing could be read"), not as a change's fate."""
        found = cause_of(exc)
        if found is READ_ONLY_CAUSE:
            return StoreUnavailable(
                READ_ONLY(where=self.where, error=str(exc), option=self.option),
                details={"reason": "read_only"},
            )
        if reading:
            nothing = "nothing could be read"
        elif found.reason == "unreachable":  # no answer: a change may have been applied
            nothing = (
                "nothing is acknowledged (a change it got before it stopped answering "
                "shows once the table is read again)"
            )
        else:
            nothing = "nothing was written"
        option = self.option.render() if isinstance(self.option, Text) else self.option
        said = (
            f"{self.where} {found.did}: {nothing}; {found.check_in(option)} "
            f"({type(exc).__name__}: {redis_words(exc)})"
        )
        if found.reason is None:
            return StoreError(said)
        return StoreUnavailable(said, details={"reason": found.reason})

    def _run(self, name: str, keys: Sequence[str], args: Sequence[Any] = ()) -> Any:
        with self._io():
            try:
                return self._scripts[name](keys=list(keys), args=list(args))
            except redis.ResponseError as exc:
                self._check_numbers(keys, exc)
                raise

    def _check_numbers(self, keys: Sequence[str], exc: BaseException) -> None:
        """After a script of ``keys`` failed with ``exc``: a table's ``info`` among
        them holding a damaged number is said so (a script's ``tonumber`` of it is
        nil, and Redis answers an error that reads as refusing the script).

        :raises StoreError: (``reason`` ``damaged``, naming the table and the key)."""
        for key in keys:
            table_id = self.keys.table_of(key, "info")
            if table_id is None:
                continue
            try:
                values = self.client.hmget(key, list(redis_damaged.NUMERIC))
            except redis.RedisError:
                return  # (the error said stands)
            found = redis_damaged.numbers(table_id, key, values)
            if found is not None:
                raise found from exc

    def _call(self, fn: Callable[[], T], *, reading: bool = False) -> T:
        with self._io(reading=reading):
            return fn()

    def call(self, fn: Callable[[], T]) -> T:
        """``fn()``, calls on :attr:`client`, failing as this store's own calls do: a
        Redis that fails raises :class:`StoreError` saying what to do, never redis-py's
        exception. :raises StoreError:"""
        return self._call(fn)

    def _token_keys(self, table_id: str) -> list[str]:
        k = self.keys.table(table_id)
        return [k.info, k.tokens, k.token_by_hash, k.token_hash_of, k.token_order]

    # -- tables -------------------------------------------------------------------

    def create_table(self, info: TableInfo, tokens: list[TokenRecord]) -> None:
        """Store a new table (seq 0, no actors) with its first tokens.

        :raises Conflict: if a table with this id exists (nothing is replaced).
        """
        try:
            args: list[Any] = [
                info.id,
                pack(info.to_dict()),
                pack(TableSnapshot(info, {}).meta()),
                int(info.epoch),
                int(info.seq),
                repr(time.time()),
            ]
        except NotPlain as exc:
            raise StoreError(f"table {info.id!r} cannot be stored: {exc}") from exc
        for record in tokens:
            args += [record.id, self._pack_token(record), record.hash]
        keys = [
            *self._token_keys(info.id),
            self.keys.glob("tables"),
            self.keys.glob("counter"),
        ]
        if not self._run("CREATE_TABLE", keys, args):
            raise Conflict(TABLE_EXISTS(table=repr(info.id)), details={"table": info.id})

    def delete_table(self, table_id: str) -> None:
        """Remove a table and everything of it (its lease too, and the note of a lease
        let go: ``let_go``, which else stayed a day). :raises UnknownTable:"""
        table = self.keys.table(table_id)
        keys = [*table.all(), table.let_go, self.keys.glob("tables")]
        self.sent.forget(table_id)
        if not self._run("DELETE_TABLE", keys, [table_id]):
            raise unknown_table(table_id)

    def claim_first_start(self) -> bool:
        """Whether this is the first ``serve`` of this Redis (under this prefix), the
        one that makes the demo table: nothing of rollbridge's was there — never
        served, no table, none ever made (nor an admin token). Marks it served either
        way (the ``served`` key), in one script: a Redis whose tables were all deleted
        is no first start, and of processes starting at once on an empty one, one is.
        """
        keys = [self.keys.glob(kind) for kind in ("served", "tables", "counter")]
        return bool(self._run("FIRST_START", keys))

    def import_table(
        self,
        snapshot: TableSnapshot,
        events: Sequence[Event],
        replies: Sequence[tuple[str, JSON, int]],
        tokens: Sequence[TokenRecord],
        *,
        created: float | None = None,
    ) -> None:
        """Write a whole table moved from another store (``rollbridge migrate``) in
        one script: its snapshot (info, actors in order, meta), its retained
        ``events`` (written as the bytes :meth:`Event.packed` gives), its
        ``replies`` (idempotency key, reply, the seq of the commit that stored
        it) and its join ``tokens`` in order. The table goes last in the index. Its
        undos and redos go to its ``undos`` set too, which then holds every one of
        the log (:meth:`undos_after` reads no event of the log).

        :raises Conflict: if a table with this id exists (nothing is written).
        :raises StoreError: the table cannot be stored, or Redis refused it.
        """
        info = snapshot.info
        meta = snapshot.meta()
        history = sorted({int(s) for s in [*meta["undo"], *meta["redo"]]})
        try:
            args: list[Any] = [
                info.id,
                pack(info.to_dict()),
                pack(meta),
                int(info.epoch),
                int(info.seq),
                ",".join(map(str, history)),
                repr(time.time() if created is None else float(created)),
                len(snapshot.actors),
                len(events),
                len(replies),
                len(tokens),
                ",".join(str(k) for k, e in enumerate(events) if e.kind in UNDO_KINDS),
            ]
            for actor_id, record in snapshot.actors.items():
                args += [actor_id, record.packed()]
            for event in events:
                args += [int(event.seq), event.packed()]
            for key, reply, seq in replies:
                args += [key, (FINAL if _final(reply) else PROVISIONAL) + pack(reply), int(seq)]
        except NotPlain as exc:
            raise StoreError(f"table {info.id!r} cannot be stored: {exc}") from exc
        for record in tokens:
            args += [record.id, self._pack_token(record), record.hash]
        k = self.keys.table(info.id)
        keys = [k.info, k.actors, k.order, k.log, k.replies, k.reply_seqs,
                *self._token_keys(info.id)[1:], self.keys.glob("tables"),
                self.keys.glob("counter"), k.undos]  # fmt: skip
        if not self._run("IMPORT_TABLE", keys, args):
            raise Conflict(TABLE_EXISTS(table=repr(info.id)), details={"table": info.id})

    def table_ids(self) -> list[str]:
        """The id of every table, oldest first. :raises StoreError: (``reason``
        ``damaged``, naming the key) one is no UTF-8 text (written by another program)."""
        key = self.keys.glob("tables")
        ids = self._call(lambda: self.client.zrange(key, 0, -1), reading=True)
        return [redis_damaged.state(_shown(i), key, lambda i=i: _text(i)) for i in ids]

    def tables(self) -> list[TableInfo]:
        """Every table as its latest commit left it, oldest first."""
        ids = self.table_ids()
        with self._io():
            pipe = self.client.pipeline(transaction=False)
            for table_id in ids:
                pipe.hget(self.keys.table(table_id).info, "info")
            blobs = pipe.execute()
        return [
            redis_damaged.state(
                i, self.keys.table(i).info, lambda b=b: TableInfo.from_dict(unpack(b))
            )
            for i, b in zip(ids, blobs, strict=True)
            if b is not None
        ]

    def load(self, table_id: str) -> tuple[TableSnapshot, dict[int, Event]]:
        """A table's state and the retained events its undo/redo stacks name, read
        in one script (a whole commit, never half of one).

        :raises UnknownTable:
        """
        k = self.keys.table(table_id)
        self.sent.forget(table_id)  # read again: the next commit sends everything
        found = self._run("LOAD", [k.info, k.actors, k.order, k.log])
        if not found:
            raise unknown_table(table_id)
        info_blob, meta_blob, records, events = found
        snapshot = self._snapshot(table_id, info_blob, meta_blob, records)
        history = {}
        for event in redis_damaged.events(table_id, k.log, events):
            if event.seq > snapshot.info.seq - self.retain:
                history[event.seq] = event
        return snapshot, history

    def follow(
        self,
        table_id: str,
        after: int,
        known: dict[int, bytes] | None = None,
        epoch: int | None = None,
    ) -> Followed:
        """What a follower's sync needs, in one atomic read (the
        :data:`~rollbridge.stores.redis_scripts.FOLLOW` script): the table as
        :meth:`load` reads it, but the undo and redo entries' events only for the
        latest ``HISTORY_IN_MEMORY`` of each stack (for the others, only whether the
        log still holds them), the events after ``after`` (:meth:`events_after`) and
        the reply keys (:meth:`reply_keys`).

        ``known`` holds packed events the caller has (its recent history, by seq),
        valid in ``epoch`` only: in another epoch they are ignored. A recent event
        that is neither known nor among the events after ``after`` is read from the
        log then (one ``EVENT`` each, usually none); one gone meanwhile is left out
        of :attr:`Followed.retained`.

        :raises UnknownTable:
        """
        k = self.keys.table(table_id)
        retain = max(0, self.retain)
        self.sent.forget(table_id)  # read again: the next commit sends everything
        found = self._run(
            "FOLLOW",
            [k.info, k.actors, k.order, k.log, k.reply_seqs],
            [int(after), retain, reply_window(self.retain)],
        )
        if not found:
            raise unknown_table(table_id)
        info_blob, meta_blob, records, present, latest, blobs, reply_keys = found
        snapshot = self._snapshot(table_id, info_blob, meta_blob, records)
        info = snapshot.info
        floor = info.seq - self.retain
        retained = {s for s in map(int, present) if s > floor}  # as load's history
        events = self._after(table_id, blobs, after, int(latest))
        logged = {e.seq: e.packed() for e in events or ()}
        if events is not None:
            events = [e for e in events if e.seq <= info.seq]
        if known is None or epoch != info.epoch:
            known = {}
        undo = [s for s in snapshot.undo if s in retained]
        redo = [s for s in snapshot.redo if s in retained]
        history: dict[int, bytes] = {}
        for seq in {*undo[-HISTORY_IN_MEMORY:], *redo[-HISTORY_IN_MEMORY:]}:
            blob = known.get(seq) or logged.get(seq)
            if blob is None:
                got = self._run("EVENT", [k.info, k.log], [seq])
                if got and got[1] and int(got[0]) - self.retain < seq <= int(got[0]):
                    blob = bytes(got[1])
            if blob is None:
                retained.discard(seq)  # gone from the log since FOLLOW read it
            else:
                history[seq] = blob
        keys = [_text(key) for key in reply_keys]
        return Followed(snapshot, history, retained, keys, events)

    def events_after(self, table_id: str, seq: int, until: int | None = None) -> list[Event] | None:
        """Every event with a seq above ``seq`` — and at most ``until``, when given:
        a bounded range of the log's sorted set — in order; ``[]`` when ``seq`` is
        the latest (or ``until <= seq``); None if some of them have left the
        retained log.

        :raises UnknownTable:
        """
        return self._read_after(table_id, seq, until, Event.unpacked)

    def changes_after(
        self, table_id: str, seq: int, until: int | None = None
    ) -> list[Event] | None:
        """:meth:`events_after`, each event with its actors' and the table's changes
        alone (:mod:`~rollbridge.stores.actor_changes`: the rest of its stored bytes
        is stepped over, not decoded): what ``state`` at an earlier seq walks back
        through.

        :raises UnknownTable:
        """
        return self._read_after(table_id, seq, until, event_changes)

    def _read_after(
        self, table_id: str, seq: int, until: int | None, decode: Callable[[bytes], Event]
    ) -> list[Event] | None:
        """The events after ``seq`` (:meth:`events_after`), each read by ``decode``."""
        k = self.keys.table(table_id)
        args = [int(seq), max(0, self.retain)]
        if until is not None:
            args.append(int(until))
        found = self._run("EVENTS_AFTER", [k.info, k.log], args)
        if not found:
            raise unknown_table(table_id)
        return self._after(table_id, found[1:], seq, int(found[0]), until, decode)

    def undos_after(self, table_id: str, seq: int) -> list[Event]:
        """The undos and redos of the retained log with a seq above ``seq``, in
        order, in one atomic read (:data:`~rollbridge.stores.redis_scripts.UNDOS_AFTER`):
        from the table's ``undos`` set, which the commit script fills, so the other
        events are neither sent nor decoded. The part of a log older than the set (a
        table last written before it was kept, or by a process of that version) comes
        from the log, and only its events whose bytes name an undo or redo are
        decoded.

        :raises UnknownTable:
        """
        k = self.keys.table(table_id)
        found = self._run("UNDOS_AFTER", [k.info, k.log, k.undos], [int(seq), max(0, self.retain)])
        if not found:
            raise unknown_table(table_id)
        # the set's: sifted by bytes when a commit filled it from a log an older
        # version wrote, so of the kinds alone
        listed = redis_damaged.events(table_id, k.undos, found[1])
        events = {e.seq: e for e in listed if e.kind in UNDO_KINDS}
        # else no undo nor redo
        older = [b for b in found[2] if _UNDO_BYTES[0] in b or _UNDO_BYTES[1] in b]
        for event in redis_damaged.events(table_id, k.log, older):
            if event.kind in UNDO_KINDS:
                events[event.seq] = event
        return [events[s] for s in sorted(events)]

    def follow_log(self, table_id: str, after: int) -> LogTail:
        """What a follower that applies the events to its table in memory reads
        (:meth:`Table.follow <rollbridge.engine.table.Table.follow>`), in one atomic
        read (the :data:`~rollbridge.stores.redis_scripts.FOLLOW_LOG` script): the
        table's epoch and seq, the lowest seq an undo or redo entry may have and still
        be in the log, and the events after ``after`` (:meth:`events_after`) — not the
        table itself, nor the reply keys.

        :raises UnknownTable:
        """
        k = self.keys.table(table_id)
        found = self._run("FOLLOW_LOG", [k.info, k.log], [int(after), max(0, self.retain)])
        if not found:
            raise unknown_table(table_id)
        epoch, latest, first, blobs = int(found[0]), int(found[1]), found[2], found[3]
        kept_from = max(latest + 1 if first is None else int(first), latest - self.retain + 1)
        return LogTail(epoch, latest, kept_from, self._after(table_id, blobs, after, latest))

    def _snapshot(
        self, table_id: str, info: bytes, meta: bytes, records: Sequence[bytes]
    ) -> TableSnapshot:
        """:func:`_snapshot` of table ``table_id``. :raises StoreError: (``reason``
        ``damaged``) its stored state cannot be unpacked."""
        key = self.keys.table(table_id).info
        return redis_damaged.state(table_id, key, lambda: _snapshot(info, meta, records))

    def _after(
        self,
        table_id: str,
        blobs: Sequence[bytes],
        after: int,
        latest: int,
        until: int | None = None,
        decode: Callable[[bytes], Event] = Event.unpacked,
    ) -> list[Event] | None:
        """The events after ``after`` (up to ``until``, when given) from table
        ``table_id``'s log's ``blobs`` (what a script read after it, the table being
        at ``latest``), each read by ``decode``: ``[]`` when ``after`` is the latest
        (or ``until``), None when some of them have left the log. :raises StoreError:
        (``reason`` ``damaged``) one cannot be unpacked."""
        last = latest if until is None else min(until, latest)
        if after >= last:
            return []
        if after < latest - self.retain:
            return None
        events = redis_damaged.events(table_id, self.keys.table(table_id).log, blobs, decode)
        if [e.seq for e in events] != list(range(after + 1, last + 1)):
            return None
        return events

    def event(self, table_id: str, seq: int) -> Event | None:
        """One retained event, or None if it is not (or no longer) in the log."""
        k = self.keys.table(table_id)
        found = self._run("EVENT", [k.info, k.log], [int(seq)])
        if not found or not found[1]:
            return None
        latest = int(found[0])
        if not latest - self.retain < seq <= latest:
            return None
        return redis_damaged.events(table_id, k.log, [found[1]])[0]

    def reply(self, table_id: str, key: str) -> JSON | None:
        """The stored reply to the request with this idempotency key (kept for
        :func:`~rollbridge.stores.base.reply_window` seqs).

        :raises UnknownTable:
        """
        k = self.keys.table(table_id)
        found = self._run("REPLY", [k.info, k.replies, k.reply_seqs], [key])
        if not found:
            raise unknown_table(table_id)
        latest, blob, at = found
        if not blob or not at or float(at) <= latest - reply_window(self.retain):
            return None
        try:
            return unpack(blob[1:])
        except Exception as exc:
            raise redis_damaged.damaged(table_id, k.replies, exc, request=key) from exc

    def reply_keys(self, table_id: str) -> list[str]:
        """The idempotency key of every stored reply of a table. :raises UnknownTable:"""
        k = self.keys.table(table_id)
        found = self._run("REPLY_KEYS", [k.info, k.reply_seqs], [reply_window(self.retain)])
        if found is None or found is False:
            raise unknown_table(table_id)
        return [_text(key) for key in found]

    # -- commits --------------------------------------------------------------------

    def prepare(self, commit: Commit) -> PreparedRedisCommit:
        """Serialise a commit now, to write it later. :raises StoreError:"""
        return prepare(commit)

    def commit(self, table_id: str, commit: Commit | PreparedRedisCommit) -> None:
        """Write a commit atomically (one script), durable when this returns (with
        ``appendfsync always``).

        :raises UnknownTable: CommitRefused: StoreError: having written nothing.
        """
        self.commit_many([(table_id, commit)])

    def commit_many(self, items: Sequence[tuple[str, Commit | PreparedRedisCommit]]) -> None:
        """Write several commits in one round trip: each commit's script, pipelined.

        Each script is atomic, the batch is not: when one commit fails (say the
        second), the commits before it are written and durable, it wrote nothing,
        the later commits of its table fail their sequence check and write nothing,
        and the later commits of other tables are written. This raises the first
        failure; a :class:`StoreUnavailable` (Redis out of memory from the second
        commit on, say) says in ``written`` how many commits before it were written,
        which the server's writer acknowledges. Sending the batch again (as the
        server's writer does, one by one) is safe: a commit already written is
        recognised and not written twice.

        :raises UnknownTable: CommitRefused: StoreError:
        """
        prepared = [(t, c if isinstance(c, PreparedRedisCommit) else prepare(c)) for t, c in items]
        if not prepared:
            return
        script = self._scripts["COMMIT"]
        with self._io():
            if self.durability is not None:
                self.durability.check()
            if len(prepared) == 1:
                try:
                    results = [self._commit_one(*prepared[0])]
                except BaseException:
                    self.sent.forget(prepared[0][0])
                    raise
            else:
                # each sent against the one before it of its table (as if written)
                sent: dict[str, Sent] = {}  # the batch's own, before the memory's
                calls = []
                for table_id, p in prepared:
                    last = sent[table_id] if table_id in sent else self.sent.get(table_id)
                    calls.append(self._args(table_id, p, last))
                    sent[table_id] = Sent.of(p)
                results = self._evalsha_batch(script.sha, calls)
                again: set[str] = set()  # tables whose commits are sent again, one by one
                for n, ((table_id, p), result) in enumerate(zip(prepared, results, strict=True)):
                    if table_id in again or _whole(result):
                        # a commit the script wants whole, and the later ones of its
                        # table (refused behind it); not run (a restarted Redis, SCRIPT
                        # FLUSH): sent again, in order, loading the script if need be
                        again.add(table_id)
                    elif not isinstance(result, redis.exceptions.NoScriptError):
                        continue
                    try:
                        results[n] = self._commit_one(table_id, p)
                    except redis.RedisError as exc:  # raised below, in order
                        results[n] = exc
        for n, ((table_id, p), result) in enumerate(zip(prepared, results, strict=True)):
            info = [self.keys.table(table_id).info]
            if isinstance(result, Exception):
                self.sent.forget(table_id)
                with self._io():
                    self._check_numbers(info, result)
                error = self._error(result)
                if isinstance(error, StoreUnavailable):
                    error.written = n  # the commits before it are written (and durable)
                raise error from result
            if int(result[0]) == 1:
                self.sent.remember(table_id, Sent.of(p))
                continue
            self.sent.forget(table_id)  # written before (by whom since?), or refused
            try:
                self._check_result(table_id, p, result)
            except (IndexError, ValueError, TypeError, CommitRefused) as exc:  # an answer
                # cut short by a nil its table's info read as a number, or a seq refused
                # against an epoch or seq read from ``inf`` or ``nan`` (Lua reads them)
                with self._io():
                    self._check_numbers(info, exc)
                raise

    def _args(
        self, table_id: str, p: PreparedRedisCommit, last: Sent | None
    ) -> tuple[list[str], list[Any]]:
        return commit_args(self.keys.table(table_id), self.writer or "", p, self.retain, last)

    def _commit_one(self, table_id: str, p: PreparedRedisCommit) -> Any:
        """One commit's script: against this process's last commit to the table when
        it knows one, and whole when the script answers that the table holds
        something else (:func:`commit_args`). The script's answer."""
        script = self._scripts["COMMIT"]
        last = self.sent.get(table_id)
        keys, args = self._args(table_id, p, last)
        try:
            result = script(keys=keys, args=args)
        except redis.ResponseError as exc:
            self._check_numbers(keys[:1], exc)
            raise
        if last is not None and _whole(result):
            self.sent.forget(table_id)
            keys, args = self._args(table_id, p, None)
            result = script(keys=keys, args=args)
        if isinstance(result, list) and result[0] == 1:
            # the next of a batch sent again goes against it
            self.sent.remember(table_id, Sent.of(p))
        return result

    def _evalsha_batch(self, sha: str, calls: list[tuple[list[str], list[Any]]]) -> list[Any]:
        """``EVALSHA`` of each ``(keys, args)``, written to one connection in one
        ``sendall`` and answered in order; an error reply (``NOSCRIPT``, say) stands
        in the list in its call's place.

        Not redis-py's pipeline: it writes a batch in pieces of 6 KB, one system call
        each (so Redis may read, run and fsync a batch in several turns), and queues
        ``EVALSHA`` behind a ``SCRIPT EXISTS`` round trip when given a ``Script``.
        Sending a batch again is safe (a commit written already is recognised), so a
        connection that fails is dropped and the batch sent once more on a new one,
        as redis-py retries a pipeline.
        """
        pool = self.client.connection_pool
        for attempt in (1, 2):
            conn = pool.get_connection()
            try:
                data = b"".join(
                    chunk
                    for keys, args in calls
                    for chunk in conn.pack_command("EVALSHA", sha, len(keys), *keys, *args)
                )
                conn.send_packed_command([data])  # a list of one: one sendall
                results: list[Any] = []
                for _ in calls:
                    try:
                        results.append(conn.read_response())
                    except redis.exceptions.ResponseError as exc:
                        results.append(exc)
                return results
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
                conn.disconnect()
                if attempt == 2:
                    raise
            except BaseException:
                conn.disconnect()  # what it has read is unknown: never reuse it
                raise
            finally:
                pool.release(conn)
        raise AssertionError("unreachable")

    @staticmethod
    def _check_result(table_id: str, p: PreparedRedisCommit, result: list[Any]) -> None:
        if int(result[0]) in (1, 2):
            return
        reason = _text(result[1])
        if reason == "unknown":
            raise unknown_table(table_id)
        if reason == "seq":
            epoch, seq = int(result[2]), int(result[3])
            raise CommitRefused(
                f"table {table_id!r} is at epoch {epoch} seq {seq} in the store, but the "
                f"commit brings events {[s for s, _ in p.events]} and seq {p.seq}: another "
                "process may have written to this table; reload it",
                details={"table": table_id, "reason": "seq", "stored_epoch": epoch,
                         "stored_seq": seq, "commit_seq": p.seq},
            )  # fmt: skip
        if reason == "reply":
            key = _text(result[2])
            raise CommitRefused(
                f"table {table_id!r}: the request {key!r} was answered already; reload it",
                details={"table": table_id, "reason": "reply", "key": key},
            )
        if reason == "whole":  # never asked of a commit sent whole
            raise StoreError(f"table {table_id!r}: the commit script refused a whole commit")
        owner = _text(result[2])
        raise CommitRefused(
            f"table {table_id!r} is held by {owner!r}, not by this writer: reload it",
            details={"table": table_id, "reason": "owner", "owner": owner},
        )

    # -- fencing --------------------------------------------------------------------

    def fence(self, table_id: str, epoch: int, seq: int) -> Fenced:
        """Move a table Redis holds behind ``(epoch, seq)`` — a point known to have been
        committed — to a new epoch (:func:`rollbridge.stores.redis_fence.fence`; a
        :class:`~rollbridge.stores.redis_fence.Fenced`). :raises UnknownTable: StoreError:"""
        from rollbridge.stores.redis_fence import fence

        return fence(self, table_id, epoch, seq)

    # -- tokens ---------------------------------------------------------------------

    @staticmethod
    def _pack_token(record: TokenRecord) -> bytes:
        return pack({"id": record.id, "role": record.role, "name": record.name,
                     "hash": record.hash, "created": record.created})  # fmt: skip

    def add_token(self, record: TokenRecord) -> None:
        """Store a token record (its hash only). :raises UnknownTable:"""
        args = [record.id, self._pack_token(record), record.hash]
        if not self._run("ADD_TOKEN", self._token_keys(record.table), args):
            raise unknown_table(record.table)

    def find_token(self, table_id: str, token_hash: str) -> TokenRecord | None:
        """The token of this table with this hash (None for an unknown table)."""
        k = self.keys.table(table_id)
        blob = self._run("FIND_TOKEN", [k.tokens, k.token_by_hash], [token_hash])
        if not blob:
            return None
        return _token(table_id, blob, k.tokens)

    def list_tokens(self, table_id: str) -> list[TokenRecord]:
        """Every token of a table, oldest first. :raises UnknownTable:"""
        k = self.keys.table(table_id)
        blobs = self._run("LIST_TOKENS", [k.info, k.tokens, k.token_order])
        if blobs is None:
            raise unknown_table(table_id)
        return [_token(table_id, b, k.tokens) for b in blobs if b is not None]

    def revoke_token(self, table_id: str, token_id: str) -> bool:
        """Remove a token; whether it existed. :raises UnknownTable:"""
        done = int(self._run("REVOKE_TOKEN", self._token_keys(table_id), [token_id]))
        if done < 0:
            raise unknown_table(table_id)
        return done == 1

    def token_ids(self) -> set[str]:
        """The id of every token of every table (one round trip after the index)."""
        ids = self.table_ids()
        with self._io(reading=True):
            pipe = self.client.pipeline(transaction=False)
            for table_id in ids:
                pipe.hkeys(self.keys.table(table_id).tokens)
            found = pipe.execute()
        return {_text(i) for keys in found for i in keys}

    # -- admin tokens ---------------------------------------------------------------

    def _admin_keys(self) -> list[str]:
        g = self.keys.glob
        return [g("admin_tokens"), g("admin_by_hash"), g("admin_hash_of"), g("admin_order")]

    def add_admin_token(self, record: AdminTokenRecord) -> None:
        """Store an admin token record (its hash only)."""
        blob = pack({"id": record.id, "name": record.name, "created": record.created,
                     "hash": record.hash})  # fmt: skip
        keys = [*self._admin_keys(), self.keys.glob("counter")]
        self._run("ADD_ADMIN_TOKEN", keys, [record.id, blob, record.hash])

    def find_admin_token(self, token_hash: str) -> AdminTokenRecord | None:
        """The admin token with this hash."""
        blob = self._run("FIND_ADMIN_TOKEN", self._admin_keys()[:2], [token_hash])
        return _admin(blob, self._admin_keys()[0]) if blob else None

    def list_admin_tokens(self) -> list[AdminTokenRecord]:
        """Every admin token, oldest first."""
        keys = self._admin_keys()
        blobs = self._run("LIST_ADMIN_TOKENS", [keys[0], keys[3]])
        records = [_admin(b, keys[0]) for b in blobs if b is not None]
        return sorted(records, key=lambda r: r.created)  # stable: ties keep their order

    def revoke_admin_token(self, token_id: str) -> bool:
        """Remove an admin token; whether it existed."""
        return int(self._run("REVOKE_ADMIN_TOKEN", self._admin_keys(), [token_id])) == 1

    # -- the rest -------------------------------------------------------------------

    def check_durability(self) -> list[str]:
        """The problems of this store's server, in English: :func:`check_durability`."""
        return check_durability(self.client)

    def watch_durability(self) -> None:
        """From now on refuse commits while the server's settings would lose them
        (:class:`~rollbridge.stores.redis_durability.DurabilityWatch`): for a server
        found durable, whose settings an operator may change while it serves."""
        self.durability = DurabilityWatch(self.client, self.where)

    def dice_secret(self) -> bytes:
        """The 32-byte secret of verifiable dice (:mod:`rollbridge.dice.verifiable`),
        made once (``SET NX``) and shared by every process on this Redis, so their
        seeds agree; durable with the rest under AOF. :raises StoreError:"""
        key = self.keys.glob("dice_key")
        self._call(lambda: self.client.set(key, os.urandom(32), nx=True))
        return bytes(self._call(lambda: self.client.get(key)))

    def stored_dice_secret(self) -> bytes | None:
        """The secret of verifiable dice this Redis holds, or None: never makes one
        (``rollbridge migrate`` compares it with the one it moves)."""
        key = self.keys.glob("dice_key")
        found = self._call(lambda: self.client.get(key))
        return None if found is None else bytes(found)

    # -- what a move reads (rollbridge migrate back to SQLite) ---------------------------

    def process_claims(self) -> tuple[dict[str, bytes], int]:
        """The claims of the ``serve --redis`` processes on this Redis (their key
        ``{prefix}processes``: a process's id, as text, to its claim as it wrote it,
        ``UNTIL_MS|SETTINGS``; :mod:`rollbridge.server.cluster_peers`), and Redis's
        clock when they were read (ms), read together. Only reads.

        :raises StoreError:"""
        key = self.keys.glob("processes")  # the cluster's peers_key

        def read() -> list[Any]:
            with self.client.pipeline(transaction=True) as pipe:
                return pipe.hgetall(key).time().execute()

        claims, (seconds, micro) = self._call(read, reading=True)
        return (
            {_shown(node): bytes(value) for node, value in claims.items()},
            int(seconds) * 1000 + int(micro) // 1000,
        )

    def table_created(self, table_id: str) -> float | None:
        """When table ``table_id`` was created (its ``info``'s ``created``, a Unix
        time), or None where Redis holds none, or none that reads as a number (an
        older rollbridge's table). Only reads.

        :raises StoreError: (``reason`` ``damaged``, naming the table and the key) a
            time that is no finite number (``inf``, ``nan``)."""
        key = self.keys.table(table_id).info
        created = self._call(lambda: self.client.hget(key, "created"), reading=True)
        try:
            when = None if created is None else float(created)
        except ValueError:
            return None
        if when is not None and not math.isfinite(when):
            raise redis_damaged.damaged(table_id, key, ValueError(f"created {when}"))
        return when

    def reply_seqs(self, table_id: str) -> dict[str, int]:
        """The seq of the commit that stored each of table ``table_id``'s replies, by
        idempotency key (its place in the reply window). Only reads.

        :raises StoreError: (``reason`` ``damaged``, naming the table, the key and
            the request) a score that is no seq a commit gave."""
        key = self.keys.table(table_id).reply_seqs
        found = self._call(lambda: self.client.zrange(key, 0, -1, withscores=True), reading=True)
        seqs = {}
        for request, score in found:
            if not (float(score).is_integer() and 0 <= score < 2**63):
                error = ValueError(f"seq {score}")
                raise redis_damaged.damaged(table_id, key, error, request=_shown(request))
            seqs[_shown(request)] = int(score)
        return seqs

    def adopt_dice_secret(self, secret: bytes) -> bytes:
        """Keep ``secret`` as the secret of verifiable dice unless Redis holds one
        already (``SET NX``); returns the one Redis holds now. :raises StoreError:"""
        key = self.keys.glob("dice_key")
        self._call(lambda: self.client.set(key, bytes(secret), nx=True))
        return bytes(self._call(lambda: self.client.get(key)))

    def probe_write(self) -> None:
        """A ``SET`` of the ``probe`` key (expiring in a minute), over a new
        connection: a write, which a full Redis (``noeviction``) or one that cannot
        persist refuses as it would a commit, and a Redis whose password changed
        refuses at once. Over a connection of the pool, made before the password was
        rotated (``CONFIG SET requirepass``, ``ACL SETUSER``) and still authenticated,
        it was written and ended the outage while every new connection was refused.
        :raises StoreError:"""
        key = self.keys.glob("probe")
        self._call(lambda: self._on_a_new_connection("SET", key, b"1", "PX", 60_000))

    def probe_read(self) -> None:
        """One ``PING`` over a new connection, as :meth:`probe_write` writes: the
        server tries it while only reads fail. :raises StoreError:"""
        self._call(lambda: self._on_a_new_connection("PING"), reading=True)

    def _on_a_new_connection(self, *command: Any) -> Any:
        """``command``'s answer over a connection made for it (the password, the
        database and TLS of the pool's own), closed after: what a new connection
        meets now, not what one made earlier still may. Bounded by the client's
        timeouts, at most :data:`CLIENT_TIMEOUTS`' (a URL's longer or unset one too):
        a Redis that accepts and never answers fails it within seconds."""
        pool = self.client.connection_pool
        kwargs = dict(pool.connection_kwargs)
        for name, most in CLIENT_TIMEOUTS.items():
            kwargs[name] = min(kwargs.get(name) or most, most)
        connection = pool.connection_class(**kwargs)
        try:
            connection.send_command(*command)
            return connection.read_response()
        finally:
            connection.disconnect()

    def ping(self) -> None:
        """One ``PING`` over the pool's connections: proves the server answers
        (``/readyz``). :raises StoreError:"""
        self._call(self.client.ping, reading=True)

    def close(self) -> None:
        """Close the client's connections. Idempotent; later calls raise StoreError."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self.client.close()
