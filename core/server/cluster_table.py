"""One table's protocol in a cluster of processes (issue 13, item 2): sans-I/O.

:class:`ClusterTable` is the :class:`~rollbridge.protocol.table.TableProtocol`
with three additions, each an effect for the cluster driver
(:mod:`rollbridge.server.cluster`) to carry out:

* **forwarding** — a change (a request that writes) is executed only by the
  process holding the table's lease, the *owner*. Elsewhere, once the table's own
  checks passed (parse, role, a reply already known), :meth:`_execute` returns a
  :class:`Forward`: the driver sends the request to the owner, or takes the table
  over when nobody holds it (:meth:`take_over`), and hands the owner's reply back
  (:meth:`forwarded`);
* **following** — a process that does not own the table keeps it in memory for its
  clients (welcome, resume, ``state``, ``odds``, ``stats``) and follows the stored
  log: the driver calls :meth:`notified` with each commit's ``(epoch, seq)`` the
  commit script publishes (and with the stored seq it polls), which becomes a
  :class:`Sync` read — the table as stored plus every event since the last one this
  process delivered — and :meth:`follow` delivers exactly the events after the last
  delivered seq, in seq order: an event is never skipped (a gap is read from the
  log) and never sent twice (``Member.last_seq``);
* **resume on a follower** — a ``hello`` that resumes from a seq this process has
  not reached yet first syncs, so the member is sent exactly what it missed;
* **a broken table that nothing waits on lets go** — the driver calls :meth:`tick`
  every poll: a table whose reload failed (a passing Redis error) loads itself again,
  with a growing pause between tries, for as long as a client is at it or a request
  waits; a reply parked for an event this process cannot read gives up after a
  bounded wait (``store_error``; the log says why, ``reason`` ``not_synced``); and
  with nothing waiting and no client, the table counts as unused, so the owner gives
  its lease up and it leaves memory (before, a parked reply of a client long gone
  kept it for good); after :data:`HAND_OVER_AFTER` failed reloads in a row it is
  :attr:`~ClusterTable.stuck`: the owner gives its lease up even with a client there
  (another process may read it).

Nothing here performs I/O: :class:`Sync` is a :class:`~rollbridge.protocol.effects.Read`
run on a reader thread like any other.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rollbridge.engine.follow import Unfit, continues
from rollbridge.engine.model import Event, Principal
from rollbridge.engine.table import ApplyFailed, Table
from rollbridge.exceptions import InternalError, RollbridgeError, StoreError
from rollbridge.plain import JSON
from rollbridge.protocol.effects import Deliver, Effect, Read, Reply
from rollbridge.protocol.keys import KeySet
from rollbridge.protocol.members import Delivery, Member
from rollbridge.protocol.table import FAILED, TableProtocol, _Asker, _Held
from rollbridge.stores.base import LogTail
from rollbridge.stores.redis_fence import fence_if_behind
from rollbridge.text import Messages

if TYPE_CHECKING:
    from rollbridge.dice.sources import DiceSource
    from rollbridge.engine.requests import Request
    from rollbridge.stores.base import Store

__all__ = [
    "HAND_OVER_AFTER",
    "RETRY_FIRST",
    "RETRY_MOST",
    "ClusterTable",
    "Forward",
    "Ownership",
    "Parked",
    "Sync",
]

log = logging.getLogger("rollbridge.cluster")
say = Messages("rollbridge")

Effects = list[Effect]

#: Seconds before a broken table (its reload failed) first loads itself again, and
#: the most between two tries (the pause doubles from one to the other).
RETRY_FIRST = 0.5
RETRY_MOST = 8.0
#: Reloads failed in a row after which the process that owns a broken table gives
#: its lease up (:attr:`ClusterTable.stuck`): another process may read the table.
HAND_OVER_AFTER = 3

# Translators: a change forwarded to another process was written there as event {seq},
# but this process could not read it back in time; {seconds} is a number.
NOT_SYNCED = say(
    "cluster.not_synced",
    "the change was written (event {seq}), but this process could not read it back from "
    "the store within {seconds} s; send the request again (with the same id) for its result",
)


def _pause(failures: int, first: float, most: float) -> float:
    """Seconds before the next reload of a table whose last ``failures`` reloads
    failed: ``first``, doubled after each failure, at most ``most`` — the power
    capped before it is computed (after 1,025 failures in a row it would no longer
    fit a float)."""
    pause = first
    for _ in range(max(0, failures - 1)):
        if pause >= most:
            break
        pause *= 2
    return min(most, pause)


class Ownership:
    """Which tables this process owns (holds the lease of): what a
    :class:`ClusterTable` asks before it executes a change. The driver's lease
    keeper (:class:`rollbridge.server.cluster.ClusterServer`) keeps it.

    :attr:`owned` is read-only (a frozen set, replaced on each change): every change
    goes through :meth:`take`, :meth:`drop` or :meth:`clear`, which bump
    :attr:`version` — what the driver's subscription loop compares to know when to
    work out its channels again (it is not subscribed to the tables owned here)."""

    def __init__(self) -> None:
        self._owned: frozenset[str] = frozenset()
        self._version = 0

    @property
    def owned(self) -> frozenset[str]:
        """The ids of the tables owned here (a snapshot: later changes replace it)."""
        return self._owned

    @property
    def version(self) -> int:
        """A count of the changes to :attr:`owned`: equal versions, equal sets."""
        return self._version

    def owns(self, table_id: str) -> bool:
        """Whether this process holds the lease of ``table_id``."""
        return table_id in self._owned

    def take(self, table_id: str) -> bool:
        """Record the lease of ``table_id`` as held here; whether it was not already."""
        if table_id in self._owned:
            return False
        self._owned = self._owned | {table_id}
        self._version += 1
        return True

    def drop(self, table_id: str) -> bool:
        """Record the lease of ``table_id`` as no longer held here; whether it was."""
        if table_id not in self._owned:
            return False
        self._owned = self._owned - {table_id}
        self._version += 1
        return True

    def clear(self) -> None:
        """Record every lease as given up (the process stops)."""
        if self._owned:
            self._owned = frozenset()
            self._version += 1


@dataclass(eq=False, slots=True)
class Sync(Read):
    """The table as stored, and every retained event after ``after`` up to its seq:
    ``((snapshot, history, reply keys, retained), events or None)``; None when some
    of those events have left the log. ``retained`` (for :class:`Table`'s keyword)
    is None when ``history`` holds every undo and redo entry's event.

    A store with a ``follow`` method (:meth:`RedisStore.follow
    <rollbridge.stores.redis.RedisStore.follow>`) reads it all at once, and only the
    recent undo and redo entries' events that are not in ``known`` (the packed events
    the table here holds, valid in ``epoch``, taken on the loop thread when this
    effect is made); other stores: ``load``, ``reply_keys`` and ``events_after``.

    With ``tail``, a store with a ``follow_log`` method is asked for the log after
    ``after`` first: when its events continue the table here exactly (the same
    ``epoch``, no gap, kinds it can apply: :func:`~rollbridge.engine.follow.continues`)
    that :class:`~rollbridge.stores.base.LogTail` is the result, to apply to the table
    in memory (:meth:`ClusterTable.follow_log`); otherwise the whole table is read."""

    after: int = 0
    known: dict[int, bytes] = field(default_factory=dict)
    epoch: int | None = None
    tail: bool = False
    #: A point a client's ``resume`` names as seen, ``(epoch, seq)``: checked like this
    #: process's own ``(epoch, after)`` (:meth:`run`).
    claim: tuple[int, int] | None = None

    def run(self, store: Store) -> LogTail | tuple[tuple[Any, Any, list[str], Any], Any]:
        """The log alone when it continues the table here (``tail``, see the class);
        else :meth:`read`, and when the table read is behind what this process
        delivered or a client saw, the store fences it with a new epoch first and it
        is read again (:mod:`rollbridge.stores.redis_fence`). A log that does not
        continue the table (a stored seq below :attr:`after`, another epoch) is never
        applied: it takes the second way, which fences."""
        if self.tail and self.claim is None:
            tail = self._tail(store)
            if tail is not None:
                return tail
        result = self.read(store)
        known = [(self.epoch, self.after) if self.epoch is not None else None, self.claim]
        if fence_if_behind(store, self.table_id, result[0][0].info, known):
            result = self.read(store)
        return result

    def read(self, store: Store) -> tuple[tuple[Any, Any, list[str], Any], Any]:
        """The table as stored and the events after :attr:`after` (see the class)."""
        follow = getattr(store, "follow", None)
        if follow is not None:
            got = follow(self.table_id, self.after, self.known, self.epoch)
            return (got.snapshot, got.history, got.keys, got.retained), got.events
        snapshot, history = store.load(self.table_id)
        keys = store.reply_keys(self.table_id)
        seq = snapshot.info.seq
        events: list[Event] | None = []
        if self.after < seq:
            events = store.events_after(self.table_id, self.after)
            if events is not None:  # what a later commit added is left for the next sync
                events = [e for e in events if e.seq <= seq]
        return (snapshot, history, keys, None), events

    def _tail(self, store: Store) -> LogTail | None:
        """The log after ``after``, if the store reads it alone and its events continue
        the table here exactly; else None."""
        follow_log = getattr(store, "follow_log", None)
        if follow_log is None or self.epoch is None:
            return None
        tail: LogTail = follow_log(self.table_id, self.after)
        if tail.epoch != self.epoch:
            return None
        if not continues(tail.events, epoch=self.epoch, after=self.after, latest=tail.seq):
            return None
        return tail

    @classmethod
    def of(cls, protocol: TableProtocol, after: int, *, tail: bool = False) -> Sync:
        """A sync of ``protocol``'s table, knowing the events it holds in memory up
        to its last durable seq (a later one may never have been stored); ``tail``:
        the log alone when its events can be applied to the table (see the class)."""
        table = protocol.table
        known = {s: b for s, b in table.recent_history().items() if s <= protocol.durable_seq}
        return cls(table_id=protocol.id, after=after, known=known, epoch=table.info.epoch,
                   tail=tail)  # fmt: skip


@dataclass(eq=False, slots=True)
class _Kept:
    """A table's state before a reload, for a catch-up that fails to restore."""

    table: Table
    writing: list[Event]
    keys: KeySet
    durable_seq: int
    last_seqs: dict[Member, int]


@dataclass(eq=False, slots=True)
class Parked:
    """A forwarded change's reply waiting for the event it names (``seq``) to be
    delivered here; ``due`` (the driver's monotonic clock, set at the first
    :meth:`ClusterTable.tick` after it was parked) is when it stops waiting and its
    requester is told ``store_error`` instead."""

    seq: int
    reply: Reply
    asker: Any
    due: float | None = None


@dataclass(eq=False, slots=True)
class Forward(Effect):
    """Send a change to the table's owner (the driver finds it, or takes the table
    over), then hand the owner's reply to :meth:`ClusterTable.forwarded`."""

    table_id: str = ""
    message: Mapping[str, Any] = field(default_factory=dict)
    principal: Principal | None = None
    locale: str = "en"
    asker: Any = None
    held: Any = None
    #: The table that forwards it (:meth:`ClusterTable.forwarded`, :meth:`~ClusterTable.take_over`).
    table: Any = None
    #: Whether a :meth:`~ClusterTable.take_over` of it must load the table again: False
    #: when this process already held the lease (another change took the table over first).
    reload: bool = True
    #: The process that ran the table before this one took its lease (None: none this
    #: process saw, or it stopped: its first load here, or after its runner's SIGTERM).
    taken_from: str | None = None


class ClusterTable(TableProtocol):
    """A table protocol that executes changes only while this process owns the
    table, forwards them otherwise, and follows the stored log; see the module
    docstring.

    :param ownership: this process's leases.
    :param options: as for :class:`~rollbridge.protocol.table.TableProtocol`.
    """

    #: Its reload reads the events stored since the last one delivered, and sends them.
    reload_sends_missed = True

    def __init__(self, table: Table, *, ownership: Ownership, **options: Any) -> None:
        super().__init__(table, **options)
        self.ownership = ownership
        #: The highest seq a notification named; a sync is running.
        self.wanted = table.info.seq
        self.syncing = False
        #: A resync was asked while a sync ran (whose read may have come before what
        #: the resync is to cover): another sync follows it.
        self.again = False
        #: Forwarded replies that name an event not yet delivered here: each waits
        #: for its event, so the requester sees the event before the result, as it
        #: would at the owner — for a bounded time (:meth:`tick`), and only while its
        #: requester is there (:meth:`leave`).
        self.parked: list[Parked] = []
        #: Changes forwarded to the owner and not answered yet: the table stays in
        #: memory for them (an answer, or a take-over, comes back to this copy) even
        #: when the client that sent one has left.
        self.forwards_out = 0
        #: A reload is running (:meth:`_reload`); how many in a row failed; when
        #: (the driver's clock) the next try is due, set by :meth:`tick`.
        self.reloading = False
        self.failures = 0
        self.retry_at: float | None = None
        #: Syncs failed in a row: the first is logged as a WARNING, the others (one a
        #: poll while the error lasts) as DEBUG, and the next that works says so.
        self.sync_failures = 0
        #: The process last seen running this table while this one forwarded to it
        #: (None: none seen since this process last held its lease): a lease found
        #: free after that is a take-over from it, not a first load.
        self.ran_by: str | None = None
        #: Resumes from a seq this process's own commit, still out, writes (a client
        #: sent it by a follower, which read it stored), or from a seq ahead while the
        #: table is being loaded again (a commit of it failed — after it was stored,
        #: maybe): each joins once that commit, or that load, has come back
        #: (:meth:`_came_back`, :meth:`_reload`), not before, as a snapshot.
        self._after_writes: list[tuple[Member, Mapping[str, Any]]] = []

    @property
    def used(self) -> bool:
        """A member, or anything running or waiting: the process that owns it keeps
        its lease. (A broken table is not used for being broken: once nothing waits
        on it, its lease is given up.)"""
        return not super().idle or self.syncing or bool(self.parked) or self.forwards_out > 0

    @property
    def stuck(self) -> bool:
        """Broken, its last :data:`HAND_OVER_AFTER` reloads (or more) failed in a
        row, and nothing of it being read or written now: the process that owns it
        gives its lease up, its clients staying (it tries on as a follower; another
        process, whose reads may work, can take the table over meanwhile)."""
        return (
            self.broken
            and not self.reloading
            and not self._writes
            and self.failures >= HAND_OVER_AFTER
        )

    @property
    def idle(self) -> bool:
        """Droppable: no member, nothing running, and not owned by this process."""
        return (
            super().idle
            and not self.syncing
            and not self.forwards_out
            and not self.ownership.owns(self.id)
        )

    # -- forwarding ---------------------------------------------------------------

    def _execute(
        self, request: Request, who: Principal, asker: _Asker, dice: DiceSource | None
    ) -> Effects:
        if self.ownership.owns(self.id):
            return super()._execute(request, who, asker, dice)
        held = _Held(request.message(), who, asker, dice)  # a repeat stays one
        self.forwards_out += 1  # until forwarded, refuse_forward or take_over
        return [
            Forward(
                table_id=self.id,
                message=held.message,
                principal=who,
                locale=asker.locale,
                asker=asker,
                held=held,
                table=self,
            )
        ]

    def forwarded(self, forward: Forward, message: JSON) -> Effects:
        """The owner's reply to a forwarded request: for the requester, once the
        event it names (if any) has been delivered here. (A bug on the way answers
        the requester ``internal``: :meth:`_guarded`.)"""
        self.forwards_out -= 1
        return self._guarded(forward.asker, lambda: self._forwarded(forward, message))

    def _forwarded(self, forward: Forward, message: JSON) -> Effects:
        asker: _Asker = forward.asker
        message = dict(message)
        if asker.member is not None and asker.member.brief and message.get("status") != "secret":
            # the owner answered a requester it does not see as brief: the event comes
            # as a frame anyway (a secret roll's requester view is the one exception)
            message.pop("event", None)
        reply = self._reply(asker, message, None)
        if message.get("type") == "error":  # for the driver's log and metrics
            reply.error = RollbridgeError(str(message.get("message", "")),
                                          code=str(message.get("code", "error")))  # fmt: skip
        seq = message.get("seq")
        if isinstance(seq, int) and not isinstance(seq, bool) and seq > self.durable_seq:
            if not asker.waiting():  # its client left meanwhile: nobody to keep it for
                return []
            synced = self.notified(self.table.info.epoch, seq)  # a bug here: not parked,
            self.parked.append(Parked(seq, reply, asker))  # or it were answered twice
            return synced
        return [reply]

    def refuse_forward(self, forward: Forward, error: RollbridgeError) -> Effects:
        """A forward that failed (no owner answered, Redis failed): the requester is
        told, and may send the request again with the same id."""
        self.forwards_out -= 1
        return [self._refuse(forward.asker, error)]

    def take_over(self, forward: Forward) -> Effects:
        """This process has just taken the table's lease: load the table again (the
        last owner may have committed since it was loaded here), then execute the
        request that was to be forwarded, and every one held meanwhile. A forward the
        driver found this process already owning (``forward.reload`` false: two changes
        raced for a free lease, and the other took it) is not loaded again — the table
        here is the stored one, plus this process's commits in flight, which a second
        reload would miss (their seq would be taken twice, and a commit refused).
        A bug on the way answers the requester ``internal`` (once: it is not held
        for a reload any more); a table it left broken is loaded again by :meth:`tick`."""
        self.forwards_out -= 1  # owned now: the lease keeps the table in memory
        try:
            return self._take_over(forward)
        except Exception as exc:  # a refusal keeps its own code; a bug is ``internal``
            self._held = deque(h for h in self._held if h is not forward.held)
            if isinstance(exc, RollbridgeError):
                return [self._refuse(forward.asker, exc)]
            return self._failed_request(forward.asker)

    def _take_over(self, forward: Forward) -> Effects:
        if self.broken:
            # another request took over first: its reload is running, and this one
            # waits for it — or it failed, and this one starts another (waiting for a
            # reload that was not running, it waited for good, and so did every
            # request after it)
            self._held.append(forward.held)
            return [] if self.reloading or self._drain_then_reload else self._reload()
        if not forward.reload:
            held = forward.held
            return self._handle(held.message, held.who, held.asker, held.dice)
        self.broken = True  # what runs now waits for the reload, as after a failed commit
        self._held.append(forward.held)
        self.generation += 1
        return self._reload()

    # -- following ------------------------------------------------------------------

    def notified(self, epoch: int, seq: int) -> Effects:
        """The stored table is at ``(epoch, seq)`` (a commit's notice, or a poll):
        sync when it is ahead of this process."""
        if epoch == self.table.info.epoch and seq <= self.table.info.seq:
            return []
        self.wanted = max(self.wanted, seq) if epoch == self.table.info.epoch else seq
        if self.syncing or self.broken:  # broken: its reload reads it all (:meth:`tick`)
            return []
        return [self._sync()]

    def resync(self) -> Effects:
        """Sync whatever the last notice said (after a lost subscription or lease, a
        new subscription). While a sync runs, another is made once it is done: the
        running one may have read the store before what this one is to cover."""
        if self.syncing:
            self.again = True
            return []
        if self.broken:  # its reload reads it all (:meth:`tick`)
            return []
        return [self._sync()]

    def _sync(self, *, tail: bool = True) -> Sync:
        """A sync of what was stored after the last seq delivered: the log alone when
        its events can be applied to the table here (``tail``), else the whole table."""
        read = Sync.of(self, self.durable_seq, tail=tail)  # first: a bug here leaves
        self.syncing = True  # no sync marked running for good (none would ever follow)
        read.on_result = self._synced
        read.on_error = self._sync_failed
        return read

    def _sync_failed(self, error: BaseException) -> Effects:
        self.syncing = self.again = False
        self.sync_failures += 1
        level = logging.WARNING if self.sync_failures == 1 else logging.DEBUG
        log.log(level, "table %s: following the stored log failed: %s", self.id, error)
        return []  # the next notice or poll tries again

    def _synced(self, result: LogTail | tuple[tuple[Any, Any, list[str], Any], Any]) -> Effects:
        self.syncing = False
        if self.sync_failures:
            log.info("table %s: following the stored log works again, after %d failed "
                     "tries", self.id, self.sync_failures)  # fmt: skip
            self.sync_failures = 0
        if isinstance(result, LogTail):
            return self.follow_log(result) + self._more()
        return self.follow(result) + self._more()

    def _more(self) -> Effects:
        """After a sync: another, when a notice named a later seq meanwhile or a
        resync was asked (unless this process is writing: its own commits decide, or
        a sync of the whole table is running already)."""
        if self.syncing:
            return []
        again, self.again = self.again, False
        if (again or self.wanted > self.table.info.seq) and not self.broken and not self._writes:
            return [self._sync()]
        return []

    def follow(self, result: tuple[tuple[Any, Any, list[str], Any], Any]) -> Effects:
        """Take the stored table (a :class:`Sync`'s result) and deliver the events
        after the last one delivered, in seq order; replies parked for them follow."""
        (snapshot, history, keys, retained), events = result
        if self._writes or self.broken:  # this process is writing: its own commits decide
            return []
        info = snapshot.info
        if info.epoch == self.table.info.epoch and info.seq <= self.durable_seq:
            return self._unpark()
        before, epoch = self.durable_seq, self.table.info.epoch
        try:  # with the clock, key and limits for the events it makes if it takes over
            table = self.adopt(Table(snapshot, self.table.ruleset, history, retained=retained))
            reply_keys = KeySet(keys, seq=info.seq)
        except Exception:  # a stored table this code cannot take in (a bug): nothing changed
            log.exception("table %s: the table read cannot be taken in", self.id)
            return self._not_followed()
        self.table, self._keys = table, reply_keys
        self._recent.clear()
        self.writing = []
        if self._reading and info.epoch != epoch:
            # another history (a fence): a read out now may hold the old one's events
            # at these seqs, which must not be walked through (as after a reload)
            self._reads_stale = True
        self.durable_seq = info.seq
        return self._followed(before, epoch, events) + self._unpark()

    def follow_log(self, tail: LogTail) -> Effects:
        """Apply the events of ``tail`` (a :class:`Sync`'s result when they continue
        the table here) to the table in memory, as the owner's table changed when it
        executed them (:meth:`Table.follow`), and deliver them; replies parked for
        them follow. Events that do not fit the table after all (an actor, a stack or
        a pending request not as they found it) change nothing: the whole table is
        read instead (a sync of it)."""
        if self._writes or self.broken:  # this process is writing: its own commits decide
            return []
        table = self.table
        if tail.epoch == table.info.epoch and tail.seq <= self.durable_seq:
            return self._unpark()
        before, epoch = self.durable_seq, table.info.epoch
        events = [e for e in tail.events or () if e.seq > before]
        try:
            if tail.events is None or table.info.seq != before:
                raise Unfit(f"no events to apply after {before}")
            table.follow(events, kept_from=tail.kept_from)
        except Unfit as exc:
            log.info("table %s: reading it whole: %s", self.id, exc)
            return [self._sync(tail=False)]
        except ApplyFailed:  # changed in part (a bug): as a table ahead of the store
            log.exception("table %s: applying the events followed failed", self.id)
            return self._not_followed()
        except Exception:  # a bug working out what they change: nothing changed
            log.exception("table %s: the events followed cannot be applied; reading it "
                          "whole", self.id)  # fmt: skip
            return [self._sync(tail=False)]
        self._recent.clear()
        self.writing = []
        self.durable_seq = table.info.seq
        return self._followed(before, epoch, events) + self._unpark()

    def _not_followed(self) -> Effects:
        """Taking in what the owner stored raised (a bug, its traceback logged): the
        table here may be changed in part (:class:`ApplyFailed`), and its members were
        not sent those events. It is loaded again (:meth:`_reload`, which sends them
        the events stored since the last one they were sent, or closes them to
        resume), as after a failed commit; requests meanwhile wait for it, and a
        reload that fails is tried again by :meth:`tick`. (No commit of this process
        is out: a follower's sync is dropped while one is.)"""
        self.generation += 1
        self.broken = True
        return self._reload()

    def _followed(self, before: int, epoch: int, events: list[Event] | None) -> Effects:
        """:meth:`_catch_up` after the table here took the stored one's events in; a
        bug sending them (the table has moved on: nothing would send them again) closes
        every member with 1013 to resume, as a gap does — never does one go on having
        missed them unaware."""
        try:
            return self._catch_up(before, epoch, events)
        except Exception:
            log.exception("table %s: sending the members the events followed failed; "
                          "members reconnect", self.id)  # fmt: skip
            return self._resync_members()

    def _catch_up(self, before: int, epoch: int, events: list[Event] | None) -> Effects:
        """The table was replaced by the stored one: its members are sent the events
        from ``before`` (the last seq delivered, in ``epoch``) on, or, when those
        cannot all be read (a new epoch, events gone from the log), are closed with
        1013 to reconnect and resume (a snapshot, ``recovered: false``)."""
        info = self.table.info
        if info.epoch != epoch:  # the seqs a notice of the old epoch named mean nothing now
            self.wanted = info.seq
            # and so do the seqs forwarded replies wait for: their requesters are closed
            # below and resume; a retry is answered by the owner (stored) or runs again
            self.parked = []
        fresh = [e for e in events or () if e.seq > before and e.epoch == info.epoch]
        whole = (
            info.epoch == epoch
            and events is not None
            and [e.seq for e in fresh] == list(range(before + 1, info.seq + 1))
        )
        if not whole:
            log.warning("table %s: cannot follow to %s:%s; members reconnect",
                        self.id, info.epoch, info.seq)  # fmt: skip
            return self._resync_members()
        effects: Effects = []
        if self._reading:
            self._since_read.extend(fresh)
        self.table.recall(fresh)  # each shown as it left the table (it is at the last now)
        frames = self._frames([Delivery(self.table, event) for event in fresh])
        if frames:
            effects.append(Deliver(frames=frames))
        for event in fresh:
            event.views.clear()
        return effects

    def _reload(self) -> Effects:
        """As :meth:`TableProtocol._reload` (after a refused commit, or a takeover),
        reading the events committed elsewhere since the last one delivered here
        too: the members are sent them before anything that follows."""
        before, epoch = self.durable_seq, self.table.info.epoch
        effects = super()._reload()
        try:
            load = effects[-1]
            sync = Sync.of(self, before)
        except Exception:  # a bug: no load goes out, as a reload that failed
            return self._reload_unmade()
        loaded, failed = load.on_result, load.on_error
        assert loaded is not None and failed is not None

        def then(result: tuple[tuple[Any, Any, list[str], Any], Any]) -> Effects:
            effects = loaded_again(result)
            return effects + ([] if self.reloading else self._join_waiting())

        def loaded_again(result: tuple[tuple[Any, Any, list[str], Any], Any]) -> Effects:
            stored, events = result
            # the table as it stands: what a catch-up that fails leaves it as
            kept = _Kept(self.table, self.writing, self._keys, self.durable_seq,
                         {m: m.last_seq for m in self.members})  # fmt: skip
            self._holding += 1  # the held requests run after the catch-up
            reopened = loaded(stored)
            if self.broken:
                # the table read does not fit here (``loaded`` logged why, let go of the
                # reload's hold and refused what it held): a failed reload like any
                # other, tried again by :meth:`tick`; this hold let go too
                self._holding -= 1
                self.reloading = False
                self.failures += 1
                return reopened
            try:
                caught_up = self._catch_up(before, epoch, events)
            except Exception:  # a bug: as a reload that failed, tried again by :meth:`tick`
                log.exception("table %s: catching up after loading it again failed; "
                              "will retry", self.id)  # fmt: skip
                return [*reopened, *self._catch_up_failed(kept)]
            self._holding -= 1
            self.reloading, self.failures = False, 0
            return [*reopened, *caught_up, *self._unpark(), *self._release()]

        def fail(error: BaseException) -> Effects:
            # still broken: tried again by :meth:`tick` while something waits on it
            self.reloading = False
            self.failures += 1
            return failed(error) + self._join_waiting()

        self.reloading = True
        sync.on_result, sync.on_error = then, fail
        return [*effects[:-1], sync]

    def _reload_unmade(self) -> Effects:
        """Making a reload raised before its read went out (a bug, its traceback
        logged): as a reload that failed — its hold let go, the requests held for it
        answered ``internal``, the table broken still (:meth:`tick`, or the next
        request, loads it) — and never what its caller made before it (a failed
        commit's refusals, the events and replies of a commit that came back) lost
        with an exception."""
        log.exception("table %s: making its reload failed; will retry", self.id)
        self._holding -= 1
        self.failures += 1
        return self._held_failed()

    def _held_failed(self) -> Effects:
        """The requests held for a reload that failed on a bug, answered ``internal``."""
        refused = [self._refuse(h.asker, InternalError(FAILED())) for h in self._held]
        self._held.clear()
        return refused

    def _catch_up_failed(self, kept: _Kept) -> Effects:
        """A reload's catch-up raised (a bug): the table is left as it was before the
        reload — ``kept``, broken still, its members' last delivered seqs as they
        were, so the next reload sends them what this one did not — and counted as a
        failed reload (:meth:`tick` tries again, :attr:`stuck` after a few); the
        reload's hold is let go and the requests it held are answered ``internal``."""
        self.table, self.writing, self._keys, self.durable_seq = (
            kept.table, kept.writing, kept.keys, kept.durable_seq,
        )  # fmt: skip
        for member, seq in kept.last_seqs.items():
            member.last_seq = seq
        if self._reading:  # the reads out may have seen the table read meanwhile
            self._reads_stale = True
        self.broken = True
        self._holding -= 1
        self.reloading = False
        self.failures += 1
        return self._held_failed()

    def _unpark(self) -> Effects:
        ready = [p.reply for p in self.parked if p.seq <= self.durable_seq]
        self.parked = [p for p in self.parked if p.seq > self.durable_seq]
        return ready

    # -- what nothing else would end ------------------------------------------------------

    def tick(
        self,
        now: float,
        *,
        patience: float,
        first: float = RETRY_FIRST,
        most: float = RETRY_MOST,
    ) -> Effects:
        """What time alone ends, at the driver's clock ``now`` (called every poll):

        * a parked reply waits ``patience`` seconds from the first tick that sees it;
          then its requester is told ``store_error`` (the log says why: ``reason``
          ``not_synced``; the change was written by the owner, and the same request
          id sent again gets its result), never left without an answer;
        * a broken table (its reload failed) loads itself again while something has
          a reason to wait for it — a member, a parked reply, a held request —
          ``first`` seconds after the first tick that sees it broken, the pause
          doubling after each failure up to ``most``. With no reason it is left
          broken and unused: its lease is given up and it leaves memory (the next
          process or client to need it loads it afresh).
        """
        effects = self._unpark()  # an event delivered by a path that does not unpark
        for parked in [p for p in self.parked if p.due is None]:
            parked.due = now + patience
        late = [p for p in self.parked if p.due is not None and p.due <= now]
        if late:
            self.parked = [p for p in self.parked if p not in late]
            for parked in late:
                error = StoreError(
                    NOT_SYNCED(seq=parked.seq, seconds=patience),
                    details={"reason": "not_synced", "table": self.id, "seq": parked.seq},
                )
                log.warning("table %s: refusing a parked reply: %s", self.id, error)
                effects.append(self._refuse(parked.asker, error))
        if not self.broken or self.reloading or self._drain_then_reload:
            # (a change never written: the table is loaded once the commits out are
            # back, :meth:`_writes_drained`; a load before would miss them)
            self.retry_at = None
            return effects
        if not (self.members or self.parked or self._held):
            self.retry_at = None  # nothing waits: unused, it goes
            return effects
        if self.retry_at is None:
            self.retry_at = now + _pause(self.failures, first, most)
        elif now >= self.retry_at:
            self.retry_at = None
            log.info("table %s: loading it again (try %d)", self.id, self.failures + 1)
            effects += self._reload()
        return effects

    # -- members ------------------------------------------------------------------------

    def leave(self, member: Member) -> None:
        """As :meth:`TableProtocol.leave`; the replies parked for the member go too
        (nobody is left to read them: a table is not kept for them)."""
        super().leave(member)
        if self.parked:
            self.parked = [p for p in self.parked if p.asker.waiting()]

    def _writing_through(self, seq: int) -> bool:
        """Whether a commit of this process's that is still out writes ``seq``."""
        return bool(self._writes) and any(e.seq >= seq for e in self.writing)

    def _came_back(self, writing: Any, error: BaseException | None) -> Effects:
        """As :meth:`TableProtocol._came_back`; then the resumes that waited for a
        commit of this process's join (:meth:`join`) — each again, which waits on
        while a commit still out writes its seq."""
        return super()._came_back(writing, error) + self._join_waiting()

    def _join_waiting(self) -> Effects:
        """The resumes that waited for a commit or a reload of this process's
        (:meth:`join`), each joined again — which waits on while a commit still out
        writes its seq, or a reload is out."""
        effects: Effects = []
        if self._after_writes:
            waiting, self._after_writes = self._after_writes, []
            for member, resume in waiting:
                effects += self.join(member, resume)
        return effects

    def join(self, member: Member, resume: Mapping[str, Any] | None) -> Effects:
        """As :meth:`TableProtocol.join`; a resume from a seq (or epoch) this process
        has not reached yet syncs first, so the member gets exactly what it missed —
        or, a seq a commit of this process's still out writes, waits for it to come
        back."""
        if resume is not None:
            seq, epoch = resume.get("seq"), resume.get("epoch")
            ahead = seq.__class__ is int and seq > self.durable_seq
            other = epoch.__class__ is int and epoch != self.table.info.epoch
            if ahead and not other and (self._writing_through(seq) or self.reloading):
                # a seq this process's own commit is writing (stored already: a
                # follower read it and sent it): the owner is not behind, only not yet
                # told. Joined then, the resume was answered with a snapshot at the
                # seq before (the sync below finds this process writing, and leaves
                # it). So too while the table is loaded again (that commit failed, but
                # was stored): the sync below finds the table broken and leaves it,
                # and the resume was answered from the table before the load
                if not member.gone:
                    self._after_writes.append((member, resume))
                return []
            if (ahead or other) and not (other and self.ownership.owns(self.id)):
                # a follower may lag; the owner is behind a client only if Redis went
                # back in time (the sync then fences the table with a new epoch)
                read = Sync.of(self, self.durable_seq)
                if ahead and not other and member.principal.role == "gm":
                    # only the GM's word moves a table to a new epoch: a player's
                    # resume past the stored seq is answered from the table as stored
                    # (``recovered: false``), or any player could restart the table
                    read.claim = (epoch, seq)
                self.syncing = True

                def then(result: Any) -> Effects:
                    self.syncing = False
                    try:
                        followed = self.follow(result)
                    except Exception:  # a bug: the hello is answered ``internal``,
                        # as one whose welcome failed
                        self.not_welcomed(member)
                        asker = _Asker(member.origin, member, member.hello_id, member.locale,
                                       gm=member.principal.is_gm)  # fmt: skip
                        return self._failed_request(asker) + self._more()
                    return followed + TableProtocol.join(self, member, resume) + self._more()

                def failed(error: BaseException) -> Effects:
                    self.syncing = self.again = False
                    log.warning("table %s: sync before a resume failed: %s", self.id, error)
                    return TableProtocol.join(self, member, resume)

                read.on_result, read.on_error = then, failed
                return [read]
        return super().join(member, resume)
