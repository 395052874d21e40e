"""What the table protocol asks its driver to do.

The protocol never performs I/O. Each of its methods returns a list of effects;
a driver (the offline :class:`~rollbridge.offline.TableService`, the WebSocket
server) carries each out and, for the ones that produce a result, hands it back
with :meth:`Effect.resume` (or :meth:`Effect.fail`), which returns the next
effects. Effects that come back this way:

* :class:`Read` — a store read (:meth:`Read.run` does it; run it off the event
  loop, on a thread); :class:`Compute`, work too long for the event loop, is one
  that reads no store;
* :class:`Persist` — write a commit durably, then resume with ``None``.

Effects that are done once carried out: :class:`Reply` (answer one request),
:class:`Deliver` (frames to members of the table), :class:`Close` (end a
connection), :class:`Notify` (tell observer plugins about durable events),
:class:`Reopened` (the table was loaded again: a driver with a commit queue
accepts that table's commits again).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rollbridge.engine.model import Commit, Event
from rollbridge.exceptions import RollbridgeError
from rollbridge.plain import JSON

if TYPE_CHECKING:
    from rollbridge.engine.table import Table
    from rollbridge.protocol.members import Member
    from rollbridge.stores.base import Store

__all__ = [
    "Close",
    "Compute",
    "Deliver",
    "Effect",
    "FindReply",
    "FindToken",
    "LoadTable",
    "Notify",
    "Persist",
    "Read",
    "ReadEvent",
    "ReadEvents",
    "Reopened",
    "Reply",
]

Effects = list["Effect"]


@dataclass(eq=False, slots=True)
class Effect:
    """Something for the driver to do. Effects that produce a result carry the
    protocol's continuation: hand the result to :meth:`resume`, a failure to
    :meth:`fail`; each returns the effects that follow."""

    on_result: Callable[[Any], Effects] | None = field(default=None, repr=False, kw_only=True)
    on_error: Callable[[BaseException], Effects] | None = field(
        default=None, repr=False, kw_only=True
    )

    def resume(self, result: Any = None) -> Effects:
        """The effect was carried out with ``result``; the effects that follow."""
        return self.on_result(result) if self.on_result is not None else []

    def fail(self, error: BaseException) -> Effects:
        """The effect failed; the effects that follow (usually error replies)."""
        if self.on_error is None:
            raise error
        return self.on_error(error)


# -- output ------------------------------------------------------------------------


@dataclass(eq=False, slots=True)
class Reply(Effect):
    """Answer one request.

    :param origin: the requester, as the driver passed it in.
    :param message: the whole reply (``{"type": "result" | "error", "id": …, …}``).
    :param error: the error, for a refused request (drivers without frames raise it).
    :param frame: the reply encoded for the requester, when it is a member.
    :param request: the type of the request answered (``roll``, ``hello``, …; None
        when it had no known type), for a driver's metrics.
    """

    origin: Any = None
    message: JSON = field(default_factory=dict)
    error: RollbridgeError | None = None
    frame: bytes | str | None = None
    request: str | None = None


@dataclass(eq=False, slots=True)
class Deliver(Effect):
    """Send frames to members of the table: ``(member, frame)`` in order.
    ``backlog``: a welcome and the events a resume missed, which a driver's
    limit on unsent bytes does not count."""

    frames: list[tuple[Member, bytes | str]] = field(default_factory=list)
    backlog: bool = False


@dataclass(eq=False, slots=True)
class Close(Effect):
    """Close a member's connection with a WebSocket close code and reason."""

    member: Member | None = None
    code: int = 1000
    reason: str = ""


@dataclass(eq=False, slots=True)
class Notify(Effect):
    """Tell observer plugins about events that are durable, in seq order
    (:func:`rollbridge.protocol.observers.notify`)."""

    table: Table | None = None
    events: list[Event] = field(default_factory=list)


@dataclass(eq=False, slots=True)
class Reopened(Effect):
    """The table was loaded again from the store after a failed commit."""

    table_id: str = ""


# -- the store ---------------------------------------------------------------------


@dataclass(eq=False, slots=True)
class Read(Effect):
    """A store read: :meth:`run` it (off the event loop), then :meth:`resume`
    with what it returned, or :meth:`fail` with what it raised. A driver whose
    reads wait their turn asks :meth:`wanted` when a read's turn comes: one that
    nobody waits for any more is resumed with None, unread."""

    table_id: str = ""
    #: Whether someone still waits for the read (None: always).
    needed: Callable[[], bool] | None = field(default=None, repr=False, kw_only=True)

    def run(self, store: Store) -> Any:
        """Do the read."""
        raise NotImplementedError

    def wanted(self) -> bool:
        """Whether the read is still needed (:attr:`needed`)."""
        return self.needed is None or self.needed()


@dataclass(eq=False, slots=True)
class Compute(Read):
    """Work too long for the event loop that reads no store (counting a log's
    statistics): :meth:`run` calls :attr:`work`. It is a :class:`Read` so that every
    driver carries it out as it does reads — off the event loop, on a reader thread,
    in turn with them, and not at all when nobody waits for it any more — then
    resumes with what ``work`` returned, or fails with what it raised. What ``work``
    reads must not change meanwhile: the protocol hands it what it needs."""

    work: Callable[[], Any] | None = field(default=None, repr=False)

    def run(self, store: Store) -> Any:
        assert self.work is not None, "nothing to compute"
        return self.work()


@dataclass(eq=False, slots=True)
class FindReply(Read):
    """The stored reply of an idempotency key (None: none)."""

    key: str = ""

    def run(self, store: Store) -> JSON | None:
        return store.reply(self.table_id, self.key)


@dataclass(eq=False, slots=True)
class ReadEvents(Read):
    """Every retained event after ``after``, up to ``until`` (inclusive) when given
    (None: some have left the log)."""

    after: int = 0
    until: int | None = None

    def run(self, store: Store) -> list[Event] | None:
        if self.until is None:  # a store written before ``until`` still serves this
            return store.events_after(self.table_id, self.after)
        return store.events_after(self.table_id, self.after, self.until)


@dataclass(eq=False, slots=True)
class ReadEvent(Read):
    """One retained event (None: it has left the log)."""

    seq: int = 0

    def run(self, store: Store) -> Event | None:
        return store.event(self.table_id, self.seq)


@dataclass(eq=False, slots=True)
class LoadTable(Read):
    """A table as the store holds it: its snapshot, the events its undo and redo
    stacks name, and the idempotency keys of its stored replies."""

    def run(self, store: Store) -> tuple[Any, dict[int, Event], list[str]]:
        snapshot, history = store.load(self.table_id)
        return snapshot, history, store.reply_keys(self.table_id)


@dataclass(eq=False, slots=True)
class FindToken(Read):
    """The token record of this table with this hash (None: no such token).

    ``address``: the address group whose allowance of wrong tokens the token took a
    place from (None: not counted); a driver that shares that count with other
    processes (``serve --redis``) takes a place there too before the read, and fails
    it with :class:`~rollbridge.protocol.limits.TokensRefused` when refused there.
    """

    token_hash: str = ""
    address: str | None = None

    def run(self, store: Store) -> Any:
        return store.find_token(self.table_id, self.token_hash)


@dataclass(eq=False, slots=True)
class Persist(Effect):
    """Write ``commit`` durably (its events and records are packed already), then
    :meth:`resume`; on a failure, :meth:`fail` with the error."""

    table_id: str = ""
    commit: Commit | None = None
