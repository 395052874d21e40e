"""Encounters: ``encounter.start``, ``encounter.next``, ``encounter.end`` and the turn hooks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rollbridge.contract import Resolution, TurnContext
from rollbridge.dice.sources import DiceSource
from rollbridge.engine.draft import Draft, record_dict
from rollbridge.engine.model import ActorRecord, Encounter, Principal
from rollbridge.engine.requests import Request
from rollbridge.engine.views import record_actor
from rollbridge.exceptions import EncounterState, Forbidden, InvalidRequest

if TYPE_CHECKING:
    from rollbridge.engine.table import Table

JSON = dict[str, Any]


def encounter_without(table: Table, actor_id: str) -> JSON | None:
    """The encounter with ``actor_id`` taken out of the order (None if nobody is left)."""
    assert table.encounter is not None
    order = list(table.encounter.order)
    index = order.index(actor_id)
    order.pop(index)
    if not order:
        return None
    turn = table.encounter.turn
    if index < turn or (index == turn and turn >= len(order)):
        turn = max(0, turn - 1) if index < turn else 0
    return Encounter(order, table.encounter.round, min(turn, len(order) - 1)).to_dict()


def turn_context(
    table: Table, draft: Draft, encounter: Encounter, actor_id: str | None, source: DiceSource
) -> TurnContext:
    """The TurnContext a hook gets, with states as the request has left them."""
    participants = tuple(
        record_actor(record_dict(table.require_actor(draft, a))) for a in encounter.order
    )
    actor = next((p for p in participants if p.id == actor_id), None)
    return TurnContext(
        encounter.round, actor, participants, table.ruleset_settings, source.supplied
    )


def run_hooks(
    table: Table,
    draft: Draft,
    encounter: Encounter,
    steps: list[tuple[str, str | None]],
    source: DiceSource,
) -> tuple[list[JSON], dict[str, ActorRecord]]:
    """Run turn hooks in order, each seeing the states the previous left."""
    results: list[JSON] = []
    changed: dict[str, ActorRecord] = {}
    staged = Draft(table)
    staged.actors = dict(draft.actors)
    for hook, actor_id in steps:
        context = turn_context(table, staged, encounter, actor_id, source)
        method = getattr(table.ruleset, hook)
        resolution: Resolution | None = table.call_ruleset(lambda m=method, c=context: m(c, source))
        if resolution is None:
            continue
        records = table.new_states(staged, resolution.states, set(encounter.order))
        staged.actors.update(records)
        changed.update(records)
        entry = {"hook": hook, "actor": actor_id, **resolution.to_dict()}
        entry.pop("states")
        results.append(entry)
    return results, changed


def encounter_dice(
    table: Table, fields: Mapping[str, Any], who: Principal, dice: DiceSource, actor_id: str | None
) -> DiceSource:
    """The dice for turn hooks: supplied ones only from the GM or the next actor's player."""
    if fields.get("dice") is not None and who.role == "player":
        record = table.actors.get(actor_id or "")
        if record is None or who.name not in record.controllers:
            raise Forbidden(
                "only the GM or the player of the actor whose turn starts may supply dice for it",
                details={"field": "dice"},
            )
    return table.dice_for(fields, who, dice)


def encounter_start(
    table: Table, draft: Draft, request: Request, who: Principal, dice: DiceSource
) -> JSON:
    """``encounter.start``: set the order and run ``on_round_start`` and the first
    ``on_turn_start``."""
    if table.encounter is not None:
        raise EncounterState("an encounter is already running; end it first")
    order = list(request.fields["order"])
    if len(set(order)) != len(order):
        raise InvalidRequest("order: an actor is named twice", details={"field": "order"})
    for actor_id in order:
        table.require_actor(draft, actor_id)
    encounter = Encounter(order)
    source = encounter_dice(table, request.fields, who, dice, order[0])
    hooks, changed = run_hooks(
        table, draft, encounter, [("on_round_start", None), ("on_turn_start", order[0])], source
    )
    source.finish()
    event = draft.add_event(
        "encounter.started",
        {"hooks": hooks},
        actors=changed,
        table={"encounter": encounter.to_dict()},
        undoable=True,
        request=request.id,
        by=who.label(),
    )
    return table.reply_for(event, who)


def encounter_next(
    table: Table, draft: Draft, request: Request, who: Principal, dice: DiceSource
) -> JSON:
    """``encounter.next``: end this turn and start the next, running the hooks in between."""
    encounter = table.encounter
    if encounter is None:
        raise EncounterState("no encounter is running")
    current = encounter.current
    if who.role == "player":
        record = table.actors.get(current or "")
        if record is None or who.name not in record.controllers:
            raise Forbidden("only the GM or the current actor's player may end this turn")
    turn, round_ = encounter.turn + 1, encounter.round
    steps: list[tuple[str, str | None]] = [("on_turn_end", current)]
    if turn >= len(encounter.order):
        turn, round_ = 0, round_ + 1
        steps += [("on_round_end", None)]
    upcoming = Encounter(list(encounter.order), round_, turn)
    if round_ != encounter.round:
        steps += [("on_round_start", None)]
    steps += [("on_turn_start", upcoming.current)]
    source = encounter_dice(table, request.fields, who, dice, upcoming.current)
    # Hooks of the ending turn see the old round; those of the new one the new round.
    split = 2 if round_ != encounter.round else 1
    hooks, changed = run_hooks(table, draft, encounter, steps[:split], source)
    staged_draft = Draft(table)
    staged_draft.actors = {**draft.actors, **changed}
    more, changed_more = run_hooks(table, staged_draft, upcoming, steps[split:], source)
    source.finish()
    event = draft.add_event(
        "encounter.turn",
        {
            "round": upcoming.round,
            "turn": upcoming.turn,
            "actor": upcoming.current,
            "hooks": hooks + more,
        },
        actors={**changed, **changed_more},
        table={"encounter": upcoming.to_dict()},
        undoable=True,
        request=request.id,
        by=who.label(),
    )
    return table.reply_for(event, who)


def encounter_end(
    table: Table, draft: Draft, request: Request, who: Principal, dice: DiceSource
) -> JSON:
    """``encounter.end``: the encounter is over."""
    if table.encounter is None:
        raise EncounterState("no encounter is running")
    event = draft.add_event(
        "encounter.ended",
        {"rounds": table.encounter.round},
        table={"encounter": None},
        undoable=True,
        request=request.id,
        by=who.label(),
    )
    return table.reply_for(event, who)


# -- approvals ------------------------------------------------------------------
