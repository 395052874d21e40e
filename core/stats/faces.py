"""One dice group's faces counted in bulk: what a roll of thousands of dice costs.

A ``stats`` of a log of the largest rolls (2,997 dice each, ~128 KiB) counted every
face with a few Python calls of its own — ~1.6 µs a die, ~5 s of a reader thread
for 1,000 such events, the interpreter's lock held for most of it (hostile29).
Here a group's dice are read once, their faces gathered per die size, and each
size's faces added to every summary by :meth:`collections.Counter.update` (a loop
in C). What is counted is what :mod:`rollbridge.stats.tally` always counted
(docs/statistics.md): tests/hostile/test_hostile_stats_reads.py counts the same
logs by hand and compares.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.stats.summary import Summary

__all__ = ["count_group"]


def count_group(group: Mapping[str, Any], summaries: list[Summary]) -> bool:
    """Count one dice group into each summary; whether it showed a die.

    A group tagged ``reroll`` shows an earlier roll again with some dice rerolled
    (a chip): only its dice tagged ``reroll`` were rolled now; its successes and
    botch are not counted again (a test counts its first result). A die counts
    when its ``faces`` is an integer of 1 or more and its ``rolls`` a list; of its
    rolls, the integers (not booleans)."""
    tags = group.get("tags") or ()
    rerolled = "reroll" in tags
    successes = None if rerolled else group.get("successes")
    botch = not rerolled and "botch" in tags
    for summary in summaries:
        if successes.__class__ is int:
            summary.successes += successes
        if botch:
            summary.botches += 1
    pools, blown = _die_by_die(group.get("dice") or (), rerolled)
    shown = False
    for faces, pool in pools.items():
        ints = pool if set(map(type, pool)) <= {int} else [f for f in pool if f.__class__ is int]
        shown = shown or bool(ints)
        explosions = blown.get(faces, 0)
        for summary in summaries:
            counts = summary.die(faces)
            counts.explosions += explosions
            counts.shown.update(ints)
    return shown


def _die_by_die(dice: Any, rerolled: bool) -> tuple[dict[int, list[Any]], dict[int, int]]:
    """The faces of ``dice`` gathered per size, and the explosions per size, read
    die by die: any group's dice (a chip's reroll, tagged dice, sizes mixed)."""
    pools: dict[int, list[Any]] = {}
    blown: dict[int, int] = {}
    for die in dice:
        faces, rolls = die.get("faces"), die.get("rolls")
        if faces.__class__ is not int or faces < 1 or not isinstance(rolls, list):
            continue
        marks = die.get("tags") or ()
        if marks:
            if rerolled and "reroll" not in marks:
                continue  # the earlier roll's die, counted with it
            explosions = (1 if "exploded" in marks else 0) + (
                max(0, len(rolls) - 1) if "compounded" in marks else 0
            )
            blown[faces] = blown.get(faces, 0) + explosions
        elif rerolled:
            continue
        pool = pools.get(faces)
        if pool is None:
            pool = pools[faces] = []
        pool += rolls
    return pools, blown
