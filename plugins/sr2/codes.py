"""Damage codes: power and level (SR-4), boxes per level (SR-5), rounds fired
(SR-6), recoil (SR-7) and staging by net successes (SR-10).

A code is written as the power followed by the level letter: ``9M``. The API
uses the English letters L < M < S < D; the Czech seed's letters map
L→L, M→M, V→S, S→D (the Czech ``S`` is Deadly, so Czech letters are not
accepted: ``S`` always means Serious here).
"""

from __future__ import annotations

import re
from typing import Any

from rollbridge.exceptions import InvalidParams

from .refusals import BAD_CODE, CODE_NOT_TEXT, UNKNOWN_LEVEL

__all__ = [
    "BOXES",
    "LEVELS",
    "LEVEL_NAMES",
    "Staging",
    "fire",
    "format_code",
    "parse_code",
    "recoil",
    "stage",
]

#: The levels, lowest first (SR-4).
LEVELS: tuple[str, ...] = ("L", "M", "S", "D")
#: Boxes each level crosses (SR-5).
BOXES: dict[str, int] = {"L": 1, "M": 3, "S": 6, "D": 10}
LEVEL_NAMES: dict[str, str] = {"L": "Light", "M": "Moderate", "S": "Serious", "D": "Deadly"}
_TOP = len(LEVELS) - 1
_PARSED: dict[str, tuple[int, str]] = {}
_CODE = re.compile(r"\s*(\d{1,3})\s*([A-Za-z])\s*")


def parse_code(text: object, where: Any = "params.code") -> tuple[int, str]:
    """``"9M"`` → ``(9, "M")``.

    Valid codes are remembered (there are few of them at a table).

    :param where: what the refusal names: a field (``params.code``), or a text
        (``Tukan's weapon Hackler``), whose English is the refusal's ``field``.

    :raises InvalidParams: for anything that is not a power followed by one of
        L, M, S, D (an unknown level such as ``7Q`` names the letter).
    """
    known = _PARSED.get(text) if isinstance(text, str) else None
    if known is not None:
        return known
    field = where if where.__class__ is str else str(where)
    if not isinstance(text, str):
        raise InvalidParams(CODE_NOT_TEXT(where=where, value=repr(text)), details={"field": field})
    match = _CODE.fullmatch(text)
    if match is None:
        raise InvalidParams(
            BAD_CODE(where=where, value=repr(text)), details={"field": field, "value": text}
        )
    level = match.group(2).upper()
    if level not in BOXES:
        raise InvalidParams(
            UNKNOWN_LEVEL(where=where, letter=repr(match.group(2)), value=repr(text)),
            details={"field": field, "value": text},
        )
    parsed = (int(match.group(1)), level)
    if len(_PARSED) < 4096:
        _PARSED[text] = parsed
    return parsed


def format_code(power: int, level: str) -> str:
    """``(9, "M")`` → ``"9M"``: a code is notation, the same in every language."""
    return f"{power}{level}"


def fire(power: int, level: str, rounds: int) -> tuple[int, str, int]:
    """SR-6: the code after firing ``rounds`` rounds, and the level steps gained.

    One round keeps the base code; n ≥ 2 rounds add n to the power and raise
    the level ⌊n/3⌋ steps, never past D.
    """
    if rounds < 2:
        return power, level, 0
    index = LEVELS.index(level)
    raised = min(_TOP, index + rounds // 3)
    return power + rounds, LEVELS[raised], raised - index


def recoil(rounds: int, compensation: int) -> int:
    """SR-7: the attacker's TN rises by max(0, n − compensation) when n ≥ 2."""
    if rounds < 2:
        return 0
    return max(0, rounds - compensation)


class Staging:
    """The result of staging a level by net successes (SR-10).

    :ivar level: the final level letter, or None when staged below L.
    :ivar overflow: steps that would have gone past D (one overflow box each).
    :ivar shift: signed number of steps (⌊net/2⌋ toward the side with more).
    :ivar spare: successes left over (0 or 1) that shift nothing.
    :ivar path: each step, human-readable (``S->D``, ``D->+1 overflow``).
    """

    __slots__ = ("level", "overflow", "path", "shift", "spare")

    def __init__(
        self, level: str | None, overflow: int, shift: int, spare: int, path: list[str]
    ) -> None:
        self.level = level
        self.overflow = overflow
        self.shift = shift
        self.spare = spare
        self.path = path

    @property
    def boxes(self) -> int:
        """Boxes this damage crosses: the level's boxes plus one per overflow step."""
        return (BOXES[self.level] if self.level else 0) + self.overflow


def stage(level: str, net: int) -> Staging:
    """SR-10: net > 0 raises ``level`` ⌊net/2⌋ steps, net < 0 lowers it
    ⌊−net/2⌋ steps; below L there is no damage; each step past D is one
    overflow box instead."""
    magnitude = net if net >= 0 else -net
    steps = magnitude >> 1
    spare = magnitude & 1
    index = LEVELS.index(level)
    path: list[str] = []
    overflow = 0
    if net > 0:
        for _ in range(steps):
            if index < _TOP:
                path.append(f"{LEVELS[index]}->{LEVELS[index + 1]}")
                index += 1
            else:
                overflow += 1
                path.append("D->+1 overflow")
        return Staging(LEVELS[index], overflow, steps, spare, path)
    for _ in range(steps):
        if index <= 0:
            path.append(f"{LEVELS[0]}->none")
            return Staging(None, 0, -steps, spare, path)
        path.append(f"{LEVELS[index]}->{LEVELS[index - 1]}")
        index -= 1
    return Staging(LEVELS[index], 0, -steps, spare, path)
