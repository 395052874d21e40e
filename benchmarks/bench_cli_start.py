"""Start-up of an offline command, this tree against another commit's, in one run.

Run from the repository root::

    python benchmarks/bench_cli_start.py                     # against main, 50 calls each
    python benchmarks/bench_cli_start.py --ref HEAD~1 --calls 100 --locale cs

What is measured: the wall time of a whole ``rollbridge resolve`` call (``python -m
rollbridge resolve sr2 success_test … --seed 3 --locale LANG``, a new interpreter each
time, output thrown away) with this working tree's code and with the code of
``--ref`` (``git archive`` into a temporary folder, run from there), the two taking
turns call by call so that the machine's noise falls on both alike. Reported: the
median and the lower quartile of each, and their ratio. The help of every command
being declared as messages (cli11) is what it was written for: a command that
parses without error must not pay for its help's translations.

Beside it, closer to what changed: the CPU time of building the whole parser
(``rollbridge.cli.build_parser()``, what every call does before parsing), the least of
``--builds`` builds in one interpreter per tree, after a first build that declares
the messages (whose cost the whole calls above include).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARGV = ["resolve", "sr2", "success_test", "--params", '{"dice": 3, "tn": 4}', "--seed", "3"]


def _tree(ref: str, into: Path) -> Path:
    """``ref``'s files in ``into``, laid out as the package imports them (``rollbridge``
    the core, with its plugins and adapters inside)."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", ref, "core", "plugins", "adapters"],
        check=True,
        capture_output=True,
    ).stdout
    with tempfile.TemporaryFile() as file:
        file.write(archive)
        file.seek(0)
        with tarfile.open(fileobj=file) as tar:
            tar.extractall(into, filter="data")
    (into / "core").rename(into / "rollbridge")
    (into / "plugins").rename(into / "rollbridge" / "plugins")
    (into / "adapters").rename(into / "rollbridge" / "adapters")
    return into


def _call(path: Path | None, locale: str) -> float:
    environ = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    if path is not None:  # before the installed package
        environ["PYTHONPATH"] = str(path)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "rollbridge", *ARGV, "--locale", locale],
        check=True,
        stdout=subprocess.DEVNULL,
        env=environ,
    )
    return time.perf_counter() - start


_BUILD = (
    "import time; from rollbridge.cli import build_parser\n"
    "first = time.process_time(); build_parser(); first = time.process_time() - first\n"
    "least = min(-time.process_time() + (build_parser(), time.process_time())[1]"
    " for _ in range({builds}))\n"
    "print(first, least)"
)


def _builds(path: Path | None, builds: int) -> tuple[float, float]:
    """The first build's and the least later build's CPU time, in one interpreter."""
    environ = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    if path is not None:
        environ["PYTHONPATH"] = str(path)
    probe = _BUILD.format(builds=builds)
    said = subprocess.run(
        [sys.executable, "-c", probe], check=True, capture_output=True, text=True, env=environ
    ).stdout.split()
    return float(said[0]), float(said[1])


def main() -> None:
    """Time the two trees' calls, taking turns, and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ref", default="main", help="the commit to compare with")
    parser.add_argument("--calls", type=int, default=50, help="calls of each tree")
    parser.add_argument("--locale", default="en", help="--locale of the calls")
    parser.add_argument("--builds", type=int, default=20, help="parser builds per tree")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        other = _tree(args.ref, Path(folder))
        for path in (None, other):  # warm the file cache of both
            _call(path, args.locale)
        times: dict[str, list[float]] = {"this tree": [], args.ref: []}
        for _ in range(args.calls):
            times["this tree"].append(_call(None, args.locale))
            times[args.ref].append(_call(other, args.locale))
        built = {"this tree": _builds(None, args.builds), args.ref: _builds(other, args.builds)}
    print(f"rollbridge {' '.join(ARGV)} --locale {args.locale}: {args.calls} calls each")
    medians = {}
    for name, taken in times.items():
        quartile = statistics.quantiles(taken, n=4)[0]
        medians[name] = statistics.median(taken)
        print(f"  {name:>10}: median {medians[name] * 1000:.1f} ms, "
              f"lower quartile {quartile * 1000:.1f} ms")  # fmt: skip
    print(f"  ratio (this tree / {args.ref}): {medians['this tree'] / medians[args.ref]:.3f}")
    print(f"build_parser(), CPU time (first build; least of {args.builds} more)")
    for name, (first, least) in built.items():
        print(f"  {name:>10}: {first * 1000:.2f} ms; {least * 1000:.2f} ms")


if __name__ == "__main__":
    main()
