"""The wilddie character sheet: its schema, its checks, a fresh actor's state.

A sheet is plain data::

    {
      "kind": "pc",                         # "pc" (player character) or "npc"
      "attributes": {"strength": "d6", "vigor": "d8", "coordination": "d6",
                     "reaction": "d6", "intuition": "d6", "character": "d6"},
      "skills": {"fighting": "d10", "shooting": "d6"},   # untrained skills absent
      "armor": 0,                           # worn armour, added to Toughness (WD-5)
      "chips": 3            # starting chips (WD-4): default 3 for a pc, 0 for an npc
    }
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.plugins.wilddie.state import MAX_CHIPS, fresh_state
from rollbridge.plugins.wilddie.traits import ATTRIBUTES, DIE_STEPS, SKILLS

__all__ = ["EXAMPLE_SHEETS", "SHEET_SCHEMA", "STARTING_CHIPS", "initial_state", "is_pc"]

#: WD-4: each player character starts with three chips.
STARTING_CHIPS = 3

_DIE = {"type": "string", "enum": list(DIE_STEPS), "description": "the trait's die"}

SHEET_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["attributes"],
    "properties": {
        "kind": {
            "type": "string",
            "enum": ["pc", "npc"],
            "default": "pc",
            "description": "pc: a player character (wild die, chips, 3 wounds); npc: neither",
        },
        "attributes": {
            "type": "object",
            "required": list(ATTRIBUTES),
            "properties": {name: dict(_DIE) for name in ATTRIBUTES},
            "description": "the six attributes of WD-1, each a die d4-d12",
        },
        "skills": {
            "type": "object",
            "properties": {name: dict(_DIE) for name in SKILLS},
            "default": {},
            "description": "trained skills of WD-1; an absent skill is untrained (d4 - 2)",
        },
        "armor": {
            "type": "integer",
            "minimum": 0,
            "maximum": 20,
            "default": 0,
            "description": "worn armour, added to Toughness (WD-5)",
        },
        "chips": {
            "type": "integer",
            "minimum": 0,
            "maximum": MAX_CHIPS,
            "description": "chips at the start of play (WD-4); default 3 for a pc, 0 for an npc",
        },
    },
}

#: Sample sheets: a player character and an npc (docs, CLI, conformance suite).
EXAMPLE_SHEETS: dict[str, dict[str, Any]] = {
    "Ana": {
        "kind": "pc",
        "attributes": {
            "strength": "d6",
            "vigor": "d8",
            "coordination": "d8",
            "reaction": "d8",
            "intuition": "d6",
            "character": "d6",
        },
        "skills": {"fighting": "d8", "shooting": "d8", "notice": "d6", "stealth": "d6"},
        "armor": 1,
    },
    "Guard": {
        "kind": "npc",
        "attributes": {
            "strength": "d8",
            "vigor": "d6",
            "coordination": "d6",
            "reaction": "d6",
            "intuition": "d4",
            "character": "d6",
        },
        "skills": {"fighting": "d6", "shooting": "d6", "notice": "d4", "intimidation": "d6"},
    },
}


def is_pc(sheet: Mapping[str, Any]) -> bool:
    """Whether the sheet is a player character's (the schema's default)."""
    return sheet.get("kind", "pc") == "pc"


def initial_state(sheet: Mapping[str, Any]) -> dict[str, Any]:
    """A fresh actor: not Shaken, unwounded, with its starting chips."""
    chips = sheet.get("chips")
    if chips is None:
        chips = STARTING_CHIPS if is_pc(sheet) else 0
    return fresh_state(int(chips))
