"""What a harm roll says: its narration, steps, dice group and the outcome's terms.

:func:`harm_report` turns the facts :mod:`.harm` computed (a :class:`HarmRoll`) into
texts (:mod:`.messages`), marking each number from an actor's sheet, and the total
built from them, private to that actor (:mod:`.privacy`). Players who may not see
them read ``− ? (Guard's Armour)`` for a term and the harm table's row for the
total: ``… → 7–9 on the table``, ``Ana harms Guard (dealt, rolled by Ana): 7–9 → …``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

from rollbridge.contract import Actor
from rollbridge.dice import DiceGroup, Die
from rollbridge.text import Text

from .messages import (
    AND_TROUBLE,
    EFFECT,
    EFFECT_MARKED,
    HARM_DICE,
    HARM_NARRATION,
    HARM_ROLL,
    HARM_ROW,
    HARM_SUM,
    HARM_TERM,
    INSTEAD_STEP,
    PIERCE_GIVEN,
    PIERCE_GIVEN_HIDDEN,
    REDUCTION_STEP,
    TABLE_STEP,
    TERM_LABEL,
    THE_ATTACKER,
    TROUBLE_STEP,
    UNKNOWN,
)
from .privacy import of_sheet
from .rolls import signed
from .table import BANDS, Band
from .wound_texts import SLOT_TEXT
from .wounds import Info

__all__ = ["HarmReport", "HarmRoll", "HarmTerm", "harm_report"]

_CACHE = 4096
_THE_ATTACKER = THE_ATTACKER()
_TABLE_STEP = {band.label: TABLE_STEP(row=band.text) for band in BANDS}
_UNKNOWN = UNKNOWN
_EFFECT = {result: message() for result, message in EFFECT.items()}
#: The kinds of term that are the attacker's (the others are the target's).
_ATTACKERS = frozenset({"pierce", "pierce_pair"})


class HarmTerm(NamedTuple):
    """One number after the dice: ``steady``, ``armour``, ``armour_pair``, ``pierce``
    or ``pierce_pair``, signed as it counts; ``of``: the actor whose sheet (or
    request) it comes from, None for one anyone sees (a BD-4 choice)."""

    kind: str
    value: int
    of: str | None = None


@dataclass(slots=True)
class HarmRoll:
    """The facts of one harm roll, as :mod:`.harm` computed them."""

    direction: str
    attacker: Actor | None
    target: Actor
    dice: tuple[Die, ...]
    terms: Sequence[HarmTerm]
    total: int
    band: Band
    reduction: int
    wounds: int
    instead: bool  # a bandit takes 1 wound instead of the trouble
    pierce_given: bool  # the Pierce came with the request
    info: Info  # what the hit did (wounds.hit_bandit / hit_extra)
    owners: tuple[str, ...]  # the actors whose sheets the total is built from


class HarmReport(NamedTuple):
    """What the roll says: the outcome's ``terms`` (labels are texts, but ``2d6``),
    narration, steps and dice group (texts)."""

    terms: list[dict[str, Any]]
    narration: Text
    steps: list[Any]
    dice: DiceGroup
    total: Any  # the total as the outcome holds it (marked)


def harm_report(harm: HarmRoll) -> HarmReport:
    """The texts of a harm roll, each private number marked."""
    target, band, owners = harm.target, harm.band, harm.owners
    a_name = harm.attacker.name if harm.attacker is not None else None
    roller = harm.attacker if harm.direction == "dealt" else target
    r_name = roller.name if roller is not None else None
    faces = tuple(d.value for d in harm.dice)
    keys = tuple(
        (t.kind, a_name if t.kind in _ATTACKERS else target.name, t.value, t.of) for t in harm.terms
    )
    terms: list[dict[str, Any]] = [{"label": "2d6", "value": sum(faces)}]
    for key in keys:
        label, value, _ = _term(*key)
        terms.append({"label": label, "value": value})
    marked = _total(harm.total, owners, band.label)[0]

    steps: list[Any] = [_first_step(harm.direction, r_name, faces, keys, harm.total, owners, band)]
    if harm.pierce_given:
        pierce = next(t.value for t in harm.terms if t.kind == "pierce")
        steps.append(_pierce_given(a_name, pierce, harm.attacker.id if harm.attacker else None))
    steps.append(_TABLE_STEP[band.label])
    trouble = band.wounds == 0 and not harm.instead
    said_r_name: Any = _THE_ATTACKER if r_name is None else r_name
    if harm.instead:
        steps.append(INSTEAD_STEP(target=target.name))
    elif trouble:
        steps.append(TROUBLE_STEP(roller=said_r_name))
    elif harm.reduction:
        steps.append(REDUCTION_STEP(reduction=harm.reduction, wounds=band.wounds, left=harm.wounds))
    steps.append(harm.info["reason"])

    narration = _narration(
        a_name,
        target.name,
        harm.direction,
        r_name,
        harm.total,
        owners,
        band,
        harm.info["result"],
        harm.info.get("slot"),
        trouble,
    )
    formula = "2d6" + "".join(signed(t.value, ascii_minus=True) for t in harm.terms if t.value)
    group = DiceGroup(
        label=_dice_label(r_name, harm.direction),
        dice=harm.dice,
        formula=_formula(formula, owners),
        total=marked,
        note=band.text,
        # harm taken is the target's roll (BD-3): statistics count its dice for it
        actor=harm.target.id if harm.direction == "taken" else None,
    )
    return HarmReport(terms, narration, steps, group, marked)


# Texts and marks are immutable values: those a table says again and again (a term of
# the same actor, a total, a first step) are made once.


@lru_cache(maxsize=_CACHE)
def _first_step(
    direction: str,
    roller: str | None,
    faces: tuple[int, ...],
    keys: tuple[tuple[str, str | None, int, str | None], ...],
    total: int,
    owners: tuple[str, ...],
    band: Band,
) -> Text:
    """``dealing harm (BD-3), rolled by Ana: 7 (2d6 [3, 4]) − 3 (Guard's Armour) … = 7 …``."""
    return HARM_ROLL[direction](
        roller=_THE_ATTACKER if roller is None else roller,
        roll=sum(faces),
        faces=list(faces),
        terms=[_term(*key)[2] for key in keys],
        result=_total(total, owners, band.label)[2],
    )


@lru_cache(maxsize=_CACHE)
def _narration(
    attacker: str | None,
    target: str,
    direction: str,
    roller: str | None,
    total: int,
    owners: tuple[str, ...],
    band: Band,
    result: str,
    slot: int | None,
    trouble: bool,
) -> Text:
    """``Ana harms Guard (dealt, rolled by Ana): 7 → 2 wounds; Guard: out``."""
    said_roller = _THE_ATTACKER if roller is None else roller
    narration = HARM_NARRATION[direction](
        attacker=_THE_ATTACKER if attacker is None else attacker,
        target=target,
        roller=said_roller,
        total=_total(total, owners, band.label)[1],
        wounds=band.wounds_text,
        effect=EFFECT_MARKED(label=SLOT_TEXT[slot], slot=slot)
        if result == "marked"
        else _EFFECT[result],
    )
    return AND_TROUBLE(harm=narration, roller=said_roller) if trouble else narration


@lru_cache(maxsize=_CACHE)
def _pierce_given(attacker: str | None, pierce: int, of: str | None) -> Any:
    """``Boss's Pierce 5 given with the request``: the actor's own, when it is one."""
    if attacker is None:
        return PIERCE_GIVEN(attacker=_THE_ATTACKER, pierce=pierce)
    given = PIERCE_GIVEN(attacker=attacker, pierce=pierce)
    return of_sheet(given, (of,), PIERCE_GIVEN_HIDDEN(attacker=attacker))


@lru_cache(maxsize=_CACHE)
def _term(kind: str, name: str | None, value: int, of: str | None) -> tuple[Text, Any, Any]:
    """One term: its label (the outcome's, a text), its value as the outcome holds
    it, and how the first step says it (``− 3 (Guard's Armour)``, hidden ``− ? (…)``).
    ``name`` None: the attacker without an actor."""
    said_name: Any = _THE_ATTACKER if name is None else name
    label = TERM_LABEL[kind](name=said_name)
    message = HARM_TERM[kind]
    said = message(sign="+" if value >= 0 else "−", value=abs(value), name=said_name)
    if of is None:
        return label, value, said
    hidden = message(sign="+" if kind == "pierce" else "−", value=_UNKNOWN, name=said_name)
    return label, of_sheet(value, (of,), None), of_sheet(said, (of,), hidden)


@lru_cache(maxsize=_CACHE)
def _total(total: int, owners: tuple[str, ...], row: str) -> tuple[Any, Any, Any]:
    """The total as the outcome and the dice group hold it, as the narration says it
    (hidden: the table's row), and how the first step ends (``= 7 (no ±4 clamp on
    harm)``, hidden ``→ 7–9 on the table``)."""
    return (
        of_sheet(total, owners),
        of_sheet(total, owners, row),
        of_sheet(HARM_SUM(total=total), owners, HARM_ROW(row=row)),
    )


@lru_cache(maxsize=_CACHE)
def _formula(formula: str, owners: tuple[str, ...]) -> Any:
    return of_sheet(formula, owners, "2d6+?")


@lru_cache(maxsize=_CACHE)
def _dice_label(roller: str | None, direction: str) -> Text:
    return HARM_DICE[direction](roller=_THE_ATTACKER if roller is None else roller)
