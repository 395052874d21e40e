"""Exact odds: ``rollbridge.odds.distribution`` against icepool, same process.

Run from the checkout, with the test extra installed (it brings icepool)::

    python benchmarks/bench_odds.py            # a table
    python benchmarks/bench_odds.py --json     # machine-readable

Each formula's exact distribution is computed from scratch again and again —
rollbridge's ``distribution`` of the parsed formula (a parsed ``Formula``
bypasses the cache that ``distribution(text)`` keeps, so every run computes)
and, as the baseline, icepool building the same distribution from fresh dice
(``icepool.Die`` objects made anew each time, so its per-die caches do not carry
over). The table gives p50 and p99 in
milliseconds of each and the ratio icepool / rollbridge at p50 (above 1:
rollbridge is faster). Explosions use rollbridge's default depth, 10, and
icepool's ``explode(depth=11)``, the same dice (see tests/odds/test_odds_icepool.py).

Options: ``--seconds`` (time per formula and library, default 1.0), ``--json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections.abc import Callable

from rollbridge.dice.notation import parse
from rollbridge.odds import DEFAULT_DEPTH, distribution

try:
    import icepool
except ImportError:  # pragma: no cover - the table then has rollbridge only
    icepool = None


def _die(faces: int):
    return icepool.Die(list(range(1, faces + 1)))


def _explode(faces: int):
    return _die(faces).explode(depth=DEFAULT_DEPTH + 1)


#: (formula, icepool's construction of the same distribution)
GRID: list[tuple[str, Callable[[], object]]] = [
    ("1d20", lambda: _die(20)),
    ("3d6", lambda: 3 @ _die(6)),
    ("2d20kh1 + 5", lambda: _die(20).pool(2).highest(1).sum() + 5),
    ("4d6kh3", lambda: _die(6).pool(4).highest(3).sum()),
    ("10d6", lambda: 10 @ _die(6)),
    ("6d6cs>=5", lambda: 6 @ (_die(6) >= 5)),
    ("3d6x", lambda: 3 @ _explode(6)),
    ("20d6!!", lambda: 20 @ _explode(6)),
    ("40d10kh5", lambda: _die(10).pool(40).highest(5).sum()),
    ("8d10x>=9", lambda: 8 @ _die(10).explode([9, 10], depth=DEFAULT_DEPTH + 1)),
    ("999d6", lambda: 999 @ _die(6)),
    ("999d6kh3", lambda: _die(6).pool(999).highest(3).sum()),
]


def timings(function: Callable[[], object], *, seconds: float = 0.0, runs: int = 5) -> list[float]:
    """Milliseconds of ``function``, sorted: at least ``runs`` calls, more until
    ``seconds`` have passed (at most 2,000)."""
    times: list[float] = []
    deadline = time.perf_counter() + seconds
    while len(times) < runs or (time.perf_counter() < deadline and len(times) < 2000):
        start = time.perf_counter()
        function()
        times.append((time.perf_counter() - start) * 1000)
    return sorted(times)


def quantile(times: list[float], q: float) -> float:
    """The ``q`` quantile of sorted ``times``."""
    return times[min(len(times) - 1, int(q * len(times)))]


def run(seconds: float) -> dict[str, object]:
    rows = []
    for formula, reference in GRID:
        parsed = parse(formula)  # parse once, as a server would; compute every time
        ours = timings(lambda f=parsed: distribution(f), seconds=seconds)
        row = {
            "formula": formula,
            "rollbridge_p50_ms": quantile(ours, 0.5),
            "rollbridge_p99_ms": quantile(ours, 0.99),
            "runs": len(ours),
        }
        if icepool is not None:
            try:
                theirs = timings(reference, seconds=seconds)
            except RecursionError:  # icepool sums N dice recursively
                row["icepool_error"] = "RecursionError"
            else:
                row["icepool_p50_ms"] = quantile(theirs, 0.5)
                row["icepool_p99_ms"] = quantile(theirs, 0.99)
                row["ratio_p50"] = row["icepool_p50_ms"] / row["rollbridge_p50_ms"]
        rows.append(row)
    return {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "icepool": getattr(icepool, "__version__", None),
        "depth": DEFAULT_DEPTH,
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    report = run(args.seconds)
    if args.json:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
        return 0
    print(
        f"Python {report['python']} {report['machine']}, icepool {report['icepool']}, "
        f"depth {report['depth']}"
    )
    heads = ("ours p50", "ours p99", "icepool p50", "icepool p99", "ratio")
    print(
        f"{'formula':<16} {heads[0]:>9} {heads[1]:>9} {heads[2]:>12} {heads[3]:>12} {heads[4]:>7}"
    )
    for row in report["rows"]:
        if "icepool_p50_ms" in row:
            tail = (
                f"{row['icepool_p50_ms']:12.3f} {row['icepool_p99_ms']:12.3f} "
                f"{row['ratio_p50']:6.1f}x"
            )
        else:
            tail = f"{row.get('icepool_error', ''):>12}"
        ours = f"{row['rollbridge_p50_ms']:9.3f} {row['rollbridge_p99_ms']:9.3f}"
        print(f"{row['formula']:<16} {ours} {tail}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
