"""``rollbridge odds``: exact odds of a formula's total, or of a ruleset's action.

``rollbridge odds FORMULA`` prints each total with its exact probability (a
fraction; past 24 characters only with ``--exact``), its percent and the chance of
at least that total, then the mean and the probability cut off by the explosion
depth. ``--json`` prints :meth:`rollbridge.odds.Distribution.to_dict` (fractions
as ``"p/q"`` text beside floats).

``rollbridge odds RULESET ACTION --params JSON [--actors JSON] [--settings JSON]``
asks the ruleset's optional ``odds`` hook (docs/plugins.md, "Odds") for the
action's named outcomes, on an offline table holding the actors exactly as
``rollbridge resolve`` builds it (the ruleset's example sheets by default), and
prints each outcome with its exact fraction and percent; ``--json`` prints
:meth:`rollbridge.odds.Odds.to_dict`. The words are in ``--locale`` (see
:mod:`rollbridge.cli.locales`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from decimal import MIN_EMIN, Decimal, localcontext
from fractions import Fraction
from math import gcd
from typing import TYPE_CHECKING

from rollbridge import i18n
from rollbridge.cli.helps import Help
from rollbridge.cli.json_option import add_json_option
from rollbridge.cli.locales import add_locale_option
from rollbridge.cli.offline import params_hint
from rollbridge.cli.render import print_json
from rollbridge.exceptions import NotationError
from rollbridge.odds import DEFAULT_DEPTH, MAX_DEPTH, Distribution, Odds, distribution
from rollbridge.text import Messages, Text

if TYPE_CHECKING:
    from rollbridge.contract import ActionContext
    from rollbridge.engine.table import Table

__all__ = ["action_context", "add_parsers", "odds_reply_lines", "render_action_odds", "render_odds"]

#: Fractions longer than this are shown as "…" unless --exact is given.
SHORT_FRACTION = 24
#: A table of more totals than this, printed to a terminal, is announced on stderr
#: first (:data:`LONG_OUTPUT`): more lines than a terminal usually keeps to scroll back.
LONG_TABLE = 10_000

say = Messages("rollbridge")
# Translators: {formula} is the normalised formula, as the user may type it again.
PLAIN_TITLE = say("cli.odds.plain_title", "{formula}: exact odds")
# Translators: {formula} is the normalised formula; {depth} a number of dice.
TITLE = say.plural(
    "cli.odds.title",
    "{formula}: exact odds (a line of explosions adds at most {depth} die)",
    "{formula}: exact odds (a line of explosions adds at most {depth} dice)",
    count="depth",
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
# Translators: said on stderr before a long table reaches a terminal; {count} is a
# number of totals, each printed on a line of its own.
LONG_OUTPUT = say.plural(
    "cli.odds.long_output",
    "{count:,} total follows, a line each: to page through it or keep it, send the "
    "output to a pager or a file (rollbridge odds … | less, > odds.txt)",
    "{count:,} totals follow, a line each: to page through them or keep them, send the "
    "output to a pager or a file (rollbridge odds … | less, > odds.txt)",
    count="count",
)
# Translators: {ruleset} and {action} are ids (bandits, move): keep them.
ACTION_TITLE = say("cli.odds.action_title", "{ruleset} {action}: exact odds of the outcomes")
# Translators: the first column head of `rollbridge odds RULESET ACTION`: keep it short.
OUTCOME = say("cli.odds.outcome", "outcome")
# Translators: {formula} is dice notation, e.g. 3d6kl2 + 1: keep it as it is.
TOTALS = say("cli.odds.totals", "the total rolls as {formula}")
# Translators: {mass} is an exact fraction, {percent} the same in percent.
UNCOVERED = say("cli.odds.uncovered", "in no outcome above: {mass} ({percent})")
# Translators: {ruleset} and {action} are ids: keep them.
NO_ODDS = say("cli.odds.none", "ruleset {ruleset} gives no odds for action {action}")
# Translators: {ruleset} is a ruleset's id, as typed; ACTION and JSON stand for what
# the user types (keep them), as in the command's usage line.
RULESET_ALONE = say(
    "cli.odds.ruleset_alone",
    "{ruleset} is a ruleset, not dice notation: its odds are an action's (rollbridge odds "
    "{ruleset} ACTION --params JSON; its actions and their parameters: rollbridge "
    "rulesets {ruleset})",
)
ACTOR_REQUIRED = say("actor.required", "actor: action {action} needs an acting actor")
UNKNOWN_ACTION = say(
    "action.unknown", "ruleset {ruleset} has no action {action} (actions: {known})"
)


def add_parsers(commands: argparse._SubParsersAction) -> None:
    """Add the ``odds`` sub-command."""
    odds = commands.add_parser(
        "odds",
        help=Help(
            say(
                "cli.help.odds",
                "the exact odds of dice notation (e.g. 4d6kh3) or of a ruleset's action",
            )
        ),
    )
    odds.add_argument(
        "formula",
        help=Help(
            say(
                "cli.help.odds.formula",
                "Foundry-style dice notation; or, with ACTION, a ruleset id (bandits)",
            )
        ),
    )
    odds.add_argument(
        "action",
        nargs="?",
        help=Help(say("cli.help.odds.action", "an action of the ruleset, e.g. move")),
    )
    odds.add_argument(
        "--params",
        default="{}",
        help=Help(say("cli.help.odds.params", "with ACTION: its parameters as JSON")),
    )
    odds.add_argument(
        "--actors",
        help=Help(
            say(
                "cli.help.odds.actors",
                "with ACTION: actors as JSON, as rollbridge resolve takes them (a list: the "
                'first acts, the rest are targets; or {{"actor": {{...}}, "targets": [...]}}). '
                "Default: the example sheets",
            )
        ),
    )
    odds.add_argument(
        "--settings",
        help=Help(
            say(
                "cli.help.odds.settings",
                "with ACTION: table settings as JSON, as rollbridge resolve takes them",
            )
        ),
    )
    odds.add_argument(
        "--depth",
        type=int,
        default=DEFAULT_DEPTH,
        help=Help(
            # Translators: {most} is the largest depth allowed.
            say(
                "cli.help.odds.depth",
                "explosion depth: dice one line of explosions may add (0 to {most}, "
                "default %(default)s); the rest is reported as cut off",
            ),
            most=MAX_DEPTH,
        ),
    )
    odds.add_argument(
        "--exact",
        action="store_true",
        help=Help(say("cli.help.odds.exact", "print every fraction in full")),
    )
    add_json_option(odds)
    add_locale_option(odds)
    odds.set_defaults(handler=_odds, hint=params_hint)


def _fraction(value: Fraction, exact: bool) -> tuple[str, bool]:
    text = f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value)
    if not exact and len(text) > SHORT_FRACTION:
        return "…", True
    return text, False


def _percent(value: Fraction, locale: str) -> str:
    """``value`` as a percentage in ``locale``'s way ("13.8889%", "13,8889 %")."""
    spec = ".2e" if 0 < value < Fraction(1, 10**6) else ".4f"
    return i18n.percents(locale)(_share(value.numerator, value.denominator), spec)


def _share(weight: int, denominator: int) -> float | Decimal:
    """``weight / denominator`` as a float, or as a :class:`~decimal.Decimal` where
    the float would be 0 and it is not: below 10⁻³⁰⁸ (the least total of ``999d6``
    is 6⁻⁹⁹⁹, about 10⁻⁷⁷⁷), which read "0.00e+00%", as if it could not be rolled."""
    share = weight / denominator
    if share or not weight:
        return share
    with localcontext() as context:
        context.prec, context.Emin = 6, MIN_EMIN
        return Decimal(weight) / Decimal(denominator)


def _total(value: int | Fraction, locale: str) -> str:
    if type(value) is int:
        return str(value)
    return f"{value} (≈{i18n.number(float(value), '.6g', locale)})"


def _title(formula: str, depth: int, truncated: Fraction) -> Text:
    """The first line: the depth is named only where it cut something off (a formula
    that explodes with ``x`` or compounds with ``!!``); elsewhere it changes nothing."""
    if truncated:
        return TITLE(formula=formula, depth=depth)
    return PLAIN_TITLE(formula=formula)


def _ratio(weight: int, denominator: int, exact: bool) -> tuple[str, bool]:
    """``weight / denominator`` reduced, as :func:`_fraction` writes it. A fraction of
    more than 90 bits in all has more than 24 digits (a number of b bits has more
    than (b − 1)·log10(2) of them), so it is shortened without being written out:
    turning a number of a thousand digits into text is most of the work."""
    common = gcd(weight, denominator)
    numerator, denominator = weight // common, denominator // common
    if not exact and numerator.bit_length() + denominator.bit_length() > 90:
        return "…", True
    text = str(numerator) if denominator == 1 else f"{numerator}/{denominator}"
    if not exact and len(text) > SHORT_FRACTION:
        return "…", True
    return text, False


def _percents(locale: str) -> Callable[[int, int], str]:
    """``percent(weight, denominator)``: :func:`_percent` of ``weight / denominator``,
    the same text, without making a ``Fraction`` of each."""
    written = i18n.percents(locale)

    def percent(weight: int, denominator: int) -> str:
        spec = ".2e" if weight > 0 and weight * 10**6 < denominator else ".4f"
        return written(_share(weight, denominator), spec)

    return percent


def render_odds(odds: Distribution, locale: str = "en", exact: bool = False) -> list[str]:
    """The lines ``rollbridge odds`` prints for ``odds``: a title, a line per total,
    the mean and what was cut off. It works on the integer weights over their one
    denominator, so a million totals (``1d1000000``) take seconds, not minutes."""
    lines = [_title(odds.formula, odds.depth, odds.truncated).render(locale)]
    rows = []
    shortened = False
    denominator = odds.denominator
    percent = _percents(locale)
    left = sum(odds.weights.values())
    for value, weight in odds.weights.items():
        text, cut = _ratio(weight, denominator, exact)
        shortened |= cut
        total = str(value) if type(value) is int else _total(value, locale)
        rows.append((total, text, percent(weight, denominator), percent(left, denominator)))
        left -= weight
    heads = tuple(h().render(locale) for h in (TOTAL, PROBABILITY, PERCENT, AT_LEAST))
    first, second, third, fourth = (max(len(r[i]) for r in (heads, *rows)) for i in range(4))
    lines.append(
        f"{heads[0]:>{first}}  {heads[1]:<{second}}  {heads[2]:>{third}}  {heads[3]:>{fourth}}"
    )
    lines += [f"{a:>{first}}  {b:<{second}}  {c:>{third}}  {d:>{fourth}}" for a, b, c, d in rows]
    mean, cut = _fraction(odds.mean, exact)
    shortened |= cut
    lines.append(
        MEAN(mean=mean, approx=i18n.number(float(odds.mean), ".6g", locale)).render(locale)
    )
    if odds.truncated:
        mass, cut = _fraction(odds.truncated, exact)
        shortened |= cut
        lines.append(TRUNCATED(mass=mass, percent=_percent(odds.truncated, locale)).render(locale))
    else:
        lines.append(NOTHING_CUT().render(locale))
    if shortened:
        lines.append(LONG(count=SHORT_FRACTION).render(locale))
    return lines


def _table(args: argparse.Namespace) -> Table:
    """An offline table of ``args.formula`` (the ruleset) holding the ``--actors``,
    created through the service as ``rollbridge resolve`` creates them."""
    from rollbridge.cli.offline import (
        ACTOR_NAME,
        ACTOR_SHEET,
        example_actors,
        offline_host,
        table_settings,
    )
    from rollbridge.engine.model import Principal
    from rollbridge.exceptions import InvalidRequest
    from rollbridge.offline import TableService
    from rollbridge.stores.memory import MemoryStore

    host = offline_host()
    ruleset = host.ruleset(args.formula)
    actor_spec, target_specs = example_actors(ruleset, args.action, args.actors)
    service = TableService(MemoryStore(), host)
    settings = table_settings(args.settings, ruleset)
    info, _tokens = service.create_table("odds", ruleset.id, settings=settings, table_id="odds")
    gm = Principal("gm", "gm", "cli")
    for index, actor in enumerate(([actor_spec] if actor_spec else []) + target_specs):
        if not isinstance(actor, dict) or "sheet" not in actor:
            raise InvalidRequest(ACTOR_SHEET(number=index + 1))
        body = {k: v for k, v in actor.items() if k in ("id", "name", "sheet", "state")}
        body.setdefault("name", ACTOR_NAME(number=index + 1).render(args.locale))
        service.handle(info.id, {"type": "actor.create", "id": f"c{index}", "actor": body}, gm)
    return service.table(info.id)


def action_context(table: Table, action: str, params: object) -> ActionContext:
    """The context ``resolve`` would give the ruleset for ``action`` at ``table``: its
    parameters validated, the first actor acting (if the action takes one) and the
    others its targets, the table's settings, asked by the GM (``secret`` for an action
    that is always secret, as the server says it).

    :raises UnknownAction: InvalidParams: InvalidRequest: as ``resolve`` refuses them:
        an unknown action, bad parameters, no actor or too few targets.
    """
    from rollbridge.contract import ActionContext
    from rollbridge.engine.rolls import TARGETS_AT_LEAST
    from rollbridge.engine.views import record_actor
    from rollbridge.exceptions import InvalidRequest, UnknownAction
    from rollbridge.schema import validate

    ruleset = table.ruleset
    spec = ruleset.actions.get(action)
    if spec is None:
        known = ", ".join(sorted(ruleset.actions))
        message = UNKNOWN_ACTION(ruleset=repr(ruleset.id), action=repr(action), known=known)
        raise UnknownAction(message, details={"action": action})
    actors = [record_actor(record) for record in table.actors.values()]
    takes_actor = spec.actor != "none" and bool(actors)
    if spec.actor == "required" and not takes_actor:
        raise InvalidRequest(ACTOR_REQUIRED(action=repr(spec.name)), details={"field": "actor"})
    others = actors[1:] if takes_actor else actors
    if not spec.every_actor:
        limit = spec.max_targets if spec.max_targets is not None else len(others)
        others = others[: max(limit, 0)]
        if len(others) < spec.min_targets:
            few = TARGETS_AT_LEAST(action=repr(spec.name), low=spec.min_targets, got=len(others))
            raise InvalidRequest(few, details={"field": "targets"})
    return ActionContext(
        action=spec.name,
        params=validate(spec.params, params or {}, where="params"),
        actor=actors[0] if takes_actor else None,
        targets=tuple(others),
        settings=table.ruleset_settings,
        secret=spec.secret,  # as the server tells resolve and odds
    )


def render_action_odds(
    odds: Odds, ruleset: str, action: str, locale: str = "en", exact: bool = False
) -> list[str]:
    """The lines ``rollbridge odds RULESET ACTION`` prints for ``odds``."""
    lines = [ACTION_TITLE(ruleset=ruleset, action=action).render(locale)]
    heads = tuple(h().render(locale) for h in (OUTCOME, PROBABILITY, PERCENT))
    rows = [
        (odds.label(name, locale), _fraction(p, exact)[0], _percent(p, locale))
        for name, p in odds.outcomes.items()
    ]
    widths = [max(len(r[i]) for r in (heads, *rows)) for i in range(3)]
    for row in (heads, *rows):
        cells = [row[0].ljust(widths[0]), row[1].ljust(widths[1]), row[2].rjust(widths[2])]
        lines.append("  ".join(cells).rstrip())
    if odds.truncated:
        mass = _fraction(odds.truncated, exact)[0]
        lines.append(UNCOVERED(mass=mass, percent=_percent(odds.truncated, locale)).render(locale))
    if odds.totals is not None:
        lines.append(TOTALS(formula=odds.totals.formula).render(locale))
    if any(row[1] == "…" for row in rows):
        lines.append(LONG(count=SHORT_FRACTION).render(locale))
    return lines


def odds_reply_lines(reply: dict, locale: str = "en") -> list[str]:
    """The lines the terminal client prints for an ``odds`` reply (docs/protocol.md,
    "Odds"): each outcome (or total) with its exact fraction and percent."""
    if "distribution" in reply:
        data = reply["distribution"]
        title = _title(data["formula"], data["depth"], Fraction(data["truncated"]))
        lines = [title.render(locale)]
        rows = [(str(o["total"]), o["probability"]) for o in data["outcomes"]]
    else:
        data = reply["odds"]
        title = ACTION_TITLE(ruleset=reply.get("ruleset", ""), action=reply.get("action", ""))
        lines = [title.render(locale)]
        rows = [(o["label"], o["probability"]) for o in data["outcomes"]]
    shortened = False
    width = max((len(name) for name, _ in rows), default=0)
    percents = [_percent(Fraction(text), locale) for _, text in rows]
    right = max((len(percent) for percent in percents), default=0)  # "100,0000 %": 10
    for (name, text), percent in zip(rows, percents, strict=True):
        short, cut = _fraction(Fraction(text), False)
        shortened |= cut
        lines.append(f"  {name.ljust(width)}  {short:<{SHORT_FRACTION}}  {percent:>{right}}")
    truncated = Fraction(data["truncated"])
    if truncated:
        mass = _fraction(truncated, False)[0]
        lines.append(
            "  " + UNCOVERED(mass=mass, percent=_percent(truncated, locale)).render(locale)
        )
    if shortened:
        lines.append("  " + LONG(count=SHORT_FRACTION).render(locale))
    return lines


def _ruleset_alone(formula: str) -> NotationError | None:
    """The refusal of a ruleset's id given without its action (``rollbridge odds
    wilddie``), which read as notation: "unknown word 'wilddie'"; None for any
    other text."""
    from rollbridge.cli.offline import offline_host

    if formula.strip() not in offline_host().rulesets:
        return None
    said = RULESET_ALONE(ruleset=formula.strip())
    return NotationError(said, details={"formula": formula})


def _action_odds(args: argparse.Namespace) -> int:
    from rollbridge.cli.offline import json_arg
    from rollbridge.engine.odds import checked_odds

    params = json_arg(args.params, "--params")
    table = _table(args)
    context = action_context(table, args.action, params)
    odds = checked_odds(table, table.call_ruleset(lambda: table.ruleset.odds(context)))
    ruleset = table.ruleset.id
    if args.json:
        data = odds.to_dict(args.locale) if odds is not None else None
        print_json({"ruleset": ruleset, "action": context.action, "odds": data})
        return 0
    if odds is None:
        print(NO_ODDS(ruleset=ruleset, action=context.action).render(args.locale))
        return 0
    print("\n".join(render_action_odds(odds, ruleset, context.action, args.locale, args.exact)))
    return 0


def _odds(args: argparse.Namespace) -> int:
    if args.action is not None:
        return _action_odds(args)
    try:
        odds = distribution(args.formula, explode_depth=args.depth)
    except NotationError as refused:
        raise _ruleset_alone(args.formula) or refused from None
    if args.json:
        print_json(odds.to_dict())
        return 0
    if len(odds.weights) > LONG_TABLE and sys.stdout.isatty():
        print(LONG_OUTPUT(count=len(odds.weights)).render(args.locale), file=sys.stderr)
    print("\n".join(render_odds(odds, args.locale, args.exact)))
    return 0
