"""The sans-I/O table engine: requests in, events and a reply out.

A :class:`Table` holds one table's state in memory — its info and settings,
actors, encounter, pending approvals, undo and redo stacks — and its ruleset.
:meth:`Table.execute` takes a validated :class:`~rollbridge.engine.requests.Request`
(a write), the :class:`~rollbridge.engine.model.Principal` asking, and a dice
source. It runs the request's handler on a draft, then *stages* the result:
every event is packed for the store, every changed actor record packed, and the
event shown to each audience and packed for the wire. Only when all of that
succeeded does it apply the draft to the table and return an :class:`Outcome`:
the reply template for the requester, the new events (each with the next seq)
and a :class:`~rollbridge.engine.model.Commit` for the store, carrying those
bytes. Anything raised on the way — a refusal, a ruleset's bug, a result no
store or codec could carry — leaves the table exactly as it was. If the store
then fails to commit, the caller must drop this object and open the table
again from the store.

Nothing here touches a socket, a file, a clock or a global random generator.
The request's life around it (idempotency, the commit, deliveries) is
:mod:`rollbridge.protocol`'s.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rollbridge.contract import Resolution, Ruleset, major_version
from rollbridge.contract_codes import acted_on, origin_marked, well_formed, wire_code
from rollbridge.contract_returned import returned
from rollbridge.dice.sources import DiceSource, ScriptedDice
from rollbridge.dice.verifiable import DiceKey
from rollbridge.engine import (
    actors,
    approvals,
    follow,
    history,
    places,
    rolls,
    segments,
    turns,
)
from rollbridge.engine.context import RequestContext
from rollbridge.engine.draft import Draft
from rollbridge.engine.model import (
    ActorRecord,
    Commit,
    Encounter,
    Event,
    Principal,
    TableInfo,
    TableSnapshot,
)
from rollbridge.engine.reach import redo_in_reach, undo_in_reach
from rollbridge.engine.redaction import Held, Redaction, recall, ruleset_settings
from rollbridge.engine.requests import Request
from rollbridge.engine.views import (
    GM,
    PLAYERS,
    Audience,
    actor_view,
    event_view,
    shown_alike,
    staged_data,
)
from rollbridge.exceptions import (
    STOPS,
    EventTooLarge,
    Forbidden,
    InternalError,
    InvalidRequest,
    NothingToUndo,
    RollbridgeError,
    RulesetUnavailable,
    UnknownActor,
)
from rollbridge.plain import JSON, NotPlain, Packed, dumps_json, ensure_plain, pack, unpack
from rollbridge.text import Messages, privates_met, stored

__all__ = [
    "HANDLERS",
    "MAX_ACTORS",
    "MAX_EVENT_BYTES",
    "UNDO_DEPTH",
    "ApplyFailed",
    "Outcome",
    "Table",
]

#: How many events the GM can undo in a row (as long as they are in the retained log).
UNDO_DEPTH = 100
#: Of those, how many the table keeps in memory; older ones are read from the log.
HISTORY_IN_MEMORY = 8
#: The default largest event, packed: a 999-die roll is about 26 KiB, an sr2 attack
#: 3 KiB; ``999d6x>1`` (every die explodes again and again) would be ~280 KiB.
MAX_EVENT_BYTES = 128 * 1024
#: The default most actors one table holds: a large battle in a Foundry scene is a
#: few hundred tokens; 3,000 actors made a 1.9 MiB welcome, 115 ms to build.
MAX_ACTORS = 1000

_ROLE_RANK = {"observer": 0, "player": 1, "gm": 2}

say = Messages("rollbridge")
# Translators: {size} and {limit} are numbers of bytes ({size} above {limit}).
EVENT_TOO_LARGE = say.plural(
    "limit.event_size",
    "the result would be an event of {size} byte, more than the {limit} this server stores "
    "for one; nothing was done (roll fewer dice)",
    "the result would be an event of {size} bytes, more than the {limit} this server stores "
    "for one; nothing was done (roll fewer dice)",
    count="size",
)
#: The engine's log: a ruleset's failure is told here in full (its traceback), to
#: the client only as "ruleset X failed".
log = logging.getLogger("rollbridge.engine")
#: The audiences every event is staged for (shown and packed before it is applied).
STAGED_AUDIENCES: tuple[Audience, ...] = (GM, PLAYERS)


class ApplyFailed(Exception):
    """Applying a staged change (or events followed, :meth:`Table.follow`) to the
    table raised (a bug: it is plain assignments): the table may be changed in part,
    so its driver loads it again. No rollbridge error: the requester is told
    ``internal``; the cause is chained. ``events``: the change's events (the table's
    seq may have moved past them: a view at an earlier seq walks back through them)."""

    def __init__(self, message: str, events: Iterable[Event] = ()) -> None:
        super().__init__(message)
        self.events = list(events)


@dataclass(slots=True)
class Outcome:
    """What one request did: the reply template, the events, the commit for the store.

    :param reply: the reply for the requester; one that reports an event names it
        (``seq``) and the view it carries (``view``), see
        :func:`~rollbridge.engine.context.reply_for`.
    :param replies: the reply of every request this outcome answers, by
        idempotency key (the request's own, and an approved player's).
    """

    reply: JSON
    events: list[Event] = field(default_factory=list)
    commit: Commit | None = None
    replies: dict[str, JSON] = field(default_factory=dict)


def _same(record: JSON) -> JSON:
    return record


def _reread(event: Event) -> int:
    """Drop the records of the actors whose players' view ``event`` changed alone
    (:attr:`Event.shown <rollbridge.engine.model.Event.shown>`: a settings change at a
    table of very many NPCs) for the mark that tells clients to read ``state`` again
    (:attr:`Event.reread <rollbridge.engine.model.Event.reread>`), so that the GM's
    change is never refused for its size; the event's size after."""
    event.shown = []
    event.reread = True
    event.forget_packed()
    return len(event.packed())


def _copy_info(info: TableInfo) -> TableInfo:
    return TableInfo(
        info.id, info.name, info.ruleset, info.ruleset_version, info.settings, info.epoch, info.seq
    )


#: What a reply reads of a ruleset's refusal, each read by :meth:`Table._refusal_read`
#: before it is let through: as the log names it, and how it is read.
_REFUSAL_PARTS: tuple[tuple[str, Callable[[RollbridgeError], Any]], ...] = (
    ("a code", wire_code),
    ("details", lambda error: error.details),
    ("a message", lambda error: error.message),
)


class Table:
    """One table's state and its ruleset; see the module docstring.

    :param snapshot: the table as loaded (or freshly created).
    :param ruleset: the table's ruleset, already checked with :meth:`check_ruleset`.
    :param history: events the undo and redo stacks refer to, by seq: each an
        :class:`~rollbridge.engine.model.Event` or its packed bytes
        (:meth:`Event.packed`, as the log stores them). Only the latest
        ``HISTORY_IN_MEMORY`` entries of each stack are kept (packed); an older one
        is read from the log when an undo or redo needs it (:meth:`missing_history`).
    :param retained: the seqs of undo and redo entries whose events are still in the
        retained log, though not all of them are given in ``history`` (a follower
        reads only the recent ones); None: ``history``'s keys. An entry in neither
        has left the log and is dropped from its stack.
    """

    #: The largest event (packed msgpack bytes) a request may make; larger ones are
    #: refused with :class:`~rollbridge.exceptions.EventTooLarge` before anything
    #: changes. A driver sets it from its options (``serve --max-event-size``).
    max_event_bytes: int = MAX_EVENT_BYTES
    #: The most actors the table holds: ``actor.create`` past it is refused with
    #: :class:`~rollbridge.exceptions.LimitExceeded` (``serve --max-actors``; None:
    #: no limit). A table holding more (the limit lowered) keeps them.
    max_actors: int | None = MAX_ACTORS
    #: The version of the ruleset's words its resolutions write (:attr:`Ruleset.words
    #: <rollbridge.contract.Ruleset.words>`): None, the ruleset's newest; ``rollbridge
    #: verify`` sets the words a logged event records to resolve it again in them.
    words: int | None = None
    #: The server's dice key for verifiable dice (its driver sets it); without one, a
    #: table refuses to turn ``verifiable`` on.
    dice_key: DiceKey | None = None
    #: The time now, in seconds since the Unix epoch (its driver sets it, as it sets
    #: the dice): each event records when it was executed (:attr:`Event.at
    #: <rollbridge.engine.model.Event.at>`). Without one, events carry no time; the
    #: engine itself never reads a clock.
    clock: Callable[[], float] | None = None
    #: How many events the store keeps in its log (its driver sets it from the
    #: store's ``retain``): an undo or redo entry whose event is no longer among the
    #: last ``retain`` is dropped after each request (a redo entry with every one
    #: under it, :mod:`rollbridge.engine.reach`), as a load of the table drops it
    #: (its event has left the log, or will at the store's next prune), so that the
    #: table here and the table loaded again offer the same undo and redo. None:
    #: entries are kept while they fit the stack.
    retain: int | None = None

    def __init__(
        self,
        snapshot: TableSnapshot,
        ruleset: Ruleset,
        history: Mapping[int, Event | bytes] | None = None,
        *,
        retained: Collection[int] | None = None,
    ) -> None:
        self.info = snapshot.info
        self.ruleset = ruleset
        self.actors: dict[str, ActorRecord] = dict(snapshot.actors)
        self.encounter: Encounter | None = snapshot.encounter
        self.pending: dict[str, JSON] = dict(snapshot.pending)
        #: The verifiable dice's segment: ``{"segment": k, "open": bool}`` or None.
        self.dice_segment: JSON | None = snapshot.dice
        #: Which epochs the table's history ran through (:mod:`.epochs`), or None.
        self.epochs: JSON | None = snapshot.epochs
        history = dict(history or {})
        kept = history.keys() if retained is None else {*retained, *history}
        # An undo entry whose event left the log cannot be undone any more.
        self.undo_stack: list[int] = undo_in_reach(snapshot.undo, kept.__contains__)
        self.redo_stack: list[int] = redo_in_reach(snapshot.redo, kept.__contains__)
        # Kept packed (msgpack bytes): one object each instead of hundreds, so the
        # cyclic garbage collector has that much less to walk at a busy server.
        self._history: dict[int, bytes] = {}
        self._keep_recent_history(history)
        #: The redaction of the table as it is (:meth:`redaction`), made when needed.
        self._redaction: Redaction | None = None
        #: The first seq whose event left the table with the redaction it has now, as
        #: far as this table knows (loaded: its latest seq): a retry or resume of a
        #: later event needs no walk back through the log, and the walk back for an
        #: earlier one starts there (:meth:`recall`), needing no later event.
        self.redaction_from = self.info.seq

    # -- opening --------------------------------------------------------------

    @staticmethod
    def check_ruleset(info: TableInfo, rulesets: Mapping[str, Ruleset]) -> Ruleset:
        """The ruleset a stored table needs, if installed at a compatible version.

        :raises RulesetUnavailable: naming the table, the ruleset and the version.
        """
        ruleset = rulesets.get(info.ruleset)
        if ruleset is None:
            raise RulesetUnavailable(
                say(
                    "ruleset.missing",
                    "table {table} uses ruleset {ruleset} {version}, which is "
                    "not installed; the table is left untouched",
                )(table=repr(info.id), ruleset=repr(info.ruleset), version=info.ruleset_version),
                details={"table": info.id, "ruleset": info.ruleset},
            )
        if major_version(ruleset.version) != major_version(info.ruleset_version):
            raise RulesetUnavailable(
                say(
                    "ruleset.major",
                    "table {table} was created with ruleset {ruleset} "
                    "{version}, but {installed} is installed (another major version); the "
                    "table is left untouched",
                )(
                    table=repr(info.id),
                    ruleset=repr(info.ruleset),
                    version=info.ruleset_version,
                    installed=ruleset.version,
                ),
                details={"table": info.id, "ruleset": info.ruleset, "installed": ruleset.version},
            )
        return ruleset

    # -- reading --------------------------------------------------------------

    @property
    def settings(self) -> JSON:
        return self.info.settings

    @property
    def ruleset_settings(self) -> JSON:
        return self.info.settings.get("ruleset") or {}

    def table_field(self, name: str) -> Any:
        """A table-level field as events record it: settings, encounter or pending."""
        if name == "settings":
            return self.info.settings
        if name == "encounter":
            return self.encounter.to_dict() if self.encounter else None
        if name == "pending":
            return self.pending
        if name == "dice":
            return self.dice_segment
        raise KeyError(name)

    def snapshot(self) -> TableSnapshot:
        """The table as a store keeps it."""
        return TableSnapshot(
            info=self.info,
            actors=dict(self.actors),
            encounter=self.encounter,
            pending=self.pending,
            undo=list(self.undo_stack),
            redo=list(self.redo_stack),
            dice=self.dice_segment,
            epochs=self.epochs,
        )

    def meta(self) -> JSON:
        """The table-level state a store keeps beside info and actors (``epochs``
        only where recorded). The pending map is shared, not copied: the engine
        replaces it, never changes it."""
        meta = {
            "encounter": self.encounter.to_dict() if self.encounter else None,
            "pending": self.pending,
            "undo": list(self.undo_stack),
            "redo": list(self.redo_stack),
            "dice": self.dice_segment,
        }
        if self.epochs is not None:
            meta["epochs"] = self.epochs
        return meta

    def history_event(self, seq: int) -> Event:
        """An event the undo or redo stack refers to, kept in memory for the latest
        few; the driver adds an older one with :meth:`keep_history` before the
        request that needs it (see :meth:`missing_history`).

        :raises NothingToUndo: if it is not at hand (it has left the retained log).
        """
        packed = self._history.get(seq)
        if packed is None:
            raise NothingToUndo(
                say(
                    "undo.retained", "event {seq} has left the retained log; it cannot be reversed"
                )(seq=seq)
            )
        return Event.from_dict(unpack(packed))

    def missing_history(self, request: Request) -> int | None:
        """The seq of the logged event ``request`` (an undo or redo) needs and the
        table does not hold in memory, or None: the driver reads it from the log
        and hands it over with :meth:`keep_history` before executing."""
        stack = (
            self.undo_stack
            if request.type == "undo"
            else self.redo_stack
            if request.type == "redo"
            else None
        )
        if not stack or stack[-1] in self._history:
            return None
        return stack[-1]

    def keep_history(self, event: Event | None, seq: int) -> None:
        """Hold ``event`` (read from the log for :meth:`missing_history`) in memory;
        None if it has left the log: its undo entry is dropped."""
        if event is None:
            self.undo_stack = [s for s in self.undo_stack if s != seq]
            self.redo_stack = [s for s in self.redo_stack if s != seq]
            return
        self._history[event.seq] = event.packed()

    def recent_history(self) -> dict[int, bytes]:
        """A copy of the events held in memory (the latest undo and redo entries'),
        packed, by seq: what a follower hands to its next sync, which then need not
        read them again (:meth:`rollbridge.stores.redis.RedisStore.follow`)."""
        return dict(self._history)

    def _keep_recent_history(self, extra: Mapping[int, Event | bytes] | None = None) -> None:
        """Keep in memory only the events of the latest undo and redo entries."""
        recent = {*self.undo_stack[-HISTORY_IN_MEMORY:], *self.redo_stack[-HISTORY_IN_MEMORY:]}
        history = self._history  # the table's own: changed in place (a request drops one)
        if extra:
            for seq, event in extra.items():
                if seq in recent:
                    packed = event.packed() if isinstance(event, Event) else bytes(event)
                    history.setdefault(seq, packed)  # what the table holds already wins
        for seq in history.keys() - recent:
            del history[seq]

    def follow(self, events: Sequence[Event], *, kept_from: int) -> None:
        """Apply ``events``, which the table's owner made elsewhere and stored (in seq
        order, continuing this table's seq), as executing them changed the owner's
        table (:mod:`rollbridge.engine.follow`): then this table is the one a load
        would give, but for the events it holds in memory (only those of the entries
        it held or applied; a missing one is read when an undo needs it). Undo and
        redo entries below ``kept_from`` have left the retained log: they are dropped.

        :raises rollbridge.engine.follow.Unfit: an event does not continue this table
            exactly; nothing was changed (load the table instead).
        :raises ApplyFailed: installing the result raised (a bug): the table may be
            changed in part (load it again). Any other exception (a bug computing
            the result) changed nothing.
        """
        after = follow.replay(self, events, kept_from=kept_from, undo_depth=UNDO_DEPTH)
        try:
            self.info.settings = after.settings
            self.info.seq = after.seq
            self.actors = after.actors
            self.encounter = after.encounter
            self.pending = after.pending
            self.dice_segment = after.dice
            self.undo_stack = after.undo
            self.redo_stack = after.redo
            self._redaction = None
            self.redaction_from = self.info.seq
            self._history.update(after.history)
            self._keep_recent_history()
        except Exception as exc:  # the table may be changed in part: never a plain bug
            raise ApplyFailed(f"following {len(events)} events failed", events) from exc

    def controlled(self, actor_id: str) -> bool:
        """Whether some player controls the actor now (unknown actors: no)."""
        record = self.actors.get(actor_id)
        return record is not None and bool(record.controllers)

    def npcs(self) -> frozenset[str]:
        """The actors no player controls."""
        return self.redaction().npcs

    def redaction(self) -> Redaction:
        """The table as it is now, as event views depend on it (its ruleset settings,
        who is a player's): made once, again after settings or actors changed."""
        found = self._redaction
        if found is None:
            found = self._redaction = Redaction.of(ruleset_settings(self.settings), self.actors)
        return found

    def held(self) -> Held:
        """The table's redaction and the seqs whose events left the table with it:
        :attr:`redaction_from` to the latest (:class:`~rollbridge.engine.redaction.Held`)."""
        seq = self.info.seq
        return Held(self.redaction(), min(self.redaction_from, seq), seq)

    def recall(self, events: Iterable[Event], held: Held | None = None) -> None:
        """Give each of ``events`` (read back from the log) that has none the
        redaction of its seq — the table as that event left it: the table's own from
        :attr:`redaction_from` on, else walking back from :attr:`redaction_from`
        through ``events``, which must then hold every event from it to that seq
        (:meth:`Held.recall <rollbridge.engine.redaction.Held.recall>`; one it
        cannot reach is shown as the table is now). ``held``: :meth:`held` as it was
        when the events were asked for (default: as it is)."""
        (self.held() if held is None else held).recall(events)

    def view_actor(self, actor_id: str, *, gm: bool, locale: str = "en") -> JSON:
        """One actor as the GM or everyone else sees it, its texts in ``locale``."""
        return self.call_ruleset(
            lambda: actor_view(
                self.actors[actor_id],
                gm=gm,
                ruleset=self.ruleset,
                settings=self.ruleset_settings,
                locale=locale,
                controlled=self.controlled,
            )
        )

    def view_event(
        self, event: Event, *, gm: bool | None = None, audience: Audience | None = None
    ) -> JSON:
        """An event as an audience sees it (``gm=True``: the GM, ``False``: everyone
        else; or an :class:`Audience` with a locale), built once and kept on the event.

        :raises InternalError: if the ruleset fails to show it.
        """
        if audience is None:
            audience = GM if gm else PLAYERS
        view = event.views.get(audience)
        if view is None:
            # the table as the event left it (:mod:`rollbridge.engine.redaction`)
            seen = event.redaction or self.redaction()
            view = event.views[audience] = self.call_ruleset(
                lambda: event_view(
                    event,
                    audience=audience,
                    ruleset=self.ruleset,
                    settings=seen.settings,
                    controlled=seen.controlled,
                    npcs=seen.npcs,
                )
            )
        return view

    def view(
        self,
        *,
        gm: bool,
        at: int | None = None,
        later: Iterable[Event] = (),
        locale: str = "en",
    ) -> JSON:
        """The whole table as a viewer sees it (what ``welcome`` and ``state`` carry):
        now, or as it stood right after seq ``at``, walking back through ``later``
        (every event after ``at``, any order); its texts in ``locale``. The GM's view
        of the table as it stands also has the requests waiting for approval
        (``pending``), whether undo and redo can be used (``can_undo``,
        ``can_redo``) and what they take (``undo_redo``, :meth:`gm_fields`); a view
        of an earlier seq leaves them out: the events after it
        do not tell what they were then. A view of an earlier seq that walked back over
        a removal stored before removals recorded the actor's place has
        ``actor_order: "approximate"`` (:func:`~rollbridge.engine.places.unplaced`).

        :raises InvalidRequest: if ``at`` is in the future or events after it are missing.
        """
        actors: dict[str, JSON] = {a: r.as_data() for a, r in self.actors.items()}
        fields: JSON = {k: self.table_field(k) for k in ("settings", "encounter", "dice")}
        seq = self.info.seq
        unplaced = False
        if at is not None and at != seq:
            if at > seq:
                raise InvalidRequest(
                    say("state.future", "state.at: seq {at} is after the latest seq {seq}")(
                        at=at, seq=seq
                    ),
                    details={"field": "at"},
                )
            events = sorted(later, key=lambda e: e.seq, reverse=True)
            if [e.seq for e in events] != list(range(seq, at, -1)):
                raise InvalidRequest(
                    say("state.too_old", "state.at: seq {at} is older than the retained event log")(
                        at=at
                    ),
                    details={"field": "at"},
                )
            for event in events:
                unplaced = unplaced or places.unplaced(event.changes)
                places.apply(actors, event.changes, "before", _same)
                for key, value in (event.table_change or {}).get("before", {}).items():
                    if key in fields:
                        fields[key] = value
            seq = at
        settings = fields["settings"] or {}
        table: JSON = {
            "id": self.info.id,
            "name": self.info.name,
            "ruleset": self.info.ruleset,
            "ruleset_version": self.info.ruleset_version,
            "settings": settings,
            "epoch": self.info.epoch,
            "seq": seq,
            "encounter": fields["encounter"],
            # the verifiable dice's segment ({"segment", "open"}); its seed is never here
            "dice": fields["dice"],
            "actors": self.call_ruleset(
                lambda: [
                    actor_view(
                        rec,
                        gm=gm,
                        ruleset=self.ruleset,
                        settings=settings.get("ruleset") or {},
                        locale=locale,
                        controlled=lambda actor_id: bool(
                            (actors.get(actor_id) or {}).get("controllers")
                        ),
                    )
                    for rec in actors.values()
                ]
            ),
        }
        if gm and seq == self.info.seq:  # the table as it stands, not an earlier seq
            table.update(self.gm_fields())
        if unplaced:  # walked back over an old removal that did not say where the actor was
            table["actor_order"] = "approximate"
        return table

    def gm_fields(self) -> JSON:
        """What the GM's view of the table as it stands adds (:meth:`view`): the
        requests waiting for approval (``pending``), whether undo and redo can
        be used (``can_undo``, ``can_redo``), and what they would take
        (``undo_redo``: the seqs of the undo and redo stacks, the latest last, as of
        seq ``seq``, with the log's ``retain`` and the undo ``depth`` that bound
        them), so that a client can name the event its undo means."""
        return {
            "pending": [{"pending": key, **entry} for key, entry in self.pending.items()],
            "can_undo": bool(self.undo_stack),
            "can_redo": bool(self.redo_stack),
            "undo_redo": {
                "seq": self.info.seq,
                "undo": list(self.undo_stack),
                "redo": list(self.redo_stack),
                "retain": self.retain,
                "depth": UNDO_DEPTH,
            },
        }

    # -- executing --------------------------------------------------------------

    def execute(self, request: Request, who: Principal, dice: DiceSource) -> Outcome:
        """Run one write request for ``who``, drawing dice from ``dice`` unless the
        request supplies its own. Raises a typed error having changed nothing, or
        applies the outcome to this table and returns it (see the module docstring).
        """
        self.check_role(request, who)
        request = rolls.always_secret(self.ruleset, request)  # its dice stream, its reply
        handler = HANDLERS.get(request.type)
        if handler is None:
            raise InvalidRequest(
                say("request.not_a_change", "{type} is not a change a table executes")(
                    type=repr(request.type)
                )
            )
        draft = Draft(self)
        verifiable = segments.verifiable_dice(self, draft, request)
        context = RequestContext(self, request, who, verifiable or dice, draft)
        try:
            reply = handler(context)
            if verifiable is not None:
                segments.record_draws(draft, verifiable)
            replies = {self.reply_key(who, request.id): reply, **draft.replies}
            after, packed = self._stage(draft, replies)
        except BaseException:
            # a refusal may tell something of the dice it drew (a total past 64 bits,
            # a division by zero): the next request at this seq must not roll them
            if verifiable is not None:
                segments.refused(self, verifiable)
            raise
        try:
            return self._apply(draft, reply, replies, after, packed)
        except Exception as exc:  # the table may be changed in part: never a plain bug
            raise ApplyFailed(f"applying {request.type} failed", draft.events) from exc

    def check_role(self, request: Request, who: Principal) -> None:
        """:raises Forbidden: if ``who``'s role may not send this request type."""
        if _ROLE_RANK[who.role] < _ROLE_RANK[request.spec.role]:
            raise Forbidden(
                say("request.role", "{type} needs the {role} role; you are {yours}")(
                    type=repr(request.type), role=request.spec.role, yours=who.role
                ),
                details={"type": request.type},
            )

    def _stage(
        self, draft: Draft, replies: Mapping[str, JSON]
    ) -> tuple[Redaction, tuple[tuple[str, bytes], ...]]:
        """Check that everything the draft would apply can be stored and sent:
        pack its events, records and replies, show each event to every audience and
        encode the views for both frame kinds (between them the two codecs refuse
        all that is not plain data). The results are kept (the store and the
        deliveries reuse them); nothing of the table changes. Returns the table's
        redaction after the draft and the replies packed (``(key, bytes)``, for the
        commit: :attr:`Commit.packed_replies <rollbridge.engine.model.Commit.packed_replies>`).

        :raises InternalError: naming what could not be stored or shown.
        """
        after = self._redact(draft)
        try:
            for record in draft.actors.values():
                if record is not None:
                    record.packed()
            for event in draft.events:
                size = len(event.packed())
                if size > self.max_event_bytes and event.shown:
                    size = _reread(event)
                if size > self.max_event_bytes:
                    raise EventTooLarge(
                        EVENT_TOO_LARGE(size=size, limit=self.max_event_bytes),
                        details={"size": size, "limit": self.max_event_bytes},
                    )
                seen = event.redaction  # the table as the request leaves it
                met = privates_met()
                ruleset, settings, controlled = self.ruleset, seen.settings, seen.controlled
                # the ruleset's calls as call_ruleset makes them (a try, not a closure
                # per call: this runs for every event)
                try:
                    # the GM's and the players' data in one walk (both views need it)
                    pair = staged_data(
                        event, ruleset=ruleset, settings=settings, controlled=controlled
                    )
                except RollbridgeError as refused:  # a view's common_state, player_view…
                    self._ruleset_refused(refused)
                    raise
                except _PASSED_ON:
                    raise
                except BaseException as exc:
                    raise self._ruleset_failed(exc) from exc
                for audience in STAGED_AUDIENCES:
                    if not audience.gm and shown_alike(
                        event, ruleset, controlled, privates_met() != met
                    ):
                        for kind in (None, "msgpack", "json"):  # one view serves both
                            key = GM if kind is None else (GM, kind)
                            event.views[audience if kind is None else (audience, kind)] = (
                                event.views[key]
                            )
                        continue
                    try:
                        view = event_view(
                            event,
                            audience=audience,
                            ruleset=ruleset,
                            settings=settings,
                            controlled=controlled,
                            npcs=seen.npcs,
                            data=None if pair is None else pair[0] if audience.gm else pair[1],
                        )
                    except RollbridgeError as refused:  # a view's common_state, player_view…
                        self._ruleset_refused(refused)
                        raise
                    except _PASSED_ON:
                        raise
                    except BaseException as exc:
                        raise self._ruleset_failed(exc) from exc
                    event.views[audience] = view
                    event.views[audience, "msgpack"] = Packed(pack(view, stored))
                    event.views[audience, "json"] = dumps_json(view, stored)
            return after, tuple([(key, pack(reply)) for key, reply in replies.items()])
        except NotPlain as exc:
            for event in draft.events:
                event.forget_packed()
            raise InternalError(
                say("internal.unsendable", "the result cannot be stored or sent: {problem}")(
                    problem=str(exc)
                ),
                details={"field": exc.where[:200]},
            ) from None
        except RollbridgeError:
            for event in draft.events:
                event.forget_packed()
            raise

    def _redact(self, draft: Draft) -> Redaction:
        """Give each of the draft's events its redaction: the table as the request
        leaves it, walked back through its later events (a request's events seldom
        change settings or actors; most requests share the table's own). Returns
        the table's redaction after the draft."""
        after = self.redaction()
        if "settings" in draft.table_fields:
            settings = ruleset_settings(draft.table_fields["settings"])
            if settings != after.settings:
                after = after._replace(settings=settings)
        if draft.actors:
            after = after.with_actors(
                (a, None if r is None else not r.is_npc) for a, r in draft.actors.items()
            )
        events = draft.events
        if len(events) == 1:  # nearly every request: the one event has the table's after
            events[0].redaction = after
        else:
            recall(after, draft.next_seq - 1, events)
        return after

    def _apply(
        self,
        draft: Draft,
        reply: JSON,
        replies: dict[str, JSON],
        redaction: Redaction,
        packed_replies: tuple[tuple[str, bytes], ...],
    ) -> Outcome:
        """Apply a staged draft. Plain assignments: nothing here can fail."""
        changed: list[ActorRecord] = []
        removed: list[str] = []
        for actor_id, record in draft.actors.items():
            if record is None:
                if self.actors.pop(actor_id, None) is not None:
                    removed.append(actor_id)
            else:
                self.actors[actor_id] = record
                changed.append(record)
        order = None
        if draft.order is not None:  # an actor taken out or put in (:mod:`.places`)
            appended = list(self.actors)  # what a store keeps: new actors last
            ordered = {a: self.actors[a] for a in draft.order if a in self.actors}
            ordered.update(self.actors)  # (the draft's order names every actor)
            self.actors = ordered
            if list(ordered) != appended:
                order = list(ordered)
        for key, value in draft.table_fields.items():
            if key == "settings":
                self.info.settings = value
            elif key == "encounter":
                self.encounter = Encounter.from_dict(value)
            elif key == "pending":
                self.pending = value
            elif key == "dice":
                self.dice_segment = value
        if redaction is not self._redaction:  # the request changed what views depend on
            self._redaction = redaction
            self.redaction_from = min(
                (e.seq for e in draft.events if e.redaction is redaction), default=self.info.seq + 1
            )
        if draft.undo is not None or draft.redo is not None:  # undo or redo
            self.undo_stack = draft.undo if draft.undo is not None else self.undo_stack
            self.redo_stack = draft.redo if draft.redo is not None else self.redo_stack
        for event in draft.events:
            if event.undoable:  # a new change: it can be undone, nothing can be redone
                self.undo_stack.append(event.seq)
                self._history[event.seq] = event.packed()
                self.redo_stack = []
        del self.undo_stack[:-UNDO_DEPTH]
        if draft.events:
            self.info.seq = draft.events[-1].seq
        if self.retain is not None:  # as a load finds them: above seq - retain
            floor = self.info.seq - self.retain
            # Nearly always every entry is in reach: one C-level ``min`` finds that
            # (the stack holds up to UNDO_DEPTH entries; a call per entry does not).
            if self.undo_stack and min(self.undo_stack) <= floor:
                self.undo_stack = undo_in_reach(self.undo_stack, lambda s: s > floor)
            if self.redo_stack and min(self.redo_stack) <= floor:
                self.redo_stack = redo_in_reach(self.redo_stack, lambda s: s > floor)
        self._keep_recent_history()
        commit = Commit(
            events=draft.events,
            actors=changed,
            removed=removed,
            info=_copy_info(self.info),  # a copy: later requests move self.info on
            meta=self.meta(),
            replies=replies,
            order=order,
            packed_replies=packed_replies,
        )
        return Outcome(reply=reply, events=draft.events, commit=commit, replies=replies)

    @staticmethod
    def reply_key(who: Principal, request_id: str | int) -> str:
        """The idempotency key of a request: its id, scoped by the token that sent it
        (``/`` before a string id, ``#`` before an integer one: ``1`` is not ``"1"``)."""
        if request_id.__class__ is int:
            return f"{who.key or who.name}#{request_id}"
        return f"{who.key or who.name}/{request_id}"

    # -- helpers ------------------------------------------------------------------

    def require_actor(self, draft: Draft, actor_id: str) -> ActorRecord:
        """The actor as the request has left it. :raises UnknownActor:"""
        record = draft.actor(actor_id)
        if record is None:
            raise UnknownActor(
                say("actor.unknown", "no actor {actor} at this table")(actor=repr(actor_id)),
                details={"actor": actor_id},
            )
        return record

    def check_control(self, who: Principal, record: ActorRecord) -> None:
        """Players act only for the actors they control. :raises Forbidden:"""
        if who.role == "player" and who.name not in record.controllers:
            raise Forbidden(
                say("actor.not_controlled", "you ({name}) do not control {actor} ({id})")(
                    name=who.name, actor=repr(record.name), id=record.id
                ),
                details={"actor": record.id},
            )

    def dice_for(self, fields: Mapping[str, Any], who: Principal, dice: DiceSource) -> DiceSource:
        """The request's supplied dice (if allowed) or the server's source."""
        supplied = fields.get("dice")
        if supplied is None:
            return dice
        if who.role == "player" and not self.settings.get("player_dice"):
            raise Forbidden(
                say(
                    "dice.players_forbidden",
                    "this table does not let players supply their own dice (setting player_dice)",
                )(),
                details={"field": "dice"},
            )
        return ScriptedDice(supplied)

    def needs_approval(self, who: Principal) -> bool:
        """Whether this principal's rolls wait for the GM (table setting ``approval``)."""
        return who.role == "player" and bool(self.settings.get("approval"))

    def call_ruleset(self, call: Callable[[], Any]) -> Any:
        """Call into the ruleset; anything but a typed error becomes ``internal`` — an
        exception derived from ``BaseException`` only too (``GeneratorExit``, one of
        the ruleset's own), but ``KeyboardInterrupt`` and ``SystemExit`` —
        naming the ruleset only (what the exception says may be a hidden value or
        a path of the server's); the exception and its traceback go to the
        engine's log, naming the ruleset and the table."""
        try:
            return call()
        except RollbridgeError as refused:
            self._ruleset_refused(refused)
            raise
        except _PASSED_ON:  # typed errors, the codec's, and the operator's stops
            raise
        except BaseException as exc:  # a GeneratorExit, a BaseException of its own too:
            # let through, it closed the asker's connection (1011) and left the table
            raise self._ruleset_failed(exc) from exc

    def _ruleset_refused(self, refused: RollbridgeError) -> None:
        """What every call into the ruleset does with a typed refusal it raised before
        letting it through — :meth:`call_ruleset`'s and the staging of an event's views
        (:meth:`_stage`'s own try, a view's ``common_state``, ``player_view``…) alike:
        a code clients act on is the ruleset's failure (:meth:`_refusal_acted_on`), an
        ``invalid_request`` is marked the ruleset's (:meth:`_refusal_marked`). Until 7
        December 2026, late, the staging marked none: a ruleset's ``invalid_request``
        naming ``at`` from its ``player_view`` reached the Foundry module as the
        server's. The mark is set on a copy, raised here in the ruleset's object's
        place (which the caller raises again where nothing was marked). A code or
        details the ruleset's class cannot give (a ``code`` property that raises) is its
        failure too (:meth:`_refusal_read`). :raises InternalError:"""
        self._refusal_read(refused)
        self._refusal_acted_on(refused)
        marked = self._refusal_marked(refused)
        if marked is not refused:
            raise marked from refused.__cause__

    def _refusal_read(self, refused: RollbridgeError) -> None:
        """:raises InternalError: reading ``refused``'s code, details or message, raised
        by the ruleset, raised (a property of its class's own): the ruleset's failure,
        logged naming the ruleset, the table and what the reading raised. Until 7
        December 2026, night, a code's exception escaped the call into the ruleset with
        a traceback, and details' failed the reply as the server's ("the server
        failed"), naming no ruleset; a message's did so until rev29a."""
        for part, read in _REFUSAL_PARTS:
            try:
                read(refused)
            except STOPS:
                raise
            except BaseException as exc:
                log.error(
                    "ruleset %r refused at table %r with %s that cannot be read (reading "
                    "it raised %s); read as the ruleset's failure",
                    self.ruleset.id,
                    self.info.id,
                    part,
                    type(exc).__name__,
                )
                raise self._failure() from exc

    def _refusal_acted_on(self, refused: RollbridgeError) -> None:
        """:raises InternalError: ``refused``, raised by the ruleset, has a code clients
        act on (``busy``: sent again; ``stopped``: held again —
        :data:`~rollbridge.contract_codes.ACTED_ON`): the ruleset's failure, logged
        naming the ruleset, the table and the code — the refusal as the GM reads it
        stays in the log alone. So is one whose code is malformed (``"No Skill"``:
        :func:`~rollbridge.contract_codes.well_formed`), which no client could key on.
        Any other refusal is the ruleset's to give."""
        if not well_formed(refused.code):
            log.error(
                "ruleset %r refused with the malformed code %r at table %r: give RuleViolation "
                "a code of lowercase letters, digits and underscores, such as no_ammo "
                '(docs/plugins.md, "Errors"); read as the ruleset\'s failure',
                self.ruleset.id,
                refused.code,
                self.info.id,
            )
            raise self._failure() from refused
        done = acted_on(refused)
        if done is None:
            return
        log.error(
            "ruleset %r refused with the code %r at table %r, which clients act on (%s): "
            'give RuleViolation a code of the ruleset\'s own (docs/plugins.md, "Errors"); '
            "read as the ruleset's failure",
            self.ruleset.id,
            refused.code,
            self.info.id,
            done,
        )
        raise self._failure() from refused

    def _refusal_marked(self, refused: RollbridgeError) -> RollbridgeError:
        """``refused``, raised by the ruleset, marked as the ruleset's where clients read
        its details (:func:`~rollbridge.contract_codes.origin_marked`: an
        ``invalid_request``'s ``details.origin`` ``"ruleset"``), a copy where marked.
        :raises InternalError: it cannot be marked (a ``details`` of the ruleset's own
        class that refuses to be set, a ``__new__`` that refuses the copy): the
        ruleset's failure, logged as :meth:`_refusal_acted_on` logs one. Whatever it
        raises but the operator's stops, as :meth:`call_ruleset` reads one: until 7
        December 2026, late night, an exception derived from ``BaseException`` alone
        escaped and closed the asker's connection (1011), for every code once every
        code was copied."""
        try:
            return origin_marked(refused)
        except STOPS:
            raise
        except BaseException as exc:  # a ruleset's class, whatever it raises (until
            # rev29a an exception of its own derived from BaseException alone escaped:
            # the asker's connection closed, 1011)
            log.error(
                "ruleset %r refused with the code %r at table %r, whose details could not "
                "be marked as the ruleset's; read as the ruleset's failure",
                self.ruleset.id,
                refused.code,
                self.info.id,
            )
            raise self._failure() from exc

    def _ruleset_failed(self, exc: BaseException) -> InternalError:
        """The ``internal`` error :meth:`call_ruleset` raises for ``exc``, which the
        ruleset raised (logged here, with its traceback)."""
        log.error("ruleset %r failed at table %r", self.ruleset.id, self.info.id, exc_info=exc)
        return self._failure()

    def _failure(self) -> InternalError:
        """What the client reads of a ruleset's failure: its id alone."""
        return InternalError(
            say("internal.ruleset_failed", "ruleset {ruleset} failed")(
                ruleset=repr(self.ruleset.id)
            )
        )

    def returned(
        self, value: Any, expected: type, hook: str, *, optional: bool = False, field: str = ""
    ) -> Any:
        """``value``, what the ruleset's ``hook`` returned (or its ``field``), when it is
        an ``expected`` (or None, where ``optional``). :raises InternalError: anything
        else, naming the ruleset, the hook, the field and the type it was
        (:func:`~rollbridge.contract_returned.returned`)."""
        return returned(self.ruleset.id, value, expected, hook, optional=optional, field=field)

    def reshaped(self, resolution: Resolution) -> None:
        """``resolution``'s shape checked again, as it was when it was made: a field
        set afterwards (``made.steps = "..."``, ``made.dice = [die]``) got past that
        check and reached clients as it was, or failed as the event was packed naming
        no ruleset (rev28a). :raises InternalError: the ruleset's failure, its shape
        named in the log (:meth:`call_ruleset`)."""
        self.call_ruleset(resolution.__post_init__)

    def new_states(
        self, draft: Draft, states: Mapping[str, JSON], allowed: set[str]
    ) -> dict[str, ActorRecord]:
        """Actor records with the ruleset's new states (a state returned unchanged is
        left out), refusing states for uninvolved actors."""
        records: dict[str, ActorRecord] = {}
        for actor_id, state in states.items():
            if actor_id not in allowed:
                raise InternalError(
                    say(
                        "internal.state_uninvolved",
                        "ruleset {ruleset} returned a state for "
                        "{actor}, an actor the request does not involve",
                    )(ruleset=repr(self.ruleset.id), actor=repr(actor_id))
                )
            if not isinstance(state, dict):
                raise InternalError(
                    say(
                        "internal.state_not_dict",
                        "ruleset {ruleset} returned a non-dict state for {actor}",
                    )(ruleset=repr(self.ruleset.id), actor=repr(actor_id))
                )
            try:
                ensure_plain(state, f"state of {actor_id}")
            except NotPlain as exc:
                raise InternalError(
                    say(
                        "internal.state_unstorable",
                        "ruleset {ruleset} returned a state that cannot be stored: {problem}",
                    )(ruleset=repr(self.ruleset.id), problem=str(exc)),
                    details={"field": exc.where[:200]},
                ) from None
            current = self.require_actor(draft, actor_id)
            if state == current.state:  # returned as it was: not a change of the event
                continue
            records[actor_id] = ActorRecord(
                current.id, current.name, current.sheet, state, current.controllers
            )
        return records


#: What :meth:`Table.call_ruleset` lets through as it is: typed errors, the codec's
#: refusals (named by the caller) and the operator's stops (never a ruleset's answer).
_PASSED_ON = (RollbridgeError, NotPlain, *STOPS)

HANDLERS: Mapping[str, Callable[[RequestContext], JSON]] = {
    "roll": rolls.roll,
    "draw": rolls.draw,
    "resolve": rolls.resolve,
    "actor.create": actors.actor_create,
    "actor.update": actors.actor_update,
    "actor.remove": actors.actor_remove,
    "adjust": actors.adjust,
    "undo": history.undo,
    "redo": history.redo,
    "settings": history.settings,
    "encounter.start": turns.encounter_start,
    "encounter.next": turns.encounter_next,
    "encounter.reorder": turns.encounter_reorder,
    "encounter.end": turns.encounter_end,
    "approve": approvals.approve,
    "reject": approvals.reject,
    "dice.reveal": segments.dice_reveal,
}
