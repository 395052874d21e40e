"""``choicesFrom`` on a sheet schema that leaves the part free (review rev6): a node
with no ``type``, ``enum`` or ``properties`` takes any value (core/schema.py: such
a node is not checked), so a list or an object may be there, as under
``additionalProperties: true``, which the host takes; and reading the choices of a
long list compares each item with the few found before, not with all of them.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from rollbridge.contract import ActionSpec, sheet_choices
from rollbridge.exceptions import PluginError
from rollbridge.host import check_ruleset
from rollbridge.plugins.sr2 import SR2Ruleset
from rollbridge.schema import validate


def _ruleset(annotation: dict, sheet_schema: Any) -> SR2Ruleset:
    params = {
        "type": "object",
        "properties": {"what": {"type": "string", "choicesFrom": annotation}},
    }
    pick = ActionSpec("pick", "Pick one.", params=params, actor="required", example={})  # type: ignore[arg-type]
    return type("Free", (SR2Ruleset,), {"actions": {"pick": pick}, "sheet_schema": sheet_schema})()


INT = {"type": "integer"}
FREE_SHEETS = [
    # the whole sheet free: any sheet is taken
    ({"sheet": "gear"}, {}),
    ({"sheet": "gear.pieces", "value": "name"}, {"description": "anything goes"}),
    # one field free
    ({"sheet": "gear"}, {"type": "object", "properties": {"gear": {}}}),
    ({"sheet": "gear.pieces"}, {"type": "object", "properties": {"gear": {"title": "Gear"}}}),
    # a map the schema describes without a type: validate does not check it either
    ({"sheet": "gear"}, {"type": "object", "properties": {"gear": {"additionalProperties": INT}}}),
]


@pytest.mark.parametrize(("annotation", "sheet_schema"), FREE_SHEETS)
def test_a_part_the_sheet_schema_leaves_free_passes_the_load_check(annotation, sheet_schema):
    # what the schema takes there: a list (validate checks nothing of it)
    deep = "." in annotation["sheet"]
    sheet = {"gear": {"pieces": [{"name": "Rope"}]}} if deep else {"gear": ["Rope"]}
    if "additionalProperties" not in str(sheet_schema):
        assert validate(sheet_schema, sheet) == sheet
    check_ruleset(_ruleset(annotation, sheet_schema), "third-party")


@pytest.mark.parametrize(
    "sheet_schema",
    [
        {"type": "object", "properties": {"gear": {"type": "string"}}},
        {"type": "object", "properties": {"gear": {"enum": ["a", "b"]}}},
        {"type": "object", "properties": {"body": {"type": "integer"}}},  # no gear at all
        {"type": "object"},  # an object with no field
    ],
)
def test_a_part_the_sheet_schema_describes_as_no_list_or_object_is_still_refused(sheet_schema):
    named = r"plugin 'third-party'.*action 'pick' parameter 'what'.*at 'gear'"
    with pytest.raises(PluginError, match=named):
        check_ruleset(_ruleset({"sheet": "gear"}, sheet_schema), "third-party")


class Counted(str):
    """A text that counts how often it is compared."""

    compared = 0

    def __eq__(self, other: object) -> bool:
        Counted.compared += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_a_long_list_is_read_without_comparing_each_item_with_all_before():
    names = [Counted(f"weapon {i}") for i in range(2000)]
    sheet = {"weapons": [{"name": name} for name in names] + [{"name": Counted("weapon 7")}]}
    Counted.compared = 0
    found = sheet_choices({"choicesFrom": {"sheet": "weapons", "value": "name"}}, sheet)
    assert found == [f"weapon {i}" for i in range(2000)]  # each once, in the sheet's order
    Counted.compared = 0
    sheet_choices({"choicesFrom": {"sheet": "weapons", "value": "name"}}, sheet)
    assert Counted.compared < 10 * len(names), Counted.compared
    # texts and numbers stay apart; 1 and 1.0 are one number
    mixed = {"w": ["1", 1, 1.0, "1", 2]}
    assert sheet_choices({"choicesFrom": {"sheet": "w"}}, mixed) == ["1", 1, 2]


def test_a_state_list_that_fills_in_play_passes_the_conformance_suite_empty():
    """What an actor carries (techlevel's ``carried``, its ``stable``) is state: it
    changes in play, and a ruleset whose example actors start with nothing there
    (every one of them) offers nothing until play, which is no fault of its."""
    from rollbridge.plugins.techlevel.ruleset import TechLevel
    from rollbridge.testing import RulesetConformance

    bare = {
        name: {k: v for k, v in sheet.items() if k not in ("carried", "vehicles", "mounted")}
        for name, sheet in TechLevel.example_sheets.items()
    }
    ruleset = type("Bare", (TechLevel,), {"example_sheets": bare})()
    for actor in (ruleset.validate_sheet(sheet) for sheet in bare.values()):
        state = ruleset.initial_state(actor)
        assert state["carried"] == [] and state["stable"] == []
    suite = type("Suite", (RulesetConformance,), {"ruleset": ruleset, "seeds": (1,)})()
    suite.test_choices_from_name_the_example_sheets()


def test_a_sheet_path_still_needs_an_example_actor_offering_a_choice():
    from rollbridge.testing import RulesetConformance

    unarmed = {k: v for k, v in SR2Ruleset.example_sheets.items() if "weapons" not in v}
    ruleset = type("Unarmed", (SR2Ruleset,), {"example_sheets": unarmed})()
    suite = type("Suite", (RulesetConformance,), {"ruleset": ruleset, "seeds": (1,)})()
    with pytest.raises(AssertionError, match="no example actor offers a choice"):
        suite.test_choices_from_name_the_example_sheets()


STRAY = {"sheet": "weapons", "value": "name"}


@pytest.mark.parametrize(
    ("fields", "where"),
    [
        # inside an object parameter: no form reads it there
        (
            {
                "params": {
                    "type": "object",
                    "properties": {
                        "gear": {
                            "type": "object",
                            "properties": {"what": {"type": "string", "choicesFrom": STRAY}},
                        }
                    },
                }
            },
            "params.gear.what",
        ),
        # on a list parameter's items
        (
            {
                "params": {
                    "type": "object",
                    "properties": {
                        "what": {"type": "array", "items": {"type": "string", "choicesFrom": STRAY}}
                    },
                }
            },
            "params.what[]",
        ),
        # on the params object itself
        ({"params": {"type": "object", "choicesFrom": STRAY}}, "params"),
    ],
)
def test_a_choices_from_no_form_reads_is_refused_at_load(fields, where):
    pick = ActionSpec("pick", "Pick one.", actor="required", example={}, **fields)  # type: ignore[arg-type]
    ruleset = type("Stray", (SR2Ruleset,), {"actions": {"pick": pick}})()
    named = rf"plugin 'third-party'.*action 'pick' {re.escape(where)}.*choicesFrom"
    with pytest.raises(PluginError, match=named):
        check_ruleset(ruleset, "third-party")


def test_a_choices_from_in_a_sheet_schema_is_refused_at_load():
    schema = SR2Ruleset.sheet_schema
    sheet_schema = {
        **schema,
        "properties": {**schema["properties"], "x": {"type": "string", "choicesFrom": STRAY}},
    }
    ruleset = type("Stray", (SR2Ruleset,), {"sheet_schema": sheet_schema})()
    with pytest.raises(PluginError, match=r"plugin 'third-party'.*sheet_schema\.x.*choicesFrom"):
        check_ruleset(ruleset, "third-party")
