"""WD-2/WD-3 statistics: a player character's d8 + wild d6 against 4 succeeds 13/16.

P(success) = 1 − P(d8 < 4) · P(d6 < 4) = 1 − (3/8)(3/6) = 13/16: an ace is
always above 4, so only the first roll of each die matters below 4. The
exact value is computed by enumerating each acing die's distribution, and a
seeded simulation through the ruleset is compared with it. The simulation
is seeded, so its result is fixed; the tolerance is still ≥ 5 standard
errors so that another seed would not flake.
"""

from __future__ import annotations

import math
from fractions import Fraction

from rollbridge import ActionContext, Actor
from rollbridge.dice import SeededDice
from rollbridge.plugins.wilddie import WildDieRuleset

SAMPLES = 20_000
ATTRS = ("strength", "vigor", "coordination", "reaction", "intuition", "character")
SEED = 20240604


def p_ace_at_least(faces: int, target: int) -> Fraction:
    """Exact P(an acing d``faces`` totals ≥ ``target``), by enumerating the first roll.

    A roll below the maximum ends the die; the maximum adds ``faces`` and the
    die goes on, so P(V ≥ t) = Σ_{r<faces} [r ≥ t]/faces + P(V ≥ t − faces)/faces.
    """
    if target <= 1:
        return Fraction(1)
    stop = sum(Fraction(1, faces) for r in range(1, faces) if r >= target)
    return stop + Fraction(1, faces) * p_ace_at_least(faces, target - faces)


def p_wild_success(trait_faces: int, difficulty: int) -> Fraction:
    """Exact P(max(trait die, wild d6) ≥ difficulty), the two dice independent."""
    fail = (1 - p_ace_at_least(trait_faces, difficulty)) * (1 - p_ace_at_least(6, difficulty))
    return 1 - fail


def test_exact_enumeration_is_13_16():
    assert p_ace_at_least(8, 4) == Fraction(5, 8)
    assert p_ace_at_least(6, 4) == Fraction(1, 2)
    assert p_wild_success(8, 4) == Fraction(13, 16)
    # the enumeration also knows aces: a d6 reaches 7 or more only by acing (1/6)
    assert p_ace_at_least(6, 7) == Fraction(1, 6)
    assert p_ace_at_least(6, 12) == Fraction(1, 36)
    # brute force over two levels of rolls agrees with the recursion for d6 ≥ 8
    brute = Fraction(0)
    for first in range(1, 7):
        if first < 6:
            brute += Fraction(1, 6) * (first >= 8)
            continue
        for second in range(1, 7):
            if second < 6:
                brute += Fraction(1, 36) * (6 + second >= 8)
            else:
                brute += Fraction(1, 36)  # 12 or more
    assert brute == p_ace_at_least(6, 8)


def test_seeded_simulation_of_d8_plus_wild_d6_against_4():
    ruleset = WildDieRuleset()
    sheet = ruleset.validate_sheet(
        {"kind": "pc", "attributes": {a: "d6" for a in ATTRS}, "skills": {"notice": "d8"}}
    )
    actor = Actor("ana", "Ana", sheet, ruleset.initial_state(sheet))
    dice = SeededDice(SEED, limit=SAMPLES * 10)
    params = {"trait": "notice", "difficulty": 4, "modifiers": []}
    hits = 0
    for _ in range(SAMPLES):
        res = ruleset.resolve(ActionContext("trait", params, actor=actor), dice)
        hits += res.outcome["success"]
    p = float(p_wild_success(8, 4))  # = 13/16, checked above
    sigma = math.sqrt(p * (1 - p) / SAMPLES)
    tolerance = 6 * sigma  # ≈ 0.017 at 20,000 samples
    assert abs(hits / SAMPLES - p) < tolerance, (hits / SAMPLES, p, tolerance)
