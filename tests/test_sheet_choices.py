"""A parameter whose choices are on the acting actor's sheet or state: the
``choicesFrom`` annotation of the schema subset (docs/plugins.md, "Choices from the
sheet"), what it offers (``rollbridge.contract.sheet_choices``), what the host checks
when a ruleset loads, and what the conformance suite checks on the example sheets.

A choice list is help for forms, never a check: the server validates the value as
before.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from rollbridge.contract import ActionSpec, sheet_choices
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
