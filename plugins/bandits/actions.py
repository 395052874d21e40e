"""The actions of the ruleset and their parameter schemas."""

from __future__ import annotations

from rollbridge.contract import ActionSpec, describe_actions

__all__ = ["ACTIONS", "DUAL_WIELD"]

DUAL_WIELD = {
    "type": ["string", "null"],
    "enum": ["pierce", "armour", None],
    "default": None,
}

MOVE = ActionSpec(
    name="move",
    summary="A move roll: 2d6 + stat + situational modifiers, clamped to ±4 (BD-1, BD-2, BD-7).",
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
        "move": "act under fire",
        "stat": "cool",
        "modifiers": [{"label": "cover", "value": 1}],
    },
)

HARM = ActionSpec(
    name="harm",
    summary="A harm roll by the actor (attacker) against one target, dealt or taken "
    "(BD-3, BD-4, BD-5), then its wounds (BD-6, BD-9).",
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
)

MEDPACK = ActionSpec(
    name="medpack",
    summary="Use a medpack-N (or doc's kit) on the target bandit (BD-10).",
    params={
        "type": "object",
        "properties": {"n": {"type": "integer", "minimum": 1, "maximum": 10}},
        "required": ["n"],
    },
    actor="optional",
    min_targets=1,
    max_targets=1,
    example={"n": 1},
)

STABILISE = ActionSpec(
    name="stabilise",
    summary="A doc or a special item stabilises the dying target bandit (BD-8).",
    params={
        "type": "object",
        "properties": {"means": {"type": "string", "enum": ["doc", "item"], "default": "doc"}},
    },
    actor="optional",
    min_targets=1,
    max_targets=1,
    example={"means": "doc"},
)

END_OF_TURN = ActionSpec(
    name="end_of_turn",
    summary="The actor's turn ends: a dying bandit nobody stabilised dies (BD-8); "
    "its two-weapon choice is released (BD-4).",
    params={"type": "object", "properties": {}},
    actor="required",
    example={},
)

END_OF_RAID = ActionSpec(
    name="end_of_raid",
    summary="The raid is over: every bandit is healed, except one wound each may keep "
    "as a getaway trouble (BD-11).",
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
)

ACTIONS = describe_actions([MOVE, HARM, MEDPACK, STABILISE, END_OF_TURN, END_OF_RAID])
