"""The :class:`~rollbridge.odds.Odds` type, and the conformance suite's odds test."""

from __future__ import annotations

from fractions import Fraction

import pytest

import rollbridge.plugins.wilddie.messages as _wd
from rollbridge.contract import ActionContext, Ruleset
from rollbridge.dice import SeededDice
from rollbridge.odds import Odds, distribution
from rollbridge.plugins.bandits import BanditsRuleset
from rollbridge.testing import RulesetConformance


def test_to_dict_gives_fractions_as_text_and_floats():
    totals = distribution("1d4")
    odds = Odds({"low": Fraction(1, 2), "high": Fraction(1, 2)}, totals=totals)
    data = odds.to_dict()
    assert data["outcomes"] == [  # an outcome without a label reads as its name
        {"outcome": "low", "label": "low", "probability": "1/2", "float": 0.5},
        {"outcome": "high", "label": "high", "probability": "1/2", "float": 0.5},
    ]
    assert data["truncated"] == "0/1" and data["truncated_float"] == 0.0
    assert data["totals"] == totals.to_dict()
    assert Odds({"x": Fraction(1)}).to_dict()["totals"] is None


def test_the_base_ruleset_gives_no_odds():
    class Plain(BanditsRuleset):
        odds = Ruleset.odds

    context = ActionContext("move", {"stat": None})
    assert Plain().odds(context) is None


class _Uneven(BanditsRuleset):
    def odds(self, context):
        return Odds({"all": Fraction(9, 10)})


class _Rolling(BanditsRuleset):
    def odds(self, context):
        SeededDice(1).roll(6)
        return Odds({"all": Fraction(1)})


class _Negative(BanditsRuleset):
    def odds(self, context):
        return Odds({"a": Fraction(3, 2), "b": Fraction(-1, 2)})


class _NoneAtAll(BanditsRuleset):
    def odds(self, context):
        return None


@pytest.mark.parametrize(
    ("ruleset", "words"),
    [(_Uneven(), "sum to 9/10"), (_Rolling(), "odds drew a die"), (_Negative(), "non-negative")],
)
def test_the_conformance_suite_catches_bad_odds(ruleset, words):
    suite = type("Suite", (RulesetConformance,), {"ruleset": ruleset})()
    with pytest.raises(AssertionError, match=words):
        suite.test_odds_are_exact_and_draw_no_dice()


def test_the_conformance_suite_skips_a_ruleset_without_odds():
    suite = type("Suite", (RulesetConformance,), {"ruleset": _NoneAtAll()})()
    with pytest.raises(pytest.skip.Exception):
        suite.test_odds_are_exact_and_draw_no_dice()


def test_labelled_outcomes_read_in_the_readers_language():
    """wilddie's outcomes are words: their labels are texts of its catalogue."""
    labels = {"failure": _wd.ODDS_FAILURE(), "2 raises": _wd.ODDS_RAISES(count=2)}
    odds = Odds({"failure": Fraction(1, 2), "2 raises": Fraction(1, 2)}, labels=labels)
    assert odds.label("2 raises") == "2 raises"
    assert odds.label("2 raises", "ru") == "2 подъёма"
    assert odds.label("failure", "de") == "Fehlschlag"
    assert odds.to_dict("cs")["outcomes"][1]["label"] == "2 zvýšení"
