"""The one writer: a thread that commits to the store, grouping what queued up.

The event loop executes requests (fast, in memory) and hands each commit to
:meth:`CommitWriter.submit` with a callback. The writer thread takes every
commit waiting in its queue, writes them in one transaction
(:meth:`Store.commit_many` — group commit: one fsync for many requests), and
then calls the callbacks in the loop thread, in submission order, with
``None`` or the exception. Replies and broadcasts leave from those callbacks,
so nothing is acknowledged before it is durable.

If a transaction fails, every table in it is *poisoned*: commits of that table
still queued behind the failed one were built on state that was never stored,
so they fail too, until the loop has reloaded the table and called
:meth:`CommitWriter.reset`. A group commit that failed is tried again commit by
commit, to find the one the store refused — unless the store failed as a whole
(:class:`~rollbridge.exceptions.StoreUnavailable`: a full disk, a lock held by
another program, Redis gone), which fails every commit of the batch at once (one
by one, a lock held by another program would cost each of them the store's whole
lock wait). Such failures, and the first commit written after them, are told to
:attr:`CommitWriter.health`, which logs the outage once; any other failure is
logged at ERROR, naming its tables.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from rollbridge.engine.model import Commit
from rollbridge.exceptions import StoreError, StoreUnavailable, UnknownTable
from rollbridge.server.limits import MAX_PENDING
from rollbridge.server.store_health import StoreHealth
from rollbridge.stores.base import Store
from rollbridge.text import Messages
from rollbridge.words import counted

__all__ = ["LINGER", "MAX_BATCH", "MAX_PENDING", "STOPPING", "CommitWriter", "stopping"]

log = logging.getLogger("rollbridge.writer")
say = Messages("rollbridge")
#: What a request is told when the server stops before it could run it (the writer
#: closed, the readers shut down, a lease no longer taken): ``store_error``.
STOPPING = say(
    "server.stopping",
    "the server is stopping; send the request again (with the same id)",
)


def stopping() -> StoreUnavailable:
    """What a commit or a read asked after the server began to stop (the writer
    closed, the readers shut down) fails with: ``store_error``, reason ``stopping``,
    logged at DEBUG by its table."""
    return StoreUnavailable(STOPPING(), details={"reason": "stopping"})


#: Most commits written in one transaction.
MAX_BATCH = 256
#: Seconds the writer waits for more commits before writing a lone one: a
#: millisecond of latency buys bigger group commits (one fsync for more requests).
LINGER = 0.001

Done = Callable[[BaseException | None], None]


@dataclass(slots=True)
class _Item:
    table_id: str
    commit: Commit | None  # None: a reset marker
    done: Done | None


_STOP = object()


class CommitWriter:
    """Commits on a thread of its own; see the module docstring.

    :param store: the store; only this thread writes to it.
    :param loop: the event loop callbacks run in.
    :param linger: seconds to wait for more commits before writing (group commit).
    :param max_pending: commits that may wait to be written (see :attr:`full`).
    :param batch: entered around the callbacks of one group commit, in the loop
        (the server's outbox: the frames they release leave together).
    :param health: told of the store failing as a whole and of each commit written
        (a new one if not given).
    """

    def __init__(
        self,
        store: Store,
        loop: asyncio.AbstractEventLoop,
        *,
        linger: float = LINGER,
        max_pending: int = MAX_PENDING,
        batch: Callable[[], contextlib.AbstractContextManager[object]] = contextlib.nullcontext,
        health: StoreHealth | None = None,
    ) -> None:
        self.store = store
        self.batch = batch
        self.loop = loop
        self.linger = linger
        self.max_pending = max_pending
        #: Commits submitted whose callback has not run yet (event loop only).
        self.pending = 0
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        #: Set by :meth:`close`: a commit submitted after it is refused, never queued
        #: behind the stop (where nothing would write it nor call it back).
        self._closed = False
        self._closing = threading.Lock()
        self._poisoned: set[str] = set()
        self.batches = 0
        self.commits = 0
        #: Called in the writer thread after each group commit that succeeded,
        #: with its size and the seconds it took (the server's metrics).
        self.observe: Callable[[int, float], None] | None = None
        #: Told of the store failing as a whole, and of each commit written.
        self.health = health if health is not None else StoreHealth()
        self._thread = threading.Thread(target=self._run, name="rollbridge-writer", daemon=True)
        self._thread.start()

    @property
    def full(self) -> bool:
        """As many commits wait as may: callers refuse new changes until one is written."""
        return self.pending >= self.max_pending

    def submit(self, table_id: str, commit: Commit, done: Done) -> None:
        """Queue a commit; ``done`` runs in the loop once it is durable (or failed).

        Called from the event loop, which also checks :attr:`full` first. Once
        :meth:`close` has begun, ``done`` is called (soon, in the loop) with
        :class:`~rollbridge.exceptions.StoreUnavailable` (``reason`` ``stopping``).
        """
        with self._closing:
            if not self._closed:
                self.pending += 1
                self._queue.put(_Item(table_id, commit, done))
                return
        self.loop.call_soon(self._run_callbacks, [(done, stopping())], False)

    def reset(self, table_id: str) -> None:
        """The loop reloaded ``table_id`` after a failure: accept its commits again."""
        self._queue.put(_Item(table_id, None, None))

    def forget(self, table_id: str) -> None:
        """``table_id`` left memory (with no commit of it out): accept its commits
        again if one had failed. Its next load would (:meth:`reset`), but a table
        deleted while a change of it was written is never loaded again, and its mark
        stayed for as long as the process ran."""
        # read from the loop: the mark is set before the failed commit's callback runs,
        # and a table leaves memory only once every callback of its commits has
        if table_id in self._poisoned:
            self.reset(table_id)

    def close(self) -> None:
        """Write everything queued, then stop the thread (blocks until done)."""
        with self._closing:
            self._closed = True
            self._queue.put(_STOP)
        self._thread.join()

    def _run(self) -> None:
        while self._write_next():
            pass

    def _write_next(self) -> bool:
        """Wait for commits and write them as one group; False once told to stop.
        A call of its own, so that its batch goes when it returns: the thread waits
        for the next commits holding none of the last ones (their callbacks name
        the clients and tables that made them, which would stay alive with them, on
        an idle server for good)."""
        first = self._queue.get()
        if first is _STOP:
            return False
        batch = [first]
        if self.linger > 0:
            # Sleep rather than wait on the queue: a wait would wake this
            # thread (and make it take the GIL from the event loop) at
            # every commit submitted during the linger.
            time.sleep(self.linger)
        going = True
        waiting = self._queue
        # this thread alone takes from the queue: what it holds stays there until taken
        # (asked, not tried: an empty queue's get_nowait raised queue.Empty each group)
        while len(batch) < MAX_BATCH and not waiting.empty():
            item = waiting.get_nowait()
            if item is _STOP:
                going = False
                break
            batch.append(item)
        try:
            self._write(batch)  # type: ignore[arg-type]
        except Exception:  # a bug: the thread must go on, and no commit wait for good
            self._broke(batch)  # type: ignore[arg-type]
        return going

    def _broke(self, batch: list[_Item]) -> None:
        """Writing ``batch`` raised an exception that is no store's failure (a bug of
        this thread's own): logged with its traceback; every commit of the batch is
        failed (``store_error``; whether it was written is not known, so its table is
        marked as after a failed commit: loaded again before it commits more, and a
        request sent again with the same id finds a reply that was stored), and the
        thread goes on with the next commits. Without this the thread ended, and every
        commit after, of every table, waited for good."""
        log.exception("the commit writer failed on a batch of %d", len(batch))
        error = StoreError("the commit writer failed")
        callbacks: list[tuple[Done, BaseException | None]] = []
        for item in batch:  # in order: a reset after a commit of its table clears it
            if item.commit is None:  # (that commit was of the table before its reload)
                self._poisoned.discard(item.table_id)
                continue
            self._poisoned.add(item.table_id)
            if item.done is not None:
                callbacks.append((item.done, error))
        if callbacks:
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody waits
                self.loop.call_soon_threadsafe(self._run_callbacks, callbacks)

    def _write_one(self, item: _Item) -> BaseException | None:
        if item.table_id in self._poisoned:
            self.health.also_refused(1)
            return StoreError("an earlier commit of this table failed")
        try:
            self.store.commit(item.table_id, item.commit)  # type: ignore[arg-type]
        except BaseException as exc:
            return self._failed([item], exc)
        self.batches += 1
        self.commits += 1
        self.health.succeeded()
        return None

    def _failed(self, items: list[_Item], exc: BaseException) -> StoreError | UnknownTable:
        self._poisoned.update(i.table_id for i in items)
        if isinstance(exc, StoreUnavailable):  # the store's, not these commits': said once
            self.health.failed(exc, len(items))
            return exc
        named = dict.fromkeys(i.table_id for i in items)
        tables = ("table " if len(named) == 1 else "tables ") + ", ".join(named)
        # a table deleted meanwhile (the operator's doing: its clients are cut off) is
        # no fault of the store's
        level = logging.INFO if isinstance(exc, UnknownTable) else logging.ERROR
        log.log(level, "commit of %s of %s failed: %s", counted(len(items), "request"), tables, exc)
        if isinstance(exc, StoreError | UnknownTable):  # a table gone says so
            return exc
        return StoreError(f"the store failed to commit: {type(exc).__name__}: {exc}")

    def _write(self, batch: list[_Item]) -> None:
        results: list[tuple[_Item, BaseException | None]] = []
        writable: list[_Item] = []
        #: A refused commit's result is before one written that the batch has first:
        #: the callbacks are put back in the batch's order (else they are in it).
        told_first = False
        for item in batch:
            if item.commit is None:
                self._poisoned.discard(item.table_id)
            elif item.table_id in self._poisoned:
                self.health.also_refused(1)
                results.append((item, StoreError("an earlier commit of this table failed")))
                # told before the commits written, which come before it in the batch
                told_first = told_first or bool(writable)
            else:
                writable.append(item)
        if writable:
            started = time.perf_counter()
            try:
                self.store.commit_many([(i.table_id, i.commit) for i in writable])  # type: ignore[misc]
            except BaseException as exc:
                if len(writable) == 1 or isinstance(exc, StoreUnavailable):
                    # a batch that is not one transaction (Redis) may have written its
                    # first commits before the store failed: those are acknowledged
                    written = exc.written if isinstance(exc, StoreUnavailable) else 0
                    written = max(0, min(written, len(writable)))
                    if written:
                        self.batches += 1
                        self.commits += written
                        results.extend((item, None) for item in writable[:written])
                    error = self._failed(writable[written:], exc)
                    results.extend((item, error) for item in writable[written:])
                else:  # one bad commit must not fail the others: write them one by one
                    log.warning(
                        "group commit of %d failed (%s); retrying one by one", len(writable), exc
                    )
                    down: BaseException | None = None
                    for item in writable:
                        if down is not None:  # the store failed as a whole meanwhile
                            results.append((item, self._failed([item], down)))
                            continue
                        error = self._write_one(item)
                        if isinstance(error, StoreUnavailable):
                            down = error
                        results.append((item, error))
            else:
                self.batches += 1
                self.commits += len(writable)
                results.extend((i, None) for i in writable)
                self.health.succeeded()
                if self.observe is not None:
                    try:  # the commits are written whatever the metrics do
                        self.observe(len(writable), time.perf_counter() - started)
                    except Exception:
                        log.exception("observing a group commit failed")
        if told_first:  # a refused commit was told before those written: batch order
            order = {id(item): n for n, item in enumerate(batch)}
            results.sort(key=lambda pair: order[id(pair[0])])
        callbacks = [(i.done, err) for i, err in results if i.done is not None]
        if callbacks:
            self.loop.call_soon_threadsafe(self._run_callbacks, callbacks)

    def _run_callbacks(
        self, callbacks: list[tuple[Done, BaseException | None]], were_pending: bool = True
    ) -> None:
        """In the loop: the commits are written (or failed); tell their owners
        (``were_pending``: they were counted in :attr:`pending`)."""
        if were_pending:
            self.pending -= len(callbacks)
        with self.batch():
            for done, error in callbacks:
                try:
                    done(error)
                except Exception:
                    log.exception("a commit callback failed")
