"""A total whose chance is below the smallest float reads as its percent, not 0.

``rollbridge odds 999d6`` printed the least total's chance, 6⁻⁹⁹⁹ (about 10⁻⁷⁷⁷),
as "0.00e+00%": a float divided down to zero, which read as a total that cannot be
rolled. The fraction itself is too long to print ("…", see ``--exact``), so that
percent was all a player saw."""

from __future__ import annotations

from fractions import Fraction

import pytest

from rollbridge.cli import main
from rollbridge.cli.odds import _percent, render_odds
from rollbridge.odds import distribution

pytestmark = pytest.mark.usefixtures("english_without_stores")


def _row(lines: list[str], total: int) -> list[str]:
    return next(line.split() for line in lines if line.split()[:1] == [str(total)])


@pytest.mark.parametrize(("locale", "least"), [("en", "4.24e-776%"), ("de", "4,24e-776")])
def test_the_least_total_of_999d6_has_its_percent(locale, least):
    lines = render_odds(distribution("999d6"), locale)
    row = _row(lines[2:], 999)
    assert row[2] == least, row
    exact = Fraction(100, 6**999) * 10**776  # the percent's mantissa: 4.24 rounded
    assert Fraction(4235, 1000) <= exact < Fraction(4245, 1000)
    assert _row(lines[2:], 5994)[2].startswith("4.24e-776" if locale == "en" else "4,24e-776")


def test_the_cli_prints_no_zero_percent(capsys):
    assert main(["odds", "999d6"]) == 0
    out = capsys.readouterr().out
    assert "0.00e+00%" not in out
    assert "e-773%" in out  # 1000: 999 ways of 6⁻⁹⁹⁹


def test_a_cut_off_mass_below_a_float_has_its_percent(capsys):
    assert main(["odds", "1d6x", "--depth", "100"]) == 0
    out = capsys.readouterr().out
    assert "(2.55e-77%); not in the totals above" in out  # 6⁻¹⁰¹ is a float still
    # a mass below a float (the CLI's cut-off and uncovered lines, an action's odds)
    assert _percent(Fraction(1, 6**999), "en") == "4.24e-776%"
    assert _percent(Fraction(0), "en") == "0.0000%"


def test_json_gives_a_float_that_reads_zero_its_logarithm(capsys):
    """``rollbridge odds 999d6 --json`` gave the least total ``"float": 0.0`` beside
    its exact fraction: read by a program, a total that cannot be rolled. A float
    that reads 0 while its probability does not comes with ``log10``, the
    probability's base-10 logarithm from the exact fraction; a float that says it
    well comes alone."""
    import json
    import math

    assert main(["odds", "999d6", "--json"]) == 0
    outcomes = {o["total"]: o for o in json.loads(capsys.readouterr().out)["outcomes"]}
    least = outcomes[999]
    assert least["float"] == 0.0 and least["probability"] == f"1/{6**999}"
    assert math.isclose(least["log10"], -999 * math.log10(6), rel_tol=1e-12)
    # 1000 can be rolled 999 ways: its logarithm is log10(999) higher
    assert math.isclose(outcomes[1000]["log10"] - least["log10"], math.log10(999))
    assert "log10" not in outcomes[3500]  # the middle: a float as any other
    assert outcomes[3500]["float"] > 0


def test_an_actions_odds_give_a_tiny_probabilitys_logarithm():
    """The odds of an action (:class:`rollbridge.odds.Odds`) say a tiny outcome and
    cut-off mass alike, and a probability of 0 has no logarithm."""
    from rollbridge.odds import Odds

    tiny = Fraction(1, 10**400)
    data = Odds({"hit": tiny, "miss": 1 - 2 * tiny, "never": Fraction(0)}, truncated=tiny)
    said = {o["outcome"]: o for o in data.to_dict()["outcomes"]}
    assert said["hit"]["float"] == 0.0 and said["hit"]["log10"] == -400.0
    assert "log10" not in said["never"] and "log10" not in said["miss"]
    plain = data.to_dict()
    assert plain["truncated_float"] == 0.0 and plain["truncated_log10"] == -400.0
