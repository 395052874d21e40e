"""Turns and raids: BD-8's countdown of a dying bandit, BD-4's per-turn choice, BD-11.

BD-8 Decision: a bandit who starts dying dies at the end of the first of *its own*
turns that **begins** after it started dying, unless stabilised before that turn ends.
``on_turn_start`` arms the countdown (``dying_turn_started``) when such a turn begins;
``on_turn_end`` kills if it is armed. So a bandit that starts dying during its own turn
survives the end of that turn and dies at the end of its next one.

A death's new state is the bandit's own (:func:`.privacy.of_state`). The report of
``on_turn_start`` is shown whole: it says only that the BD-4 choice is free again (the
choice was shown in the harm terms) and that a dying bandit dies at the end of this
turn unless stabilised, which follows from its public status and the turn order.
"""

from __future__ import annotations

from typing import Any

from rollbridge.contract import ActionContext, Actor, Resolution, TurnContext
from rollbridge.dice import DiceSource
from rollbridge.exceptions import InvalidParams, RuleViolation
from rollbridge.text import Text

from . import sheet as sheets
from .actors import state_of
from .messages import (
    CHOICE_FREE,
    CHOICE_FREE_AGAIN,
    DIES,
    DIES_AFTER_TURN,
    DIES_AT_TURN_END,
    DYING_COUNTDOWN,
    DYING_NOT_RESOLVED,
    EXTRA_KEEPS_NONE,
    NO_SUCH_ACTOR,
    RAID_DEAD,
    RAID_HEALED,
    RAID_KEEPS,
    RAID_OVER,
    TURN_ENDS,
)
from .privacy import of_state
from .state import marked
from .wound_texts import SLOT_TEXT
from .wounds import die, end_raid

__all__ = ["resolve_end_of_raid", "resolve_end_of_turn", "turn_ended", "turn_started"]

_CHOICE_FREE_AGAIN = CHOICE_FREE_AGAIN()
_RAID_OVER = RAID_OVER()


def _dying_unhelped(state: dict[str, Any]) -> bool:
    return bool(state.get("dying") and not state.get("stabilised") and not state.get("dead"))


def turn_started(context: TurnContext) -> Resolution | None:
    """The actor's own turn begins: release its BD-4 choice; arm BD-8's countdown."""
    actor = context.actor
    if actor is None:
        return None
    before = state_of(actor)
    after = dict(before)
    lines: list[Text] = []
    if before.get("dual_wield") is not None:
        after["dual_wield"] = None
        lines.append(CHOICE_FREE(actor=actor.name))
    if _dying_unhelped(before) and not before.get("dying_turn_started"):
        after["dying_turn_started"] = True
        lines.append(DYING_COUNTDOWN(actor=actor.name))
    if after == before:
        return None
    armed = bool(after.get("dying_turn_started")) and not before.get("dying_turn_started")
    return Resolution(
        narration=lines[-1],
        outcome={"event": "turn_start", "actor": actor.id, "dying_countdown": armed},
        states={actor.id: after},
        steps=lines,
    )


def _death(actor: Actor, why: Text) -> Resolution:
    after = die(state_of(actor))
    return Resolution(
        narration=DIES(actor=actor.name),
        outcome={"event": "died", "actor": actor.id, "state": of_state(actor.id, after)},
        states={actor.id: after},
        steps=[why],
    )


def turn_ended(context: TurnContext) -> Resolution | None:
    """The actor's own turn ends: an armed, unstabilised dying bandit dies (BD-8)."""
    actor = context.actor
    if actor is None or not sheets.is_bandit(actor.sheet):
        return None
    state = state_of(actor)
    if _dying_unhelped(state) and state.get("dying_turn_started"):
        return _death(actor, DIES_AT_TURN_END(actor=actor.name))
    return None


def resolve_end_of_turn(context: ActionContext, dice: DiceSource) -> Resolution:
    """The explicit action for tables without an encounter: the actor's turn is over
    (for a dying bandit: the turn after it started dying is over)."""
    actor = context.actor
    assert actor is not None
    state = state_of(actor)
    if sheets.is_bandit(actor.sheet) and _dying_unhelped(state):
        return _death(actor, DIES_AFTER_TURN(actor=actor.name))
    states: dict[str, Any] = {}
    if state.get("dual_wield") is not None:
        states[actor.id] = {**state, "dual_wield": None}
    return Resolution(
        narration=TURN_ENDS(actor=actor.name),
        outcome={"event": "turn_end", "actor": actor.id},
        states=states,
        steps=[_CHOICE_FREE_AGAIN] if states else [],
    )


def resolve_end_of_raid(context: ActionContext, dice: DiceSource) -> Resolution:
    kept: dict[str, int] = dict(context.params.get("kept_wounds") or {})
    by_id = {t.id: t for t in context.targets}
    for actor_id in kept:
        if actor_id not in by_id:
            raise InvalidParams(
                NO_SUCH_ACTOR(actor=actor_id),
                details={"field": f"params.kept_wounds.{actor_id}"},
            )
        if not sheets.is_bandit(by_id[actor_id].sheet):
            raise RuleViolation(
                EXTRA_KEEPS_NONE(actor=by_id[actor_id].name),
                code="not_a_bandit",
            )
    bandits = [t for t in context.targets if sheets.is_bandit(t.sheet)]
    for bandit in bandits:
        if _dying_unhelped(state_of(bandit)):
            raise RuleViolation(
                DYING_NOT_RESOLVED(actor=bandit.name),
                code="dying_not_resolved",
                details={"actor": bandit.id},
            )
    states: dict[str, Any] = {}
    report: dict[str, Any] = {}
    steps: list[Text] = []
    for bandit in bandits:
        before = state_of(bandit)
        after = end_raid(before, kept.get(bandit.id))
        states[bandit.id] = after
        report[bandit.id] = {
            "dead": bool(after.get("dead")),
            "kept": kept.get(bandit.id),
            "slots_before": marked(before),
            "slots_after": marked(after),
        }
        if after.get("dead"):
            steps.append(RAID_DEAD(bandit=bandit.name))
        elif bandit.id in kept:
            slot = kept[bandit.id]
            steps.append(RAID_KEEPS(bandit=bandit.name, label=SLOT_TEXT[slot], slot=slot))
        else:
            steps.append(RAID_HEALED(bandit=bandit.name))
    return Resolution(
        narration=_RAID_OVER,
        outcome={"action": "end_of_raid", "bandits": report},
        states=states,
        steps=steps,
    )
