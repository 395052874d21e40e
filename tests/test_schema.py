"""The schema subset (rollbridge.schema): what it accepts, refuses, fills in, and says.

Validators are compiled once per schema; a value a validator accepts is plain data
(text of valid Unicode, integers within 64 bits, finite numbers), so a request needs
no second walk to check it.
"""

from __future__ import annotations

import pytest

from rollbridge.exceptions import InvalidParams, InvalidRequest, PluginError
from rollbridge.schema import check_schema, validate

PARAMS = {
    "type": "object",
    "properties": {
        "weapon": {"type": "string", "minLength": 1, "maxLength": 8},
        "rounds": {"type": "integer", "minimum": 1, "maximum": 10, "default": 1},
        "range": {"enum": ["short", "long"]},
        "code": {"type": "string", "pattern": r"\d+[LMSD]"},
        "mods": {"type": "array", "items": {"type": "integer"}, "maxItems": 2, "default": []},
        "ratio": {"type": "number"},
        "note": {"type": ["string", "null"]},
        "extra": {"type": "object", "additionalProperties": True},
        "flag": {"type": "boolean"},
    },
    "required": ["weapon"],
}


def test_a_valid_value_comes_back_with_defaults_filled_and_copied():
    first = validate(PARAMS, {"weapon": "Hackler"})
    assert first == {"weapon": "Hackler", "rounds": 1, "mods": []}
    first["mods"].append(3)
    assert validate(PARAMS, {"weapon": "Hackler"})["mods"] == []  # a fresh default each time


def test_integral_floats_are_integers_and_booleans_never_are():
    assert validate(PARAMS, {"weapon": "x", "rounds": 3.0})["rounds"] == 3
    assert validate(PARAMS, {"weapon": "x", "ratio": 2})["ratio"] == 2
    with pytest.raises(InvalidParams, match=r"params.rounds: must be integer, got boolean"):
        validate(PARAMS, {"weapon": "x", "rounds": True})
    with pytest.raises(InvalidParams, match=r"params.rounds: must be integer, got number"):
        validate(PARAMS, {"weapon": "x", "rounds": 2.5})


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({}, r"params.weapon: is required"),
        ({"weapon": ""}, r"params.weapon: must be at least 1 character long"),
        ({"weapon": "x" * 9}, r"params.weapon: must be at most 8 characters long"),
        ({"weapon": "x", "rounds": 0}, r"params.rounds: must be ≥ 1, got 0"),
        ({"weapon": "x", "rounds": 11}, r"params.rounds: must be ≤ 10, got 11"),
        ({"weapon": "x", "range": "far"}, r"params.range: must be one of 'short', 'long'"),
        ({"weapon": "x", "code": "9X"}, r"params.code: '9X' does not match the pattern"),
        ({"weapon": "x", "mods": [1, 2, 3]}, r"params.mods: must have at most 2 items"),
        ({"weapon": "x", "mods": [1, "2"]}, r"params.mods\[1\]: must be integer, got string"),
        ({"weapon": "x", "note": 5}, r"params.note: must be string or null, got integer"),
        ({"weapon": "x", "wepon": 1}, r"params.wepon: is not a known field \(known: code, "),
        ({"weapon": 5}, r"params.weapon: must be string, got integer"),
        ([], r"params: must be object, got array"),
    ],
)
def test_refusals_name_the_field_and_the_problem(value, message):
    with pytest.raises(InvalidParams, match=message) as caught:
        validate(PARAMS, value)
    assert caught.value.details["field"].startswith("params")


def test_the_error_class_and_the_name_are_the_callers():
    with pytest.raises(InvalidRequest) as caught:
        validate(PARAMS, {}, where="resolve.params", error=InvalidRequest)
    assert type(caught.value) is InvalidRequest
    assert caught.value.details == {"field": "resolve.params.weapon"}


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({"weapon": "\ud800"}, "valid Unicode"),
        ({"weapon": "x", "extra": {"deep": ["\udfff"]}}, "valid Unicode"),
        ({"weapon": "x", "ratio": float("nan")}, "finite"),
        ({"weapon": "x", "extra": {"n": float("inf")}}, "finite"),
        ({"weapon": "x", "mods": [2**63]}, "64-bit"),
        ({"weapon": "x", "extra": {"n": -(2**63) - 1}}, "64-bit"),
        ({"weapon": "x", "extra": {"k": {1: 2}}}, "keys must be strings"),
        ({"weapon": "x", "extra": {"k": b"bytes"}}, "bytes"),
    ],
)
def test_what_a_validator_accepts_is_plain_data(value, problem):
    with pytest.raises(InvalidParams, match=problem):
        validate(PARAMS, value)


def test_free_objects_nest_at_most_32_deep():
    deep: object = 1
    for _ in range(40):
        deep = {"d": deep}
    with pytest.raises(InvalidParams, match="nested more than 32 levels deep"):
        validate(PARAMS, {"weapon": "x", "extra": deep})
    shallow: object = 1
    for _ in range(20):
        shallow = {"d": shallow}
    assert validate(PARAMS, {"weapon": "x", "extra": shallow})["extra"] == shallow


def test_additional_properties_as_a_schema():
    schema = {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}}
    assert validate(schema, {"a": 1, "b": 2}) == {"a": 1, "b": 2}
    with pytest.raises(InvalidParams, match=r"params.b: must be ≥ 0, got -1"):
        validate(schema, {"a": 1, "b": -1})


def test_schemas_outside_the_subset_are_refused_when_checked():
    with pytest.raises(PluginError, match="unsupported keyword"):
        check_schema({"type": "object", "oneOf": []})
    with pytest.raises(PluginError, match="requires 'x' but does not describe it"):
        check_schema({"type": "object", "required": ["x"]})
    with pytest.raises(PluginError, match="bad pattern"):
        check_schema({"type": "string", "pattern": "("})


def test_a_default_its_own_node_refuses_is_refused_when_checked():
    with pytest.raises(PluginError, match=r"^s\.n has a default its own schema refuses: s\.n"):
        check_schema({"type": "object", "properties": {"n": {"type": "integer", "maximum": 5,
                                                             "default": 9}}}, "s")  # fmt: skip
    with pytest.raises(PluginError, match="items has a default"):
        check_schema({"type": "array", "items": {"type": "string"}, "default": [1]}, "items")
    check_schema({"type": "integer", "minimum": 1, "default": 1})  # a fitting one passes
