"""``RulesetHarness.resolve`` takes ``secret=True`` (found writing an opposed hidden roll
from docs/plugins.md alone, review plugins-22): docs/plugins.md, "Secret requests",
tells an author to keep a secret roll's results out of states players see, but the
harness could not send one — an author had to build the raw ``resolve`` request and its
scripted dice to test it. The event is the GM's; players get the ``hidden``
placeholder."""

from __future__ import annotations

from rollbridge.testing import RulesetHarness
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
