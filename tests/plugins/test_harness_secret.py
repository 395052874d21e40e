"""``RulesetHarness.resolve`` takes ``secret=True`` (found writing an opposed hidden roll
from docs/plugins.md alone, review plugins-22): docs/plugins.md, "Secret requests",
tells an author to keep a secret roll's results out of states players see, but the
harness could not send one — an author had to build the raw ``resolve`` request and its
scripted dice to test it. The event is the GM's; players get the ``hidden``
placeholder."""

from __future__ import annotations

from rollbridge.testing import PLAYER, RulesetHarness
from tests.plugins.listener import Listener
from tests.plugins.rollunder import RollUnder


def test_a_secret_resolve_is_the_gms_alone():
    table = RulesetHarness(RollUnder())
    table.add_actor("Hero", {"skill": 7, "guard": 1, "toughness": 4}, actor_id="hero")
    table.add_actor("Bandit", {"skill": 9, "guard": 4, "toughness": 3}, actor_id="bandit")
    event = table.resolve("test", actor="bandit", targets=["hero"], dice=[1], secret=True)
    assert event["kind"] == "resolution" and event["data"]["dice"][0]["dice"][0]["value"] == 1
    gm, players = table.views()
    assert gm["kind"] == "resolution" and gm["data"] == event["data"]
    assert players["kind"] == "hidden" and "data" not in players, players


def test_a_secret_rolls_result_kept_in_an_npcs_hidden_state_reaches_no_player():
    """docs/plugins.md, "Secret requests": a state the player view hides (RollUnder's
    NPCs') may keep a secret roll's result; players see neither the roll nor it."""
    table = RulesetHarness(RollUnder())
    table.add_actor("Hero", {"skill": 7, "guard": 1, "toughness": 4}, actor_id="hero")
    table.add_actor("Bandit", {"skill": 9, "guard": 4, "toughness": 3}, actor_id="bandit")
    table.resolve("test", actor="hero", targets=["bandit"], dice=[1], secret=True)
    assert table.state("bandit") == {"wounds": 1}  # kept, for a later action to read
    seen = table.actor("bandit", gm=False)
    assert "state" not in seen or seen["state"] is None, seen
    assert "wounds" not in str(seen["common"].get("tracks", ())), seen


def test_a_players_request_of_an_always_secret_action_returns_their_reply():
    """docs/plugins.md, "Testing a ruleset": ``resolve`` as a player of an action that
    is always secret returns the player's secret reply, as the server answers them
    (the docs said the event as they see it); ``views()`` shows the event."""
    table = RulesetHarness(Listener())
    table.add_actor("Hero", Listener.example_sheets["Hero"], actor_id="hero", player=True)
    reply = table.resolve("listen", actor="hero", dice=[3], who=PLAYER)
    assert reply == {"seq": 2, "status": "secret", "note": "sent to the GM only"}, reply
    gm, players = table.views()
    assert gm["data"]["outcome"] == {"heard": True} and players["kind"] == "hidden"
