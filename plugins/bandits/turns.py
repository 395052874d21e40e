"""Turns and raids: BD-8's countdown of a dying bandit, BD-4's per-turn choice, BD-11.

BD-8 Decision: a bandit who starts dying dies at the end of the first of *its own*
turns that **begins** after it started dying, unless stabilised before that turn ends.
``on_turn_start`` arms the countdown (``dying_turn_started``) when such a turn begins;
``on_turn_end`` kills if it is armed. So a bandit that starts dying during its own turn
survives the end of that turn and dies at the end of its next one.
"""

from __future__ import annotations

from typing import Any

from rollbridge.contract import ActionContext, Actor, Resolution, TurnContext
from rollbridge.dice import DiceSource
from rollbridge.exceptions import InvalidParams, RuleViolation

from . import sheet as sheets
from .actors import state_of
from .state import SLOT_LABELS, marked
from .wounds import die, end_raid

__all__ = ["resolve_end_of_raid", "resolve_end_of_turn", "turn_ended", "turn_started"]


def _dying_unhelped(state: dict[str, Any]) -> bool:
    return bool(state.get("dying") and not state.get("stabilised") and not state.get("dead"))


def turn_started(context: TurnContext) -> Resolution | None:
    """The actor's own turn begins: release its BD-4 choice; arm BD-8's countdown."""
    actor = context.actor
    if actor is None:
        return None
    before = state_of(actor)
    after = dict(before)
    lines: list[str] = []
    if before.get("dual_wield") is not None:
        after["dual_wield"] = None
        lines.append(f"a new turn: {actor.name} may choose +1 Pierce or +1 Armour again (BD-4)")
    if _dying_unhelped(before) and not before.get("dying_turn_started"):
        after["dying_turn_started"] = True
        lines.append(
            f"{actor.name} is dying: dead at the end of this turn unless stabilised (BD-8)"
        )
    if after == before:
        return None
    armed = bool(after.get("dying_turn_started")) and not before.get("dying_turn_started")
    return Resolution(
        narration=lines[-1],
        outcome={"event": "turn_start", "actor": actor.id, "dying_countdown": armed},
        states={actor.id: after},
        steps=lines,
    )


def _death(actor: Actor, why: str) -> Resolution:
    after = die(state_of(actor))
    return Resolution(
        narration=f"{actor.name} dies: nobody stabilised them in time (BD-8)",
        outcome={"event": "died", "actor": actor.id, "state": after},
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
        return _death(
            actor,
            f"BD-8: {actor.name} was dying when this turn began and was not stabilised "
            "before it ended",
        )
    return None


def resolve_end_of_turn(context: ActionContext, dice: DiceSource) -> Resolution:
    """The explicit action for tables without an encounter: the actor's turn is over
    (for a dying bandit: the turn after it started dying is over)."""
    actor = context.actor
    assert actor is not None
    state = state_of(actor)
    if sheets.is_bandit(actor.sheet) and _dying_unhelped(state):
        return _death(
            actor,
            f"BD-8: the turn after {actor.name} started dying has ended and nobody stabilised them",
        )
    states: dict[str, Any] = {}
    if state.get("dual_wield") is not None:
        states[actor.id] = {**state, "dual_wield": None}
    return Resolution(
        narration=f"{actor.name}'s turn ends",
        outcome={"event": "turn_end", "actor": actor.id},
        states=states,
        steps=["a new turn: the two-weapon choice is free again (BD-4)"] if states else [],
    )


def resolve_end_of_raid(context: ActionContext, dice: DiceSource) -> Resolution:
    kept: dict[str, int] = dict(context.params.get("kept_wounds") or {})
    by_id = {t.id: t for t in context.targets}
    for actor_id in kept:
        if actor_id not in by_id:
            raise InvalidParams(
                f"params.kept_wounds.{actor_id}: no such actor at this table",
                details={"field": f"params.kept_wounds.{actor_id}"},
            )
        if not sheets.is_bandit(by_id[actor_id].sheet):
            raise RuleViolation(
                f"{by_id[actor_id].name} is an extra and keeps no wounds",
                code="not_a_bandit",
            )
    bandits = [t for t in context.targets if sheets.is_bandit(t.sheet)]
    for bandit in bandits:
        if _dying_unhelped(state_of(bandit)):
            raise RuleViolation(
                f"{bandit.name} is dying and not stabilised: stabilise them or end their "
                "turn (BD-8) before ending the raid",
                code="dying_not_resolved",
                details={"actor": bandit.id},
            )
    states: dict[str, Any] = {}
    report: dict[str, Any] = {}
    steps: list[str] = []
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
            steps.append(f"{bandit.name} is dead and stays dead; the player makes a new bandit")
        elif bandit.id in kept:
            slot = kept[bandit.id]
            steps.append(
                f"{bandit.name} keeps {SLOT_LABELS[slot]} (slot {slot}) as a getaway trouble; "
                "every other slot is cleared (BD-11)"
            )
        else:
            steps.append(f"{bandit.name} is fully healed (BD-11)")
    return Resolution(
        narration="The raid is over: the bandits heal (BD-11)",
        outcome={"action": "end_of_raid", "bandits": report},
        states=states,
        steps=steps,
    )
