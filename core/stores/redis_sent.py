"""What a process's last commit to each table left in Redis, remembered within a
budget (:mod:`rollbridge.stores.redis`): one job, remembering.

A commit sent against its process's last commit to the table leaves out the info's
head and the meta when they did not change (``docs/redis.md``, "A commit sends only
what changed"), so the store keeps each table's last :class:`Sent` — up to 66 KB a
table (its meta with 64 KiB of requests waiting). A table that leaves memory is not
read again, and so not forgotten, until it is served again: without a bound, a
process that served many tables would keep every one's meta for as long as it
ran (1,000 tables with requests waiting: 64 MB). So the memory holds at most
:data:`SENT_BYTES` of metas and heads, forgetting the table committed least
recently first. Forgetting costs only bytes: that table's next commit is sent
whole, as after a reload.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from rollbridge.stores.redis import PreparedRedisCommit

__all__ = ["SENT_BYTES", "Sent", "SentMemory"]

#: The most bytes of metas and info heads remembered across tables: 500 tables
#: with 64 KiB of requests waiting each, far more of tables with few.
SENT_BYTES = 32 * 1024 * 1024


class Sent(NamedTuple):
    """What this process's last commit to a table left in Redis, as far as the next
    one sends only what differs from it (:func:`rollbridge.stores.redis.commit_args`)."""

    epoch: int
    #: The commit's digest: the commit script finds it in the table's ``mtag``
    #: while nothing wrote the table since.
    digest: str
    info_head: bytes
    #: The meta it stored (at most the table's own: 66 KB with 64 KiB of requests
    #: waiting; compared, which costs less than digesting it).
    meta: bytes

    @classmethod
    def of(cls, p: PreparedRedisCommit) -> Sent:
        """What ``p`` leaves once written."""
        return cls(p.epoch, p.digest, p.info_head, p.meta)

    @property
    def size(self) -> int:
        """The bytes it holds (its meta and head), as counted against the budget."""
        return len(self.meta) + len(self.info_head)


class SentMemory:
    """Each table's :class:`Sent`, at most ``budget`` bytes of them in all (the least
    recently remembered forgotten first). A hint only: the commit script checks the
    table still holds what it says. Every method may be called from any thread.

    :param budget: the most bytes (:attr:`Sent.size`) kept; 0 keeps none.
    """

    def __init__(self, budget: int = SENT_BYTES) -> None:
        self.budget = max(0, budget)
        self._by_table: OrderedDict[str, Sent] = OrderedDict()
        #: The bytes of everything kept (:attr:`Sent.size` summed).
        self.bytes = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._by_table)

    def __contains__(self, table_id: object) -> bool:
        return table_id in self._by_table

    def get(self, table_id: str) -> Sent | None:
        """What the last commit to ``table_id`` left, if remembered."""
        return self._by_table.get(table_id)

    def remember(self, table_id: str, sent: Sent) -> None:
        """``sent`` is what ``table_id`` now holds; forget the oldest while over budget
        (``sent`` itself, when it alone is larger)."""
        with self._lock:
            old = self._by_table.pop(table_id, None)
            if old is not None:
                self.bytes -= old.size
            self._by_table[table_id] = sent
            self.bytes += sent.size
            while self.bytes > self.budget:
                _, gone = self._by_table.popitem(last=False)
                self.bytes -= gone.size

    def forget(self, table_id: str) -> None:
        """Forget ``table_id`` (read again, deleted, or a commit of it failed)."""
        with self._lock:
            old = self._by_table.pop(table_id, None)
            if old is not None:
                self.bytes -= old.size
