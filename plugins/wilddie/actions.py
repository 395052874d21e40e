"""The wilddie actions, their parameter schemas, and the table settings."""

from __future__ import annotations

from typing import Any

from rollbridge.contract import ActionSpec, describe_actions
from rollbridge.plugins.wilddie.action_texts import ACTION_TEXTS, EXAMPLE_DARK
from rollbridge.plugins.wilddie.traits import TRAITS

__all__ = [
    "ACTIONS",
    "RANGE_DIFFICULTY",
    "SETTINGS_SCHEMA",
    "SIZE_ADJUSTMENT",
]

#: WD-6: the difficulty of a ranged attack by range band.
RANGE_DIFFICULTY: dict[str, int] = {"short": 4, "medium": 6, "long": 8}

#: WD-6 "adjusted for target size": the change to the difficulty, from
#: Savage Worlds' Scale (a Large target is +2 to hit, so −2 to the difficulty).
SIZE_ADJUSTMENT: dict[str, int] = {
    "tiny": 6,
    "very_small": 4,
    "small": 2,
    "normal": 0,
    "large": -2,
    "huge": -4,
    "gargantuan": -6,
}

MODIFIERS: dict[str, Any] = {
    "type": "array",
    "maxItems": 10,
    "default": [],
    "description": "situational modifiers, each applied to the trait die and the wild die",
    "items": {
        "type": "object",
        "required": ["value"],
        "properties": {
            "value": {"type": "integer", "minimum": -20, "maximum": 20},
            "note": {"type": "string", "maxLength": 80, "default": ""},
        },
    },
}

ROLL_REF: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "maxLength": 200,
    "description": "the request id of the roll to reroll; omitted: the actor's latest roll",
}

SETTINGS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "chip_reroll": {
            "type": "string",
            "enum": ["one_die", "whole_roll"],
            "default": "one_die",
            "description": "WD-4: a chip rerolls one die (the seed) or the whole roll (canonical)",
        },
        "wounds_per_hit": {
            "type": "string",
            "enum": ["one", "per_raise"],
            "default": "one",
            "description": "WD-7: one wound per hit (the seed) or one per raise (canonical)",
        },
        "show_npc_details": {
            "type": "boolean",
            "default": False,
            "description": "players also see an npc's sheet and full state",
        },
    },
}

ACTIONS: dict[str, ActionSpec] = describe_actions(
    [
        ActionSpec(
            name="trait",
            **ACTION_TEXTS["trait"],
            params={
                "type": "object",
                "required": ["trait"],
                "properties": {
                    "trait": {"type": "string", "enum": list(TRAITS)},
                    "difficulty": {"type": "integer", "minimum": -20, "maximum": 40, "default": 4},
                    "modifiers": MODIFIERS,
                },
            },
            example={
                "trait": "notice",
                "difficulty": 4,
                "modifiers": [{"value": -2, "note": EXAMPLE_DARK()}],
            },
        ),
        ActionSpec(
            name="attack",
            **ACTION_TEXTS["attack"],
            params={
                "type": "object",
                "required": ["mode"],
                "properties": {
                    "mode": {"type": "string", "enum": ["melee", "ranged"]},
                    "range": {"type": "string", "enum": list(RANGE_DIFFICULTY)},
                    "size": {"type": "string", "enum": list(SIZE_ADJUSTMENT)},
                    "modifiers": MODIFIERS,
                },
            },
            min_targets=1,
            max_targets=1,
            example={"mode": "ranged", "range": "medium", "size": "normal"},
        ),
        ActionSpec(
            name="damage",
            **ACTION_TEXTS["damage"],
            params={
                "type": "object",
                "required": ["dice"],
                "properties": {
                    "dice": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": 60,
                        "description": "weapon dice, e.g. 2d6 or d8+1; every die aces",
                    },
                    "melee": {
                        "type": "boolean",
                        "default": False,
                        "description": "add the attacker's Strength die (needs an actor)",
                    },
                },
            },
            actor="optional",
            min_targets=1,
            max_targets=1,
            example={"dice": "d8", "melee": True},
        ),
        ActionSpec(
            name="chip",
            **ACTION_TEXTS["chip"],
            params={
                "type": "object",
                "properties": {
                    "roll": ROLL_REF,
                    "die": {"type": "string", "enum": ["trait", "wild"], "default": "trait"},
                },
            },
            min_targets=0,
            max_targets=1,
            example={"die": "wild"},
        ),
        ActionSpec(
            name="recover",
            **ACTION_TEXTS["recover"],
            params={
                "type": "object",
                "properties": {"modifiers": MODIFIERS},
            },
            example={},
        ),
        ActionSpec(
            name="award_chips",
            **ACTION_TEXTS["award_chips"],
            params={
                "type": "object",
                "properties": {
                    "count": {"type": "integer", "minimum": 1, "maximum": 10, "default": 1}
                },
            },
            actor="none",
            min_targets=1,
            max_targets=None,
            gm_only=True,
            example={"count": 1},
        ),
        ActionSpec(
            name="heal",
            **ACTION_TEXTS["heal"],
            params={
                "type": "object",
                "properties": {
                    "wounds": {"type": "integer", "minimum": 0, "maximum": 4, "default": 1},
                    "unshake": {"type": "boolean", "default": False},
                },
            },
            actor="none",
            min_targets=1,
            max_targets=None,
            gm_only=True,
            example={"wounds": 1},
        ),
    ]
)
