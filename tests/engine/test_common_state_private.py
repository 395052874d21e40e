"""A :class:`~rollbridge.text.Private` argument in a common state's texts (a
condition, the modifier note) reads to players as it does in a result: an NPC's
detail hidden unless the ruleset reveals its aspect, a player's own actor's in full
(docs/plugins.md, "Text as data, and what players may see"). Before, players read
the NPC's value in the actor's view of every event, the ``state`` reply and the
``welcome``, since the common state was rendered without the players' ``hides``."""

from __future__ import annotations

from rollbridge.testing import PLAYER, RulesetHarness
from tests.plugins.rollunder import RollUnder


def wounded_table(**settings) -> RulesetHarness:
    """A hero (a player's) with guard 1 who wounds a bandit (an NPC) with guard 2."""
    table = RulesetHarness(RollUnder(), settings={"ruleset": settings})
    table.add_actor("Hero", {"skill": 7, "guard": 1, "toughness": 4}, actor_id="hero", player=True)
    table.add_actor("Bandit", {"skill": 5, "guard": 2, "toughness": 3}, actor_id="bandit")
    table.add_actor("Brute", {"skill": 5, "guard": 7, "toughness": 6}, actor_id="brute",
                    state={"wounds": 1})  # fmt: skip
    table.resolve("test", actor="hero", targets=["bandit"], dice=[1])
    return table


def test_players_read_an_npc_private_condition_hidden():
    table = wounded_table()
    bandit = table.actor("bandit", gm=False)["common"]
    assert bandit["conditions"] == ["bleeding: (hidden) before falling"]
    assert bandit["modifier_note"] == "guard (hidden) against every roll"
    gm = table.actor("bandit")["common"]
    assert gm["conditions"] == ["bleeding: 2 before falling"]
    assert gm["modifier_note"] == "guard 2 against every roll"


def test_the_event_and_the_state_players_get_hide_it_too():
    table = wounded_table()
    gm, players = table.views()
    assert gm["actors"][0]["common"]["conditions"] == ["bleeding: 2 before falling"]
    assert players["actors"][0]["common"]["conditions"] == ["bleeding: (hidden) before falling"]
    state = table.request({"type": "state"}, who=PLAYER)["table"]
    brute = next(actor for actor in state["actors"] if actor["id"] == "brute")
    assert brute["common"]["conditions"] == ["bleeding: (hidden) before falling"]
    assert brute["common"]["modifier_note"] == "guard (hidden) against every roll"


def test_a_player_reads_their_own_actor_in_full():
    table = wounded_table()
    table.resolve("test", actor="hero", targets=["hero"], dice=[1])
    hero = table.actor("hero", gm=False)["common"]
    assert hero["conditions"] == ["bleeding: 3 before falling"]
    assert hero["modifier_note"] == "guard 1 against every roll"


def test_what_the_ruleset_reveals_players_read():
    table = wounded_table(show_npc_details=True)
    bandit = table.actor("bandit", gm=False)["common"]
    assert bandit["conditions"] == ["bleeding: 2 before falling"]
    assert bandit["modifier_note"] == "guard 2 against every roll"
