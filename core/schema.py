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
from collections.abc import Callable, Mapping
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
    try:
        return _validator(schema)(value, where)
    except _Invalid as problem:
        path = problem.path_text()
        raise error(f"{path}: {problem.message}", details={"field": path}) from None


# -- compiled validators ----------------------------------------------------------
#
# Each schema node is compiled once into a closure (cached per schema object), so a
# request pays for dictionary look-ups and isinstance checks, not for interpreting
# the schema. Paths are built only when a check fails.

Path = str | tuple  # a rendered path, or (parent path, ".key" or "[i]")


class _Invalid(Exception):
    def __init__(self, path: Path, message: str) -> None:
        self.path, self.message = path, message

    def path_text(self) -> str:
        parts: list[str] = []
        path = self.path
        while isinstance(path, tuple):
            path, suffix = path
            parts.append(suffix)
        return path + "".join(reversed(parts))


Check = Callable[[Any, Path], Any]
_VALIDATORS: dict[int, tuple[Mapping[str, Any], Check]] = {}


def _validator(schema: Mapping[str, Any]) -> Check:
    cached = _VALIDATORS.get(id(schema))
    if cached is not None and cached[0] is schema:
        return cached[1]
    check = _compile(schema)
    if len(_VALIDATORS) > 4096:
        _VALIDATORS.clear()
    _VALIDATORS[id(schema)] = (schema, check)
    return check


def _compile(node: Mapping[str, Any]) -> Check:
    types = node.get("type")
    names = None if types is None else ([types] if isinstance(types, str) else list(types))
    to_int = names is not None and "integer" in names
    enum = node.get("enum")
    low, high = node.get("minimum"), node.get("maximum")
    min_len, max_len = node.get("minLength"), node.get("maxLength")
    pattern = _compiled(node["pattern"]) if "pattern" in node else None
    min_items, max_items = node.get("minItems"), node.get("maxItems")
    items = _compile(node["items"]) if isinstance(node.get("items"), Mapping) else None
    is_object = "properties" in node or node.get("type") == "object"
    props = {k: _compile(v) for k, v in (node.get("properties") or {}).items()}
    required = tuple(node.get("required", ()))
    extra_raw = node.get("additionalProperties", False)
    extra = _compile(extra_raw) if isinstance(extra_raw, Mapping) else extra_raw is True
    known = ", ".join(sorted(props)) or "none"
    defaults = [
        (key, sub["default"])
        for key, sub in (node.get("properties") or {}).items()
        if "default" in sub
    ]

    def check(item: Any, path: Path) -> Any:
        if names is not None:
            if not any(_matches_type(item, n) for n in names):
                raise _Invalid(path, f"must be {' or '.join(names)}, got {_type_name(item)}")
            if to_int and item.__class__ is float:
                item = int(item)
        if enum is not None and item not in enum:
            options = ", ".join(repr(o) for o in enum)
            raise _Invalid(path, f"must be one of {options}, got {item!r}")
        kind = item.__class__
        if kind is int or kind is float:
            if low is not None and item < low:
                raise _Invalid(path, f"must be ≥ {low}, got {item}")
            if high is not None and item > high:
                raise _Invalid(path, f"must be ≤ {high}, got {item}")
        elif kind is str:
            if min_len is not None and len(item) < min_len:
                raise _Invalid(path, f"must be at least {min_len} characters long")
            if max_len is not None and len(item) > max_len:
                raise _Invalid(path, f"must be at most {max_len} characters long")
            if pattern is not None and not pattern.fullmatch(item):
                raise _Invalid(path, f"{item!r} does not match the pattern {pattern.pattern!r}")
        elif kind is list or kind is tuple:
            if min_items is not None and len(item) < min_items:
                raise _Invalid(path, f"must have at least {min_items} items")
            if max_items is not None and len(item) > max_items:
                raise _Invalid(path, f"must have at most {max_items} items")
            if items is not None:
                item = [items(x, (path, f"[{i}]")) for i, x in enumerate(item)]
            else:
                item = list(item)
        elif is_object and isinstance(item, Mapping):
            for key in required:
                if key not in item:
                    raise _Invalid((path, f".{key}"), "is required")
            out: dict[str, Any] = {}
            for key, sub_value in item.items():
                sub = props.get(key) if key.__class__ is str else None
                if sub is not None:
                    out[key] = sub(sub_value, (path, f".{key}"))
                elif key.__class__ is not str:
                    raise _Invalid(path, f"field names must be strings, got {key!r}")
                elif extra is True:
                    out[key] = sub_value
                elif extra is not False:
                    out[key] = extra(sub_value, (path, f".{key}"))
                else:
                    raise _Invalid((path, f".{key}"), f"is not a known field (known: {known})")
            for key, default in defaults:
                if key not in out:
                    out[key] = (
                        dict(default)
                        if isinstance(default, Mapping)
                        else list(default)
                        if isinstance(default, list)
                        else default
                    )
            item = out
        return item

    return check
