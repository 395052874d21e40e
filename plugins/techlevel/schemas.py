"""The sheet, settings and action schemas of the techlevel ruleset."""

from __future__ import annotations

from typing import Any

from rollbridge.contract import ActionSpec

from .action_texts import (
    ACTION_TEXTS,
    EXAMPLE_CHAINMAIL,
    EXAMPLE_FRONT,
    EXAMPLE_IRONSKIN,
    EXAMPLE_JEEP,
    EXAMPLE_REAR,
    EXAMPLE_REVOLVER,
)
from .items import IMMUNE_SCHEMA, ITEM_SCHEMA, TL_SCHEMA, VEHICLE_SCHEMA
from .layers import WEARABLE

__all__ = ["ACTIONS", "EXAMPLE_SHEETS", "SETTINGS_SCHEMA", "SHEET_SCHEMA"]

SHEET_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "a living being; its starting equipment is worn/carried when it joins",
    "properties": {
        "race": {"type": "string", "maxLength": 80, "default": ""},
        "body_tl": {**TL_SCHEMA, "description": "TL of the body's 10 KSK (by race or abilities)"},
        "immune": {**IMMUNE_SCHEMA, "description": "damage types the body (and mind) ignore"},
        "worn": {
            "type": "array",
            "items": ITEM_SCHEMA,
            "maxItems": 2,
            "default": [],
            "description": "starting items worn: at most one energy shield and one armour",
        },
        "carried": {"type": "array", "items": ITEM_SCHEMA, "maxItems": 50, "default": []},
        "vehicles": {
            "type": "array",
            "items": VEHICLE_SCHEMA,
            "maxItems": 20,
            "default": [],
            "description": "vehicles and mounts owned; mount one by name",
        },
        "mounted": {
            "type": ["string", "null"],
            "default": None,
            "description": "name of a vehicle of 'vehicles' the being starts on",
        },
        "notes": {"type": "string", "maxLength": 2000, "default": ""},
    },
    "required": ["body_tl"],
}

SETTINGS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "show_npc_details": {
            "type": "boolean",
            "default": False,
            "description": "players also see NPCs' item names, TLs, magic and immunities",
        },
        "mental_excess_to_body": {
            "type": "boolean",
            "default": True,
            "description": "TL-8: GSK excess carries into KSK as lethal (false: it is lost)",
        },
    },
}

_NULL_STR: dict[str, Any] = {"type": ["string", "null"], "maxLength": 80, "default": None}
#: A section of the target's vehicle (TL-10; a name it lacks is refused): forms offer
#: the sections of the vehicle the target rides, as the asker sees the target
#: (players see an NPC's sections: ``player_view``).
_SECTION: dict[str, Any] = {
    **_NULL_STR,
    "choicesFrom": {"state": "vehicle.sections", "value": "name", "only": True, "of": "target"},
}
_BOXES_OR_ALL: dict[str, Any] = {
    "type": ["integer", "null"],
    "minimum": 1,
    "maximum": 1000,
    "default": None,
    "description": "how many boxes; null: all",
}

HIT = ActionSpec(
    name="hit",
    **ACTION_TEXTS["hit"],
    params={
        "type": "object",
        "properties": {
            "dice": {
                "type": "string",
                "minLength": 1,
                "maxLength": 100,
                "description": "the weapon's damage dice (1d4, 1d6+1, 2d6)",
            },
            "tl": {**TL_SCHEMA, "description": "the weapon's TL"},
            "type": {
                "type": "string",
                "minLength": 1,
                "maxLength": 40,
                "default": "kinetic",
                "description": "damage type for immunities; 'shock' and 'mental' are special",
            },
            "section": {**_SECTION, "description": "vehicle section to strike (TL-10)"},
            "roll": {
                "type": ["integer", "null"],
                "minimum": 0,
                "maximum": 100000,
                "default": None,
                "description": "a damage total already rolled at the table; no dice drawn",
            },
            "weapon": {"type": "string", "maxLength": 80, "default": ""},
        },
        "required": ["dice", "tl"],
    },
    actor="optional",
    min_targets=1,
    max_targets=1,
    example={"weapon": EXAMPLE_REVOLVER(), "dice": "1d6", "tl": 2, "type": "kinetic"},
)

DON = ActionSpec(
    name="don",
    **ACTION_TEXTS["don"],
    params={
        "type": "object",
        "properties": {
            "item": {**ITEM_SCHEMA, "type": ["object", "null"], "default": None},
            "name": {
                **_NULL_STR,
                "description": "an item the actor carries",
                # forms offer what the actor carries now (TL-9: it dons one of them)
                "choicesFrom": {"state": "carried", "value": "name", "only": True},
            },
            "on": {"type": "string", "enum": ["self", "vehicle"], "default": "self"},
        },
    },
    example={"item": {"name": EXAMPLE_CHAINMAIL(), "kind": "armour", "boxes": 10, "tl": 1}},
)

DOFF = ActionSpec(
    name="doff",
    **ACTION_TEXTS["doff"],
    params={
        "type": "object",
        "properties": {
            "layer": {"type": "string", "enum": list(WEARABLE)},
            "drop": {"type": "boolean", "default": False},
        },
        "required": ["layer"],
    },
    example={"layer": "armour"},
)

ENCHANT = ActionSpec(
    name="enchant",
    **ACTION_TEXTS["enchant"],
    params={
        "type": "object",
        "properties": {
            "layer": {"type": "string", "enum": list(WEARABLE), "default": "armour"},
            "mode": {"type": "string", "enum": ["improve", "cast"], "default": "improve"},
            "spell": {"type": "string", "minLength": 1, "maxLength": 80},
            "boxes": {
                "type": "integer",
                "minimum": 1,
                "maximum": 1000,
                "description": "the spell's boxes (an armour: 10 or 20)",
            },
            "tl": {
                "type": ["integer", "null"],
                "minimum": 1,
                "maximum": 5,
                "default": None,
                "description": "the spell's TL (required to cast; improve keeps the TL if null)",
            },
            "immune": IMMUNE_SCHEMA,
        },
        "required": ["spell", "boxes"],
    },
    actor="optional",
    min_targets=1,
    max_targets=1,
    example={"layer": "armour", "mode": "improve", "spell": EXAMPLE_IRONSKIN(), "boxes": 20},
)

DISPEL = ActionSpec(
    name="dispel",
    **ACTION_TEXTS["dispel"],
    params={
        "type": "object",
        "properties": {"layer": {"type": "string", "enum": list(WEARABLE), "default": "armour"}},
    },
    actor="optional",
    min_targets=1,
    max_targets=1,
    example={"layer": "armour"},
)

DESTROY = ActionSpec(
    name="destroy",
    **ACTION_TEXTS["destroy"],
    params={
        "type": "object",
        "properties": {
            "layer": {"type": "string", "enum": [*WEARABLE, "vehicle"]},
            "section": _SECTION,
        },
        "required": ["layer"],
    },
    actor="optional",
    min_targets=1,
    max_targets=1,
    gm_only=True,
    example={"layer": "armour"},
)

MOUNT = ActionSpec(
    name="mount",
    **ACTION_TEXTS["mount"],
    params={
        "type": "object",
        "properties": {
            "name": {
                **_NULL_STR,
                "description": "one of the actor's vehicles, by name",
                # forms offer the vehicles the actor has and is not riding (TL-10)
                "choicesFrom": {"state": "stable", "value": "name", "only": True},
            },
            "vehicle": {**VEHICLE_SCHEMA, "type": ["object", "null"], "default": None},
        },
    },
    example={
        "vehicle": {
            "name": EXAMPLE_JEEP(),
            "tl": 3,
            "sections": [{"name": EXAMPLE_FRONT()}, {"name": EXAMPLE_REAR()}],
        }
    },
)

DISMOUNT = ActionSpec(
    name="dismount",
    **ACTION_TEXTS["dismount"],
    params={
        "type": "object",
        "properties": {"leave": {"type": "boolean", "default": False}},
    },
    example={},
)

REPAIR = ActionSpec(
    name="repair",
    **ACTION_TEXTS["repair"],
    params={
        "type": "object",
        "properties": {
            "layer": {"type": "string", "enum": [*WEARABLE, "vehicle"]},
            "section": _SECTION,
            "boxes": _BOXES_OR_ALL,
        },
        "required": ["layer"],
    },
    actor="optional",
    min_targets=1,
    max_targets=1,
    gm_only=True,
    example={"layer": "armour", "boxes": 5},
)

HEAL = ActionSpec(
    name="heal",
    **ACTION_TEXTS["heal"],
    params={
        "type": "object",
        "properties": {
            "track": {"type": "string", "enum": ["body", "mind"], "default": "body"},
            "mark": {"type": "string", "enum": ["any", "lethal", "shock"], "default": "any"},
            "boxes": _BOXES_OR_ALL,
        },
    },
    actor="optional",
    min_targets=1,
    max_targets=1,
    gm_only=True,
    example={"track": "body", "boxes": 2},
)

RECOVER = ActionSpec(
    name="recover",
    **ACTION_TEXTS["recover"],
    params={"type": "object", "properties": {"boxes": _BOXES_OR_ALL}},
    example={},
)

ACTIONS: dict[str, ActionSpec] = {
    spec.name: spec
    for spec in (HIT, DON, DOFF, ENCHANT, DISPEL, DESTROY, MOUNT, DISMOUNT, REPAIR, HEAL, RECOVER)
}

EXAMPLE_SHEETS: dict[str, dict[str, Any]] = {
    "Ana": {
        "race": "human",
        "body_tl": 2,
        "worn": [{"name": "Belt shield", "kind": "shield", "boxes": 5, "tl": 4}],
        "carried": [{"name": "Chainmail", "kind": "armour", "boxes": 10, "tl": 1}],
        "vehicles": [{"name": "Jeep", "tl": 3, "sections": [{"name": "front"}, {"name": "rear"}]}],
    },
    "Guard": {
        "race": "human",
        "body_tl": 1,
        "worn": [{"name": "Kevlar vest", "kind": "armour", "boxes": 10, "tl": 3}],
    },
    "Knight": {
        "race": "human",
        "body_tl": 1,
        "worn": [
            {
                "name": "Plate",
                "kind": "armour",
                "boxes": 20,
                "tl": 2,
                "magical": True,
                "spell": "Ironskin",
                "immune": ["fire"],
            }
        ],
        "vehicles": [
            {
                "name": "Warhorse",
                "kind": "mount",
                "tl": 1,
                "worn": [{"name": "Barding", "kind": "armour", "boxes": 10, "tl": 1}],
            }
        ],
        "mounted": "Warhorse",
    },
    "Sentinel": {
        "race": "robot",
        "body_tl": 4,
        "immune": ["mental", "shock"],
        "worn": [{"name": "Power armour", "kind": "armour", "boxes": 20, "tl": 5}],
    },
}
