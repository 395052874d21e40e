"""The character sheet, the table settings and the fresh state."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from rollbridge.exceptions import InvalidParams, InvalidSheet

from .codes import parse_code
from .refusals import DUPLICATE_WEAPON, NO_WEAPON
from .words import NOTHING

__all__ = [
    "EXAMPLE_SHEETS",
    "SETTINGS_SCHEMA",
    "SHEET_SCHEMA",
    "STATE_SCHEMA",
    "check_sheet",
    "find_weapon",
    "initial_state",
    "state_schema_for",
]

CODE_PATTERN = "[0-9]{1,3}[A-Za-z]"

WEAPON_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "A named weapon the actor can attack with.",
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 80},
        "code": {
            "type": "string",
            "pattern": CODE_PATTERN,
            "description": "Damage code: power and level L, M, S or D (SR-4), e.g. '7M'.",
        },
        "type": {
            "type": "string",
            "enum": ["physical", "stun"],
            "default": "physical",
            "description": "Which condition monitor the damage goes on (SR-11).",
        },
        "armor": {
            "type": "string",
            "enum": ["ballistic", "impact"],
            "default": "ballistic",
            "description": "Which armour rating resists it (SR-9).",
        },
        "skill": {
            "type": "integer",
            "minimum": 0,
            "maximum": 100,
            "description": "Attack dice (skill) with this weapon when the attack omits them.",
        },
        "recoil_compensation": {"type": "integer", "minimum": 0, "maximum": 100, "default": 0},
    },
    "required": ["name", "code"],
}

SHEET_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "body": {
            "type": "integer",
            "minimum": 1,
            "maximum": 50,
            "description": "Body: resistance dice (SR-9) and the overflow limit (SR-11).",
        },
        "combat_pool": {
            "type": "integer",
            "minimum": 0,
            "maximum": 100,
            "default": 0,
            "description": "Combat Pool rating: dice per combat turn (SR-14).",
        },
        "armor": {
            "type": "object",
            "properties": {
                "ballistic": {"type": "integer", "minimum": 0, "maximum": 100, "default": 0},
                "impact": {"type": "integer", "minimum": 0, "maximum": 100, "default": 0},
            },
            "default": {"ballistic": 0, "impact": 0},
        },
        "weapons": {"type": "array", "items": WEAPON_SCHEMA, "maxItems": 100, "default": []},
    },
    "required": ["body"],
}

SETTINGS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "show_npc_details": {
            "type": "boolean",
            "default": False,
            "description": "Players also see an NPC's boxes (tracks and state), not just "
            "status and wound levels.",
        },
        "show_npc_sheet": {
            "type": "boolean",
            "default": False,
            "description": "Players also see an NPC's sheet.",
        },
        "rule_of_one": {
            "type": "boolean",
            "default": True,
            "description": "SR-3: a test whose dice all show 1 is a botch.",
        },
        "stun_carry": {
            "type": "boolean",
            "default": True,
            "description": "SR-11: Stun past 10 carries into Physical (off: the excess is lost).",
        },
    },
}


#: Sample sheets: the seed's Tukan with his Hackler, and two guards.
EXAMPLE_SHEETS: dict[str, dict[str, Any]] = {
    "Tukan": {
        "body": 5,
        "combat_pool": 6,
        "armor": {"ballistic": 3, "impact": 1},
        "weapons": [
            {"name": "Hackler", "code": "7M", "skill": 6, "recoil_compensation": 1},
            {"name": "Stun baton", "code": "6S", "type": "stun", "armor": "impact", "skill": 4},
        ],
    },
    "Guard A": {"body": 4, "combat_pool": 3, "armor": {"ballistic": 4, "impact": 2}},
    "Guard B": {"body": 4, "combat_pool": 3, "armor": {"ballistic": 5, "impact": 3}},
}


def check_sheet(sheet: Mapping[str, Any]) -> None:
    """Semantic checks the schema cannot express: weapon names unique, codes valid.

    :raises InvalidSheet: naming the weapon field.
    """
    seen: set[str] = set()
    for index, weapon in enumerate(sheet.get("weapons", ())):
        where = f"sheet.weapons[{index}]"
        name = weapon.get("name")
        if name in seen:
            raise InvalidSheet(
                DUPLICATE_WEAPON(where=where, name=repr(name)), details={"field": f"{where}.name"}
            )
        seen.add(name)
        try:
            parse_code(weapon.get("code"), f"{where}.code")
        except InvalidParams as exc:
            raise InvalidSheet(exc.text or exc.message, details=exc.details) from None


def find_weapon(sheet: Mapping[str, Any], name: str, owner: str) -> Mapping[str, Any]:
    """The weapon called ``name`` on ``sheet``.

    :raises InvalidParams: when the sheet has no such weapon (naming those it has).
    """
    weapons = sheet.get("weapons", ())
    for weapon in weapons:
        if weapon.get("name") == name:
            return weapon
    known: Any = ", ".join(repr(w.get("name")) for w in weapons) or NOTHING
    raise InvalidParams(
        NO_WEAPON(owner=owner, name=repr(name), known=known),
        details={"field": "params.weapon", "value": name},
    )


def initial_state(sheet: Mapping[str, Any]) -> dict[str, Any]:
    """A fresh, unhurt actor with a full Combat Pool."""
    return {
        "stun": 0,
        "physical": 0,
        "overflow": 0,
        "pool": int(sheet.get("combat_pool", 0)),
        "stabilised": False,
    }


#: The most boxes of one condition monitor (SR-11).
_MONITOR = 10
#: The state (see :mod:`.monitor`). Every field may be left out of a supplied state
#: and is then the fresh state's; the bounds that depend on the sheet are narrowed
#: by :func:`state_schema_for`.
STATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "stun": {
            "type": "integer",
            "minimum": 0,
            "maximum": _MONITOR,
            "description": "Stun boxes crossed, 0-10 (SR-11).",
        },
        "physical": {
            "type": "integer",
            "minimum": 0,
            "maximum": _MONITOR,
            "description": "Physical boxes crossed, 0-10 (SR-11).",
        },
        "overflow": {
            "type": "integer",
            "minimum": 0,
            "maximum": SHEET_SCHEMA["properties"]["body"]["maximum"] + 1,
            "description": "Boxes past the Physical monitor, 0 to Body + 1: "
            "above Body the character is dead (SR-11, SR-13).",
        },
        "pool": {
            "type": "integer",
            "minimum": 0,
            "maximum": SHEET_SCHEMA["properties"]["combat_pool"]["maximum"],
            "description": "Combat Pool dice left this combat turn, 0 to the sheet's "
            "combat_pool (SR-14).",
        },
        "stabilised": {
            "type": "boolean",
            "description": "A dying character was stabilised (SR-13).",
        },
    },
}


def state_schema_for(sheet: Mapping[str, Any]) -> dict[str, Any]:
    """:data:`STATE_SCHEMA` with overflow at most Body + 1 and the pool at most the
    sheet's Combat Pool."""
    return _state_schema(int(sheet.get("body", 1)), int(sheet.get("combat_pool", 0)))


@lru_cache(maxsize=256)
def _state_schema(body: int, pool: int) -> dict[str, Any]:
    props = dict(STATE_SCHEMA["properties"])
    props["overflow"] = {**props["overflow"], "maximum": body + 1}
    props["pool"] = {**props["pool"], "maximum": pool}
    return {**STATE_SCHEMA, "properties": props}
