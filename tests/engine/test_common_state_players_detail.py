"""A player's actor's :class:`~rollbridge.text.Private` detail in the texts of an NPC's
common state — a bandit's condition naming the guard of the hero who wounded it — read
"(hidden)" to players: the NPC's view took every actor for an NPC (it was not told
which actors are players'), though players read the hero's details in full everywhere
else (its own view, every result). The view is now told which actors players control,
as the table stood where it is of (the live table, the event, the seq of a ``state``
with ``at``): the hero's guard reads in full; an NPC's detail there stays hidden.

(The conformance suite fails a ruleset that marks another actor's detail in a common
state at all; a table whose ruleset does so regardless reads it as here.)"""

from __future__ import annotations

from rollbridge.testing import PLAYER, RulesetHarness
from tests.plugins.test_conformance_own_details import NamesItsWounder

PLAYERS_READ = ["bleeding: (hidden) before falling", "wounded past a guard of 1"]


def wounded_bandit(**settings) -> RulesetHarness:
    """The hero (a player's, guard 1) wounds the bandit (an NPC): the bandit's
    condition names the hero's guard, marked the hero's detail."""
    table = RulesetHarness(NamesItsWounder(), settings={"ruleset": settings})
    table.add_actor("Hero", {"skill": 7, "guard": 1, "toughness": 4}, actor_id="hero", player=True)
    table.add_actor("Bandit", {"skill": 9, "guard": 4, "toughness": 3}, actor_id="bandit")
    table.add_actor("Brute", {"skill": 9, "guard": 5, "toughness": 6}, actor_id="brute")
    table.resolve("test", actor="hero", targets=["bandit"], dice=[1])
    return table


def test_players_read_a_players_detail_on_an_npcs_condition():
    table = wounded_bandit()
    assert table.actor("bandit", gm=False)["common"]["conditions"] == PLAYERS_READ
    assert table.actor("bandit")["common"]["conditions"] == [
        "bleeding: 2 before falling",
        "wounded past a guard of 1",
    ]


def test_the_event_and_the_state_players_get_read_it_too():
    table = wounded_bandit()
    seq = table.table.info.seq
    _, players = table.views()
    (bandit,) = [a for a in players["actors"] if a["id"] == "bandit"]
    assert bandit["common"]["conditions"] == PLAYERS_READ
    table.resolve("test", actor="hero", targets=["hero"], dice=[1])  # a later event
    for message in ({"type": "state"}, {"type": "state", "at": seq}):
        state = table.request(message, who=PLAYER)["table"]
        (bandit,) = [a for a in state["actors"] if a["id"] == "bandit"]
        assert bandit["common"]["conditions"] == PLAYERS_READ, message


def test_an_npcs_detail_on_an_npcs_condition_stays_hidden():
    table = wounded_bandit()
    table.resolve("test", actor="brute", targets=["bandit"], dice=[1])
    conditions = table.actor("bandit", gm=False)["common"]["conditions"]
    assert conditions[-1] == "wounded past a guard of (hidden)"
    assert table.actor("bandit")["common"]["conditions"][-1] == "wounded past a guard of 5"


def test_a_settings_change_shows_players_the_npc_as_state_does():
    """A settings change that hides an NPC's details again sends players the NPC's
    new view (``Event.shown``): the hero's guard on its condition reads in full there,
    as in ``state`` — the view of a shown actor is told who controls which actor."""
    table = wounded_bandit()
    for on in (True, False):
        change = {"type": "settings", "settings": {"ruleset": {"show_npc_details": on}}}
        table.request(change)
        _, players = table.views()
        (bandit,) = [a for a in players["actors"] if a["id"] == "bandit"]
        state = table.request({"type": "state"}, who=PLAYER)["table"]
        (now,) = [a for a in state["actors"] if a["id"] == "bandit"]
        assert bandit["common"] == now["common"], on
    assert bandit["common"]["conditions"] == PLAYERS_READ
