"""The table protocol: one table's requests, from a decoded message to their deliveries.

Sans-I/O, as websockets' ``protocol.py`` is for WebSocket: a driver feeds it
decoded requests (:meth:`TableProtocol.receive`), joins and leaves
(:meth:`~TableProtocol.join`, :meth:`~TableProtocol.leave`), and carries out the
:mod:`~rollbridge.protocol.effects` it returns, handing results back through
each effect. Every driver — the offline service, the WebSocket server, a Redis
driver — is then only I/O: it moves bytes, runs store reads on a thread, and
persists commits.

A request's life:

1. **parse and validate** the message (:func:`~rollbridge.engine.requests.parse_request`);
2. **role**: the request type's lowest role;
3. **idempotency**: a request whose id (scoped by its token) is being written
   waits for that write; one answered lately is answered from memory; one the
   store may know (the table's key filter says "maybe") becomes a
   :class:`~rollbridge.protocol.effects.FindReply` read, and the table's later
   requests wait behind it, in order;
4. **execute** on the table engine, which stages the result (packed, shown to
   every audience) before it applies it;
5. **the commit**: a :class:`~rollbridge.protocol.effects.Persist` for the driver;
6. once durable: **the deliveries** — every member its frame of each event
   (:class:`~rollbridge.protocol.members.Delivery`), the observer plugins, the
   reply to the requester (and to anyone who repeated its id meanwhile);
7. on a failed commit: every reply waiting on this table fails, and the table is
   **loaded again** from the store (:class:`~rollbridge.protocol.effects.LoadTable`)
   before its next request runs; when that load fails, the requests waiting for it
   are refused, and the next request (or a read that held some) loads it again.

What clients are shown is always durable: the ``welcome`` and ``state`` views are
taken at the last durable seq (walking back through the events still being
written), so a failed commit never leaves a client holding a change that did not
happen. Reading the table at an earlier seq and resuming from one read the log
(:class:`~rollbridge.protocol.effects.ReadEvents`), never on the caller's thread.
"""

from __future__ import annotations

import logging
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rollbridge.dice.sources import DiceSource, SecureDice
from rollbridge.dice.verifiable import DiceKey
from rollbridge.engine.approvals import settled_requests
from rollbridge.engine.context import SECRET_NOTE
from rollbridge.engine.epochs import shown as epochs_shown
from rollbridge.engine.history import UNDO_KINDS, check_undone, undone_states
from rollbridge.engine.model import Event, Principal
from rollbridge.engine.odds import answer_odds
from rollbridge.engine.redaction import Held
from rollbridge.engine.requests import REQUESTS, Request, parse_request, valid_id
from rollbridge.engine.table import MAX_ACTORS, MAX_EVENT_BYTES, ApplyFailed, Outcome, Table
from rollbridge.engine.views import Audience, hides_now
from rollbridge.exceptions import (
    STOPS,
    Busy,
    InternalError,
    InvalidRequest,
    NotRemembered,
    RateLimited,
    RollbridgeError,
    StoreError,
    StoreUnavailable,
    UnknownTable,
)
from rollbridge.odds.bounds import SERVER_BOUNDS, Bounds
from rollbridge.plain import JSON, NotPlain, quotable, valid
from rollbridge.protocol.effects import (
    Close,
    Compute,
    Deliver,
    Effect,
    FindReply,
    LoadTable,
    Notify,
    Persist,
    Read,
    ReadEvent,
    ReadEvents,
    Reopened,
    Reply,
)
from rollbridge.protocol.frames import encode, payload_size
from rollbridge.protocol.keys import KeySet
from rollbridge.protocol.members import Delivery, Member, npcs_of, result_frame, wants_public_view
from rollbridge.stats import check_scope, stats_counter
from rollbridge.stores.base import changes_after, first_held, reply_window
from rollbridge.text import Hides, Messages, catalogue_generation, privatized

__all__ = [
    "CLOSE_RESYNC",
    "CLOSE_TRY_LATER",
    "FAILED",
    "MAX_ASKED_READS",
    "MAX_QUEUED_READS",
    "RECENT_REPLIES",
    "ReadChanges",
    "ReadRecalled",
    "ReadRetained",
    "ReadSettled",
    "ReadUndos",
    "ReadUndosAt",
    "TableProtocol",
    "described_ruleset",
    "echo_id",
    "error_message",
    "welcome_fields",
    "welcome_message",
]

if TYPE_CHECKING:
    from rollbridge.stores.base import Store

log = logging.getLogger("rollbridge.protocol")
say = Messages("rollbridge")
_UNENCODABLE = say("reply.unencodable", "the reply could not be encoded")
#: What a request is told when the server failed on it (a bug, not a refusal):
#: error ``internal``; the operator's log has the traceback.
FAILED = say("server.failed", "the server failed; try again")
#: What a request that only repeats (``"repeat": true``) is told when the table does
#: not remember its id: error ``not_remembered``, nothing done.
_NOT_REMEMBERED = say(
    "request.not_remembered",
    "request {request} is not remembered: it was never sent with this join token, or "
    "answered too long ago; it was sent only to repeat, so nothing was done",
)

Effects = list[Effect]

#: Reads of the log that requests may have out at once at one table (``state`` at an
#: earlier seq, ``stats``, a repeated request whose event must be read back): each
#: may read the whole retained log on one of the driver's few store-reading threads,
#: which every table's joins need too. More wait their turn (players asking ``stats``
#: at once are each answered in turn), :data:`MAX_QUEUED_READS` at most.
MAX_ASKED_READS = 1
#: Requests' reads of the log that may wait their turn at one table; one more is
#: refused with ``busy``.
MAX_QUEUED_READS = 8
_READS_BUSY = say.plural(
    "limit.reads.queued",
    "{reading} read of this table's log is under way or waiting its turn, the "
    "most the server takes at once for one table; nothing was done: send the request "
    "again shortly",
    "{reading} reads of this table's log are under way or waiting their turn, the "
    "most the server takes at once for one table; nothing was done: send the request "
    "again shortly",
    count="reading",
)

#: Close code 1013, "try again later": the client reconnects with backoff and
#: resumes (docs/protocol.md, "Close codes"). Every 1013 the server sends is this one.
CLOSE_TRY_LATER = 1013
#: The close of a member sent to resume (``CLOSE_BEHIND`` of
#: :mod:`rollbridge.protocol.connection`): it missed events it cannot be sent here.
CLOSE_RESYNC = CLOSE_TRY_LATER

#: How many replies a table remembers in memory for repeated request ids (the
#: store remembers them for much longer; see ``reply_window``).
RECENT_REPLIES = 32


def echo_id(message: Mapping[str, Any]) -> Any:
    """The request's ``id`` as a reply may repeat it: a string of 1-64 characters
    of valid Unicode, or an integer within 64 bits; None for anything else."""
    value = message.get("id")
    return value if valid_id(value) else None


#: The longest cause of a store's failure the operator's log quotes (characters).
MAX_CAUSE = 500


def store_cause(error: BaseException) -> str:
    """A store's failure as the operator's log tells it: the store's own message (the
    type too when it is not rollbridge's), at most :data:`MAX_CAUSE` characters."""
    text = str(error) if isinstance(error, RollbridgeError) else f"{type(error).__name__}: {error}"
    return text if len(text) <= MAX_CAUSE else text[: MAX_CAUSE - 1] + "…"


def store_level(error: BaseException) -> int:
    """The level a store's failure is logged at by a table: DEBUG when the store
    failed as a whole (:class:`StoreUnavailable`: a full disk, Redis gone — the
    server's :mod:`~rollbridge.server.store_health` logs that once), INFO when the
    table is gone (:class:`UnknownTable`: deleted while it was played, the operator's
    doing), else ERROR."""
    if isinstance(error, StoreUnavailable):
        return logging.DEBUG
    return logging.INFO if isinstance(error, UnknownTable) else logging.ERROR


#: The longest error message sent (characters): one that quotes a client's long
#: value is cut.
MAX_MESSAGE = 600


def error_message(
    request_id: Any, error: RollbridgeError, locale: str = "en", hides: Hides = None
) -> JSON:
    """The ``error`` reply to a refused request, its message in ``locale`` for the
    asker's audience: ``hides(actor_id, aspect)`` is true where the asker may not
    see a private argument of the message (left out as in views); None for the GM.
    A store's failure is described to the operator's log only; the client is told
    to try again."""
    if isinstance(error, StoreError):
        error = StoreError(
            say(
                "store.failed",
                "the server's storage failed and could not confirm this; check the table, "
                "then try again shortly",
            )()
        )
    body = error.to_dict(locale, hides)
    # What it quotes may come from the client as it was sent: made safe and short.
    message = valid(body["message"])
    body["message"] = message if len(message) <= MAX_MESSAGE else message[: MAX_MESSAGE - 1] + "…"
    if "details" in body:  # a Private there, a stored form's too, sent as "<Private>"
        body["details"] = quotable(privatized(body["details"]))
    return {"type": "error", "id": request_id, **body}


@dataclass(eq=False, slots=True)
class ReadRetained(Read):
    """Every event of the retained log up to ``latest`` at least (None: the log kept
    moving while it was read): what ``stats`` counts."""

    latest: int = 0

    def run(self, store: Store) -> list[Event] | None:
        retain = max(0, store.retain)
        for _ in range(_RETAINED_TRIES):
            start = max(0, self.latest - retain)
            events = store.events_after(self.table_id, start)
            if events is not None:
                return events
            retain //= 2  # a commit pruned the oldest meanwhile: start later
        # a log written with a shorter ``retain`` than this store's (``serve`` with
        # ``--retain`` changed) starts later than any halving found
        return store.events_after(self.table_id, first_held(store, self.table_id, 0, self.latest))


@dataclass(eq=False, slots=True)
class ReadSettled(ReadRetained):
    """The retained log read for a GM's snapshot ``welcome`` (its ``settled``): the
    join's read, not a request's — its ``hello`` was counted at the table's rate when
    it came — so never refused for a read another client left the table owing
    (review rev28h: the welcome came without ``settled``, a failed read logged)."""


@dataclass(eq=False, slots=True)
class ReadRecalled(ReadEvents):
    """:class:`ReadEvents` for a repeated request's reply: its event and those after
    it up to the first that left the table as it is, to walk back through
    (:meth:`TableProtocol._read_answer`) — a read a client begins, as ``state`` at a
    seq is, so refused as that is while the table owes a read's time or the server
    refuses every read (review of hostile29: let in, one player repeating an old
    request after the table was loaded again had the log read as often as it liked)."""


@dataclass(eq=False, slots=True)
class ReadChanges(ReadEvents):
    """:class:`ReadEvents`, each event with its actors' and the table's changes alone
    (:func:`~rollbridge.stores.base.changes_after`): what ``state`` at an earlier seq
    walks the table back through. A store that has the method decodes nothing else
    of them — a log of the largest rolls is their dice, some 60 times the work."""

    def run(self, store: Store) -> list[Event] | None:
        return changes_after(store, self.table_id, self.after, self.until)


@dataclass(eq=False, slots=True)
class ReadUndos(ReadRetained):
    """The undos and redos of the retained log up to ``latest`` at least that come
    after ``since``: what ``state``'s ``undone`` is told from. An event's undo or redo
    comes after it, so the log before the lowest seq asked (``since``) holds none of
    theirs; the store reads the undos and redos alone (:meth:`Store.undos_after
    <rollbridge.stores.base.Store.undos_after>`), never decoding the other events."""

    since: int = 0

    def run(self, store: Store) -> list[Event] | None:
        return store.undos_after(self.table_id, self.since)


@dataclass(eq=False, slots=True)
class ReadUndosAt(ReadUndos):
    """:class:`ReadUndos` and every event after ``at`` (what the table at ``at`` is
    walked back through), in seq order; ``[]`` when those have left the log (``at``
    is older than it): ``state`` with ``at`` and ``undone``. The log before ``at`` is
    read for its undos and redos alone."""

    at: int = 0

    def run(self, store: Store) -> list[Event] | None:
        # the table walks back through their changes alone (:class:`ReadChanges`);
        # the undos and redos among them are read whole, as the others
        later = changes_after(store, self.table_id, self.at)
        if later is None:  # ``at`` left the log: refused as too old
            return []
        undos = {e.seq: e for e in store.undos_after(self.table_id, self.since)}
        whole = [undos.get(e.seq) or _whole(store, e) for e in later]
        return [*(e for s, e in sorted(undos.items()) if s <= self.at), *whole]


def _whole(store: Store, event: Event) -> Event:
    """``event`` read whole when it is an undo or a redo (what ``undone`` is told
    from) that :meth:`~rollbridge.stores.base.Store.undos_after` did not bring (a
    commit between the two reads); any other as it is."""
    if event.kind not in UNDO_KINDS:
        return event
    return store.event(event.table, event.seq) or event


#: ``state``'s refusal of an ``at`` before the retained log (as the engine's).
_TOO_OLD = say("state.too_old", "state.at: seq {at} is older than the retained event log")

#: ``state``'s refusal of an ``at`` after the latest seq (as the engine's).
_FUTURE_AT = say("state.future", "state.at: seq {at} is after the latest seq {seq}")

#: How often :class:`ReadRetained` starts later when the oldest events went meanwhile.
_RETAINED_TRIES = 5


@dataclass(eq=False, slots=True)
class _Asker:
    """A requester waiting for a reply."""

    origin: Any
    member: Member | None
    request_id: Any
    #: The language of its reply's texts.
    locale: str = "en"
    #: The request's type, when it is a known one (for the driver's metrics).
    request_type: str | None = None
    #: Whether it is the GM (who sees a refusal's private arguments; others do not):
    #: required, so that no refusal is rendered for the wrong audience by default.
    gm: bool = field(kw_only=True)

    def waiting(self) -> bool:
        """Whether a reply still has someone to reach: a member that has not left
        (a requester that is no member, such as the offline driver, always)."""
        return self.member is None or not self.member.gone


@dataclass(eq=False, slots=True)
class _Held:
    """A request waiting behind a store read of the same table."""

    message: Mapping[str, Any]
    who: Principal
    asker: _Asker
    dice: DiceSource | None


@dataclass(eq=False, slots=True)
class _Writing:
    """A commit the driver is persisting."""

    outcome: Outcome
    generation: int
    waiting: dict[str, list[_Asker]] = field(default_factory=dict)


def _continues(resume: Mapping[str, Any], missed: list[Event] | None) -> bool:
    """Whether the events read for a resume (:meth:`TableProtocol._read_done`) are
    exactly those after its seq: else its welcome is a snapshot."""
    return bool(missed) and missed[0].seq == resume["seq"] + 1  # type: ignore[index]


def described_ruleset(table: Table, locale: str) -> JSON:
    """The table's ruleset as a ``welcome`` describes it in ``locale`` (its actions and
    their words; not its example sheets). :raises InternalError: the ruleset failed
    to (:meth:`Table.call_ruleset`: a ``describe`` of its own that raises, one
    derived from ``BaseException`` only too, left a join unanswered)."""
    return table.call_ruleset(
        lambda: {k: v for k, v in table.ruleset.describe(locale).items() if k != "example_sheets"}
    )


def welcome_fields(
    principal: Principal, locale: str, view: JSON, described: JSON, seq: int, table: Table
) -> JSON:
    """What a ``welcome`` tells a member besides its backlog: who it is, the table as
    it may see it (``view``, of seq ``seq``), the ruleset ``described``
    (:func:`described_ruleset`), and — for a table moved to a new epoch since the
    record began (a restore, a Redis fence) — which epochs ``table``'s history ran
    through (``epochs``: :func:`rollbridge.engine.epochs.shown`)."""
    fields: JSON = {
        "role": principal.role,
        "name": principal.name,
        "locale": locale,
        "table": view,
        "ruleset": described,
        "epoch": view["epoch"],
        "seq": seq,
    }
    history = epochs_shown(table.epochs, table.info.epoch)
    if history is not None:
        fields["epochs"] = history
    return fields


def welcome_message(hello_id: Any, fields: JSON) -> JSON:
    """The ``welcome`` message, answering the ``hello`` of id ``hello_id``
    (:func:`welcome_fields`)."""
    return {"type": "welcome", "id": hello_id, "protocol": 1, **fields}


class TableProtocol:
    """One table's request pipeline; see the module docstring.

    :param table: the table engine, opened from the store (:meth:`open`).
    :param reply_keys: the idempotency keys the store holds replies for.
    :param dice: makes the server's dice source of each request.
    :param admit: called before a change is executed; raises
        :class:`~rollbridge.exceptions.Busy` to refuse it (the server's limit of
        commits waiting for the disk).
    :param clock: the time now, in seconds since the Unix epoch: each event records
        when it was executed (``at``); None: events carry no time.
    """

    #: Whether its reload itself sends the members the events stored past the last
    #: one delivered (a cluster's does); else they are closed to resume.
    reload_sends_missed = False

    def __init__(
        self,
        table: Table,
        *,
        reply_keys: Iterable[str] = (),
        dice: Callable[[], DiceSource] = SecureDice,
        admit: Callable[[], None] | None = None,
        max_event_bytes: int = MAX_EVENT_BYTES,
        max_actors: int | None = MAX_ACTORS,
        backlog_limit: int | None = None,
        odds_bounds: Bounds = SERVER_BOUNDS,
        dice_key: DiceKey | None = None,
        clock: Callable[[], float] | None = None,
        retain: int | None = None,
    ) -> None:
        #: The driver's clock (seconds since the Unix epoch): each event's ``at``.
        self.clock = clock
        #: The server's key of verifiable dice (:mod:`rollbridge.dice.verifiable`).
        self.dice_key = dice_key
        #: What one ``odds`` request may compute (:mod:`rollbridge.odds.bounds`).
        self.odds_bounds = odds_bounds
        self.dice = dice
        self.admit = admit
        self.max_event_bytes = max_event_bytes
        self.max_actors = max_actors
        #: The events the store keeps (its ``retain``): how far back undo reaches.
        self.retain = retain
        self.table = self.adopt(table)
        #: The most bytes of missed events a resume is sent; beyond, the member is
        #: welcomed with the table as it is now (``recovered: false``).
        self.backlog_limit = backlog_limit
        self.members: dict[Member, None] = {}
        #: Members given to :meth:`join` that have not left: the welcomed ones, and
        #: one whose missed events are being read: each keeps the table loaded, so
        #: no connection is left on a copy its driver dropped. (One whose welcome
        #: failed leaves, :meth:`not_welcomed`: its connection is no longer here.)
        self._attached: dict[Member, None] = {}
        self.durable_seq = table.info.seq
        #: Events executed but not yet durable, in seq order.
        self.writing: list[Event] = []
        #: The requests waiting for approval as of :attr:`durable_seq` while changes
        #: are being written (the GM's ``pending`` then): taken when a write begins
        #: with none out, moved on as each is written.
        self._durable_pending: Mapping[str, Any] = table.pending
        self._keys = KeySet(reply_keys, seq=table.info.seq)
        self._recent: OrderedDict[str, JSON] = OrderedDict()
        self._inflight: dict[str, _Writing] = {}
        self._writes: list[_Writing] = []
        self._held: deque[_Held] = deque()
        self._holding = 0
        #: Reads of the log in progress, and the events made durable meanwhile; a
        #: reload while they are out makes them stale (the events it skipped never
        #: reached ``_since_read``), and each then answers as not reaching the log.
        self._reading = 0
        #: Of those, the ones requests asked for (at most :data:`MAX_ASKED_READS`),
        #: and those waiting their turn (at most :data:`MAX_QUEUED_READS`).
        self._asked_reads = 0
        self._queued_reads: deque[Read] = deque()
        self._since_read: list[Event] = []
        self._reads_stale = False
        #: Bumped at every reload; failures of older commits are handled already.
        self.generation = 0
        self.broken = False
        #: A change applied in memory was never handed to the driver (a bug): the
        #: table is loaded again once its commits out have come back.
        self._drain_then_reload = False
        #: The ruleset's description a welcome carries, by locale (rendered once for
        #: the catalogues of :attr:`_described_at`: :func:`rollbridge.text.catalogue_generation`).
        self._described: dict[str, JSON] = {}
        self._described_at = catalogue_generation()

    @property
    def id(self) -> str:
        return self.table.info.id

    @property
    def idle(self) -> bool:
        """No member (nor a connection that joined and has not left), nothing being
        written or read: the driver may drop it. A driver tries after each thing that
        can make it so — a member leaving, a commit or a read coming back."""
        return (
            not self.members
            and not self._attached
            and not self._writes
            and not self._holding
            and not self._reading
            and not self._asked_reads  # a log read back, being counted (``stats``)
        )

    # -- requests -----------------------------------------------------------------

    def receive(
        self,
        message: Mapping[str, Any],
        who: Principal,
        origin: Any = None,
        *,
        member: Member | None = None,
        dice: DiceSource | None = None,
        locale: str = "en",
    ) -> Effects:
        """Handle one decoded request for ``who``; ``origin`` identifies the
        requester in the :class:`Reply` (``member``: it is joined; the reply is
        then encoded for it, in its locale; else in ``locale``). ``dice`` replaces
        the server's dice for this one."""
        kind = message.get("type")
        asker = _Asker(origin, member, echo_id(message), member.locale if member else locale,
                       kind if kind.__class__ is str and kind in REQUESTS else None,
                       gm=who.is_gm)  # fmt: skip
        if self._holding or self._held:
            self._held.append(_Held(message, who, asker, dice))
            return []
        return self._handle(message, who, asker, dice)

    def _handle(
        self, message: Mapping[str, Any], who: Principal, asker: _Asker, dice: DiceSource | None
    ) -> Effects:
        try:
            request = parse_request(message)
            if self.broken:
                return self._hold_for_reload(_Held(message, who, asker, dice))
            if request.type == "odds":
                return [self._odds(request, who, asker)]
            if request.type == "stats":
                return self._stats(request, who, asker)
            if not request.spec.writes:
                return self._state(request, who, asker)
            self.table.check_role(request, who)
            key = Table.reply_key(who, request.id)
            inflight = self._inflight.get(key)
            if inflight is not None:
                inflight.waiting.setdefault(key, []).append(asker)
                return []
            remembered = self._recent.get(key)
            if remembered is not None:
                return self._answer(asker, remembered)
            if key in self._keys:
                return self._hold(
                    FindReply(table_id=self.id, key=key),
                    lambda stored: self._repeat_or_execute(stored, request, who, asker, dice),
                    asker,
                )
            return self._execute(request, who, asker, dice)
        except RollbridgeError as exc:
            return [self._refuse(asker, exc)]
        except Exception:  # a bug: the request is answered, the next ones run
            return self._failed_request(asker)

    def _repeat_or_execute(
        self, stored: JSON | None, request: Request, who: Principal, asker: _Asker, dice: Any
    ) -> Effects:
        if stored is not None:
            return self._answer(asker, stored)
        return self._execute(request, who, asker, dice)

    def _waiting_for_approval(self, key: str) -> str | None:
        """The pending id of the request with idempotency ``key`` that still waits for
        the GM's approval (its ``pending`` reply may have left the reply window while
        it waited), or None."""
        for pending_id, entry in self.table.pending.items():
            if Table.reply_key(Principal(**entry["who"]), entry["id"]) == key:
                return pending_id
        return None

    def _execute(
        self, request: Request, who: Principal, asker: _Asker, dice: DiceSource | None
    ) -> Effects:
        """Execute ``request`` and persist its commit. A table whose commit failed
        while a read held the request (its stored reply, an event of its history) is
        not executed on — it holds the failed commit's changes until it is loaded
        again: the request waits for that, ahead of those that came after it."""
        if self.broken:
            return self._hold_for_reload(_Held(request.message(), who, asker, dice), first=True)
        if request.repeat:  # neither in memory nor in the store: never run
            waiting = self._waiting_for_approval(Table.reply_key(who, request.id))
            if waiting is not None:  # its ``pending`` reply left the window, not the table
                return self._answer(asker, {"pending": waiting, "status": "pending"})
            raise NotRemembered(
                _NOT_REMEMBERED(request=repr(request.id)), details={"request": request.id}
            )
        table = self.table
        missing = table.missing_history(request)
        if missing is not None:

            def then(event: Event | None) -> Effects:
                table.keep_history(event, missing)
                return self._execute(request, who, asker, dice)

            return self._hold(ReadEvent(table_id=self.id, seq=missing), then, asker)
        if self.admit is not None:
            self.admit()
        if not self.writing:  # the table as it stands is durable (written, loaded, followed)
            self._durable_pending = table.pending
        try:
            outcome = table.execute(request, who, dice if dice is not None else self.dice())
        except ApplyFailed as failed:  # changed in part: as a change never written
            return self._unwritten(None, asker, failed.events)
        # The table has moved on in memory: from here a bug must not leave it ahead
        # of the store with nothing to write it (:meth:`_unwritten`).
        try:
            seq = table.info.seq  # the replies are stored at it (or before)
            for key, reply in outcome.replies.items():
                self._keys.add(key, seq)
                self._remember(key, reply)
            if self.retain is not None:  # keys whose replies the store forgets: as far as
                # the store has written (commits still queued do not move its window)
                self._keys.forget_through(self.durable_seq - reply_window(self.retain))
            writing = _Writing(outcome, self.generation)
            key = Table.reply_key(who, request.id)
            writing.waiting[key] = [asker]
            for other in outcome.replies:
                self._inflight[other] = writing
            self._writes.append(writing)
            self.writing.extend(outcome.events)
            persist = Persist(table_id=self.id, commit=outcome.commit)
            persist.on_result = lambda _none: self._came_back(writing, None)
            persist.on_error = lambda error: self._came_back(writing, error)
        except Exception:
            return self._unwritten(outcome, asker)
        return [persist]

    def _unwritten(
        self, outcome: Outcome | None, asker: _Asker, events: Iterable[Event] = ()
    ) -> Effects:
        """A bug after the engine applied ``outcome`` to the table in memory (None:
        while it applied ``events``, :class:`ApplyFailed`), before its commit was
        handed to the driver: the change is never written, so the table is ahead of
        the store. The requester is told ``internal`` (traceback logged once) and the
        table is loaded again, as after a failed commit — once the commits still out
        have come back (a load before they are written would miss them); the requests
        meanwhile wait for it. Its events stay among those being written until then,
        as a failed commit's do: a view at the last durable seq (a ``hello``'s welcome
        meanwhile) walks back through them."""
        effects = self._failed_request(asker)
        if outcome is not None:
            for writing in [w for w in self._writes if w.outcome is outcome]:
                self._forget_write(writing)
            for key in outcome.replies:
                self._recent.pop(key, None)
            events = outcome.events
        known = {id(e) for e in self.writing}
        self.writing.extend(e for e in events if id(e) not in known)
        self.generation += 1  # the commits out are of the table before: no reload each
        self.broken = True
        self._holding += 1  # released, and the table loaded, by :meth:`_writes_drained`
        self._drain_then_reload = True
        return effects + self._writes_drained()

    def _writes_drained(self) -> Effects:
        """After :meth:`_unwritten`, once no commit of the table is out: load it again."""
        if not self._drain_then_reload or self._writes:
            return []
        self._drain_then_reload = False
        self._holding -= 1
        return self._reload()

    def _remember(self, key: str, reply: JSON) -> None:
        self._recent[key] = reply
        self._recent.move_to_end(key)
        while len(self._recent) > RECENT_REPLIES:
            self._recent.popitem(last=False)

    # -- holding requests behind a read -----------------------------------------------

    def _hold(self, read: Effect, then: Callable[[Any], Effects], asker: _Asker) -> Effects:
        """Run ``read``; the table's next requests wait until ``then`` has run."""
        self._holding += 1

        def resume(result: Any) -> Effects:
            self._holding -= 1
            return self._guarded(asker, lambda: then(result)) + self._release()

        def fail(error: BaseException) -> Effects:
            self._holding -= 1
            log.log(store_level(error), "table %s: a store read failed: %s", self.id,
                    store_cause(error))  # fmt: skip
            return [self._refuse(asker, StoreError(str(error))), *self._release()]

        read.on_result, read.on_error = resume, fail
        return [read]

    def _guarded(self, asker: _Asker, step: Callable[[], Effects]) -> Effects:
        """What ``step`` (a request's next step, after a read or a commit came back)
        returns; a refusal it raises answers ``asker``, and so does an exception that
        is no refusal (a bug), with error ``internal`` (:meth:`_failed_request`):
        never is a request left unanswered, nor a read's hold kept, by one."""
        try:
            return step()
        except RollbridgeError as exc:
            return [self._refuse(asker, exc)]
        except Exception:
            return self._failed_request(asker)

    def _failed_request(self, asker: _Asker) -> Effects:
        """``asker``'s request failed on an exception that is no refusal (a bug,
        being handled now): its traceback logged at ERROR, once, and the requester
        told ``internal``. The table is as it was: the engine changes nothing when a
        request it executes raises (it stages the change first); a bug after it
        applied one is :meth:`_unwritten`'s."""
        log.exception("table %s: request %r failed", self.id, asker.request_id)
        return [self._refuse(asker, InternalError(FAILED()))]

    def _release(self) -> Effects:
        """Handle the requests held behind a read, until one holds them again. A
        table whose commit failed is loaded again first: its reload may have failed
        while the read was out, leaving no load to release them."""
        effects: Effects = []
        while self._held and not self._holding:
            if self.broken:
                return effects + self._reload()
            held = self._held.popleft()
            effects += self._handle(held.message, held.who, held.asker, held.dice)
        return effects

    # -- durable ------------------------------------------------------------------

    def _came_back(self, writing: _Writing, error: BaseException | None) -> Effects:
        """``writing``'s commit came back: written (``error`` None,
        :meth:`_committed`), or failed (:meth:`_commit_failed`). A bug on the way
        (an exception that is no refusal) is :meth:`_not_handled`'s: what was made of
        it before goes out, and the table is loaded again."""
        effects: Effects = []
        try:
            if error is None:
                self._committed(writing, effects)
            else:
                self._commit_failed(writing, error, effects)
        except Exception:
            effects += self._not_handled(writing, written=error is None)
        return effects

    def _not_handled(self, writing: _Writing, *, written: bool) -> Effects:
        """Handling ``writing``'s commit that came back raised (a bug, being handled
        now: its traceback logged once): the requests it had not answered yet are
        answered ``internal`` (a change written: the same id sent again gets its
        result); a member not sent its events (written, so the others have them) is
        closed with 1013 to resume; and the table is loaded again, as after a change
        never written (:meth:`_unwritten`: once the commits still out have come back),
        the requests meanwhile waiting for it — never is the table held for good, nor
        left ahead of what its members were sent."""
        log.exception("table %s: handling a commit that came back failed; loading it "
                      "again", self.id)  # fmt: skip
        self._forget_write(writing)
        effects: Effects = []
        for askers in writing.waiting.values():
            effects += [self._refuse(asker, InternalError(FAILED())) for asker in askers]
        writing.waiting.clear()
        events = writing.outcome.events
        if written and events:
            last = events[-1].seq
            for member in [m for m in self.members if m.last_seq < last]:
                effects.append(Close(member=member, code=CLOSE_RESYNC, reason="resync"))
                self.leave(member)
        self.generation += 1  # the commits out are of the table before: no reload each
        self.broken = True
        if not self._drain_then_reload:
            self._holding += 1  # released, and the table loaded, by :meth:`_writes_drained`
            self._drain_then_reload = True
        return effects + self._writes_drained()

    def _committed(self, writing: _Writing, effects: Effects) -> None:
        """``writing``'s commit was written: its events go to the members, its
        replies to the requesters (each answered taken from ``writing.waiting``), into
        ``effects``."""
        outcome = writing.outcome
        self._forget_write(writing)
        events = outcome.events
        self._durable_pending = outcome.commit.meta.get("pending", self._durable_pending)
        if events:
            self.durable_seq = max(self.durable_seq, events[-1].seq)
            done = {e.seq for e in events}
            self.writing = [e for e in self.writing if e.seq not in done]
            if self._reading:
                self._since_read.extend(events)
        deliveries = [Delivery(self.table, event) for event in events]
        frames = self._frames(deliveries)
        if frames:
            effects.append(Deliver(frames=frames))
        if events:
            effects.append(Notify(table=self.table, events=events))
        by_seq = {d.seq: d for d in deliveries}
        waiting = writing.waiting
        for key in list(waiting):
            reply = outcome.replies.get(key, outcome.reply)
            for asker in waiting.pop(key):  # a reply that fails (a bug) costs only its asker
                effects += self._guarded(asker, lambda a=asker, r=reply: self._answer(a, r, by_seq))
        for event in events:
            event.views.clear()  # shown to everyone now; undo history keeps it packed
        if self._drain_then_reload:
            effects += self._writes_drained()

    def _frames(self, deliveries: list[Delivery]) -> list[tuple[Member, bytes | str]]:
        """Each member's frame of each event, in seq order, each at most once. A
        view or encoding that fails (a ruleset's or adapter's bug) costs only the
        members that needed it their copy."""
        frames: list[tuple[Member, bytes | str]] = []
        broken: set[Any] = set()
        for delivery in deliveries:
            for member in self.members:
                if member.gone or member.last_seq >= delivery.seq:
                    continue
                key = (member.audience, member.kind, member.adapter)
                if key in broken:
                    continue
                try:
                    frames.append((member, delivery.frame(member)))
                except Exception:
                    broken.add(key)
                    log.exception(
                        "table %s: event %s could not be shown to %s",
                        self.id,
                        delivery.seq,
                        member.principal.label(),
                    )
                    continue
                member.last_seq = delivery.seq
        return frames

    def _commit_failed(self, writing: _Writing, error: BaseException, effects: Effects) -> None:
        """``writing``'s commit failed: its requesters are refused (each taken from
        ``writing.waiting``) and the table loaded again, into ``effects``."""
        self._forget_write(writing)
        if not isinstance(error, RollbridgeError):
            error = StoreError(f"the store failed to commit: {type(error).__name__}: {error}")
        waiting = writing.waiting
        for key in list(waiting):
            effects += [self._refuse(asker, error) for asker in waiting.pop(key)]
        for key in writing.outcome.replies:
            self._recent.pop(key, None)
        if writing.generation == self.generation:  # the first failure: load again once
            log.log(store_level(error), "table %s: commit failed (%s); loading it again",
                    self.id, error)  # fmt: skip
            self.generation += 1
            self.broken = True  # ``writing`` stays: views walk back through it until the reload
            effects += self._reload()
        elif self._drain_then_reload:
            effects += self._writes_drained()

    def _forget_write(self, writing: _Writing) -> None:
        if writing in self._writes:
            self._writes.remove(writing)
        for key in writing.outcome.replies:
            if self._inflight.get(key) is writing:
                del self._inflight[key]

    # -- reloading ------------------------------------------------------------------

    def _hold_for_reload(self, held: _Held, *, first: bool = False) -> Effects:
        """Hold ``held`` until the table is loaded again (``first``: ahead of the
        requests held already, which came after it); load it now unless a read or
        a load is out (each releases the held requests when it comes back)."""
        if first:
            self._held.appendleft(held)
        else:
            self._held.append(held)
        return [] if self._holding else self._reload()

    def adopt(self, table: Table) -> Table:
        """``table``, given what this driver sets on each table it runs: the limit
        of an event's size and of its actors, the dice key, the clock, the store's
        retained log."""
        table.max_event_bytes = self.max_event_bytes
        table.max_actors = self.max_actors
        table.dice_key = self.dice_key
        table.clock = self.clock
        table.retain = self.retain
        return table

    def _reload(self) -> Effects:
        """Load the table again from the store; requests wait meanwhile."""
        self._holding += 1
        load = LoadTable(table_id=self.id)

        def loaded(result: tuple[Any, ...]) -> Effects:
            # (snapshot, history, keys), or with ``retained`` (Table's keyword) fourth
            try:
                snapshot, history, keys, *retained = result
                table = self.adopt(Table(snapshot, self.table.ruleset, history,
                                         retained=retained[0] if retained else None))  # fmt: skip
                reply_keys = KeySet(keys, seq=snapshot.info.seq)
            except Exception as error:  # a stored table this code cannot take in
                log.exception("table %s: the table read again cannot be taken in", self.id)
                return failed(error)  # still broken; its held requests answered
            self._holding -= 1
            # events stored past the last one delivered (a commit failed after all
            # that was written): its members must not go on without them, unaware
            moved = (snapshot.info.epoch, snapshot.info.seq) != (
                self.table.info.epoch, self.durable_seq
            )  # fmt: skip
            self.table = table
            self.writing = []
            self._keys = reply_keys
            self._recent.clear()
            if self._reading:  # they cannot hold what this load skipped over
                self._reads_stale = True
            self.durable_seq = self.table.info.seq
            self.broken = False
            resync = self._resync_members() if moved and not self.reload_sends_missed else []
            return [*resync, Reopened(table_id=self.id), *self._release()]

        def failed(error: BaseException) -> Effects:
            self._holding -= 1
            log.log(store_level(error), "table %s: loading it again failed (%s); will retry",
                    self.id, error)  # fmt: skip
            refused = (  # a table gone from the store says so (Redis lost it, say)
                error
                if isinstance(error, UnknownTable)
                else StoreError(f"table {self.id!r} is unavailable: the store failed")
            )
            effects = [self._refuse(h.asker, refused) for h in self._held]
            self._held.clear()
            return effects

        load.on_result, load.on_error = loaded, failed
        return [load]

    # -- replies ------------------------------------------------------------------------

    def _refuse(self, asker: _Asker, error: RollbridgeError) -> Reply:
        try:
            table = self.table
            hides = None
            if not asker.gm:
                hides = hides_now(table.ruleset, table.ruleset_settings, table.controlled)
            message = error_message(asker.request_id, error, asker.locale, hides)
            frame = asker.member.encode(message) if asker.member is not None else None
        except STOPS:
            raise  # the operator's, never a refusal's words
        except BaseException:  # a bug rendering the refusal, or what a ruleset put in
            # it raising as it is read for this audience (a GeneratorExit, a class of
            # its own too: an ``instead`` only a player reads): answered all the same
            return self._refused_plainly(asker)
        return Reply(origin=asker.origin, message=message, error=error, frame=frame,
                     request=asker.request_type)  # fmt: skip

    def _refused_plainly(self, asker: _Asker) -> Reply:
        """The refusal of ``asker``'s request could not be rendered or encoded (a bug,
        being handled now; its traceback logged): it is answered ``internal`` in
        English, encoded by the member's adapter if that works, else plainly — never
        left unanswered (its hold let go, a request that raised while refused was
        answered by nobody)."""
        log.exception("table %s: the refusal of request %r failed", self.id, asker.request_id)
        error = InternalError(FAILED())
        message = {"type": "error", "id": asker.request_id, **error.to_dict()}
        frame = None
        member = asker.member
        if member is not None:
            try:
                frame = member.encode(message)
            except Exception:
                frame = encode(message, member.kind)
        return Reply(origin=asker.origin, message=message, error=error, frame=frame,
                     request=asker.request_type)  # fmt: skip

    def _answer(
        self, asker: _Asker, template: JSON, deliveries: Mapping[int, Delivery] | None = None
    ) -> Effects:
        """Reply to ``asker`` with a reply template; one that names a view carries
        the event as the asker sees it (read from the log if it is not at hand)."""
        message: JSON = {"type": "result", "id": asker.request_id, **template}
        if "note" in message and message.get("status") == "secret":
            message["note"] = SECRET_NOTE().render(asker.locale)
        audience_name = message.pop("view", None)
        member = asker.member
        # brief results leave out the event the member gets as a frame anyway; the
        # requester's view of a secret event reaches it only here
        brief = member is not None and member.brief and audience_name != "requester"
        if audience_name is None or brief:
            return [self._reply(asker, message, None)]
        seq = template.get("seq")
        delivery = (deliveries or {}).get(seq) if seq is not None else None
        if delivery is None:
            return self._read_answer(asker, message, seq, audience_name)
        return [self._embed(asker, message, delivery, audience_name)]

    def _read_answer(self, asker: _Asker, message: JSON, seq: int, audience_name: str) -> Effects:
        """Read the event a repeated request's reply names, to show it as the table
        left it (:meth:`Table.recall`): the event alone when the table's redaction
        holds from before it, else the events from it to the first that left the
        table as it is (:attr:`Table.redaction_from`), to walk back through — never
        the rest of the log. The walk starts from the table's redaction as it held
        when the read was sent (:meth:`Table.held`): a change made while the read is
        out moves the table's, not that of the events read."""

        def found(event: Event | None) -> Effects:
            if event is None:
                note = {**message, "note": "the event has left the retained log"}
                return [self._reply(asker, note, None)]
            return [self._embed(asker, message, Delivery(self.table, event), audience_name)]

        held = self.table.held()
        if held.first <= seq <= held.last:
            read: Read = ReadEvent(table_id=self.id, seq=seq)

            def alone(event: Event | None) -> Effects:
                if event is not None:
                    held.recall([event])  # the table's then (and still, or at that seq)
                return found(event)

            read.on_result = lambda event: self._guarded(asker, lambda: alone(event))
            read.on_error = self._read_failed(asker, f"reading event {seq}")
            return [read]
        try:
            self._admit_read()
        except Busy as exc:
            return [self._refuse(asker, exc)]
        self._reading += 1
        # a read that waits its turn is skipped once its asker has left
        read = ReadRecalled(table_id=self.id, after=seq - 1, until=held.first,
                            needed=asker.waiting)  # fmt: skip

        def walked(stored: list[Event] | None) -> Effects:
            durable = self._recalled(self._read_done(stored), held)
            if not asker.waiting():  # not read for it, or read and no one to tell
                return []
            event = durable[0] if durable and durable[0].seq == seq else None
            return found(event)

        read.on_result = walked
        read.on_error = self._counting_error(self._read_failed(asker, f"reading event {seq}"))
        return self._asked(read, asker)

    def _embed(self, asker: _Asker, message: JSON, delivery: Delivery, name: str) -> Reply:
        audience = Audience.named(name, asker.locale)
        try:
            message["event"] = delivery.view(audience)
        except RollbridgeError as exc:
            return self._refuse(asker, exc)
        return self._reply(asker, message, delivery, audience)

    def _reply(
        self,
        asker: _Asker,
        message: JSON,
        delivery: Delivery | None,
        audience: Audience | None = None,
    ) -> Reply:
        member = asker.member
        frame = None
        if member is not None:
            try:
                frame = result_frame(member, message, delivery, audience)
            except (NotPlain, RollbridgeError) as exc:
                log.error("table %s: a reply could not be encoded: %s", self.id, exc)
                return self._refuse(asker, InternalError(_UNENCODABLE()))
        return Reply(origin=asker.origin, message=message, frame=frame, request=asker.request_type)

    # -- reading ------------------------------------------------------------------------

    def _odds(self, request: Request, who: Principal, asker: _Asker) -> Reply:
        """``odds``: exact odds from what ``who`` may see (:mod:`rollbridge.engine.odds`),
        under the driver's :attr:`odds_bounds`."""
        fields = answer_odds(self.table, request, who, locale=asker.locale,
                             bounds=self.odds_bounds)  # fmt: skip
        return self._reply(asker, {"type": "result", "id": asker.request_id, **fields}, None)

    def _stats(self, request: Request, who: Principal, asker: _Asker) -> Effects:
        """``stats``: roll statistics of the retained log as ``who``'s role sees it
        (:mod:`rollbridge.stats`), at the last durable seq. The log is read through
        an effect, then counted through another (:class:`Compute`: every event's view
        and the counts, which take seconds for a large log), never on the caller's
        thread; the two are one read of the log (:data:`MAX_ASKED_READS`). Nothing is
        written."""
        scope = check_scope(request.fields)
        self._admit_read()
        self._reading += 1
        # a read that waits its turn is skipped once its asker has left
        read = ReadRetained(table_id=self.id, latest=self.durable_seq, needed=asker.waiting)
        epoch = self.table.info.epoch

        def then(stored: list[Event] | None) -> Effects:
            durable = self._recalled(self._read_done(stored))
            if not asker.waiting():  # not read for it, or read and no one to tell
                return []
            if durable is None:
                moving = say("stats.moving", "the log kept changing while it was read; try again")
                return [self._refuse(asker, StoreError(moving()))]
            events = [e for e in durable if e.epoch == epoch]
            try:
                work = stats_counter(self.table, events, audience=who.role, scope=scope,
                                     locale=asker.locale)  # fmt: skip
            except Exception as exc:
                return failed(exc)
            count = Compute(table_id=self.id, work=work, needed=asker.waiting)
            count.on_result, count.on_error = counted, failed
            return self._asked(count, asker, first=True)  # the log read, counted first

        def counted(fields: JSON | None) -> Effects:
            if fields is None:  # not counted: its asker left
                return []
            return [self._reply(asker, {"type": "result", "id": asker.request_id, **fields}, None)]

        def failed(error: BaseException) -> Effects:
            if isinstance(error, RollbridgeError):
                return [self._refuse(asker, error)]
            # a fault of the counting: the asker still gets an answer
            log.error("table %s: stats failed", self.id, exc_info=error)
            failure = say("stats.failed", "the statistics could not be counted")
            return [self._refuse(asker, InternalError(failure()))]

        read.on_result = then
        read.on_error = self._counting_error(self._read_failed(asker, "reading the log"))
        return self._asked(read, asker)

    def _state(self, request: Request, who: Principal, asker: _Asker) -> Effects:
        """``state``: the table as ``who`` may see it, at the last durable seq or at ``at``."""
        at = request.fields.get("at")
        target = self.durable_seq if at is None else at
        if request.fields.get("undone") is not None:
            check_undone(request.fields["undone"], self.table.info.seq)
            if at is not None and at > self.table.info.seq:  # refused before any read
                future = _FUTURE_AT(at=at, seq=self.table.info.seq)
                raise InvalidRequest(future, details={"field": "at"})
            return self._state_undone(request.fields["undone"], at, who, asker)
        if target >= self.durable_seq or target > self.table.info.seq:
            table = self.view(who.is_gm, target, (), locale=asker.locale)
            return [self._reply(asker, {"type": "result", "id": asker.request_id, "table": table},
                                None)]  # fmt: skip
        self._admit_read()
        self._reading += 1
        # a read that waits its turn is skipped once its asker has left
        # the events' changes alone: nothing else of them is read for it
        read = ReadChanges(table_id=self.id, after=target, needed=asker.waiting)

        def then(stored: list[Event] | None) -> Effects:
            durable = self._read_done(stored)
            if not asker.waiting():  # not read for it, or read and no one to tell
                return []
            try:
                if durable is None:
                    raise InvalidRequest(_TOO_OLD(at=target), details={"field": "at"})
                table = self.view(who.is_gm, target, durable, locale=asker.locale)
            except RollbridgeError as exc:
                return [self._refuse(asker, exc)]
            message = {"type": "result", "id": asker.request_id, "table": table}
            return [self._reply(asker, message, None)]

        read.on_result = then
        read.on_error = self._counting_error(self._read_failed(asker, "reading the log"))
        return self._asked(read, asker)

    def _state_undone(
        self, asked: list[int], at: int | None, who: Principal, asker: _Asker
    ) -> Effects:
        """``state`` with ``undone``: the table as :meth:`_state` answers it, and whether
        the GM has undone each event ``asked`` names, as the retained log's latest undo
        or redo of it says (:func:`~rollbridge.engine.history.undone_states`), read from
        the log first: a client that missed them (a page loaded anew past the events it
        reads, a resume the server could not recover) learns what its lines name.
        The store reads the undos and redos after the lowest seq asked alone
        (:class:`ReadUndos`), not the events between them; with ``at``, every event
        after ``at`` too (:class:`ReadUndosAt`: its table is made from those)."""
        self._admit_read()
        self._reading += 1
        latest = self.durable_seq
        since = min(asked, default=latest)
        read: ReadUndos
        if at is None:
            read = ReadUndos(table_id=self.id, latest=latest, since=since, needed=asker.waiting)
        else:
            read = ReadUndosAt(table_id=self.id, latest=latest, since=since, at=at,
                               needed=asker.waiting)  # fmt: skip

        def then(stored: list[Event] | None) -> Effects:
            durable = self._read_done(stored)
            if not asker.waiting():
                return []
            try:
                if durable is None:  # the log moved meanwhile: refused as stats is
                    raise StoreError(say("stats.moving", "the log kept changing while it was "
                                         "read; try again")())  # fmt: skip
                if at is None:  # as it is now, the undos and redos read up to now
                    table = self.view(who.is_gm, locale=asker.locale)
                else:
                    if at < self.durable_seq and all(e.seq != at + 1 for e in durable):
                        raise InvalidRequest(_TOO_OLD(at=at), details={"field": "at"})
                    later = [e for e in durable if e.seq > at]
                    table = self.view(who.is_gm, at, later, locale=asker.locale)
                undone = undone_states(durable, asked, gm=who.is_gm)
            except RollbridgeError as exc:
                return [self._refuse(asker, exc)]
            message = {"type": "result", "id": asker.request_id, "table": table, "undone": undone}
            return [self._reply(asker, message, None)]

        read.on_result = then
        read.on_error = self._counting_error(self._read_failed(asker, "reading the log"))
        return self._asked(read, asker)

    def _admit_read(self) -> None:
        """Let a request start a read of the log, unless :data:`MAX_ASKED_READS` are
        out at this table and :data:`MAX_QUEUED_READS` wait their turn.

        :raises Busy: (``details``: ``reading``, out and waiting; ``limit``)."""
        limit = MAX_ASKED_READS + MAX_QUEUED_READS
        reading = self._asked_reads + len(self._queued_reads)
        if reading >= limit:
            raise Busy(_READS_BUSY(reading=reading),
                       details={"reading": reading, "limit": limit})  # fmt: skip

    def _asked(self, read: Read, asker: _Asker, *, first: bool = False) -> Effects:
        """``read``, which ``asker``'s request asked for: sent now while fewer than
        :data:`MAX_ASKED_READS` are out at this table (every table's joins wait
        behind them for the driver's store-reading threads), else when one comes
        back; counted until it comes back. ``first``: ahead of those waiting (the
        count of a log just read, which holds its events). What follows it coming
        back is :meth:`_guarded`: a bug there answers ``asker`` ``internal``, and the
        reads waiting their turn still get it."""
        on_result, on_error = read.on_result, read.on_error

        def result(value: Any) -> Effects:
            self._asked_reads -= 1
            done = self._guarded(asker, lambda: on_result(value)) if on_result else []
            return done + self._next_read()

        def error(exc: BaseException) -> Effects:
            self._asked_reads -= 1
            done = self._guarded(asker, lambda: on_error(exc)) if on_error else []
            return done + self._next_read()

        read.on_result, read.on_error = result, error
        if first:
            self._queued_reads.appendleft(read)
        else:
            self._queued_reads.append(read)
        return self._next_read()

    def _next_read(self) -> Effects:
        """The read that waited longest, when its turn has come."""
        if not self._queued_reads or self._asked_reads >= MAX_ASKED_READS:
            return []
        self._asked_reads += 1
        return [self._queued_reads.popleft()]

    def _read_failed(self, asker: _Asker, what: str) -> Callable[[BaseException], Effects]:
        """What a failed read answers ``asker``: ``store_error``, and the cause in
        the operator's log (the client is only told to try again); ``rate_limited``
        for one the driver did not begin while the table owed an earlier read's time
        (:meth:`~rollbridge.protocol.connection.Tables.read_refusal`)."""

        def refuse(error: BaseException) -> Effects:
            if isinstance(error, RateLimited):  # not begun: the table owes a read's time
                return [self._refuse(asker, error)]
            log.log(store_level(error), "table %s: %s failed: %s", self.id, what,
                    store_cause(error))  # fmt: skip
            return [self._refuse(asker, StoreError(str(error)))]

        return refuse

    def _counting_error(self, fail: Callable[[BaseException], Effects] | None) -> Any:
        def on_error(error: BaseException) -> Effects:
            self._read_done(None)
            return fail(error) if fail is not None else []

        return on_error

    def _read_done(self, stored: list[Event] | None) -> list[Event] | None:
        """A read of the log came back: the durable events it and the events made
        durable meanwhile hold, in seq order (None: it did not reach the log, or the
        table was loaded again while it was out, so events between may be missing:
        a resume is then welcomed with the table as it is, never with a gap)."""
        since, stale = self._since_read, self._reads_stale
        self._reading -= 1
        if not self._reading:
            self._since_read = []
            self._reads_stale = False
        if stored is None or stale:
            return None
        merged = {e.seq: e for e in stored if e.seq <= self.durable_seq}
        for event in since:
            merged.setdefault(event.seq, event)
        return [merged[s] for s in sorted(merged)]

    def _recalled(
        self, durable: list[Event] | None, held: Held | None = None
    ) -> list[Event] | None:
        """``durable`` (read back from the log, :meth:`_read_done`), each event given
        the redaction of its seq (:meth:`Table.recall`: walking back from the first
        event that left the table as it is — or as it was when the read was sent,
        ``held`` — through the events still being written too)."""
        if durable:
            self.table.recall([*durable, *self.writing], held)
        return durable

    def view(
        self,
        gm: bool,
        at: int | None = None,
        durable: Iterable[Event] = (),
        *,
        locale: str = "en",
    ) -> JSON:
        """The table at the last durable seq, or at ``at`` given the durable
        events after it (``durable``), its texts in ``locale``. The GM's view at the
        last durable seq has the table's ``pending``, ``can_undo`` and ``can_redo`` as
        it stands (:meth:`Table.gm_fields`: the events of the changes still being
        written follow it) and, when no change is being written, ``undo_redo``; one
        at an earlier seq has none (:meth:`Table.view`).
        :raises InvalidRequest:"""
        target = self.durable_seq if at is None else at
        table = self.table
        if target == table.info.seq:
            return table.view(gm=gm, locale=locale)
        later = {e.seq: e for e in durable}
        for event in self.writing:
            later[event.seq] = event
        view = table.view(gm=gm, at=target, later=later.values(), locale=locale)
        if gm and target == self.durable_seq:
            view.update(table.gm_fields())
            if self.writing:
                # the stacks would include changes still being written, and a write
                # that fails is not told to the members: the next event takes its
                # seq, and a client counting events up to undo_redo.seq as in the
                # stacks would skip it. Unknown is better than wrong.
                del view["undo_redo"]
                # the requests waiting for approval as of that seq, too: the events
                # being written bring their own changes (approval.requested, the
                # approved request's event, approval.rejected), and a write that
                # fails never listed a request that never was, or dropped one
                view["pending"] = [
                    {"pending": key, **entry} for key, entry in self._durable_pending.items()
                ]
        return view

    # -- members ------------------------------------------------------------------------

    def join(self, member: Member, resume: Mapping[str, Any] | None) -> Effects:
        """Add a member: it is sent its ``welcome`` (the table at the last durable
        seq) and, with ``resume`` (its last epoch and seq) when every later event is
        retained, exactly the events it missed (``recovered: true``); then every
        event made durable from now on. The member holds the table until it leaves
        (:meth:`leave`); one that left already joins nothing. A GM whose resume is
        answered with a snapshot is told how the requests the retained log settles
        were settled (:meth:`_settled_welcome`)."""
        if member.gone:
            return []
        self._attached[member] = None
        info = self.table.info
        seq = resume.get("seq") if resume is not None else None
        if (
            resume is not None
            and resume.get("epoch") == info.epoch
            and seq.__class__ is int
            and 0 <= seq < self.durable_seq
        ):
            self._reading += 1
            # a client that left before its turn came (one that resumes and leaves,
            # again and again) has nothing read for it
            read = ReadEvents(table_id=self.id, after=seq, needed=lambda: not member.gone)
            asker = _Asker(member.origin, member, member.hello_id, member.locale,
                           gm=member.principal.is_gm)  # fmt: skip
            refuse = self._counting_error(self._read_failed(asker, "reading the missed events"))

            def resumed(stored: list[Event] | None) -> Effects:
                missed = self._read_done(stored)
                if member.principal.is_gm and not member.gone and not _continues(resume, missed):
                    return self._settled_welcome(member, resume)  # some left the log
                effects = self._guarded(asker, lambda: self._welcome(
                    member, resume, self._recalled(missed), recovered=True
                ))  # fmt: skip
                if member not in self.members:  # refused, or failed on a bug
                    self.not_welcomed(member)
                return effects

            def failed(error: BaseException) -> Effects:
                self.not_welcomed(member)
                return refuse(error)

            read.on_result, read.on_error = resumed, failed
            return [read]
        where = None if resume is None else (resume.get("epoch"), seq)
        if member.principal.is_gm and where not in (None, (info.epoch, self.durable_seq)):
            return self._settled_welcome(member, resume)  # another epoch, or ahead
        return self._welcome(member, resume, None)

    def _settled_welcome(self, member: Member, resume: Mapping[str, Any]) -> Effects:
        """The ``welcome`` of a GM whose resume is answered with a snapshot, listing
        how the requests the retained log settles in this epoch were settled
        (``settled``: :func:`~rollbridge.engine.approvals.settled_requests`), read from
        the log first: the GM's client saw none of those events, and its cards of
        them would otherwise say only that they no longer wait. A read that fails
        (or does not reach the log) leaves ``settled`` out, the welcome as before."""
        self._reading += 1
        # a client that left before its turn came has nothing read for it
        needed = lambda: not member.gone  # noqa: E731
        read = ReadSettled(table_id=self.id, latest=self.durable_seq, needed=needed)
        asker = _Asker(member.origin, member, member.hello_id, member.locale, gm=True)

        def listed(stored: list[Event] | None) -> Effects:
            events = self._read_done(stored)
            epoch = self.table.info.epoch
            effects = self._guarded(asker, lambda: self._welcome(
                member, resume, None,
                settled=None if events is None else settled_requests(events, epoch),
            ))  # fmt: skip
            if member not in self.members:  # refused, or failed on a bug
                self.not_welcomed(member)
            return effects

        def unread(error: BaseException) -> Effects:
            log.log(store_level(error), "table %s: reading the settled requests failed: %s",
                    self.id, store_cause(error))  # fmt: skip
            return listed(None)

        read.on_result, read.on_error = listed, unread
        return [read]

    def not_welcomed(self, member: Member) -> None:
        """``member``'s ``hello`` is refused after it was given to :meth:`join` (its
        welcome failed, a refusal or a bug): it leaves, marked
        :attr:`~rollbridge.protocol.members.Member.refused` — its connection is no
        longer at the table (it may say ``hello`` again), and the table, which it no
        longer holds, leaves memory at once when nothing else holds it. Its
        :attr:`~rollbridge.protocol.members.Member.on_refused` is told, once."""
        self.leave(member)
        if member.refused:
            return
        member.refused = True
        if member.on_refused is not None:
            member.on_refused()

    def welcome_fields(self, principal: Principal, locale: str = "en") -> JSON:
        """What a ``welcome`` tells a member besides its backlog (:func:`welcome_fields`:
        the table at the last durable seq)."""
        if self._described_at != catalogue_generation():  # catalogues given or compiled since
            self._described.clear()
            self._described_at = catalogue_generation()
        described = self._described.get(locale)
        if described is None:  # a ruleset's words do not change while it is loaded
            described = described_ruleset(self.table, locale)
            self._described[locale] = described
        view = self.view(principal.is_gm, locale=locale)
        return welcome_fields(principal, locale, view, described, self.durable_seq, self.table)

    def _welcome(
        self,
        member: Member,
        resume: Mapping[str, Any] | None,
        missed: list[Event] | None,
        *,
        recovered: bool = False,
        settled: list[JSON] | None = None,
    ) -> Effects:
        if member.gone:  # it left while its missed events were read
            return []
        try:
            fields = self.welcome_fields(member.principal, member.locale)
            welcome = welcome_message(member.hello_id, fields)
            if member.notes:
                welcome["notes"] = list(member.notes)
            if settled is not None:  # a GM's snapshot (:meth:`_settled_welcome`)
                welcome["settled"] = settled
            if resume is not None:
                info = self.table.info
                if missed is None and not recovered:  # nothing was read: is it up to date?
                    recovered = (resume.get("epoch"), resume.get("seq")) == (
                        info.epoch,
                        self.durable_seq,
                    )
                elif not _continues(resume, missed):
                    recovered = False  # some events left the log meanwhile
                missed = missed if recovered else []
                welcome["resume"] = {"recovered": recovered, "missed": len(missed or ())}
            if resume is None or not recovered:  # a snapshot
                self._add_players_view(member, welcome)
            frames = [(member, member.encode(welcome))]
        except Exception as exc:  # a refusal, or a bug (``internal``, logged)
            self.not_welcomed(member)
            asker = _Asker(member.origin, member, member.hello_id, member.locale,
                           gm=member.principal.is_gm)  # fmt: skip
            if isinstance(exc, RollbridgeError):
                return [self._refuse(asker, exc)]
            return self._failed_request(asker)
        log.info("%s joined table %s", member.principal.label(), self.id)
        member.last_seq = self.durable_seq
        backlog: list[tuple[Member, bytes | str]] = []
        # the bytes on the wire (a JSON frame's UTF-8); the welcome counts too
        size, limit = payload_size(frames[0][1]), self.backlog_limit
        for event in missed or ():
            try:
                frame = Delivery(self.table, event).frame(member)
            except Exception:  # a ruleset's or adapter's bug: skipped, it would be a
                # gap the client cannot see, so it takes the table as it is instead
                log.exception("table %s: event %s could not be resent", self.id, event.seq)
                reason = "unsendable"
            else:
                size += payload_size(frame)
                if limit is None or size <= limit:
                    backlog.append((member, frame))
                    continue
                reason = "too_far_behind"  # the missed events would not fit
            backlog = []
            welcome["resume"] = {"recovered": False, "missed": 0, "reason": reason}
            if member.principal.is_gm:  # the missed events say how the requests went
                welcome["settled"] = settled_requests(missed or (), self.table.info.epoch)
            self._add_players_view(member, welcome)  # a snapshot now
            frames = [(member, member.encode(welcome))]
            break
        self.members[member] = None
        return [Deliver(frames=frames + backlog, backlog=True)]

    def _add_players_view(self, member: Member, welcome: JSON) -> None:
        """Put in a snapshot ``welcome`` of a GM whose adapter asks for it (its
        ``public_view``: docs/foundry.md) ``players``, the NPCs as players see them,
        for a client that writes what every player reads. A recovered resume's welcome
        gets none: the client takes no table from it, and the welcome's bytes count
        against the room its missed events have (``backlog_limit``)."""
        if member.principal.is_gm and wants_public_view(member.adapter, "welcome"):
            players = self.view(False, locale=member.locale)
            welcome["players"] = {"actors": npcs_of(players)}

    def _resync_members(self) -> Effects:
        """Every member closed with 1013 (``resync``): it reconnects and resumes, and
        gets the events it missed from the log."""
        effects: Effects = []
        for member in list(self.members):
            effects.append(Close(member=member, code=CLOSE_RESYNC, reason="resync"))
            self.leave(member)
        return effects

    def leave(self, member: Member) -> None:
        """Remove a member (its connection closed or it was cut off)."""
        member.gone = True
        self.members.pop(member, None)
        self._attached.pop(member, None)

    @classmethod
    def open(
        cls,
        loaded: tuple[Any, ...],
        rulesets: Mapping[str, Any],
        **options: Any,
    ) -> TableProtocol:
        """The protocol of a table read by :class:`~rollbridge.protocol.effects.LoadTable`
        (``(snapshot, history, keys)``), or with :class:`Table`'s ``retained`` fourth.

        :raises RulesetUnavailable: if its ruleset is missing or of another major version.
        """
        snapshot, history, keys, *retained = loaded
        ruleset = Table.check_ruleset(snapshot.info, rulesets)
        table = Table(snapshot, ruleset, history, retained=retained[0] if retained else None)
        return cls(table, reply_keys=keys, **options)
