"""WD-1 traits and WD-5 derived values: what a sheet's dice mean.

Attributes and skills are graded by the die rolled for them (``"d4"`` to
``"d12"``). A skill a character has not trained is absent from the sheet and
rolls d4 − 2 (WD-1). Defense and Toughness are derived from the Fighting skill
and the Vigor attribute (WD-5).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.plugins.wilddie.messages import TRAIT_NAMES

__all__ = [
    "ATTRIBUTES",
    "DIE_STEPS",
    "LABELS",
    "SKILLS",
    "TRAITS",
    "UNTRAINED_FACES",
    "UNTRAINED_PENALTY",
    "defense",
    "die_faces",
    "toughness",
    "trait_die",
]

#: The six attributes (WD-1), in the seed's order.
ATTRIBUTES: tuple[str, ...] = (
    "strength",
    "vigor",
    "coordination",
    "reaction",
    "intuition",
    "character",
)

#: The fourteen skills (WD-1) and the attribute each is linked to.
SKILLS: dict[str, str] = {
    "climbing": "strength",
    "swimming": "strength",
    "stealth": "coordination",
    "lockpicking": "coordination",
    "shooting": "coordination",
    "piloting": "reaction",
    "fighting": "reaction",
    "tracking": "intuition",
    "research": "intuition",
    "taunt": "intuition",
    "intimidation": "intuition",
    "healing": "character",
    "repair": "character",
    "notice": "character",
}

#: Every trait a test may name.
TRAITS: tuple[str, ...] = (*ATTRIBUTES, *SKILLS)

#: Human labels of the traits, in English (the declared messages' templates: every
#: text names a trait by its message, :data:`~rollbridge.plugins.wilddie.messages.TRAIT_NAMES`).
LABELS: dict[str, str] = {name: TRAIT_NAMES[name].template for name in TRAITS}

#: The dice a trait may have, weakest first.
DIE_STEPS: tuple[str, ...] = ("d4", "d6", "d8", "d10", "d12")

#: An untrained skill rolls a d4 ...
UNTRAINED_FACES = 4
#: ... with −2 (WD-1).
UNTRAINED_PENALTY = -2


def die_faces(die: str) -> int:
    """The faces of a trait die written ``"d8"`` → 8."""
    return int(die[1:])


def trait_die(sheet: Mapping[str, Any], trait: str) -> tuple[int, bool]:
    """The faces of the die rolled for ``trait`` and whether the skill is untrained.

    Attributes are always present (the sheet schema requires them); a skill
    absent from ``sheet["skills"]`` is untrained and rolls a d4 (the −2 is
    applied as a modifier, see :mod:`rollbridge.plugins.wilddie.rolling`).
    """
    if trait in ATTRIBUTES:
        return die_faces(sheet["attributes"][trait]), False
    die = (sheet.get("skills") or {}).get(trait)
    if die is None:
        return UNTRAINED_FACES, True
    return die_faces(die), False


def defense(sheet: Mapping[str, Any]) -> int:
    """WD-5: Defense = 2 + half the Fighting die; 2 without Fighting."""
    die = (sheet.get("skills") or {}).get("fighting")
    return 2 if die is None else 2 + die_faces(die) // 2


def toughness(sheet: Mapping[str, Any]) -> int:
    """WD-5: Toughness = 2 + half the Vigor die + worn armour."""
    return 2 + die_faces(sheet["attributes"]["vigor"]) // 2 + int(sheet.get("armor", 0))
