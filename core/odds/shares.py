"""A probability as plain data: the exact fraction as ``"p/q"`` text and a float
beside it, with its base-10 logarithm where the float reads 0 and the probability
is not.

A float holds nothing below about 10⁻³²⁴ (and only a few digits below 10⁻³⁰⁸): the
least total of ``999d6`` (6⁻⁹⁹⁹, about 10⁻⁷⁷⁷) reads ``0.0``, as if it could not be
rolled, though its fraction is exact. Such a probability carries ``log10`` too,
computed from the fraction's whole numerator and denominator, so right to a float's
precision at any size (``-777.37…`` for that total). Only there: every other
probability's float says it well, and a reply of many totals stays as short as it
was (the server's reply limit counts its bytes).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

__all__ = ["fraction_text", "log10", "share"]


def fraction_text(value: Fraction) -> str:
    """``value`` as ``"p/q"`` text (``"1/6"``, ``"0/1"``)."""
    return f"{value.numerator}/{value.denominator}"


def log10(value: Fraction) -> float | None:
    """The base-10 logarithm of a probability ``value``, from its exact fraction;
    None where ``value`` is 0 (or less: no probability)."""
    if value <= 0:
        return None
    return math.log10(value.numerator) - math.log10(value.denominator)


def share(value: Fraction, name: str = "") -> dict[str, Any]:
    """The fields of a probability ``value`` in plain data: ``{name}`` (or
    ``probability`` without a name) the fraction as text, ``{name}_float`` (or
    ``float``) the float, and ``{name}_log10`` (or ``log10``) its logarithm
    (:func:`log10`) where that float is 0.0 and ``value`` is not."""
    key = name or "probability"
    prefix = f"{name}_" if name else ""
    shown = float(value)
    fields: dict[str, Any] = {key: fraction_text(value), f"{prefix}float": shown}
    if shown == 0.0 and value > 0:
        fields[f"{prefix}log10"] = log10(value)
    return fields
