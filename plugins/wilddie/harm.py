"""Actions that change damage state and chips: damage (WD-7, WD-8), the GM's
healing (WD-8) and the GM's award of chips (WD-4).

The target's Toughness, its parts and the margin over it are marked as its
private sheet values, its chips as its private state
(:mod:`rollbridge.plugins.wilddie.privacy`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rollbridge.contract import ActionContext, Actor, Resolution
from rollbridge.dice import DiceGroup, DiceSource
from rollbridge.exceptions import Forbidden, InvalidParams
from rollbridge.plugins.wilddie.checks import require_target, strength_faces
from rollbridge.plugins.wilddie.damage import (
    damage_effect,
    describe_terms,
    parse_damage,
    roll_damage,
    shown_toughness,
)
from rollbridge.plugins.wilddie.messages import (
    ALREADY_INCAPACITATED,
    AWARD_NEEDS_TARGET,
    AWARD_STEP,
    AWARD_STEP_CAPPED,
    AWARD_STEP_HIDDEN,
    AWARDS,
    DAMAGE,
    DAMAGE_BY,
    DAMAGE_CONSTANT,
    DAMAGE_NEEDS_PLAYERS_ACTOR,
    DAMAGE_ROLL,
    DAMAGE_TOTAL,
    DICE_LINE,
    DICE_LINE_SUM,
    DIE_ACED,
    EFFECT_STEP,
    HEAL_NEEDS_TARGET,
    HEAL_NOTHING,
    HEAL_STEP,
    HEAL_WOUNDS,
    HEALS,
    INCAPACITATED,
    MELEE_NEEDS_ACTOR,
    NO_EFFECT,
    NO_LONGER_INCAPACITATED,
    NO_LONGER_SHAKEN,
    OUT_OF_THE_FIGHT,
    SHAKEN,
    TOUGHNESS_STEP,
    TOUGHNESS_STEP_ARMOUR,
    TOUGHNESS_STEP_HIDDEN,
    WOUND_TRACK,
    WOUNDED,
)
from rollbridge.plugins.wilddie.privacy import chips, from_sheet, from_state, state_summary
from rollbridge.plugins.wilddie.sheet import is_pc
from rollbridge.plugins.wilddie.state import (
    MAX_CHIPS,
    add_wounds,
    copy_state,
    heal_wounds,
    max_wounds,
    set_shaken,
)
from rollbridge.plugins.wilddie.traits import die_faces, toughness
from rollbridge.text import Private, Text

__all__ = ["DamagePlan", "award_chips", "damage", "damage_result", "heal", "plan_damage"]

# texts without arguments, made once
_SHAKEN, _NO_EFFECT = SHAKEN(), NO_EFFECT()
_INCAPACITATED, _OUT, _ALREADY = INCAPACITATED(), OUT_OF_THE_FIGHT(), ALREADY_INCAPACITATED()
_NO_LONGER_INCAPACITATED, _NO_LONGER_SHAKEN = NO_LONGER_INCAPACITATED(), NO_LONGER_SHAKEN()


def _group_line(group: DiceGroup) -> Text:
    parts: list[Any] = []
    for die in group.dice:
        if len(die.rolls) > 1:
            parts.append(DIE_ACED(rolls=list(die.rolls), value=die.value))
        else:
            parts.append(die.value)
    if len(parts) == 1 and len(group.dice[0].rolls) == 1:
        return DICE_LINE(label=group.label, value=parts[0])
    return DICE_LINE_SUM(label=group.label, dice=parts, total=group.total)


def _wound_note(before: Mapping[str, Any], after: Mapping[str, Any], *, pc: bool) -> Text:
    """What new wounds did (WD-8): incapacitated, out of the fight, or the track."""
    if after["incapacitated"] and not before.get("incapacitated"):
        return _INCAPACITATED if pc else _OUT
    if after["incapacitated"]:
        return _ALREADY
    return WOUND_TRACK(count=after["wounds"], limit=max_wounds(pc))


@lru_cache(maxsize=1024)
def _toughness_step(
    target_name: str, target_id: str, vigor: str, armor: int, tough: int
) -> Private:
    """How the Toughness is built (WD-5); players read that it is hidden for an NPC.
    (Made once per target and sheet values: texts are immutable.)"""
    faces = die_faces(vigor)
    said = {"target": target_name, "toughness": tough, "faces": faces, "half": faces // 2}
    step = TOUGHNESS_STEP_ARMOUR(**said, armor=armor) if armor else TOUGHNESS_STEP(**said)
    return from_sheet(step, target_id, instead=TOUGHNESS_STEP_HIDDEN(target=target_name))


@dataclass(frozen=True)
class DamagePlan:
    """What a damage roll (WD-7) is before any die: the target, the weapon's terms,
    the attacker's Strength die for a melee hit (WD-7 Decision), the target's
    Toughness (WD-5) and whether it is already Shaken, the wounds setting and
    whether the target is a player character (WD-8).

    :func:`damage` rolls from it and :mod:`.odds` counts from it, so they cannot drift.
    """

    target: Actor
    terms: tuple[Mapping[str, int], ...]
    melee: bool
    strength_die: int | None
    toughness: int
    shaken: bool
    per_raise: bool
    pc: bool

    @property
    def constant(self) -> int:
        """The sum of the expression's constants."""
        return sum(t.get("constant", 0) for t in self.terms)

    @property
    def dice(self) -> list[int]:
        """The faces of every die rolled, Strength first (each aces, WD-2)."""
        faces = [] if self.strength_die is None else [self.strength_die]
        for term in self.terms:
            if "count" in term:
                faces.extend([term["faces"]] * term["count"])
        return faces


def plan_damage(context: ActionContext) -> DamagePlan:
    """The :class:`DamagePlan` of a ``damage`` action, refused as :func:`damage` refuses
    (one target, a valid expression, an actor for a melee hit, and WD-10: a player's
    damage roll names the attacker, whose control the engine checks; only the GM
    rolls damage for no character, a trap or a fall)."""
    if context.actor is None and not context.by_gm:
        raise Forbidden(DAMAGE_NEEDS_PLAYERS_ACTOR(), details={"field": "actor"})
    target = require_target(context)
    params = context.params
    terms = parse_damage(params["dice"])
    melee = bool(params.get("melee", False))
    strength_die = None
    if melee:
        if context.actor is None:
            raise InvalidParams(MELEE_NEEDS_ACTOR())
        strength_die = strength_faces(context.actor)
    return DamagePlan(
        target=target,
        terms=tuple(terms),
        melee=melee,
        strength_die=strength_die,
        toughness=toughness(target.sheet),
        shaken=bool(target.state.get("shaken")),
        per_raise=context.settings.get("wounds_per_hit", "one") == "per_raise",
        pc=is_pc(target.sheet),
    )


def damage_result(
    plan: DamagePlan, total: int, shown: Private | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """What a damage ``total`` does to the planned target (WD-7, WD-8): the effect
    (:func:`.damage.damage_effect`) and the target's new state."""
    target = plan.target
    effect = damage_effect(
        total,
        plan.toughness,
        shaken=plan.shaken,
        per_raise=plan.per_raise,
        of=target.id,
        shown=shown,
    )
    if effect["wounds"]:
        state = add_wounds(target.state, effect["wounds"], pc=plan.pc)
        set_shaken(state, True)
    else:
        state = copy_state(target.state)
        if effect["result"] == "shaken":
            set_shaken(state, True)
    return effect, state


def damage(context: ActionContext, dice: DiceSource) -> Resolution:
    """WD-7: roll damage (every die aces, no wild die) and apply it against Toughness."""
    plan = plan_damage(context)
    target = plan.target
    terms = list(plan.terms)
    melee = plan.melee
    steps: list[Text | Private] = []
    strength_die = plan.strength_die
    strength = None if strength_die is None else f"d{strength_die}"
    constant = plan.constant
    total, groups, formula = roll_damage(dice, terms, strength_die)
    steps.append(DAMAGE_ROLL(formula=formula))
    steps.extend(_group_line(g) for g in groups)
    if constant:
        steps.append(DAMAGE_CONSTANT(constant=constant))
    steps.append(DAMAGE_TOTAL(total=total))

    sheet = target.sheet
    vigor = sheet["attributes"]["vigor"]
    armor = int(sheet.get("armor", 0))
    tough = plan.toughness
    steps.append(_toughness_step(target.name, target.id, vigor, armor, tough))
    per_raise = plan.per_raise
    was_shaken = plan.shaken
    shown = shown_toughness(tough, target.id)
    effect, state = damage_result(plan, total, shown)
    summary: Text
    if effect["wounds"]:
        note = _wound_note(target.state, state, pc=plan.pc)
        summary = WOUNDED(count=effect["wounds"], note=note)
    elif effect["result"] == "shaken":
        summary = _SHAKEN
    else:
        summary = _NO_EFFECT
    steps.append(EFFECT_STEP(why=effect["why"], effect=summary))
    outcome: dict[str, Any] = {
        "action": "damage",
        "actor": None if context.actor is None else context.actor.id,
        "target": target.id,
        "dice": describe_terms(terms),
        "melee": melee,
        "strength": strength,
        "constant": constant,
        "formula": formula,
        "total": total,
        "toughness": from_sheet(tough, target.id),
        "toughness_parts": from_sheet(
            {"base": 2, "vigor": die_faces(vigor) // 2, "armor": armor}, target.id
        ),
        "margin": from_sheet(effect["margin"], target.id),
        "result": effect["result"],
        "wounds_inflicted": effect["wounds"],
        "why": effect["why"],
        "was_shaken": was_shaken,
        "setting": "per_raise" if per_raise else "one",
        "chips_spent": 0,
        "new_state": state_summary(state, target.id),
    }
    said = {
        "total": total,
        "target": target.name,
        "toughness": shown,
        "effect": summary,
    }
    return Resolution(
        narration=(
            DAMAGE(**said) if context.actor is None else DAMAGE_BY(actor=context.actor.name, **said)
        ),
        outcome=outcome,
        dice=groups,
        states={target.id: state},
        steps=steps,
    )


def heal(context: ActionContext, dice: DiceSource) -> Resolution:
    """WD-8: the GM removes wounds (healing any wound ends incapacitation)."""
    count = int(context.params.get("wounds", 1))
    unshake = bool(context.params.get("unshake", False))
    if count == 0 and not unshake:
        raise InvalidParams(HEAL_NOTHING())
    if not context.targets:
        raise InvalidParams(HEAL_NEEDS_TARGET())
    states: dict[str, Any] = {}
    results: dict[str, Any] = {}
    steps: list[Text] = []
    for target in context.targets:
        state = heal_wounds(target.state, count, pc=is_pc(target.sheet))
        if unshake:
            set_shaken(state, False)
        states[target.id] = state
        results[target.id] = {
            "wounds_before": int(target.state["wounds"]),
            "wounds": state["wounds"],
            "incapacitated": state["incapacitated"],
            "shaken": state["shaken"],
        }
        changes = [HEAL_WOUNDS(before=target.state["wounds"], after=state["wounds"])]
        if target.state["incapacitated"] and not state["incapacitated"]:
            changes.append(_NO_LONGER_INCAPACITATED)
        if unshake and target.state["shaken"]:
            changes.append(_NO_LONGER_SHAKEN)
        steps.append(HEAL_STEP(target=target.name, changes=changes))
    return Resolution(
        narration=HEALS(names=[t.name for t in context.targets]),
        outcome={
            "action": "heal",
            "wounds": count,
            "unshake": unshake,
            "targets": results,
            "chips_spent": 0,
        },
        states=states,
        steps=steps,
    )


def award_chips(context: ActionContext, dice: DiceSource) -> Resolution:
    """WD-4: the GM gives chips back (up to the technical bound of MAX_CHIPS)."""
    count = int(context.params.get("count", 1))
    if not context.targets:
        raise InvalidParams(AWARD_NEEDS_TARGET())
    states: dict[str, Any] = {}
    results: dict[str, Any] = {}
    steps: list[Private] = []
    for target in context.targets:
        before = int(target.state["chips"])
        state = copy_state(target.state)
        state["chips"] = min(MAX_CHIPS, before + count)
        states[target.id] = state
        results[target.id] = {
            "given": chips(state["chips"] - before, target.id),
            "chips": chips(state["chips"], target.id),
        }
        said = {"target": target.name, "before": before, "after": state["chips"]}
        if state["chips"] - before < count:
            line = AWARD_STEP_CAPPED(**said, most=MAX_CHIPS)
        else:
            line = AWARD_STEP(**said)
        hidden = AWARD_STEP_HIDDEN(target=target.name)
        steps.append(from_state(line, target.id, instead=hidden))
    return Resolution(
        narration=AWARDS(count=count, names=[t.name for t in context.targets]),
        outcome={"action": "award_chips", "count": count, "targets": results, "chips_spent": 0},
        states=states,
        steps=steps,
    )
