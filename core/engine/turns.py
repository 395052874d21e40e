"""Encounters: ``encounter.start``, ``encounter.next``, ``encounter.reorder``,
``encounter.end`` and the turn hooks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rollbridge.contract import Resolution, TurnContext
from rollbridge.dice.sources import DiceSource
from rollbridge.engine.context import RequestContext
from rollbridge.engine.draft import Draft
from rollbridge.engine.model import ActorRecord, Encounter, Principal
from rollbridge.engine.outputs import resolution_output
from rollbridge.engine.views import record_actor
from rollbridge.exceptions import EncounterState, Forbidden, InvalidRequest
from rollbridge.plain import JSON
from rollbridge.text import Messages

if TYPE_CHECKING:
    from rollbridge.engine.table import Table

#: A turn hook's results: each hook's entry, where its texts and private values
#: are (paths under ``hooks``), and the actors it changed.
HookResults = tuple[list[JSON], list[list[Any]], list[list[Any]], dict[str, ActorRecord]]

say = Messages("rollbridge")
NO_ENCOUNTER = say("encounter.none", "no encounter is running")


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
    table: Table,
    draft: Draft,
    encounter: Encounter,
    actor_id: str | None,
    source: DiceSource,
    seq: int | None = None,
) -> TurnContext:
    """The TurnContext a hook gets, with states as the request has left them;
    ``seq`` is the encounter event's that will record its result."""
    participants = tuple(record_actor(table.require_actor(draft, a)) for a in encounter.order)
    actor = next((p for p in participants if p.id == actor_id), None)
    return TurnContext(
        encounter.round,
        actor,
        participants,
        table.ruleset_settings,
        source.supplied,
        seq,
        words=table.words,
    )


def run_hooks(
    table: Table,
    draft: Draft,
    encounter: Encounter,
    steps: list[tuple[str, str | None]],
    source: DiceSource,
    first: int = 0,
    seq: int | None = None,
) -> HookResults:
    """Run turn hooks in order, each seeing the states the previous left. Their
    entries are numbered from ``first`` in the event's ``hooks``, of the event that
    gets ``seq``."""
    results: list[JSON] = []
    texts: list[list[Any]] = []
    private: list[list[Any]] = []
    changed: dict[str, ActorRecord] = {}
    staged = Draft(table)
    staged.actors = dict(draft.actors)
    for hook, actor_id in steps:
        context = turn_context(table, staged, encounter, actor_id, source, seq)
        method = getattr(table.ruleset, hook)
        resolution: Resolution | None = table.call_ruleset(lambda m=method, c=context: m(c, source))
        table.returned(resolution, Resolution, hook, optional=True)
        if resolution is None:
            continue
        table.returned(resolution.outcome, dict, hook, field="outcome")
        table.reshaped(resolution)
        records = table.new_states(staged, resolution.states, set(encounter.order))
        staged.actors.update(records)
        changed.update(records)
        entry, where, marked = resolution_output(
            table.ruleset,
            resolution,
            {"hook": hook, "actor": actor_id},
            prefix=("hooks", first + len(results)),
            words=table.words,
        )
        results.append(entry)
        texts += where
        private += marked
    return results, texts, private, changed


def encounter_dice(
    table: Table, fields: Mapping[str, Any], who: Principal, dice: DiceSource, actor_id: str | None
) -> DiceSource:
    """The dice for turn hooks: supplied ones only from the GM or the next actor's player."""
    if fields.get("dice") is not None and who.role == "player":
        record = table.actors.get(actor_id or "")
        if record is None or who.name not in record.controllers:
            raise Forbidden(
                say(
                    "encounter.dice_forbidden",
                    "only the GM or the player of the actor whose "
                    "turn starts may supply dice for it",
                )(),
                details={"field": "dice"},
            )
    return table.dice_for(fields, who, dice)


def checked_order(table: Table, draft: Draft, given: list[str]) -> list[str]:
    """An encounter's order as a request gives it. :raises InvalidRequest: for an
    actor named twice. :raises UnknownActor: for one not at the table."""
    order = list(given)
    if len(set(order)) != len(order):
        raise InvalidRequest(
            say("encounter.order_twice", "order: an actor is named twice")(),
            details={"field": "order"},
        )
    for actor_id in order:
        table.require_actor(draft, actor_id)
    return order


def encounter_start(ctx: RequestContext) -> JSON:
    """``encounter.start``: set the order and run ``on_round_start`` and the first
    ``on_turn_start``."""
    table, draft = ctx.table, ctx.draft
    if table.encounter is not None:
        raise EncounterState(
            say("encounter.running", "an encounter is already running; end it first")()
        )
    order = checked_order(table, draft, ctx.fields["order"])
    encounter = Encounter(order)
    source = encounter_dice(table, ctx.fields, ctx.who, ctx.dice, order[0])
    steps = [("on_round_start", None), ("on_turn_start", order[0])]
    hooks, texts, private, changed = run_hooks(
        table, draft, encounter, steps, source, seq=draft.next_seq
    )
    source.finish()
    return ctx.record(
        "encounter.started",
        _supplied({"hooks": hooks}, source),
        actors=changed,
        table={"encounter": encounter.to_dict()},
        undoable=True,
        texts=texts,
        private=private,
    )


def encounter_next(ctx: RequestContext) -> JSON:
    """``encounter.next``: end this turn and start the next, running the hooks in between."""
    table, draft, who = ctx.table, ctx.draft, ctx.who
    encounter = table.encounter
    if encounter is None:
        raise EncounterState(NO_ENCOUNTER())
    current = encounter.current
    if who.role == "player":
        record = table.actors.get(current or "")
        if record is None or who.name not in record.controllers:
            raise Forbidden(
                say(
                    "encounter.turn_forbidden",
                    "only the GM or the current actor's player may end this turn",
                )()
            )
    turn, round_ = encounter.turn + 1, encounter.round
    steps: list[tuple[str, str | None]] = [("on_turn_end", current)]
    if turn >= len(encounter.order):
        turn, round_ = 0, round_ + 1
        steps += [("on_round_end", None)]
    order = list(encounter.order)
    if ctx.fields.get("order") is not None:
        # the new round's order (a tracker that deals initiative every round)
        if who.role == "player":
            raise Forbidden(
                say("encounter.order_forbidden", "order: only the GM may change the order")(),
                details={"field": "order"},
            )
        if round_ == encounter.round:
            raise InvalidRequest(
                say(
                    "encounter.order_mid_round",
                    "order: only for the turn that begins a new round "
                    "(encounter.reorder changes the order within one)",
                )(),
                details={"field": "order"},
            )
        order = checked_order(table, draft, ctx.fields["order"])
    upcoming = Encounter(order, round_, turn)
    if round_ != encounter.round:
        steps += [("on_round_start", None)]
    steps += [("on_turn_start", upcoming.current)]
    source = encounter_dice(table, ctx.fields, who, ctx.dice, upcoming.current)
    # Hooks of the ending turn see the old round; those of the new one the new round.
    split = 2 if round_ != encounter.round else 1
    seq = draft.next_seq  # the encounter event's (ctx.record)
    hooks, texts, private, changed = run_hooks(
        table, draft, encounter, steps[:split], source, seq=seq
    )
    staged_draft = Draft(table)
    staged_draft.actors = {**draft.actors, **changed}
    more, more_texts, more_private, changed_more = run_hooks(
        table, staged_draft, upcoming, steps[split:], source, first=len(hooks), seq=seq
    )
    source.finish()
    return ctx.record(
        "encounter.turn",
        _supplied(
            {
                "round": upcoming.round,
                "turn": upcoming.turn,
                "actor": upcoming.current,
                "hooks": hooks + more,
            },
            source,
        ),
        actors={**changed, **changed_more},
        table={"encounter": upcoming.to_dict()},
        undoable=True,
        texts=texts + more_texts,
        private=private + more_private,
    )


def _supplied(data: JSON, source: DiceSource) -> JSON:
    """An encounter event's data, saying so when its hooks rolled supplied dice (as a
    resolution's ``supplied``: not the server's, which ``rollbridge verify`` tells
    apart); left out otherwise."""
    if source.supplied:
        data["supplied"] = True
    return data


def encounter_reorder(ctx: RequestContext) -> JSON:
    """``encounter.reorder``: a new turn order for the running encounter (a tracker's
    initiative sorted again); the current actor keeps its turn, at its place in the
    new order. No hook runs."""
    table = ctx.table
    encounter = table.encounter
    if encounter is None:
        raise EncounterState(NO_ENCOUNTER())
    order = checked_order(table, ctx.draft, ctx.fields["order"])
    current = encounter.current
    if current not in order:
        raise InvalidRequest(
            say(
                "encounter.current_left_out",
                "order: {actor}, whose turn it is, is not in it",
            )(actor=repr(current)),
            details={"field": "order", "actor": current},
        )
    if order == encounter.order:
        raise InvalidRequest(
            say("encounter.order_unchanged", "order: it is the encounter's order already")(),
            details={"field": "order"},
        )
    upcoming = Encounter(order, encounter.round, order.index(current))
    return ctx.record(
        "encounter.reordered",
        {"order": order, "round": upcoming.round, "turn": upcoming.turn, "actor": current},
        table={"encounter": upcoming.to_dict()},
        undoable=True,
    )


def encounter_end(ctx: RequestContext) -> JSON:
    """``encounter.end``: the encounter is over."""
    table = ctx.table
    if table.encounter is None:
        raise EncounterState(NO_ENCOUNTER())
    return ctx.record(
        "encounter.ended",
        {"rounds": table.encounter.round},
        table={"encounter": None},
        undoable=True,
    )


# -- approvals ------------------------------------------------------------------
