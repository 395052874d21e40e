"""A parameter whose choices are on the acting actor's sheet or state: the
``choicesFrom`` annotation of the schema subset (docs/plugins.md, "Choices from the
sheet"), what it offers (``rollbridge.contract.sheet_choices``), what the host checks
when a ruleset loads, and what the conformance suite checks on the example sheets.

A choice list is help for forms, never a check: the server validates the value as
before.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest

from rollbridge.contract import ActionSpec, Actor, choices_of, sheet_choices
from rollbridge.exceptions import PluginError
from rollbridge.host import check_ruleset
from rollbridge.plugins.bandits import BanditsRuleset
from rollbridge.plugins.sr2 import SR2Ruleset
from rollbridge.plugins.techlevel.ruleset import TechLevel
from rollbridge.schema import check_schema, validate
from rollbridge.testing import RulesetConformance

WEAPON = {
    "type": "string",
    "maxLength": 80,
    "choicesFrom": {"sheet": "weapons", "value": "name", "only": True},
}
SHEET = {
    "weapons": [{"name": "Hackler", "code": "7M"}, {"name": "Stun baton"}, {"code": "9M"}],
    "stats": {"cool": 2, "hard": 1},
    "gear": {"a": {"label": "Rope"}, "b": {"label": "Lamp"}, "c": {"label": 3}},
    "tags": ["quick", "quick", True, None, {"x": 1}, 2.5, "sly"],
}


def test_a_well_formed_annotation_is_part_of_the_schema_subset():
    for annotation in (
        {"sheet": "weapons", "value": "name"},
        {"sheet": "stats"},
        {"state": "carried", "value": "name", "only": True},
        {"sheet": "armor.pieces", "value": "label", "only": False},
    ):
        check_schema({"type": "object", "properties": {"p": {"choicesFrom": annotation}}})


@pytest.mark.parametrize(
    ("annotation", "problem"),
    [
        ("weapons", "must be a mapping"),
        ({}, "exactly one of 'sheet' and 'state'"),
        ({"sheet": "weapons", "state": "carried"}, "exactly one of 'sheet' and 'state'"),
        ({"sheet": "weapons", "label": "name"}, "unknown field"),
        ({"sheet": ""}, "field names joined by dots"),
        ({"sheet": "weapons..name"}, "field names joined by dots"),
        ({"sheet": 3}, "field names joined by dots"),
        ({"sheet": "weapons", "value": 1}, "value must be a field name"),
        ({"sheet": "weapons", "only": "yes"}, "only must be true or false"),
    ],
)
def test_a_malformed_annotation_is_refused_at_load_naming_where(annotation, problem):
    schema = {"type": "object", "properties": {"weapon": {"choicesFrom": annotation}}}
    with pytest.raises(PluginError, match=problem) as caught:
        check_schema(schema, "action 'attack' params")
    assert "action 'attack' params.weapon.choicesFrom" in str(caught.value)


def test_the_server_validates_the_value_as_before():
    schema = {"type": "object", "properties": {"weapon": WEAPON}}
    # a name on no sheet is the schema's to accept (the ruleset refuses it, as before)
    assert validate(schema, {"weapon": "Whatever"}) == {"weapon": "Whatever"}
    with pytest.raises(Exception, match="at most 80"):
        validate(schema, {"weapon": "x" * 81})


def test_choices_are_read_from_a_list_an_object_or_the_state():
    assert sheet_choices(WEAPON, SHEET) == ["Hackler", "Stun baton"]  # an item without: none
    assert sheet_choices({"choicesFrom": {"sheet": "stats"}}, SHEET) == ["cool", "hard"]
    gear = {"choicesFrom": {"sheet": "gear", "value": "label"}}
    assert sheet_choices(gear, SHEET) == ["Rope", "Lamp", 3]
    # the items themselves without `value`: texts and numbers, each once
    assert sheet_choices({"choicesFrom": {"sheet": "tags"}}, SHEET) == ["quick", 2.5, "sly"]
    carried = {"choicesFrom": {"state": "carried", "value": "name"}}
    assert sheet_choices(carried, SHEET, {"carried": [{"name": "Chainmail"}]}) == ["Chainmail"]
    assert sheet_choices(carried, SHEET) == []  # no state seen: nothing


@pytest.mark.parametrize(
    "sheet",
    [None, {}, {"weapons": None}, {"weapons": "Hackler"}, {"weapons": 3}, {"weapons": []}],
)
def test_nothing_there_offers_nothing(sheet):
    assert sheet_choices(WEAPON, sheet) == []
    assert sheet_choices({"type": "string"}, SHEET) == []  # no annotation


def _with_action(spec: ActionSpec, **fields: Any) -> SR2Ruleset:
    """sr2 with the action ``spec`` added (or put in place of its own) and ``fields``."""
    actions = {**SR2Ruleset.actions, spec.name: spec}
    return type("Edited", (SR2Ruleset,), {"actions": actions, **fields})()


def _pick(annotation: dict, actor: str = "required") -> ActionSpec:
    params = {
        "type": "object",
        "properties": {"what": {"type": "string", "choicesFrom": annotation}},
    }
    return ActionSpec("pick", "Pick one.", params=params, actor=actor, example={})  # type: ignore[arg-type]


def test_the_host_refuses_a_path_its_schema_does_not_describe():
    check_ruleset(_with_action(_pick({"sheet": "weapons", "value": "name"})), "p")
    check_ruleset(_with_action(_pick({"sheet": "armor"})), "p")  # an object: its keys
    check_ruleset(_with_action(_pick({"state": "pool"}), state_schema={"type": "object",
                  "additionalProperties": True}), "p")  # fmt: skip
    with pytest.raises(PluginError, match="sheet_schema describes no list or object at 'weapon'"):
        check_ruleset(_with_action(_pick({"sheet": "weapon", "value": "name"})), "p")
    with pytest.raises(PluginError, match="at 'body'"):  # an integer: nothing to choose from
        check_ruleset(_with_action(_pick({"sheet": "body"})), "p")
    with pytest.raises(PluginError, match="state_schema describes no list or object at 'weapons'"):
        check_ruleset(_with_action(_pick({"state": "weapons"})), "p")
    with pytest.raises(PluginError, match="no acting actor"):
        check_ruleset(_with_action(_pick({"sheet": "weapons"}, actor="none")), "p")


def _suite(ruleset: Any) -> RulesetConformance:
    return type("Suite", (RulesetConformance,), {"ruleset": ruleset, "seeds": (1,)})()


def test_the_conformance_suite_checks_the_path_on_the_example_sheets():
    _suite(SR2Ruleset()).test_choices_from_name_the_example_sheets()
    # no example actor has weapons: the annotation would offer nothing anywhere
    unarmed = {k: v for k, v in SR2Ruleset.example_sheets.items() if "weapons" not in v}
    suite = _suite(type("Unarmed", (SR2Ruleset,), {"example_sheets": unarmed})())
    with pytest.raises(AssertionError, match="'weapons': no example actor offers a choice"):
        suite.test_choices_from_name_the_example_sheets()
    # a path the sheet schema describes but no example sheet holds
    schema = SR2Ruleset.sheet_schema
    geared = {**schema, "properties": {**schema["properties"], "gear": {"type": "array"}}}
    suite = _suite(_with_action(_pick({"sheet": "gear"}), sheet_schema=geared))
    with pytest.raises(AssertionError, match="'what': choicesFrom sheet 'gear' is on no example"):
        suite.test_choices_from_name_the_example_sheets()


def test_the_conformance_suite_checks_the_choices_fit_the_parameter():
    attack = SR2Ruleset.actions["attack"]
    properties = dict(attack.params["properties"])
    properties["weapon"] = {**properties["weapon"], "maxLength": 7}  # "Stun baton" is 10
    params = {**attack.params, "properties": properties}
    ruleset = _with_action(dataclasses.replace(attack, params=params))
    with pytest.raises(AssertionError, match="'Tukan' offers 'Stun baton', which the parameter"):
        _suite(ruleset).test_choices_from_name_the_example_sheets()


def test_the_built_in_rulesets_offer_the_sheets_things():
    sr2 = SR2Ruleset()
    tukan = sr2.validate_sheet(sr2.example_sheets["Tukan"])
    weapon = sr2.actions["attack"].params["properties"]["weapon"]
    assert sheet_choices(weapon, tukan) == ["Hackler", "Stun baton"]
    bandits = BanditsRuleset()
    stat = bandits.actions["move"].params["properties"]["stat"]
    assert sheet_choices(stat, bandits.example_sheets["Ana"]) == ["cool", "hard", "sharp", "steady"]
    assert sheet_choices(stat, bandits.example_sheets["Guard"]) == []  # an extra has no stats
    techlevel = TechLevel()
    ana = techlevel.validate_sheet(techlevel.example_sheets["Ana"])
    state = techlevel.initial_state(ana)
    don = techlevel.actions["don"].params["properties"]["name"]
    mount = techlevel.actions["mount"].params["properties"]["name"]
    assert sheet_choices(don, ana, state) == ["Chainmail"]
    assert sheet_choices(mount, ana, state) == ["Jeep"]


# -- choices from the target's sheet or state ("of": "target") ----------------------------


def test_of_target_is_part_of_the_annotation_and_nothing_else_is():
    for of in ("actor", "target"):
        check_schema(
            {"type": "object", "properties": {"p": {"choicesFrom": {"sheet": "x", "of": of}}}}
        )
    schema = {
        "type": "object",
        "properties": {"section": {"choicesFrom": {"sheet": "x", "of": "targets"}}},
    }
    with pytest.raises(
        PluginError, match=r"params\.section\.choicesFrom\.of must be 'actor' or 'target'"
    ):
        check_schema(schema, "action 'hit' params")
    assert choices_of({"choicesFrom": {"sheet": "weapons"}}) == "actor"  # the default
    assert choices_of({"choicesFrom": {"sheet": "weapons", "of": "actor"}}) == "actor"
    assert choices_of({"choicesFrom": {"state": "vehicle.sections", "of": "target"}}) == "target"
    assert choices_of({"type": "string"}) is None


def _aim(annotation: dict, **fields: Any) -> ActionSpec:
    """An action whose parameter ``what`` takes its choices from ``annotation``."""
    params = {
        "type": "object",
        "properties": {"what": {"type": "string", "choicesFrom": annotation}},
    }
    return ActionSpec("aim", "Aim at one.", params=params, example={}, **fields)


@pytest.mark.parametrize(
    ("fields", "has"),
    [
        ({"max_targets": 0}, "max_targets 0"),  # the default: no target at all
        ({"min_targets": 1, "max_targets": 3}, "max_targets 3"),
        ({"min_targets": 1, "max_targets": None}, "max_targets None"),
        ({"every_actor": True, "max_targets": None}, "every actor"),
    ],
)
def test_of_target_needs_an_action_of_one_target_refused_at_load_naming_it(fields, has):
    spec = _aim({"sheet": "weapons", "value": "name", "of": "target"}, **fields)
    with pytest.raises(PluginError) as caught:
        check_ruleset(_with_action(spec), "gunnery")
    message = str(caught.value)
    assert message.startswith("plugin 'gunnery': ruleset 'sr2' action 'aim' parameter 'what'")
    assert f"'of': 'target' reads the action's one target, and it has {has}" in message
    assert caught.value.details == {"plugin": "gunnery"}


def test_of_target_is_checked_against_the_schemas_as_the_actors_own_is():
    # one target, optional or required, and no acting actor needed: it reads the target
    for fields in ({"max_targets": 1}, {"min_targets": 1, "max_targets": 1, "actor": "none"}):
        check_ruleset(_with_action(_aim({"sheet": "weapons", "of": "target"}, **fields)), "p")
    with pytest.raises(
        PluginError, match=r"parameter 'what'.*sheet_schema describes no list or object at 'weapon'"
    ):
        check_ruleset(_with_action(_aim({"sheet": "weapon", "of": "target"}, max_targets=1)), "p")
    # the acting actor's still needs an acting actor
    with pytest.raises(PluginError, match="no acting actor"):
        check_ruleset(_with_action(_aim({"sheet": "weapons"}, actor="none", max_targets=1)), "p")


def test_techlevel_s_section_offers_the_target_s_vehicle_sections_as_the_asker_sees_them():
    techlevel = TechLevel()
    for action in ("hit", "destroy", "repair"):
        schema = techlevel.actions[action].params["properties"]["section"]
        assert choices_of(schema) == "target", action
        assert schema["choicesFrom"]["only"] is True  # a section the vehicle lacks is refused
    section = techlevel.actions["hit"].params["properties"]["section"]
    rig = {"name": "War rig", "tl": 2, "sections": [{"name": "cab"}, {"name": "bed"}]}
    raider = techlevel.validate_sheet({"body_tl": 1, "mounted": "War rig", "vehicles": [rig]})
    state = techlevel.initial_state(raider)
    assert sheet_choices(section, raider, state) == ["cab", "bed"]  # the GM: the whole state
    actor = Actor("raider", "Raider", raider, state)
    for details in (False, True):
        view = techlevel.player_view(actor, {"show_npc_details": details})
        assert sheet_choices(section, view.sheet, view.state) == ["cab", "bed"]  # public (TL-10)
        assert ("War rig" in repr(view.state)) is details  # its name: only with the details
    # on foot: no vehicle, no section (the view holds none either)
    walker = techlevel.validate_sheet({"body_tl": 1})
    on_foot = Actor("walker", "Walker", walker, techlevel.initial_state(walker))
    view = techlevel.player_view(on_foot, {})
    assert sheet_choices(section, walker, on_foot.state) == []
    assert sheet_choices(section, view.sheet, view.state) == []


def test_the_conformance_suite_refuses_a_players_view_that_offers_what_the_target_lacks():
    _suite(TechLevel()).test_choices_from_name_the_example_sheets()

    class MadeUp(TechLevel):
        def player_view(self, actor, settings):
            view = super().player_view(actor, settings)
            vehicle = (view.state or {}).get("vehicle")
            if vehicle is None:
                return view
            sections = [{**s, "name": s["name"].upper()} for s in vehicle["sections"]]
            state = {**view.state, "vehicle": {**vehicle, "sections": sections}}
            return dataclasses.replace(view, state=state)

    with pytest.raises(AssertionError, match=r"players' view of 'Knight' offers \['MAIN'\]"):
        _suite(MadeUp()).test_choices_from_name_the_example_sheets()


def test_the_conformance_suite_lets_a_null_excuse_a_path_only_where_no_actor_holds_it():
    """A state's path through a null (a vehicle not ridden yet) is excused only when
    no example actor holds what the path passes through: one whose vehicle is there
    (techlevel's Knight) shows a misspelt path wrong, though others ride nothing."""

    def with_section_at(path: str) -> TechLevel:
        hit = TechLevel.actions["hit"]
        params = copy.deepcopy(hit.params)
        params["properties"]["section"]["choicesFrom"]["state"] = path
        actions = {**TechLevel.actions, "hit": dataclasses.replace(hit, params=params)}
        return type("Misspelt", (TechLevel,), {"actions": actions})()

    sheets = TechLevel.example_sheets
    assert any(sheet.get("mounted") for sheet in sheets.values())
    assert any(not sheet.get("mounted") for sheet in sheets.values())
    with pytest.raises(AssertionError, match=r"'vehicle\.sectons' is on no example actor's state"):
        _suite(with_section_at("vehicle.sectons")).test_choices_from_name_the_example_sheets()
    # every example actor on foot: the path cannot be seen on any, and is excused
    on_foot = {name: s for name, s in sheets.items() if not s.get("mounted")}
    misspelt = type(with_section_at("vehicle.sectons"))
    walkers = type("Walkers", (misspelt,), {"example_sheets": on_foot})()
    _suite(walkers).test_choices_from_name_the_example_sheets()


def test_a_choices_from_where_no_form_reads_it_is_refused_at_load_naming_its_place():
    """An annotation inside a parameter (a list's items) is read by no form: refused,
    naming that place, also after a parameter that has a right one."""
    params = {
        "type": "object",
        "properties": {
            "what": {"type": "string", "choicesFrom": {"sheet": "weapons", "value": "name"}},
            "more": {
                "type": "array",
                "items": {"type": "string", "choicesFrom": {"sheet": "weapons"}},
            },
        },
    }
    spec = ActionSpec("aim", "Aim at one.", params=params, example={})
    with pytest.raises(PluginError) as caught:
        check_ruleset(_with_action(spec), "gunnery")
    assert str(caught.value) == (
        "plugin 'gunnery': ruleset 'sr2' action 'aim' params.more[] has a choicesFrom,"
        " which is read on a property of an action's params only"
    )
