"""How a failed comparison holding a private value reads in a test's output.

:class:`~rollbridge.text.Private` hides its value in its repr, so that no plain
string (a list written into an f-string, a log line) carries an NPC's number to a
player. A test's failure is read by the plugin's developer only: the conformance
suite's pytest plugin (:mod:`rollbridge.testing`) gives pytest this hook, which
shows both sides with their private values (:func:`~rollbridge.text.revealed`)
where pytest would show them hidden.
"""

from __future__ import annotations

import difflib
from typing import Any

from rollbridge.text import revealing

__all__ = ["pytest_assertrepr_compare"]


def pytest_assertrepr_compare(config: Any, op: str, left: Any, right: Any) -> list[str] | None:
    """pytest's hook: the lines explaining a failed ``left op right`` where either
    side holds a :class:`~rollbridge.text.Private` (its repr showed one); None
    otherwise, for pytest's own explanation."""
    try:
        (shown_left, met_left), (shown_right, met_right) = revealing(left), revealing(right)
    except Exception:  # a repr that fails: pytest says so in its own words
        return None
    if not met_left and not met_right:
        return None  # no private value on either side
    lines = [
        f"{shown_left} {op} {shown_right}",
        "(private values shown as only a test's output shows them: rollbridge.text.revealed)",
    ]
    if op == "==":
        # ndiff ends its "?" guide lines with a newline, which pytest prints as "\n"
        lines += [line.rstrip("\n") for line in difflib.ndiff([shown_left], [shown_right])]
    return lines
