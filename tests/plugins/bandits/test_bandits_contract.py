"""The ruleset on the contract: registration, conformance suite, sheets, common state,
player view, adjust, turn hooks, and docs that list every rule, action and code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rollbridge.dice import SeededDice
from rollbridge.exceptions import InvalidSheet, RuleViolation
from rollbridge.host import PluginHost
from rollbridge.plugins import bandits
from rollbridge.plugins.bandits import BanditsRuleset
from rollbridge.testing import RulesetConformance

ROOT = Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs" / "rulesets" / "bandits.md"
PLUGIN = Path(bandits.__file__).resolve().parent


class TestBanditsConforms(RulesetConformance):
    ruleset = BanditsRuleset()
    #: BD-8: only a dying bandit is stabilised (Boris, whom the example targets)
    action_states = {"stabilise": {"Boris": {"slots": {"lightly": True, "seriously": True,
        "heavily": True, "dying": True}, "dying": True}}}  # fmt: skip


def test_registered_as_a_builtin():
    host = PluginHost(environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert isinstance(host.ruleset("bandits"), BanditsRuleset)
    assert "bandits" in host.plugins["bandits"].rulesets


# -- sheets -------------------------------------------------------------------------


def test_sheet_defaults_and_kinds(kit):
    sheet = kit.ruleset.validate_sheet({})
    assert sheet["kind"] == "bandit"
    assert sheet["stats"] == {"steady": 0}
    assert sheet["armour"] == 0 and sheet["pierce"] == 0
    assert sheet["two_light_weapons"] is False
    assert kit.ruleset.initial_state(sheet)["slots"] == {
        "lightly": False, "seriously": False, "heavily": False, "dying": False,
    }  # fmt: skip
    extra = kit.ruleset.validate_sheet({"kind": "extra"})
    assert kit.ruleset.initial_state(extra) == {
        "kind": "extra", "wounded": False, "out": False, "dual_wield": None,
    }  # fmt: skip


@pytest.mark.parametrize(
    "sheet",
    [
        {"kind": "boss"},
        {"armour": -1},
        {"stats": {"cool": "high"}},
        {"stats": {" ": 1}},
        {"pierce": 2, "shield": True},
    ],
)
def test_bad_sheets_are_refused(kit, sheet):
    with pytest.raises(InvalidSheet):
        kit.ruleset.validate_sheet(sheet)


# -- common state and views ------------------------------------------------------------


def test_common_state_of_a_bandit(kit):
    common = kit.ruleset.common_state(kit.bandit("ana", slots={1, 2}))
    assert common.status == "ok"
    assert [(t.key, t.value, t.max) for t in common.tracks] == [("wounds", 2, 4)]
    assert common.to_dict()["conditions"] == ["Lightly wounded", "Seriously wounded"]
    dying = kit.ruleset.common_state(kit.bandit("ana", slots={3, 4}))
    assert dying.status == "dying" and "Dying" in dying.to_dict()["conditions"]


def test_common_state_of_an_extra(kit):
    statuses = [
        kit.ruleset.common_state(kit.extra("g", wounded=w, out=o)).status
        for w, o in [(False, False), (True, False), (True, True)]
    ]
    assert statuses == ["ok", "impaired", "down"]
    track = kit.ruleset.common_state(kit.extra("g", wounded=True)).tracks[0]
    assert (track.value, track.max) == (1, 2)


def test_players_see_an_extras_state_but_not_its_sheet(kit):
    guard = kit.extra("guard", wounded=True, armour=2)
    view = kit.ruleset.player_view(guard, {"show_npc_details": False})
    assert view.sheet is None
    assert view.state == {"wounded": True, "out": False}
    assert view.common.status == "impaired"
    shown = kit.ruleset.player_view(guard, {"show_npc_details": True})
    assert shown.sheet["armour"] == 2
    npc = kit.ruleset.player_view(kit.bandit("rival", slots={2}), {})
    assert npc.sheet is None and npc.state is None


def test_player_view_through_the_engine(ruleset_harness, kit):
    table = ruleset_harness(kit.ruleset)
    guard = table.add_actor("Guard", {"kind": "extra", "armour": 3}, actor_id="guard")
    table.add_actor("Ana", {"kind": "bandit", "pierce": 1}, actor_id="ana", player=True)
    # 6 − Armour 3 + Pierce 1 = 4: one wound
    table.resolve("harm", actor="ana", targets=[guard], params={"direction": "dealt"}, dice=[3, 3])
    seen = table.actor(guard, gm=False)
    assert seen["sheet"] is None
    assert seen["state"] == {"wounded": True, "out": False}
    assert seen["common"]["conditions"] == ["Wounded"]


# -- adjust -----------------------------------------------------------------------------


def test_adjust_bandit_wounds(kit):
    ana = kit.bandit("ana", slots={2})
    assert kit.slots(kit.ruleset.adjust(ana, "wounds", 2)) == {2, 3}  # a hit of 2 (BD-6)
    assert kit.ruleset.adjust(ana, "wounds", 5)["dead"] is True
    healed = kit.ruleset.adjust(kit.bandit("ana", slots={1, 3, 4}), "wounds", -2)
    assert kit.slots(healed) == {1} and healed["dying"] is False
    assert kit.ruleset.adjust(ana, "wounds", 0) == ana.state
    with pytest.raises(RuleViolation) as err:
        kit.ruleset.adjust(kit.bandit("ana", dead=True), "wounds", -1)
    assert err.value.code == "actor_dead"
    with pytest.raises(RuleViolation) as err:
        kit.ruleset.adjust(ana, "stress", 1)
    assert err.value.code == "unknown_track"


def test_adjust_extra_wounds(kit):
    guard = kit.extra("guard")
    wounded = kit.ruleset.adjust(guard, "wounds", 1)
    assert wounded["wounded"] and not wounded["out"]
    assert kit.ruleset.adjust(guard, "wounds", 2)["out"] is True
    back = kit.ruleset.adjust(kit.extra("guard", wounded=True, out=True), "wounds", -1)
    assert back["wounded"] and not back["out"]


# -- turn hooks -------------------------------------------------------------------------


def test_turn_hooks_leave_healthy_actors_alone(kit):
    ana, guard = kit.bandit("ana", slots={1}), kit.extra("guard")
    for actor in (ana, guard):
        assert kit.ruleset.on_turn_start(kit.turn(actor), SeededDice(0)) is None
        assert kit.ruleset.on_turn_end(kit.turn(actor), SeededDice(0)) is None


def test_describe_is_complete(kit):
    described = kit.ruleset.describe()
    assert set(described["actions"]) == {
        "move", "harm", "medpack", "stabilise", "end_of_turn", "end_of_raid",
    }  # fmt: skip
    assert set(described["settings_schema"]["properties"]) == {
        "show_npc_details",
        "dying_can_act",
        "heavy_wound_lasts_the_raid",
    }


# -- docs ---------------------------------------------------------------------------------


def _codes_in_plugin() -> set[str]:
    text = "\n".join(p.read_text(encoding="utf-8") for p in PLUGIN.glob("*.py"))
    return set(re.findall(r'code="([a-z_]+)"', text))


def test_docs_name_every_rule_action_setting_and_code(kit):
    text = DOCS.read_text(encoding="utf-8")
    for number in range(1, 12):
        assert f"BD-{number}" in text, f"BD-{number}"
    for name in kit.ruleset.actions:
        assert f"`{name}`" in text, name
    for name in kit.ruleset.settings_schema["properties"]:
        assert f"`{name}`" in text, name
    codes = _codes_in_plugin()
    assert len(codes) >= 10
    for code in codes:
        assert f"`{code}`" in text, code
    decisions = [int(n) for n in re.findall(r"^- \*\*D(\d+) ", text, flags=re.M)]
    assert decisions == list(range(1, len(decisions) + 1)) and len(decisions) >= 4
    section = text.split("## Decisions", 1)[1].split("\n## ", 1)[0]
    for paragraph in section.split("\n- ")[1:]:
        assert "*Alternative" in paragraph, paragraph[:40]
    assert "no clamp on harm" in section and "never touch slot 4" in section
