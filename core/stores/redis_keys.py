"""Key names of the Redis store (:mod:`rollbridge.stores.redis`): one job, naming.

Every key of a table carries the table id as a Redis Cluster *hash tag*,
``{prefix}{{table-id}}:{kind}`` (``rb:{t1}:info``), so all of a table's keys hash
to one slot and one server-side script may touch them all. The few keys that
belong to no table (the table index, the admin tokens) are ``{prefix}{kind}``.
``docs/redis.md`` lists every key and what it holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from rollbridge.exceptions import InvalidSettings

__all__ = ["DEFAULT_PREFIX", "GLOBAL_KINDS", "TABLE_KINDS", "RedisKeys", "TableKeys"]

#: The prefix of every key unless the operator chooses another.
DEFAULT_PREFIX = "rb:"

#: The keys of one table, in the order the scripts receive them.
TABLE_KINDS = (
    "info",  # hash: info, meta, epoch, seq, wanted (undo/redo seqs), created, pos,
    # undos, mtag, ihead, m:KEY (what the last commit left, in parts: docs/redis.md)
    "actors",  # hash: actor id -> packed record
    "order",  # sorted set: actor id by the position it was added at
    "log",  # sorted set: packed event by seq (the last ``retain``)
    "replies",  # hash: idempotency key -> flag byte + packed reply
    "reply_seqs",  # sorted set: idempotency key by the seq that stored it
    "owner",  # string: the id of the process holding the table's lease
    "commits",  # sorted set: digest of each retained commit by its last seq
    "tokens",  # hash: token id -> packed token record
    "token_by_hash",  # hash: token hash -> token id
    "token_hash_of",  # hash: token id -> token hash
    "token_order",  # sorted set: token id by the position it was added at
    "undos",  # sorted set: packed undo and redo events by seq (those of the log), from
    # the seq in info's ``undos`` on (a table's first commit by a rollbridge keeping it)
)

#: The keys that belong to no table.
GLOBAL_KINDS = (
    "tables",  # sorted set: table id by creation
    "counter",  # string: a counter that orders tables and admin tokens
    "admin_tokens",  # hash: admin token id -> packed record
    "admin_by_hash",  # hash: admin token hash -> id
    "admin_hash_of",  # hash: admin token id -> hash
    "admin_order",  # sorted set: admin token id by creation
    "dice_key",  # string: the 32-byte key verifiable dice derive their seeds from
    "served",  # string: set by the first serve (its demo table, if any, made then)
    "probe",  # string: written while changes fail, to see Redis take writes again
    "processes",  # hash: serve --redis process id -> its claim (rollbridge.server.cluster_peers)
    "processes:gone",  # hash: processes found gone without stopping, kept a claim's while
)


@dataclass(frozen=True, slots=True)
class TableKeys:
    """The keys of one table (see :data:`TABLE_KINDS`) and its channel."""

    info: str
    actors: str
    order: str
    log: str
    replies: str
    reply_seqs: str
    owner: str
    commits: str
    tokens: str
    token_by_hash: str
    token_hash_of: str
    token_order: str
    undos: str
    #: The pub/sub channel a commit publishes ``"{epoch}:{seq}"`` on.
    channel: str
    #: string: the process that let the table's lease go unused, until a process
    #: takes it (or a day passes, or the table is deleted); not in
    #: :data:`TABLE_KINDS`, which the scripts that read a table take.
    let_go: str

    def all(self) -> list[str]:
        """Every key of the table (not the channel), in :data:`TABLE_KINDS` order."""
        return [getattr(self, kind) for kind in TABLE_KINDS]


@dataclass(frozen=True, slots=True)
class RedisKeys:
    """Names every key under one prefix.

    :param prefix: put before every key (``rb:`` by default); it may not hold
        ``{`` or ``}``, which would change the hash tag.
    :raises InvalidSettings: for a prefix with a brace, or an empty one.
    """

    prefix: str = DEFAULT_PREFIX

    def __post_init__(self) -> None:
        if not self.prefix or "{" in self.prefix or "}" in self.prefix:
            raise InvalidSettings(
                f"a Redis key prefix must be non-empty and hold no braces: {self.prefix!r}",
                details={"prefix": self.prefix},
            )

    def table(self, table_id: str) -> TableKeys:
        """The keys of ``table_id``, all with the hash tag ``{table_id}`` (made once
        per prefix and table, then reused: every commit and every poll names them)."""
        return _table_keys(self.prefix, table_id)

    def table_of(self, key: str, kind: str) -> str | None:
        """The table whose ``kind`` key ``key`` is (``rb:{t1}:info`` of ``info``:
        ``t1``), or None: another key."""
        head, tail = self.prefix + "{", "}:" + kind
        if not (key.startswith(head) and key.endswith(tail)):
            return None
        return key[len(head) : -len(tail)] or None

    def glob(self, kind: str) -> str:
        """A key that belongs to no table (one of :data:`GLOBAL_KINDS`)."""
        if kind not in GLOBAL_KINDS:
            raise KeyError(kind)
        return self.prefix + kind


@lru_cache(maxsize=4096)
def _table_keys(prefix: str, table_id: str) -> TableKeys:
    base = f"{prefix}{{{table_id}}}:"
    kinds = (base + kind for kind in TABLE_KINDS)
    return TableKeys(*kinds, channel=base + "events", let_go=base + "let_go")
