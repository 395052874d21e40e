"""SR-1/SR-2: the chance that one open-ended d6 succeeds at TN 2 to 13,
against exact values, as a seeded statistical check.

Exact: P(TN t) = (7 − t)/6 for 2 ≤ t ≤ 6; past 6 a die must show 6 and the
reroll must reach t − 6, so P(t) = P(t − 6)/6 with P(t ≤ 1) = 1. Hence TN 6
and TN 7 are both 1/6 (a 6 followed by anything reaches 7) and TN 12 and 13
are both 1/36.

The check is deterministic (fixed seed) and its tolerance is five standard
errors of the estimate, so a different seed would pass too: about one chance
in 1.7 million per TN of a false alarm.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from rollbridge.dice import SeededDice
from rollbridge.plugins.sr2.rolls import roll_test

SAMPLES = 120_000
SEED = 20_260_000


def exact(tn: int) -> Fraction:
    if tn <= 1:
        return Fraction(1)
    if tn <= 6:
        return Fraction(7 - tn, 6)
    return exact(tn - 6) / 6


def test_exact_values_are_as_the_issue_says():
    assert exact(6) == exact(7) == Fraction(1, 6)
    assert exact(12) == exact(13) == Fraction(1, 36)
    assert exact(2) == Fraction(5, 6)
    assert exact(8) == Fraction(5, 36)


@pytest.mark.parametrize("tn", range(2, 14))
def test_single_die_success_probability(tn):
    """SAMPLES open-ended dice from the plugin's roller, counted at ``tn``."""
    hits = roll_test(SeededDice(SEED, limit=10**6), SAMPLES, tn).successes
    p = float(exact(tn))
    sigma = math.sqrt(p * (1 - p) / SAMPLES)
    assert abs(hits / SAMPLES - p) <= 5 * sigma, (tn, hits / SAMPLES, p)


def test_tolerance_separates_neighbouring_tns():
    """The check could fail: 5 sigma at TN 7 is far below the gap to TN 8."""
    p7, p8 = float(exact(7)), float(exact(8))
    sigma = math.sqrt(p7 * (1 - p7) / SAMPLES)
    assert 5 * sigma < (p7 - p8) / 3


def test_through_the_success_test_action(kit):
    """The success_test action agrees too: 200 tests of 100 dice at TN 7."""
    dice = SeededDice(SEED, limit=10**6)
    hits = sum(
        kit.resolve("success_test", {"dice": 100, "tn": 7}, dice=dice).outcome["successes"]
        for _ in range(200)
    )
    n = 200 * 100
    p = float(exact(7))
    assert abs(hits / n - p) <= 5 * math.sqrt(p * (1 - p) / n)
