"""The real roller's totals follow the computed distribution (chi-square, fixed seed).

Seeded so the test is deterministic; the bound p > 0.001 is what it asserts. The
p-value comes from scipy when it is installed; otherwise the statistic is
compared with the 0.001 critical value (Wilson–Hilferty, accurate to well under
1% at these degrees of freedom).
"""

from __future__ import annotations

import math

import pytest

from rollbridge.dice import SeededDice, parse, roll_formula
from rollbridge.odds import distribution

ROLLS = 20_000
SEED = 18
FORMULAS = [
    "3d6",
    "4d6kh3",
    "2d20kl1",
    "2d6 - 1d4",
    "6d6cs>=5",
    "floor(1d6 / 2) + 1d4",
    "3d6x",
    "2d6!!",
    "4d6r<3kh3",
    "5d10x>=9cs>=8",
    "3d4rr + 1d6xo",
    "5d6r1=1",
    "6d6r2<3cs>=5",
]


def _bins(expected: list[float], observed: list[int]) -> tuple[list[float], list[int]]:
    """Adjacent outcomes merged until each bin expects at least 5 rolls."""
    e_bins: list[float] = []
    o_bins: list[int] = []
    e_acc, o_acc = 0.0, 0
    for e, o in zip(expected, observed, strict=True):
        e_acc += e
        o_acc += o
        if e_acc >= 5:
            e_bins.append(e_acc)
            o_bins.append(o_acc)
            e_acc, o_acc = 0.0, 0
    if e_bins:
        e_bins[-1] += e_acc
        o_bins[-1] += o_acc
    return e_bins, o_bins


def _critical_001(dof: int) -> float:
    z = 3.090232306167813  # the standard normal's 0.999 quantile
    return dof * (1 - 2 / (9 * dof) + z * math.sqrt(2 / (9 * dof))) ** 3


@pytest.mark.parametrize("formula", FORMULAS)
def test_roller_matches_distribution(formula):
    odds = distribution(formula)
    outcomes = list(odds.outcomes)
    index = {v: i for i, v in enumerate(outcomes)}
    observed = [0] * (len(outcomes) + 1)  # the last: beyond the depth
    source = SeededDice(SEED, limit=10**9)
    parsed = parse(formula)
    for _ in range(ROLLS):
        total = roll_formula(parsed, source).total
        observed[index.get(total, len(outcomes))] += 1
    expected = [float(odds.outcomes[v]) * ROLLS for v in outcomes]
    expected.append(float(odds.truncated) * ROLLS)
    assert observed[-1] <= max(5, 10 * expected[-1])  # what fell outside is the cut-off
    e_bins, o_bins = _bins(expected, observed)
    statistic = sum((o - e) ** 2 / e for e, o in zip(e_bins, o_bins, strict=True))
    dof = len(e_bins) - 1
    assert dof >= 1
    try:
        from scipy.stats import chi2
    except ImportError:
        assert statistic < _critical_001(dof)
    else:
        assert chi2.sf(statistic, dof) > 0.001
        assert (statistic < _critical_001(dof)) == (chi2.sf(statistic, dof) > 0.001)
