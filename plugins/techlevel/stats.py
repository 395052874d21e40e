"""What techlevel results mean for roll statistics (:meth:`TechLevel.statistics`).

Read from an event *as the asker sees it*: a value the view leaves out counts for
nothing. Hits (TL-1) by the attacker (by no one, a trap: the session's alone);
penetrations, the hits that struck the body
itself because no layer above it was left (TL-2, TL-3); the boxes crossed on the
layer struck (TL-4, TL-5), dealt by the attacker and taken by the target; hits a
layer's immunity stopped (TL-6); layers destroyed (TL-5).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.contract import Count, Statistics, dealt_and_taken
from rollbridge.contract import actor_of as _id

from .messages import say

__all__ = ["STATISTICS", "STATISTICS_KEYS", "count"]

STATISTICS_KEYS = (
    ("hits", say("stats.hits", "Hits")()),
    ("penetrations", say("stats.penetrations", "Penetrations (body struck)")()),
    ("boxes_dealt", say("stats.boxes_dealt", "Boxes dealt")()),
    ("boxes_taken", say("stats.boxes_taken", "Boxes taken")()),
    ("immune", say("stats.immune", "Hits stopped by immunity")()),
    ("layers_destroyed", say("stats.layers_destroyed", "Layers destroyed")()),
)


def count(view: Mapping[str, Any]) -> list[Count]:
    """The counts of one event view (see the module docstring)."""
    data = view.get("data")
    if view.get("kind") != "resolution" or not isinstance(data, Mapping):
        return []
    outcome = data.get("outcome")
    if data.get("action") != "hit" or not isinstance(outcome, Mapping):
        return []
    attacker = _id(outcome.get("attacker")) or _id(data.get("actor"))
    target = _id(outcome.get("target"))
    counts: list[Count] = []
    # a hit with no attacker (a trap, a fall) counts for the session alone (actor None)
    counts.append(Count(attacker, "hits"))
    if outcome.get("layer") == "body":
        counts.append(Count(attacker, "penetrations"))
    if outcome.get("immune") is True:
        counts.append(Count(attacker, "immune"))
    if outcome.get("destroyed") is True:
        counts.append(Count(attacker, "layers_destroyed"))
    crossed = outcome.get("crossed")
    counts += dealt_and_taken(attacker, target, crossed, "boxes_dealt", "boxes_taken")
    return counts


#: techlevel's statistics: the ruleset's :meth:`~rollbridge.contract.Ruleset.statistics`.
STATISTICS = Statistics(keys=STATISTICS_KEYS, count=count)
