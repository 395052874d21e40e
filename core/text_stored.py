"""A ruleset's stored private forms read back as the :class:`~rollbridge.text.Private`
values they stand for.

An event keeps a :class:`~rollbridge.text.Private` as a map, ``{"private": value,
"of": actor id, "aspect": aspect, "instead": value?}`` (:func:`rollbridge.text.stored`).
A ruleset may build that map itself, or read one back from data it kept (a follow-up's
parameters, which must be plain data). Inside a text's argument or a refusal's message
the renderer reads such a map as a private value already; :func:`privatized` lets the
places that would show it as Python writes a map — a :class:`~rollbridge.text.Text`'s
repr, a data class's repr, a refusal's ``details`` — show it as they show a
``Private``: hidden (``Private(<hidden>, …)``, ``"<Private>"``), and in full inside
:func:`rollbridge.text.revealed`. (:func:`rollbridge.text.privatized` gives it
:class:`~rollbridge.text.Private`: this module imports nothing of that one.)
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["ELIDED", "MAX_NESTING", "privatize"]

#: How deep lists and maps inside a text's argument are read: deeper ones read as
#: :data:`ELIDED` (a validated request holds data at most 32 levels deep too).
MAX_NESTING = 32

#: What a list or map read inside itself, or nested deeper than :data:`MAX_NESTING`,
#: reads as.
ELIDED = "\u2026"

_SCALARS = (str, int, float, bool, type(None))

#: ``private(value, of, aspect, **instead)``: what a stored form becomes.
Make = Callable[..., Any]


def privatize(value: Any, private: Make) -> Any:
    """``value`` with every stored private form in it — a map holding ``"of"``, as
    the renderer reads one — replaced by ``private(value, of=…, aspect=…,
    instead=…?)`` (:class:`~rollbridge.text.Private`), in maps, lists, tuples and data
    classes, however deep (a container met inside itself, or nested past
    :data:`MAX_NESTING`, as :data:`ELIDED`). ``value`` itself (the same object) where
    it holds none; otherwise a copy — the value given is never changed."""
    return _privatized(value, (), private)


def _privatized(value: Any, reading: tuple[Any, ...], private: Make) -> Any:
    if value.__class__ in _SCALARS:
        return value
    is_container = isinstance(value, Mapping | list | tuple) or _is_record(value)
    if not is_container:
        return value
    if len(reading) >= MAX_NESTING or any(met is value for met in reading):
        return ELIDED
    reading = (*reading, value)
    if isinstance(value, Mapping):
        return _map(value, reading, private)
    if isinstance(value, list | tuple):
        items = [_privatized(item, reading, private) for item in value]
        if all(new is old for new, old in zip(items, value, strict=True)):
            return value
        return _like(value, items)
    return _record(value, reading, private)


def _map(value: Mapping[Any, Any], reading: tuple[Any, ...], private: Make) -> Any:
    """A map: the private value it stands for, or its items privatized."""
    if "of" in value:
        instead = value.get("instead")
        extra = {"instead": _privatized(instead, reading, private)} if "instead" in value else {}
        return private(
            _privatized(value.get("private"), reading, private),
            of=value["of"],
            aspect=value.get("aspect", "details"),
            **extra,
        )
    items = {key: _privatized(item, reading, private) for key, item in value.items()}
    if value.__class__ is dict and all(items[key] is item for key, item in value.items()):
        return value
    return items


def _like(value: list | tuple, items: list[Any]) -> Any:
    """``items`` in the kind of sequence ``value`` is (a named tuple as one), or a
    list where that kind cannot be made from them."""
    if value.__class__ is list or value.__class__ is tuple:
        return value.__class__(items)
    try:
        return value.__class__(*items) if hasattr(value, "_fields") else value.__class__(items)
    except Exception:
        return items


def _is_record(value: Any) -> bool:
    """Whether ``value`` is a data class's instance (not the class)."""
    return dataclasses.is_dataclass(value) and not isinstance(value, type)


def _record(value: Any, reading: tuple[Any, ...], private: Make) -> Any:
    """A data class's instance with its fields privatized: a copy (its repr then hides
    them as a ``Private``'s does), or its class's name where none can be made."""
    changed = {}
    for field in dataclasses.fields(value):
        try:
            old = getattr(value, field.name)
        except Exception:
            continue  # a field never set (init=False): its repr would fail too
        new = _privatized(old, reading, private)
        if new is not old:
            changed[field.name] = new
    if not changed:
        return value
    try:
        made = copy.copy(value)
        for name, new in changed.items():
            object.__setattr__(made, name, new)
    except Exception:
        return f"<{value.__class__.__name__}>"
    return made
