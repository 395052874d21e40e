"""Human lines of how each number was built (a resolution's ``steps``)."""

from __future__ import annotations

from typing import Any

from .rolls import TestRoll

__all__ = ["plural", "test_line", "tn_text"]


def plural(count: int, word: str) -> str:
    """``1 success``, ``2 successes``."""
    return f"{count} {word}" if count == 1 else f"{count} {word}es"


def tn_text(parts: list[dict[str, Any]], raw: int, tn: int) -> str:
    """``7 = short range 4 + recoil 3 + wound modifier 0`` (with SR-2's floor noted)."""
    first = parts[0]
    built = [f"{first['part']} {first['value']}"]
    for part in parts[1:]:
        value = part["value"]
        built.append(f"+ {part['part']} {value}" if value >= 0 else f"- {part['part']} {-value}")
    floor = f" (floored to {tn}, SR-2)" if tn != raw else ""
    return f"{raw} = {' '.join(built)}{floor}"


def test_line(name: str, roll: TestRoll, dice_text: str) -> str:
    """``Attack: 7 dice vs TN 4: [5, 6+2=8, 1] -> 2 successes``."""
    tail = "botch: every die shows 1 (SR-3)" if roll.botch else plural(roll.successes, "success")
    return f"{name}: {dice_text} vs TN {roll.tn}: [{', '.join(roll.chains)}] -> {tail}"
