"""A Foundry dice pool (``{1d6!!, 1d6!!}kh-6``) is refused with what to type instead.

wilddie's dice group shows a wild die test as ``{1d6!!, 1d6!!}kh-6`` (Foundry's
notation, docs/rulesets/wilddie.md), and a player who typed it into ``rollbridge
roll`` or ``rollbridge odds`` was told only ``unexpected '{' (at character 1)``.
rollbridge's notation has no pools; a pool of dice of one kind is one term here,
and the refusal now gives that formula, and for any other pool what rolls it."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest

from rollbridge.cli import main
from rollbridge.dice import ScriptedDice, parse, roll_formula
from rollbridge.exceptions import NotationError
from rollbridge.odds import distribution

pytestmark = pytest.mark.usefixtures("english_without_stores")


@pytest.mark.parametrize(
    ("written", "pool", "instead", "index"),
    [
        ("{1d6!!, 1d6!!}kh-6", "{1d6!!, 1d6!!}kh", "2d6!!kh1 - 6", 0),
        ("{1d20, 1d20}kl + 3", "{1d20, 1d20}kl", "2d20kl1 + 3", 0),
        ("{d6!!,d6!!,d6!!}K2", "{d6!!,d6!!,d6!!}K2", "3d6!!kh2", 0),
        ("2 * {1d10!!>=9, 1d10!!>=9}kh", "{1d10!!>=9, 1d10!!>=9}kh", "2 * 2d10!!>=9kh1", 4),
        # Foundry's own explosion (Savage Worlds systems write a wild die test so): a
        # pool keeps its parts' totals, and one die's explosions total as it compounds
        ("{1d6x, 1d6x}kh-6", "{1d6x, 1d6x}kh", "2d6!!kh1 - 6", 0),
        ("{1d10x>=9, 1d10X>=9}kh", "{1d10x>=9, 1d10X>=9}kh", "2d10!!>=9kh1", 0),
        # nothing kept: Foundry sums the parts' totals
        ("{1d8, 1d6}", "{1d8, 1d6}", "(1d8 + 1d6)", 0),
        ("{2d6, 1d8x} + 1", "{2d6, 1d8x}", "(2d6 + 1d8x) + 1", 0),
    ],
)
def test_a_pool_of_one_kind_of_die_names_the_term_to_type(written, pool, instead, index):
    with pytest.raises(NotationError) as refused:
        parse(written)
    assert refused.value.code == "invalid_notation"
    assert refused.value.details == {"formula": written, "index": index}
    assert refused.value.message == (
        f"invalid dice formula {written!r}: dice pools such as {pool!r} are not "
        f"supported; the same roll is written {instead!r} (at character {index + 1})"
    )
    assert str(parse(instead)) == instead


def test_the_term_rolls_what_the_wild_die_test_rolls():
    """The d6 trait die 6 + 2 and the wild die 3, kept the better, −6: 2, as the
    pool reads in Foundry."""
    assert roll_formula("2d6!!kh1 - 6", ScriptedDice([6, 2, 3])).total == 2
    assert distribution("2d6!!kh1 - 6")[-5] == pytest.approx(1 / 36)


@pytest.mark.parametrize(
    ("written", "pool", "example"),
    [
        ("{1d8!!, 1d6!!}kh-2", "{1d8!!, 1d6!!}kh", "1d8!!"),  # wilddie's d8 test
        ("{2d6, 2d6}kh", "{2d6, 2d6}kh", "2d6"),  # the better of two sums
        ("{1d6xo, 1d6xo}kh", "{1d6xo, 1d6xo}kh", "1d6xo"),  # explodes once: no term's
        ("3{1d6, 1d6}kh", "{1d6, 1d6}kh", "1d6"),  # not '32d6kh1', a roll of 32 dice
        ("{1d6, 1d6}cs>=5", "{1d6, 1d6}", "1d6"),  # counts its parts: no term's
    ],
)
def test_any_other_pool_says_what_rolls_it(written, pool, example):
    with pytest.raises(NotationError) as refused:
        parse(written)
    assert refused.value.message == (
        f"invalid dice formula {written!r}: dice pools such as {pool!r} are not "
        f"supported, and this one has no formula here: roll each of its dice as a "
        f"formula of its own ({example!r}, …), or ask for the ruleset's action that "
        f"rolls it (wilddie's trait, for a wild die test) (at character "
        f"{written.index('{') + 1})"
    )


def _law(formula: str) -> dict[int, Fraction]:
    return {
        o["total"]: Fraction(o["probability"]) for o in distribution(formula).to_dict()["outcomes"]
    }


@pytest.mark.parametrize(
    ("written", "part", "kept"),
    [("{1d6!!, 1d6!!}kh-6", "1d6!!", max), ("{1d6x, 1d6x}kh-6", "1d6x", max),
     ("{1d10x>=9, 1d10x>=9}kl-6", "1d10x>=9", min)],
)  # fmt: skip
def test_the_term_to_type_has_the_pools_odds(written, part, kept):
    """The pool's law, made from its part's odds as a pool keeps its parts' totals,
    is the law of the formula the refusal says to type (the parts' explosions cut
    where the term's are)."""
    with pytest.raises(NotationError) as refused:
        parse(written)
    instead = refused.value.message.split("the same roll is written ")[1].split("'")[1]
    one = _law(part)
    pool: dict[int, Fraction] = {}
    for (a, pa), (b, pb) in product(one.items(), repeat=2):
        pool[kept(a, b) - 6] = pool.get(kept(a, b) - 6, Fraction(0)) + pa * pb
    assert _law(instead) == pool


def test_the_roll_command_says_it_in_one_line(capsys):
    assert main(["roll", "{1d6!!, 1d6!!}kh-6", "--seed", "1"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "rollbridge: error: invalid_notation: invalid dice formula '{1d6!!, 1d6!!}kh-6': "
        "dice pools such as '{1d6!!, 1d6!!}kh' are not supported; the same roll is "
        "written '2d6!!kh1 - 6' (at character 1)\n"
    )


def test_the_refusal_reads_in_czech(capsys):
    """ "a pro tuto zde žádný vzorec není" (before, "a tahle tu nemá žádný vzorec":
    a pool that has no formula, not one "here")."""
    assert main(["roll", "{1d8x, 1d6x}kh", "--locale", "cs"]) == 1
    assert capsys.readouterr().err == (
        "rollbridge: error: invalid_notation: neplatný vzorec kostek '{1d8x, 1d6x}kh': "
        "sady kostek jako '{1d8x, 1d6x}kh' nejsou podporovány a pro tuto zde žádný vzorec "
        "není: hoďte každou její kostku jako samostatný vzorec ('1d8x', …), nebo požádejte "
        "o akci pravidel, která ji hází (u testu s divokou kostkou akci trait pravidel "
        "wilddie) (na znaku 1)\n"
    )


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("{}", "the dice pool '{}' holds no dice"),
        ("{ }kh", "the dice pool '{ }kh' holds no dice"),
        ("{1d6, 1d6", "the dice pool '{1d6, 1d6' is never closed: its '}' is missing"),
        (
            "{1d6,}kh",
            "the dice pool '{1d6,}kh' has an empty part: a comma with no dice before or after it",
        ),
        (
            "{,1d6}",
            "the dice pool '{,1d6}' has an empty part: a comma with no dice before or after it",
        ),
        (
            "{1d6, {1d6}}kh",
            "the dice pool '{1d6, {1d6}}kh' holds another pool: a pool's "
            "parts are dice, separated by commas",
        ),
    ],
)
def test_a_malformed_pool_is_told_what_is_wrong_with_it(written, said):
    """Before, each was refused as a pool with no formula here, suggesting to roll
    '1d6' on its own: a die the pool did not hold, or an unclosed pool taken whole."""
    with pytest.raises(NotationError) as refused:
        parse(written)
    assert refused.value.code == "invalid_notation"
    assert refused.value.message == f"invalid dice formula {written!r}: {said} (at character 1)"


@pytest.mark.parametrize(
    ("locale", "said"),
    [
        (
            "cs",
            "sada kostek '{1d6,}kh' má prázdnou část: čárku, před kterou nebo za kterou "
            "není žádná kostka",
        ),
        (
            "de",
            "der Würfelpool '{1d6,}kh' hat einen leeren Teil: ein Komma ohne Würfel davor "
            "oder danach",
        ),
        (
            "ru",
            "в наборе костей '{1d6,}kh' есть пустая часть: запятая, перед которой или "
            "после которой нет кости",
        ),
    ],
)
def test_a_malformed_pool_is_told_in_every_locale(capsys, locale, said):
    assert main(["roll", "{1d6,}kh", "--locale", locale]) == 1
    assert said in capsys.readouterr().err
