"""What one attack test, resistance test or damage says, told once per set of numbers.

Everything a test's numbers say — its TN line, the dice it rolls, its dice group's
label, note and TN, and its outcome values marked as the actor's sheet — depends on
those numbers alone, never on the dice rolled; so does what the boxes crossed
say. :func:`attack_test`, :func:`resistance_test` and :func:`boxes` build it all in
one :class:`AttackTold`, :class:`ResistanceTold`, :class:`BoxesTold` and memoise it
(texts and private marks are immutable, and the maps in them read-only), so a
resolution looks it up once instead of building a dozen texts; only the lines that
hold the dice are made afresh (docs/performance.md, "sr2 attack resolution").
"""

from __future__ import annotations

from functools import lru_cache
from types import MappingProxyType
from typing import Any, NamedTuple

from rollbridge.text import Private, Text

from . import explain, narrate
from .privacy import DETAILS, SHEET, public_after, sheet_value, sheet_value_or
from .words import ARMOUR, BAND, GIVEN, ONE_ROUND
from .words import tn as tn_text

__all__ = [
    "AttackTold",
    "BoxesTold",
    "ResistanceTold",
    "attack_test",
    "boxes",
    "nothing_crossed",
    "resistance_test",
]


class AttackTold(NamedTuple):
    """The texts and marked values of an attack test (SR-7, SR-8)."""

    #: ``Attack TN 8 = medium range 5 + recoil (…) 3 + … (SR-7, SR-8)``
    tn_step: Text
    #: ``skill 6 + pool 3 = 9 dice`` (players who may not see the sheet: ``9 dice``)
    rolled: Private
    #: ``TN 8``, or ``a hidden TN`` when the recoil gives the compensation away
    against: Text | Private
    #: the dice group's label, note (the skill and pool) and TN
    label: Text
    note: Private
    target: Private | None
    #: the outcome's ``skill``, ``pool``, ``tn``, ``tn_raw``
    skill: Private
    pool: Private
    tn: Private | int
    tn_raw: Private | int
    #: the outcome's ``tn_parts`` labels of the base TN and of the recoil
    base_label: Text
    recoil_label: Text | Private


@lru_cache(maxsize=1024)
def attack_test(
    attacker: str,
    name: str,
    band: str | None,
    base: int,
    rounds: int,
    compensation: int,
    recoil: int,
    wound: int,
    situational: int,
    raw: int,
    tn: int,
    skill: int,
    pool: int,
) -> AttackTold:
    """The attack test of ``attacker`` (id; ``name`` its name): ``band`` (None: an
    explicit ``base`` TN), the recoil after ``rounds`` against ``compensation``, the
    wound and situational modifiers, the TN before (``raw``) and after SR-2, and the
    dice (``skill`` + ``pool``). With two or more rounds its TN is the attacker's sheet."""
    burst = rounds >= 2
    recoil_label: Any = explain.recoil_label(rounds, compensation)
    if not burst:
        recoil_label = Private(recoil_label, attacker, SHEET, ONE_ROUND)
    return AttackTold(
        tn_step=explain.attack_tn_step(
            attacker, band, base, rounds, compensation, recoil, wound, situational, raw, tn
        ),
        rolled=explain.attack_dice(attacker, skill, pool),
        against=explain.secret_tn(attacker, tn) if burst else tn_text(tn),
        label=narrate.attack_group(name),
        note=narrate.attack_note(attacker, skill, pool),
        target=sheet_value(tn, attacker) if burst else None,
        skill=sheet_value(skill, attacker),
        pool=sheet_value(pool, attacker),
        tn=sheet_value(tn, attacker) if burst else tn,
        tn_raw=sheet_value(raw, attacker) if burst else raw,
        base_label=BAND[band] if band is not None else GIVEN,
        recoil_label=recoil_label,
    )


class ResistanceTold(NamedTuple):
    """The texts and marked values of a resistance test (SR-9), all the defender's sheet."""

    #: ``Resistance TN 6 = power 10 - ballistic armour 4 + wound modifier 0 (SR-9)``
    tn_step: Text
    #: ``Body 4 + pool 2 = 6 dice`` (players who may not see the sheet: ``6 dice``)
    rolled: Private
    #: ``TN 6`` (``a hidden TN``)
    against: Private
    #: the dice group's label, note (Body and pool) and TN
    label: Text
    note: Private
    target: Private
    #: the outcome's ``body``, ``pool``, ``armor``, ``tn``, ``tn_raw``
    body: Private
    pool: Private
    armor: Private
    tn: Private
    tn_raw: Private
    #: the outcome's ``tn_parts`` armour label and value (a null for players)
    armour_label: Text
    armour_value: Private


@lru_cache(maxsize=1024)
def resistance_test(
    defender: str,
    name: str,
    power: int,
    armour_type: str,
    given: bool,
    armor: int,
    wound: int,
    raw: int,
    tn: int,
    body: int,
    pool: int,
) -> ResistanceTold:
    """The resistance test of ``defender`` (id; ``name`` its name): ``power`` against
    its ``armor`` of ``armour_type`` (``given``: the request's, not the sheet's) and
    its ``wound`` modifier, the TN before (``raw``) and after SR-2, the dice
    (``body`` + ``pool``)."""
    return ResistanceTold(
        tn_step=explain.resistance_tn_step(
            defender, power, armour_type, given, armor, wound, raw, tn
        ),
        rolled=explain.resistance_dice(defender, body, pool),
        against=explain.secret_tn(defender, tn),
        label=narrate.resistance_group(name),
        note=narrate.resistance_note(defender, body, pool),
        target=sheet_value(tn, defender),
        body=sheet_value(body, defender),
        pool=sheet_value(pool, defender),
        armor=sheet_value(armor, defender),
        tn=sheet_value(tn, defender),
        tn_raw=sheet_value(raw, defender),
        armour_label=ARMOUR[(armour_type, given)],
        armour_value=sheet_value_or(-armor, defender, None),
    )


class BoxesTold(NamedTuple):
    """What the boxes a defender crossed say (SR-11 to SR-13), all its details."""

    #: ``Boxes crossed: physical 0 -> 10, overflow 0 -> 1; status dying (SR-13)``
    #: (players who may not see the boxes: ``Wound levels now: …``)
    step: Text
    #: the outcome's ``crossed`` (dropped for those players)
    crossed: Private
    #: the outcome's ``defender_after`` (those players: status, modifier, wound levels)
    after: Private


@lru_cache(maxsize=4096)
def boxes(
    defender: str,
    crossed: tuple[int, int, int, int],
    after: tuple[int, int, int],
    status: str,
    modifier: int,
) -> BoxesTold:
    """What ``defender`` crossing ``crossed`` (stun, physical, overflow and lost
    boxes) to reach ``after`` (stun, physical, overflow), ``status`` and wound
    ``modifier`` says. The outcome's maps are read-only: they are shared."""
    stun, physical, overflow = after
    now = {
        "stun": stun,
        "physical": physical,
        "overflow": overflow,
        "status": status,
        "wound_modifier": modifier,
    }
    return BoxesTold(
        step=explain.boxes_step(defender, crossed[:3], crossed[3], after, status),
        crossed=Private(
            MappingProxyType(
                dict(zip(("stun", "physical", "overflow", "lost"), crossed, strict=True))
            ),
            defender,
            DETAILS,
        ),
        after=Private(MappingProxyType(now), defender, DETAILS, public_after(now)),
    )


def nothing_crossed(defender: str) -> Private:
    """The outcome's ``crossed`` of an attack that missed ``defender``."""
    return boxes(defender, (0, 0, 0, 0), (0, 0, 0), "ok", 0).crossed
