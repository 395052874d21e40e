"""Why a hit or a medpack did what it did: the ``reason`` texts of :mod:`.wounds`.

There are few cases (a number of wounds, a slot, a medpack's number), so each reason
is made once and reused: texts are immutable values.
"""

from __future__ import annotations

from functools import lru_cache

from rollbridge.text import Text

from .messages import (
    AND_DYING,
    EXTRA_OUT,
    EXTRA_OUT_AGAIN,
    EXTRA_UNHURT,
    EXTRA_WOUNDED,
    MEDPACK_CLEARS_REASON,
    MEDPACK_MOVES_REASON,
    NO_FREE_SLOT,
    NO_SLOT_MARKED,
    OVER_FOUR,
    SLOT,
    SLOT_ABOVE,
    SLOT_FREE,
)

__all__ = [
    "EXTRA_NOT_WOUNDED",
    "EXTRA_OUT_AGAIN_REASON",
    "EXTRA_WOUNDED_REASON",
    "NO_SLOT",
    "SLOT_TEXT",
    "extra_out",
    "medpack_cleared",
    "medpack_reduced",
    "no_free_slot",
    "over_four",
    "slot_marked",
]

#: Slot number → its label as a text.
SLOT_TEXT: dict[int, Text] = {n: message() for n, message in SLOT.items()}
NO_SLOT = NO_SLOT_MARKED()
EXTRA_NOT_WOUNDED = EXTRA_UNHURT()
EXTRA_OUT_AGAIN_REASON = EXTRA_OUT_AGAIN()
EXTRA_WOUNDED_REASON = EXTRA_WOUNDED()


@lru_cache(maxsize=256)
def over_four(wounds: int) -> Text:
    """``5 wounds: more than 4 is death (BD-6)``."""
    return OVER_FOUR(wounds=wounds)


@lru_cache(maxsize=256)
def no_free_slot(wounds: int) -> Text:
    """``2 wounds but slots 2, 3, 4 are all marked: … is death (BD-6)``."""
    return NO_FREE_SLOT(count=wounds, taken=list(range(wounds, 5)))


@lru_cache(maxsize=256)
def slot_marked(wounds: int, slot: int) -> Text:
    """A hit of ``wounds`` marked ``slot``: the one it names, or the nearest free above."""
    if slot == wounds:
        reason = SLOT_FREE(count=wounds, slot=slot, label=SLOT_TEXT[slot])
    else:
        skipped = list(range(wounds, slot))
        reason = SLOT_ABOVE(count=wounds, skipped=skipped, slot=slot, label=SLOT_TEXT[slot])
    return AND_DYING(reason=reason) if slot == 4 else reason


@lru_cache(maxsize=256)
def extra_out(wounds: int) -> Text:
    """``2 wounds in one hit: out (BD-9)``."""
    return EXTRA_OUT(wounds=wounds)


@lru_cache(maxsize=256)
def medpack_cleared(slot: int, n: int) -> Text:
    """A medpack-``n`` cleared ``slot``."""
    return MEDPACK_CLEARS_REASON(slot=slot, label=SLOT_TEXT[slot], n=n)


@lru_cache(maxsize=256)
def medpack_reduced(n: int, slot: int, to: int) -> Text:
    """A medpack-``n`` moved ``slot`` down to ``to``."""
    return MEDPACK_MOVES_REASON(
        n=n, slot=slot, label=SLOT_TEXT[slot], to=to, to_label=SLOT_TEXT[to]
    )
