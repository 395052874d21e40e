"""What bandits results mean for roll statistics (:meth:`BanditsRuleset.statistics`).

Read from an event *as the asker sees it*: a value the view leaves out counts for
nothing. Move rolls by band (BD-1: 10+ full success, 7-9 partial, 6- miss) and the
wounds of harm rolls (BD-3, BD-5: the attacker deals them, the target takes them).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.contract import Count, Statistics, dealt_and_taken
from rollbridge.contract import actor_of as _id

from .messages import say

__all__ = ["STATISTICS", "STATISTICS_KEYS", "count"]

STATISTICS_KEYS = (
    ("moves", say("stats.moves", "Moves rolled")()),
    ("full", say("stats.full", "Full successes (10+)")()),
    ("partial", say("stats.partial", "Partial successes (7-9)")()),
    ("miss", say("stats.miss", "Misses (6-)")()),
    ("harm_rolls", say("stats.harm_rolls", "Harm rolls")()),
    ("wounds_dealt", say("stats.wounds_dealt", "Wounds dealt")()),
    ("wounds_taken", say("stats.wounds_taken", "Wounds taken")()),
)
_BANDS = frozenset({"full", "partial", "miss"})


def count(view: Mapping[str, Any]) -> list[Count]:
    """The counts of one event view (see the module docstring)."""
    data = view.get("data")
    if view.get("kind") != "resolution" or not isinstance(data, Mapping):
        return []
    outcome = data.get("outcome")
    if not isinstance(outcome, Mapping):
        return []
    action, actor = data.get("action"), _id(data.get("actor"))
    counts: list[Count] = []
    if action == "move" and actor:
        counts.append(Count(actor, "moves"))
        band = outcome.get("band")
        if band in _BANDS:
            counts.append(Count(actor, band))  # type: ignore[arg-type]
    elif action == "harm":
        attacker, target = _id(outcome.get("attacker")), _id(outcome.get("target"))
        roller = _id(outcome.get("roller")) or attacker
        if roller:
            counts.append(Count(roller, "harm_rolls"))
        wounds = outcome.get("wounds")
        counts += dealt_and_taken(attacker, target, wounds, "wounds_dealt", "wounds_taken")
    return counts


#: bandits' statistics: the ruleset's :meth:`~rollbridge.contract.Ruleset.statistics`.
STATISTICS = Statistics(keys=STATISTICS_KEYS, count=count)
