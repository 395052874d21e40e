"""What wilddie results mean for roll statistics (:meth:`WildDieRuleset.statistics`).

Read from an event *as the asker sees it*: a value the view leaves out counts for
nothing. Raises (WD-3: every 4 over the difficulty), the wild die used (WD-3: a
pc's wild die beat its trait die and counted), attacks and hits (WD-6), the wounds
of damage rolls (WD-7, WD-8: the attacker deals them, the target takes them) and
chips spent on rerolls (WD-4).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.contract import Count, Statistics, dealt_and_taken
from rollbridge.contract import actor_of as _id
from rollbridge.contract import positive as _positive

from .messages import say

__all__ = ["STATISTICS", "STATISTICS_KEYS", "count"]

STATISTICS_KEYS = (
    ("tests", say("stats.tests", "Trait tests")()),
    ("raises", say("stats.raises", "Raises")()),
    ("wild_die_used", say("stats.wild_die_used", "Wild die used")()),
    ("attacks", say("stats.attacks", "Attacks")()),
    ("hits", say("stats.hits", "Hits")()),
    ("wounds_dealt", say("stats.wounds_dealt", "Wounds dealt")()),
    ("wounds_taken", say("stats.wounds_taken", "Wounds taken")()),
    ("chips_spent", say("stats.chips_spent", "Chips spent")()),
)
#: The actions that roll a trait test (WD-3), a turn hook's recovery roll (WD-9)
#: included. A chip rerolls one (WD-4): a test counts its first result (a chip's
#: change would need the test in the same session), the chip its dice and itself.
_TESTS = frozenset({"trait", "attack", "recover", "turn_start_recovery"})


def count(view: Mapping[str, Any]) -> list[Count]:
    """The counts of one event view (see the module docstring)."""
    data = view.get("data")
    if view.get("kind") not in ("resolution", "hook") or not isinstance(data, Mapping):
        return []
    outcome = data.get("outcome")
    actor = _id(data.get("actor"))
    if not isinstance(outcome, Mapping) or actor is None:
        return []
    action = data.get("action")
    if action not in _TESTS and outcome.get("action") in _TESTS:
        action = outcome["action"]  # a turn hook's roll: the hook's name is its action
    counts: list[Count] = []
    if action in _TESTS and "total" in outcome:
        counts.append(Count(actor, "tests"))
        if raises := _positive(outcome.get("raises")):
            counts.append(Count(actor, "raises", raises))
        if outcome.get("kept") == "wild":
            counts.append(Count(actor, "wild_die_used"))
    if action == "attack":
        counts.append(Count(actor, "attacks"))
        if outcome.get("hit") is True:
            counts.append(Count(actor, "hits"))
    if action == "damage":
        wounds, target = outcome.get("wounds_inflicted"), _id(outcome.get("target"))
        counts += dealt_and_taken(actor, target, wounds, "wounds_dealt", "wounds_taken")
    if chips := _positive(outcome.get("chips_spent")):
        counts.append(Count(actor, "chips_spent", chips))
    return counts


#: wilddie's statistics: the ruleset's :meth:`~rollbridge.contract.Ruleset.statistics`.
STATISTICS = Statistics(keys=STATISTICS_KEYS, count=count)
