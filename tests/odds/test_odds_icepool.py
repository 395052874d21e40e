"""Exact equality with icepool (a test dependency, never used at run time).

icepool's ``explode(depth=D)`` rolls at most D extra dice and lets the last one
stand whatever it shows; rollbridge's depth d counts the rolls of d explosions
as exact and reports the rest as ``truncated``. So for one die, rollbridge at
depth d equals icepool at depth d + 1 on every total up to ``F·(d + 1) - 1``,
and icepool's mass above that is rollbridge's ``truncated``. For several dice,
each icepool die is mapped past that point to a sentinel larger than any total
(``_line``), and the totals below the sentinel must match exactly while the mass
at or above it is the truncated mass.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from rollbridge.odds import distribution

icepool = pytest.importorskip("icepool")
d = icepool.d
SENTINEL = 10**9


def fractions(die) -> dict[int, Fraction]:
    denominator = die.denominator()
    return {o: Fraction(q, denominator) for o, q in die.items() if q}


def _line(faces: int, depth: int):
    """One exploding die of icepool cut like rollbridge's depth ``depth``."""
    cut = faces * (depth + 1) - 1
    return d(faces).explode(depth=depth + 1).map(lambda o: o if o <= cut else SENTINEL)


def _split(die) -> tuple[dict[int, Fraction], Fraction]:
    law = fractions(die)
    kept = {o: p for o, p in law.items() if o < SENTINEL // 2}
    return kept, sum((p for o, p in law.items() if o >= SENTINEL // 2), Fraction(0))


GRID = [
    ("1d20", lambda: d(20)),
    ("3d6", lambda: 3 @ d(6)),
    ("10d10", lambda: 10 @ d(10)),
    ("1d100", lambda: d(100)),
    ("4d6kh3", lambda: d(6).pool(4).highest(3).sum()),
    ("2d20kh1", lambda: d(20).pool(2).highest(1).sum()),
    ("2d20kl1", lambda: d(20).pool(2).lowest(1).sum()),
    ("4d6dl1", lambda: d(6).pool(4).highest(3).sum()),
    ("5d10dh2", lambda: d(10).pool(5).lowest(3).sum()),
    ("8d6kh3kl2", lambda: d(6).pool(8).highest(3).lowest(2).sum()),
    ("40d10kh5", lambda: d(10).pool(40).highest(5).sum()),
    ("3d6 + 5", lambda: 3 @ d(6) + 5),
    ("2d6 - 1d4", lambda: 2 @ d(6) - d(4)),
    ("-1d8 + 2d4 * 3", lambda: -d(8) + (2 @ d(4)) * 3),
    ("6d6cs>=5", lambda: 6 @ (d(6) >= 5)),
    ("10d10cs>8", lambda: 10 @ (d(10) > 8)),
    ("8d6cf<3", lambda: 8 @ (d(6) < 3)),
    ("floor(1d6 / 2)", lambda: d(6) // 2),
    ("abs(1d6 - 1d6)", lambda: abs(d(6) - d(6))),
    ("4d6min2", lambda: 4 @ d(6).map(lambda o: max(o, 2))),
    ("1d20r1", lambda: d(20).reroll([1], depth=1)),
    ("2d20kh1 + 1d4 + 3", lambda: d(20).pool(2).highest(1).sum() + d(4) + 3),
]


@pytest.mark.parametrize(("formula", "reference"), GRID, ids=[f for f, _ in GRID])
def test_equal_fractions(formula, reference):
    odds = distribution(formula)
    assert odds.truncated == 0
    assert odds.outcomes == fractions(reference())


EXPLODING = [
    ("1d6x", 6, 1),
    ("1d6!!", 6, 1),
    ("3d6x", 6, 3),
    ("3d6!!", 6, 3),
    ("2d10x", 10, 2),
    ("5d6!!", 6, 5),
]


@pytest.mark.parametrize("depth", [0, 1, 3, 10])
@pytest.mark.parametrize(("formula", "faces", "number"), EXPLODING, ids=[e[0] for e in EXPLODING])
def test_explosions_match_icepool_one_deeper(formula, faces, number, depth):
    kept, beyond = _split(number @ _line(faces, depth))
    odds = distribution(formula, explode_depth=depth)
    assert odds.outcomes == kept
    assert odds.truncated == beyond


@pytest.mark.parametrize("depth", [0, 2, 10])
@pytest.mark.parametrize(
    ("formula", "number", "keep"), [("3d6!!kh2", 3, 2), ("4d6!!dl1", 4, 3), ("2d10!!kh1", 2, 1)]
)
def test_keeping_the_highest_compounding_dice(formula, number, keep, depth):
    """A cut die is the sentinel, the highest, so it is always kept: the mass at
    or above the sentinel is again the truncated mass."""
    faces = int(formula.split("d")[1].split("!")[0])
    reference = _line(faces, depth).pool(number).highest(keep).sum()
    kept, beyond = _split(reference)
    odds = distribution(formula, explode_depth=depth)
    assert odds.outcomes == kept
    assert odds.truncated == beyond


def test_one_die_needs_no_sentinel():
    depth = 4
    reference = fractions(d(6).explode(depth=depth + 1))
    odds = distribution("1d6!!", explode_depth=depth)
    cut = 6 * (depth + 1) - 1
    assert odds.outcomes == {o: p for o, p in reference.items() if o <= cut}
    assert odds.truncated == sum(p for o, p in reference.items() if o > cut)


def _built_line(faces: int, explodes, score, depth: int):
    """A line of explosions built from icepool's ``map``: a die meeting the
    condition adds its score to a fresh line one shorter; past the depth, the
    sentinel."""
    line = d(faces).map(lambda o: SENTINEL if explodes(o) else score(o))
    for _ in range(depth):
        line = d(faces).map(_extend(line, explodes, score))
    return line


def _extend(previous, explodes, score):
    def step(o):
        return score(o) + previous if explodes(o) else score(o)

    return step


@pytest.mark.parametrize("depth", [0, 2, 5])
@pytest.mark.parametrize(
    ("formula", "faces", "number", "explodes", "score"),
    [
        ("1d10x>=9", 10, 1, lambda o: o >= 9, lambda o: o),
        ("3d10x>=9", 10, 3, lambda o: o >= 9, lambda o: o),
        ("4d10x>=8cs>=8", 10, 4, lambda o: o >= 8, lambda o: int(o >= 8)),
        ("3d6x<2", 6, 3, lambda o: o < 2, lambda o: o),
        ("2d6xcf", 6, 2, lambda o: o == 6, lambda o: int(o == 1)),
    ],
    ids=["1d10x>=9", "3d10x>=9", "4d10x>=8cs>=8", "3d6x<2", "2d6xcf"],
)
def test_explosions_on_a_condition(formula, faces, number, explodes, score, depth):
    kept, beyond = _split(number @ _built_line(faces, explodes, score, depth))
    odds = distribution(formula, explode_depth=depth)
    assert odds.outcomes == kept
    assert odds.truncated == beyond
