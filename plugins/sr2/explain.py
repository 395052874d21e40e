"""The lines of how an attack's and a resistance test's numbers were built
(a resolution's ``steps``), as texts with an NPC's own values marked private.

A line built only from numbers and names is memoised here or, for the lines of
one test, in :mod:`.told`: a :class:`~rollbridge.text.Text` is immutable, and a
table says the same few lines again and again. The test lines hold the dice
rolled, so they are made afresh.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from rollbridge.text import Private, Text

from .messages import (
    ATTACK_LINE,
    ATTACK_MISSES_STEP,
    ATTACK_TN,
    ATTACK_TN_BUILT,
    BODY_DICE,
    BOXES_CROSSED,
    BOXES_CROSSED_HIDDEN,
    BOXES_LOST,
    BOXES_MOVED,
    CODE_FIRED,
    CODE_ONE_ROUND,
    DAMAGE_CODE,
    DAMAGE_CODE_FIRED,
    DAMAGE_OVERFLOW,
    DAMAGE_STEP,
    LINE,
    NET,
    NET_DOWN,
    NET_NONE,
    NET_SPARE,
    NET_UP,
    NO_DAMAGE_STEP,
    RECOIL,
    RESISTANCE_LINE,
    RESISTANCE_TN,
    RESISTANCE_TN_BUILT,
    RESISTANCE_TN_HIDDEN,
    SKILL_DICE,
    STAGING,
    SUCCESSES_GIVEN,
)
from .monitor import wound_level
from .privacy import DETAILS, SHEET
from .words import (
    ARMOUR,
    BAND,
    GIVEN,
    HIDDEN_RECOIL_TN,
    HIDDEN_TN,
    LEVEL,
    NOTHING,
    ONE_ROUND,
    STAGED,
    STATUS,
    TRACK,
    WOUNDS,
    dice,
    floored,
    tn,
)

__all__ = [
    "ATTACK_MISSED",
    "NO_DAMAGE",
    "attack_dice",
    "attack_line",
    "attack_tn_step",
    "boxes_step",
    "code_step",
    "damage_code_steps",
    "damage_step",
    "net_step",
    "recoil_label",
    "resistance_dice",
    "resistance_line",
    "resistance_tn_step",
    "secret_tn",
    "staging_step",
]

#: ``No attack successes: the attack misses and deals nothing (SR-8)``.
ATTACK_MISSED = ATTACK_MISSES_STEP()
#: ``Damage staged below Light: no damage (SR-10)``.
NO_DAMAGE = NO_DAMAGE_STEP()
_NET_SPARE = NET_SPARE()
_NET_NONE = NET_NONE()


@lru_cache(maxsize=256)
def code_step(code: str, base: str, rounds: int, raised: int) -> Text:
    """SR-6 for an attack: ``Code 10S = 7M fired 3 rounds: …`` or ``Code 7M: one round, …``."""
    if rounds >= 2:
        return CODE_FIRED(code=code, base=base, rounds=rounds, raised=raised)
    return CODE_ONE_ROUND(code=code)


@lru_cache(maxsize=256)
def damage_code_steps(
    code: str, base: str, rounds: int, raised: int, given: int
) -> tuple[Text, Text]:
    """SR-4 / SR-6 and the successes given: the first two steps of ``damage``."""
    if rounds >= 2:
        line = DAMAGE_CODE_FIRED(code=code, base=base, rounds=rounds, raised=raised)
    else:
        line = DAMAGE_CODE(code=code)
    return line, SUCCESSES_GIVEN(count=given)


@lru_cache(maxsize=256)
def recoil_label(rounds: int, compensation: int) -> Text:
    """SR-7: ``recoil (3 rounds, compensation 1)``, in the attack TN's line and its
    ``tn_parts``."""
    return RECOIL(rounds=rounds, compensation=compensation)


def attack_tn_step(
    attacker: str,
    band: str | None,
    base: int,
    rounds: int,
    compensation: int,
    recoil: int,
    wound: int,
    situational: int,
    raw: int,
    value: int,
) -> Text:
    """SR-7 / SR-8: ``Attack TN 7 = short range 4 + recoil (…) 3 + wound modifier 0 +
    situational 0 (SR-7, SR-8)``. The recoil compensation is the ``attacker``'s sheet:
    with one round players who may not see it read ``recoil (1 round)``; with two or
    more the TN itself gives it away, and they read ``Attack TN hidden: …``."""
    label: Text | Private = recoil_label(rounds, compensation)
    if rounds < 2:
        label = Private(label, attacker, SHEET, ONE_ROUND)
    built: Text | Private = ATTACK_TN_BUILT(
        raw=raw,
        base=BAND[band] if band is not None else GIVEN,
        base_value=base,
        recoil=label,
        recoil_value=recoil,
        wound=wound,
        sign="+" if situational >= 0 else "-",
        situational=situational if situational >= 0 else -situational,
        floor=floored(raw, value),
    )
    if rounds >= 2:
        built = Private(built, attacker, SHEET, HIDDEN_RECOIL_TN)
    return ATTACK_TN(tn=built)


@lru_cache(maxsize=1024)
def attack_dice(attacker: str, skill: int, pool: int) -> Private:
    """``skill 6 + pool 1 = 7 dice``, which players who may not see the attacker's
    sheet read as ``7 dice``."""
    count = skill + pool
    return Private(SKILL_DICE(skill=skill, pool=pool, count=count), attacker, SHEET, dice(count))


@lru_cache(maxsize=1024)
def resistance_dice(defender: str, body: int, pool: int) -> Private:
    """``Body 4 + pool 2 = 6 dice``, which players who may not see the defender's
    sheet read as ``6 dice``."""
    count = body + pool
    return Private(BODY_DICE(body=body, pool=pool, count=count), defender, SHEET, dice(count))


@lru_cache(maxsize=1024)
def secret_tn(actor: str, value: int) -> Private:
    """``TN 5`` as ``actor``'s sheet gives it: ``a hidden TN`` to players who may not see it."""
    return Private(tn(value), actor, SHEET, HIDDEN_TN)


def attack_line(
    rolled: Private, against: Text | Private, chains: Sequence[str], tail: Text
) -> Text:
    """SR-8: ``Attack: skill 6 + pool 1 = 7 dice vs TN 4: [5, 6+2=8, 1] -> 2 successes``."""
    return ATTACK_LINE(dice=rolled, tn=against, chains=chains, result=tail)


def resistance_line(rolled: Private, against: Private, chains: Sequence[str], tail: Text) -> Text:
    """SR-9: ``Resistance: Body 4 + pool 0 = 4 dice vs TN 6: [6+3=9, 2] -> 1 success``."""
    return RESISTANCE_LINE(dice=rolled, tn=against, chains=chains, result=tail)


def resistance_tn_step(
    defender: str,
    power: int,
    armour_type: str,
    given: bool,
    armor: int,
    wound: int,
    raw: int,
    value: int,
) -> Text:
    """SR-9: ``Resistance TN 5 = power 10 - ballistic armour 5 + wound modifier 0 (SR-9)``;
    players who may not see the defender's sheet read ``Resistance TN hidden: power 10 -
    ballistic armour (hidden) + wound modifier 0 (SR-9)``."""
    armour = ARMOUR[(armour_type, given)]
    built = RESISTANCE_TN_BUILT(
        raw=raw,
        power=power,
        sign="-" if armor > 0 else "+",
        armour=armour,
        armour_value=armor,
        wound=wound,
        floor=floored(raw, value),
    )
    hidden = RESISTANCE_TN_HIDDEN(power=power, armour=armour, wound=wound)
    return RESISTANCE_TN(tn=Private(built, defender, SHEET, hidden))


@lru_cache(maxsize=1024)
def net_step(attack: int, resistance: int, shift: int, spare: int) -> Text:
    """SR-10: ``Net successes 7 - 2 = +5 -> 2 step(s) up (SR-10), 1 spare success …``."""
    if shift > 0:
        side = NET_UP(count=shift)
    elif shift < 0:
        side = NET_DOWN(count=-shift)
    else:
        side = _NET_NONE
    return NET(
        attack=attack,
        resistance=resistance,
        net=attack - resistance,
        shift=side,
        spare=_NET_SPARE if spare else "",
    )


@lru_cache(maxsize=256)
def staging_step(path: tuple[str, ...]) -> Text:
    """SR-10: ``Staging: S->D, D->+1 overflow`` (the worded steps as texts)."""
    return STAGING(path=[STAGED.get(step, step) for step in path])


@lru_cache(maxsize=256)
def damage_step(level: str, boxes: int, overflow: int, monitor: str) -> Text:
    """SR-5 / SR-11: ``Damage: Deadly (D) = 10 boxes + 1 overflow on the physical monitor``."""
    return DAMAGE_STEP(
        level=LEVEL[level],
        letter=level,
        boxes=boxes - overflow,
        overflow=DAMAGE_OVERFLOW(count=overflow) if overflow else "",
        monitor=TRACK[monitor],
    )


def boxes_step(
    defender: str,
    crossed: tuple[int, int, int],
    lost: int,
    after: tuple[int, int, int],
    status: str,
) -> Text:
    """SR-11 / SR-13: ``Boxes crossed: physical 0 -> 10, overflow 0 -> 1; status dying
    (SR-13)``. The boxes are the defender's details: players who may not see them read
    ``Wound levels now: Physical Deadly; status dying (SR-12, SR-13)``.

    :param crossed: boxes crossed on stun, physical and overflow.
    :param after: the boxes the defender has now on each.
    """
    moved = [
        BOXES_MOVED(track=TRACK[key], before=now - added, after=now)
        for key, added, now in zip(("stun", "physical", "overflow"), crossed, after, strict=True)
        if added
    ]
    levels = []
    for monitor, boxes in (("stun", after[0]), ("physical", after[1])):
        level = wound_level(boxes)
        if level is not None:
            levels.append(WOUNDS[(monitor, level)])
    word = STATUS[status]
    full = BOXES_CROSSED(
        moved=moved or NOTHING,
        lost=BOXES_LOST(count=lost) if lost else "",
        status=word,
    )
    public = BOXES_CROSSED_HIDDEN(levels=levels or NOTHING, status=word)
    return LINE(line=Private(full, defender, DETAILS, public))
