"""The common state of an actor a player controls reads whole to every player and
observer (docs/plugins.md, "The common damage state"): a ``Private`` argument of
another actor in its texts — an NPC's guard in the player's hero's condition —
reaches them all. The conformance suite passed such a ruleset; it now fails it,
naming the actor and the detail."""

from __future__ import annotations

from dataclasses import replace

from rollbridge.testing import PLAYER, RulesetHarness
from rollbridge.text import Messages, Private
from tests.plugins.rollunder import RollUnder, conformance_of, failure_of

say = Messages("rollunder_tests")
WOUNDED_BY = say("condition.wounded_by", "wounded past a guard of {guard}")


class NamesItsWounder(RollUnder):
    """Keeps, on the one wounded, who wounded it and that one's guard, and says the
    guard in a condition marked as the wounder's detail."""

    state_schema = {
        "type": "object",
        "properties": {
            "wounds": {"type": "integer", "minimum": 0, "maximum": 6},
            "by": {"type": "string"},
            "their_guard": {"type": "integer", "minimum": 0, "maximum": 9},
        },
    }

    def resolve(self, context, dice):
        resolution = super().resolve(context, dice)
        me, target = context.actor, context.targets[0]
        if target.id not in resolution.states:
            return resolution
        marked = {**resolution.states[target.id], "by": me.id, "their_guard": me.sheet["guard"]}
        return replace(resolution, states={target.id: marked})

    def common_state(self, actor):
        common = super().common_state(actor)
        if "by" not in actor.state:
            return common
        guard = Private(actor.state["their_guard"], of=actor.state["by"], aspect="sheet")
        return replace(common, conditions=(*common.conditions, WOUNDED_BY(guard=guard)))


def test_at_a_table_the_players_read_the_npcs_guard():
    """What the suite fails it for: the bandit's guard, hidden from players in every
    result, reads in full in the player's hero's condition."""
    table = RulesetHarness(NamesItsWounder())
    table.add_actor("Hero", {"skill": 7, "guard": 1}, actor_id="hero", player=True)
    table.add_actor("Bandit", {"skill": 9, "guard": 4}, actor_id="bandit")
    table.resolve("test", actor="bandit", targets=["hero"], dice=[1])
    hero = table.request({"type": "state"}, who=PLAYER)["table"]["actors"][0]
    assert hero["common"]["conditions"][-1] == "wounded past a guard of 4"


def test_the_suite_fails_it_naming_the_actor_and_the_detail():
    assert failure_of(NamesItsWounder(), "test_actions_resolve_through_the_engine") == (
        "test: a1: its common state's texts hold a Private argument of another actor "
        "(of='a0', aspect='sheet'): players and observers read the common state of a "
        "player's actor whole, so that detail reaches them all whenever this actor is a "
        "player's — mark only the actor's own details there (of=actor.id), and tell the "
        "other actor's in a result"
    )


def test_the_actors_own_details_pass():
    """The fixture marks the actor's own details only (its guard, its wounds left)."""
    conformance_of(RollUnder()).test_actions_resolve_through_the_engine()
