"""An odds refusal past a bound says, in a player's terms and in every language,
what was asked, the limit and what to ask instead.

Before, ``rollbridge odds 2d1000000`` said "the exact distribution of '2d1000000'
needs more than 1,000,000 steps; it is not approximated" — a bound on totals, on
pairs of a product's totals or on the kept dice's arrangements, all said as
"steps", which a player cannot count nor cut down (docs/dice.md, "Limits and
errors")."""

from __future__ import annotations

import pytest

from rollbridge.cli import main
from rollbridge.exceptions import DiceLimitExceeded
from rollbridge.odds import distribution

pytestmark = pytest.mark.usefixtures("english_without_stores")


@pytest.mark.parametrize(
    ("formula", "said", "details"),
    [
        (
            "2d1000000",
            "'2d1000000' can roll 1,999,999 different totals, and exact odds are worked "
            "out for at most 1,000,000 (they are not approximated): ask for fewer dice or "
            "fewer faces",
            {"formula": "2d1000000", "term": "2d1000000", "totals": 1_999_999, "limit": 1_000_000},
        ),
        (  # the totals are the term's: '2d1000000 + 1d6' rolls 2,000,004 (review rev16d)
            "2d1000000 + 1d6",
            "'2d1000000' can roll 1,999,999 different totals, and exact odds are worked "
            "out for at most 1,000,000 (they are not approximated): ask for fewer dice or "
            "fewer faces",
            {
                "formula": "2d1000000 + 1d6",
                "term": "2d1000000",
                "totals": 1_999_999,
                "limit": 1_000_000,
            },
        ),
        (  # one past the bound (1d1000000, at it, is worked out)
            "2d500001",
            "'2d500001' can roll 1,000,001 different totals, and exact odds are worked "
            "out for at most 1,000,000 (they are not approximated): ask for fewer dice or "
            "fewer faces",
            {"formula": "2d500001", "term": "2d500001", "totals": 1_000_001, "limit": 1_000_000},
        ),
        (
            "1d1000 * 1d1001",
            "'1d1000 * 1d1001' combines two parts whose totals make more than 1,000,000 "
            "pairs to weigh, and exact odds are worked out for no more (they are not "
            "approximated): ask for fewer dice or fewer faces on either side",
            {"formula": "1d1000 * 1d1001", "limit": 1_000_000},
        ),
        (
            "100d100kh50",
            "the dice '100d100kh50' keeps have more than 3,000,000 arrangements to count, "
            "and exact odds are worked out for no more (they are not approximated): ask "
            "for fewer dice, fewer faces or fewer dice kept",
            {"formula": "100d100kh50", "limit": 3_000_000},
        ),
    ],
)
def test_each_bound_is_said_in_a_players_terms(formula, said, details):
    with pytest.raises(DiceLimitExceeded) as refused:
        distribution(formula)
    assert refused.value.code == "dice_limit"
    assert refused.value.message == said
    assert "steps" not in refused.value.message
    assert refused.value.details == details


def test_the_cli_says_so_in_one_line(capsys):
    assert main(["odds", "2d1000000"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "rollbridge: error: dice_limit: '2d1000000' can roll 1,999,999 different totals, "
        "and exact odds are worked out for at most 1,000,000 (they are not approximated): "
        "ask for fewer dice or fewer faces\n"
    )


@pytest.mark.parametrize(
    ("locale", "said"),
    [
        ("cs", "'2d1000000' může dát 1 999 999 různých součtů a přesné šance se "
               "počítají nejvýše pro 1 000 000 (nepřibližují se): zadejte méně kostek "
               "nebo méně stěn"),
        ("de", "'2d1000000' kann 1.999.999 verschiedene Summen ergeben, und exakte Chancen "
               "werden für höchstens 1.000.000 berechnet (sie werden nicht angenähert): "
               "fragen Sie nach weniger Würfeln oder weniger Seiten"),
        ("ru", "у '2d1000000' может выпасть 1 999 999 разных сумм, а точные шансы "
               "считаются самое большее для 1 000 000 (без приближений): запросите меньше "
               "костей или меньше граней"),
    ],
)  # fmt: skip
def test_in_each_language(capsys, locale, said):
    assert main(["odds", "2d1000000", "--locale", locale]) == 1
    err = capsys.readouterr().err.replace("\xa0", " ")  # cs and ru group with a no-break space
    assert err == f"rollbridge: error: dice_limit: {said}\n"


@pytest.mark.parametrize("ruleset", ["wilddie", "sr2"])
def test_a_ruleset_without_its_action_says_to_name_one(capsys, ruleset):
    """``rollbridge odds wilddie`` said "invalid dice formula 'wilddie': unknown word
    'wilddie'": a ruleset's id alone is read as notation."""
    assert main(["odds", ruleset]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        f"rollbridge: error: invalid_notation: {ruleset} is a ruleset, not dice notation: "
        f"its odds are an action's (rollbridge odds {ruleset} ACTION --params JSON; its "
        f"actions and their parameters: rollbridge rulesets {ruleset})\n"
    )
    assert main(["odds", "wildie"]) == 1  # any other word is the notation's refusal
    assert "unknown word 'wildie'" in capsys.readouterr().err
