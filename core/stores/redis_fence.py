"""Fencing a table whose Redis went back in time (SCALING.md failures 5 and 6).

A Redis that fails over to a replica that lags, or is restored from an older copy of
its data, can hold a table at ``(E, S')`` while processes and clients have seen
``(E, S)`` with ``S > S'``. Committing on from ``S'`` under ``E`` would give the seqs
``S'+1..S`` a second meaning: an ``(epoch, seq)`` would name two different events.

The fence: whoever finds a table stored *behind* a point it knows was committed
(:func:`behind`) moves the table to a new epoch (:func:`fence`), atomically in Redis
(the :data:`FENCE` script: only while the table is still exactly as read, so still
behind; idempotent when several processes find it at once — the first moves it, the
others find it no longer behind). Nothing else changes: the seq stays ``S'``, the next
event is ``(E', S'+1)``, the log keeps the old epoch's events. The commit script
refuses a commit of an older epoch than the stored one, so a process that has not
noticed the fence cannot write ``E`` events past it; every process's next read sees
the new epoch and sends its clients to resume (``recovered: false``, the full state).
The fence records the move in the table's meta (``epochs``: :mod:`rollbridge.engine.epochs`,
the new epoch going on from ``S'``), as a restore does, so the ``welcome`` shows it.

**Epochs are never reused** (:func:`new_epoch`): a new epoch is the Unix time in
milliseconds, or one more than the highest epoch known when that is higher (a clock
behind). It is not a counter kept in Redis, which would go back in time with the rest.
Within one history epochs only grow, which is what lets a stored epoch *older* than a
known one count as behind (a fence lost in a second failover).

``docs/redis.md``, "Failover and fencing", has the whole design.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from rollbridge.engine.epochs import moved as epochs_moved
from rollbridge.engine.model import Event, TableInfo
from rollbridge.exceptions import StoreError
from rollbridge.plain import pack, unpack
from rollbridge.stores import redis_damaged
from rollbridge.stores.base import unknown_table

__all__ = ["FENCE", "Fenced", "behind", "delivered", "fence", "fence_if_behind", "new_epoch"]

log = logging.getLogger("rollbridge.fence")

#: Attempts at a fence when the table changes between its read and the script.
ATTEMPTS = 5
#: Events read at once where a fence reads the retained log event by event.
CHUNK = 64

#: KEYS: info. ARGV: known epoch, known seq, the info blob read, the new info blob,
#: the new epoch, the meta blob read, the new meta blob (its ``epochs`` record moved
#: on). Moves the table to the new epoch only while it is still behind the known point
#: and its info and meta are still the ones read; drops ``mtag``, so the next commit
#: sends its meta whole (docs/redis.md, "A commit sends only what changed"). Returns
#: false for an unknown table; {1, epoch, seq}: fenced; {0, epoch, seq}: not behind
#: (fenced already by another process, or caught up); {2, epoch, seq}: changed since
#: read (read again).
FENCE = """#!lua
local h = redis.call('HMGET', KEYS[1], 'epoch', 'seq', 'info', 'meta')
if not h[1] then return false end
local epoch, seq = tonumber(h[1]), tonumber(h[2])
local kepoch, kseq = tonumber(ARGV[1]), tonumber(ARGV[2])
if not (epoch < kepoch or (epoch == kepoch and seq < kseq)) then
  return {0, h[1], seq}
end
if h[3] ~= ARGV[3] or (h[4] or '') ~= ARGV[6] then return {2, h[1], seq} end
redis.call('HSET', KEYS[1], 'epoch', ARGV[5], 'info', ARGV[4], 'meta', ARGV[7])
redis.call('HDEL', KEYS[1], 'mtag')
return {1, ARGV[5], seq}
"""


class Fenced(NamedTuple):
    """What :func:`fence` found or did: the table's stored epoch and seq now, and
    whether this call moved it to that epoch."""

    epoch: int
    seq: int
    moved: bool


def behind(stored: tuple[int, int], known: tuple[int, int]) -> bool:
    """Whether a table stored at ``stored`` (epoch, seq) has lost what ``known`` says
    was committed: the same epoch and a lower seq, or an older epoch (epochs only grow
    within one history, :func:`new_epoch`)."""
    return stored[0] < known[0] or (stored[0] == known[0] and stored[1] < known[1])


def delivered(protocol: Any) -> tuple[int, int] | None:
    """The last point a table protocol knows committed, ``(epoch, durable seq)``
    (None for no protocol): what a read of the stored table that starts after this
    call must not be behind."""
    if protocol is None:
        return None
    return (protocol.table.info.epoch, protocol.durable_seq)


def new_epoch(*known: int, now: float | None = None) -> int:
    """A new epoch, never used before: the Unix time in milliseconds, or one more than
    the highest of ``known`` (the stored epoch, the epochs a process knows) when that
    is higher. Below 2^53, so JavaScript clients read it exactly."""
    millis = int((time.time() if now is None else now) * 1000)
    return max(millis, max(known, default=0) + 1)


def fence(store: Any, table_id: str, epoch: int, seq: int) -> Fenced:
    """Move ``table_id`` to a new epoch if Redis holds it behind ``(epoch, seq)``, a
    point known to have been committed; else leave it. ``store`` is a
    :class:`~rollbridge.stores.redis.RedisStore` (its ``fence`` calls this; this module
    does not import it). Safe to call from several
    processes at once, and when nothing is wrong (a read that raced a commit).

    :raises UnknownTable: the table is not in Redis.
    :raises StoreError: Redis failed, or the table kept changing.
    """
    keys = store.keys.table(table_id)
    info_key = keys.info
    script = store.client.register_script(FENCE)
    for _attempt in range(ATTEMPTS):
        found = store._call(lambda: store.client.hmget(info_key, "epoch", "seq", "info", "meta"))
        if found[0] is None or found[2] is None:
            raise unknown_table(table_id)
        stored = (int(found[0]), int(found[1]))
        if not behind(stored, (epoch, seq)):
            return Fenced(*stored, moved=False)
        fresh = new_epoch(stored[0], epoch)
        info, meta = redis_damaged.state(
            table_id,
            info_key,
            lambda f=found: (TableInfo.from_dict(unpack(f[2])), unpack(f[3]) if f[3] else {}),
        )
        info.epoch = fresh
        blob = pack(info.to_dict())
        meta["epochs"] = epochs_moved(
            meta.get("epochs"), _log_rows(store, table_id, keys.log), stored[0], stored[1], fresh
        )
        args = [epoch, seq, found[2], blob, fresh, found[3] or b"", pack(meta)]
        answer = store._call(lambda a=args: script(keys=[info_key], args=a))  # type: ignore[misc]
        if not answer:
            raise unknown_table(table_id)
        status, now_epoch, now_seq = int(answer[0]), int(answer[1]), int(answer[2])
        if status != 2:
            if status == 1:
                log.warning(
                    "table %s: Redis held it at epoch %s seq %s, but seq %s of epoch %s was "
                    "committed (a failover to a replica that lagged, or data restored from "
                    "an older copy): moved to the new epoch %s",
                    table_id, stored[0], stored[1], seq, epoch, fresh,
                )  # fmt: skip
            return Fenced(now_epoch, now_seq, moved=status == 1)
    raise StoreError(f"table {table_id!r} kept changing while it was fenced; try again")


def _log_rows(store: Any, table_id: str, log_key: str) -> Iterator[tuple[int, int, int]]:
    """``(first, last, epoch)`` of the retained log in seq order (what
    :func:`rollbridge.engine.epochs.from_log` reads), read only when iterated: only a
    table whose stored record does not end at its epoch needs it.

    Epochs only grow along a log (the commit script writes the stored epoch alone, and
    a fence or a restore moves a table to a newer one), so a log whose first and last
    events are of one epoch is of that epoch throughout: one row, from two events read
    — a table's first fence, however long its log. Else each event, :data:`CHUNK` at a
    time (a log fenced by an older server, which kept no record): never the whole log
    of up to ``retain`` events of up to ``max-event-size`` each at once."""
    ends = [_log_event(store, table_id, log_key, rank) for rank in (0, -1)]
    if ends[0] is None or ends[1] is None:
        return
    if ends[0].epoch == ends[1].epoch:
        yield (ends[0].seq, ends[1].seq, ends[0].epoch)
        return
    after = "-inf"
    while True:
        blobs = store._call(
            lambda a=after: store.client.zrange(
                log_key, a, "+inf", byscore=True, offset=0, num=CHUNK
            ),
            reading=True,
        )
        for event in redis_damaged.events(table_id, log_key, blobs):
            yield (event.seq, event.seq, event.epoch)
        if len(blobs) < CHUNK:
            return
        after = f"({event.seq}"


def _log_event(store: Any, table_id: str, log_key: str, rank: int) -> Event | None:
    """The retained log's event at ``rank`` (0 the first, -1 the last), or None.
    :raises StoreError: (``reason`` ``damaged``) it cannot be unpacked."""
    got = store._call(lambda: store.client.zrange(log_key, rank, rank), reading=True)
    return redis_damaged.events(table_id, log_key, got[:1])[0] if got else None


def fence_if_behind(
    store: Any, table_id: str, stored: TableInfo, known: Iterable[tuple[int, int] | None]
) -> bool:
    """Fence ``table_id`` (:func:`fence`) when ``stored`` (the table as just read) is
    behind any of the ``known`` points; whether anything was fenced or changed since
    the read (then read the table again). A store without fencing (SQLite, memory: one
    process, nothing to fail over) never is."""
    fencing = getattr(store, "fence", None)
    if fencing is None:
        return False
    at = (stored.epoch, stored.seq)
    points = [p for p in known if p is not None and behind(at, p)]
    if not points:
        return False
    epoch, seq = max(points)
    fenced = fencing(table_id, epoch, seq)
    return (fenced.epoch, fenced.seq) != at
