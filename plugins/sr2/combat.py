"""Attacks (SR-6 to SR-11, SR-14) and resistance-only damage (SR-9 to SR-11).

Both build one :class:`~rollbridge.contract.Resolution`: the dice of each test
(every die with its explosion chain), the TNs and how each was built, net
successes, each staging step, the final level, boxes crossed, overflow and
the new states. Nothing here changes the actors it is given; a refusal
raises before any die is rolled.

What is an actor's own is marked :class:`~rollbridge.text.Private` here, in the
parameters, the outcome, the dice groups and the texts (:mod:`.privacy`): the
defender's Body, armour, pool split and resistance TN and the attacker's skill,
pool split and recoil compensation (aspect ``sheet``), and the defender's boxes
(aspect ``details``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rollbridge.contract import ActionContext, Actor, Resolution
from rollbridge.dice import DiceSource
from rollbridge.exceptions import InvalidParams, RuleViolation
from rollbridge.text import Private, Text

from .actions import RANGE_TN
from .checks import check_pool, count_param, one_target, signed_param
from .codes import fire, format_code, parse_code, recoil, stage
from .explain import (
    ATTACK_MISSED,
    NO_DAMAGE,
    attack_line,
    code_step,
    damage_code_steps,
    damage_step,
    net_step,
    resistance_line,
    staging_step,
)
from .monitor import apply_damage, body_of, can_act, status, wound_modifier
from .narrate import hits, misses, resists
from .privacy import SHEET, sheet_value
from .refusals import (
    ARMOR_TYPE,
    BOTH_WEAPON_AND_CODE,
    CANNOT_ATTACK,
    DAMAGE_TYPE,
    NEEDS_ATTACKER,
    NO_CODE,
    NO_SKILL,
    NO_SUCCESSES,
    RANGE_OR_TN,
    UNKNOWN_BAND,
    WEAPON_CODE,
)
from .rolls import effective_tn, roll_test
from .sheet import find_weapon
from .told import attack_test, boxes, nothing_crossed, resistance_test
from .words import POWER, SITUATIONAL, STATUS, WOUND_MODIFIER, result

__all__ = [
    "AttackPlan",
    "DamagePlan",
    "ResistPlan",
    "plan_attack",
    "plan_damage",
    "plan_resist",
    "resolve_attack",
    "resolve_damage",
]

#: The parameters that are the attacker's sheet, and the defender's (SR-8, SR-9).
_ATTACKER_PARAMS = ("skill", "attacker_pool", "recoil_compensation")
_DEFENDER_PARAMS = ("body", "armor", "defender_pool")


@lru_cache(maxsize=256)
def _weapon_code(owner: str, weapon: str) -> Text:
    """Where a weapon's code is, as a refusal names it: ``Tukan's weapon Hackler``."""
    return WEAPON_CODE(owner=owner, weapon=weapon)


def _marked_params(
    params: Mapping[str, Any], attacker: str | None, defender: str
) -> dict[str, Any]:
    """The parameters as the event records them: the attacker's sheet values
    (skill, pool, recoil compensation) and the defender's (Body, armour, pool)
    marked as theirs."""
    marked = dict(params)
    if attacker is not None:
        for key in _ATTACKER_PARAMS:
            if key in marked:
                marked[key] = sheet_value(marked[key], attacker)
    for key in _DEFENDER_PARAMS:
        if key in marked:
            marked[key] = sheet_value(marked[key], defender)
    return marked


@dataclass(slots=True)
class ResistPlan:
    """A resistance test (SR-9) before any die: what :func:`_resist` rolls and
    :mod:`.odds` counts, so the two cannot drift.

    :ivar power: the fired power (SR-6); :ivar level: the fired level.
    :ivar damage_type: ``physical`` or ``stun``; :ivar armor_type: ``ballistic``
        or ``impact``.
    :ivar body: the Body dice (the override, else the sheet's);
        :ivar sheet_body: the sheet's Body (the overflow limit, SR-11).
    :ivar pool: Combat Pool dice the defender spends (SR-14).
    :ivar armor: the armour subtracted; :ivar armor_given: it was a parameter.
    :ivar modifier: the defender's wound modifier (SR-12).
    :ivar tn_raw: power − armour + modifier, before SR-2's floor.
    :ivar rule_of_one: the table's SR-3 setting.
    """

    power: int
    level: str
    damage_type: str
    armor_type: str
    body: int
    sheet_body: int
    pool: int
    armor: int
    armor_given: bool
    modifier: int
    tn_raw: int
    rule_of_one: bool

    @property
    def dice(self) -> int:
        """Dice rolled: Body plus the pool spent (SR-9)."""
        return self.body + self.pool

    @property
    def tn(self) -> int:
        """The TN the dice are rolled against (SR-2)."""
        return effective_tn(self.tn_raw)


def plan_resist(
    defender: Actor,
    power: int,
    level: str,
    damage_type: str,
    armor_type: str,
    pool: int,
    body_override: int | None,
    armor_override: int | None,
    settings: Mapping[str, Any],
) -> ResistPlan:
    """The :class:`ResistPlan` of ``defender`` resisting ``power``/``level`` (SR-9)."""
    sheet = defender.sheet
    sheet_body = body_of(sheet)
    body = sheet_body if body_override is None else body_override
    given = armor_override is not None
    armor = armor_override if given else int(sheet.get("armor", {}).get(armor_type, 0))
    modifier = wound_modifier(defender.state)
    return ResistPlan(
        power,
        level,
        damage_type,
        armor_type,
        body,
        sheet_body,
        pool,
        armor,
        given,
        modifier,
        power - armor + modifier,
        settings.get("rule_of_one", True),
    )


def _resist(
    defender: Actor,
    state: dict[str, Any],
    plan: ResistPlan,
    attack_successes: int,
    dice: DiceSource,
    settings: Mapping[str, Any],
    steps: list[Any],
    groups: list[Any],
    outcome: dict[str, Any],
) -> tuple[dict[str, Any], int, str]:
    """SR-9 resistance, SR-10 staging, SR-11 damage; fills ``outcome`` and
    ``steps`` and returns the defender's new state, the overflow boxes it
    crossed and its new status."""
    who = defender.id
    power, level, damage_type = plan.power, plan.level, plan.damage_type
    sheet_body, body, pool, armor = plan.sheet_body, plan.body, plan.pool, plan.armor
    modifier, raw = plan.modifier, plan.tn_raw
    roll = roll_test(dice, body + pool, raw, rule_of_one=plan.rule_of_one)
    if pool:
        state["pool"] = state.get("pool", 0) - pool
    told = resistance_test(
        who,
        defender.name,
        power,
        plan.armor_type,
        plan.armor_given,
        armor,
        modifier,
        raw,
        roll.tn,
        body,
        pool,
    )
    groups.append(roll.group(told.label, told.note, told.target, actor=who))  # SR-9: its roll
    steps.append(told.tn_step)
    steps.append(
        resistance_line(told.rolled, told.against, roll.chains, result(roll.successes, roll.botch))
    )

    net = attack_successes - roll.successes
    staged = stage(level, net)
    steps.append(net_step(attack_successes, roll.successes, staged.shift, staged.spare))
    if staged.path:
        steps.append(staging_step(tuple(staged.path)))

    boxes_dealt = staged.boxes
    new_state, crossed = apply_damage(
        state, sheet_body, boxes_dealt, damage_type, stun_carry=settings.get("stun_carry", True)
    )
    new_status = status(new_state, sheet_body)
    told_boxes = boxes(
        who,
        (crossed["stun"], crossed["physical"], crossed["overflow"], crossed["lost"]),
        (new_state.get("stun", 0), new_state.get("physical", 0), new_state.get("overflow", 0)),
        new_status,
        wound_modifier(new_state),
    )
    if staged.level is None:
        steps.append(NO_DAMAGE)
    else:
        steps.append(damage_step(staged.level, boxes_dealt, staged.overflow, damage_type))
        steps.append(told_boxes.step)

    outcome["resistance"] = {
        "dice": body + pool,
        "body": told.body,
        "pool": told.pool,
        "armor": told.armor,
        "tn": told.tn,
        "tn_raw": told.tn_raw,
        "tn_parts": [
            {"part": POWER, "value": power},
            {"part": told.armour_label, "value": told.armour_value},
            {"part": WOUND_MODIFIER, "value": modifier},
        ],
        "successes": roll.successes,
        "botch": roll.botch,
    }
    outcome["net"] = net
    outcome["staging"] = {"shift": staged.shift, "spare": staged.spare, "path": staged.path}
    outcome["level"] = staged.level
    outcome["overflow_steps"] = staged.overflow
    outcome["boxes"] = boxes_dealt
    outcome["crossed"] = told_boxes.crossed
    outcome["defender_after"] = told_boxes.after
    return new_state, crossed["overflow"], new_status


@dataclass(slots=True)
class AttackPlan:
    """An attack (SR-6 to SR-9, SR-14) before any die: what :func:`resolve_attack`
    rolls and :mod:`.odds` counts, refused (by :func:`plan_attack`) as both refuse.

    :ivar attacker: the attacking actor; :ivar defender: its one target;
        :ivar same: they are the same actor.
    :ivar weapon_name: the weapon named, or None for a code.
    :ivar power: the base power; :ivar level: the base level (SR-4).
    :ivar fired_power: the power after the rounds (SR-6); :ivar fired_level: the
        level after them; :ivar raised: the level steps they gained.
    :ivar skill: the skill dice; :ivar attacker_pool: Combat Pool dice spent on
        the attack; :ivar attacker_left: the attacker's pool before it.
    :ivar rounds: rounds fired; :ivar compensation: recoil compensation;
        :ivar recoil_tn: recoil's TN (SR-7).
    :ivar band: the range band, or None; :ivar base_tn: its TN, or the explicit TN.
    :ivar attack_modifier: the attacker's wound modifier (SR-12);
        :ivar situational: the situational modifier.
    :ivar tn_raw: the attack TN before SR-2's floor (SR-8).
    :ivar rule_of_one: the table's SR-3 setting.
    :ivar resist: the defender's resistance test (SR-9), rolled on a hit.
    """

    attacker: Actor
    defender: Actor
    same: bool
    weapon_name: str | None
    power: int
    level: str
    fired_power: int
    fired_level: str
    raised: int
    skill: int
    attacker_pool: int
    attacker_left: int
    rounds: int
    compensation: int
    recoil_tn: int
    band: str | None
    base_tn: int
    attack_modifier: int
    situational: int
    tn_raw: int
    rule_of_one: bool
    resist: ResistPlan

    @property
    def dice(self) -> int:
        """Attack dice: skill plus the pool spent (SR-8)."""
        return self.skill + self.attacker_pool

    @property
    def tn(self) -> int:
        """The TN the attack dice are rolled against (SR-2)."""
        return effective_tn(self.tn_raw)


def plan_attack(context: ActionContext) -> AttackPlan:
    """The :class:`AttackPlan` of an ``attack``; raises what :func:`resolve_attack`
    refuses (before any die), in the same order."""
    params = context.params
    settings = context.settings
    attacker = context.actor
    if attacker is None:
        raise InvalidParams(NEEDS_ATTACKER(), details={"field": "actor"})
    defender = one_target(context)

    weapon_name = params.get("weapon")
    code_text = params.get("code")
    if weapon_name is not None and code_text is not None:
        raise InvalidParams(BOTH_WEAPON_AND_CODE(), details={"field": "params.code"})
    weapon: Mapping[str, Any] = {}
    if weapon_name is not None:
        weapon = find_weapon(attacker.sheet, weapon_name, attacker.name)
        power, level = parse_code(weapon.get("code"), _weapon_code(attacker.name, weapon_name))
    elif code_text is not None:
        power, level = parse_code(code_text)
    else:
        raise InvalidParams(NO_CODE(), details={"field": "params.code"})
    damage_type = params.get("damage_type") or weapon.get("type", "physical")
    armor_type = params.get("armor_type") or weapon.get("armor", "ballistic")
    if damage_type not in ("physical", "stun"):
        raise InvalidParams(DAMAGE_TYPE(value=repr(damage_type)))
    if armor_type not in ("ballistic", "impact"):
        raise InvalidParams(ARMOR_TYPE(value=repr(armor_type)))

    skill = count_param(params, "skill", weapon.get("skill"))
    if skill is None:
        raise InvalidParams(NO_SKILL(), details={"field": "params.skill"})
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
        raise InvalidParams(RANGE_OR_TN(), details={"field": "params.range"})
    if band is not None and band not in RANGE_TN:
        raise InvalidParams(UNKNOWN_BAND(band=repr(band)), details={"field": "params.range"})

    attacker_state = attacker.state
    if not can_act(attacker_state):
        attacker_status = status(attacker_state, body_of(attacker.sheet))
        raise RuleViolation(
            CANNOT_ATTACK(attacker=attacker.name, status=STATUS[attacker_status]),
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

    # SR-6 / SR-7: the code and the recoil after the rounds fired; SR-8: the TN
    fired_power, fired_level, raised = fire(power, level, rounds)
    recoil_tn = recoil(rounds, compensation)
    base_tn = RANGE_TN[band] if band is not None else explicit_tn
    attack_modifier = wound_modifier(attacker_state)
    rule_of_one = settings.get("rule_of_one", True)
    resist = plan_resist(
        defender,
        fired_power,
        fired_level,
        damage_type,
        armor_type,
        defender_pool,
        body_override,
        armor_override,
        settings,
    )
    return AttackPlan(
        attacker,
        defender,
        same,
        weapon_name,
        power,
        level,
        fired_power,
        fired_level,
        raised,
        skill,
        attacker_pool,
        attacker_left,
        rounds,
        compensation,
        recoil_tn,
        band,
        base_tn,
        attack_modifier,
        situational,
        base_tn + recoil_tn + attack_modifier + situational,
        rule_of_one,
        resist,
    )


def resolve_attack(context: ActionContext, dice: DiceSource) -> Resolution:
    """Resolve an ``attack``: the actor attacks its one target."""
    plan = plan_attack(context)
    params = context.params
    settings = context.settings
    attacker, defender, same = plan.attacker, plan.defender, plan.same
    weapon_name, rounds = plan.weapon_name, plan.rounds
    skill, attacker_pool, attacker_left = plan.skill, plan.attacker_pool, plan.attacker_left
    band, base_tn, recoil_tn = plan.band, plan.base_tn, plan.recoil_tn
    attack_modifier, situational, raw = plan.attack_modifier, plan.situational, plan.tn_raw
    resist = plan.resist
    damage_type, armor_type = resist.damage_type, resist.armor_type

    base_code = format_code(plan.power, plan.level)
    code = format_code(plan.fired_power, plan.fired_level)
    steps: list[Any] = [code_step(code, base_code, rounds, plan.raised)]

    # -- SR-8: the attack test. With two or more rounds the attacker's TN gives its
    # recoil compensation away (SR-7): it is the attacker's sheet as a whole.
    attack = roll_test(dice, skill + attacker_pool, raw, rule_of_one=plan.rule_of_one)
    who = attacker.id
    told = attack_test(
        who,
        attacker.name,
        band,
        base_tn,
        rounds,
        plan.compensation,
        recoil_tn,
        attack_modifier,
        situational,
        raw,
        attack.tn,
        skill,
        attacker_pool,
    )
    steps.append(told.tn_step)
    steps.append(
        attack_line(
            told.rolled, told.against, attack.chains, result(attack.successes, attack.botch)
        )
    )
    groups = [attack.group(told.label, told.note, told.target)]
    parts: Any = [
        {"part": told.base_label, "value": base_tn},
        {"part": told.recoil_label, "value": recoil_tn},
        {"part": WOUND_MODIFIER, "value": attack_modifier},
        {"part": SITUATIONAL, "value": situational},
    ]
    if rounds >= 2:
        parts = Private(parts, who, SHEET)

    new_attacker = dict(attacker.state)
    if attacker_pool:
        new_attacker["pool"] = attacker_left - attacker_pool

    outcome: dict[str, Any] = {
        "attacker": who,
        "defender": defender.id,
        "weapon": weapon_name,
        "base_code": base_code,
        "rounds": rounds,
        "code": code,
        "damage_type": damage_type,
        "armor_type": armor_type,
        "attack": {
            "dice": skill + attacker_pool,
            "skill": told.skill,
            "pool": told.pool,
            "tn": told.tn,
            "tn_raw": told.tn_raw,
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
        "crossed": None,  # set by _resist, or below on a miss
    }
    marked = _marked_params(params, who, defender.id)
    if attack.successes == 0:
        outcome["crossed"] = nothing_crossed(defender.id)
        steps.append(ATTACK_MISSED)
        return Resolution(
            narration=misses(attacker.name, defender.name, weapon_name, code, attack.botch),
            outcome=outcome,
            dice=groups,
            states={who: new_attacker} if attacker_pool else {},
            steps=steps,
            params=marked,
        )

    new_defender, overflow, new_status = _resist(
        defender,
        new_attacker if same else dict(defender.state),
        resist,
        attack.successes,
        dice,
        settings,
        steps,
        groups,
        outcome,
    )
    states = {} if same or not attacker_pool else {who: new_attacker}
    if new_defender != defender.state:
        states[defender.id] = new_defender
    return Resolution(
        narration=hits(
            attacker.name,
            defender.id,
            defender.name,
            weapon_name,
            code,
            attack.successes,
            outcome["level"],
            overflow,
            new_status,
        ),
        outcome=outcome,
        dice=groups,
        states=states,
        steps=steps,
        params=marked,
    )


@dataclass(slots=True)
class DamagePlan:
    """A ``damage`` action before any die: the code as fired and the given attack
    successes, and the target's resistance test (:class:`ResistPlan`).

    :ivar defender: the one target; :ivar power: the base power;
        :ivar level: the base level; :ivar raised: level steps the rounds gained.
    :ivar rounds: rounds fired (SR-6); :ivar successes: the attacker's successes.
    :ivar resist: the resistance test (SR-9), with the fired code.
    """

    defender: Actor
    power: int
    level: str
    raised: int
    rounds: int
    successes: int
    resist: ResistPlan


def plan_damage(context: ActionContext) -> DamagePlan:
    """The :class:`DamagePlan` of ``damage``; raises what :func:`resolve_damage` refuses."""
    params = context.params
    defender = one_target(context)
    power, level = parse_code(params.get("code"))
    damage_type = params.get("damage_type", "physical")
    armor_type = params.get("armor_type", "ballistic")
    if damage_type not in ("physical", "stun"):
        raise InvalidParams(DAMAGE_TYPE(value=repr(damage_type)))
    if armor_type not in ("ballistic", "impact"):
        raise InvalidParams(ARMOR_TYPE(value=repr(armor_type)))
    successes = count_param(params, "attack_successes", None)
    if successes is None:
        raise InvalidParams(NO_SUCCESSES(), details={"field": "params.attack_successes"})
    rounds = count_param(params, "rounds", 1, low=1)
    pool = count_param(params, "defender_pool")
    body_override = count_param(params, "body", None, low=1)
    armor_override = count_param(params, "armor", None)
    check_pool(defender, defender.state.get("pool", 0), pool, "defender", reveal=context.by_gm)

    fired_power, fired_level, raised = fire(power, level, rounds)
    resist = plan_resist(
        defender,
        fired_power,
        fired_level,
        damage_type,
        armor_type,
        pool,
        body_override,
        armor_override,
        context.settings,
    )
    return DamagePlan(defender, power, level, raised, rounds, successes, resist)


#: What a ``damage`` applied to other targets keeps (the defender's own overrides —
#: Body, armour, pool — are each target's).
_ATTACK_SIDE = ("code", "damage_type", "armor_type", "rounds", "attack_successes")


def resolve_damage(context: ActionContext, dice: DiceSource) -> Resolution:
    """Resolve ``damage``: the one target resists a code against given attack successes."""
    plan = plan_damage(context)
    params = context.params
    defender, resist, successes, rounds = plan.defender, plan.resist, plan.successes, plan.rounds
    base_code = format_code(plan.power, plan.level)
    code = format_code(resist.power, resist.level)
    steps: list[Any] = [*damage_code_steps(code, base_code, rounds, plan.raised, successes)]
    groups: list[Any] = []
    outcome: dict[str, Any] = {
        "defender": defender.id,
        "base_code": base_code,
        "rounds": rounds,
        "code": code,
        "damage_type": resist.damage_type,
        "armor_type": resist.armor_type,
        "attack_successes": successes,
    }
    new_state, overflow, new_status = _resist(
        defender,
        dict(defender.state),
        resist,
        successes,
        dice,
        context.settings,
        steps,
        groups,
        outcome,
    )
    return Resolution(
        narration=resists(
            defender.id,
            defender.name,
            code,
            successes,
            outcome["level"],
            overflow,
            new_status,
        ),
        outcome=outcome,
        dice=groups,
        states={defender.id: new_state} if new_state != defender.state else {},
        steps=steps,
        params=_marked_params(params, None, defender.id),
        # the attack's side of the damage: each other target resists it for itself
        apply={"action": "damage", "params": {k: params[k] for k in _ATTACK_SIDE if k in params}},
    )
