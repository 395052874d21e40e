"""Offline commands: ``plugins``, ``rulesets``, ``roll`` and ``resolve``.

They load the plugin host and run the real table engine on an in-memory store
(through :class:`~rollbridge.offline.TableService`, the offline driver of the same
pipeline the server runs), so a ruleset can be tried without a server: with the
table's settings (``--settings``), as the GM or as a player (``--as``), each call
with fresh request ids. Nothing of the server stack (websockets, asyncio) loads.

Each prints in the language of ``--locale`` (else the environment's: see
:mod:`rollbridge.cli.locales`): the CLI's own words, and, since ``resolve`` asks the
service for the result in that locale, the ruleset's narration and explanation
steps. ``--json`` keeps its keys; its texts are in the locale too.
"""

from __future__ import annotations

import argparse
import json
import secrets
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rollbridge.cli import shared_help
from rollbridge.cli.helps import Help
from rollbridge.cli.json_option import add_json_option
from rollbridge.cli.locales import add_locale_option
from rollbridge.cli.render import dice_line, print_json, render_event
from rollbridge.dice import roll_formula
from rollbridge.dice.sources import DiceSource, ScriptedDice, SecureDice, SeededDice
from rollbridge.engine.views import hides_now
from rollbridge.exceptions import InvalidRequest, InvalidSettings, RollbridgeError
from rollbridge.json_words import json_reason
from rollbridge.plain import JSON
from rollbridge.text import Messages, Text, render

if TYPE_CHECKING:
    from rollbridge.contract import Ruleset
    from rollbridge.host import PluginHost

__all__ = [
    "SETTINGS_HELP",
    "actor_specs",
    "add_parsers",
    "example_actors",
    "json_arg",
    "not_json",
    "offline_host",
    "params_hint",
    "parse_dice",
    "table_settings",
]


say = Messages("rollbridge")
#: The help of ``--settings`` (``resolve``, ``table create``): what :func:`table_settings`
#: reads; {more} is what the command adds.
SETTINGS_HELP = say(
    "cli.help.settings",
    'table settings as JSON: the ruleset\'s own (e.g. {{"rule_of_one": false}}, or nested '
    'as {{"ruleset": {{...}}}}) and the core ones ("approval", "player_dice", "verifiable", '
    '"locale"){more}',
)
# Translators: {part} is what was given, quoted.
NOT_WHOLE = say("cli.dice.not_whole", "--dice: {part} is not a whole number")
NO_DICE = say("cli.dice.none", "--dice: give the results as comma-separated numbers, e.g. 6,1,4")
# Translators: {option} is the option (--params), {problem} the JSON parser's own
# (English) words, {position} a character count.
NOT_JSON = say("cli.json", "{option}: not valid JSON ({problem} at character {position})")
TOO_DEEP_JSON = say(
    "cli.json.limit",
    "{option}: not accepted as JSON: it nests too deep or a number in it is too long",
)
ACTORS_SHAPE = say(
    "cli.actors.shape", '--actors: give a list of actors or {{"actor": ..., "targets": [...]}}'
)
ACTORS_TARGETS = say("cli.actors.targets", '--actors: "targets" must be a list of actors')
ACTOR_SHEET = say("cli.actors.sheet", "--actors: actor #{number} needs a sheet")
# Translators: {ruleset} and {action} are ids; example_sheets is a Python attribute.
NO_EXAMPLE_ACTORS = say(
    "cli.actors.no_examples",
    "--actors: ruleset {ruleset} has no example sheets to make the actors of {action} "
    "from: give them with --actors, or give the ruleset example_sheets",
)
# Translators: the name of an actor --actors gives without one.
ACTOR_NAME = say("cli.actors.name", "Actor {number}")
SETTINGS_SHAPE = say(
    "cli.settings.shape", '--settings: give a JSON object, e.g. {{"rule_of_one": false}}'
)
# Translators: {field} is the key as given; {core} the table settings every table has;
# {ruleset} a ruleset id; {own} its settings. Keep "settings." before {field}.
NOT_A_SETTING = say(
    "cli.settings.unknown",
    "settings.{field}: is neither a table setting (known: {core}) nor a setting of "
    "ruleset {ruleset} (known: {own})",
)
# Translators: as cli.settings.unknown, for a ruleset that has no settings.
NOT_A_SETTING_NONE = say(
    "cli.settings.unknown_none",
    "settings.{field}: is not a table setting (known: {core}), and ruleset {ruleset} has "
    "no settings of its own",
)
VERIFIABLE_DICE = say(
    "cli.resolve.verifiable_dice",
    "--dice and --seed do not apply to a verifiable table (setting verifiable: its dice "
    "come from the seeds the server commits to): leave out one or the other",
)
# Translators: how `rollbridge plugins` lists what a plugin provides.
PROVIDES_RULESET = say("cli.plugins.ruleset", "ruleset {id}")
PROVIDES_ADAPTER = say("cli.plugins.adapter", "adapter {id}")
HOOKS_ONLY = say("cli.plugins.hooks_only", "observer hooks only")
# Translators: {source} is where the plugin comes from (builtin, or a package).
PLUGIN = say("cli.plugins.line", "{name} {version} ({source}): {provides}")
GM_ONLY = say("cli.rulesets.gm_only", "{action} (GM only)")
#: An action resolved as a secret request whoever asks (ActionSpec(secret=True)).
ALWAYS_SECRET = say("cli.rulesets.secret", "{action} (always secret)")
EXAMPLE = say("cli.rulesets.example", "example: --params '{params}'")
WAITING = say("cli.resolve.waiting", "waiting for the GM's approval (table setting approval)")
# Translators: {status} is the reply's status code (pending, secret), in connect with the
# waiting request's id (pending p12): keep it.
STATUS_NOTE = say("cli.resolve.status", "{status}: {note}")
# Translators: {ruleset} is a ruleset id; the command after the colon stays as it is.
PARAMS_HINT = say(
    "cli.resolve.params_hint",
    "the actions, parameters and examples of {ruleset}: see rollbridge rulesets {ruleset}",
)

#: The refusals whose cure is reading the action's parameters.
_PARAMS_CODES = frozenset({"invalid_params", "unknown_action"})


def params_hint(args: argparse.Namespace, error: RollbridgeError) -> Text | None:
    """The words after a refusal of ``resolve``'s or ``odds``' action or parameters:
    where the ruleset's actions and their parameters are listed."""
    ruleset = getattr(args, "ruleset", None)
    if ruleset is None and getattr(args, "action", None):  # odds RULESET ACTION
        ruleset = args.formula
    if error.code not in _PARAMS_CODES or not isinstance(ruleset, str):
        return None
    return PARAMS_HINT(ruleset=ruleset)


def parse_dice(text: str) -> list[int]:
    """``"6,1,4"`` → ``[6, 1, 4]``; a clear error for anything else."""
    values = []
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        try:
            values.append(int(part))
        except ValueError:
            raise InvalidRequest(NOT_WHOLE(part=repr(part))) from None
    if not values:
        raise InvalidRequest(NO_DICE())
    return values


def not_json(exc: json.JSONDecodeError, option: str) -> Text:
    """Why an option's (or a command's) text is not JSON: the decoder's reason in the
    reader's language, at the character it stopped at, counted from 1 as a reader
    counts (and as a dice formula's error counts)."""
    return NOT_JSON(option=option, problem=json_reason(exc), position=exc.pos + 1)


def json_arg(text: str, option: str) -> Any:
    """The JSON value an option gives; a one-line error naming the option if it is not JSON."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidRequest(not_json(exc, option)) from None
    except (ValueError, RecursionError):  # nested too deep, a number too long
        raise InvalidRequest(TOO_DEEP_JSON(option=option)) from None


def _source(args: argparse.Namespace) -> DiceSource:
    if args.dice is not None:
        return ScriptedDice(parse_dice(args.dice))
    if args.seed is not None:
        return SeededDice(args.seed)
    return SecureDice()


def add_parsers(commands: argparse._SubParsersAction) -> None:
    """Add the offline sub-commands."""
    plugins = commands.add_parser(
        "plugins", help=Help(say("cli.help.plugins", "list loaded plugins with versions"))
    )
    add_json_option(plugins)
    add_locale_option(plugins)
    plugins.set_defaults(handler=_plugins)

    rulesets = commands.add_parser(
        "rulesets", help=Help(say("cli.help.rulesets", "list rulesets and their actions"))
    )
    rulesets.add_argument(
        "ruleset",
        nargs="?",
        help=Help(say("cli.help.rulesets.ruleset", "show one ruleset in detail")),
    )
    add_json_option(rulesets)
    add_locale_option(rulesets)
    rulesets.set_defaults(handler=_rulesets)

    roll = commands.add_parser(
        "roll", help=Help(say("cli.help.roll", "roll dice notation, e.g. 4d6kh3+2"))
    )
    roll.add_argument(
        "formula", help=Help(say("cli.help.roll.formula", "Foundry-style dice notation"))
    )
    roll.add_argument("--seed", help=Help(shared_help.SEED))
    roll.add_argument("--dice", help=Help(shared_help.DICE))
    add_json_option(roll)
    add_locale_option(roll)
    roll.set_defaults(handler=_roll)

    resolve = commands.add_parser(
        "resolve",
        help=Help(
            say("cli.help.resolve", "resolve a ruleset action offline and show the new states")
        ),
    )
    resolve.add_argument("ruleset", help=Help(shared_help.RULESET_ID))
    resolve.add_argument(
        "action", help=Help(say("cli.help.resolve.action", "action name, e.g. attack"))
    )
    resolve.add_argument(
        "--params",
        default="{}",
        help=Help(say("cli.help.resolve.params", "action parameters as JSON")),
    )
    resolve.add_argument(
        "--actors",
        help=Help(
            say(
                "cli.help.resolve.actors",
                'actors as JSON: a list (first acts, the rest are targets) or {{"actor": '
                '{{...}}, "targets": [...]}}; each {{"name", "sheet", "state"?}}. Default: the '
                "example sheets",
            )
        ),
    )
    resolve.add_argument(
        "--settings",
        help=Help(
            SETTINGS_HELP,
            more=say("cli.help.resolve.settings", "; default: the ruleset's defaults")(),
        ),
    )
    resolve.add_argument(
        "--as",
        dest="role",
        choices=("gm", "player", "observer"),
        default="gm",
        help=Help(
            say(
                "cli.help.resolve.as",
                'who asks (default gm). A player controls the actors whose "controllers" '
                'name "player" in --actors, or else the acting actor',
            )
        ),
    )
    resolve.add_argument("--dice", help=Help(shared_help.DICE))
    resolve.add_argument("--seed", help=Help(shared_help.SEED))
    resolve.add_argument(
        "--json",
        action="store_true",
        help=Help(say("cli.help.resolve.json", "print JSON (its texts in --locale)")),
    )
    add_locale_option(resolve)
    resolve.set_defaults(handler=_resolve, hint=params_hint)


def offline_host() -> PluginHost:
    """The plugin host of the offline commands (``resolve``, ``odds``)."""
    from rollbridge.host import PluginHost

    return PluginHost()


def _plugins(args: argparse.Namespace) -> int:
    host = offline_host()
    plugins = host.describe_plugins()
    if args.json:
        print_json(plugins)
        return 0
    locale = args.locale
    for plugin in plugins:
        provides = [PROVIDES_RULESET(id=r).render(locale) for r in plugin["rulesets"]] + [
            PROVIDES_ADAPTER(id=a).render(locale) for a in plugin["adapters"]
        ]
        line = PLUGIN(
            name=plugin["name"],
            version=plugin["version"],
            source=plugin["source"],
            provides=", ".join(provides) or HOOKS_ONLY().render(locale),
        )
        print(line.render(locale))
    return 0


def _rulesets(args: argparse.Namespace) -> int:
    host = offline_host()
    chosen = [host.ruleset(args.ruleset)] if args.ruleset else list(host.rulesets.values())
    if args.json:
        print_json([r.describe(args.locale) for r in chosen])
        return 0
    locale = args.locale
    for ruleset in chosen:
        print(f"{ruleset.id} {ruleset.version}: {render(ruleset.name, locale=locale)}")
        if args.ruleset and ruleset.summary:
            print(f"  {render(ruleset.summary, locale=locale)}")
        for name, spec in ruleset.actions.items():
            action = GM_ONLY(action=name).render(locale) if spec.gm_only else name
            if spec.secret:
                action = ALWAYS_SECRET(action=action).render(locale)
            print(f"  {action}: {render(spec.summary, locale=locale)}")
            if args.ruleset and spec.example is not None:
                written = json.dumps(spec.example_in(locale), ensure_ascii=False)
                example = EXAMPLE(params=written)
                print(f"      {example.render(locale)}")
    return 0


def _roll(args: argparse.Namespace) -> int:
    source = _source(args)
    result = roll_formula(args.formula, source)
    source.finish()
    if args.json:
        print_json(result.to_dict())
        return 0
    print(result.describe())
    for group in result.to_dict().get("groups", ()):
        print(f"  {dice_line(group, args.locale)}")
    return 0


def actor_specs(
    ruleset_sheets: Mapping[str, Any], raw: str | None
) -> tuple[JSON | None, list[JSON]]:
    """The acting actor and the targets ``--actors`` gives (else the ruleset's
    example sheets), as ``actor.create`` specs.

    :raises InvalidRequest: not JSON, neither a list nor ``{"actor", "targets"}``,
        or ``targets`` not a list (its number, text or map was once iterated: a
        traceback, or each letter taken for an actor).
    """
    if raw is None:
        specs = [{"name": name, "sheet": sheet} for name, sheet in ruleset_sheets.items()]
        return (specs[0] if specs else None), specs[1:]
    data = json_arg(raw, "--actors")
    if isinstance(data, list):
        return (data[0] if data else None), list(data[1:])
    if isinstance(data, dict) and ("actor" in data or "targets" in data):
        targets = data.get("targets")
        if targets is not None and not isinstance(targets, list):  # a number, a text, a map
            raise InvalidRequest(ACTORS_TARGETS(), details={"field": "--actors.targets"})
        return data.get("actor"), list(targets or [])
    raise InvalidRequest(ACTORS_SHAPE())


def example_actors(
    ruleset: Ruleset, action: str | None, raw: str | None
) -> tuple[JSON | None, list[JSON]]:
    """:func:`actor_specs` of ``--actors`` or the ruleset's example sheets.

    :raises InvalidRequest: no ``--actors`` and no example sheets, for an action that
        takes an acting actor or a target (it was refused as needing an acting actor,
        which said nothing of where the actors come from).
    """
    spec = ruleset.actions.get(action) if action is not None else None
    needs = spec is not None and (spec.actor == "required" or spec.min_targets > 0)
    if raw is None and not ruleset.example_sheets and needs:
        raise InvalidRequest(
            NO_EXAMPLE_ACTORS(ruleset=repr(ruleset.id), action=repr(action)),
            details={"field": "--actors"},
        )
    return actor_specs(ruleset.example_sheets, raw)


def table_settings(raw: str | None, ruleset: Ruleset) -> JSON:
    """``--settings`` as table settings (``resolve``, ``odds``, ``table create``).

    Flat, as people write them: the core keys (those of
    :data:`~rollbridge.engine.settings.CORE_SETTINGS_SCHEMA`) as they are, every other
    key one of the ruleset's, merged into ``ruleset``; or nested, the protocol's form,
    ``{"ruleset": {...}}``; or both (a flat key over the same nested one). The table
    validates the result whole (:func:`~rollbridge.engine.settings.default_settings`).

    :raises InvalidRequest: not JSON, or not a JSON object.
    :raises InvalidSettings: a flat key that is neither a core setting nor one of the
        ruleset's, naming both.
    """
    from rollbridge.engine.settings import CORE_SETTINGS_SCHEMA

    if raw is None:
        return {}
    given = json_arg(raw, "--settings")
    if not isinstance(given, dict):
        raise InvalidRequest(SETTINGS_SHAPE())
    core = CORE_SETTINGS_SCHEMA["properties"]
    settings = {k: v for k, v in given.items() if k in core}
    own = {k: v for k, v in given.items() if k not in core}
    if not own:
        return settings
    _check_own(own, ruleset, core)
    nested = settings.get("ruleset")
    if nested is None or isinstance(nested, dict):  # else the table refuses it as it is
        settings["ruleset"] = {**(nested or {}), **own}
    return settings


def _check_own(own: Mapping[str, Any], ruleset: Ruleset, core: Mapping[str, Any]) -> None:
    """Refuse a flat key of ``--settings`` the ruleset's settings schema does not know
    (one that takes any key knows them all)."""
    schema = ruleset.settings_schema
    if schema.get("additionalProperties", False) is not False:
        return
    known = sorted(schema.get("properties") or {})
    for field in own:
        if field not in known:
            said = {"field": field, "core": ", ".join(sorted(core)), "ruleset": ruleset.id}
            text = (NOT_A_SETTING(own=", ".join(known), **said) if known
                    else NOT_A_SETTING_NONE(**said))  # fmt: skip
            raise InvalidSettings(text, details={"field": f"settings.{field}"})


def _resolve(args: argparse.Namespace) -> int:
    from rollbridge.engine.model import Principal
    from rollbridge.offline import TableService
    from rollbridge.stores.memory import MemoryStore

    locale = args.locale
    host = offline_host()
    ruleset = host.ruleset(args.ruleset)
    params = json_arg(args.params, "--params")
    actor_spec, target_specs = example_actors(ruleset, args.action, args.actors)
    spec = ruleset.actions.get(args.action)
    source = _source(args)
    service = TableService(MemoryStore(), host, dice=SecureDice)
    settings = table_settings(args.settings, ruleset)
    if settings.get("verifiable") is True and (args.dice is not None or args.seed is not None):
        raise InvalidRequest(VERIFIABLE_DICE(), details={"field": "settings.verifiable"})
    info, _tokens = service.create_table("offline", ruleset.id, settings=settings,
                                         table_id="offline")  # fmt: skip
    gm = Principal("gm", "gm", "cli")
    who = gm if args.role == "gm" else Principal(args.role, args.role, f"cli-{args.role}")
    specs = ([actor_spec] if actor_spec else []) + target_specs
    named = any(isinstance(a, dict) and "controllers" in a for a in specs)
    run = secrets.token_hex(4)  # fresh request ids at every call
    ids: list[str] = []
    for index, actor in enumerate(specs):
        if not isinstance(actor, dict) or "sheet" not in actor:
            raise InvalidRequest(ACTOR_SHEET(number=index + 1))
        body = {
            k: v for k, v in actor.items() if k in ("id", "name", "sheet", "state", "controllers")
        }
        body.setdefault("name", ACTOR_NAME(number=index + 1).render(locale))
        if args.role == "player" and not named and index == 0 and actor_spec is not None:
            body["controllers"] = ["player"]
        reply = service.handle(
            info.id, {"type": "actor.create", "id": f"c{index}-{run}", "actor": body}, gm
        )
        ids.append(reply["actor"])
    message: JSON = {"type": "resolve", "id": f"r-{run}", "action": args.action, "params": params}
    takes_actor = spec is None or spec.actor != "none"
    if ids and takes_actor:
        message["actor"] = ids[0]
    others = ids[1:] if takes_actor else ids
    if spec is not None and not spec.every_actor:
        limit = spec.max_targets if spec.max_targets is not None else len(others)
        message["targets"] = others[: max(limit, 0)]
    try:
        reply = service.handle(info.id, message, who, source, locale=locale)
    except RollbridgeError as error:
        if who is not gm:  # a player reads a refusal as the server sends it to players
            table = service.protocol(info.id).table
            error.hides = hides_now(table.ruleset, table.ruleset_settings, table.controlled)
        raise
    if "event" not in reply:  # pending approval, or a secret the player may not see
        if args.json:
            print_json(reply)
        else:
            note = reply.get("note") or (
                WAITING().render(locale) if reply.get("status") == "pending" else ""
            )
            line = STATUS_NOTE(status=reply.get("status"), note=note).render(locale)
            print(line.rstrip(": "))
        return 0
    event = reply["event"]
    if args.json:
        print_json(event)
        return 0
    print(render_event(event, show_state=True, locale=locale))
    return 0
