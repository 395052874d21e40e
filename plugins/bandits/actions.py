"""The actions of the ruleset and their parameter schemas."""

from __future__ import annotations

from typing import Any

from rollbridge.contract import ActionSpec, describe_actions

from .action_texts import CHOICES, EXAMPLE_COVER, EXAMPLE_MOVE, HINTS, LABEL, LABELS, SUMMARY

__all__ = ["ACTIONS", "DUAL_WIELD"]

DUAL_WIELD = {
    "type": ["string", "null"],
    "enum": ["pierce", "armour", None],
    "default": None,
}


def _words(name: str) -> dict[str, Any]:
    """An action's words as people read them (:mod:`.action_texts`): its name and
    summary, its parameters' names and help, its enums' values."""
    return {
        "label": LABEL[name],
        "summary": SUMMARY[name],
        "labels": LABELS[name],
        "hints": HINTS[name],
        "choices": CHOICES.get(name, {}),
    }


MOVE = ActionSpec(
    name="move",
    params={
        "type": "object",
        "properties": {
            "move": {
                "type": "string",
                "maxLength": 80,
                "default": "",
                "description": "the move's name, for the narration",
            },
            "stat": {
                "type": ["string", "null"],
                "maxLength": 32,
                "default": None,
                "description": "the stat of the actor's sheet to add (null: none)",
                # forms offer the stats of the actor's sheet (BD-1: 2d6 + stat)
                "choicesFrom": {"sheet": "stats", "only": True},
            },
            "modifiers": {
                "type": "array",
                "maxItems": 20,
                "default": [],
                "description": "situational modifiers: integers or {label, value}",
                "items": {
                    "type": ["integer", "object"],
                    "minimum": -20,
                    "maximum": 20,
                    "properties": {
                        "label": {"type": "string", "maxLength": 80, "default": ""},
                        "value": {"type": "integer", "minimum": -20, "maximum": 20},
                    },
                    "required": ["value"],
                },
            },
            "advantage": {"type": "boolean", "default": False},
            "disadvantage": {
                "type": "boolean",
                "default": False,
                "description": "added automatically while heavily wounded (BD-7)",
            },
        },
    },
    actor="required",
    example={
        "move": EXAMPLE_MOVE(),
        "stat": "cool",
        "modifiers": [{"label": EXAMPLE_COVER(), "value": 1}],
    },
    **_words("move"),
)

HARM = ActionSpec(
    name="harm",
    params={
        "type": "object",
        "properties": {
            "direction": {
                "type": "string",
                "enum": ["dealt", "taken"],
                "description": "dealt: the attacker rolls 2d6 − target's Armour + own Pierce; "
                "taken: the target rolls 2d6 − own Steady − own Armour + attacker's Pierce",
            },
            "pierce": {
                "type": ["integer", "null"],
                "minimum": 0,
                "maximum": 20,
                "default": None,
                "description": "the attacker's Pierce, overriding its sheet (or with no attacker)",
            },
            "attacker_dual_wield": {
                **DUAL_WIELD,
                "description": "the attacker's BD-4 choice this turn; only 'pierce' adds here",
            },
            "target_dual_wield": {
                **DUAL_WIELD,
                "description": "the target's BD-4 choice this turn; only 'armour' adds here",
            },
            "reduction": {
                "type": "integer",
                "minimum": 0,
                "maximum": 7,
                "default": 0,
                "description": "wounds the GM takes off the result (troubles); GM only",
            },
            "wound_instead_of_trouble": {
                "type": "boolean",
                "default": False,
                "description": "on 3− a bandit target takes 1 wound instead of the trouble",
            },
        },
        "required": ["direction"],
    },
    actor="optional",
    min_targets=1,
    max_targets=1,
    example={"direction": "dealt", "attacker_dual_wield": None},
    **_words("harm"),
)

MEDPACK = ActionSpec(
    name="medpack",
    params={
        "type": "object",
        "properties": {"n": {"type": "integer", "minimum": 1, "maximum": 10}},
        "required": ["n"],
    },
    actor="optional",
    min_targets=1,
    max_targets=1,
    example={"n": 1},
    **_words("medpack"),
)

STABILISE = ActionSpec(
    name="stabilise",
    params={
        "type": "object",
        "properties": {"means": {"type": "string", "enum": ["doc", "item"], "default": "doc"}},
    },
    actor="optional",
    min_targets=1,
    max_targets=1,
    example={"means": "doc"},
    **_words("stabilise"),
)

END_OF_TURN = ActionSpec(
    name="end_of_turn",
    params={"type": "object", "properties": {}},
    actor="required",
    example={},
    **_words("end_of_turn"),
)

END_OF_RAID = ActionSpec(
    name="end_of_raid",
    params={
        "type": "object",
        "properties": {
            "kept_wounds": {
                "type": "object",
                "additionalProperties": {"type": "integer", "minimum": 1, "maximum": 3},
                "default": {},
                "description": "actor id → the slot (1-3) that bandit keeps marked",
            }
        },
    },
    actor="none",
    max_targets=None,
    every_actor=True,
    gm_only=True,
    example={"kept_wounds": {}},
    **_words("end_of_raid"),
)

ACTIONS = describe_actions([MOVE, HARM, MEDPACK, STABILISE, END_OF_TURN, END_OF_RAID])
