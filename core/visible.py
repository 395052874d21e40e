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

__all__ = ["inert_json", "visible", "visible_data"]

#: C0 controls, DEL and C1 controls.
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f]")
#: What JSON lets stand in a string as it is but a terminal obeys (DEL, C1: U+009B is
#: CSI) or a reader takes for a line break (U+0085, U+2028, U+2029: str.splitlines).
_RAW_IN_JSON = re.compile("[\x7f-\x9f\u2028\u2029]")


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


def inert_json(text: str) -> str:
    """JSON ``text`` (``json.dumps(..., ensure_ascii=False)``, whose C0 controls are
    escapes already) with DEL, each C1 control and U+2028, U+2029 written as a
    ``\\u`` escape too: the same data when read back, but one line for every
    reader and nothing a terminal obeys. (Such characters stand only inside
    strings in JSON text, where the escape means the same.)"""
    return _RAW_IN_JSON.sub(lambda found: f"\\u{ord(found.group()):04x}", text)
