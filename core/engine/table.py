"""The sans-I/O table engine: requests in, events and a reply out.

A :class:`Table` holds one table's state in memory — its info and settings,
actors, encounter, pending approvals, undo and redo stacks — and its ruleset.
:meth:`Table.execute` takes a validated :class:`~rollbridge.engine.requests.Request`,
the :class:`~rollbridge.engine.model.Principal` asking, and a dice source;
it checks everything first and raises a typed error having changed nothing,
or returns an :class:`Outcome`: the reply for the requester, the new events
(each with the next seq) and a :class:`~rollbridge.engine.model.Commit` for
the store. The table has applied the outcome to itself when it returns; if the
store then fails to commit it, the caller must drop this object and load the
table again from the store.

Nothing here touches a socket, a file, a clock or a global random generator.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from rollbridge.contract import Ruleset, major_version
from rollbridge.dice.sources import DiceSource, ScriptedDice
from rollbridge.engine import actors, approvals, history, rolls, turns
from rollbridge.engine.draft import Draft, record_dict
from rollbridge.engine.model import (
    ActorRecord,
    Commit,
    Encounter,
    Event,
    Principal,
    TableInfo,
    TableSnapshot,
)
from rollbridge.engine.requests import Request
from rollbridge.engine.views import actor_view, event_view
from rollbridge.exceptions import (
    Forbidden,
    InternalError,
    InvalidRequest,
    NothingToUndo,
    RollbridgeError,
    RulesetUnavailable,
    UnknownActor,
)
from rollbridge.plain import pack, unpack

__all__ = ["HANDLERS", "UNDO_DEPTH", "Outcome", "Table"]

JSON = dict[str, Any]

#: How many events the GM can undo in a row (as long as they are in the retained log).
UNDO_DEPTH = 100
#: Of those, how many the table keeps in memory; older ones are read from the log.
HISTORY_IN_MEMORY = 8
#: How many replies a table remembers in memory for repeated request ids
#: (the store remembers them for much longer; see ``reply_window``).
RECENT_REPLIES = 32

_ROLE_RANK = {"observer": 0, "player": 1, "gm": 2}


@dataclass(slots=True)
class Outcome:
    """What one request did: the reply, the events, the commit for the store."""

    reply: JSON
    events: list[Event] = field(default_factory=list)
    commit: Commit | None = None


class Table:
    """One table's state and its ruleset; see the module docstring.

    :param snapshot: the table as loaded (or freshly created).
    :param ruleset: the table's ruleset, already checked with :meth:`check_ruleset`.
    :param history: events the undo and redo stacks refer to, by seq.
    """

    def __init__(
        self,
        snapshot: TableSnapshot,
        ruleset: Ruleset,
        history: Mapping[int, Event] | None = None,
        load_event: Callable[[int], Event | None] | None = None,
    ) -> None:
        self.info = snapshot.info
        self.ruleset = ruleset
        self.actors: dict[str, ActorRecord] = dict(snapshot.actors)
        self.encounter: Encounter | None = snapshot.encounter
        self.pending: dict[str, JSON] = dict(snapshot.pending)
        history = dict(history or {})
        # An undo entry whose event left the log cannot be undone any more.
        self.undo_stack: list[int] = [s for s in snapshot.undo if s in history]
        self.redo_stack: list[int] = [s for s in snapshot.redo if s in history]
        self._load_event = load_event
        # Kept packed (msgpack bytes): one object each instead of hundreds, so the
        # cyclic garbage collector has that much less to walk at a busy server.
        self._history: dict[int, bytes] = {}
        self._keep_recent_history(history)
        self._replies: OrderedDict[str, bytes] = OrderedDict()

    # -- opening --------------------------------------------------------------

    @staticmethod
    def check_ruleset(info: TableInfo, rulesets: Mapping[str, Ruleset]) -> Ruleset:
        """The ruleset a stored table needs, if installed at a compatible version.

        :raises RulesetUnavailable: naming the table, the ruleset and the version.
        """
        ruleset = rulesets.get(info.ruleset)
        if ruleset is None:
            raise RulesetUnavailable(
                f"table {info.id!r} uses ruleset {info.ruleset!r} {info.ruleset_version}, "
                "which is not installed; the table is left untouched",
                details={"table": info.id, "ruleset": info.ruleset},
            )
        if major_version(ruleset.version) != major_version(info.ruleset_version):
            raise RulesetUnavailable(
                f"table {info.id!r} was created with ruleset {info.ruleset!r} "
                f"{info.ruleset_version}, but {ruleset.version} is installed (another major "
                "version); the table is left untouched",
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
        )

    def meta(self) -> JSON:
        """The table-level state a store keeps beside info and actors. The pending
        map is shared, not copied: the engine replaces it, never changes it."""
        return {
            "encounter": self.encounter.to_dict() if self.encounter else None,
            "pending": self.pending,
            "undo": list(self.undo_stack),
            "redo": list(self.redo_stack),
        }

    def history_event(self, seq: int) -> Event:
        """An event the undo or redo stack refers to: kept in memory for the
        latest few, read from the log (``load_event``) for older ones.

        :raises NothingToUndo: if it has left the retained log.
        """
        packed = self._history.get(seq)
        event = Event.from_dict(unpack(packed)) if packed is not None else None
        if event is None and self._load_event is not None:
            event = self._load_event(seq)
        if event is None:
            raise NothingToUndo(f"event {seq} has left the retained log; it cannot be reversed")
        return event

    @property
    def load_event(self) -> Callable[[int], Event | None] | None:
        """How the table reads older events for undo (None: it keeps only recent ones)."""
        return self._load_event

    def _keep_recent_history(self, extra: Mapping[int, Event] | None = None) -> None:
        """Keep in memory only the events of the latest undo and redo entries."""
        recent = {*self.undo_stack[-HISTORY_IN_MEMORY:], *self.redo_stack[-HISTORY_IN_MEMORY:]}
        pool = {seq: pack(event.to_dict()) for seq, event in (extra or {}).items() if seq in recent}
        pool.update(self._history)
        self._history = {seq: pool[seq] for seq in recent if seq in pool}

    def remembered_reply(self, key: str) -> JSON | None:
        """The reply to a request already executed, if still in memory."""
        packed = self._replies.get(key)
        return unpack(packed) if packed is not None else None

    def view_actor(self, actor_id: str, *, gm: bool) -> JSON:
        """One actor as the GM or everyone else sees it."""
        return actor_view(
            record_dict(self.actors[actor_id]),
            gm=gm,
            ruleset=self.ruleset,
            settings=self.ruleset_settings,
        )

    def view_event(self, event: Event, *, gm: bool) -> JSON:
        """An event as the GM (``gm=True``) or everyone else sees it."""
        view = event.views.get(gm)
        if view is None:  # the reply and the broadcast share one view of each kind
            npcs = frozenset() if gm else frozenset(a for a, r in self.actors.items() if r.is_npc)
            view = event.views[gm] = event_view(
                event, gm=gm, ruleset=self.ruleset, settings=self.ruleset_settings, npcs=npcs
            )
        return view

    def view(self, *, gm: bool, at: int | None = None, later: Iterable[Event] = ()) -> JSON:
        """The whole table as a viewer sees it (what ``welcome`` and ``state`` carry):
        now, or as it stood right after seq ``at``, walking back through ``later``
        (every event after ``at``, any order).

        :raises InvalidRequest: if ``at`` is in the future or events after it are missing.
        """
        actors: dict[str, JSON | None] = {a: record_dict(r) for a, r in self.actors.items()}
        fields: JSON = {k: self.table_field(k) for k in ("settings", "encounter")}
        seq = self.info.seq
        if at is not None and at != seq:
            if at > seq:
                raise InvalidRequest(f"state.at: seq {at} is after the latest seq {seq}")
            events = sorted(later, key=lambda e: e.seq, reverse=True)
            if [e.seq for e in events] != list(range(seq, at, -1)):
                raise InvalidRequest(
                    f"state.at: seq {at} is older than the retained event log",
                    details={"field": "at"},
                )
            for event in events:
                for change in event.changes:
                    actors[change["actor"]] = change["before"]
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
            "actors": [
                actor_view(rec, gm=gm, ruleset=self.ruleset, settings=settings.get("ruleset") or {})
                for rec in actors.values()
                if rec is not None
            ],
        }
        if gm:
            table["pending"] = [{"pending": key, **entry} for key, entry in self.pending.items()]
            table["can_undo"] = bool(self.undo_stack)
            table["can_redo"] = bool(self.redo_stack)
        return table

    # -- executing --------------------------------------------------------------

    def execute(self, request: Request, who: Principal, dice: DiceSource) -> Outcome:
        """Run one request for ``who``, drawing dice from ``dice`` unless the
        request supplies its own. Raises a typed error having changed nothing,
        or applies the outcome to this table and returns it."""
        if _ROLE_RANK[who.role] < _ROLE_RANK[request.spec.role]:
            raise Forbidden(
                f"{request.type!r} needs the {request.spec.role} role; you are {who.role}",
                details={"type": request.type},
            )
        if request.type == "state":
            at = request.fields.get("at")
            if at is not None and at != self.info.seq:  # needs the log: see Table.view
                raise InvalidRequest("state.at: this table cannot look back without its log")
            return Outcome(reply={"table": self.view(gm=who.is_gm)})
        handler = HANDLERS[request.type]
        draft = Draft(self)
        reply = handler(self, draft, request, who, dice)
        return self._apply(draft, request, who, reply)

    def _apply(self, draft: Draft, request: Request, who: Principal, reply: JSON) -> Outcome:
        changed: list[ActorRecord] = []
        removed: list[str] = []
        for actor_id, record in draft.actors.items():
            if record is None:
                if self.actors.pop(actor_id, None) is not None:
                    removed.append(actor_id)
            else:
                self.actors[actor_id] = record
                changed.append(record)
        for key, value in draft.table_fields.items():
            if key == "settings":
                self.info.settings = value
            elif key == "encounter":
                self.encounter = Encounter.from_dict(value)
            elif key == "pending":
                self.pending = value
        if draft.undo is not None or draft.redo is not None:  # undo or redo
            self.undo_stack = draft.undo if draft.undo is not None else self.undo_stack
            self.redo_stack = draft.redo if draft.redo is not None else self.redo_stack
        for event in draft.events:
            if event.undoable:  # a new change: it can be undone, nothing can be redone
                self.undo_stack.append(event.seq)
                self._history[event.seq] = pack(event.to_dict())
                self.redo_stack = []
        del self.undo_stack[:-UNDO_DEPTH]
        self._keep_recent_history()
        if draft.events:
            self.info.seq = draft.events[-1].seq
        replies = {self.reply_key(who, request.id): reply, **draft.replies}
        for key, value in replies.items():
            self._remember(key, value)
        commit = Commit(
            events=draft.events,
            actors=changed,
            removed=removed,
            info=replace(self.info),  # a copy: later requests move self.info on
            meta=self.meta(),
            replies=replies,
        )
        return Outcome(reply=reply, events=draft.events, commit=commit)

    @staticmethod
    def reply_key(who: Principal, request_id: str) -> str:
        """The idempotency key of a request: its id, scoped by the token that sent it."""
        return f"{who.key or who.name}/{request_id}"

    def _remember(self, key: str, reply: JSON) -> None:
        self._replies[key] = pack(reply)  # packed, like the history
        self._replies.move_to_end(key)
        while len(self._replies) > RECENT_REPLIES:
            self._replies.popitem(last=False)

    # -- helpers ------------------------------------------------------------------

    def require_actor(self, draft: Draft, actor_id: str) -> ActorRecord:
        """The actor as the request has left it. :raises UnknownActor:"""
        record = draft.actor(actor_id)
        if record is None:
            raise UnknownActor(f"no actor {actor_id!r} at this table", details={"actor": actor_id})
        return record

    def check_control(self, who: Principal, record: ActorRecord) -> None:
        """Players act only for the actors they control. :raises Forbidden:"""
        if who.role == "player" and who.name not in record.controllers:
            raise Forbidden(
                f"you ({who.name}) do not control {record.name!r} ({record.id})",
                details={"actor": record.id},
            )

    def dice_for(self, fields: Mapping[str, Any], who: Principal, dice: DiceSource) -> DiceSource:
        """The request's supplied dice (if allowed) or the server's source."""
        supplied = fields.get("dice")
        if supplied is None:
            return dice
        if who.role == "player" and not self.settings.get("player_dice"):
            raise Forbidden(
                "this table does not let players supply their own dice (setting player_dice)",
                details={"field": "dice"},
            )
        return ScriptedDice(supplied)

    def needs_approval(self, who: Principal) -> bool:
        """Whether this principal's rolls wait for the GM (table setting ``approval``)."""
        return who.role == "player" and bool(self.settings.get("approval"))

    def reply_for(self, event: Event, who: Principal) -> JSON:
        """The reply to the requester: the event as it sees it, or ``secret``."""
        if event.gm_only and not who.is_gm:
            return {"seq": event.seq, "status": "secret", "note": "sent to the GM only"}
        return {"seq": event.seq, "status": "done", "event": self.view_event(event, gm=who.is_gm)}

    # -- handlers -------------------------------------------------------------------

    def call_ruleset(self, call: Callable[[], Any]) -> Any:
        """Call into the ruleset; anything but a typed error becomes ``internal``."""
        try:
            return call()
        except RollbridgeError:
            raise
        except Exception as exc:
            raise InternalError(
                f"ruleset {self.ruleset.id!r} failed: {type(exc).__name__}: {exc}"
            ) from exc

    def new_states(
        self, draft: Draft, states: Mapping[str, JSON], allowed: set[str]
    ) -> dict[str, ActorRecord]:
        """Actor records with the ruleset's new states, refusing states for uninvolved actors."""
        records: dict[str, ActorRecord] = {}
        for actor_id, state in states.items():
            if actor_id not in allowed:
                raise InternalError(
                    f"ruleset {self.ruleset.id!r} returned a state for {actor_id!r}, "
                    "an actor the request does not involve"
                )
            if not isinstance(state, dict):
                raise InternalError(
                    f"ruleset {self.ruleset.id!r} returned a non-dict state for {actor_id!r}"
                )
            current = self.require_actor(draft, actor_id)
            records[actor_id] = ActorRecord(
                current.id, current.name, current.sheet, state, current.controllers
            )
        return records


HANDLERS: Mapping[str, Callable[..., JSON]] = {
    "roll": rolls.roll,
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
    "encounter.end": turns.encounter_end,
    "approve": approvals.approve,
    "reject": approvals.reject,
}
