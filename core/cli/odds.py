"""``rollbridge odds FORMULA``: the exact distribution of a formula's total.

Prints each total with its exact probability (a fraction; past 24 characters
only with ``--exact``), its percent and the chance of at least that total, then
the mean and the probability cut off by the explosion depth. ``--json`` prints
:meth:`rollbridge.odds.Distribution.to_dict` (fractions as ``"p/q"`` text beside
floats). The words are in ``--locale`` (see :mod:`rollbridge.cli.locales`).
"""

from __future__ import annotations

import argparse
from fractions import Fraction

from rollbridge.cli.locales import add_locale_option
from rollbridge.cli.render import print_json
from rollbridge.odds import DEFAULT_DEPTH, MAX_DEPTH, Distribution, distribution
from rollbridge.text import Messages

__all__ = ["add_parsers", "render_odds"]

#: Fractions longer than this are shown as "…" unless --exact is given.
SHORT_FRACTION = 24

say = Messages("rollbridge")
# Translators: {formula} is the normalised formula; {depth} a number of dice.
TITLE = say(
    "cli.odds.title",
    "{formula}: exact odds (a line of explosions adds at most {depth} dice)",
)
# Translators: the column heads of `rollbridge odds`; keep them short.
TOTAL = say("cli.odds.total", "total")
PROBABILITY = say("cli.odds.probability", "probability")
PERCENT = say("cli.odds.percent", "percent")
AT_LEAST = say("cli.odds.at_least", "at least")
# Translators: {mean} is an exact fraction, {approx} the same as a decimal number.
MEAN = say("cli.odds.mean", "mean: {mean} (about {approx})")
# Translators: {mass} is an exact fraction, {percent} the same in percent.
TRUNCATED = say(
    "cli.odds.truncated",
    "cut off by the explosion depth: {mass} ({percent}); not in the totals above",
)
NOTHING_CUT = say("cli.odds.nothing_cut", "nothing cut off: the totals above are complete")
LONG = say(
    "cli.odds.long", "(… marks a fraction of more than {count} characters: see --exact or --json)"
)


def add_parsers(commands: argparse._SubParsersAction) -> None:
    """Add the ``odds`` sub-command."""
    odds = commands.add_parser("odds", help="the exact odds of dice notation, e.g. 4d6kh3")
    odds.add_argument("formula", help="Foundry-style dice notation")
    odds.add_argument(
        "--depth",
        type=int,
        default=DEFAULT_DEPTH,
        help=f"explosion depth: dice one line of explosions may add (0 to {MAX_DEPTH}, "
        f"default {DEFAULT_DEPTH}); the rest is reported as cut off",
    )
    odds.add_argument("--exact", action="store_true", help="print every fraction in full")
    odds.add_argument("--json", action="store_true", help="print JSON")
    add_locale_option(odds)
    odds.set_defaults(handler=_odds)


def _fraction(value: Fraction, exact: bool) -> tuple[str, bool]:
    text = f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value)
    if not exact and len(text) > SHORT_FRACTION:
        return "…", True
    return text, False


def _percent(value: Fraction) -> str:
    if 0 < value < Fraction(1, 10**6):
        return f"{float(value) * 100:.2e}%"
    return f"{float(value) * 100:.4f}%"


def _total(value: int | Fraction) -> str:
    return str(value) if type(value) is int else f"{value} (≈{float(value):.6g})"


def render_odds(odds: Distribution, locale: str = "en", exact: bool = False) -> list[str]:
    """The lines ``rollbridge odds`` prints for ``odds``."""
    lines = [TITLE(formula=odds.formula, depth=odds.depth).render(locale)]
    rows = []
    shortened = False
    left = 1 - odds.truncated
    for value, p in odds.outcomes.items():
        text, cut = _fraction(p, exact)
        shortened |= cut
        rows.append((_total(value), text, _percent(p), _percent(left)))
        left -= p
    heads = tuple(h().render(locale) for h in (TOTAL, PROBABILITY, PERCENT, AT_LEAST))
    widths = [max(len(r[i]) for r in (heads, *rows)) for i in range(4)]
    for row in (heads, *rows):
        lines.append(
            "  ".join(
                cell.rjust(width) if i != 1 else cell.ljust(width)
                for i, (cell, width) in enumerate(zip(row, widths, strict=True))
            ).rstrip()
        )
    mean, cut = _fraction(odds.mean, exact)
    shortened |= cut
    lines.append(MEAN(mean=mean, approx=f"{float(odds.mean):.6g}").render(locale))
    if odds.truncated:
        mass, cut = _fraction(odds.truncated, exact)
        shortened |= cut
        lines.append(TRUNCATED(mass=mass, percent=_percent(odds.truncated)).render(locale))
    else:
        lines.append(NOTHING_CUT().render(locale))
    if shortened:
        lines.append(LONG(count=SHORT_FRACTION).render(locale))
    return lines


def _odds(args: argparse.Namespace) -> int:
    odds = distribution(args.formula, explode_depth=args.depth)
    if args.json:
        print_json(odds.to_dict())
        return 0
    print("\n".join(render_odds(odds, args.locale, args.exact)))
    return 0
