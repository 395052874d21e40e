"""Whether the store works, said once in the operator's log.

A full disk, a database locked by another program or a Redis gone fails every
change sent until it is mended — at a busy table several a second — and a line per
failure would bury the one that says what is wrong. :class:`StoreHealth` hears of
every failure of the store as a whole
(:class:`~rollbridge.exceptions.StoreUnavailable`) and of every commit that
succeeds, and logs:

* one ERROR when the store starts failing, with the store's own message (what is
  wrong, what to do), and again when the cause changes;
* at most one ERROR a minute while it goes on, with how many requests were refused;
* one WARNING when a commit succeeds again (or, if only reads failed — players
  joining while Redis was down, no change sent — when a read works): how long it
  failed and how many requests were refused meanwhile (none of them acknowledged).

Thread-safe: the commit writer's thread and the event loop (failed reads) report.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from rollbridge.exceptions import StoreUnavailable
from rollbridge.server.throttle import Throttle
from rollbridge.words import counted

__all__ = ["REMIND_EVERY", "StoreHealth"]

log = logging.getLogger("rollbridge.writer")

#: Seconds between two lines saying the store still fails.
REMIND_EVERY = 60.0


class StoreHealth:
    """See the module docstring (``clock``: monotonic seconds)."""

    def __init__(
        self, *, remind_every: float = REMIND_EVERY, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.remind_every = remind_every
        self._clock = clock
        self._lock = threading.Lock()
        #: The failure that began the current outage (None: the store works).
        self.failing: StoreUnavailable | None = None
        self._reason: object = None
        self._since = 0.0
        #: The reminders while an outage lasts: one line per ``remind_every``.
        self._remind = Throttle(remind_every, clock)
        #: Requests refused since the outage began.
        self.refused = 0
        #: A commit failed in this outage (not only reads): only a commit ends it.
        self._commit_failed = False
        #: Commits (and probes) failed since the start: a probe's success that comes
        #: back after one more failed is older news (:meth:`succeeded`).
        self.commit_failures = 0
        #: Outages begun since the start: a try of the store that began before the
        #: current one began speaks not for it (``/readyz``'s new connection:
        #: :mod:`rollbridge.server.ready_probe`).
        self.outages = 0

    @property
    def changes_failing(self) -> bool:
        """Whether an outage in which a commit failed goes on (only a write ends it:
        :mod:`rollbridge.server.store_probe` tries one while nothing else does)."""
        return self.failing is not None and self._commit_failed

    @property
    def reads_failing(self) -> bool:
        """Whether an outage in which only reads failed goes on (a read that works ends
        it: :mod:`rollbridge.server.store_probe` tries one while nothing else does)."""
        return self.failing is not None and not self._commit_failed

    def failed(
        self,
        error: StoreUnavailable,
        requests: int = 1,
        *,
        commit: bool = True,
        ongoing: bool = False,
    ) -> None:
        """The store failed as a whole; ``requests`` were refused for it (``commit``:
        a commit failed, else a read; ``ongoing``: only if an outage of changes goes
        on — a probe's refusal, which may come back after a commit ended the outage,
        begins none)."""
        now = self._clock()
        with self._lock:
            if ongoing and not (self.failing is not None and self._commit_failed):
                return
            self.refused += requests
            self.commit_failures += commit
            self._commit_failed = (self._commit_failed and self.failing is not None) or commit
            reason = error.details.get("reason")
            if self.failing is None or reason != self._reason:
                if self.failing is None:
                    self._since, self.refused = now, requests
                    self.outages += 1
                self.failing, self._reason = error, reason
                self._remind = Throttle(self.remind_every, self._clock)
                self._remind.allow()  # this line: the next reminder after remind_every
                line = (
                    "the store fails: %s. Changes are refused (clients get store_error) "
                    "until it works again; each one sent tries it"
                )
                args: tuple[object, ...] = (error,)
            elif self._remind.allow() is not None:
                line = "the store still fails, for %.0f s now (%s refused): %s"
                args = (now - self._since, counted(self.refused, "request"), error)
            else:
                return
        log.error(line, *args)

    def also_refused(self, requests: int) -> None:
        """``requests`` more were refused for the outage (queued behind a commit of
        their table that failed in it); nothing if the store works."""
        if self.failing is not None:
            with self._lock:
                self.refused += requests

    def read(self) -> None:
        """A read worked: that ends an outage in which only reads failed (a store
        that reads but refuses commits, a full disk, stays failing)."""
        if self.failing is not None and not self._commit_failed:
            self.succeeded(read=True)

    def succeeded(self, *, read: bool = False, failures: int | None = None) -> None:
        """A commit was written: the store works (again). ``failures``: a probe's
        write, begun when :attr:`commit_failures` was that — a commit that failed
        since is newer news, and the outage goes on."""
        if self.failing is None:  # the common case, without the lock
            return
        with self._lock:
            if self.failing is None or (read and self._commit_failed):
                return
            if failures is not None and failures != self.commit_failures:
                return
            seconds, refused = self._clock() - self._since, self.refused
            self.failing, self._reason, self.refused = None, None, 0
            self._commit_failed = False
        log.warning(
            "the store works again, after %.0f s: %s refused meanwhile "
            "(none of them acknowledged; their senders were told store_error)",
            seconds,
            counted(refused, "request was", "requests were"),
        )
