"""Observer plugins hear of durable events: ``roll_resolved`` and ``actor_state_changed``."""

from __future__ import annotations

from rollbridge.engine.model import Event
from rollbridge.engine.table import Table
from rollbridge.host import PluginHost

__all__ = ["notify"]


def notify(host: PluginHost, table: Table, events: list[Event]) -> None:
    """Fire the observer hooks for events that are durable, in seq order."""
    wants_rolls = host.implements("roll_resolved")
    wants_states = host.implements("actor_state_changed")
    if not (wants_rolls or wants_states):
        return
    for event in events:
        if wants_rolls and event.kind in ("roll", "resolution"):
            host.notify(
                "roll_resolved", table_id=table.info.id, event=table.view_event(event, gm=True)
            )
        if wants_states:
            for change in event.changes:
                after = change["after"]
                common = (
                    table.view_actor(change["actor"], gm=True)["common"]
                    if after is not None and change["actor"] in table.actors
                    else None
                )
                host.notify(
                    "actor_state_changed",
                    table_id=table.info.id,
                    actor_id=change["actor"],
                    before=change["before"]["state"] if change["before"] else None,
                    after=after["state"] if after else None,
                    common=common,
                    seq=event.seq,
                )
