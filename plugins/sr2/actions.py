"""The actions sr2 offers and their parameter schemas."""

from __future__ import annotations

from typing import Any

from rollbridge.contract import ActionSpec, describe_actions

from .action_texts import EXAMPLE_DEATH_ROLL, HINTS, LABEL, LABELS, SUMMARY, choices
from .sheet import CODE_PATTERN

__all__ = ["ACTIONS", "RANGE_TN"]

#: SR-8: base attack TN by range band.
RANGE_TN: dict[str, int] = {"short": 4, "medium": 5, "long": 6, "extreme": 9}

_DICE = {"type": "integer", "minimum": 0, "maximum": 100}
_POOL = {"type": "integer", "minimum": 0, "maximum": 100, "default": 0}
_TN = {"type": "integer", "minimum": -100, "maximum": 100}
_MOD = {"type": "integer", "minimum": -100, "maximum": 100, "default": 0}
_CODE = {
    "type": "string",
    "pattern": CODE_PATTERN,
    "description": "Damage code: power then level L, M, S or D (SR-4), e.g. '9M'.",
}
_DAMAGE_TYPE = {"type": "string", "enum": ["physical", "stun"]}
_ARMOR_TYPE = {"type": "string", "enum": ["ballistic", "impact"]}
_ROUNDS = {
    "type": "integer",
    "minimum": 1,
    "maximum": 100,
    "default": 1,
    "description": "Rounds fired (SR-6, SR-7).",
}
_BODY = {"type": "integer", "minimum": 1, "maximum": 50, "description": "Overrides the sheet."}
_ARMOR = {"type": "integer", "minimum": 0, "maximum": 100, "description": "Overrides the sheet."}


#: Action → parameter → value → its words (the range bands with their TN).
_CHOICES = choices(RANGE_TN)


def _words(name: str) -> dict[str, Any]:
    """An action's words as people read them (:mod:`.action_texts`): its name and
    summary, its parameters' names and help, its enums' values."""
    return {
        "label": LABEL[name],
        "summary": SUMMARY[name],
        "labels": LABELS[name],
        "hints": HINTS[name],
        "choices": _CHOICES.get(name, {}),
    }


def _obj(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    return schema


SUCCESS_TEST = ActionSpec(
    name="success_test",
    params=_obj(
        {
            "dice": {**_DICE, "description": "Dice rolled."},
            "tn": {**_TN, "description": "Target number (below 2 counts as 2)."},
            "pool": {**_POOL, "description": "Combat Pool dice the actor adds (SR-14)."},
            "wound_modifier": {
                "type": "boolean",
                "default": False,
                "description": "Add the actor's wound modifier to the TN (SR-12).",
            },
            # no schema default: left out, the test is "Success test" in each reader's
            # language (a default would be shown, in English, as every form's hint)
            "label": {"type": "string", "maxLength": 80},
        },
        ("dice", "tn"),
    ),
    actor="optional",
    example={"dice": 4, "tn": 5, "label": EXAMPLE_DEATH_ROLL()},
    **_words("success_test"),
)

ATTACK = ActionSpec(
    name="attack",
    params=_obj(
        {
            "weapon": {
                "type": "string",
                "minLength": 1,
                "maxLength": 80,
                "description": "A weapon on the attacker's sheet (or give code).",
                # forms offer the attacker's weapons by name; no other name is taken
                "choicesFrom": {"sheet": "weapons", "value": "name", "only": True},
            },
            "code": _CODE,
            "damage_type": {**_DAMAGE_TYPE, "description": "With code: default physical."},
            "armor_type": {**_ARMOR_TYPE, "description": "Default: the weapon's, or ballistic."},
            "skill": {**_DICE, "description": "Attack dice; default: the weapon's skill."},
            "attacker_pool": {**_POOL, "description": "Combat Pool dice the attacker spends."},
            "defender_pool": {**_POOL, "description": "Combat Pool dice the defender spends."},
            "rounds": _ROUNDS,
            "recoil_compensation": {
                "type": "integer",
                "minimum": 0,
                "maximum": 100,
                "description": "Default: the weapon's, or 0.",
            },
            "range": {"type": "string", "enum": list(RANGE_TN), "description": "Range band."},
            "tn": {**_TN, "description": "Explicit base TN instead of a range band."},
            "modifier": {**_MOD, "description": "Situational modifiers to the attack TN."},
            "body": {**_BODY, "description": "The defender's Body; overrides the sheet."},
            "armor": {**_ARMOR, "description": "The defender's armour; overrides the sheet."},
        }
    ),
    actor="required",
    min_targets=1,
    max_targets=1,
    example={"weapon": "Hackler", "skill": 5, "attacker_pool": 2, "rounds": 3, "range": "short"},
    **_words("attack"),
)

DAMAGE = ActionSpec(
    name="damage",
    params=_obj(
        {
            "code": _CODE,
            "damage_type": {**_DAMAGE_TYPE, "default": "physical"},
            "armor_type": {**_ARMOR_TYPE, "default": "ballistic"},
            "rounds": _ROUNDS,
            "attack_successes": {**_DICE, "description": "The attacker's successes."},
            "defender_pool": {**_POOL, "description": "Combat Pool dice the target spends."},
            "body": _BODY,
            "armor": _ARMOR,
        },
        ("code", "attack_successes"),
    ),
    actor="optional",
    min_targets=1,
    max_targets=1,
    example={"code": "10S", "attack_successes": 7},
    **_words("damage"),
)

HEAL = ActionSpec(
    name="heal",
    params=_obj(
        {
            "monitor": {"type": "string", "enum": ["physical", "stun"]},
            "boxes": {"type": "integer", "minimum": 1, "maximum": 100, "default": 1},
        },
        ("monitor",),
    ),
    actor="none",
    min_targets=1,
    max_targets=1,
    gm_only=True,
    example={"monitor": "physical", "boxes": 3},
    **_words("heal"),
)

BLEED = ActionSpec(
    name="bleed",
    params=_obj({"boxes": {"type": "integer", "minimum": 1, "maximum": 100, "default": 1}}),
    actor="none",
    min_targets=1,
    max_targets=1,
    gm_only=True,
    example={"boxes": 1},
    **_words("bleed"),
)

STABILISE = ActionSpec(
    name="stabilise",
    params=_obj({}),
    actor="none",
    min_targets=1,
    max_targets=1,
    gm_only=True,
    example={},
    **_words("stabilise"),
)

NEW_TURN = ActionSpec(
    name="new_turn",
    params=_obj({}),
    actor="none",
    min_targets=0,
    max_targets=None,
    every_actor=True,
    gm_only=True,
    example={},
    **_words("new_turn"),
)

ACTIONS = describe_actions([SUCCESS_TEST, ATTACK, DAMAGE, HEAL, BLEED, STABILISE, NEW_TURN])
