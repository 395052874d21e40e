"""TL-1: the weapon's damage roll, from its dice expression or given by the table."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from rollbridge.dice import DiceSource, parse, roll_formula
from rollbridge.exceptions import NotationError

__all__ = ["roll_damage"]


def _parsed(formula: str) -> Any:
    try:
        return parse(formula)
    except NotationError as exc:
        raise NotationError(
            f"params.dice: {exc.message}", details={"field": "params.dice", **exc.details}
        ) from None


def roll_damage(
    formula: str, weapon_tl: int, dice: DiceSource, given: int | None
) -> dict[str, Any]:
    """The damage roll: ``{"roll", "raw", "rolled_by", "groups", "step"}``.

    The expression is any dice notation :mod:`rollbridge.dice.notation`
    reads (``1d4``, ``1d6+1``, ``2d6``, ``1d6x``). ``given`` is a total the
    table already rolled (the ``roll`` parameter): the expression is still
    checked but no dice are drawn. Otherwise it is rolled from ``dice``
    (``rolled_by`` is ``table`` when the dice source holds supplied results,
    else ``server``). A fractional total is rounded down, a total below 0
    (``1d4-2``) counts as 0.
    """
    parsed = _parsed(formula)
    if given is not None:
        return {
            "roll": given,
            "raw": given,
            "rolled_by": "given",
            "groups": [],
            "step": f"damage {parsed} TL{weapon_tl}: {given}, rolled at the table",
        }
    result = roll_formula(parsed, dice)
    label = f"Damage {parsed} TL{weapon_tl}"
    groups = result.groups
    groups = [
        replace(g, label=label if len(groups) == 1 else f"{label} #{i + 1}")
        for i, g in enumerate(groups)
    ]
    raw = result.total
    roll = max(0, math.floor(raw))
    note = "" if roll == raw else f" (counts as {roll})"
    return {
        "roll": roll,
        "raw": raw,
        "rolled_by": "table" if dice.supplied else "server",
        "groups": groups,
        "step": f"damage {result.describe()}{note} (TL{weapon_tl})",
    }
