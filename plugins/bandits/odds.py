"""The exact odds of a move (BD-1, BD-2, BD-7) and of a harm roll (BD-3, BD-5).

Both follow the resolver's own plan (:func:`.moves.plan_move`,
:func:`.harm.plan_harm`: the same modifiers, clamp, dice mode and refusals) and
compute the total's law with :func:`rollbridge.odds.distribution` of the
equivalent notation (``2d6+k``, ``3d6kh2+k``, ``3d6kl2+k``); no die is drawn.

* ``move``: ``6-``, ``7-9``, ``10-11`` and ``12+`` (BD-1's bands, the full
  success split where the extra result is flagged, so the outcomes are disjoint);
* ``harm``: one outcome per row of the harm table (BD-5), ``3-`` to ``22+``,
  named by its range (the wounds it deals before any reduction).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from rollbridge.contract import ActionContext, Distribution, Odds, distribution

from .harm import plan_harm
from .moves import plan_move
from .rolls import EXTRA_RESULT, band_of, move_formula, signed
from .table import BANDS, Band, band_for

__all__ = ["MOVE_OUTCOMES", "harm_odds", "harm_outcome", "move_odds", "move_outcome", "odds"]

#: The move outcomes, from worst to best.
MOVE_OUTCOMES = ("6-", "7-9", "10-11", "12+")
_MOVE_NAMES = {"miss": "6-", "partial": "7-9", "full": "10-11"}


def move_outcome(total: int) -> str:
    """The outcome a move total falls in, as :func:`.moves.resolve_move` reads it."""
    return "12+" if total >= EXTRA_RESULT else _MOVE_NAMES[band_of(total)]


def _band_name(band: Band) -> str:
    if band.high is None:
        return f"{band.low}+"
    if band.low is None:
        return f"{band.high}-"
    return f"{band.low}-{band.high}"


def harm_outcome(total: int) -> str:
    """The outcome (the harm table's row, ``4-6``) a harm total falls in."""
    return _band_name(band_for(total))


def _grouped(totals: Distribution, names: tuple[str, ...], name_of: Callable[[int], str]) -> Odds:
    outcomes = dict.fromkeys(names, Fraction(0))
    for total, p in totals.outcomes.items():
        outcomes[name_of(int(total))] += p
    return Odds(outcomes, totals.truncated, totals)


def move_odds(context: ActionContext) -> Odds:
    """BD-1: 2d6 (BD-2: 3d6 keeping two) plus the clamped modifier, in the four bands."""
    plan = plan_move(context)
    formula = move_formula(plan.rolled_mode, plan.modifier)
    return _grouped(distribution(formula), MOVE_OUTCOMES, move_outcome)


def harm_odds(context: ActionContext) -> Odds:
    """BD-3: 2d6 plus the harm terms, in the rows of the harm table (BD-5)."""
    plan = plan_harm(context)
    formula = "2d6" + signed(plan.modifier, zero="", ascii_minus=True)
    names = tuple(_band_name(band) for band in reversed(BANDS))
    return _grouped(distribution(formula), names, harm_outcome)


_ODDS: dict[str, Callable[[ActionContext], Odds]] = {"move": move_odds, "harm": harm_odds}


def odds(context: ActionContext) -> Odds | None:
    """The odds of ``context``'s action; None for an action without dice."""
    compute = _ODDS.get(context.action)
    return compute(context) if compute is not None else None
