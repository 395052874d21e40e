"""Offline commands: ``plugins``, ``rulesets``, ``roll`` and ``resolve``.

They load the plugin host and run the real table engine on an in-memory
store, so a ruleset can be tried without a server.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from typing import Any

from rollbridge.cli.render import dice_line, print_json, render_event
from rollbridge.dice import roll_formula
from rollbridge.dice.sources import DiceSource, ScriptedDice, SecureDice, SeededDice
from rollbridge.engine.model import Principal
from rollbridge.exceptions import InvalidRequest
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores.memory import MemoryStore

__all__ = ["add_parsers", "parse_dice"]

JSON = dict[str, Any]


def parse_dice(text: str) -> list[int]:
    """``"6,1,4"`` → ``[6, 1, 4]``; a clear error for anything else."""
    values = []
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        try:
            values.append(int(part))
        except ValueError:
            raise InvalidRequest(f"--dice: {part!r} is not a whole number") from None
    if not values:
        raise InvalidRequest("--dice: give the results as comma-separated numbers, e.g. 6,1,4")
    return values


def _json_arg(text: str, option: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidRequest(
            f"{option}: not valid JSON ({exc.msg} at character {exc.pos})"
        ) from None


def _source(args: argparse.Namespace) -> DiceSource:
    if args.dice is not None:
        return ScriptedDice(parse_dice(args.dice))
    if args.seed is not None:
        return SeededDice(args.seed)
    return SecureDice()


def add_parsers(commands: argparse._SubParsersAction) -> None:
    """Add the offline sub-commands."""
    plugins = commands.add_parser("plugins", help="list loaded plugins with versions")
    plugins.add_argument("--json", action="store_true", help="print JSON")
    plugins.set_defaults(handler=_plugins)

    rulesets = commands.add_parser("rulesets", help="list rulesets and their actions")
    rulesets.add_argument("ruleset", nargs="?", help="show one ruleset in detail")
    rulesets.add_argument("--json", action="store_true", help="print JSON")
    rulesets.set_defaults(handler=_rulesets)

    roll = commands.add_parser("roll", help="roll dice notation, e.g. 4d6kh3+2")
    roll.add_argument("formula", help="Foundry-style dice notation")
    roll.add_argument("--seed", help="seed the dice (reproducible)")
    roll.add_argument("--dice", help="supply the die results in order: 6,1,4")
    roll.add_argument("--json", action="store_true", help="print JSON")
    roll.set_defaults(handler=_roll)

    resolve = commands.add_parser(
        "resolve", help="resolve a ruleset action offline and show the new states"
    )
    resolve.add_argument("ruleset", help="ruleset id, e.g. sr2")
    resolve.add_argument("action", help="action name, e.g. attack")
    resolve.add_argument("--params", default="{}", help="action parameters as JSON")
    resolve.add_argument(
        "--actors",
        help='actors as JSON: a list (first acts, the rest are targets) or {"actor": {...}, '
        '"targets": [...]}; each {"name", "sheet", "state"?}. Default: the example sheets',
    )
    resolve.add_argument("--dice", help="supply the die results in order: 6,1,4")
    resolve.add_argument("--seed", help="seed the dice (reproducible)")
    resolve.add_argument("--json", action="store_true", help="print JSON")
    resolve.set_defaults(handler=_resolve)


def _plugins(args: argparse.Namespace) -> int:
    host = PluginHost()
    plugins = host.describe_plugins()
    if args.json:
        print_json(plugins)
        return 0
    for plugin in plugins:
        provides = [f"ruleset {r}" for r in plugin["rulesets"]] + [
            f"adapter {a}" for a in plugin["adapters"]
        ]
        print(
            f"{plugin['name']} {plugin['version']} ({plugin['source']}): "
            f"{', '.join(provides) or 'observer hooks only'}"
        )
    return 0


def _rulesets(args: argparse.Namespace) -> int:
    host = PluginHost()
    chosen = [host.ruleset(args.ruleset)] if args.ruleset else list(host.rulesets.values())
    if args.json:
        print_json([r.describe() for r in chosen])
        return 0
    for ruleset in chosen:
        print(f"{ruleset.id} {ruleset.version}: {ruleset.name}")
        if args.ruleset and ruleset.summary:
            print(f"  {ruleset.summary}")
        for name, spec in ruleset.actions.items():
            who = " (GM only)" if spec.gm_only else ""
            print(f"  {name}{who}: {spec.summary}")
            if args.ruleset and spec.example is not None:
                print(f"      example: --params '{json.dumps(spec.example)}'")
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
        print(f"  {dice_line(group)}")
    return 0


def _actor_specs(
    ruleset_sheets: Mapping[str, Any], raw: str | None
) -> tuple[JSON | None, list[JSON]]:
    if raw is None:
        specs = [{"name": name, "sheet": sheet} for name, sheet in ruleset_sheets.items()]
        return (specs[0] if specs else None), specs[1:]
    data = _json_arg(raw, "--actors")
    if isinstance(data, list):
        return (data[0] if data else None), list(data[1:])
    if isinstance(data, dict) and ("actor" in data or "targets" in data):
        return data.get("actor"), list(data.get("targets") or [])
    raise InvalidRequest('--actors: give a list of actors or {"actor": ..., "targets": [...]}')


def _resolve(args: argparse.Namespace) -> int:
    host = PluginHost()
    ruleset = host.ruleset(args.ruleset)
    params = _json_arg(args.params, "--params")
    actor_spec, target_specs = _actor_specs(ruleset.example_sheets, args.actors)
    spec = ruleset.actions.get(args.action)
    source = _source(args)
    service = TableService(MemoryStore(), host, dice=SecureDice)
    info, _tokens = service.create_table("offline", ruleset.id, table_id="offline")
    gm = Principal("gm", "gm", "cli")
    ids: list[str] = []
    for index, actor in enumerate(([actor_spec] if actor_spec else []) + target_specs):
        if not isinstance(actor, dict) or "sheet" not in actor:
            raise InvalidRequest(f"--actors: actor #{index + 1} needs a sheet")
        body = {k: v for k, v in actor.items() if k in ("id", "name", "sheet", "state")}
        body.setdefault("name", f"Actor {index + 1}")
        reply = service.handle(
            info.id, {"type": "actor.create", "id": f"c{index}", "actor": body}, gm
        )
        ids.append(reply["actor"])
    message: JSON = {"type": "resolve", "id": "r", "action": args.action, "params": params}
    takes_actor = spec is None or spec.actor != "none"
    if ids and takes_actor:
        message["actor"] = ids[0]
    others = ids[1:] if takes_actor else ids
    if spec is not None and not spec.every_actor:
        limit = spec.max_targets if spec.max_targets is not None else len(others)
        message["targets"] = others[: max(limit, 0)]
    reply = service.handle(info.id, message, gm, source)
    event = reply["event"]
    if args.json:
        print_json(event)
        return 0
    print(render_event(event, show_state=True))
    return 0
