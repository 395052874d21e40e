"""Exact laws: integer weights over a common denominator, and their convolution.

A :class:`Law` holds ``weights`` (outcome → a non-negative ``int``) and a
``denominator``: the probability of an outcome is ``weight / denominator``. The
weights may sum to less than the denominator; the difference is the probability
cut off by an explosion depth (reported as ``truncated``, never dropped).
Keeping integers over one denominator, rather than a ``Fraction`` per outcome,
makes a convolution integer multiplications only; large integer-keyed
convolutions pack each law into one big integer (Kronecker substitution), so the
multiplication runs inside CPython's big-integer arithmetic.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from fractions import Fraction
from math import comb, lcm

from rollbridge.exceptions import DiceLimitExceeded
from rollbridge.odds.bounds import DEFAULT_BOUNDS, current
from rollbridge.text import Messages

__all__ = [
    "MAX_BITS",
    "MAX_PAIRS",
    "Law",
    "Value",
    "as_key",
    "combine",
    "convolve",
    "from_fractions",
    "point",
    "power",
    "too_large",
    "too_many_kept",
    "too_many_pairs",
    "too_many_totals",
    "too_wide",
]

#: The most outcome pairs one combination of two laws may visit (``*``, ``/``), by
#: default (:mod:`rollbridge.odds.bounds`).
MAX_PAIRS = DEFAULT_BOUNDS.pairs
#: The largest packed law one convolution may build, in bits (span × weight size), by
#: default: about half a second of big-integer multiplication (``50d6!!``).
MAX_BITS = DEFAULT_BOUNDS.bits

say = Messages("rollbridge")
# Translators: {formula} is the formula's dice term, quoted ('2d1000000'); {totals}
# how many different totals it can roll (more than {limit}). Said to a player: what to
# ask instead ends it.
TOO_MANY_TOTALS = say(
    "odds.totals_past",
    "{formula} can roll {totals:,} different totals, and exact odds are worked out for "
    "at most {limit:,} (they are not approximated): ask for fewer dice or fewer faces",
)
# Translators: {formula} is the formula, quoted; {limit} how many pairs of totals (one
# of each side of a *, / or a sum of fractions) are weighed at most.
TOO_MANY_PAIRS = say(
    "odds.pairs_past",
    "{formula} combines two parts whose totals make more than {limit:,} pairs to weigh, "
    "and exact odds are worked out for no more (they are not approximated): ask for "
    "fewer dice or fewer faces on either side",
)
# Translators: {formula} is the formula, quoted; {limit} how many arrangements of the
# kept dice (kh, kl, dh, dl) are counted at most.
TOO_MANY_KEPT = say(
    "odds.kept_past",
    "the dice {formula} keeps have more than {limit:,} arrangements to count, and exact "
    "odds are worked out for no more (they are not approximated): ask for fewer dice, "
    "fewer faces or fewer dice kept",
)
# Translators: {formula} is the formula, quoted; {limit} a number of bits (binary
# digits: the size of the law's exact numbers in memory).
TOO_LARGE = say(
    "odds.too_many_bits",
    "the exact distribution of {formula} takes more than {limit:,} bits to hold; it is "
    "not approximated",
)

# Translators: {formula} is the formula, quoted; {limit} a number of bits (binary
# digits). The law of a sum of dice is built as one big number; the user can make it
# smaller with fewer dice or faces, or a lower explosion depth (rollbridge odds --depth).
TOO_WIDE = say(
    "odds.too_wide",
    "the exact distribution of {formula} takes more than {limit:,} bits to add up its "
    "dice; it is not approximated (fewer dice or faces make it smaller, as does a lower "
    "explosion depth where the formula explodes)",
)

Value = int | Fraction


@dataclass(frozen=True, slots=True)
class Law:
    """Weights over a denominator; see the module docstring."""

    weights: dict[Value, int]
    denominator: int

    @property
    def mass(self) -> int:
        """The total weight of the outcomes (≤ the denominator)."""
        return sum(self.weights.values())

    def map(self, function: Callable[[Value], Value]) -> Law:
        """The law of ``function(outcome)``."""
        out: dict[Value, int] = {}
        for value, weight in self.weights.items():
            key = function(value)
            out[key] = out.get(key, 0) + weight
        return Law(out, self.denominator)


def point(value: Value) -> Law:
    """A certain outcome."""
    return Law({value: 1}, 1)


def too_many_totals(text: str, term: str, totals: int, limit: int) -> DiceLimitExceeded:
    """The error for a plain ``NdF`` term of more than ``limit`` totals: it names the
    term, whose totals they are (those of ``2d1000000 + 1d6`` are others)."""
    return DiceLimitExceeded(
        TOO_MANY_TOTALS(formula=repr(term), totals=totals, limit=limit),
        details={"formula": text, "term": term, "totals": totals, "limit": limit},
    )


def too_many_pairs(text: str, limit: int) -> DiceLimitExceeded:
    """The error for a combination of two laws past ``limit`` pairs of outcomes."""
    return DiceLimitExceeded(
        TOO_MANY_PAIRS(formula=repr(text), limit=limit), details={"formula": text, "limit": limit}
    )


def too_many_kept(text: str, limit: int) -> DiceLimitExceeded:
    """The error for a kept block whose order-statistics walk passes ``limit`` steps."""
    return DiceLimitExceeded(
        TOO_MANY_KEPT(formula=repr(text), limit=limit), details={"formula": text, "limit": limit}
    )


def too_large(text: str, limit: int) -> DiceLimitExceeded:
    """The error for a law past a bound on its size in bits (``plain_bits``)."""
    return DiceLimitExceeded(
        TOO_LARGE(formula=repr(text), limit=limit), details={"formula": text, "limit": limit}
    )


def too_wide(text: str, limit: int) -> DiceLimitExceeded:
    """The error for a sum of dice whose packed law would pass the ``bits`` bound."""
    return DiceLimitExceeded(
        TOO_WIDE(formula=repr(text), limit=limit), details={"formula": text, "limit": limit}
    )


def _packed(weights: dict[int, int], low: int, span: int, width: int) -> int:
    buffer = bytearray(span * width)
    for value, weight in weights.items():
        at = (value - low) * width
        buffer[at : at + width] = weight.to_bytes(width, "little")
    return int.from_bytes(buffer, "little")


def _kronecker(a: dict[int, int], b: dict[int, int], text: str) -> dict[int, int]:
    """The convolution (sum of outcomes) of two integer-keyed weight maps."""
    a_low, a_high, b_low, b_high = min(a), max(a), min(b), max(b)
    a_span, b_span = a_high - a_low + 1, b_high - b_low + 1
    bits = (
        max(a.values()).bit_length()
        + max(b.values()).bit_length()
        + min(len(a), len(b)).bit_length()
    )
    width = bits // 8 + 1
    span = a_span + b_span - 1
    limit = current().bits
    if span * width * 8 > limit:
        raise too_wide(text, limit)
    packed = _packed(a, a_low, a_span, width)
    product = packed * packed if a is b else packed * _packed(b, b_low, b_span, width)
    raw = product.to_bytes(span * width, "little")
    low = a_low + b_low
    out: dict[int, int] = {}
    from_bytes = int.from_bytes
    for index in range(span):
        weight = from_bytes(raw[index * width : (index + 1) * width], "little")
        if weight:
            out[low + index] = weight
    return out


def convolve(a: Law, b: Law, text: str) -> Law:
    """The law of the sum of two independent outcomes."""
    if len(a.weights) * len(b.weights) > 4096 and all(
        type(v) is int for law in (a, b) for v in law.weights
    ):
        weights = _kronecker(a.weights, b.weights, text)  # type: ignore[arg-type]
        return Law(weights, a.denominator * b.denominator)  # type: ignore[arg-type]
    return combine(a, b, _add, text)


def _add(x: Value, y: Value) -> Value:
    return x + y


def combine(a: Law, b: Law, operation: Callable[[Value, Value], Value], text: str) -> Law:
    """The law of ``operation(x, y)`` for independent ``x`` of ``a`` and ``y`` of ``b``."""
    limit = current().pairs
    if len(a.weights) * len(b.weights) > limit:
        raise too_many_pairs(text, limit)
    out: dict[Value, int] = {}
    get = out.get
    for x, wx in a.weights.items():
        for y, wy in b.weights.items():
            key = operation(x, y)
            out[key] = get(key, 0) + wx * wy
    return Law(out, a.denominator * b.denominator)


def power(law: Law, count: int, text: str) -> Law:
    """The law of the sum of ``count`` independent outcomes of ``law``."""
    if count == 0:
        return point(0)
    support = sorted(law.weights)  # type: ignore[type-var]
    if len(support) == 2:  # binomial: two outcomes (counted successes)
        low, high = support
        wl, wh = law.weights[low], law.weights[high]
        weights: dict[Value, int] = {
            low * (count - k) + high * k: comb(count, k) * wh**k * wl ** (count - k)
            for k in range(count + 1)
        }
        return Law(weights, law.denominator**count)
    # the last product dominates: refuse before starting what would pass the bound
    span = count * (max(support) - min(support)) + 1  # type: ignore[operator]
    limit = current().bits
    if span * count * law.denominator.bit_length() > limit:
        raise too_wide(text, limit)
    result = law
    for bit in bin(count)[3:]:  # left to right: squares, and a cheap multiply by law
        result = convolve(result, result, text)
        if bit == "1":
            result = convolve(result, law, text)
    return result


def as_key(value: Value) -> Value:
    """An integral Fraction as an ``int`` (the roller gives ints when integral)."""
    if type(value) is Fraction and value.denominator == 1:
        return int(value)
    return value


def from_fractions(law: dict[Hashable, Fraction]) -> Law:
    """A law of Fraction probabilities as weights over their common denominator."""
    denominator = lcm(*(p.denominator for p in law.values())) if law else 1
    return Law(
        {k: int(p * denominator) for k, p in law.items() if p},  # type: ignore[misc]
        denominator,
    )
