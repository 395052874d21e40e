"""What ``rollbridge odds`` says around the table: its refusals quote the formula
one way, the title names the explosion depth only where it cuts something off, the
bound on a sum's packed weights says what the user can change, and a table of more
totals than a terminal keeps is announced on stderr first, quickly printed.

Before: ``'5d20000r1'`` was quoted and ``1d20000!!`` bare; ``2d6`` was titled "a
line of explosions adds at most 10 dice"; ``100d6x`` "needs more than 8,000,000
steps" (a bound in bits); ``rollbridge odds 1d1000000`` printed its million lines
in about 10 s of CPU, unannounced, making a ``Fraction`` and three locale look-ups
per total (docs/performance.md, "Exact odds")."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import threading
from decimal import MIN_EMIN, Decimal, localcontext
from fractions import Fraction

import pytest

from rollbridge import i18n
from rollbridge.cli import main
from rollbridge.cli.odds import LONG_TABLE, odds_reply_lines, render_odds
from rollbridge.odds import distribution


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "formula",
    ["5d20000r1", "1d20000!!", "4d6x2=6", "4d6xkh3", "4d6kh3r1", "1d20x>=2min3", "100d6x",
     "999d1000", "100d100kh50", "2d1000000", "3d"],
)  # fmt: skip
def test_every_refusal_quotes_the_formula_as_the_rest_of_the_cli_does(capsys, formula):
    code, out, err = run(capsys, "odds", formula, "--locale", "en")
    assert code == 1 and out == ""
    assert f" '{formula}'" in err, err


@pytest.mark.parametrize("formula", ["100d6x", "999d6!!", "5d20000r1"])
def test_the_bound_on_a_sums_bits_says_bits_and_what_to_change(capsys, formula):
    code, _, err = run(capsys, "odds", formula, "--locale", "en")
    assert code == 1
    assert err == (
        f"rollbridge: error: dice_limit: the exact distribution of '{formula}' takes more "
        "than 8,000,000 bits to add up its dice; it is not approximated (fewer dice or "
        "faces make it smaller, as does a lower explosion depth where the formula "
        "explodes)\n"
    )


@pytest.mark.parametrize(
    ("locale", "said"),
    [
        ("cs", "'100d6x' zabírá při sčítání kostek více než 8 000 000 bitů"),
        ("de", "'100d6x' braucht zum Addieren der Würfel mehr als 8.000.000 Bits"),
        ("ru", "'100d6x' при сложении костей занимает больше 8 000 000 бит"),
    ],
)
def test_the_bound_on_a_sums_bits_in_each_language(capsys, locale, said):
    code, _, err = run(capsys, "odds", "100d6x", "--locale", locale)
    assert code == 1
    assert said in err.replace("\xa0", " "), err


@pytest.mark.parametrize("formula", ["2d6", "4d6kh3", "2d6xo", "1d6x>7", "3d6r1 + 2", "1d4 / 3"])
def test_no_depth_in_the_title_where_nothing_explodes(capsys, formula):
    code, out, _ = run(capsys, "odds", formula, "--locale", "en")
    assert code == 0
    title = out.splitlines()[0]
    assert title == f"{distribution(formula).formula}: exact odds"
    assert "nothing cut off" in out


@pytest.mark.parametrize(("formula", "depth"), [("1d6x", 10), ("3d6!!", 10), ("2d6 + 1d8x", 3)])
def test_the_depth_in_the_title_where_it_cuts(capsys, formula, depth):
    code, out, _ = run(capsys, "odds", formula, "--depth", str(depth), "--locale", "en")
    assert code == 0
    assert out.splitlines()[0].endswith(f"(a line of explosions adds at most {depth} dice)")


@pytest.mark.parametrize(("locale", "title"), [("cs", "přesné"), ("de", "exakte"), ("ru", "точн")])
def test_the_plain_title_is_translated(capsys, locale, title):
    _, out, _ = run(capsys, "odds", "2d6", "--locale", locale)
    first = out.splitlines()[0]
    assert first.startswith("2d6: ") and title in first.lower() and "10" not in first


def test_the_terminal_clients_reply_lines_name_the_depth_alike():
    for formula, named in (("2d6", False), ("1d6x", True)):
        reply = {"distribution": distribution(formula).to_dict()}
        assert ("at most 10 dice" in odds_reply_lines(reply, "en")[0]) is named


def _share(p: Fraction) -> float | Decimal:
    """``p`` as a float, or in decimal where the float is 0 and ``p`` is not (below
    10⁻³⁰⁸: 999d6's least totals), which the table prints (4.24e-776%), not 0%."""
    if float(p) or not p:
        return float(p)
    with localcontext() as context:
        context.prec, context.Emin = 6, MIN_EMIN
        return Decimal(p.numerator) / Decimal(p.denominator)


@pytest.mark.parametrize("formula", ["2d6", "1d6x", "1d4 / 3", "30d6", "999d6", "3d6!! - 1d10"])
@pytest.mark.parametrize("locale", ["en", "de", "cs", "ru"])
def test_each_row_is_the_exact_fraction_and_its_percents(formula, locale):
    """The rows come from the integer weights; each says what its Fraction says."""
    odds = distribution(formula)
    rows = render_odds(odds, locale)[2 : 2 + len(odds.weights)]
    left = 1 - odds.truncated
    for row, (total, p) in zip(rows, odds.outcomes.items(), strict=True):
        text = f"{p.numerator}/{p.denominator}" if p.denominator != 1 else str(p)
        assert f"  {text if len(text) <= 24 else '…'} " in row, row
        spec = ".2e" if 0 < p < Fraction(1, 10**6) else ".4f"
        assert f" {i18n.percent(_share(p), spec, locale)}  " in row, row
        spec = ".2e" if 0 < left < Fraction(1, 10**6) else ".4f"
        assert row.endswith(f" {i18n.percent(_share(left), spec, locale)}"), row
        left -= p
        if type(total) is int:
            assert row.split()[0] == str(total)


def test_the_table_makes_no_fraction_per_total():
    """A million totals each made a Fraction (``outcomes``) before a line was printed."""
    odds = distribution("1d20000")
    render_odds(odds, "en")
    assert odds._outcomes is None


def _on_a_terminal(*argv: str) -> tuple[str, int]:
    """``rollbridge`` run with its stdout a terminal (a pseudo-terminal read to its
    end): what it said on stderr, and how many bytes it printed to the terminal."""
    main_side, child_side = pty.openpty()
    child = subprocess.Popen(
        [sys.executable, "-m", "rollbridge", *argv],
        stdout=child_side,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    os.close(child_side)
    printed = []

    def drain() -> None:
        while True:
            try:
                chunk = os.read(main_side, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            printed.append(chunk)

    reader = threading.Thread(target=drain)
    reader.start()
    said = child.stderr.read().decode()
    child.wait()
    reader.join()
    os.close(main_side)
    assert child.returncode == 0, said
    return said, len(b"".join(printed))


def test_a_long_table_to_a_terminal_is_announced_on_stderr():
    faces = LONG_TABLE + 1
    said, printed = _on_a_terminal("odds", f"1d{faces}", "--locale", "en")
    assert said == (
        f"{faces:,} totals follow, a line each: to page through them or keep them, send "
        "the output to a pager or a file (rollbridge odds … | less, > odds.txt)\n"
    )
    assert printed > faces * 20  # the table itself went to the terminal


def test_a_table_a_terminal_keeps_is_not_announced():
    said, _ = _on_a_terminal("odds", f"1d{LONG_TABLE}", "--locale", "en")
    assert said == ""


def test_a_long_table_to_a_file_or_pipe_is_not_announced(capsys):
    code, out, err = run(capsys, "odds", f"1d{LONG_TABLE + 1}", "--locale", "en")
    assert code == 0 and err == ""
    assert len(out.splitlines()) == LONG_TABLE + 1 + 4


@pytest.mark.parametrize(
    ("locale", "said"), [("de", "Summen folgen"), ("cs", "součtů"), ("ru", "сумм")]
)
def test_the_announcement_is_translated(locale, said):
    err, _ = _on_a_terminal("odds", f"1d{LONG_TABLE + 1}", "--locale", locale)
    assert said in err, err
