"""The odds of a roll or an action before it is made, asked from a player's phone
(issue: a player could not look at the odds in the page; the protocol's ``odds``
answered them to other clients only), in real headless Chromium against a real
server: browser/odds.mjs taps the Odds button beside the roll form's and an action
form's own, on a Czech and a Russian phone, and this judges what the forms showed
and what the pages sent.

Needs what tests/web/test_web_browser.py needs; skipped without chromium.
"""

from __future__ import annotations

from decimal import ROUND_FLOOR, Decimal, localcontext
from fractions import Fraction
from pathlib import Path

import pytest

from tests.web.test_web_browser import CHROMIUM
from tests.web.test_web_phone import run_case

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM}")


def face_chance(face: int) -> Fraction:
    """The chance that 999d6kh1 is `face`: the highest of 999 dice."""
    return Fraction(face, 6) ** 999 - Fraction(face - 1, 6) ** 999


def order(chance: Fraction) -> str:
    """A chance as a German percentage's order of magnitude: "4,2 × 10⁻⁷⁷⁶ %"."""
    with localcontext() as context:
        context.prec = 40
        log = Decimal(chance.numerator).log10() - Decimal(chance.denominator).log10() + 2
    exponent = int(log.to_integral_value(rounding=ROUND_FLOOR))
    mantissa = round(float(10 ** (log - exponent)), 1)
    if mantissa >= 10:
        mantissa, exponent = 1.0, exponent + 1
    digits = f"{mantissa:g}".replace(".", ",")
    return f"{digits} × 10{str(exponent).translate(SUPERSCRIPT)} %"


SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def plain(cells: list[str]) -> list[str]:
    """Cells with a no-break space (a percentage's, in cs) as a space."""
    return [cell.replace("\xa0", " ") for cell in cells]


async def test_a_player_reads_the_odds_of_a_roll_and_of_an_action(web_world):
    result = await run_case(web_world, "player", "odds.mjs")

    # 3d6 in Czech: tapped twice fast, asked once; every total, its chance, the
    # chance of at least it, the exact fraction on hover
    formula = result["formula"]
    assert [m["type"] for m in formula["sent"]] == ["odds"], formula["sent"]
    assert formula["sent"][0]["formula"] == "3d6" and formula["button"] == "Šance"
    assert formula["line"] == "šance hodu 3d6: průměr 10,50" and formula["kind"] == "info"
    assert formula["head"] == ["součet", "šance", "tolik nebo víc"]
    rows = [plain(row) for row in formula["rows"]]
    assert [row[0] for row in rows] == [str(total) for total in range(3, 19)]
    assert rows[0] == ["3", "0,46 %", "100 %"] and rows[7] == ["10", "12,5 %", "62,5 %"]
    assert formula["titles"][0] == "1/216" and formula["note"] is None

    # a typo: the server's words beside the form, no table
    typo = result["typo"]
    assert typo["kind"] == "error" and typo["code"] == "invalid_notation"
    assert "invalid_notation" not in typo["line"] and typo["rows"] == []

    # an exploding die: its long tail in one last row; what the depth cut off, said
    exploding = result["exploding"]
    assert exploding["rows"][-1][0].startswith("≥ "), exploding["rows"]
    assert len(exploding["rows"]) < 40
    assert exploding["note"] and "exploze" in exploding["note"]

    # an attack on Rook: the form's action, actor, target and parameters asked;
    # each outcome in Czech with its chance
    attack = result["attack"]
    (asked,) = attack["sent"]
    assert asked["type"] == "odds" and asked["action"] == "attack"
    assert asked["actor"] == "tukan" and asked["targets"] == ["rook"]
    assert asked["params"]["weapon"] == "Hackler" and "secret" not in asked
    assert attack["line"] == "šance akce Útok" and attack["head"] == ["výsledek", "šance"]
    # asked by keyboard, the focus stays on the button while it waits and after
    assert attack["focus"] == "odds"
    assert "minutí" in [row[0] for row in attack["rows"]], attack["rows"]

    # the NPC's hidden numbers: said in the page's words, not "state it in assume"
    npc = result["npc"]
    assert npc["code"] == "odds_hidden" and npc["kind"] == "error"
    assert npc["line"] == "šance závisí na tom, co o postavě Guard A ví jen PJ"
    assert "assume" not in npc["line"] and npc["rows"] == []

    # nothing was rolled; a screen reader heard each answer
    assert result["rolls"] == 0
    assert result["announced"] == [
        "šance hodu 3d6: průměr 10,50",
        "šance hodu 1d6x: průměr ≈ 4,20",  # the depth cut its tail: not exact
        "šance akce Útok",
    ]

    # wilddie in Russian: the trait test's outcomes in Russian
    trait = result["trait"]
    assert trait["line"] == f"шансы действия «{result['traitLabel']}»"
    assert trait["head"] == ["исход", "шанс"] and trait["rows"][0][0] == "провал"
    assert trait["sent"][0]["params"] == {"trait": "fighting"}


async def test_a_chance_too_small_for_a_float_reads_as_small_not_as_none(web_world):
    # 999d6kh1 on a German phone: a 1 (6^-999) and a 2 ((1/3)^999) come as float 0.0
    # with their log10; they are "< 0,01 %", never "0 %" (which reads "cannot
    # happen"), and say how small (they said no more than "< 0,01 %"); a 6 is
    # 1 - (5/6)^999, a float of 1.0, and the chance of at least a 2 is short of 1 by
    # 6^-999: "> 99,9 %", never "100 %" (which reads "certain")
    result = await run_case(web_world, "tiny", "odds.mjs")
    formula = result["formula"]
    assert formula["sent"][0]["formula"] == "999d6kh1" and formula["kind"] == "info"
    rows = [plain(row) for row in formula["rows"]]
    assert [row[2] for row in rows] == ["100 %"] + ["> 99,9 %"] * 5, rows
    assert rows[5][:2] == ["6", "> 99,9 %"], rows
    # each under 0.01 %, with its order of magnitude from the exact fraction (the
    # test's own: Python's Fraction and Decimal)
    for face, row in enumerate(rows[:5], start=1):
        assert row[:2] == [str(face), f"< 0,01 % (≈ {order(face_chance(face))})"], row
    # its mean is 6 less about 1.5 × 10^-79, a float of 6.0: not shown as an exact 6
    assert formula["line"] == "Chancen von 999d6kh1: Mittel ≈ 6", formula["line"]
    assert formula["titles"][0].startswith("1/2361017103972476953966")  # 6^999, exact
    assert formula["note"] is None

    # 12d6: a 12 is 6^-12 (a float, 4.6e-10): under 0.01 %, not 0; its long tail in
    # one last row, under 0.01 % too
    rows = [plain(row) for row in result["twelve"]["rows"]]
    assert rows[0] == ["12", f"< 0,01 % (≈ {order(Fraction(1, 6**12))})", "100 %"]
    assert result["twelve"]["line"] == "Chancen von 12d6: Mittel 42"  # exact
    assert rows[-1][0].startswith("≥ ") and rows[-1][1:] == ["< 0,01 %", "< 0,01 %"]
    assert all(cell not in ("0 %", "100 %") for row in rows[1:] for cell in row[1:]), rows
