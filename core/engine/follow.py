"""Applying stored events to a table in memory: what a process that follows a table
another process executes (a cluster's follower) does with each event it reads, instead
of loading the whole table again.

An event carries what its request changed: each actor's whole record before and
after, and the table fields it set (``settings``, ``encounter``, ``dice``) before and
after (:mod:`rollbridge.engine.model`). The rest of a table's state follows from its
kind and data, as :meth:`Table.execute <rollbridge.engine.table.Table.execute>`
changed it on the owner:

* the pending approvals: ``approval.requested`` adds ``data.request`` as
  ``data.pending``; ``approval.rejected`` removes ``data.pending``; the event an
  ``approve`` made removes ``data.approved``;
* the undo and redo stacks: an ``undoable`` event is pushed on the undo stack and
  empties the redo stack (the undo stack keeps its latest ``UNDO_DEPTH``); ``undo``
  moves ``data.undoes`` from the undo stack's top to the redo stack, ``redo`` moves
  ``data.redoes`` back; at the end an entry whose event has left the retained log
  (a seq below ``kept_from``) is dropped, a redo entry with every one under it
  (:mod:`rollbridge.engine.reach`), as a table loaded then drops it;
* the table's seq: the last event's.

An actor an event puts back at a place (an undone removal) goes there
(:mod:`rollbridge.engine.places`), as on the owner.

Every event is checked against the table as it goes: the next seq of the same epoch,
a kind of :data:`APPLIED_KINDS`, each actor's ``before`` equal to the record held (and
an actor it takes out where it stood, when it says so), each
table field's ``before`` equal to the one held, the pending request it settles held
(and the one it adds not), the entry it undoes or redoes on top of its stack. Any
mismatch raises :class:`Unfit` having changed nothing: the caller loads the table
instead. :func:`replay` computes the result without touching the table;
:meth:`Table.follow <rollbridge.engine.table.Table.follow>` installs it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rollbridge.engine import places
from rollbridge.engine.model import ActorRecord, Encounter, Event
from rollbridge.engine.reach import redo_in_reach, undo_in_reach
from rollbridge.plain import JSON

if TYPE_CHECKING:
    from rollbridge.engine.table import Table

__all__ = ["APPLIED_KINDS", "Replayed", "Unfit", "continues", "pending_after", "replay"]

#: The kinds of event the engine makes, each applied from what it carries. An event
#: of another kind (a later version's) is not applied: the table is loaded instead.
APPLIED_KINDS = frozenset(
    {
        "roll",
        "dice.drawn",
        "resolution",
        "actor.created",
        "actor.updated",
        "actor.removed",
        "adjusted",
        "undo",
        "redo",
        "settings",
        "encounter.started",
        "encounter.turn",
        "encounter.reordered",
        "encounter.ended",
        "approval.requested",
        "approval.rejected",
        "dice.committed",
        "dice.revealed",
        "dice.revealed.gm",
    }
)


class Unfit(Exception):
    """The events do not continue the table exactly (see the module docstring): load
    the table instead. Nothing was changed."""


def continues(events: Sequence[Event] | None, *, epoch: int, after: int, latest: int) -> bool:
    """Whether ``events`` are exactly the seqs ``after + 1 .. latest`` of ``epoch``,
    each of a kind :func:`replay` applies (a cheap check before reading anything else)."""
    if events is None or latest < after:
        return False
    if [e.seq for e in events] != list(range(after + 1, latest + 1)):
        return False
    return all(e.epoch == epoch and e.kind in APPLIED_KINDS for e in events)


@dataclass(slots=True)
class Replayed:
    """A table's state after followed events: what :meth:`Table.follow
    <rollbridge.engine.table.Table.follow>` installs."""

    seq: int
    actors: dict[str, ActorRecord]
    settings: JSON
    encounter: Encounter | None
    pending: dict[str, JSON]
    dice: JSON | None
    undo: list[int]
    redo: list[int]
    #: The packed events of the undoable events applied, by seq (the table keeps the
    #: recent ones in memory).
    history: dict[int, bytes]


def replay(table: Table, events: Sequence[Event], *, kept_from: int, undo_depth: int) -> Replayed:
    """The state of ``table`` after ``events`` (which continue its seq), leaving out of
    the stacks the entries below ``kept_from`` (gone from the retained log) and the
    undo stack's entries beyond ``undo_depth``.

    :raises Unfit: an event does not continue the table as it is (nothing changed).
    """
    state = Replayed(
        seq=table.info.seq,
        actors=dict(table.actors),
        settings=table.info.settings,
        encounter=table.encounter,
        pending=table.pending,
        dice=table.dice_segment,
        undo=list(table.undo_stack),
        redo=list(table.redo_stack),
        history={},
    )
    epoch = table.info.epoch
    for event in events:
        if event.epoch != epoch or event.seq != state.seq + 1:
            raise Unfit(f"event {event.epoch}:{event.seq} after {epoch}:{state.seq}")
        if event.kind not in APPLIED_KINDS:
            raise Unfit(f"event {event.seq} is of kind {event.kind!r}")
        _actors(state, event)
        _fields(state, event)
        _pending(state, event)
        _stacks(state, event, undo_depth)
        state.seq = event.seq
    state.undo = undo_in_reach(state.undo, lambda s: s >= kept_from)
    state.redo = redo_in_reach(state.redo, lambda s: s >= kept_from)
    return state


def _actors(state: Replayed, event: Event) -> None:
    """Each actor the event changes: its record after (None: removed), an actor put
    back at its place (:mod:`rollbridge.engine.places`). Nearly every event only
    replaces records: those are replaced as they are checked, and only an event that
    takes an actor out or puts one in goes through :func:`places.apply`."""
    actors, moved = state.actors, False
    for change in event.changes:
        actor_id, before, after = change["actor"], change["before"], change["after"]
        held = actors.get(actor_id)
        if (held.as_data() if held is not None else None) != before:
            raise Unfit(f"event {event.seq}: actor {actor_id!r} is not as it found it")
        if before is not None and after is not None:
            if not moved:
                actors[actor_id] = ActorRecord.from_dict(after, fresh=True)
            continue
        moved = True
        at = places.index(change) if after is None else None
        if at is not None and list(actors).index(actor_id) != at:
            raise Unfit(f"event {event.seq}: actor {actor_id!r} is not where it found it")
    if moved:
        places.apply(actors, event.changes, "after", _record)


def _record(data: JSON) -> ActorRecord:
    return ActorRecord.from_dict(data, fresh=True)


def _field(state: Replayed, name: str) -> Any:
    """A table field as events record it (as :meth:`Table.table_field`)."""
    if name == "settings":
        return state.settings
    if name == "encounter":
        return state.encounter.to_dict() if state.encounter else None
    if name == "dice":
        return state.dice
    raise Unfit(f"a change of the table field {name!r}")


def _fields(state: Replayed, event: Event) -> None:
    """The table fields the event sets: settings, encounter, the dice's segment."""
    change = event.table_change
    if not change:
        return
    for name, value in change.get("before", {}).items():
        if _field(state, name) != value:
            raise Unfit(f"event {event.seq}: the table's {name} is not as it found it")
    for name, value in change.get("after", {}).items():
        _field(state, name)  # a field it does not know: Unfit
        if name == "settings":
            state.settings = value
        elif name == "encounter":
            state.encounter = Encounter.from_dict(value)
        else:
            state.dice = value


def _pending(state: Replayed, event: Event) -> None:
    """The pending approval the event adds or settles."""
    state.pending = pending_after(state.pending, event)


def pending_after(pending: dict[str, JSON], event: Event) -> dict[str, JSON]:
    """The pending approvals after ``event``: the one it adds or settles (see the
    module docstring), in a copy (the table's own map is shared with its stored meta
    and never changed in place); ``pending`` itself when it changes none.

    :raises Unfit: it adds a request held already, or settles one not held.
    """
    data = event.data
    if event.kind == "approval.requested":
        added = data.get("pending")
        if added in pending or not isinstance(data.get("request"), dict):
            raise Unfit(f"event {event.seq}: pending request {added!r} is held already")
        return {**pending, added: data["request"]}
    settled = data.get("pending") if event.kind == "approval.rejected" else None
    if "approved" in data and "approved_by" in data:
        settled = data["approved"]
    if settled is None:
        return pending
    if settled not in pending:
        raise Unfit(f"event {event.seq}: no pending request {settled!r} to settle")
    return {k: v for k, v in pending.items() if k != settled}


def _stacks(state: Replayed, event: Event, undo_depth: int) -> None:
    """The undo and redo stacks after the event (as ``Table._apply`` leaves them)."""
    if event.kind in ("undo", "redo"):
        source, target = (
            (state.undo, state.redo) if event.kind == "undo" else (state.redo, state.undo)
        )
        moved = event.data.get("undoes" if event.kind == "undo" else "redoes")
        if not source or source[-1] != moved:
            raise Unfit(f"event {event.seq}: {moved!r} is not the entry it {event.kind}es")
        source.pop()
        target.append(moved)
    if event.undoable:
        state.undo.append(event.seq)
        state.history[event.seq] = event.packed()
        state.redo = []
    del state.undo[:-undo_depth]
