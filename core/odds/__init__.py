"""Exact odds of dice notation: the distribution of a formula's total.

:func:`distribution` computes, as exact fractions, the probability of every total
a formula can give when :func:`~rollbridge.dice.evaluate.roll_formula` rolls it,
by convolution over the parse tree (no sampling). Explosions are cut at a
documented depth and the probability cut off is reported as
:attr:`Distribution.truncated`. See ``docs/dice.md``, "Exact odds".
:class:`Odds` is what a ruleset's optional ``odds`` hook returns: an action's
named outcomes (docs/plugins.md, "Odds").

::

    from rollbridge.odds import distribution

    odds = distribution("4d6kh3")
    odds[18]            # Fraction(7, 432)
    odds.at_least(15)   # P(total >= 15)
    odds.mean           # Fraction(15869, 1296)
"""

from __future__ import annotations

from rollbridge.odds.distribution import DEFAULT_DEPTH, MAX_DEPTH, Distribution, distribution
from rollbridge.odds.result import Odds

__all__ = ["DEFAULT_DEPTH", "MAX_DEPTH", "Distribution", "Odds", "distribution"]
