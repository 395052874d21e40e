"""A turn hook that rolls a die and returns None shows none of it: at a verifiable
table the engine refuses the encounter event (docs/plugins.md, "Every die shown, as
rolled"). The refusal, and the conformance suite's failure quoting it, named "its
resolution's dice", which sent the author to ``resolve``, a method the hook's bug is
not in; they name the turn hooks and what such a hook must do."""

from __future__ import annotations

import pytest

from rollbridge.dice import roll_die
from rollbridge.exceptions import InternalError
from rollbridge.testing import RulesetHarness
from tests.plugins.rollunder import RollUnder, conformance_of


class BleedsUnseen(RollUnder):
    """Rolls for a wounded actor's bleeding at the start of its turn, and forgets to
    show the die when nothing comes of it."""

    def on_turn_start(self, context, dice):
        roll_die(dice, 10)
        return None


WORDS = (
    r"drew 1 die but shows 0 in its turn hooks' results: a turn hook \(on_round_start, "
    r"on_turn_start, on_turn_end, on_round_end\) must show every die it rolls in the "
    r"Resolution it returns, in the order rolled, and one that returns None must roll none"
)


def test_the_refusal_names_the_turn_hooks():
    table = RulesetHarness(BleedsUnseen(), verifiable=True)
    table.add_actor("Hero", {"skill": 7}, actor_id="hero", player=True)
    with pytest.raises(InternalError, match=WORDS):
        table.request({"type": "encounter.start", "order": ["hero"]})
    assert all(event.kind != "encounter.started" for event in table.events())


def test_the_conformance_suite_says_so_too():
    suite = conformance_of(BleedsUnseen())
    with pytest.raises(AssertionError, match=r"encounter\.start: internal: .*" + WORDS):
        suite.test_a_resolution_shows_every_die_it_rolls()


def test_a_resolution_keeps_its_own_words():
    class ResolvesUnseen(RollUnder):
        def resolve(self, context, dice):
            roll_die(dice, 10)
            return super().resolve(context, dice)

    table = RulesetHarness(ResolvesUnseen(), verifiable=True)
    table.add_actor("Hero", {"skill": 7}, actor_id="hero", player=True)
    table.add_actor("Bandit", {"skill": 5}, actor_id="bandit")
    with pytest.raises(InternalError, match="drew 2 dice but shows 1 as its resolution's dice"):
        table.resolve("test", actor="hero", targets=["bandit"])
