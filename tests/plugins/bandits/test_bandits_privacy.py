"""No NPC's sheet number, total built from it, or hidden state reaches players.

For every action of the ruleset, and for the turn hooks, with NPC participants whose
sheets hold distinctive numbers: none of those numbers (nor the totals built from
them) appears anywhere in the players' view — its JSON numbers and every number
written in its texts — and no key of an NPC's hidden state does, in the event's data
or in its view of an NPC; with
``show_npc_details`` on, they all do. Each scenario's GM view is checked to hold them
too, so a check that could not fail would fail.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from rollbridge.plugins.bandits import BanditsRuleset
from rollbridge.testing import RulesetHarness, all_keys

ANA = {"stats": {"cool": 1, "steady": 1}, "armour": 1, "pierce": 10}  # the players' bandit
GUARD = {"kind": "extra", "armour": 8, "pierce": 9, "stats": {"hard": 7}}
BOSS = {"kind": "bandit", "armour": 9, "pierce": 8, "stats": {"steady": -7, "hard": -10}}
# What players may not see of an NPC bandit's state, and of an extra's (its kind: an
# extra's public state is only {"wounded", "out"}).
BANDIT_STATE = {"slots", "stabilised", "dying_turn_started"}
EXTRA_STATE = {"kind"}
RULE = re.compile(r"BD-\d+")  # rule numbers are not data


def numbers(view: dict[str, Any]) -> set[int]:
    """Every number in an event view's data and actors: JSON numbers (by their size)
    and each number written in a text or a key (rule numbers ``BD-n`` aside)."""
    found: set[int] = set()

    def walk(value: Any) -> None:
        if isinstance(value, bool) or value is None:
            return
        if isinstance(value, int):
            found.add(abs(value))
        elif isinstance(value, str):
            found.update(int(n) for n in re.findall(r"\d+", RULE.sub("", value)))
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(key)
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk({"data": view["data"], "actors": view["actors"]})
    return found


def npc_keys(view: dict[str, Any]) -> set[str]:
    """Every key in an event view's data and in its views of NPCs (a player's own
    actor is shown whole)."""
    npcs = [actor for actor in view["actors"] if not actor.get("controllers")]
    return all_keys(view["data"]) | all_keys(npcs)


def table(reveal: bool, **states: dict[str, Any]) -> RulesetHarness:
    harness = RulesetHarness(BanditsRuleset(), settings={"ruleset": {"show_npc_details": reveal}})
    harness.add_actor("Ana", ANA, actor_id="ana", player=True)
    harness.add_actor("Guard", GUARD, actor_id="guard", state=states.get("guard"))
    harness.add_actor("Boss", BOSS, actor_id="boss", state=states.get("boss"))
    return harness


def bandit(*slots: int) -> dict[str, Any]:
    names = {1: "lightly", 2: "seriously", 3: "heavily", 4: "dying"}
    return {
        "kind": "bandit",
        "slots": {name: n in slots for n, name in names.items()},
        "dying": 4 in slots,
        "stabilised": False,
        "dead": False,
        "dying_turn_started": False,
        "dual_wield": None,
    }


def harm(actor: str | None, target: str, dice: list[int], **params: Any) -> Callable:
    """A harm roll with supplied dice."""

    def run(harness: RulesetHarness) -> None:
        harness.resolve("harm", actor=actor, targets=[target], params=params, dice=dice)

    return run


def move(harness: RulesetHarness) -> None:
    harness.resolve("move", actor="boss", params={"move": "go aggro", "stat": "hard"}, dice=[6, 6])


def medpack(harness: RulesetHarness) -> None:
    harness.resolve("medpack", actor="ana", targets=["boss"], params={"n": 1})


def stabilise(harness: RulesetHarness) -> None:
    harness.resolve("stabilise", actor="ana", targets=["boss"], params={"means": "item"})


def end_of_turn(harness: RulesetHarness) -> None:
    harness.resolve("end_of_turn", actor="boss")


def end_of_raid(harness: RulesetHarness) -> None:
    harness.resolve("end_of_raid", params={"kept_wounds": {"boss": 3}})


def encounter(harness: RulesetHarness) -> None:
    """The boss is dying: its turn starts (the BD-8 countdown), then ends (it dies)."""
    harness.request({"type": "encounter.start", "order": ["ana", "boss"]})
    harness.request({"type": "encounter.next"})
    harness.request({"type": "encounter.next"})


@dataclass(frozen=True)
class Scenario:
    """What to run, from which NPC states, and what players may not see of it. Each
    secret number is one no visible number can be: the dice, the harm table's row,
    the players' bandit's sheet and the wounds are all other numbers."""

    name: str
    run: Callable[[RulesetHarness], None]
    secret: set[int]
    keys: set[str]
    states: dict[str, Any] = field(default_factory=dict)


SCENARIOS = [
    # 6 + 6 − Guard's Armour 8 + Ana's Pierce 10 = 14 (13–15): 4 wounds, out
    Scenario(
        "harm dealt to an extra",
        harm("ana", "guard", [6, 6], direction="dealt"),
        {8, 14},
        EXTRA_STATE,
    ),
    # 6 + 5 − Ana's Steady 1 − Armour 1 + Boss's Pierce 8 = 17 (16–18)
    Scenario(
        "harm by an NPC's Pierce", harm("boss", "ana", [6, 5], direction="taken"), {8, 17}, set()
    ),
    # 4 + 4 − Ana's Armour 1 + the 13 given for the boss = 20 (19–21)
    Scenario(
        "harm by a given Pierce",
        harm("boss", "ana", [4, 4], direction="dealt", pierce=13),
        {13, 20},
        set(),
    ),
    # 6 + 6 − Boss's Steady −7 − Armour 9 + Ana's Pierce 10 = 20 (19–21): dead
    Scenario(
        "harm taken by an NPC",
        harm("ana", "boss", [6, 6], direction="taken"),
        {7, 8, 9, 20},
        BANDIT_STATE,
    ),
    # 6 + 6 + hard −10, clamped to −4 = 8 (partial: 7 and 9 are in the band's text)
    Scenario("move with an NPC's stat", move, {8, 10}, set()),
    Scenario("medpack on an NPC", medpack, {7, 8, 9, 10}, BANDIT_STATE, {"boss": bandit(2, 3)}),
    Scenario("stabilising an NPC", stabilise, {7, 8, 9, 10}, BANDIT_STATE, {"boss": bandit(4)}),
    Scenario("end of an NPC's turn", end_of_turn, {7, 8, 9, 10}, BANDIT_STATE, {"boss": bandit(4)}),
    # Ana is healed too: her sheet (Pierce 10) is in the view
    Scenario("end of the raid", end_of_raid, {7, 8, 9}, BANDIT_STATE, {"boss": bandit(1, 3)}),
    Scenario("turn hooks", encounter, {7, 8, 9, 10}, BANDIT_STATE, {"boss": bandit(4)}),
]
IDS = [scenario.name for scenario in SCENARIOS]


def views(scenario: Scenario, reveal: bool) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Run the scenario on a fresh table: each new event as the GM and players see it."""
    harness = table(reveal, **scenario.states)
    seq = harness.table.info.seq
    scenario.run(harness)
    events = harness.events(seq)
    assert events
    return [
        (harness.table.view_event(e, gm=True), harness.table.view_event(e, gm=False))
        for e in events
    ]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_players_see_no_npc_sheet_number_or_hidden_state(scenario):
    secret, keys = scenario.secret, scenario.keys
    seen_by_gm: set[int] = set()
    gm_keys: set[str] = set()
    for gm, player in views(scenario, reveal=False):
        seen_by_gm |= numbers(gm)
        gm_keys |= all_keys(gm)
        assert not secret & numbers(player), sorted(secret & numbers(player))
        assert not keys & npc_keys(player), sorted(keys & npc_keys(player))
    assert secret <= seen_by_gm and keys <= gm_keys  # the check can fail


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_show_npc_details_shows_them(scenario):
    secret, keys = scenario.secret, scenario.keys
    seen: set[int] = set()
    seen_keys: set[str] = set()
    for gm, player in views(scenario, reveal=True):
        assert player["data"] == gm["data"]
        seen |= numbers(player)
        seen_keys |= npc_keys(player)
    assert secret <= seen and keys <= seen_keys


def test_reveals_names_the_aspects_show_npc_details_shows():
    ruleset = BanditsRuleset()
    for aspect in ("sheet", "state"):
        assert ruleset.reveals(aspect, {"show_npc_details": True}) is True
        assert ruleset.reveals(aspect, {"show_npc_details": False}) is False
    assert ruleset.reveals("other", {"show_npc_details": True}) is False
