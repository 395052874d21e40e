"""CPU time of one sr2 attack resolution, against the bare cost of its dice.

Run from the repository root::

    python benchmarks/bench_sr2.py            # default: 20,000 attacks × 7 repeats
    python benchmarks/bench_sr2.py --attacks 50000 --repeats 9

What is measured: ``SR2Ruleset.resolve`` of one attack — Tukan (skill 6 + 3
Combat Pool dice, Hackler 7M, 3-round burst, medium range) against a guard
(Body 4 + 2 pool dice, armour 4) — with parameters already validated, as the
table engine passes them, and dice from ``SeededDice``. Each iteration
resolves the same action with fresh dice; states are not carried over, so
every attack is the same shape (9 attack dice, 6 resistance dice when it hits).

Two baselines, in the same run: the bare dice engine — ``roll_pool`` of the
same 9 + 6 open-ended d6 and ``count_successes`` on each group, from the same
kind of source — and the bare draws: as many ``SeededDice.roll(6)`` calls as
the attacks drew. The ratios say what the rules, records and explanations cost
on top of rolling the dice.

CPU time is ``time.process_time``; each figure is the minimum over the
repeats (the least disturbed run), divided by the number of attacks.
"""

from __future__ import annotations

import argparse
import platform
import time

from rollbridge.contract import ActionContext, Actor
from rollbridge.dice import SeededDice, count_successes, roll_pool
from rollbridge.plugins.sr2 import SR2Ruleset
from rollbridge.schema import validate

#: The budget of the issue: CPU microseconds per attack resolution.
BUDGET_US = 50.0


def _setup() -> tuple[SR2Ruleset, ActionContext]:
    ruleset = SR2Ruleset()
    tukan_sheet = ruleset.validate_sheet(
        {
            "body": 5,
            "combat_pool": 6,
            "weapons": [{"name": "Hackler", "code": "7M", "skill": 6}],
        }
    )
    guard_sheet = ruleset.validate_sheet(
        {"body": 4, "combat_pool": 4, "armor": {"ballistic": 4, "impact": 2}}
    )
    tukan = Actor("tukan", "Tukan", tukan_sheet, ruleset.initial_state(tukan_sheet))
    guard = Actor("guard", "Guard", guard_sheet, ruleset.initial_state(guard_sheet))
    params = validate(
        ruleset.actions["attack"].params,
        {
            "weapon": "Hackler",
            "rounds": 3,
            "range": "medium",
            "attacker_pool": 3,
            "defender_pool": 2,
        },
    )
    settings = validate(ruleset.settings_schema, {}, where="settings")
    return ruleset, ActionContext("attack", params, tukan, (guard,), settings)


def _time_attacks(attacks: int, seed: int) -> tuple[float, int, int]:
    ruleset, context = _setup()
    dice = SeededDice(seed, limit=10**12)
    resolve = ruleset.resolve
    hits = 0
    start = time.process_time()
    for _ in range(attacks):
        hits += resolve(context, dice).outcome["hit"]
    return time.process_time() - start, hits, dice.drawn


def _time_draws(draws: int, seed: int) -> float:
    dice = SeededDice(seed, limit=10**12)
    roll = dice.roll
    start = time.process_time()
    for _ in range(draws):
        roll(6)
    return time.process_time() - start


def _time_baseline(attacks: int, seed: int) -> float:
    dice = SeededDice(seed, limit=10**12)
    start = time.process_time()
    for _ in range(attacks):
        count_successes(roll_pool(dice, 9, 6, compounding=True), 8)
        count_successes(roll_pool(dice, 6, 6, compounding=True), 6)
    return time.process_time() - start


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--attacks", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)

    attack_times = []
    baseline_times = []
    draw_times = []
    hit_rate = 0.0
    draws = 0
    for repeat in range(args.repeats):
        elapsed, hits, draws = _time_attacks(args.attacks, seed=repeat)
        attack_times.append(elapsed)
        baseline_times.append(_time_baseline(args.attacks, seed=repeat))
        draw_times.append(_time_draws(draws, seed=repeat))
        hit_rate = hits / args.attacks
    per_attack = min(attack_times) / args.attacks * 1e6
    per_baseline = min(baseline_times) / args.attacks * 1e6
    per_draws = min(draw_times) / args.attacks * 1e6
    ratio = per_attack / per_baseline
    print(f"machine: {platform.machine()}, {platform.python_implementation()} "
          f"{platform.python_version()}, {platform.system()}")  # fmt: skip
    print(f"attacks per repeat: {args.attacks}, repeats: {args.repeats}, hit rate {hit_rate:.0%}")
    print(f"sr2 attack resolve: {per_attack:7.1f} µs CPU per attack (budget {BUDGET_US:.0f} µs)")
    print(f"baseline (15 dice, roll_pool + count_successes): {per_baseline:7.1f} µs")
    print(f"bare draws ({draws / args.attacks:.1f} source.roll(6) per attack): {per_draws:7.1f} µs")
    print(
        f"ratio attack / baseline: {ratio:.2f}, attack / bare draws: {per_attack / per_draws:.2f}"
    )
    print("within budget" if per_attack <= BUDGET_US else "OVER BUDGET")
    return {
        "attack_us": per_attack,
        "baseline_us": per_baseline,
        "draws_us": per_draws,
        "ratio": ratio,
    }


if __name__ == "__main__":
    main()
