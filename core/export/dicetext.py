"""Dice as a session report writes them: every die, explosions visible.

``[6!→4, 2, ~~1~~]``: a die that exploded is followed by ``!→`` and the die its
explosion added (``6!→6!→3`` for a chain); a compounding die shows each of its
rolls the same way and what it counts for (``6!→6!→3 (15)``); a die not counted
(dropped, rerolled) is struck through; a die that met its target number is bold.
The dice engine appends explosion dice after the dice they come from, in the
order they exploded (:mod:`rollbridge.dice.evaluate`), so the ``n``-th die tagged
``exploded`` is answered by the ``n``-th tagged ``explosion``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

from rollbridge.export.escape import inline

__all__ = ["dice_text", "die_text"]


def die_text(die: Mapping[str, Any]) -> str:
    """One die alone: its rolls (``6!→6!→3 (15)`` compounding), struck through when
    not counted, bold when it met its target."""
    rolls = [int(r) for r in die.get("rolls") or [die.get("value", 0)]]
    tags = set(die.get("tags") or ())
    text = "!→".join(str(r) for r in rolls)
    if len(rolls) > 1 and die.get("value") != rolls[-1]:
        text += f" ({die.get('value')})"
    if "exploded" in tags:
        text += "!"
    if die.get("kept") is False:
        return f"~~{text}~~"
    if "success" in tags:
        return f"**{text}**"
    return text


def dice_text(dice: Sequence[Mapping[str, Any]]) -> str:
    """A group's dice in brackets, each explosion after the die that caused it."""
    explosions = [i for i, d in enumerate(dice) if "explosion" in (d.get("tags") or ())]
    answers: dict[int, int] = {}
    waiting = deque(explosions)
    for index, die in enumerate(dice):
        if "exploded" in (die.get("tags") or ()) and waiting:
            answers[index] = waiting.popleft()
    placed = set(answers.values())
    shown: list[str] = []
    for index, die in enumerate(dice):
        if index in placed:
            continue  # written after the die whose explosion added it
        chain, at = [die_text(die)], index
        while at in answers:
            at = answers[at]
            chain.append(die_text(dice[at]))
        shown.append("→".join(chain))
    return "[" + ", ".join(shown) + "]"


def group_text(group: Mapping[str, Any], *, versus: str, successes: str) -> str:
    """``label formula vs 5: [6!→4, 2] → 2 successes`` (``versus`` and
    ``successes``: the rendered words, with ``{target}``/``{count}`` filled in)."""
    head = inline(str(group.get("label") or group.get("formula") or ""))
    formula = group.get("formula")
    if formula and formula != group.get("label"):
        head += f" {inline(str(formula))}"
    if group.get("target") is not None:
        head += f" {versus}"
    tail = ""
    if group.get("successes") is not None:
        tail = f" → {successes}"
    elif group.get("total") is not None:
        tail = f" → {inline(str(group['total']))}"
    if group.get("note"):
        tail += f" ({inline(str(group['note']))})"
    return f"{head}: {dice_text(group.get('dice') or ())}{tail}".strip()
