"""Dice throughput: rollbridge's ``roll_formula`` against the d20 library.

Run from anywhere, with the Python rollbridge is developed with (3.11+)::

    python benchmarks/bench_dice.py

d20 pins the old ``lark-parser`` package, so it is kept out of the project's
environment: the first run creates ``benchmarks/.venv-d20`` (git-ignored), installs
``d20`` and this checkout (editable) into it, and re-runs itself there. Both
libraries are then timed in that one process, interleaved, on equivalent
formulas; the table gives rolls per second of each and the ratio per formula.

Three comparisons:

* ``roll``: ``roll_formula(f, source)`` against ``d20.roll(f)``. Both parse
  (both cache parsed formulas), roll and return a result holding the total and
  every die result; neither builds its text. rollbridge builds its per-die
  ``Die`` records on first access, d20 builds its die objects during the roll.
* ``+ records``: ``roll_formula(f, source).groups`` (every ``Die`` and
  ``DiceGroup`` record built) against ``d20.roll(f)``: the strictest pairing.
* ``+ text``: ``roll_formula(f, source).describe()`` against ``str(d20.roll(f))``:
  the roll plus the one-line text a chat message shows.

rollbridge rolls with one :class:`SeededDice` whose per-request limit is raised
for the run (the benchmark is one long "request"); d20 uses its default roller.

Options: ``--seconds`` (time per measurement, default 0.1), ``--repeats``
(default 9; the best is reported), ``--json`` (machine-readable output).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
import venv
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
VENV = HERE / ".venv-d20"
STAMP = VENV / ".rollbridge-bench-installed"

#: (label, rollbridge formula, d20 formula): d20 writes "explode on 6" as e6.
FORMULAS = [
    ("4d6kh3", "4d6kh3", "4d6kh3"),
    ("1d20+5", "1d20+5", "1d20+5"),
    ("10d6", "10d6", "10d6"),
    ("6d6 exploding", "6d6x", "6d6e6"),
]


def _venv_python() -> Path:
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _bootstrap() -> None:
    """Create the d20 venv if needed and re-run this script inside it."""
    if os.environ.get("ROLLBRIDGE_BENCH_CHILD"):
        sys.exit("d20 is not importable inside benchmarks/.venv-d20; delete it and retry")
    python = _venv_python()
    if not STAMP.exists():
        print(f"creating {VENV.relative_to(REPO)} with d20 and this checkout ...", file=sys.stderr)
        venv.create(VENV, with_pip=True, clear=VENV.exists())
        pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        subprocess.run([*pip, "d20"], check=True)
        subprocess.run([*pip, "-e", str(REPO)], check=True)
        STAMP.write_text("d20 and rollbridge installed\n")
    env = dict(os.environ, ROLLBRIDGE_BENCH_CHILD="1")
    completed = subprocess.run([str(python), str(Path(__file__).resolve()), *sys.argv[1:]], env=env)
    sys.exit(completed.returncode)


def _rate(call: Callable[[], object], seconds: float) -> float:
    """Calls per second of ``call``, over a loop that lasts about ``seconds``."""
    loops = 1
    while True:  # calibrate: grow the loop until it lasts a tenth of the time
        started = time.perf_counter()
        for _ in range(loops):
            call()
        elapsed = time.perf_counter() - started
        if elapsed >= seconds / 10:
            break
        loops *= 2
    loops = max(1, int(loops * seconds / elapsed))
    started = time.perf_counter()
    for _ in range(loops):
        call()
    return loops / (time.perf_counter() - started)


def _mean(call: Callable[[], float], count: int = 20_000) -> float:
    return sum(call() for _ in range(count)) / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.1)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    try:
        import d20
    except ImportError:
        _bootstrap()
        return

    import rollbridge
    from rollbridge.dice import SeededDice, roll_formula

    source = SeededDice(2024, limit=sys.maxsize)
    rows = []
    for label, ours, theirs in FORMULAS:
        pairs: dict[str, tuple[Callable[[], object], Callable[[], object]]] = {
            "roll": (lambda f=ours: roll_formula(f, source), lambda f=theirs: d20.roll(f)),
            "+ records": (
                lambda f=ours: roll_formula(f, source).groups,
                lambda f=theirs: d20.roll(f),
            ),
            "+ text": (
                lambda f=ours: roll_formula(f, source).describe(),
                lambda f=theirs: str(d20.roll(f)),
            ),
        }
        row: dict[str, object] = {"formula": label, "rollbridge": ours, "d20": theirs}
        for kind, (ours_call, theirs_call) in pairs.items():
            ours_rates, theirs_rates = [], []
            for _ in range(args.repeats):  # interleaved, so load changes hit both
                ours_rates.append(_rate(ours_call, args.seconds))
                theirs_rates.append(_rate(theirs_call, args.seconds))
            # the best of the repeats, as timeit advises: slower runs measure
            # other processes on the machine, not the code
            ours_rate, theirs_rate = max(ours_rates), max(theirs_rates)
            row[kind] = {
                "rollbridge_per_s": round(ours_rate),
                "d20_per_s": round(theirs_rate),
                "ratio": round(ours_rate / theirs_rate, 2),
            }
        # the formulas are equivalent: the mean totals agree
        row["mean_total"] = {
            "rollbridge": round(_mean(lambda f=ours: roll_formula(f, source).total), 2),
            "d20": round(_mean(lambda f=theirs: d20.roll(f).total), 2),
        }
        rows.append(row)

    machine = {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "d20": getattr(d20, "__version__", "1.1.2"),
        "rollbridge": rollbridge.__version__,
        "rollbridge_from": str(Path(rollbridge.__file__).parent),
    }
    if args.json:
        print(json.dumps({"machine": machine, "results": rows}, indent=2))
        return
    print(
        f"Python {machine['python']} on {machine['cpus']} CPUs ({machine['platform']}); "
        f"best of {args.repeats} × {args.seconds}s, interleaved"
    )
    print()
    print("| formula (rollbridge / d20) | compared | rollbridge rolls/s | d20 rolls/s | ratio |")
    print("|---|---|--:|--:|--:|")
    for row in rows:
        for kind in ("roll", "+ records", "+ text"):
            figures = row[kind]
            print(
                f"| `{row['rollbridge']}` / `{row['d20']}` | {kind} "
                f"| {figures['rollbridge_per_s']:,} | {figures['d20_per_s']:,} "
                f"| {figures['ratio']:.2f}x |"
            )
    print()
    print("mean total over 20,000 rolls (the formulas are equivalent):")
    for row in rows:
        mean = row["mean_total"]
        print(f"  {row['formula']}: rollbridge {mean['rollbridge']}, d20 {mean['d20']}")


if __name__ == "__main__":
    main()
