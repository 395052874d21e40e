"""Exact odds of every built-in action with dice, at the sizes the rules allow (issue 18,
item 2: at most 50 ms at p99 before every roll).

Run from the checkout::

    python benchmarks/bench_action_odds.py            # a table
    python benchmarks/bench_action_odds.py --json     # machine-readable

Each case is a table (an offline :class:`~rollbridge.offline.TableService`) holding
its actors, and a GM's ``odds`` request answered as ``rollbridge serve`` answers it
(:func:`rollbridge.engine.odds.answer_odds`: the request checked, the actors seen,
the ruleset's hook, the reply built, under the server's bounds). The baseline, in
the same run, is ``resolve`` of the same action on the same table (one roll with
seeded dice, its event built, nothing committed): the ratio says how many rolls one
answer of odds costs. p50 and p99 are in milliseconds over ``--runs`` answers.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from pathlib import Path
from typing import Any

from rollbridge.cli.offline import offline_host
from rollbridge.dice import SeededDice
from rollbridge.engine.model import Principal
from rollbridge.engine.odds import answer_odds
from rollbridge.engine.requests import parse_request
from rollbridge.odds.distribution import clear_cache
from rollbridge.offline import TableService
from rollbridge.stores.memory import MemoryStore

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_odds import quantile, timings

GM = Principal("gm", "gm", "bench")
HOST = offline_host()

SR2_ATTACKER = {"body": 6, "combat_pool": 6}
SR2_TARGET = {"body": 6, "combat_pool": 6, "armor": {"ballistic": 5, "impact": 3}}
SR2_LIMIT = {"code": "9M", "skill": 14, "attacker_pool": 6, "defender_pool": 6, "rounds": 6,
             "recoil_compensation": 2, "range": "extreme", "modifier": 2}  # fmt: skip
WD_STRONG = {"attributes": {"strength": "d12", "vigor": "d12"}, "armor": 20}
TL_SHIELD = {"layers": None}  # the example knight's layers, see _sheet

#: (ruleset, action, params, actor sheet overrides, target sheet overrides)
GRID: list[tuple[str, str, dict[str, Any], dict[str, Any], dict[str, Any]]] = [
    ("bandits", "move", {"move": "act under fire", "stat": "cool"}, {}, {}),
    (
        "bandits",
        "move",
        {
            "move": "act under fire",
            "stat": "hard",
            "advantage": True,
            "modifiers": [{"label": "cover", "value": 3}],
        },
        {},
        {},
    ),
    ("bandits", "harm", {"direction": "dealt"}, {}, {}),
    ("bandits", "harm", {"direction": "taken", "pierce": 20}, {}, {}),
    ("wilddie", "trait", {"trait": "notice", "difficulty": 4}, {}, {}),
    ("wilddie", "attack", {"mode": "melee"}, {}, {}),
    ("wilddie", "damage", {"dice": "20d100", "melee": True}, WD_STRONG, WD_STRONG),
    ("wilddie", "damage", {"dice": "d8", "melee": True}, {}, {}),
    ("sr2", "success_test", {"dice": 20, "tn": 4}, {}, {}),
    (
        "sr2",
        "attack",
        {"weapon": "Hackler", "skill": 5, "attacker_pool": 2, "rounds": 3, "range": "short"},
        {},
        {},
    ),
    ("sr2", "attack", SR2_LIMIT, SR2_ATTACKER, SR2_TARGET),  # 20 dice against 12
    ("sr2", "damage", {"code": "10S", "attack_successes": 7}, {}, {}),
    (
        "techlevel",
        "hit",
        {"weapon": "Revolver", "dice": "1d6", "tl": 2, "type": "kinetic"},
        {},
        {},
    ),
    ("techlevel", "hit", {"weapon": "Gun", "dice": "10d6", "tl": 5, "type": "kinetic"}, {}, {}),
    (
        "techlevel",
        "hit",
        {"weapon": "Gun", "dice": "20d6x", "tl": 5, "type": "kinetic"},
        {},
        {},
    ),
    (
        "techlevel",
        "hit",
        {"weapon": "Gun", "dice": "2d100x", "tl": 5, "type": "kinetic"},
        {},
        {},
    ),
]


def _merged(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        out[key] = _merged(out[key], value) if isinstance(value, dict) and isinstance(
            out.get(key), dict) else value  # fmt: skip
    return out


def _table(ruleset: str, actor: dict[str, Any], target: dict[str, Any]) -> TableService:
    service = TableService(MemoryStore(), HOST)
    service.create_table("bench", ruleset, table_id="t")
    sheets = list(HOST.ruleset(ruleset).example_sheets.values())
    bodies = [_merged(dict(sheets[0]), actor), _merged(dict(sheets[-1]), target)]
    for index, sheet in enumerate(bodies):
        body = {"id": f"a{index}", "name": f"A{index}", "sheet": sheet}
        service.handle("t", {"type": "actor.create", "id": f"c{index}", "actor": body}, GM)
    return service


def _fields(service: TableService, action: str, params: dict[str, Any]) -> dict[str, Any]:
    spec = service.table("t").ruleset.actions[action]
    fields: dict[str, Any] = {"action": action, "params": params}
    if spec.actor != "none":
        fields["actor"] = "a0"
    if spec.min_targets:
        fields["targets"] = ["a1"]
    return fields


def run(runs: int) -> dict[str, Any]:
    rows = []
    for ruleset, action, params, actor, target in GRID:
        service = _table(ruleset, actor, target)
        table = service.table("t")
        fields = _fields(service, action, params)
        odds_request = parse_request({"type": "odds", "id": "o", **fields})
        clear_cache()
        cold = timings(lambda t=table, r=odds_request: answer_odds(t, r, GM), runs=1)[0]
        odds = timings(lambda t=table, r=odds_request: answer_odds(t, r, GM), runs=runs)
        resolve = parse_request({"type": "resolve", "id": "r", **fields})
        dice = SeededDice(1)
        rolled = timings(lambda t=table, r=resolve, d=dice: _rehearse(t, r, d), runs=runs)
        rows.append({
            "ruleset": ruleset,
            "action": action,
            "params": params,
            "odds_cold_ms": cold,
            "odds_p50_ms": quantile(odds, 0.5),
            "odds_p99_ms": quantile(odds, 0.99),
            "resolve_p50_ms": quantile(rolled, 0.5),
            "ratio_p50": quantile(odds, 0.5) / quantile(rolled, 0.5),
        })  # fmt: skip
    return {"python": platform.python_version(), "machine": platform.machine(),
            "runs": runs, "rows": rows}  # fmt: skip


def _rehearse(table: Any, request: Any, dice: SeededDice) -> None:
    """``resolve`` as the table executes it, without applying it (the draft dropped)."""
    from rollbridge.engine import rolls
    from rollbridge.engine.context import RequestContext
    from rollbridge.engine.draft import Draft

    rolls.resolve(RequestContext(table, request, GM, dice, Draft(table)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    report = run(args.runs)
    if args.json:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
        return 0
    print(f"Python {report['python']} {report['machine']}, {report['runs']} answers each")
    head = ("cold", "odds p50", "odds p99", "resolve", "ratio")
    print(f"{'ruleset action':<24} {head[0]:>7} {head[1]:>9} {head[2]:>9} {head[3]:>9} "
          f"{head[4]:>7}  params")  # fmt: skip
    for row in report["rows"]:
        name = f"{row['ruleset']} {row['action']}"
        print(f"{name:<24} {row['odds_cold_ms']:7.2f} {row['odds_p50_ms']:9.3f} "
              f"{row['odds_p99_ms']:9.3f} {row['resolve_p50_ms']:9.3f} {row['ratio_p50']:6.1f}x  "
              f"{json.dumps(row['params'])[:60]}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
