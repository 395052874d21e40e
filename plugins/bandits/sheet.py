"""The character sheet: kind, stats (Steady among them), Armour, Pierce, two light weapons."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.exceptions import InvalidSheet
from rollbridge.schema import validate

from .messages import STAT_NAME

__all__ = [
    "SHEET_SCHEMA",
    "armour",
    "is_bandit",
    "kind",
    "pierce",
    "stat",
    "stats",
    "steady",
    "two_light_weapons",
    "validate_sheet",
]

STAT_VALUE = {"type": "integer", "minimum": -10, "maximum": 10}

SHEET_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "kind": {
            "type": "string",
            "enum": ["bandit", "extra"],
            "default": "bandit",
            "description": "a bandit (player character, 4 status slots) or an extra (2 wounds)",
        },
        "stats": {
            "type": "object",
            "properties": {
                "steady": {
                    **STAT_VALUE,
                    "default": 0,
                    "description": "the Steady (Стойко) bonus, subtracted when taking harm",
                }
            },
            "additionalProperties": STAT_VALUE,
            "default": {"steady": 0},
            "description": "stat name → modifier added to move rolls",
        },
        "armour": {"type": "integer", "minimum": 0, "maximum": 10, "default": 0},
        "pierce": {"type": "integer", "minimum": 0, "maximum": 10, "default": 0},
        "two_light_weapons": {
            "type": "boolean",
            "default": False,
            "description": "carries two light weapons (BD-4: +1 Pierce or +1 Armour per turn)",
        },
    },
}


def validate_sheet(sheet: Mapping[str, Any]) -> dict[str, Any]:
    """Schema check, then the checks the schema cannot express; defaults filled."""
    out = validate(SHEET_SCHEMA, sheet, where="sheet", error=InvalidSheet)
    stats_ = dict(out.get("stats") or {})
    for name in stats_:
        if not name.strip() or len(name) > 32:
            raise InvalidSheet(
                STAT_NAME(name=repr(name)),
                details={"field": "sheet.stats"},
            )
    stats_.setdefault("steady", 0)
    out["stats"] = stats_
    return out


def kind(sheet: Mapping[str, Any]) -> str:
    return str(sheet.get("kind", "bandit"))


def is_bandit(sheet: Mapping[str, Any]) -> bool:
    return kind(sheet) == "bandit"


def stats(sheet: Mapping[str, Any]) -> dict[str, int]:
    raw = sheet.get("stats") or {}
    return {str(k): int(v) for k, v in raw.items()}


def stat(sheet: Mapping[str, Any], name: str) -> int | None:
    """The modifier of the stat ``name`` (case-insensitive), or None if the sheet lacks it."""
    table = stats(sheet)
    if name in table:
        return table[name]
    folded = {k.casefold(): v for k, v in table.items()}
    return folded.get(name.casefold())


def steady(sheet: Mapping[str, Any]) -> int:
    return stat(sheet, "steady") or 0


def armour(sheet: Mapping[str, Any]) -> int:
    return int(sheet.get("armour", 0))


def pierce(sheet: Mapping[str, Any]) -> int:
    return int(sheet.get("pierce", 0))


def two_light_weapons(sheet: Mapping[str, Any]) -> bool:
    return bool(sheet.get("two_light_weapons", False))
