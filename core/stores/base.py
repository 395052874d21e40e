"""The store interface: what every store of tables implements.

A store keeps tables, their actors and meta, the event log (the last ``retain``
events of each table), idempotency replies, join tokens and the server's admin
tokens.
:meth:`Store.commit` writes one :class:`~rollbridge.engine.model.Commit`
atomically: all of it or nothing. :class:`~rollbridge.stores.memory.MemoryStore`
is the reference, :class:`~rollbridge.stores.sqlite.SQLiteStore` the embedded
default; ``tests/stores/test_store_contract.py`` is one suite for every store.

A commit's events and actor records arrive packed already
(:meth:`~rollbridge.engine.model.Event.packed`,
:meth:`~rollbridge.engine.model.ActorRecord.packed`): a store writes those bytes
rather than serialising them again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple, Protocol, TypeVar

from rollbridge.exceptions import UnknownTable
from rollbridge.text import Messages, Text
from rollbridge.visible import visible

if TYPE_CHECKING:
    from rollbridge.engine.model import Commit, Event, TableInfo, TableSnapshot
    from rollbridge.plain import JSON
    from rollbridge.tokens import AdminTokenRecord, TokenRecord

__all__ = [
    "CANNOT_OPEN",
    "DEFAULT_RETAIN",
    "TABLE_EXISTS",
    "UNEXPECTED",
    "UNKNOWN_TABLE",
    "UNSTORABLE_COMMIT",
    "WITH_DETAIL",
    "LogTail",
    "Store",
    "changes_after",
    "first_held",
    "in_order",
    "reply_window",
    "unexpected",
    "unknown_table",
]

say = Messages("rollbridge")
#: The messages of the store errors a client or a CLI user reads (the others are
#: for the operator's log: the protocol tells clients only to try again).
UNKNOWN_TABLE = say("store.unknown_table", "no table {table}")
TABLE_EXISTS = say("store.table_exists", "a table {table} already exists")
# Translators: {error} why (a translated sentence, then Python's own words in parentheses).
UNSTORABLE_COMMIT = say("store.unstorable_commit", "the commit cannot be stored: {error}")
# Translators: {path} is the database file; {error} SQLite's own message.
CANNOT_OPEN = say("store.cannot_open", "cannot open {path}: {error}")
# Translators: why a database file cannot be opened, after "cannot open {path}: ";
# {folder} is the folder the file would be in.
NO_FOLDER = say(
    "store.no_folder",
    "its folder {folder} does not exist: make it (mkdir -p), or give another --db"
    " (or $ROLLBRIDGE_DB)",
)
# Translators: why a database file cannot be opened, after "cannot open {path}: ";
# {file} is a file that stands where a folder of the path should be.
NOT_A_FOLDER = say(
    "store.not_a_folder",
    "{file} is a file, not a folder: give --db (or $ROLLBRIDGE_DB) the path of a file in a folder",
)
# Translators: why a Redis server cannot be used, after "cannot open {path}: ";
# {error} is redis-py's own words; {option} where the URL is given (--redis (or
# $ROLLBRIDGE_REDIS), or --to); redis-server is a program's name.
NO_REDIS = say(
    "store.no_redis",
    "nothing answers there ({error}): start redis-server, or check {option}",
)
# Translators: why a database file cannot be opened, after "cannot open {path}: ".
IS_FOLDER = say(
    "store.is_folder",
    "it is a folder, not a database file: give --db (or $ROLLBRIDGE_DB) the path of a file",
)
# Translators: why a database file cannot be opened, after "cannot open {path}: ".
SYMLINK_LOOP = say(
    "store.symlink_loop",
    "it is a symbolic link that leads back to itself, to no file: give --db (or "
    "$ROLLBRIDGE_DB) the path of a file, or point the link at one",
)


# Translators: said when a value could not be read or written; Python's own (English)
# words on it follow in parentheses.
UNEXPECTED = say("store.fault.unexpected", "a value could not be read or written")
# Translators: {advice} is a sentence on what went wrong (and what to do); {detail}
# SQLite's or Python's own words (English, technical: kept as they are).
WITH_DETAIL = say("store.fault.detail", "{advice} ({detail})")


def unexpected(exc: BaseException) -> Text:
    """``exc`` (no SQLite error: a value that cannot be packed, say) as the reader's
    words, Python's own after them in parentheses: ``a value could not be read or
    written (TypeError: …)``. Python's words are made :func:`~rollbridge.visible.visible`:
    they may quote the bytes of a damaged file."""
    said = str(exc) or type(exc).__name__
    detail = visible(f"{type(exc).__name__}: {said}"[:300])
    return WITH_DETAIL(advice=UNEXPECTED(), detail=detail)


def unknown_table(table_id: str) -> UnknownTable:
    """The error every store raises for a table it does not hold."""
    return UnknownTable(UNKNOWN_TABLE(table=repr(table_id)), details={"table": table_id})


#: Events kept per table for resume and undo, by default.
DEFAULT_RETAIN = 1_000


def reply_window(retain: int) -> int:
    """How many seqs back a request's reply is kept for repeats: ten times the
    event log (10,000 by default), so a retry is answered long after its event
    left the log, while the store does not grow without end."""
    return max(1, retain) * 10


def first_held(store: Store, table_id: str, start: int, latest: int) -> int:
    """The lowest seq from ``start`` on after which ``store`` still holds every event
    up to ``latest``: ``start`` itself when it holds them, else found by halving
    (about log2 of the gap, each a one-event read). A store opened with a longer
    ``retain`` than the one that wrote the log (``table export`` of a file a
    ``serve --retain 50`` kept) finds its log shorter than its own ``retain`` says;
    pruning only ever drops the oldest events, so what is held is one run to the
    latest. Blocking: a reader thread's or the CLI's.
    """
    if store.events_after(table_id, start, until=start + 1) is not None:
        return start
    low, high = start + 1, latest  # after ``latest`` nothing is asked: held
    while low < high:
        middle = (low + high) // 2
        if store.events_after(table_id, middle, until=middle + 1) is None:
            low = middle + 1
        else:
            high = middle
    return low


def changes_after(
    store: Store, table_id: str, seq: int, until: int | None = None
) -> list[Event] | None:
    """The events after ``seq`` (as ``events_after``) with their actors' and the
    table's changes at least: the store's ``changes_after`` (an optional method, which
    decodes nothing else of them), else its ``events_after`` (a store without it).
    Blocking: a reader thread's."""
    read = getattr(store, "changes_after", None)
    if read is None:
        return store.events_after(table_id, seq, until)
    return read(table_id, seq, until)


V = TypeVar("V")


def in_order(actors: Mapping[str, V], order: Sequence[str]) -> dict[str, V]:
    """A table's actors in a commit's :attr:`~rollbridge.engine.model.Commit.order`
    (an id it names that is not an actor is left out; an actor it does not name,
    which no commit the engine makes leaves, goes first, as on Redis)."""
    named = set(order)
    placed = {a: v for a, v in actors.items() if a not in named}
    placed.update((a, actors[a]) for a in order if a in actors)
    return placed


class LogTail(NamedTuple):
    """Where a table's log stands and the events after a seq: what a follower reads
    to apply them to its table in memory (``follow_log``, a store's optional method:
    :meth:`RedisStore.follow_log <rollbridge.stores.redis.RedisStore.follow_log>`)."""

    epoch: int
    #: The table's seq.
    seq: int
    #: The lowest seq an undo or redo entry may have and still be in the retained
    #: log (as a load finds it): the log's first seq, or above ``seq - retain``.
    kept_from: int
    #: Every event after the seq asked for up to :attr:`seq`, in order; None when
    #: some of them have left the log (as ``events_after``).
    events: list[Event] | None


class Store(Protocol):
    """What the table service needs from a store."""

    retain: int

    def create_table(self, info: TableInfo, tokens: list[TokenRecord]) -> None:
        """Store a new table (seq 0, no actors) with its first tokens.

        :raises Conflict: if a table with this id exists.
        """

    def delete_table(self, table_id: str) -> None:
        """Remove a table and everything of it. :raises UnknownTable:"""

    def tables(self) -> list[TableInfo]:
        """Every table, oldest first."""

    def load(self, table_id: str) -> tuple[TableSnapshot, dict[int, Event]]:
        """A table's snapshot and the retained events its undo/redo stacks name.

        :raises UnknownTable:
        """

    def events_after(self, table_id: str, seq: int, until: int | None = None) -> list[Event] | None:
        """Every event with a seq above ``seq`` — and at most ``until``, when given
        (a ranged read: ``[]`` when ``until <= seq``) — in order; None if some of
        them have left the retained log."""

    def undos_after(self, table_id: str, seq: int) -> list[Event]:
        """The ``undo`` and ``redo`` events of the retained log with a seq above
        ``seq``, in order: what ``state``'s ``undone`` is told from, read at the cost
        of those events, not of the log (a store keeps them apart).

        :raises UnknownTable:
        """

    def event(self, table_id: str, seq: int) -> Event | None:
        """One retained event, or None if it is not (or no longer) in the log."""

    def reply(self, table_id: str, key: str) -> JSON | None:
        """The stored reply to the request with this idempotency key."""

    def reply_keys(self, table_id: str) -> list[str]:
        """The idempotency key of every stored reply of a table (read when a table
        is opened, for its key filter). :raises UnknownTable:"""

    def commit(self, table_id: str, commit: Commit) -> None:
        """Write a commit atomically. :raises StoreError: having written nothing."""

    def commit_many(self, items: list[tuple[str, Commit]]) -> None:
        """Write several commits in one transaction (group commit): all or nothing."""

    def add_token(self, record: TokenRecord) -> None:
        """Store a token record (its hash only)."""

    def find_token(self, table_id: str, token_hash: str) -> TokenRecord | None:
        """The token of this table with this hash."""

    def list_tokens(self, table_id: str) -> list[TokenRecord]:
        """Every token of a table."""

    def revoke_token(self, table_id: str, token_id: str) -> bool:
        """Remove a token; whether it existed."""

    def token_ids(self) -> set[str]:
        """The id of every token of every table (a running server compares its
        clients' tokens with it to find the revoked ones)."""

    def add_admin_token(self, record: AdminTokenRecord) -> None:
        """Store an admin token record (its hash only)."""

    def find_admin_token(self, token_hash: str) -> AdminTokenRecord | None:
        """The admin token with this hash."""

    def list_admin_tokens(self) -> list[AdminTokenRecord]:
        """Every admin token, oldest first."""

    def revoke_admin_token(self, token_id: str) -> bool:
        """Remove an admin token; whether it existed."""

    def probe_write(self) -> None:
        """A write that changes nothing a table reads, refused as a commit would be
        now (a full disk, a lock held by another program, Redis refusing writes):
        the server tries it while changes fail, to see the store mended when nobody
        sends a change (:mod:`rollbridge.server.store_probe`).

        :raises StoreUnavailable: the store as a whole refuses writes.
        :raises StoreError: it failed otherwise.
        """

    def ping(self) -> None:
        """A cheap read that proves the store answers (``/readyz``).

        :raises StoreError: the store cannot be read.
        """

    def close(self) -> None:
        """Flush and release resources."""
