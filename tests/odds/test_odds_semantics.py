"""The exact distribution against the real roller, enumerated die by die.

For formulas whose rolls always stop, every sequence of die results the roller
can draw is enumerated (a source that hands out a given prefix and asks for more),
each weighted by its probability; the totals ``roll_formula`` gives must have
exactly the probabilities :func:`distribution` computes.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

import pytest

from rollbridge.dice import roll_formula
from rollbridge.dice.sources import DiceSource
from rollbridge.exceptions import DiceLimitExceeded, InvalidRequest, NotationError
from rollbridge.odds import DEFAULT_DEPTH, Distribution, distribution


class _More(Exception):
    def __init__(self, faces: int) -> None:
        self.faces = faces


class _Prefix(DiceSource):
    """Hands out ``prefix``, then asks (raises) for the next die's faces."""

    def __init__(self, prefix: list[int]) -> None:
        super().__init__()
        self.prefix = prefix
        self.faces: list[int] = []

    def _draw(self, faces: int) -> int:
        index = len(self.faces)
        if index >= len(self.prefix):
            raise _More(faces)
        self.faces.append(faces)
        return self.prefix[index]


def enumerate_rolls(formula: str, max_draws: int = 12) -> tuple[dict[Fraction, Fraction], Fraction]:
    """Every total the roller gives with its exact probability, and the mass of
    the sequences longer than ``max_draws`` (not followed)."""
    totals: dict[Fraction, Fraction] = defaultdict(Fraction)
    cut = Fraction(0)
    stack: list[tuple[list[int], Fraction]] = [([], Fraction(1))]
    while stack:
        prefix, p = stack.pop()
        source = _Prefix(prefix)
        try:
            result = roll_formula(formula, source)
        except _More as more:
            if len(prefix) >= max_draws:
                cut += p
                continue
            q = p / more.faces
            stack.extend(([*prefix, v], q) for v in range(1, more.faces + 1))
            continue
        totals[Fraction(result.total).limit_denominator(10_000)] += p
    return dict(totals), cut


def exact(odds: Distribution) -> dict[Fraction, Fraction]:
    return {Fraction(v): p for v, p in odds.outcomes.items()}


ENUMERATED = [
    "1d6",
    "3d4",
    "0d6",
    "4d4kh3",
    "4d4k3",
    "3d6kl1",
    "4d4dl1",
    "4d4dh1",
    "5d3dh1dl1",
    "5d3kh4kl2",
    "4d3kh3dl1",
    "3d4k0",
    "3d4dl5",
    "3d4r",
    "3d4r<3",
    "2d6r>=5",
    "3d4xo",
    "2d4xo>=3",
    "2d4min2",
    "3d4max2",
    "3d4min2max3",
    "4d4r1kh3",
    "4d4kh3min2",
    "4d4min2kh3",
    "3d4cs>=3",
    "3d4cs",
    "3d4cf",
    "4d4cf<3",
    "4d4kh2cs>=3",
    "3d4r<2cs>=3",
    "2d4xocs>=4",
    "2d4xomin2",
    "2d4rmax3",
    "2d4r4min2r<3",
    "3d4r1=1",
    "3d3min2max2r2<3",
    "4d3r2<3",
    "3d4r1<3cs>=3",
    "3d4min2r1<3",
    "2d4r0=1",
    "3d4r5=2",
    "4d3r2=1cf",
    "1d6 + 1d4 - 2",
    "-1d4 * 2",
    "2 * -1d4 + 3",
    "1d4 * 1d4",
    "1d6 / 2",
    "1d6 / 1d3",
    "floor(1d6 / 4)",
    "ceil(1d6 / 4)",
    "round(1d6 / 4)",
    "round(-1d6 / 2)",
    "abs(1d6 - 1d6)",
    "floor((1d4 - 3) / 2) * 3",
    "(1d3 + 1) * (1d2 - 3)",
]


@pytest.mark.parametrize("formula", ENUMERATED)
def test_matches_every_roll(formula):
    totals, cut = enumerate_rolls(formula)
    assert cut == 0
    odds = distribution(formula)
    assert odds.truncated == 0
    assert exact(odds) == totals


@pytest.mark.parametrize(
    "formula", ["1d4x", "1d3x>=2", "1d4!!", "1d4!!>=3", "1d3!!r1", "1d4xmin2", "1d4xcs>=2"]
)
@pytest.mark.parametrize("depth", [0, 1, 3])
def test_single_die_explosions_match_the_roller_up_to_the_depth(formula, depth):
    """One die: a line of explosions of ``depth`` dice is ``depth + 1`` draws."""
    draws = depth + 1 + (1 if "r1" in formula else 0)
    totals, cut = enumerate_rolls(formula, max_draws=draws)
    odds = distribution(formula, explode_depth=depth)
    if "r1" not in formula:
        assert odds.truncated == cut
        assert exact(odds) == totals
    else:
        assert sum(odds.outcomes.values()) + odds.truncated == 1


@pytest.mark.parametrize("depth", [0, 1, 2, 5, 10])
def test_truncated_mass_of_an_explosion(depth):
    assert distribution("1d6x", explode_depth=depth).truncated == Fraction(1, 6) ** (depth + 1)
    assert distribution("1d6!!", explode_depth=depth).truncated == Fraction(1, 6) ** (depth + 1)
    assert distribution("1d10x>=9", explode_depth=depth).truncated == Fraction(1, 5) ** (depth + 1)
    three = 1 - (1 - Fraction(1, 6) ** (depth + 1)) ** 3
    assert distribution("3d6!!", explode_depth=depth).truncated == three
    assert distribution("3d6x + 2", explode_depth=depth).truncated == three


def test_outcomes_and_truncated_mass_sum_to_one():
    for formula in ("5d6x", "4d6!!kh3", "3d10x>=8cs>=8", "2d6rr", "6d6!!cs>=6", "1d8!!rr<3"):
        odds = distribution(formula, explode_depth=4)
        assert sum(odds.outcomes.values()) + odds.truncated == 1


def test_recursive_reroll_is_exact_without_a_cut():
    odds = distribution("1d6rr<3")
    assert odds.truncated == 0
    assert odds.outcomes == {v: Fraction(1, 4) for v in (3, 4, 5, 6)}


def test_distribution_api():
    odds = distribution("2d6")
    assert odds.formula == "2d6"
    assert odds[7] == Fraction(1, 6)
    assert odds[13] == 0
    assert odds.mean == 7
    assert odds.at_least(11) == Fraction(3, 36)
    assert odds.at_most(3) == Fraction(3, 36)
    assert list(odds.outcomes) == sorted(odds.outcomes)
    data = odds.to_dict()
    assert data["outcomes"][0] == {"total": 2, "probability": "1/36", "float": 1 / 36}
    assert data["mean"] == "7/1" and data["truncated"] == "0/1"
    assert distribution("1d4 / 2").to_dict()["outcomes"][0]["total"] == "1/2"
    assert distribution("d6", explode_depth=DEFAULT_DEPTH).formula == "1d6"


def test_keep_highest_of_many_dice_is_fast_and_exact():
    odds = distribution("999d6kh1")
    assert odds[6] == 1 - Fraction(5, 6) ** 999
    odds = distribution("40d10kh5")
    assert odds[50] == sum(
        Fraction(__import__("math").comb(40, k) * 9 ** (40 - k), 10**40) for k in range(5, 41)
    )


@pytest.mark.parametrize(
    ("formula", "error"),
    [
        ("3d", NotationError),
        ("2d6df", NotationError),
        ("1d6x>=1", NotationError),
        ("1d6!", NotationError),
        ("1000d6", DiceLimitExceeded),
        ("1d6" + "+1" * 200, DiceLimitExceeded),
        (17, NotationError),
    ],
)
def test_bad_formulas_raise_the_rollers_errors(formula, error):
    with pytest.raises(error) as computed:
        distribution(formula)
    with pytest.raises(error) as rolled:
        roll_formula(formula, _Prefix([]))
    assert computed.value.code == rolled.value.code
    assert str(computed.value) == str(rolled.value)


def test_division_by_zero_of_positive_probability():
    with pytest.raises(NotationError, match="divides by zero"):
        distribution("1 / (1d2 - 1)")
    assert distribution("1 / (1d2 + 1)").outcomes == {
        Fraction(1, 2): Fraction(1, 2),
        Fraction(1, 3): Fraction(1, 2),
    }


def test_beyond_64_bits():
    with pytest.raises(DiceLimitExceeded, match="64-bit"):
        distribution("1000000000 * 1000000000 * 1000000000 * 1d6")


@pytest.mark.parametrize(
    "formula",
    [
        "4d6x2=6",
        "5d6r1=1kh3",
        "2d6xr1=1",
        "3d3rr2<3",
        "3d6r<2r1=1",
        "4d6xkh3",
        "4d6kh3r1",
        "2d6xkl1",
        "3d6xo1=6",
    ],
)
def test_what_is_not_computed_is_refused(formula):
    try:
        from rollbridge.dice import parse

        parse(formula)
    except NotationError:
        pytest.skip("not notation")
    with pytest.raises(DiceLimitExceeded, match="not computed"):
        distribution(formula)


def test_too_costly_is_refused_not_approximated():
    with pytest.raises(DiceLimitExceeded, match="not approximated"):
        distribution("999d6dl1")


@pytest.mark.parametrize("depth", [-1, 101, "3", True, 1.5])
def test_bad_depth(depth):
    with pytest.raises(InvalidRequest):
        distribution("1d6x", explode_depth=depth)
