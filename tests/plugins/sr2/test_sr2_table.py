"""sr2 on a real table: registration, the conformance suite, the engine's
harness, visibility of NPCs, turn hooks, adjustments and the docs."""

from __future__ import annotations

import pathlib
import re

import pytest

from rollbridge.host import PluginHost, check_ruleset
from rollbridge.plugins.sr2 import SR2Ruleset
from rollbridge.schema import validate
from rollbridge.testing import PLAYER, RulesetConformance, RulesetHarness

ROOT = pathlib.Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs" / "rulesets" / "sr2.md"

TUKAN = {
    "body": 5,
    "combat_pool": 6,
    "weapons": [{"name": "Hackler", "code": "7M", "skill": 7, "recoil_compensation": 3}],
}
GUARD = {"body": 4, "combat_pool": 3, "armor": {"ballistic": 4}}
#: SR-13: Physical full, dying, not yet stabilised.
DYING = {"physical": 10}


class TestSR2Conforms(RulesetConformance):
    ruleset = SR2Ruleset()
    #: SR-13: only a dying character bleeds or is stabilised; Tukan, whom the examples
    #: of actions without an actor target, acts in the others (dying, he could not)
    action_states = {"bleed": {"Tukan": DYING}, "stabilise": {"Tukan": DYING}}
    #: Counts whose English reads right at every count they take (as
    #: tests/test_english_plurals.py holds them for rollbridge's own scan)
    never_one = {
        "sr2.tn.recoil": "SR-7: recoil only with 2 rounds or more",
        "sr2.code.fired": "SR-6: a raised code only with 2 rounds or more",
        "sr2.damage.code.fired": "SR-6: a raised code only with 2 rounds or more",
        "sr2.damage.overflow": '"+ 1 overflow": a mass noun here',
        "sr2.damage.taken.overflow": '", 1 overflow": a mass noun here',
        "sr2.odds.level_overflow": '"D + 1 overflow": a mass noun here',
    }


def test_registered_as_a_builtin():
    host = PluginHost(
        environ={"ROLLBRIDGE_PLUGINS": "sr2", "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"}
    )
    ruleset = host.ruleset("sr2")
    assert isinstance(ruleset, SR2Ruleset)
    check_ruleset(ruleset, "sr2")


def test_every_action_example_is_valid(sr2):
    for name, spec in sr2.actions.items():
        assert spec.example is not None, name
        validate(spec.params, spec.example_in("en"))


def test_example_sheets_validate(sr2):
    for sheet in sr2.example_sheets.values():
        sr2.validate_sheet(sheet)


@pytest.fixture
def table(sr2):
    harness = RulesetHarness(sr2)
    harness.add_actor("Tukan", TUKAN, actor_id="tukan", player=True)
    harness.add_actor("Guard", GUARD, actor_id="guard")
    return harness


def test_attack_through_the_engine(table):
    """Acceptance example 1 through the real engine, with supplied dice."""
    event = table.resolve(
        "attack",
        actor="tukan",
        targets=["guard"],
        params={"weapon": "Hackler", "rounds": 3, "range": "short", "attacker_pool": 1},
        dice=[5] * 7 + [1] + [6, 2, 6, 3, 1, 4],  # 7 of 8 attack dice succeed
    )
    assert event["data"]["outcome"]["level"] == "D"
    assert table.state("guard")["physical"] == 10
    assert table.state("guard")["overflow"] == 1
    assert table.state("tukan")["pool"] == 5
    assert table.actor("guard")["common"]["status"] == "dying"


def test_players_see_npc_status_and_wound_level_only(table):
    table.resolve(
        "damage", targets=["guard"], params={"code": "9M", "attack_successes": 0}, dice=[2] * 4
    )
    seen = table.actor("guard", gm=False)
    assert seen["common"]["status"] == "impaired"
    assert seen["common"]["conditions"] == ["Physical: Moderate"]
    assert seen["common"]["tracks"] == []
    assert seen["sheet"] is None and seen["state"] is None
    own = table.actor("tukan", gm=False)  # a player's own actor is seen in full
    assert own["sheet"]["body"] == 5


def test_table_setting_shows_npc_boxes_and_sheet(sr2):
    harness = RulesetHarness(
        sr2, settings={"ruleset": {"show_npc_details": True, "show_npc_sheet": True}}
    )
    harness.add_actor(
        "Guard", GUARD, actor_id="guard", state={**sr2.initial_state(GUARD), "physical": 4}
    )
    seen = harness.actor("guard", gm=False)
    tracks = {t["key"]: t["value"] for t in seen["common"]["tracks"]}
    assert tracks == {"stun": 0, "physical": 4, "overflow": 0}
    assert seen["state"]["physical"] == 4
    assert seen["sheet"]["armor"]["ballistic"] == 4


def test_player_view_hides_boxes_by_default(kit, sr2):
    guard = kit.actor("g", GUARD, physical=7, stun=2)
    view = sr2.player_view(guard, kit.settings())
    assert view.common.tracks == ()
    assert view.common.status == "impaired"
    assert kit.english(view.common).conditions == ("Stun: Light", "Physical: Serious")
    assert view.common.modifier == 4
    assert view.sheet is None and view.state is None
    more = sr2.player_view(guard, kit.settings(show_npc_details=True))
    assert [t.value for t in more.common.tracks] == [2, 7, 0]
    assert more.sheet is None


def test_new_combat_round_refills_every_pool(table):
    table.resolve(
        "success_test", actor="tukan", params={"dice": 1, "tn": 4, "pool": 4}, dice=[1] * 5
    )
    table.resolve(
        "damage",
        targets=["guard"],
        params={"code": "6L", "attack_successes": 0, "defender_pool": 3},
        dice=[2] * 7,
    )
    assert (table.state("tukan")["pool"], table.state("guard")["pool"]) == (2, 0)
    table.request({"type": "encounter.start", "order": ["tukan", "guard"]})
    assert (table.state("tukan")["pool"], table.state("guard")["pool"]) == (6, 3)


def test_new_turn_action_applies_to_every_actor(table):
    table.resolve(
        "success_test", actor="tukan", params={"dice": 0, "tn": 4, "pool": 6}, dice=[1] * 6
    )
    assert table.state("tukan")["pool"] == 0
    event = table.resolve("new_turn")
    assert event["data"]["outcome"]["pools"] == {"tukan": 6, "guard": 3}
    assert table.state("tukan")["pool"] == 6


def test_gm_only_actions_are_refused_to_players(table):
    from rollbridge.exceptions import Forbidden

    for action, params in [("heal", {"monitor": "stun"}), ("new_turn", {})]:
        targets = ["guard"] if action == "heal" else []
        with pytest.raises(Forbidden):
            table.resolve(action, targets=targets, params=params, who=PLAYER)


def test_adjust_through_the_engine(table):
    table.request({"type": "adjust", "actor": "guard", "track": "stun", "delta": 12})
    state = table.state("guard")
    assert (state["stun"], state["physical"]) == (10, 2)
    table.request({"type": "adjust", "actor": "guard", "track": "physical", "delta": -1})
    assert table.state("guard")["physical"] == 1


def test_adjust_follows_the_tables_stun_carry(sr2):
    """SR-11's setting: with `stun_carry` off, Stun past 10 is lost for the GM's
    `adjust` too (it carried into Physical: `adjust` got no table settings)."""
    harness = RulesetHarness(sr2, settings={"ruleset": {"stun_carry": False}})
    harness.add_actor("Guard", GUARD, actor_id="guard")
    harness.request({"type": "adjust", "actor": "guard", "track": "stun", "delta": 12})
    state = harness.state("guard")
    assert (state["stun"], state["physical"]) == (10, 0)


def test_adjust_rules(kit, sr2):
    target = kit.actor("t", {"body": 2}, physical=9)
    assert sr2.adjust(target, "physical", 5) == {**target.state, "physical": 10, "overflow": 3}
    dying = kit.actor("d", {"body": 2}, physical=10, overflow=2)
    assert sr2.adjust(dying, "physical", -3)["overflow"] == 0  # SR-15 overflow first
    assert sr2.adjust(dying, "physical", -3)["physical"] == 9
    assert sr2.adjust(dying, "overflow", 9)["overflow"] == 3
    assert sr2.adjust(dying, "stun", 0) == dict(dying.state)


# -- docs -------------------------------------------------------------------------------


def test_docs_cover_every_rule_action_code_setting_and_field(sr2):
    text = DOCS.read_text(encoding="utf-8")
    for number in range(1, 17):
        assert re.search(rf"\bSR-{number}\b", text), f"SR-{number} missing from the docs"
    for name in sr2.actions:
        assert f"`{name}`" in text, name
    codes = {"pool_exhausted", "attacker_incapacitated", "actor_dead", "not_dying", "stabilised"}
    codes |= {"already_stabilised", "invalid_params", "invalid_sheet"}
    source = "".join(p.read_text() for p in (ROOT / "plugins" / "sr2").glob("*.py"))
    assert codes >= set(re.findall(r'code="([a-z_]+)"', source))
    for code in codes:
        assert f"`{code}`" in text, code
    for key in sr2.settings_schema["properties"]:
        assert f"`{key}`" in text, key
    for key in sr2.sheet_schema["properties"]:
        assert f"`{key}`" in text, key
    assert "Decision" in text


def test_docs_quick_start_runs():
    """The quick start of docs/rulesets/sr2.md runs and says what it claims."""
    text = DOCS.read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    scope: dict = {}
    exec(compile(code, str(DOCS), "exec"), scope)
    table = scope["table"]
    assert table.state("guard")["physical"] == 10
    assert table.state("guard")["overflow"] == 1
    seen = table.actor("guard", gm=False)
    assert seen["common"]["status"] == "dying"
    assert "Physical: Deadly" in seen["common"]["conditions"]
    assert seen["common"]["tracks"] == []


def test_docs_examples_match_resolutions(kit):
    """The heal and attack outcomes shown in the docs are what the ruleset returns."""
    target = kit.actor("guard-a", {"body": 4}, physical=10, overflow=1)
    healed = kit.resolve("heal", {"monitor": "physical", "boxes": 3}, targets=[target])
    assert healed.outcome == {
        "monitor": "physical",
        "asked": 3,
        "healed": 3,
        "removed": {"stun": 0, "physical": 2, "overflow": 1},
        "status": "impaired",
    }
    sheets = kit.rs.example_sheets
    tukan = kit.actor("tukan", sheets["Tukan"])
    guard = kit.actor("guard-a", sheets["Guard A"])
    result = kit.resolve(
        "attack",
        {"weapon": "Hackler", "rounds": 3, "range": "short", "attacker_pool": 1},
        tukan,
        [guard],
        dice=[5, 6, 2, 4, 5, 3, 5, 2, 6, 3, 2, 4, 1],
    )
    text = DOCS.read_text(encoding="utf-8")
    for step in result.steps:
        assert step in text, step
