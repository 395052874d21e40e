"""One wait per table for the forwards that find its lease free just after Redis
failed (rollbridge.server.cluster, docs/redis.md "One owner per table").

Such a forward leaves the lease to the table's live owner for up to a lease (the
owner takes it again at its next renewal). Each forward used to read the lease every
:data:`EVERY` seconds on its own: N forwards waiting on one table cost N readers.
Here the forwards waiting on one table share one reader per process: it reads the
lease until it is held again, or until no forward waits any longer, and every
waiting forward is told what it read. Each forward still waits only until its own
end (its grace, or its timeout), as before. A reader ends when the process stops
(``ended``), within :data:`EVERY`; it is never cancelled while a forward waits on it.
The last forward leaving cancels it, and it stops by itself at its next turn when
nobody waits (a cancel could be lost on the way: Python 3.11's ``asyncio.wait_for``,
inside redis-py, swallowed one that came as a command's send ended — 300 tables
waited on at once left some 50 readers reading for good; the server's client now
passes such a cancel on, :mod:`~rollbridge.server.cluster_cancel`, and a read given
here by another client may still lose one). A forward's own wait is
:func:`~rollbridge.server.cluster_cancel.within`, which never trades its cancel for
the reader's result as ``wait_for`` did. Its error, when nobody is left to be
told, is observed here (never asyncio's "Task exception was never retrieved"): the
forwards' own reads meet Redis failing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from rollbridge.server.cluster_cancel import within

#: How often the one reader of a table reads its lease (seconds).
EVERY = 0.05

#: Read the lease: its holder (bytes), or None while nobody holds it.
Read = Callable[[], Awaitable[bytes | None]]


@dataclass
class _Wait:
    """The reader of one table's lease and how many forwards wait on it."""

    task: asyncio.Task[bytes | None] | None = None
    waiters: int = field(default=0)


def _observed(task: asyncio.Task[bytes | None]) -> None:
    """A reader's end: its error retrieved (told to its waiters, or to nobody)."""
    if not task.cancelled():
        task.exception()


class LeaseWaits:
    """The shared waits of one process, by table."""

    def __init__(self, every: float = EVERY) -> None:
        self.every = every
        self._waits: dict[str, _Wait] = {}

    def waiting(self, table_id: str) -> int:
        """How many forwards wait on table ``table_id``'s lease now."""
        wait = self._waits.get(table_id)
        return 0 if wait is None else wait.waiters

    async def held(
        self, table_id: str, read: Read, until: float, ended: Callable[[], bool]
    ) -> bytes | None:
        """Wait until table ``table_id``'s lease is held again, or until ``until``
        (``time.monotonic``), whichever comes first: its holder, or None (the wait
        ended, or ``ended()`` said the process stops: the caller looks again).

        ``read`` reads the lease; only the first forward's is used while others
        wait on the same table (one reader).

        :raises redis.RedisError: (and socket errors) the reader's read failed: every
            forward waiting is told, and the next wait starts a new reader."""
        wait = self._waits.get(table_id)
        if wait is None or wait.task is None or wait.task.done():
            wait = self._waits[table_id] = _Wait()
            wait.task = asyncio.get_running_loop().create_task(self._read(wait, read, ended))
            wait.task.add_done_callback(_observed)
        task = wait.task
        wait.waiters += 1
        try:
            return await within(task, until - time.monotonic())  # (a cancel never lost)
        except TimeoutError:
            return None
        finally:
            wait.waiters -= 1
            if wait.waiters == 0:
                task.cancel()  # nobody waits on it: no more reads (it also looks itself)
                if self._waits.get(table_id) is wait:
                    del self._waits[table_id]

    async def _read(self, wait: _Wait, read: Read, ended: Callable[[], bool]) -> bytes | None:
        """Read the lease every :attr:`every` seconds until it is held (its holder),
        ``ended()``, or nobody waits on ``wait`` any longer (None)."""
        while not ended() and wait.waiters > 0:
            holder = await read()
            if holder is not None:
                return holder
            await asyncio.sleep(self.every)
        return None
