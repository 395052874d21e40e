"""The :class:`Distribution` of a formula's total, and :func:`distribution`."""

from __future__ import annotations

import sys
from fractions import Fraction
from functools import lru_cache
from typing import Any

from rollbridge.dice.notation import Formula, parse
from rollbridge.exceptions import InvalidRequest
from rollbridge.odds.bounds import current
from rollbridge.odds.cache import BoundedCache
from rollbridge.odds.compute import checked, node_law
from rollbridge.odds.law import Value
from rollbridge.odds.shares import fraction_text, share
from rollbridge.text import Messages

__all__ = [
    "CACHE",
    "CACHE_BYTES",
    "CACHE_ENTRIES",
    "CACHE_ENTRY_BYTES",
    "DEFAULT_DEPTH",
    "MAX_DEPTH",
    "Distribution",
    "distribution",
    "footprint",
]

#: How many dice one line of explosions may add (and how many times a
#: compounding die may roll again) before the rest is cut off as ``truncated``.
DEFAULT_DEPTH = 10
#: The deepest explosion depth :func:`distribution` accepts.
MAX_DEPTH = 100

say = Messages("rollbridge")
# Translators: {depth} is what was asked, {limit} the largest depth allowed.
BAD_DEPTH = say("odds.depth", "an explosion depth of {depth}: give 0 to {limit}")


class Distribution:
    """The exact law of a formula's total.

    :ivar formula: the normalised formula.
    :ivar depth: the explosion depth used.
    :ivar weights: each possible total (``int``, or a ``Fraction`` for a
        non-integral quotient) → its weight, in increasing order of total; the
        probability of a total is its weight over :attr:`denominator`.
    :ivar denominator: the common denominator of the weights.

    :attr:`outcomes` gives the probabilities as reduced ``Fraction`` objects
    (built on first access: for ``999d6`` that is most of the work);
    :attr:`truncated` is the probability cut off by the explosion depth (rolls
    that explode more than ``depth`` times in a line), so the outcomes sum to
    ``1 - truncated``.
    """

    __slots__ = ("_outcomes", "denominator", "depth", "formula", "weights")

    def __init__(
        self, formula: str, weights: dict[Value, int], denominator: int, depth: int
    ) -> None:
        self.formula = formula
        self.weights = weights
        self.denominator = denominator
        self.depth = depth
        self._outcomes: dict[Value, Fraction] | None = None

    @property
    def outcomes(self) -> dict[Value, Fraction]:
        """Each possible total → its exact probability, in increasing order of total."""
        outcomes = self._outcomes
        if outcomes is None:
            denominator = self.denominator
            outcomes = self._outcomes = {
                v: Fraction(w, denominator) for v, w in self.weights.items()
            }
        return outcomes

    @property
    def truncated(self) -> Fraction:
        """The probability cut off by the explosion depth."""
        return Fraction(self.denominator - sum(self.weights.values()), self.denominator)

    @property
    def mean(self) -> Fraction:
        """The expected total of the rolls that were not cut off (exact)."""
        mass = sum(self.weights.values())
        if not mass:
            return Fraction(0)
        return Fraction(sum(v * w for v, w in self.weights.items())) / mass

    def at_least(self, value: Value) -> Fraction:
        """P(total ≥ value), not counting the truncated mass."""
        hits = sum(w for v, w in self.weights.items() if v >= value)
        return Fraction(hits, self.denominator)

    def at_most(self, value: Value) -> Fraction:
        """P(total ≤ value), not counting the truncated mass."""
        hits = sum(w for v, w in self.weights.items() if v <= value)
        return Fraction(hits, self.denominator)

    def __getitem__(self, value: Value) -> Fraction:
        return Fraction(self.weights.get(value, 0), self.denominator)

    def __repr__(self) -> str:
        return f"Distribution({self.formula!r}, {len(self.weights)} totals, depth={self.depth})"

    def to_dict(self) -> dict[str, Any]:
        """Plain data: fractions as ``"p/q"`` text, with floats beside them, and a
        probability's base-10 logarithm where its float reads 0.0 and it is not 0
        (:mod:`rollbridge.odds.shares`)."""
        mean, truncated = self.mean, self.truncated
        return {
            "formula": self.formula,
            "depth": self.depth,
            "outcomes": [
                {
                    "total": v if type(v) is int else fraction_text(v),  # type: ignore[arg-type]
                    **share(p),
                }
                for v, p in self.outcomes.items()
            ],
            "mean": fraction_text(mean),
            "mean_float": float(mean),
            **share(truncated, "truncated"),
        }


def distribution(formula: str | Formula, *, explode_depth: int = DEFAULT_DEPTH) -> Distribution:
    """The exact distribution of ``formula``'s total (see ``docs/dice.md``, "Exact odds").

    :raises NotationError: invalid notation (the roller's error), or a division
        by zero that has a positive probability.
    :raises DiceLimitExceeded: past a notation limit (the roller's error), or when
        the exact computation would pass one of this package's bounds.
    :raises InvalidRequest: an explosion depth outside 0..MAX_DEPTH.
    """
    if (
        isinstance(explode_depth, bool)
        or not isinstance(explode_depth, int)
        or not (0 <= explode_depth <= MAX_DEPTH)
    ):
        raise InvalidRequest(
            BAD_DEPTH(depth=explode_depth, limit=MAX_DEPTH),
            details={"depth": repr(explode_depth), "limit": MAX_DEPTH},
        )
    if not isinstance(formula, str):
        return _computed(formula if isinstance(formula, Formula) else parse(formula), explode_depth)
    key = (_normalised(formula), explode_depth, current())
    return CACHE.cached(key, lambda: _computed(parse(formula), explode_depth))


@lru_cache(maxsize=1024)
def _normalised(formula: str) -> str:
    """The formula as :func:`parse` normalises it (``3D6+2`` → ``3d6 + 2``): as many
    entries as the parser's own cache, each a text of at most 256 characters."""
    return str(parse(formula))


#: The most distributions :data:`CACHE` keeps.
CACHE_ENTRIES = 512
#: The most bytes (by :func:`footprint`) the distributions it keeps may take together.
CACHE_BYTES = 32 * 2**20
#: The largest distribution it keeps, in bytes (by :func:`footprint`, ``3d6``: 5 KiB;
#: ``2d1000``: 0.6 MiB; ``50d6!!``: 2.8 MiB; ``8d2500``: 6.8 MiB, not kept).
CACHE_ENTRY_BYTES = 4 * 2**20

#: A bytes slot per total beside its weight: the key (an ``int``, or a ``Fraction``
#: of two small ones) and the ``Fraction`` object :attr:`Distribution.outcomes` adds.
_PER_TOTAL = 176


def footprint(totals: Distribution) -> int:
    """What ``totals`` takes in memory once its :attr:`~Distribution.outcomes` are
    built, in bytes: an estimate from its number of totals and the size of its
    denominator (every weight is at most the denominator), plus the numbers of each
    total that is a fraction (a division by a long product makes them long: they are
    measured, not assumed small), never below what it holds (tests/odds/
    test_odds_cache.py measures it)."""
    weights = totals.weights
    per_total = _PER_TOTAL + 3 * sys.getsizeof(totals.denominator)
    size = sys.getsizeof
    fractions = sum(
        size(total.numerator) + size(total.denominator)
        for total in weights
        if total.__class__ is Fraction
    )
    return 2 * sys.getsizeof(weights) + len(weights) * per_total + fractions


#: Formulas' distributions, computed once per normalised text, depth and bounds: a
#: distribution depends on nothing else (a ruleset asks the same ``1d8!!`` before
#: every roll). Bounded by entries and by bytes (:mod:`rollbridge.odds.cache`); the
#: values are shared: treat their ``weights`` as read-only.
CACHE: BoundedCache[tuple[str, int, Any], Distribution] = BoundedCache(
    entries=CACHE_ENTRIES, budget=CACHE_BYTES, largest=CACHE_ENTRY_BYTES, size=footprint
)


def clear_cache() -> None:
    """Forget every cached distribution (benchmarks measure the first computation)."""
    CACHE.clear()


def _computed(parsed: Formula, explode_depth: int) -> Distribution:
    text = str(parsed)
    law = checked(node_law(parsed.root, explode_depth, text), text)
    weights = {v: law.weights[v] for v in sorted(law.weights) if law.weights[v]}  # type: ignore[type-var]
    return Distribution(text, weights, law.denominator, explode_depth)
