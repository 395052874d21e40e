"""Actions that change damage state and chips: damage (WD-7, WD-8), the GM's
healing (WD-8) and the GM's award of chips (WD-4)."""

from __future__ import annotations

from typing import Any

from rollbridge.contract import ActionContext, Resolution
from rollbridge.dice import DiceGroup, DiceSource
from rollbridge.exceptions import InvalidParams
from rollbridge.plugins.wilddie.checks import require_target, state_summary, strength_faces
from rollbridge.plugins.wilddie.damage import (
    damage_effect,
    describe_terms,
    parse_damage,
    roll_damage,
)
from rollbridge.plugins.wilddie.sheet import is_pc
from rollbridge.plugins.wilddie.state import (
    MAX_CHIPS,
    add_wounds,
    copy_state,
    heal_wounds,
)
from rollbridge.plugins.wilddie.traits import die_faces, toughness

__all__ = ["award_chips", "damage", "heal"]


def _group_line(group: DiceGroup) -> str:
    parts = []
    for die in group.dice:
        if len(die.rolls) > 1:
            parts.append(f"{'+'.join(map(str, die.rolls))}={die.value} (aced)")
        else:
            parts.append(str(die.value))
    if len(parts) == 1 and len(group.dice[0].rolls) == 1:
        return f"{group.label}: {parts[0]}"
    return f"{group.label}: {', '.join(parts)} = {group.total}"


def damage(context: ActionContext, dice: DiceSource) -> Resolution:
    """WD-7: roll damage (every die aces, no wild die) and apply it against Toughness."""
    target = require_target(context)
    params = context.params
    terms = parse_damage(params["dice"])
    melee = bool(params.get("melee", False))
    steps: list[str] = []
    strength = None
    strength_die = None
    if melee:
        if context.actor is None:
            raise InvalidParams(
                "params.melee: melee damage adds the attacker's Strength; name the attacker"
            )
        strength_die = strength_faces(context.actor)
        strength = f"d{strength_die}"
    constant = sum(t.get("constant", 0) for t in terms)
    total, groups, formula = roll_damage(dice, terms, strength_die)
    steps.append(f"damage roll {formula}")
    steps.extend(_group_line(g) for g in groups)
    if constant:
        steps.append(f"constant {constant:+d}")
    steps.append(f"damage total {total} (every die aces; damage gets no wild die)")

    sheet = target.sheet
    vigor = sheet["attributes"]["vigor"]
    armor = int(sheet.get("armor", 0))
    tough = toughness(sheet)
    steps.append(
        f"Toughness of {target.name} {tough} = 2 + half of Vigor {vigor} ({die_faces(vigor) // 2})"
        + (f" + armour {armor}" if armor else "")
    )
    per_raise = context.settings.get("wounds_per_hit", "one") == "per_raise"
    was_shaken = bool(target.state.get("shaken"))
    effect = damage_effect(total, tough, shaken=was_shaken, per_raise=per_raise)
    pc = is_pc(sheet)
    if effect["wounds"]:
        state, note = add_wounds(target.state, effect["wounds"], pc=pc)
        state["shaken"] = True
        count = effect["wounds"]
        summary = f"{count} wound{'s' if count > 1 else ''} and Shaken: {note}"
    elif effect["result"] == "shaken":
        state = copy_state(target.state)
        state["shaken"] = True
        note = "Shaken"
        summary = "Shaken (overcoming pain)"
    else:
        state = copy_state(target.state)
        note = "no effect"
        summary = "no effect"
    steps.append(f"WD-7: {effect['why']} → {summary}")
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
        "toughness": tough,
        "toughness_parts": {"base": 2, "vigor": die_faces(vigor) // 2, "armor": armor},
        "margin": effect["margin"],
        "result": effect["result"],
        "wounds_inflicted": effect["wounds"],
        "why": effect["why"],
        "was_shaken": was_shaken,
        "setting": "per_raise" if per_raise else "one",
        "chips_spent": 0,
        "new_state": state_summary(state),
    }
    source = "" if context.actor is None else f"{context.actor.name}'s "
    return Resolution(
        narration=f"{source}damage {total} against {target.name}'s Toughness {tough}: {summary}",
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
        raise InvalidParams("params.wounds: heal at least 1 wound, or set unshake")
    if not context.targets:
        raise InvalidParams("heal needs at least one target")
    states: dict[str, Any] = {}
    results: dict[str, Any] = {}
    steps: list[str] = []
    for target in context.targets:
        state = heal_wounds(target.state, count, pc=is_pc(target.sheet))
        if unshake:
            state["shaken"] = False
        states[target.id] = state
        results[target.id] = {
            "wounds_before": int(target.state["wounds"]),
            "wounds": state["wounds"],
            "incapacitated": state["incapacitated"],
            "shaken": state["shaken"],
        }
        steps.append(
            f"{target.name}: wounds {target.state['wounds']} → {state['wounds']}"
            + (
                ", no longer incapacitated"
                if target.state["incapacitated"] and not state["incapacitated"]
                else ""
            )
            + (", no longer Shaken" if unshake and target.state["shaken"] else "")
        )
    names = ", ".join(t.name for t in context.targets)
    return Resolution(
        narration=f"The GM heals {names}",
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
        raise InvalidParams("award_chips needs at least one target")
    states: dict[str, Any] = {}
    results: dict[str, Any] = {}
    steps: list[str] = []
    for target in context.targets:
        before = int(target.state["chips"])
        state = copy_state(target.state)
        state["chips"] = min(MAX_CHIPS, before + count)
        states[target.id] = state
        results[target.id] = {"given": state["chips"] - before, "chips": state["chips"]}
        line = f"{target.name}: chips {before} → {state['chips']}"
        if state["chips"] - before < count:
            line += f" (at most {MAX_CHIPS} are held)"
        steps.append(line)
    names = ", ".join(t.name for t in context.targets)
    return Resolution(
        narration=f"The GM awards {count} chip{'s' if count > 1 else ''} to {names}",
        outcome={"action": "award_chips", "count": count, "targets": results, "chips_spent": 0},
        states=states,
        steps=steps,
    )
