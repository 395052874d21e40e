"""The narration of an attack and of resistance-only damage, and the labels and
notes of their dice groups, as texts with an NPC's own values marked private.

Each is built from names and numbers only, so each is memoised (a
:class:`~rollbridge.text.Text` is immutable; a table says the same few again and
again); the labels and notes of one test are also kept, with its other texts, in
:mod:`.told`.
"""

from __future__ import annotations

from functools import lru_cache

from rollbridge.text import Private, Text

from .messages import (
    ATTACK_GROUP,
    ATTACK_NOTE,
    BOTCHES,
    DAMAGE_RESISTED,
    DAMAGE_TAKEN,
    DAMAGE_TAKEN_OVERFLOW,
    HITS,
    MISSES,
    RESISTANCE_GROUP,
    RESISTANCE_NOTE,
    RESISTS,
    WITH_WEAPON,
)
from .privacy import DETAILS, SHEET
from .words import LEVEL, STATUS, successes

__all__ = [
    "attack_group",
    "attack_note",
    "hits",
    "misses",
    "resistance_group",
    "resistance_note",
    "resists",
]


@lru_cache(maxsize=256)
def _with(weapon: str | None) -> Text | str:
    return WITH_WEAPON(weapon=weapon) if weapon else ""


@lru_cache(maxsize=1024)
def _damage(defender: str, name: str, level: str | None, overflow: int, status: str) -> Text:
    """``Deadly, 1 overflow; Guard is dying`` (the overflow is the defender's boxes:
    players who may not see them read ``Deadly; Guard is dying``), or
    ``no damage, Guard resists it all``."""
    if level is None:
        return DAMAGE_RESISTED(defender=name)
    extra: Private | str = ""
    if overflow:
        extra = Private(DAMAGE_TAKEN_OVERFLOW(count=overflow), defender, DETAILS, "")
    return DAMAGE_TAKEN(level=LEVEL[level], overflow=extra, defender=name, status=STATUS[status])


@lru_cache(maxsize=2048)
def hits(
    attacker: str,
    defender: str,
    name: str,
    weapon: str | None,
    code: str,
    count: int,
    level: str | None,
    overflow: int,
    status: str,
) -> Text:
    """``Tukan hits Guard with Hackler (10S, 7 successes): Deadly, 1 overflow; Guard is dying.``

    :param attacker: the attacker's name.
    :param defender: the defender's id; ``name`` its name.
    :param count: the attack successes; ``level``, ``overflow``, ``status`` the result.
    """
    return HITS(
        attacker=attacker,
        defender=name,
        weapon=_with(weapon),
        code=code,
        successes=successes(count),
        damage=_damage(defender, name, level, overflow, status),
    )


@lru_cache(maxsize=1024)
def misses(attacker: str, name: str, weapon: str | None, code: str, botch: bool) -> Text:
    """``Tukan misses Guard with Hackler (10S).`` (``botches`` on SR-3's botch)."""
    message = BOTCHES if botch else MISSES
    return message(attacker=attacker, defender=name, weapon=_with(weapon), code=code)


@lru_cache(maxsize=2048)
def resists(
    defender: str, name: str, code: str, count: int, level: str | None, overflow: int, status: str
) -> Text:
    """``Guard resists 10D against 7 successes: Deadly, 3 overflow; Guard is dying.``"""
    return RESISTS(
        defender=name,
        code=code,
        successes=successes(count),
        damage=_damage(defender, name, level, overflow, status),
    )


@lru_cache(maxsize=256)
def attack_group(name: str) -> Text:
    """The attack test's dice group: ``Attack test (Tukan)``."""
    return ATTACK_GROUP(attacker=name)


@lru_cache(maxsize=256)
def resistance_group(name: str) -> Text:
    """The resistance test's dice group: ``Resistance test (Guard)``."""
    return RESISTANCE_GROUP(defender=name)


@lru_cache(maxsize=1024)
def attack_note(attacker: str, skill: int, pool: int) -> Private:
    """``skill 6 + pool 1``, the attacker's sheet: left out for players who may not see it."""
    return Private(ATTACK_NOTE(skill=skill, pool=pool), attacker, SHEET)


@lru_cache(maxsize=1024)
def resistance_note(defender: str, body: int, pool: int) -> Private:
    """``Body 4 + pool 2``, the defender's sheet: left out for players who may not see it."""
    return Private(RESISTANCE_NOTE(body=body, pool=pool), defender, SHEET)
