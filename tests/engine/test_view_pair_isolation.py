"""The GM's view of an event is the GM's alone: the pair walk (:func:`~rollbridge.text.
view_pair`) lets the players' view share the GM's objects where they read alike, so
nothing that makes the players' view from it may change them in place."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.contract import ActionContext, Resolution
from rollbridge.dice import DiceSource
from rollbridge.testing import RulesetHarness
from rollbridge.text import Messages

from ..conftest import Tally

say = Messages("isolationtest")
TAKES = say("takes", "{target} takes {amount}")


class InPlace(Tally):
    """A ruleset of the deprecated kind that redacts the players' resolution by
    changing the data it is given, in place, and returning it."""

    id = "inplace"

    def resolve(self, context: ActionContext, dice: DiceSource) -> Resolution:
        made = super().resolve(context, dice)
        target = context.targets[0]
        amount = made.outcome.get("amount", 0)
        return Resolution(
            TAKES(target=target.name, amount=amount),
            {**made.outcome, "note": TAKES(target=target.name, amount=amount)},
            dice=made.dice,
            states=made.states,
        )

    def player_resolution(
        self, data: Mapping[str, Any], hidden: frozenset[str], settings: Mapping[str, Any]
    ) -> dict[str, Any]:
        data["narration"] = "someone is hit"  # type: ignore[index]
        data["outcome"].clear()
        return data  # type: ignore[return-value]


def test_a_ruleset_changing_the_players_resolution_in_place_leaves_the_gms_view():
    harness = RulesetHarness(InPlace())
    harness.add_actor("Ana", {"hp": 10}, actor_id="ana", player=True)
    harness.add_actor("Guard", {"hp": 6}, actor_id="guard")
    # the reply's event: the GM's view as staged, beside the players' (one walk)
    staged = harness.resolve("hit", actor="ana", targets=["guard"], params={"bonus": 1}, dice=[4])
    gm, players = harness.views()  # the stored event, viewed anew
    assert players["data"]["narration"] == "someone is hit"
    assert players["data"]["outcome"] == {}
    assert gm["data"]["narration"] == "Guard takes 5"
    assert gm["data"]["outcome"] == {"amount": 5, "note": "Guard takes 5"}
    assert staged["data"] == gm["data"]
