"""Actions that roll a trait: trait tests (WD-3), attacks (WD-6), recovery
from Shaken (WD-9, also the turn hook) and the chip reroll of any of them (WD-4).

A melee attack's difficulty is the target's Defense, derived from its sheet,
which players do not see for an NPC. The roll memory is part of the attacker's
state, which everyone sees for a player's character, so the roll record keeps
``"against": "defense"`` and the target's id instead of the number, and a chip
on it names that target (``targets: [guard]``) to recompute the Defense.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.contract import ActionContext, Actor, Resolution
from rollbridge.dice import DiceSource, Die, roll_compounding
from rollbridge.exceptions import InvalidParams, RuleViolation, UnknownRequest
from rollbridge.plugins.wilddie.actions import RANGE_DIFFICULTY, SIZE_ADJUSTMENT
from rollbridge.plugins.wilddie.rolling import (
    evaluate,
    group_for,
    result_dice,
    roll_record,
    signed,
    steps_for,
    trait_label,
)
from rollbridge.plugins.wilddie.sheet import is_pc
from rollbridge.plugins.wilddie.state import (
    ROLL_MEMORY,
    find_roll,
    remember_roll,
    replace_roll,
    wound_modifier,
)
from rollbridge.plugins.wilddie.traits import (
    UNTRAINED_PENALTY,
    defense,
    die_faces,
    trait_die,
)

__all__ = ["attack", "recover", "recovery_roll", "spend_chip", "state_summary", "trait_test"]

#: WD-9: recovering from Shaken is a Character roll against 4.
RECOVERY_TRAIT = "character"
RECOVERY_DIFFICULTY = 4


def state_summary(state: Mapping[str, Any]) -> dict[str, Any]:
    """The facts of a state a resolution reports (without the roll memory)."""
    return {
        "shaken": bool(state["shaken"]),
        "wounds": int(state["wounds"]),
        "incapacitated": bool(state["incapacitated"]),
        "chips": int(state["chips"]),
    }


def require_actor(context: ActionContext) -> Actor:
    if context.actor is None:
        raise InvalidParams(f"action {context.action!r} needs an acting actor")
    return context.actor


def require_target(context: ActionContext) -> Actor:
    if len(context.targets) != 1:
        raise InvalidParams(f"action {context.action!r} needs exactly one target")
    return context.targets[0]


def ensure_can_act(actor: Actor) -> None:
    """WD-8: an incapacitated character (an npc out of the fight) rolls no traits."""
    if actor.state.get("incapacitated"):
        raise RuleViolation(
            f"{actor.name} is incapacitated and cannot make trait rolls",
            code="incapacitated",
            details={"actor": actor.id},
        )


def base_modifiers(actor: Actor, untrained: bool) -> list[dict[str, Any]]:
    """The modifiers every trait roll of ``actor`` gets: untrained −2 (WD-1), wounds (WD-8)."""
    mods: list[dict[str, Any]] = []
    if untrained:
        mods.append({"value": UNTRAINED_PENALTY, "note": "untrained"})
    wounds = wound_modifier(actor.state)
    if wounds:
        mods.append({"value": wounds, "note": f"{-wounds} wound{'s' if wounds < -1 else ''}"})
    return mods


def _roll_for(
    actor: Actor,
    dice: DiceSource,
    *,
    kind: str,
    trait: str,
    difficulty: int,
    modifiers: list[Mapping[str, Any]],
    roll_id: str | None,
    against: str | None = None,
    extra: Mapping[str, Any] | None = None,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Roll, remember the roll in the actor's state; returns (state, record, result).

    With ``against`` (``"defense"``) the remembered record keeps what the
    difficulty is built from, not ``difficulty`` itself.
    """
    faces, untrained = trait_die(actor.sheet, trait)
    record = roll_record(
        dice,
        kind=kind,
        trait=trait,
        faces=faces,
        untrained=untrained,
        wild=is_pc(actor.sheet),
        modifiers=[*base_modifiers(actor, untrained), *modifiers],
        difficulty=None if against else difficulty,
        roll_id=roll_id,
        against=against,
        extra=extra,
    )
    state = remember_roll(actor.state, record)
    record = state["rolls"][-1]
    return state, record, evaluate(record, difficulty if against else None)


def _roll_outcome(
    action: str, actor: Actor, record: Mapping[str, Any], result: Mapping[str, Any]
) -> dict[str, Any]:
    return {
        "action": action,
        "actor": actor.id,
        "roll": record["id"],
        "trait": record["trait"],
        "die": f"d{record['faces']}",
        "untrained": record["untrained"],
        "modifiers": [dict(m) for m in record["modifiers"]],
        "modifier": result["modifier"],
        **result_dice(record, result),
        "kept": result["kept"],
        "total": result["total"],
        "difficulty": result["difficulty"],
        "success": result["success"],
        "raises": result["raises"],
        "chips_spent": 0,
    }


def _verdict(result: Mapping[str, Any]) -> str:
    if not result["success"]:
        return "failure"
    n = result["raises"]
    return "success" + (f" with {n} raise{'s' if n > 1 else ''}" if n else "")


def trait_test(context: ActionContext, dice: DiceSource) -> Resolution:
    """WD-3: trait die (+ wild die for a pc) + modifiers against a difficulty."""
    actor = require_actor(context)
    ensure_can_act(actor)
    params = context.params
    state, record, result = _roll_for(
        actor,
        dice,
        kind="trait",
        trait=params["trait"],
        difficulty=int(params.get("difficulty", 4)),
        modifiers=list(params.get("modifiers", [])),
        roll_id=context.request_id,
    )
    outcome = _roll_outcome("trait", actor, record, result)
    outcome["chips_left"] = state["chips"]
    outcome["new_state"] = state_summary(state)
    return Resolution(
        narration=(
            f"{actor.name} rolls {trait_label(record)} against {result['difficulty']}: "
            f"{result['total']}, {_verdict(result)}"
        ),
        outcome=outcome,
        dice=[group_for(record, result)],
        states={actor.id: state},
        steps=steps_for(record, result),
    )


def _defense_how(target: Actor, difficulty: int) -> str:
    """The step that explains a melee difficulty (visibility.py hides it from players)."""
    fighting = (target.sheet.get("skills") or {}).get("fighting")
    return f"difficulty {difficulty} = Defense of {target.name} " + (
        f"(2 + half of Fighting {fighting})" if fighting else "(2, no Fighting)"
    )


def attack(context: ActionContext, dice: DiceSource) -> Resolution:
    """WD-6: Fighting against the target's Defense, or Shooting against range + size."""
    actor = require_actor(context)
    target = require_target(context)
    ensure_can_act(actor)
    params = context.params
    mode = params["mode"]
    if mode == "melee":
        for key in ("range", "size"):
            if key in params:
                raise InvalidParams(f"params.{key}: only a ranged attack has a {key}")
        trait = "fighting"
        difficulty = defense(target.sheet)
        how = _defense_how(target, difficulty)
        against: str | None = "defense"
        extra: dict[str, Any] = {"mode": "melee", "target": target.id}
    else:
        if "range" not in params:
            raise InvalidParams("params.range: a ranged attack needs short, medium or long")
        trait = "shooting"
        band = params["range"]
        size = params.get("size", "normal")
        difficulty = RANGE_DIFFICULTY[band] + SIZE_ADJUSTMENT[size]
        how = f"difficulty {difficulty} = {band} range {RANGE_DIFFICULTY[band]}"
        if SIZE_ADJUSTMENT[size]:
            how += f" {signed(SIZE_ADJUSTMENT[size])} ({size.replace('_', ' ')} target)"
        against = None
        extra = {"mode": "ranged", "target": target.id, "range": band, "size": size}
    state, record, result = _roll_for(
        actor,
        dice,
        kind="attack",
        trait=trait,
        difficulty=difficulty,
        modifiers=list(params.get("modifiers", [])),
        roll_id=context.request_id,
        against=against,
        extra=extra,
    )
    outcome = _roll_outcome("attack", actor, record, result)
    outcome.update(extra)
    outcome["hit"] = result["success"]
    outcome["chips_left"] = state["chips"]
    outcome["new_state"] = state_summary(state)
    hit = f"hits {target.name}" if result["success"] else f"misses {target.name}"
    if result["success"] and result["raises"]:
        hit += f" with {result['raises']} raise{'s' if result['raises'] > 1 else ''}"
    return Resolution(
        narration=f"{actor.name} {hit} ({mode}, {result['total']} against {difficulty})",
        outcome=outcome,
        dice=[group_for(record, result)],
        states={actor.id: state},
        steps=[how, *steps_for(record, result)],
    )


def recovery_roll(
    actor: Actor,
    dice: DiceSource,
    *,
    modifiers: list[Mapping[str, Any]],
    roll_id: str | None,
    action: str,
) -> Resolution:
    """WD-9: Character (+ wild die for a pc) against 4; success ends Shaken."""
    state, record, result = _roll_for(
        actor,
        dice,
        kind="recovery",
        trait=RECOVERY_TRAIT,
        difficulty=RECOVERY_DIFFICULTY,
        modifiers=modifiers,
        roll_id=roll_id,
    )
    if result["success"]:
        state["shaken"] = False
    outcome = _roll_outcome(action, actor, record, result)
    outcome["recovered"] = result["success"]
    outcome["chips_left"] = state["chips"]
    outcome["new_state"] = state_summary(state)
    ends = "is no longer Shaken" if result["success"] else "stays Shaken"
    steps = steps_for(record, result)
    steps.append(f"WD-9: {'success ends Shaken' if result['success'] else 'failure: still Shaken'}")
    return Resolution(
        narration=f"{actor.name} tries to recover: {result['total']} against 4, {ends}",
        outcome=outcome,
        dice=[group_for(record, result, label=f"Recovery: {trait_label(record)}")],
        states={actor.id: state},
        steps=steps,
    )


def recover(context: ActionContext, dice: DiceSource) -> Resolution:
    """The recovery roll of WD-9 asked for as an action."""
    actor = require_actor(context)
    ensure_can_act(actor)
    if not actor.state.get("shaken"):
        raise RuleViolation(
            f"{actor.name} is not Shaken", code="not_shaken", details={"actor": actor.id}
        )
    return recovery_roll(
        actor,
        dice,
        modifiers=list(context.params.get("modifiers", [])),
        roll_id=context.request_id,
        action="recover",
    )


def spend_chip(context: ActionContext, dice: DiceSource) -> Resolution:
    """WD-4: spend one chip to reroll one die (or, by setting, the whole roll)."""
    actor = require_actor(context)
    params = context.params
    roll_id = params.get("roll")
    record = find_roll(actor.state, roll_id)
    if record is None and roll_id is not None:
        raise UnknownRequest(
            f"{actor.name} has no recent roll {roll_id!r} to reroll "
            f"(the last {ROLL_MEMORY} are remembered)",
            details={"roll": roll_id},
        )
    if record is None:
        raise RuleViolation(
            f"{actor.name} has made no roll a chip could reroll",
            code="no_roll",
            details={"actor": actor.id},
        )
    if record.get("chip_spent"):
        raise RuleViolation(
            f"a chip was already spent on roll {record['id']!r}; at most one chip per roll",
            code="chip_already_spent",
            details={"roll": record["id"]},
        )
    chips = int(actor.state.get("chips", 0))
    if chips < 1:
        raise RuleViolation(
            f"{actor.name} has no chips left", code="no_chips", details={"actor": actor.id}
        )
    difficulty, how = _chip_difficulty(record, context.targets)
    whole = context.settings.get("chip_reroll", "one_die") == "whole_roll"
    has_wild = record.get("wild_die") is not None
    if whole:
        slots = ["trait", "wild"] if has_wild else ["trait"]
    else:
        slots = [params.get("die", "trait")]
        if slots[0] == "wild" and not has_wild:
            raise RuleViolation(
                f"roll {record['id']!r} has no wild die to reroll (npcs roll none)",
                code="no_wild_die",
                details={"roll": record["id"]},
            )
    before = evaluate(record, difficulty)
    new_record = dict(record)
    replaced: dict[str, Any] = {}
    for slot in slots:
        old = record[f"{slot}_die"]
        new_die = roll_compounding(dice, int(old["faces"]))
        if slot == "wild":
            new_die = new_die.tagged("wild")
        replaced[slot] = old
        new_record[f"{slot}_die"] = new_die.to_dict()
    new_record["chip_spent"] = True
    after = evaluate(new_record, difficulty)
    state = replace_roll(actor.state, new_record)
    state["chips"] = chips - 1
    if new_record["kind"] == "recovery" and after["success"] and state["shaken"]:
        state["shaken"] = False
    outcome: dict[str, Any] = {
        "action": "chip",
        "actor": actor.id,
        "roll": record["id"],
        "roll_kind": record["kind"],
        "setting": "whole_roll" if whole else "one_die",
        "rerolled": slots,
        "replaced": {slot: Die.from_dict(dict(d)).to_dict() for slot, d in replaced.items()},
        "modifiers": [dict(m) for m in new_record["modifiers"]],
        "modifier": after["modifier"],
        **result_dice(new_record, after),
        "kept": after["kept"],
        "total": after["total"],
        "difficulty": after["difficulty"],
        "success": after["success"],
        "raises": after["raises"],
        "before": {k: before[k] for k in ("kept", "total", "success", "raises")},
        "chips_spent": 1,
        "chips_left": state["chips"],
        "new_state": state_summary(state),
    }
    if record["kind"] == "attack":
        outcome["hit"] = after["success"]
        outcome["target"] = record.get("target")
        outcome["mode"] = record.get("mode")
    if record["kind"] == "recovery":
        outcome["recovered"] = after["success"]
    which = "the whole roll" if whole else f"the {slots[0]} die"
    steps = [
        f"chip spent on roll {record['id']} ({record['kind']}): rerolls {which}; "
        f"{chips} → {chips - 1} chips",
    ]
    for slot in slots:
        old = Die.from_dict(dict(replaced[slot]))
        shown = "+".join(map(str, old.rolls)) + (f" = {old.value}" if len(old.rolls) > 1 else "")
        steps.append(f"the {slot} die's {shown} is replaced")
    if how:
        steps.append(how)
    steps.extend(steps_for(new_record, after))
    if record["kind"] == "recovery" and after["success"] and actor.state.get("shaken"):
        steps.append("WD-9: the rerolled recovery succeeds and ends Shaken")
    return Resolution(
        narration=(
            f"{actor.name} spends a chip to reroll {which} of {trait_label(record)}: "
            f"{before['total']} → {after['total']}, {_verdict(after)}"
        ),
        outcome=outcome,
        dice=[group_for(new_record, after, replaced=replaced)],
        states={actor.id: state},
        steps=steps,
    )


def _chip_difficulty(
    record: Mapping[str, Any], targets: tuple[Actor, ...]
) -> tuple[int | None, str | None]:
    """The difficulty to judge a chip's reroll against, and the step that explains it.

    A record that keeps its difficulty needs no target (one may be named, but
    only the roll's own). A record ``against`` a target's hidden value needs
    that target named, to recompute the value from its current sheet. Returns
    ``(None, None)`` when the record's own difficulty applies.
    """
    roll_id, target_id = record["id"], record.get("target")
    named = [target.id for target in targets]
    if named and named != [target_id]:
        made = f"against {target_id!r}" if target_id else "against no target"
        raise RuleViolation(
            f"roll {roll_id!r} was made {made}; a chip on it names "
            + (f"only {target_id!r} as its target" if target_id else "no target"),
            code="chip_wrong_target",
            details={"roll": roll_id, "target": target_id, "targets": named},
        )
    against = record.get("against")
    if against is None:
        return None, None
    if not named:
        raise RuleViolation(
            f"roll {roll_id!r} is a {record.get('mode', '')} attack judged against the "
            f"{against} of {target_id!r}, which is not remembered: name {target_id!r} as "
            "the chip's target so that it is recomputed",
            code="chip_target_required",
            details={"roll": roll_id, "target": target_id},
        )
    (target,) = targets
    difficulty = defense(target.sheet)  # "defense" is the only hidden value a roll is against
    return difficulty, _defense_how(target, difficulty)


def strength_faces(actor: Actor) -> int:
    """The faces of ``actor``'s Strength die (melee damage, WD-7)."""
    return die_faces(actor.sheet["attributes"]["strength"])
