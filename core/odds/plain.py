"""The exact law of ``NdF``: the sum of N fair dice of F faces, in O(N·F) steps.

The number of ways ``p_k`` for N dice to sum to ``N + k`` is the coefficient of
``x^k`` in ``P = ((1 - x^F) / (1 - x))^N``. Differentiating ``ln P`` and clearing
denominators gives ``(1 - x)(1 - x^F) P' = N (1 - x^F - F x^(F-1) (1 - x)) P``,
whose coefficients are a recurrence with three terms whatever F is::

    (k + 1) p[k+1] = (k + N) p[k] + (k + 1 - F - N F) p[k+1-F] + (N (F - 1) + F - k) p[k-F]

with ``p[0] = 1`` (the division by ``k + 1`` is exact). No convolution of N laws
and no enumeration of the F^N outcomes; the table is symmetric, so only half is
computed.
"""

from __future__ import annotations

from rollbridge.odds.bounds import DEFAULT_BOUNDS, current
from rollbridge.odds.law import Law, too_large, too_many_totals

__all__ = ["MAX_TOTALS", "plain_law", "ways"]

#: The most totals one plain term may have by default (``1d1000000`` is the largest
#: die; :mod:`rollbridge.odds.bounds`).
MAX_TOTALS = DEFAULT_BOUNDS.totals


def ways(number: int, faces: int) -> list[int]:
    """``p[k]``: the ways ``number`` dice of ``faces`` faces sum to ``number + k``."""
    span = number * (faces - 1)
    p = [0] * (span + 1)
    p[0] = 1
    half = span // 2
    nf = number * faces
    for k in range(half):
        value = (k + number) * p[k]
        j = k + 1 - faces
        if j >= 0:
            value += (j - nf) * p[j]
            if j >= 1:
                value += (number * (faces - 1) + faces - k) * p[j - 1]
        p[k + 1] = value // (k + 1)
    for k in range(half + 1, span + 1):
        p[k] = p[span - k]
    return p


def plain_law(number: int, faces: int, text: str) -> Law:
    """The law of the sum of ``number`` dice of ``faces`` faces."""
    if number == 0:
        return Law({0: 1}, 1)
    bounds = current()
    totals = number * (faces - 1) + 1
    if totals > bounds.totals:
        raise too_many_totals(text, f"{number}d{faces}", totals, bounds.totals)
    if totals * (faces**number).bit_length() > bounds.plain_bits:
        raise too_large(text, bounds.plain_bits)
    if number == 1:
        return Law(dict.fromkeys(range(1, faces + 1), 1), faces)
    counts = ways(number, faces)
    return Law({number + k: w for k, w in enumerate(counts)}, faces**number)
