"""The English of a counted noun at one, in real resolutions on the table engine
with scripted dice: a Light wound crosses "1 box" (SR-5), the seed's revolver on
power armour "1 box" (TL-4, acceptance example 1), a chip leaves "1 chip" (WD-4),
a one-die test rolls "1 die" (SR-16). English has two forms as German has; these
lines read "1 boxes", "1 chips" and "1 dice" before."""

from __future__ import annotations

from rollbridge.host import PluginHost
from rollbridge.testing import RulesetHarness

RULESETS = PluginHost().rulesets


def _table(ruleset: str) -> RulesetHarness:
    return RulesetHarness(RULESETS[ruleset])


def test_sr2_a_light_wound_is_one_box_and_one_die_is_a_die():
    table = _table("sr2")
    table.add_actor("Guard", {"body": 4, "armor": {"ballistic": 4, "impact": 2}}, actor_id="g")
    # 9L against 0 attack successes; the Guard's 4 resistance dice (TN 5) all fail: L stands
    event = table.resolve("damage", targets=["g"], params={"code": "9L", "attack_successes": 0},
                          dice=[2, 2, 2, 2])  # fmt: skip
    light = "Damage: Light (L) = 1 box on the physical monitor (SR-5, SR-11)"
    assert light in event["data"]["steps"]
    test = table.resolve("success_test", params={"dice": 1, "tn": 4, "label": "Luck"}, dice=[5])
    assert test["data"]["narration"].startswith("Luck, 1 die vs TN 4: "), test["data"]["narration"]


def test_techlevel_the_seeds_revolver_crosses_one_box():
    table = _table("techlevel")
    armour = {"name": "Power armour", "kind": "armour", "boxes": 20, "tl": 5}
    table.add_actor("Sentinel", {"race": "robot", "body_tl": 4, "worn": [armour]}, actor_id="s")
    params = {"weapon": "Revolver", "dice": "1d6", "tl": 2, "type": "kinetic"}
    event = table.resolve("hit", targets=["s"], params=params, dice=[4])
    assert "weapon TL2 against TL5: /4 → ⌊4 / 4⌋ = 1 box (TL-4)" in event["data"]["steps"]


def test_wilddie_a_chip_that_leaves_one_says_one_chip():
    table = _table("wilddie")
    sheet = dict(RULESETS["wilddie"].example_sheets["Ana"])
    table.add_actor("Ana", sheet, actor_id="ana", player=True)
    table.resolve("trait", actor="ana", params={"trait": "notice"}, dice=[2, 3])
    table.resolve("chip", actor="ana", params={"die": "trait"}, dice=[4])
    table.resolve("trait", actor="ana", params={"trait": "notice"}, dice=[2, 3])
    event = table.resolve("chip", actor="ana", params={"die": "trait"}, dice=[4])
    assert event["data"]["steps"][0].endswith("; 2 → 1 chip"), event["data"]["steps"][0]
