"""Parameter schemas: a small, documented subset of JSON Schema.

Rulesets describe each action's parameters, their character sheets and their
table settings with plain JSON-Schema dictionaries, so any client (the Foundry
module, a form generator) can read them. rollbridge validates against this
subset itself rather than pulling in a full JSON-Schema implementation and
its dependencies:

=====================  ===============================================
keyword                meaning here
=====================  ===============================================
``type``               ``integer``, ``number``, ``string``, ``boolean``,
                       ``array``, ``object``, ``null``, or a list of them
``enum``               the value must be one of these
``minimum/maximum``    bounds for numbers (inclusive)
``minLength/maxLength`` bounds for strings
``pattern``            a regular expression the whole string must match
``items``              the schema of every array item
``minItems/maxItems``  bounds for arrays
``properties``         schemas of an object's fields
``required``           fields that must be present
``additionalProperties`` ``false`` (the default here, unlike JSON Schema:
                       a misspelt parameter is an error, not ignored),
                       ``true``, or a schema for the other fields
``default``            filled in when the field is absent
``title/description/examples``  documentation only
=====================  ===============================================

Booleans are never accepted as integers, and integers are accepted as numbers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from rollbridge.exceptions import InvalidParams, InvalidRequest, PluginError

__all__ = ["KEYWORDS", "check_schema", "validate"]

KEYWORDS = frozenset(
    {
        "type",
        "enum",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "pattern",
        "items",
        "minItems",
        "maxItems",
        "properties",
        "required",
        "additionalProperties",
        "default",
        "title",
        "description",
        "examples",
    }
)

_TYPES: dict[str, tuple[type, ...]] = {
    "integer": (int,),
    "number": (int, float),
    "string": (str,),
    "boolean": (bool,),
    "array": (list, tuple),
    "object": (Mapping,),
    "null": (type(None),),
}


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def check_schema(schema: Any, where: str = "schema") -> None:
    """Raise :class:`~rollbridge.exceptions.PluginError` if ``schema`` uses
    anything outside the subset, so a plugin's mistake shows at load time."""
    if not isinstance(schema, Mapping):
        raise PluginError(f"{where} must be a mapping, not {type(schema).__name__}")
    unknown = set(schema) - KEYWORDS
    if unknown:
        raise PluginError(f"{where} uses unsupported keyword(s): {', '.join(sorted(unknown))}")
    types = schema.get("type")
    for name in [types] if isinstance(types, str) else (types or []):
        if name not in _TYPES:
            raise PluginError(f"{where} has unknown type {name!r}")
    if "pattern" in schema:
        try:
            _compiled(schema["pattern"])
        except re.error as exc:
            raise PluginError(f"{where} has a bad pattern: {exc}") from None
    for key, sub in (schema.get("properties") or {}).items():
        check_schema(sub, f"{where}.{key}")
    for key in schema.get("required", ()):
        if key not in (schema.get("properties") or {}):
            raise PluginError(f"{where} requires {key!r} but does not describe it")
    if isinstance(schema.get("items"), Mapping):
        check_schema(schema["items"], f"{where}[]")
    if isinstance(schema.get("additionalProperties"), Mapping):
        check_schema(schema["additionalProperties"], f"{where}.*")


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def _matches_type(value: Any, name: str) -> bool:
    if isinstance(value, bool) and name in ("integer", "number"):
        return False
    if name == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _TYPES[name])


def validate(
    schema: Mapping[str, Any],
    value: Any,
    *,
    where: str = "params",
    error: type[InvalidRequest] = InvalidParams,
) -> Any:
    """Check ``value`` against ``schema`` and return it with defaults filled in.

    :param schema: a schema in the subset above.
    :param value: the decoded request data.
    :param where: the name used for the value in messages (``params.rounds``).
    :param error: the error class raised (``InvalidParams``, ``InvalidSheet``, …).
    :raises InvalidRequest: (of class ``error``) naming the field and the problem.
    """

    def fail(path: str, problem: str) -> InvalidRequest:
        return error(f"{path}: {problem}", details={"field": path})

    def walk(node: Mapping[str, Any], item: Any, path: str) -> Any:
        types = node.get("type")
        if types is not None:
            names = [types] if isinstance(types, str) else list(types)
            if not any(_matches_type(item, n) for n in names):
                raise fail(path, f"must be {' or '.join(names)}, got {_type_name(item)}")
            if "integer" in names and isinstance(item, float) and not isinstance(item, bool):
                item = int(item)
        if "enum" in node and item not in node["enum"]:
            options = ", ".join(repr(o) for o in node["enum"])
            raise fail(path, f"must be one of {options}, got {item!r}")
        if isinstance(item, int | float) and not isinstance(item, bool):
            if "minimum" in node and item < node["minimum"]:
                raise fail(path, f"must be ≥ {node['minimum']}, got {item}")
            if "maximum" in node and item > node["maximum"]:
                raise fail(path, f"must be ≤ {node['maximum']}, got {item}")
        if isinstance(item, str):
            if "minLength" in node and len(item) < node["minLength"]:
                raise fail(path, f"must be at least {node['minLength']} characters long")
            if "maxLength" in node and len(item) > node["maxLength"]:
                raise fail(path, f"must be at most {node['maxLength']} characters long")
            if "pattern" in node and not _compiled(node["pattern"]).fullmatch(item):
                raise fail(path, f"{item!r} does not match the pattern {node['pattern']!r}")
        if isinstance(item, list | tuple):
            if "minItems" in node and len(item) < node["minItems"]:
                raise fail(path, f"must have at least {node['minItems']} items")
            if "maxItems" in node and len(item) > node["maxItems"]:
                raise fail(path, f"must have at most {node['maxItems']} items")
            sub = node.get("items")
            if isinstance(sub, Mapping):
                item = [walk(sub, x, f"{path}[{i}]") for i, x in enumerate(item)]
            else:
                item = list(item)
        if isinstance(item, Mapping) and ("properties" in node or node.get("type") == "object"):
            props: Mapping[str, Any] = node.get("properties") or {}
            extra = node.get("additionalProperties", False)
            out: dict[str, Any] = {}
            for key in node.get("required", ()):
                if key not in item:
                    raise fail(f"{path}.{key}", "is required")
            for key, sub_value in item.items():
                if not isinstance(key, str):
                    raise fail(path, f"field names must be strings, got {key!r}")
                if key in props:
                    out[key] = walk(props[key], sub_value, f"{path}.{key}")
                elif extra is True:
                    out[key] = sub_value
                elif isinstance(extra, Mapping):
                    out[key] = walk(extra, sub_value, f"{path}.{key}")
                else:
                    known = ", ".join(sorted(props)) or "none"
                    raise fail(f"{path}.{key}", f"is not a known field (known: {known})")
            for key, sub in props.items():
                if key not in out and "default" in sub:
                    default = sub["default"]
                    out[key] = (
                        dict(default)
                        if isinstance(default, Mapping)
                        else list(default)
                        if isinstance(default, list)
                        else default
                    )
            item = out
        return item

    return walk(schema, value, where)
