"""A secret trait roll is not remembered in the actor's state (WD-4's chip reroll
cannot take it): players see their character's state, and a secret's dice must not
reach them (docs/plugins.md, "Secret requests"; issue 16, item 7)."""

from __future__ import annotations

from rollbridge.dice import ScriptedDice
from rollbridge.plugins.wilddie import WildDieRuleset
from rollbridge.testing import GM, RulesetHarness

ANA = {
    "kind": "pc",
    "attributes": {"strength": "d6", "vigor": "d6", "coordination": "d6", "reaction": "d6",
                   "intuition": "d6", "character": "d6"},
    "skills": {"notice": "d8"},
}  # fmt: skip


def notice(harness: RulesetHarness, request_id: str, *, secret: bool) -> dict:
    return harness.request(
        {"type": "resolve", "id": request_id, "action": "trait", "actor": "ana",
         "params": {"trait": "notice"}, "secret": secret},
        who=GM, dice=ScriptedDice([7, 3]),
    )  # fmt: skip


def test_a_secret_trait_roll_leaves_no_roll_in_the_state_players_see():
    harness = RulesetHarness(WildDieRuleset())
    harness.add_actor("Ana", ANA, actor_id="ana", player=True)
    done = notice(harness, "secret", secret=True)
    assert done["status"] == "done"  # the GM sees it all
    gm_view, players_view = harness.views()
    assert gm_view["data"]["outcome"]["total"] == 7
    assert players_view == {"kind": "hidden", "epoch": 1, "seq": done["seq"]}
    assert harness.actor("ana", gm=False)["state"]["rolls"] == []
    # the same roll in the open is remembered for a chip (WD-4)
    notice(harness, "open", secret=False)
    (record,) = harness.actor("ana", gm=False)["state"]["rolls"]
    assert record["trait_die"]["rolls"] == [7] and record["id"] == "open"
