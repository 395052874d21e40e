"""TL-1: the weapon's damage roll, from its dice expression or given by the table."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from rollbridge.dice import DiceSource, prepare, roll_formula
from rollbridge.exceptions import NotationError

from .messages import DAMAGE_DICE, DAMAGE_DICE_PART, INVALID, ROLL_GIVEN, ROLLED, ROLLED_ROUNDED

__all__ = ["parse_dice", "roll_damage", "roll_value"]


def roll_value(raw: Any) -> int:
    """TL-1: the damage roll of a total: a fraction rounded down, below 0 counted as 0."""
    return max(0, math.floor(raw))


def parse_dice(formula: str) -> Any:
    """The damage expression, parsed and compiled (TL-1): a divisor without dice that is
    0 is refused here, before any die. :raises NotationError: naming ``params.dice``."""
    try:
        return prepare(formula)
    except NotationError as exc:
        problem = exc.text if exc.text is not None else exc.message
        raise NotationError(
            INVALID(path="params.dice", problem=problem),
            details={"field": "params.dice", **exc.details},
        ) from None


def roll_damage(
    formula: str, weapon_tl: int, dice: DiceSource, given: int | None
) -> dict[str, Any]:
    """The damage roll: ``{"roll", "raw", "rolled_by", "groups", "step"}`` (``step``
    is a :class:`~rollbridge.text.Text`, and so is each group's label).

    The expression is any dice notation :mod:`rollbridge.dice.notation`
    reads (``1d4``, ``1d6+1``, ``2d6``, ``1d6x``). ``given`` is a total the
    table already rolled (the ``roll`` parameter): the expression is still
    checked but no dice are drawn. Otherwise it is rolled from ``dice``
    (``rolled_by`` is ``table`` when the dice source holds supplied results,
    else ``server``). A fractional total is rounded down, a total below 0
    (``1d4-2``) counts as 0.
    """
    parsed = parse_dice(formula)
    notation = str(parsed)
    if given is not None:
        return {
            "roll": given,
            "raw": given,
            "rolled_by": "given",
            "groups": [],
            "step": ROLL_GIVEN(dice=notation, tl=weapon_tl, roll=given),
        }
    result = roll_formula(parsed, dice)
    groups = result.groups
    if len(groups) == 1:
        groups = [replace(groups[0], label=DAMAGE_DICE(dice=notation, tl=weapon_tl))]
    else:
        groups = [
            replace(g, label=DAMAGE_DICE_PART(dice=notation, tl=weapon_tl, n=i + 1))
            for i, g in enumerate(groups)
        ]
    raw = result.total
    roll = roll_value(raw)
    rolled = result.describe()
    if roll == raw:
        step = ROLLED(rolled=rolled, tl=weapon_tl)
    else:
        step = ROLLED_ROUNDED(rolled=rolled, roll=roll, tl=weapon_tl)
    return {
        "roll": roll,
        "raw": raw,
        "rolled_by": "table" if dice.supplied else "server",
        "groups": groups,
        "step": step,
    }
