"""What sr2 results mean for roll statistics (:meth:`SR2Ruleset.statistics`).

Read from an event *as the asker sees it*: a value the view leaves out counts
for nothing. Attacks and hits (SR-8: a hit is an attack test with at least one
success), the staged damage level dealt and taken (SR-4, SR-10), boxes dealt and
taken (SR-5, SR-11; also a GM's direct ``adjust`` of a monitor, shown to players
only for a player's actor).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.contract import Count, Statistics, dealt_and_taken, positive
from rollbridge.contract import actor_of as _id

from .messages import say

__all__ = ["STATISTICS", "STATISTICS_KEYS", "count"]

_LEVELS = {"L": "light", "M": "moderate", "S": "serious", "D": "deadly"}
_MONITORS = ("physical", "stun")

STATISTICS_KEYS = (
    ("attacks", say("stats.attacks", "Attacks")()),
    ("hits", say("stats.hits", "Hits")()),
    ("boxes_dealt", say("stats.boxes_dealt", "Boxes dealt")()),
    ("boxes_taken", say("stats.boxes_taken", "Boxes taken")()),
    ("dealt_light", say("stats.dealt_light", "Light wounds dealt")()),
    ("dealt_moderate", say("stats.dealt_moderate", "Moderate wounds dealt")()),
    ("dealt_serious", say("stats.dealt_serious", "Serious wounds dealt")()),
    ("dealt_deadly", say("stats.dealt_deadly", "Deadly wounds dealt")()),
    ("taken_light", say("stats.taken_light", "Light wounds taken")()),
    ("taken_moderate", say("stats.taken_moderate", "Moderate wounds taken")()),
    ("taken_serious", say("stats.taken_serious", "Serious wounds taken")()),
    ("taken_deadly", say("stats.taken_deadly", "Deadly wounds taken")()),
)


def count(view: Mapping[str, Any]) -> list[Count]:
    """The counts of one event view (see the module docstring)."""
    data = view.get("data")
    if not isinstance(data, Mapping):
        return []
    if view.get("kind") == "adjusted":
        actor, delta = _id(data.get("actor")), positive(data.get("delta"))
        if actor and data.get("track") in _MONITORS and delta:
            return [Count(actor, "boxes_taken", delta)]
        return []
    if view.get("kind") != "resolution" or data.get("action") not in ("attack", "damage"):
        return []
    outcome = data.get("outcome")
    if not isinstance(outcome, Mapping):
        return []
    counts: list[Count] = []
    attacker = _id(outcome.get("attacker")) or _id(data.get("actor"))
    defender = _id(outcome.get("defender"))
    if data.get("action") == "attack" and attacker:
        counts.append(Count(attacker, "attacks"))
        if outcome.get("hit") is True:
            counts.append(Count(attacker, "hits"))
    boxes, level = outcome.get("boxes"), _LEVELS.get(outcome.get("level"))  # type: ignore[arg-type]
    if level is not None:
        if attacker:
            counts.append(Count(attacker, f"dealt_{level}"))
        if defender:
            counts.append(Count(defender, f"taken_{level}"))
    counts += dealt_and_taken(attacker, defender, boxes, "boxes_dealt", "boxes_taken")
    return counts


#: sr2's statistics: the ruleset's :meth:`~rollbridge.contract.Ruleset.statistics`.
STATISTICS = Statistics(keys=STATISTICS_KEYS, count=count)
