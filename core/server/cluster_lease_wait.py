"""One reader of the leases waited on, per process, for the forwards that find a
table's lease free just after Redis failed (rollbridge.server.cluster, docs/redis.md
"One owner per table").

Such a forward leaves the lease to the table's live owner for up to a lease (the
owner takes it again at its next renewal). Each forward used to read the lease every
:data:`EVERY` seconds on its own: N forwards waiting on one table cost N readers.
Then the forwards waiting on one table shared one reader — still one per table: 300
tables waited on at once were 300 readers sharing the process's connections to
Redis with the leases' renewals (a ``PING`` through the pool waited up to 0.65 s).
Now one reader per process reads every lease waited on, in one ``MGET`` of at most
:data:`BATCH` keys at a time, every :data:`EVERY` seconds, and tells every forward
waiting on a table what it read once the lease is held again. Each forward still
waits only until its own end (its grace, or its timeout), as before.

The reader runs while anyone waits: the last forward leaving cancels it (a wait
beginning before that cancel has run starts a new reader: the one cancelled ends
telling nobody), and it stops by itself at its next turn with nobody waiting (a
cancel could be lost on the way: Python 3.11's ``asyncio.wait_for`` inside
redis-py swallowed one that came as a command's send ended — the server's client
passes it on now,
:mod:`~rollbridge.server.cluster_cancel`), or when the process stops (``ended``). A read
that fails is told to every forward waiting then, and the next wait starts a new
reader; its error, when nobody is left to be told, is observed here (never
asyncio's "Task exception was never retrieved"). A forward's wait is
:func:`~rollbridge.server.cluster_cancel.within`, which never trades its own cancel
for the reader's answer as ``wait_for`` did.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from rollbridge.server.cluster_cancel import within

__all__ = ["BATCH", "EVERY", "LeaseWaits", "ReadMany"]

#: How often the reader reads the leases waited on (seconds).
EVERY = 0.05
#: The most keys one ``MGET`` of the reader names (more are read in turn).
BATCH = 256

#: Read leases by key (an ``MGET``): each one's holder (bytes), or None while free.
ReadMany = Callable[[Sequence[str]], Awaitable[Sequence[bytes | None]]]


@dataclass
class _Wait:
    """The forwards waiting on one table's lease: what they are told, and how many."""

    key: str
    told: asyncio.Future[bytes | None]
    waiters: int = field(default=0)


def _observed(task: asyncio.Future[None]) -> None:
    """The reader's end: its error retrieved (told to its waiters, or to nobody)."""
    if not task.cancelled():
        task.exception()


def _told(future: asyncio.Future[bytes | None]) -> None:
    """A wait's answer, retrieved when nobody was left to take it."""
    if not future.cancelled():
        future.exception()


class LeaseWaits:
    """The waits of one process on leases, by table: one reader for all of them.

    :param read: reads leases by key (the cluster's ``MGET``).
    :param ended: whether the process stops (the reader then ends; its waiters look
        again themselves)."""

    def __init__(
        self, read: ReadMany, ended: Callable[[], bool] = lambda: False, every: float = EVERY
    ) -> None:
        self.read, self.ended, self.every = read, ended, every
        self._waits: dict[str, _Wait] = {}
        self._reader: asyncio.Task[None] | None = None

    def waiting(self, table_id: str) -> int:
        """How many forwards wait on table ``table_id``'s lease now."""
        wait = self._waits.get(table_id)
        return 0 if wait is None else wait.waiters

    @property
    def reading(self) -> bool:
        """Whether the reader runs now."""
        return self._reader is not None and not self._reader.done()

    async def held(self, table_id: str, key: str, until: float) -> bytes | None:
        """Wait until table ``table_id``'s lease (Redis key ``key``) is held again,
        or until ``until`` (``time.monotonic``), whichever comes first: its holder, or
        None (the wait ended, or the process stops: the caller looks again).

        :raises redis.RedisError: (and socket errors) the reader's read failed: every
            forward waiting then is told, and the next wait starts a new reader."""
        wait = self._waits.get(table_id)
        if wait is None:
            told = asyncio.get_running_loop().create_future()
            told.add_done_callback(_told)
            wait = self._waits[table_id] = _Wait(key, told)
        reader = self._reader
        if not self.reading or (reader is not None and reader.cancelling()):
            # none, or one the last wait to leave cancelled (it ends at its cancel,
            # telling nobody: these waits are the new reader's)
            self._reader = asyncio.get_running_loop().create_task(self._read())
            self._reader.add_done_callback(_observed)
        wait.waiters += 1
        try:
            return await within(wait.told, until - time.monotonic())
        except TimeoutError:
            return None
        finally:
            wait.waiters -= 1
            if wait.waiters == 0 and self._waits.get(table_id) is wait:
                del self._waits[table_id]  # nobody waits on it: no more reads of it
            if not self._waits and self._reader is not None:
                self._reader.cancel()  # nobody waits at all (it also looks itself)

    async def _read(self) -> None:
        """Read every lease waited on, :data:`BATCH` keys an ``MGET``, every
        :attr:`every` seconds, until nobody waits or the process stops; a lease held
        again is told to its waiters, a failed read to every waiter."""
        while self._waits and not self.ended() and self._mine():
            waits = list(self._waits.items())
            try:
                for start in range(0, len(waits), BATCH):
                    part = waits[start : start + BATCH]
                    holders = await self.read([wait.key for _table, wait in part])
                    for (table_id, wait), holder in zip(part, holders, strict=True):
                        if holder is not None:
                            self._tell(table_id, wait, holder)
            except Exception as exc:
                for table_id, wait in list(self._waits.items()) if self._mine() else ():
                    self._tell(table_id, wait, exc)
                raise
            except asyncio.CancelledError:  # (the loop's end): its waiters look again
                for table_id, wait in list(self._waits.items()) if self._mine() else ():
                    self._tell(table_id, wait, None)
                raise
            await asyncio.sleep(self.every)
        for table_id, wait in list(self._waits.items()) if self._mine() else ():
            self._tell(table_id, wait, None)  # the process stops

    def _mine(self) -> bool:
        """Whether the task asking is the reader now (not one cancelled before a
        new one started: the waits then are the new one's)."""
        return asyncio.current_task() is self._reader

    def _tell(self, table_id: str, wait: _Wait, what: bytes | Exception | None) -> None:
        """Tell the waiters of ``wait`` (table ``table_id``) ``what`` — a holder, the
        read's error, or None — once; the next forward waiting on it starts anew."""
        if self._waits.get(table_id) is wait:
            del self._waits[table_id]
        if wait.told.done():
            return
        if isinstance(what, Exception):
            wait.told.set_exception(what)
        else:
            wait.told.set_result(what)
