"""Checks of the shapes a ruleset builds: the fields of a
:class:`~rollbridge.contract.Resolution`, a :class:`~rollbridge.contract.CommonState`,
a :class:`~rollbridge.contract.Track` and a :class:`~rollbridge.contract.PlayerView`.

Each is checked as it is made, in the ruleset's own code, so a wrong field — ``steps``
given one text instead of a list of them, ``conditions`` one string (read letter by
letter), a sheet that is no map — stops at the line that built it, with a
``TypeError`` naming the class, the field, what it must be and what it was given,
rather than deep in the engine as it packs the event (where the server could only say
it failed). The engine reads such an error as any exception of a ruleset's: the
client gets ``internal``, "ruleset 'x' failed", and the server's log the ruleset, the
table and the traceback, which shows the hook (docs/plugins.md, "Atomicity").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["expect", "expect_items", "expect_map"]


def _given(value: Any) -> str:
    """How a given value is named in a refusal: its type, and a short repr."""
    return f"{type(value).__name__} {_short(value)}"


def _short(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:  # a repr of the ruleset's own may fail: its type says enough
        return "(no repr)"
    return text if len(text) <= 60 else text[:57] + "..."


def expect(owner: str, name: str, value: Any, kinds: tuple[type, ...], what: str) -> None:
    """:raises TypeError: ``value`` (``owner.name``) is none of ``kinds``, which
    ``what`` words (``"a str or a Text"``). A subclass is one of its kinds, as the
    contract's types say: ``True`` is an ``int``, an ``IntEnum`` too."""
    if isinstance(value, kinds):
        return
    raise TypeError(f"{owner}.{name} must be {what}, not {_given(value)}")


def expect_items(
    owner: str, name: str, value: Any, kinds: tuple[type, ...], one: str, hint: str = ""
) -> None:
    """:raises TypeError: ``value`` is no list or tuple (a ``str`` or a single text
    given where a list of them is asked for: ``hint`` says how to write it), or one
    of its items is none of ``kinds`` (``one`` words them: ``"a Text or a str"``),
    naming its index."""
    if not isinstance(value, (list, tuple)):
        after = f" ({hint})" if hint else ""
        raise TypeError(
            f"{owner}.{name} must be a list or a tuple, each item {one}, not {_given(value)}{after}"
        )
    for index, item in enumerate(value):
        if not isinstance(item, kinds):
            raise TypeError(f"{owner}.{name}[{index}] must be {one}, not {_given(item)}")


def expect_map(owner: str, name: str, value: Any, *, optional: bool = False) -> None:
    """:raises TypeError: ``value`` is no mapping (nor None, where ``optional``)."""
    if isinstance(value, Mapping) or (optional and value is None):
        return
    what = "a map (dict) or None" if optional else "a map (dict)"
    raise TypeError(f"{owner}.{name} must be {what}, not {_given(value)}")
