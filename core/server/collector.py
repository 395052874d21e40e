"""Keep the cyclic garbage collector's full passes off the server's long-lived heap.

A server with thousands of connections holds hundreds of thousands of objects
that live as long as the process (websockets' connections, the tables). Python's
collector walks all of them in every full (generation 2) pass; at 6,000
connections one pass stops the event loop for 100–500 ms, and under load such a
pass comes every few seconds (see docs/performance.md).

:class:`CollectorManager` moves every object into the permanent generation
(``gc.freeze()``, O(1)) at a fixed interval, so the automatic passes only walk
what was made since. Reference counting still frees everything as usual; only
*cycles* among frozen objects wait. So the manager runs a full pass (unfreeze,
collect, freeze again) when the heap has grown by half since the last one, and
in any case once every :data:`MAX_AGE` seconds: memory the growth measure does
not see (blocks over 512 bytes, or all of them when ``PYTHONMALLOC=malloc``
makes it report 0) is still collected within that time. Full passes come as
the heap grows, or every ten minutes, instead of every few seconds.

The heap is measured with ``sys.getallocatedblocks()`` (the interpreter's
allocated memory blocks: a fraction of a millisecond), not by counting the
frozen objects (``gc.get_freeze_count()`` walks them all: tens of
milliseconds at 6,000 connections, a stall of its own).

While a reader thread decodes a large read (a log of the largest events: millions
of objects), :meth:`CollectorManager.quiet` holds every pass off — the automatic
ones, which the new objects set off one after another and each of which walked all
of them holding the interpreter's lock, stopping the event loop for a second and
more, and the manager's own — and freezes what the read left alive at its end, as
every tick does (hostile27). Reads that follow one another without a gap (two
reader threads' overlapping) hold them off for :data:`MAX_QUIET` seconds, then the
server refuses new ones, and :data:`MAX_OVERDUE` seconds more at most: then the
manager's steps run again, the heap's growth checked as ever.

A read's objects outlive its ``quiet``: the event loop drops its events a few a
turn once its reply is made (:mod:`rollbridge.server.let_go`). A tick in between
saw a heap grown by all of them and ran a full pass over them — 3 to 11 s of the
interpreter's lock during ``stats`` reads of a log of the largest events (2,972 ms
over 18 M blocks in one DEBUG run), and a pass that found nothing to free: they were
being freed already (hostile28). :meth:`CollectorManager.hold` covers a read from
its start on the loop until its events are dropped; :meth:`~CollectorManager.tick`
waits while one is held, for :data:`MAX_QUIET` seconds of holds back to back at most.

A read longer than :data:`MAX_QUIET` (a ``stats`` of a log of the largest events on
a loaded machine) met that bound as reads without end would: the manager's full pass
walked the read's millions of objects, still alive, 5–6.5 s of the interpreter's
lock (hostile29). Now the bound refuses more instead: once reads (or holds) have
followed one another for :data:`MAX_QUIET` seconds the manager is
:attr:`~CollectorManager.overdue`, and the server refuses every new read of the log
a client asks (``rate_limited``, ``"scope": "server"``) until they end; the reads
out finish, and the manager steps again without walking them (a ``hello`` resuming
elsewhere than the latest seq, and a repeat walking the log back to its event, are
refused alike: review of hostile29). Only reads it does not refuse going on for
:data:`MAX_OVERDUE` seconds more have the manager step all the same, as before.

Only the process owner should turn this on (``rollbridge serve`` does): the
collector's state is global to the interpreter.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["FREEZE_INTERVAL", "GROWTH", "MAX_AGE", "MAX_OVERDUE", "MAX_QUIET", "CollectorManager"]

log = logging.getLogger("rollbridge.collector")

#: Seconds between freezes.
FREEZE_INTERVAL = 2.0
#: A full pass once the heap is this many times its size after the last one.
GROWTH = 1.5
#: Seconds after which a full pass runs whatever the heap did.
MAX_AGE = 600.0
#: Seconds of reads back to back (:meth:`CollectorManager.quiet`) after which the
#: manager's steps run again all the same: reads overlapping on the reader threads
#: without end must not hold every pass off, and the heap's growth with it, for good.
MAX_QUIET = 30.0
#: Seconds past :data:`MAX_QUIET` that reads still out (the server refuses new ones
#: meanwhile: :attr:`CollectorManager.overdue`) hold the manager's steps off before
#: it steps all the same.
MAX_OVERDUE = 30.0
#: Below this many allocated blocks growth is not worth a full pass.
_FLOOR = 200_000


class CollectorManager:
    """Freeze the heap now and then; collect it fully when it has grown or aged.

    :param interval: seconds between freezes.
    :param growth: the growth of the heap that triggers a full pass.
    :param max_age: seconds after which a full pass runs anyway.
    :param max_quiet: seconds of :meth:`quiet` reads, one overlapping the next, after
        which :meth:`tick` steps again all the same.
    :param clock: the seconds it counts by (monotonic).
    :param max_overdue: seconds past ``max_quiet`` that reads still out hold
        :meth:`tick` off (new ones are refused meanwhile: :attr:`overdue`).
    """

    def __init__(
        self,
        interval: float = FREEZE_INTERVAL,
        growth: float = GROWTH,
        max_age: float = MAX_AGE,
        max_quiet: float = MAX_QUIET,
        clock: Callable[[], float] = time.monotonic,
        max_overdue: float = MAX_OVERDUE,
    ) -> None:
        self.interval = interval
        self.growth = growth
        self.max_age = max_age
        self.max_quiet = max_quiet
        self.max_overdue = max_overdue
        self._clock = clock
        #: Allocated blocks right after the last full pass.
        self.baseline = 0
        self.full_passes = 0
        self._last_full = clock()
        self._task: asyncio.Task | None = None
        #: Reads holding the collector off now (:meth:`quiet`), and its guard.
        self._quiet = 0
        self._quiet_since = 0.0  # when the reads holding it off now began
        self._was_enabled = True
        self._quiet_lock = threading.Lock()
        #: Reads whose objects are still alive (:meth:`hold`), and since when.
        self._holds = 0
        self._held_since = 0.0

    @contextmanager
    def quiet(self) -> Iterator[None]:
        """No pass while the block runs (on any thread): automatic collection is off
        and :meth:`tick` waits; when the last such block ends, what is left is frozen
        (as a tick freezes it) and automatic collection is on again. Reference
        counting still frees everything meanwhile; only cycles wait, for the next
        full pass."""
        with self._quiet_lock:
            self._quiet += 1
            if self._quiet == 1:
                self._quiet_since = self._clock()
                self._was_enabled = gc.isenabled()
                gc.disable()
        try:
            yield
        finally:
            with self._quiet_lock:
                self._quiet -= 1
                if self._quiet == 0:
                    if self._task is not None:  # stopped: everything was handed back
                        gc.freeze()
                    if self._was_enabled:
                        gc.enable()

    def hold(self) -> Callable[[], None]:
        """Hold :meth:`tick` off until the returned callable is called (once; later
        calls do nothing): a read of the log, from when it is begun on the event loop
        until the last of its events is dropped (:func:`~rollbridge.server.let_go.let_go`).
        Its ``quiet`` ends on the reader thread before the loop has its events, and
        they are freed a few a turn after that: a tick meanwhile measured a heap grown
        by all of them, and its full pass walked them — seconds of the interpreter's
        lock, to free nothing they would not free themselves (hostile28). Holds that
        follow one another without a gap wait :attr:`max_quiet` and
        :attr:`max_overdue` seconds at most, as :meth:`quiet` reads do. Automatic
        collection is not touched."""
        with self._quiet_lock:
            self._holds += 1
            if self._holds == 1:
                self._held_since = self._clock()
        released = False

        def release() -> None:
            nonlocal released
            with self._quiet_lock:
                if not released:
                    released = True
                    self._holds -= 1

        return release

    @property
    def overdue(self) -> bool:
        """Whether reads (:meth:`quiet`) or their holds (:meth:`hold`) have followed
        one another for :attr:`max_quiet` seconds or more: the server then begins no
        new read of the log a client asks, so that the reads out end and the manager
        steps without walking their objects."""
        now = self._clock()
        return (self._quiet > 0 and now - self._quiet_since >= self.max_quiet) or (
            self._holds > 0 and now - self._held_since >= self.max_quiet
        )

    @property
    def holding(self) -> bool:
        """Whether a read's objects hold :meth:`tick` off now (:meth:`hold`)."""
        return self._holds > 0

    def start(self) -> None:
        """Begin (in a running event loop) with a full pass, then freeze."""
        self.full_pass()
        self._task = asyncio.get_running_loop().create_task(self._run())

    def stop(self) -> None:
        """Stop and hand every object back to the collector."""
        if self._task is not None:
            self._task.cancel()
            self._task = None
        gc.unfreeze()

    def tick(self) -> None:
        """One step: a full pass if the heap grew enough or the last pass is
        :attr:`max_age` old, else a freeze; nothing while a read is :meth:`quiet` or
        its events are still being let go (:meth:`hold`), unless such reads (or
        holds) have followed one another for :attr:`max_quiet` and
        :attr:`max_overdue` seconds (two reader threads' reads overlapping without
        end held every pass off, and the heap's growth unchecked, for as long as
        they went on; past :attr:`max_quiet` the server begins no new one a client
        asks, :attr:`overdue`, so only reads it cannot refuse get that far). Such a
        step starts the reads' count again: they are not :attr:`overdue` for another
        :attr:`max_quiet` seconds (reads the server cannot refuse, without end, must
        not have every other read refused for as long as they go on)."""
        now = self._clock()
        bound = self.max_quiet + self.max_overdue  # new reads are refused past max_quiet
        if self._quiet and now - self._quiet_since < bound:
            return
        if self._holds and now - self._held_since < bound:
            return  # a read's events are still being let go (:meth:`hold`)
        with self._quiet_lock:  # stepped: the reads still out count afresh from now,
            if self._quiet:  # so new ones are refused for max_overdue of each bound,
                self._quiet_since = now  # not for as long as they go on
            if self._holds:
                self._held_since = now
        grown = sys.getallocatedblocks() > max(self.baseline, _FLOOR) * self.growth
        if grown or self._clock() - self._last_full >= self.max_age:
            self.full_pass()
        else:
            gc.freeze()

    def full_pass(self) -> None:
        """Collect everything, frozen or not, then freeze what is left."""
        started = time.perf_counter()
        gc.unfreeze()
        found = gc.collect()
        gc.freeze()
        self.baseline = sys.getallocatedblocks()
        self._last_full = self._clock()
        self.full_passes += 1
        log.debug(
            "full collection: %d unreachable, %d blocks in use, %.0f ms",
            found,
            self.baseline,
            (time.perf_counter() - started) * 1e3,
        )

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            self.tick()
