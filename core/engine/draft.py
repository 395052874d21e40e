"""A request's changes under construction, applied only once every check passed.

Handlers never touch a :class:`~rollbridge.engine.table.Table` directly: they
read through a :class:`Draft` (which sees its own pending changes first) and
record events on it. If a handler raises, the draft is dropped and the table
is exactly as before.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rollbridge.engine.model import ActorRecord, Event
from rollbridge.engine.places import placed
from rollbridge.plain import JSON

if TYPE_CHECKING:
    from rollbridge.engine.table import Table

__all__ = ["Draft", "record_dict"]


def record_dict(actor: ActorRecord) -> JSON:
    """An actor record as events carry it (shares data; records are never mutated)."""
    return {
        "id": actor.id,
        "name": actor.name,
        "sheet": actor.sheet,
        "state": actor.state,
        "controllers": actor.controllers,
    }


class Draft:
    """Changes being built for one request, applied only once all checks pass."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.actors: dict[str, ActorRecord | None] = {}
        #: The ids of the table's actors in order as the request has left them, once
        #: it took an actor out or put one in (None before: the table's order).
        self.order: list[str] | None = None
        self.events: list[Event] = []
        self.table_fields: JSON = {}
        self.undo: list[int] | None = None
        self.redo: list[int] | None = None
        self.replies: dict[str, JSON] = {}

    @property
    def next_seq(self) -> int:
        """The seq the next event added to this draft gets."""
        return self.table.info.seq + len(self.events) + 1

    def actor(self, actor_id: str) -> ActorRecord | None:
        """The actor as the request has left it so far (None: absent or removed)."""
        if actor_id in self.actors:
            return self.actors[actor_id]
        return self.table.actors.get(actor_id)

    def field(self, name: str) -> Any:
        """A table field (settings, encounter, pending) as the request has left it."""
        if name in self.table_fields:
            return self.table_fields[name]
        return self.table.table_field(name)

    def add_event(
        self,
        kind: str,
        data: JSON,
        *,
        actors: Mapping[str, ActorRecord | None] | None = None,
        table: Mapping[str, Any] | None = None,
        gm_only: bool = False,
        undoable: bool = False,
        request: str | None = None,
        by: str | None = None,
        places: Mapping[str, int] | None = None,
        shown: Sequence[ActorRecord] = (),
    ) -> Event:
        """Record an event: the actors it changes (None removes one; a new one goes
        last, or at its place in ``places``), the table fields it sets, the actors
        whose players' view it changes without changing them (``shown``,
        :attr:`Event.shown <rollbridge.engine.model.Event.shown>`), and its
        flags. Seqs follow the table's latest."""
        changes = []
        for actor_id, after in (actors or {}).items():
            before = self.actor(actor_id)
            changes.append(
                {
                    "actor": actor_id,
                    "before": record_dict(before) if before is not None else None,
                    "after": record_dict(after) if after is not None else None,
                }
            )
            self.actors[actor_id] = after
        if changes:  # (nearly always a change of an actor that stays: nothing to place)
            self._place(changes, places or {})
        table_change = None
        if table:
            table_change = {
                "before": {k: copy.deepcopy(self.field(k)) for k in table},
                "after": {k: copy.deepcopy(v) for k, v in table.items()},
            }
            self.table_fields.update(table)
        info = self.table.info
        clock = self.table.clock
        event = Event(
            table=info.id,
            epoch=info.epoch,
            seq=self.next_seq,
            kind=kind,
            data=data,
            changes=changes,
            table_change=table_change,
            gm_only=gm_only,
            undoable=undoable and bool(changes or table_change),
            request=request,
            by=by,
            at=round(clock(), 3) if clock is not None else None,
            shown=[record_dict(record) for record in shown] if shown else [],
        )
        self.events.append(event)
        return event

    def _place(self, changes: list[JSON], places: Mapping[str, int]) -> None:
        """Give each change that takes an actor out its place before, and each that
        puts one in at a place (``places``) its place after
        (:mod:`rollbridge.engine.places`); keep the order they leave."""
        moved = [c for c in changes if (c["before"] is None) != (c["after"] is None)]
        if not moved:
            return
        order = self.order if self.order is not None else list(self.table.actors)
        for change in moved:
            if change["after"] is None and change["actor"] in order:
                change["index"] = order.index(change["actor"])
        updates = {c["actor"]: None if c["after"] is None else True for c in moved}
        self.order = list(placed(dict.fromkeys(order, True), updates, places))
        for change in moved:
            if change["before"] is None and change["actor"] in places:
                change["index"] = self.order.index(change["actor"])
