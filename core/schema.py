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
``choicesFrom``        documentation for forms: the parameter's choices are
                       on the acting actor's sheet or state (``{"sheet":
                       "weapons", "value": "name"}``), or on the action's
                       target's (``"of": "target"``; see
                       :func:`rollbridge.contract.sheet_choices`); never
                       checked against the value
=====================  ===============================================

Booleans are never accepted as integers, and integers are accepted as numbers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from rollbridge.exceptions import InvalidParams, InvalidRequest, PluginError
from rollbridge.plain import has_bidi_control, valid_text
from rollbridge.sent_kinds import sent_kind
from rollbridge.text import Messages, Text

__all__ = [
    "CHOICES_FROM_FIELDS",
    "CHOICES_OF",
    "KEYWORDS",
    "check_choices_from",
    "check_schema",
    "validate",
]

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
        "choicesFrom",
    }
)

#: The fields of a ``choicesFrom`` annotation: where the choices are (exactly one of
#: ``sheet`` and ``state``, a path of field names joined by dots), the field of each
#: item that is the value, whether the rules take only those values, and whose sheet
#: or state it is (``of``: ``"actor"``, the default, or ``"target"``).
CHOICES_FROM_FIELDS = frozenset({"sheet", "state", "value", "only", "of"})

#: Whose sheet or state a ``choicesFrom`` reads (its ``of``): the acting actor's
#: (the default) or the action's one target's.
CHOICES_OF = ("actor", "target")

_TYPES: dict[str, tuple[type, ...]] = {
    "integer": (int,),
    "number": (int, float),
    "string": (str,),
    "boolean": (bool,),
    "array": (list, tuple),
    "object": (Mapping,),
    "null": (type(None),),
}


say = Messages("rollbridge")
# Translators: {field} is the path of the offending value (params.dice, sheet.body:
# keep it as it is); {problem} one of the schema.* problems.
INVALID = say("schema.invalid", "{field}: {problem}")
NOT_UNICODE = say("schema.unicode", "text is not valid Unicode")
BIDI = say(
    "schema.bidi",
    "text must not hold a bidirectional control character (U+202A–U+202E, "
    "U+2066–U+2069): it could make what others read show otherwise",
)
TOO_DEEP = say("schema.depth", "nested more than {limit} levels deep")
OUT_OF_RANGE = say("schema.int64", "integer out of the 64-bit range")
NOT_FINITE = say("schema.finite", "numbers must be finite")
# Translators: {wanted} lists JSON type names (integer, string, …) joined by " or ":
# write the joining word between ": " and "}"; {got} is a JSON type name.
WRONG_TYPE = say("schema.type", "must be {wanted: or }, got {got}")
NOT_IN_ENUM = say("schema.enum", "must be one of {options}, got {value}")
# Translators: {kind} names what a client sent that only msgpack carries, as
# sent.extension and sent.binary ("a msgpack extension value (type 5)").
SENT_VALUE = say("schema.sent_value", "value not allowed: {kind}")
BELOW = say("schema.minimum", "must be ≥ {limit}, got {value}")
ABOVE = say("schema.maximum", "must be ≤ {limit}, got {value}")
TOO_SHORT = say.plural(
    "schema.min_length",
    "must be at least {count} character long",
    "must be at least {count} characters long",
)
TOO_LONG = say.plural(
    "schema.max_length",
    "must be at most {count} character long",
    "must be at most {count} characters long",
)
NO_MATCH = say("schema.pattern", "{value} does not match the pattern {pattern}")
REQUIRED = say("schema.required", "is required")
UNKNOWN_FIELD = say("schema.unknown_field", "is not a known field (known: {known})")
UNKNOWN_FIELD_NONE = say("schema.unknown_field_none", "is not a known field (known: none)")
TOO_FEW = say.plural(
    "schema.min_items", "must have at least {count} item", "must have at least {count} items"
)
TOO_MANY = say.plural(
    "schema.max_items", "must have at most {count} item", "must have at most {count} items"
)


# The checks of a plugin's own schemas at load time (the operator reads them in a
# ruleset's refusal). Translators: {where} is where in the plugin's schemas
# (sheet_schema.body, action 'attack' params.weapon: keep it as it is); JSON Schema's
# words (keyword, pattern, choicesFrom, sheet, state, value, only, of, actor, target,
# true, false) stay as they are.
NOT_A_MAPPING = say("schema.check.mapping", "{where} must be a mapping, not {given}")
UNSUPPORTED = say.plural(
    "schema.check.keywords",
    "{where} uses {count} unsupported keyword: {names}",
    "{where} uses {count} unsupported keywords: {names}",
)
UNKNOWN_TYPE = say("schema.check.type", "{where} has unknown type {name}")
# Translators: {error} is Python's own (English) words about the regular expression.
BAD_PATTERN = say("schema.check.pattern", "{where} has a bad pattern: {error}")
UNDESCRIBED = say("schema.check.required", "{where} requires {key} but does not describe it")
BAD_DEFAULT = say("schema.check.default", "{where} has a default its own schema refuses: {error}")
CHOICES_NOT_A_MAPPING = say("schema.check.choices_mapping", "{where}.choicesFrom must be a mapping")
CHOICES_UNKNOWN = say.plural(
    "schema.check.choices_fields",
    "{where}.choicesFrom has {count} unknown field: {names}",
    "{where}.choicesFrom has {count} unknown fields: {names}",
)
CHOICES_ONE_SOURCE = say(
    "schema.check.choices_source", "{where}.choicesFrom needs exactly one of 'sheet' and 'state'"
)
CHOICES_PATH = say(
    "schema.check.choices_path", "{where}.choicesFrom.{source} must be field names joined by dots"
)
CHOICES_VALUE = say("schema.check.choices_value", "{where}.choicesFrom.value must be a field name")
CHOICES_ONLY = say("schema.check.choices_only", "{where}.choicesFrom.only must be true or false")
CHOICES_WHOSE = say("schema.check.choices_of", "{where}.choicesFrom.of must be 'actor' or 'target'")


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def check_schema(schema: Any, where: str = "schema") -> None:
    """Raise :class:`~rollbridge.exceptions.PluginError` if ``schema`` uses
    anything outside the subset, so a plugin's mistake shows at load time."""
    if not isinstance(schema, Mapping):
        raise PluginError(NOT_A_MAPPING(where=where, given=type(schema).__name__))
    unknown = set(schema) - KEYWORDS
    if unknown:
        names = ", ".join(sorted(unknown))
        raise PluginError(UNSUPPORTED(count=len(unknown), where=where, names=names))
    types = schema.get("type")
    for name in [types] if isinstance(types, str) else (types or []):
        if name not in _TYPES:
            raise PluginError(UNKNOWN_TYPE(where=where, name=repr(name)))
    if "pattern" in schema:
        try:
            _compiled(schema["pattern"])
        except re.error as exc:
            raise PluginError(BAD_PATTERN(where=where, error=str(exc))) from None
    for key, sub in (schema.get("properties") or {}).items():
        check_schema(sub, f"{where}.{key}")
    for key in schema.get("required", ()):
        if key not in (schema.get("properties") or {}):
            raise PluginError(UNDESCRIBED(where=where, key=repr(key)))
    if isinstance(schema.get("items"), Mapping):
        check_schema(schema["items"], f"{where}[]")
    if isinstance(schema.get("additionalProperties"), Mapping):
        check_schema(schema["additionalProperties"], f"{where}.*")
    if "choicesFrom" in schema:
        check_choices_from(schema["choicesFrom"], where)
    if "default" in schema:
        # a default its own node refuses would be filled in, then refuse every value
        try:
            validate(schema, schema["default"], where=f"{where} default")
        except InvalidRequest as exc:
            error = exc.text if exc.text is not None else exc.message
            raise PluginError(BAD_DEFAULT(where=where, error=error)) from None


_PATH = re.compile(r"[^.\s]+(?:\.[^.\s]+)*")


def check_choices_from(annotation: Any, where: str = "schema") -> None:
    """Raise :class:`~rollbridge.exceptions.PluginError` unless ``annotation`` is a
    well-formed ``choicesFrom``: a mapping with exactly one of ``sheet`` and
    ``state`` (field names joined by dots, ``"weapons"``, ``"stats"``), an
    optional ``value`` (a field name), an optional boolean ``only`` and an optional
    ``of`` (``"actor"`` or ``"target"``)."""
    if not isinstance(annotation, Mapping):
        raise PluginError(CHOICES_NOT_A_MAPPING(where=where))
    unknown = set(annotation) - CHOICES_FROM_FIELDS
    if unknown:
        names = ", ".join(sorted(unknown))
        raise PluginError(CHOICES_UNKNOWN(count=len(unknown), where=where, names=names))
    sources = [key for key in ("sheet", "state") if key in annotation]
    if len(sources) != 1:
        raise PluginError(CHOICES_ONE_SOURCE(where=where))
    path = annotation[sources[0]]
    if not isinstance(path, str) or not _PATH.fullmatch(path):
        raise PluginError(CHOICES_PATH(where=where, source=sources[0]))
    value = annotation.get("value")
    if value is not None and (not isinstance(value, str) or not _PATH.fullmatch(value)):
        raise PluginError(CHOICES_VALUE(where=where))
    if not isinstance(annotation.get("only", False), bool):
        raise PluginError(CHOICES_ONLY(where=where))
    if annotation.get("of", "actor") not in CHOICES_OF:
        raise PluginError(CHOICES_WHOSE(where=where))


def _type_name(value: Any) -> str | Text:
    """``value``'s JSON type name, or in words what only msgpack carries (an
    extension, binary data) and a NaN or infinite number."""
    sent = sent_kind(value)
    if sent is not None:
        return sent
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
        return _validator(schema)(value, where, 0)
    except _Invalid as problem:
        path = problem.path_text()
        raise error(INVALID(field=path, problem=problem.message), details={"field": path}) from None


# -- compiled validators ----------------------------------------------------------
#
# Each schema node is compiled once into a closure (cached per schema object), made
# for what that node checks: a string node checks a string, an object node walks its
# properties. A request pays for the checks its schema names and nothing else. Paths
# are built only when a check fails. Every value a validator accepts is plain data —
# text of valid Unicode, integers within 64 bits, finite numbers, string keys — and
# the parts a schema leaves free (``additionalProperties: true``, arrays without
# ``items``) are walked for that, at most MAX_DEPTH deep; so a validated request
# needs no second walk.

Path = str | tuple  # a rendered path, or (parent path, ".key" or "[i]")
MAX_DEPTH = 32
_LOW, _HIGH = -(2**63), 2**63


class _Invalid(Exception):
    def __init__(self, path: Path, message: Text) -> None:
        self.path, self.message = path, message

    def path_text(self) -> str:
        parts: list[str] = []
        path = self.path
        while isinstance(path, tuple):
            path, suffix = path
            parts.append(suffix if suffix.__class__ is str else f"[{suffix}]")
        return path + "".join(reversed(parts))


Check = Callable[[Any, Path, int], Any]
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


def _text(item: str, path: Path) -> str:
    if not valid_text(item):
        raise _Invalid(path, NOT_UNICODE())
    if has_bidi_control(item):
        raise _Invalid(path, BIDI())
    return item


def _free(item: Any, path: Path, depth: int) -> Any:
    """A value no schema describes: plain data, at most MAX_DEPTH deep."""
    if depth > MAX_DEPTH:
        raise _Invalid(path, TOO_DEEP(limit=MAX_DEPTH))
    kind = item.__class__
    if kind is str:
        return _text(item, path)
    if kind is int:
        if not _LOW <= item < _HIGH:
            raise _Invalid(path, OUT_OF_RANGE())
        return item
    if kind is float:
        if not math.isfinite(item):
            raise _Invalid(path, NOT_FINITE())
        return item
    if item is None or kind is bool:
        return item
    if kind is dict:
        for key, value in item.items():
            if key.__class__ is not str:
                raise _Invalid(
                    path,
                    say("schema.key_type", "map keys must be strings, got {key}")(
                        key=_sent_or_repr(key)
                    ),
                )
            _text(key, path)
            _free(value, (path, f".{key}"), depth + 1)
        return item
    if kind is list or kind is tuple:
        for index, value in enumerate(item):
            _free(value, (path, index), depth + 1)
        return list(item)
    if isinstance(item, Mapping):
        return _free(dict(item), path, depth)
    sent = sent_kind(item)
    if sent is not None:  # what a client sent that only msgpack carries, in words
        raise _Invalid(path, SENT_VALUE(kind=sent))
    raise _Invalid(
        path,
        say("schema.values", "{kind} values are not allowed")(kind=type(item).__name__),
    )


def _enum_got(value: Any) -> str | Text:
    """A value an enum does not hold, as its refusal names it: a scalar as its repr,
    an array or a map by its JSON type (never the repr of what it holds: a client's
    msgpack extension there read ``[SentExtension(1, <0 bytes>)]``), a value only
    msgpack carries in words."""
    if isinstance(value, list | tuple | Mapping):
        return _type_name(value)
    return sent_kind(value) or repr(value)


def _sent_or_repr(value: Any) -> str | Text:
    """A value a client sent where a field name stands: in words when only msgpack
    carries it (never Python's repr of a SentExtension or bytes), else its repr."""
    return sent_kind(value) or format(repr(value), ".40")


def _compile(node: Mapping[str, Any]) -> Check:
    """The check of one schema node: it raises _Invalid or returns the value
    (defaults filled in, integral floats as integers)."""
    types = node.get("type")
    names = None if types is None else ([types] if isinstance(types, str) else list(types))
    enum = node.get("enum")
    is_object = "properties" in node or (names is not None and names == ["object"])
    if names is None and enum is None and not is_object:
        return _free
    wanted = list(names) if names else []
    to_int = names is not None and "integer" in names
    low, high = node.get("minimum"), node.get("maximum")
    min_len, max_len = node.get("minLength"), node.get("maxLength")
    pattern = _compiled(node["pattern"]) if "pattern" in node else None
    min_items, max_items = node.get("minItems"), node.get("maxItems")
    items = _compile(node["items"]) if isinstance(node.get("items"), Mapping) else _free
    props = {k: _compile(v) for k, v in (node.get("properties") or {}).items()}
    required = tuple(node.get("required", ()))
    extra_raw = node.get("additionalProperties", False)
    extra = _compile(extra_raw) if isinstance(extra_raw, Mapping) else extra_raw is True
    known = sorted(props)
    defaults = [
        (key, sub["default"])
        for key, sub in (node.get("properties") or {}).items()
        if "default" in sub
    ]
    accepted = _accepted_classes(names)
    special = _special(names, is_object, enum, locals())
    if special is not None:
        return special

    text_check, array_check = _string_check(locals()), _array_check(locals())
    object_check = _object_check(locals()) if is_object else None

    def check(item: Any, path: Path, depth: int = 0) -> Any:
        kind = item.__class__
        if names is not None and kind not in accepted:
            if not any(_matches_type(item, n) for n in names):
                raise _Invalid(path, WRONG_TYPE(wanted=wanted, got=_type_name(item)))
            kind = item.__class__
        if kind is float:
            if not math.isfinite(item):
                raise _Invalid(path, NOT_FINITE())
            if to_int and item.is_integer():
                item = int(item)
                kind = int
        if enum is not None and item not in enum:
            options = [repr(o) for o in enum]
            raise _Invalid(path, NOT_IN_ENUM(options=options, value=_enum_got(item)))
        if kind is str:
            return text_check(item, path, depth)
        if kind is int or kind is float:
            if kind is int and not _LOW <= item < _HIGH:
                raise _Invalid(path, OUT_OF_RANGE())
            if low is not None and item < low:
                raise _Invalid(path, BELOW(limit=low, value=item))
            if high is not None and item > high:
                raise _Invalid(path, ABOVE(limit=high, value=item))
            return item
        if kind is list or kind is tuple:
            return array_check(item, path, depth)
        if object_check is not None and isinstance(item, Mapping):
            return object_check(item, path, depth)
        return _free(item, path, depth)  # null, a boolean, or a map the node leaves free

    return check


def _special(names: list[str] | None, is_object: bool, enum: Any, spec: dict[str, Any]) -> Any:
    """A check made for one common kind of node (a string, an integer, an object with
    properties, an array), or None for the general one: the same checks and messages,
    fewer steps."""
    if enum is not None:
        return None
    if names == ["string"]:
        return _string_check(spec)
    if names == ["integer"]:
        return _integer_check(spec)
    if is_object and names in (None, ["object"]):
        return _object_check(spec)
    if names == ["array"]:
        return _array_check(spec)
    return None


def _string_check(spec: dict[str, Any]) -> Check:
    min_len, max_len, pattern = spec["min_len"], spec["max_len"], spec["pattern"]

    def check_string(item: Any, path: Path, depth: int = 0) -> Any:
        if item.__class__ is not str:
            if not isinstance(item, str):
                raise _Invalid(path, WRONG_TYPE(wanted=["string"], got=_type_name(item)))
            item = str(item)
        if not item.isascii():
            _text(item, path)
        if min_len is not None and len(item) < min_len:
            raise _Invalid(path, TOO_SHORT(count=min_len))
        if max_len is not None and len(item) > max_len:
            raise _Invalid(path, TOO_LONG(count=max_len))
        if pattern is not None and not pattern.fullmatch(item):
            raise _Invalid(path, NO_MATCH(value=repr(item), pattern=repr(pattern.pattern)))
        return item

    return check_string


def _integer_check(spec: dict[str, Any]) -> Check:
    low, high = spec["low"], spec["high"]
    bottom = _LOW if low is None else max(_LOW, low)
    top = _HIGH - 1 if high is None else min(_HIGH - 1, high)

    def check_integer(item: Any, path: Path, depth: int = 0) -> Any:
        if item.__class__ is not int:
            integral = item.__class__ is float and math.isfinite(item) and item.is_integer()
            if not integral and (not isinstance(item, int) or isinstance(item, bool)):
                raise _Invalid(path, WRONG_TYPE(wanted=["integer"], got=_type_name(item)))
            item = int(item)
        if not bottom <= item <= top:
            if not _LOW <= item < _HIGH:
                raise _Invalid(path, OUT_OF_RANGE())
            if low is not None and item < low:
                raise _Invalid(path, BELOW(limit=low, value=item))
            raise _Invalid(path, ABOVE(limit=high, value=item))
        return item

    return check_integer


def _object_check(spec: dict[str, Any]) -> Check:
    props, required, extra = spec["props"], spec["required"], spec["extra"]
    known, defaults = spec["known"], spec["defaults"]

    def check_object(item: Any, path: Path, depth: int = 0) -> Any:
        if item.__class__ is not dict:
            if not isinstance(item, Mapping):
                raise _Invalid(path, WRONG_TYPE(wanted=["object"], got=_type_name(item)))
            item = dict(item)
        if depth >= MAX_DEPTH:
            raise _Invalid(path, TOO_DEEP(limit=MAX_DEPTH))
        for key in required:
            if key not in item:
                raise _Invalid((path, f".{key}"), REQUIRED())
        out: dict[str, Any] = {}
        for key, sub_value in item.items():
            sub = props.get(key) if key.__class__ is str else None
            if sub is not None:
                out[key] = sub(sub_value, (path, "." + key), depth + 1)
            elif key.__class__ is not str:
                raise _Invalid(
                    path,
                    say("schema.field_names", "field names must be strings, got {key}")(
                        key=_sent_or_repr(key)
                    ),
                )
            elif extra is True:
                _text(key, path)
                out[key] = _free(sub_value, (path, "." + key), depth + 1)
            elif extra is not False:
                out[key] = extra(sub_value, (path, "." + key), depth + 1)
            else:
                unknown = UNKNOWN_FIELD(known=known) if known else UNKNOWN_FIELD_NONE()
                raise _Invalid((path, "." + key), unknown)
        for key, default in defaults:
            if key not in out:
                kind = default.__class__
                out[key] = (
                    dict(default) if kind is dict else list(default) if kind is list else default
                )
        return out

    return check_object


def _array_check(spec: dict[str, Any]) -> Check:
    items, min_items, max_items = spec["items"], spec["min_items"], spec["max_items"]

    def check_array(item: Any, path: Path, depth: int = 0) -> Any:
        if item.__class__ is not list and not isinstance(item, list | tuple):
            raise _Invalid(path, WRONG_TYPE(wanted=["array"], got=_type_name(item)))
        if depth >= MAX_DEPTH:
            raise _Invalid(path, TOO_DEEP(limit=MAX_DEPTH))
        if min_items is not None and len(item) < min_items:
            raise _Invalid(path, TOO_FEW(count=min_items))
        if max_items is not None and len(item) > max_items:
            raise _Invalid(path, TOO_MANY(count=max_items))
        return [items(x, (path, i), depth + 1) for i, x in enumerate(item)]

    return check_array


def _accepted_classes(names: list[str] | None) -> frozenset[type]:
    """The exact classes a type list accepts at once (others go the slow way)."""
    exact: set[type] = set()
    for name in names or ():
        exact.update(
            {
                "integer": (int,),
                "number": (int, float),
                "string": (str,),
                "boolean": (bool,),
                "array": (list,),
                "object": (dict,),
                "null": (type(None),),
            }[name]
        )
    if "integer" in (names or ()) and "number" not in (names or ()):
        exact.discard(float)  # an integral float is accepted, but not at once
    return frozenset(exact)
