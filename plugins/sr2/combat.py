"""Attacks (SR-6 to SR-11, SR-14) and resistance-only damage (SR-9 to SR-11).

Both build one :class:`~rollbridge.contract.Resolution`: the dice of each test
(every die with its explosion chain), the TNs and how each was built, net
successes, each staging step, the final level, boxes crossed, overflow and
the new states. Nothing here changes the actors it is given; a refusal
raises before any die is rolled.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.contract import ActionContext, Actor, Resolution
from rollbridge.dice import DiceSource
from rollbridge.exceptions import InvalidParams, RuleViolation

from .actions import RANGE_TN
from .checks import check_pool, count_param, one_target, signed_param
from .codes import LEVEL_NAMES, fire, format_code, parse_code, recoil, stage
from .explain import plural, test_line, tn_text
from .monitor import apply_damage, body_of, can_act, status, wound_modifier
from .rolls import roll_test
from .sheet import find_weapon

__all__ = ["resolve_attack", "resolve_damage"]


def _resist(
    defender: Actor,
    state: dict[str, Any],
    power: int,
    level: str,
    damage_type: str,
    armor_type: str,
    attack_successes: int,
    pool: int,
    body_override: int | None,
    armor_override: int | None,
    dice: DiceSource,
    settings: Mapping[str, Any],
    steps: list[str],
    groups: list[Any],
    outcome: dict[str, Any],
) -> dict[str, Any]:
    """SR-9 resistance, SR-10 staging, SR-11 damage; fills ``outcome`` and
    ``steps`` and returns the defender's new state."""
    sheet = defender.sheet
    sheet_body = body_of(sheet)
    body = sheet_body if body_override is None else body_override
    if armor_override is None:
        armor = int(sheet.get("armor", {}).get(armor_type, 0))
        armor_label = f"{armor_type} armour"
    else:
        armor = armor_override
        armor_label = f"{armor_type} armour (given)"
    modifier = wound_modifier(state)
    parts = [
        {"part": "power", "value": power},
        {"part": armor_label, "value": -armor},
        {"part": "wound modifier", "value": modifier},
    ]
    raw = power - armor + modifier
    roll = roll_test(dice, body + pool, raw, rule_of_one=settings.get("rule_of_one", True))
    if pool:
        state["pool"] = state.get("pool", 0) - pool
    groups.append(
        roll.group(f"Resistance test ({defender.name})", note=f"Body {body} + pool {pool}")
    )
    steps.append(f"Resistance TN {tn_text(parts, raw, roll.tn)} (SR-9)")
    steps.append(test_line("Resistance", roll, f"Body {body} + pool {pool} = {body + pool} dice"))

    net = attack_successes - roll.successes
    staged = stage(level, net)
    if staged.shift > 0:
        side = f"{staged.shift} step(s) up"
    elif staged.shift < 0:
        side = f"{-staged.shift} step(s) down"
    else:
        side = "no change"
    steps.append(
        f"Net successes {attack_successes} - {roll.successes} = {net:+d} -> {side} (SR-10)"
        + (", 1 spare success shifts nothing" if staged.spare else "")
    )
    if staged.path:
        steps.append("Staging: " + ", ".join(staged.path))

    boxes = staged.boxes
    new_state, crossed = apply_damage(
        state, sheet_body, boxes, damage_type, stun_carry=settings.get("stun_carry", True)
    )
    new_status = status(new_state, sheet_body)
    if staged.level is None:
        steps.append("Damage staged below Light: no damage (SR-10)")
    else:
        extra = f" + {staged.overflow} overflow" if staged.overflow else ""
        steps.append(
            f"Damage: {LEVEL_NAMES[staged.level]} ({staged.level}) = "
            f"{boxes - staged.overflow} boxes{extra} on the {damage_type} monitor (SR-5, SR-11)"
        )
        moved = ", ".join(
            f"{k} {new_state[k] - crossed[k]} -> {new_state[k]}"
            for k in ("stun", "physical", "overflow")
            if crossed[k]
        )
        lost = f"; {crossed['lost']} box(es) lost" if crossed["lost"] else ""
        steps.append(f"Boxes crossed: {moved or 'none'}{lost}; status {new_status} (SR-13)")

    outcome["resistance"] = {
        "dice": body + pool,
        "body": body,
        "pool": pool,
        "armor": armor,
        "tn": roll.tn,
        "tn_raw": raw,
        "tn_parts": parts,
        "successes": roll.successes,
        "botch": roll.botch,
    }
    outcome["net"] = net
    outcome["staging"] = {"shift": staged.shift, "spare": staged.spare, "path": staged.path}
    outcome["level"] = staged.level
    outcome["overflow_steps"] = staged.overflow
    outcome["boxes"] = boxes
    outcome["crossed"] = crossed
    outcome["defender_after"] = {
        "stun": new_state.get("stun", 0),
        "physical": new_state.get("physical", 0),
        "overflow": new_state.get("overflow", 0),
        "status": new_status,
        "wound_modifier": wound_modifier(new_state),
    }
    return new_state


def _damage_words(defender: Actor, outcome: Mapping[str, Any]) -> str:
    level = outcome["level"]
    if level is None:
        return f"no damage, {defender.name} resists it all"
    after = outcome["defender_after"]
    over = outcome["crossed"]["overflow"]
    extra = f", {over} overflow" if over else ""
    return f"{LEVEL_NAMES[level]}{extra}; {defender.name} is {after['status']}"


def resolve_attack(context: ActionContext, dice: DiceSource) -> Resolution:
    """Resolve an ``attack``: the actor attacks its one target."""
    params = context.params
    settings = context.settings
    attacker = context.actor
    if attacker is None:
        raise InvalidParams("attack needs an acting attacker", details={"field": "actor"})
    defender = one_target(context)

    weapon_name = params.get("weapon")
    code_text = params.get("code")
    if weapon_name is not None and code_text is not None:
        raise InvalidParams(
            "params: give either weapon or code, not both", details={"field": "params.code"}
        )
    weapon: Mapping[str, Any] = {}
    if weapon_name is not None:
        weapon = find_weapon(attacker.sheet, weapon_name, attacker.name)
        power, level = parse_code(weapon.get("code"), f"{attacker.name}'s weapon {weapon_name}")
    elif code_text is not None:
        power, level = parse_code(code_text)
    else:
        raise InvalidParams(
            "params.code: give a weapon on the attacker's sheet or a damage code like '9M'",
            details={"field": "params.code"},
        )
    damage_type = params.get("damage_type") or weapon.get("type", "physical")
    armor_type = params.get("armor_type") or weapon.get("armor", "ballistic")
    if damage_type not in ("physical", "stun"):
        raise InvalidParams(f"params.damage_type: unknown {damage_type!r}")
    if armor_type not in ("ballistic", "impact"):
        raise InvalidParams(f"params.armor_type: unknown {armor_type!r}")

    skill = count_param(params, "skill", weapon.get("skill"))
    if skill is None:
        raise InvalidParams(
            "params.skill: give the attack dice (the weapon on the sheet has no skill)",
            details={"field": "params.skill"},
        )
    attacker_pool = count_param(params, "attacker_pool")
    defender_pool = count_param(params, "defender_pool")
    rounds = count_param(params, "rounds", 1, low=1)
    compensation = count_param(params, "recoil_compensation", weapon.get("recoil_compensation", 0))
    body_override = count_param(params, "body", None, low=1)
    armor_override = count_param(params, "armor", None)
    situational = signed_param(params, "modifier") or 0
    band = params.get("range")
    explicit_tn = signed_param(params, "tn")
    if (band is None) == (explicit_tn is None):
        raise InvalidParams(
            "params.range: give a range band (short, medium, long, extreme) or an explicit tn, "
            "exactly one of them",
            details={"field": "params.range"},
        )
    if band is not None and band not in RANGE_TN:
        raise InvalidParams(
            f"params.range: unknown range band {band!r}", details={"field": "params.range"}
        )

    attacker_state = attacker.state
    if not can_act(attacker_state):
        attacker_status = status(attacker_state, body_of(attacker.sheet))
        raise RuleViolation(
            f"{attacker.name} is {attacker_status} and cannot attack",
            code="attacker_incapacitated",
            details={"actor": attacker.id, "status": attacker_status},
        )
    same = attacker.id == defender.id
    attacker_left = attacker_state.get("pool", 0)
    if same:
        check_pool(attacker, attacker_left, attacker_pool + defender_pool, "attacker and defender")
    else:
        check_pool(attacker, attacker_left, attacker_pool, "attacker")
        check_pool(
            defender, defender.state.get("pool", 0), defender_pool, "defender", reveal=context.by_gm
        )

    # -- SR-6 / SR-7: the code and the recoil after the rounds fired
    fired_power, fired_level, raised = fire(power, level, rounds)
    base_code = format_code(power, level)
    code = format_code(fired_power, fired_level)
    steps: list[str] = []
    if rounds >= 2:
        steps.append(
            f"Code {code} = {base_code} fired {rounds} rounds: power +{rounds}, "
            f"level +{raised} (one per 3 rounds, never past D) (SR-6)"
        )
    else:
        steps.append(f"Code {code}: one round, the base code (SR-6)")
    recoil_tn = recoil(rounds, compensation)

    # -- SR-8: the attack test
    if band is not None:
        base_tn = RANGE_TN[band]
        base_label = f"{band} range"
    else:
        base_tn = explicit_tn  # type: ignore[assignment]
        base_label = "given TN"
    attack_modifier = wound_modifier(attacker_state)
    parts = [
        {"part": base_label, "value": base_tn},
        {"part": f"recoil ({rounds} rounds, compensation {compensation})", "value": recoil_tn},
        {"part": "wound modifier", "value": attack_modifier},
        {"part": "situational", "value": situational},
    ]
    raw = base_tn + recoil_tn + attack_modifier + situational
    rule_of_one = settings.get("rule_of_one", True)
    attack = roll_test(dice, skill + attacker_pool, raw, rule_of_one=rule_of_one)
    steps.append(f"Attack TN {tn_text(parts, raw, attack.tn)} (SR-7, SR-8)")
    steps.append(
        test_line(
            "Attack", attack, f"skill {skill} + pool {attacker_pool} = {skill + attacker_pool} dice"
        )
    )
    groups = [
        attack.group(f"Attack test ({attacker.name})", note=f"skill {skill} + pool {attacker_pool}")
    ]

    new_attacker = dict(attacker_state)
    if attacker_pool:
        new_attacker["pool"] = attacker_left - attacker_pool

    outcome: dict[str, Any] = {
        "attacker": attacker.id,
        "defender": defender.id,
        "weapon": weapon_name,
        "base_code": base_code,
        "rounds": rounds,
        "code": code,
        "damage_type": damage_type,
        "armor_type": armor_type,
        "attack": {
            "dice": skill + attacker_pool,
            "skill": skill,
            "pool": attacker_pool,
            "tn": attack.tn,
            "tn_raw": raw,
            "tn_parts": parts,
            "successes": attack.successes,
            "botch": attack.botch,
        },
        "hit": attack.successes > 0,
        "resistance": None,
        "net": None,
        "staging": None,
        "level": None,
        "overflow_steps": 0,
        "boxes": 0,
        "crossed": {"stun": 0, "physical": 0, "overflow": 0, "lost": 0},
    }
    with_what = f" with {weapon_name}" if weapon_name else ""
    if attack.successes == 0:
        steps.append("No attack successes: the attack misses and deals nothing (SR-8)")
        states = {attacker.id: new_attacker} if attacker_pool else {}
        verb = "botches" if attack.botch else "misses"
        return Resolution(
            narration=f"{attacker.name} {verb} {defender.name}{with_what} ({code}).",
            outcome=outcome,
            dice=groups,
            states=states,
            steps=steps,
        )

    new_defender = _resist(
        defender,
        new_attacker if same else dict(defender.state),
        fired_power,
        fired_level,
        damage_type,
        armor_type,
        attack.successes,
        defender_pool,
        body_override,
        armor_override,
        dice,
        settings,
        steps,
        groups,
        outcome,
    )
    states = {} if same or not attacker_pool else {attacker.id: new_attacker}
    if new_defender != defender.state:
        states[defender.id] = new_defender
    return Resolution(
        narration=(
            f"{attacker.name} hits {defender.name}{with_what} ({code}, "
            f"{plural(attack.successes, 'success')}): {_damage_words(defender, outcome)}."
        ),
        outcome=outcome,
        dice=groups,
        states=states,
        steps=steps,
    )


def resolve_damage(context: ActionContext, dice: DiceSource) -> Resolution:
    """Resolve ``damage``: the one target resists a code against given attack successes."""
    params = context.params
    settings = context.settings
    defender = one_target(context)
    power, level = parse_code(params.get("code"))
    damage_type = params.get("damage_type", "physical")
    armor_type = params.get("armor_type", "ballistic")
    if damage_type not in ("physical", "stun"):
        raise InvalidParams(f"params.damage_type: unknown {damage_type!r}")
    if armor_type not in ("ballistic", "impact"):
        raise InvalidParams(f"params.armor_type: unknown {armor_type!r}")
    successes = count_param(params, "attack_successes", None)
    if successes is None:
        raise InvalidParams(
            "params.attack_successes: is required", details={"field": "params.attack_successes"}
        )
    rounds = count_param(params, "rounds", 1, low=1)
    pool = count_param(params, "defender_pool")
    body_override = count_param(params, "body", None, low=1)
    armor_override = count_param(params, "armor", None)
    check_pool(defender, defender.state.get("pool", 0), pool, "defender", reveal=context.by_gm)

    fired_power, fired_level, raised = fire(power, level, rounds)
    base_code = format_code(power, level)
    code = format_code(fired_power, fired_level)
    steps = [
        f"Code {code} = {base_code} fired {rounds} rounds: power +{rounds}, level +{raised} (SR-6)"
        if rounds >= 2
        else f"Code {code} (SR-4)",
        f"Attack successes given: {successes}",
    ]
    groups: list[Any] = []
    outcome: dict[str, Any] = {
        "defender": defender.id,
        "base_code": base_code,
        "rounds": rounds,
        "code": code,
        "damage_type": damage_type,
        "armor_type": armor_type,
        "attack_successes": successes,
    }
    new_state = _resist(
        defender,
        dict(defender.state),
        fired_power,
        fired_level,
        damage_type,
        armor_type,
        successes,
        pool,
        body_override,
        armor_override,
        dice,
        settings,
        steps,
        groups,
        outcome,
    )
    return Resolution(
        narration=f"{defender.name} resists {code} against {plural(successes, 'success')}: "
        f"{_damage_words(defender, outcome)}.",
        outcome=outcome,
        dice=groups,
        states={defender.id: new_state} if new_state != defender.state else {},
        steps=steps,
    )
