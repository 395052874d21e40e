"""Text from a table made inert for a terminal: its control characters shown, not obeyed.

A terminal acts on control characters: ESC starts a sequence that can clear the
screen, retitle the window or move the cursor, BEL rings, CR and LF let the rest of
a text pass for a line of its own. What players and GMs write (a roll's label, an
actor's name) reaches other people's terminals through ``rollbridge connect`` and
exported logs, so each C0 control, DEL and C1 control in it is written as its
Python escape (``\\x1b``, ``\\n``, ``\\x85``), visible and harmless; every other
character, non-Latin letters and emoji included, stays as it is.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["visible", "visible_data"]

#: C0 controls, DEL and C1 controls.
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f]")


def _escape(match: re.Match[str]) -> str:
    return repr(match.group())[1:-1]


def visible(text: str) -> str:
    """``text`` with each control character written as its escape (``\\x1b``)."""
    return _CONTROLS.sub(_escape, text)


def visible_data(value: Any) -> Any:
    """``value`` (decoded JSON or msgpack) with every string in it, keys included,
    made :func:`visible`; a copy where anything changed."""
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, dict):
        return {visible_data(k): visible_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [visible_data(item) for item in value]
    return value
