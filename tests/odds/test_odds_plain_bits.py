"""A plain term of many dice of many faces is refused before the work, as the docs'
limits say, instead of running for minutes.

``rollbridge odds 999d1000`` (998,002 totals, inside the 1,000,000 of a plain term)
ran for more than a minute and took more than a gigabyte, most of it reducing a
million fractions of 3,000-digit numbers; ``300d1000`` took half a minute. The size
of the term's law in bits (its totals × the bits of F^N) is now bounded at
40,000,000 by default (docs/dice.md, "Limits and errors")."""

from __future__ import annotations

import pytest

from rollbridge.cli import main
from rollbridge.exceptions import DiceLimitExceeded
from rollbridge.odds import distribution
from rollbridge.odds.bounds import DEFAULT_BOUNDS


@pytest.mark.parametrize("formula", ["100d1000", "999d1000", "300d1000 + 1", "2 * 999d1000"])
def test_a_plain_term_past_the_bits_is_refused(formula):
    with pytest.raises(DiceLimitExceeded) as refused:
        distribution(formula)
    assert refused.value.code == "dice_limit"
    assert refused.value.message.endswith(
        "takes more than 40,000,000 bits to hold; it is not approximated"
    )
    assert refused.value.details["limit"] == 40_000_000


def test_the_cli_says_so_in_one_line(capsys):
    assert main(["odds", "999d1000"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "rollbridge: error: dice_limit: the exact distribution of '999d1000' takes more "
        "than 40,000,000 bits to hold; it is not approximated\n"
    )


@pytest.mark.parametrize(
    ("locale", "said"),
    [
        ("cs", "přesné rozdělení '999d1000' zabírá více než 40 000 000 bitů"),
        ("de", "die exakte Verteilung von '999d1000' braucht mehr als 40.000.000 Bits"),
        ("ru", "точное распределение '999d1000' занимает больше 40 000 000 бит"),
    ],
)
def test_the_refusal_names_the_term_and_the_bound_in_bits_in_each_language(capsys, locale, said):
    """Before, the bound in bits was said in steps ("needs more than 40,000,000
    steps"), which a GM took for a count of dice or outcomes to cut down."""
    assert main(["odds", "999d1000", "--locale", locale]) == 1
    err = capsys.readouterr().err.replace("\xa0", " ")  # cs and ru group with a no-break space
    assert said in err, err


@pytest.mark.parametrize(("number", "faces"), [(999, 6), (50, 1000), (1, 1_000_000)])
def test_the_documented_large_terms_are_inside(number, faces):
    """docs/dice.md names these as computed: their laws are inside the bound."""
    bits = (number * (faces - 1) + 1) * (faces**number).bit_length()
    assert bits <= DEFAULT_BOUNDS.plain_bits


def test_50d1000_is_computed_exactly():
    odds = distribution("50d1000")
    assert min(odds.outcomes) == 50 and max(odds.outcomes) == 50_000
    assert sum(odds.weights.values()) == odds.denominator == 1000**50
