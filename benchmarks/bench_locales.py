"""CPU time of rendering one event in Czech, German or Russian, against English.

Run from the repository root::

    python benchmarks/bench_locales.py                 # 2,000 renders × 7 repeats
    python benchmarks/bench_locales.py --renders 5000 --repeats 9

What is measured: building one audience's view of a resolved event —
``Table.view_event`` with the event's view cache emptied before each call — for
the example action of each built-in ruleset (sr2's attack, techlevel's hit,
bandits' move, wilddie's trait test), as the players see it, in each locale. The
catalogues are loaded before timing (a server loads each once). The baseline, in
the same run, is the same view in English, the reference language, whose
templates need no catalogue lookup; the ratios say what a translated view costs
on top of an English one. A table whose clients read four languages builds four
views per audience instead of one, each once per event however many clients
share it.

CPU time is ``time.process_time``; each figure is the minimum over the repeats,
divided by the number of renders; the locales take turns within each repeat.
"""

from __future__ import annotations

import argparse
import platform
import time

from rollbridge.engine.views import Audience
from rollbridge.host import PluginHost
from rollbridge.testing import RulesetHarness

LOCALES = ("en", "cs", "de", "ru")
#: The action measured per ruleset (with its example parameters).
ACTIONS = {"sr2": "attack", "techlevel": "hit", "bandits": "move", "wilddie": "trait"}


def _resolved(ruleset_id: str) -> tuple[object, object]:
    """A harness table with the ruleset's example actors, after its example action."""
    ruleset = PluginHost().ruleset(ruleset_id)
    harness = RulesetHarness(ruleset, seed=7)
    ids = [
        harness.add_actor(name, sheet, actor_id=f"a{i}")
        for i, (name, sheet) in enumerate(ruleset.example_sheets.items())
    ]
    name = ACTIONS[ruleset_id]
    spec = ruleset.actions[name]
    actor = ids[0] if spec.actor != "none" else None
    wanted = spec.min_targets or (1 if (spec.max_targets or 0) >= 1 else 0)
    targets = [] if spec.every_actor else [i for i in ids if i != actor][:wanted]
    harness.resolve(name, params=spec.example_in("en") or {}, actor=actor, targets=targets)
    return harness.table, harness.events()[-1]


def _time(table: object, event: object, locale: str, renders: int) -> float:
    audience = Audience(False, locale)
    views = event.views
    view_event = table.view_event
    view_event(event, audience=audience)  # the catalogue loaded, the template cache warm
    start = time.process_time()
    for _ in range(renders):
        views.clear()
        view_event(event, audience=audience)
    return time.process_time() - start


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--renders", type=int, default=2_000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    print(f"machine: {platform.machine()}, {platform.python_implementation()} "
          f"{platform.python_version()}, {platform.system()}")  # fmt: skip
    print(f"renders per repeat: {args.renders}, repeats: {args.repeats}; players' view")
    figures: dict[str, dict[str, float]] = {}
    for ruleset_id in ACTIONS:
        table, event = _resolved(ruleset_id)
        times: dict[str, list[float]] = {locale: [] for locale in LOCALES}
        for _ in range(args.repeats):  # the locales interleaved, so drift hits them alike
            for locale in LOCALES:
                times[locale].append(_time(table, event, locale, args.renders))
        best = {locale: min(spent) / args.renders * 1e6 for locale, spent in times.items()}
        figures[ruleset_id] = best
        english = best["en"]
        parts = ", ".join(
            f"{locale} {best[locale]:6.1f} µs ({best[locale] / english:.2f})"
            for locale in LOCALES[1:]
        )
        print(f"{ruleset_id:>9}: en {english:6.1f} µs (baseline); {parts}")
    return figures


if __name__ == "__main__":
    main()
