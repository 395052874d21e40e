"""What a move roll says: the outcome's terms, its steps, narration and dice group.

With a stat, the stat is the actor's sheet's and the modifier and total are built
from it: each is marked private to the actor (:mod:`.privacy`). Players who may not
see them read ``stat hard ?`` in the modifier's terms, no sum, and the band alone:
``Boss rolls go aggro with hard: full success (10+)``. A move without a stat is built
from the request alone and says everything.

Texts and marks are immutable values, so those a table says again and again (the
same actor's stat and modifiers, the same total) are made once.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

from rollbridge.text import Text

from .messages import (
    A_MOVE,
    ADVANTAGE_ROLL,
    BAND,
    CANCELLED_ROLL,
    DISADVANTAGE_ROLL,
    EXTRA_RESULT,
    HEAVILY_WOUNDED,
    MODIFIER_CLAMPED,
    MODIFIER_HIDDEN,
    MODIFIER_LABEL,
    MODIFIER_WITHIN,
    MOVE_DICE,
    MOVE_ROLLS,
    MOVE_ROLLS_WITH,
    MOVE_SCORE,
    MOVE_TERM,
    MOVE_TOTAL,
    MOVE_TOTAL_HIDDEN,
    NO_MODIFIERS,
    PLAIN_ROLL,
    REQUESTED,
    STAT_LABEL,
    UNKNOWN,
)
from .privacy import of_sheet
from .rolls import MoveRoll, signed

__all__ = [
    "Modifiers",
    "Score",
    "dice_label",
    "dice_step",
    "disadvantage",
    "formula",
    "modifiers",
    "narration",
    "score",
]

_CACHE = 4096
_BAND = {band: message() for band, message in BAND.items()}
_A_MOVE = A_MOVE()
_NO_MODIFIERS = NO_MODIFIERS()
_UNKNOWN = UNKNOWN
_REQUESTED, _HEAVY = REQUESTED(), HEAVILY_WOUNDED()
#: (requested, heavily wounded) → why a move has disadvantage, as the steps say it.
_DISADVANTAGE = {
    (requested, heavy): tuple(text for text, on in ((_REQUESTED, requested), (_HEAVY, heavy)) if on)
    for requested in (False, True)
    for heavy in (False, True)
}


class Modifiers(NamedTuple):
    """The modifier of a move as its outcome and first step say it."""

    labels: tuple[Any, ...]  # each term's label: a text (or as the request gave it)
    values: tuple[Any, ...]  # each term's value as the outcome holds it (the stat marked)
    step: Any  # how the modifier was built
    raw: Any  # the sum before the ±4 clamp, as the outcome holds it
    modifier: Any  # the clamped sum
    clamped: Any  # whether the clamp changed it


class Score(NamedTuple):
    """The total of a move as its last step, narration, outcome and dice say it."""

    band: Text  # the band's text (the dice group's note)
    step: Any  # ``total 7 +4 = 11: full success (10+) (BD-1)``
    said: Any  # ``11, full success (10+)`` in the narration
    total: Any  # the total as the outcome and the dice group hold it


@lru_cache(maxsize=_CACHE)
def modifiers(
    stat: str | None,
    stat_value: int,
    situational: tuple[tuple[str, int], ...],
    raw: int,
    modifier: int,
    owner: str | None,
) -> Modifiers:
    """The terms: the stat (when ``stat`` is given: ``owner``'s), then each situational
    modifier ``(label, value)`` (an empty label: ``modifier <n>``)."""
    owners = (owner,) if owner is not None else ()
    labels: list[Any] = []
    values: list[Any] = []
    said: list[Text] = []
    if stat is not None:
        stat_label = STAT_LABEL(stat=stat)
        labels.append(stat_label)
        values.append(of_sheet(stat_value, owners, None))
        value = of_sheet(signed(stat_value), owners, _UNKNOWN)
        said.append(MOVE_TERM(label=stat_label, value=value))
    for index, (given, value) in enumerate(situational, start=1):
        label: Any = given or MODIFIER_LABEL(index=index)
        labels.append(label)
        values.append(value)
        said.append(MOVE_TERM(label=label, value=signed(value)))
    if not said:
        step: Any = MODIFIER_WITHIN(terms=_NO_MODIFIERS, modifier=signed(modifier))
    elif raw != modifier:
        step = MODIFIER_CLAMPED(terms=said, raw=signed(raw), modifier=signed(modifier))
    else:
        step = MODIFIER_WITHIN(terms=said, modifier=signed(modifier))
    if owners:
        step = of_sheet(step, owners, MODIFIER_HIDDEN(terms=said))
    return Modifiers(
        tuple(labels),
        tuple(values),
        step,
        of_sheet(raw, owners),
        of_sheet(modifier, owners),
        of_sheet(raw != modifier, owners),
    )


@lru_cache(maxsize=_CACHE)
def score(
    dice_total: int, modifier: int, total: int, band: str, extra: bool, owner: str | None
) -> Score:
    """The total, built from ``owner``'s sheet when it is given."""
    owners = (owner,) if owner is not None else ()
    band_text = _BAND[band]
    result = EXTRA_RESULT(band=band_text) if extra else band_text
    step = MOVE_TOTAL(dice=dice_total, modifier=signed(modifier), total=total, result=result)
    return Score(
        band_text,
        of_sheet(step, owners, MOVE_TOTAL_HIDDEN(result=result)),
        of_sheet(MOVE_SCORE(total=total, result=result), owners, result),
        of_sheet(total, owners),
    )


def disadvantage(why: tuple[bool, bool]) -> list[str]:
    """Why a move has disadvantage, ``(requested, heavily wounded)`` (BD-2, BD-7), as
    the outcome says it: texts (a fresh list)."""
    return list(_DISADVANTAGE[why])


def dice_step(roll: MoveRoll, why: tuple[bool, bool]) -> Text:
    """What the dice did (BD-2); ``why``: see :func:`disadvantage`."""
    faces = tuple(d.value for d in roll.dice)
    return _dice_step(roll.mode, faces, roll.dropped, roll.dice_total, why)


@lru_cache(maxsize=_CACHE)
def _dice_step(
    mode: str, faces: tuple[int, ...], dropped: int | None, total: int, why: tuple[bool, bool]
) -> Text:
    reasons = list(_DISADVANTAGE[why])
    if mode == "advantage":
        return ADVANTAGE_ROLL(faces=list(faces), dropped=dropped, total=total)
    if mode == "disadvantage":
        return DISADVANTAGE_ROLL(faces=list(faces), why=reasons, dropped=dropped, total=total)
    if reasons:  # advantage and disadvantage cancel: plain 2d6
        return CANCELLED_ROLL(why=reasons, faces=list(faces), total=total)
    return PLAIN_ROLL(faces=list(faces), total=total)


@lru_cache(maxsize=_CACHE)
def narration(
    actor: str,
    move: str,
    stat: str | None,
    dice_total: int,
    modifier: int,
    total: int,
    band: str,
    extra: bool,
    owner: str | None,
) -> Text:
    """``Ana rolls act under fire with cool: 11, full success (10+)`` (the total as
    :func:`score` says it)."""
    what = move or _A_MOVE
    said = score(dice_total, modifier, total, band, extra, owner).said
    if stat:
        return MOVE_ROLLS_WITH(actor=actor, move=what, stat=stat, result=said)
    return MOVE_ROLLS(actor=actor, move=what, result=said)


@lru_cache(maxsize=_CACHE)
def dice_label(actor: str, move: str) -> Text:
    """``Ana: act under fire``."""
    return MOVE_DICE(actor=actor, move=move or _A_MOVE)


@lru_cache(maxsize=_CACHE)
def formula(roll_formula: str, base: str, owner: str | None) -> Any:
    """The dice group's formula (``2d6+3``); hidden, ``2d6+?``."""
    return of_sheet(roll_formula, (owner,) if owner is not None else (), base + "+?")
