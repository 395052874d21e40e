"""The small texts the lines are built from: counts, TNs, levels, tracks, statuses,
and the labels of the outcome's ``tn_parts``.

Each is an immutable :class:`~rollbridge.text.Text` shared by every resolution:
the words are made once, the counted ones once per count (memoised), so a line
costs lookups rather than new texts (docs/performance.md, "sr2 attack resolution").
"""

from __future__ import annotations

from functools import lru_cache

from rollbridge.text import Text

from .messages import (
    ARMOURS,
    ARMOURS_GIVEN,
    ATTACK_TN_HIDDEN,
    BOTCH,
    DICE,
    FLOORED,
    GIVEN_TN,
    LEVELS,
    NONE,
    PART_POWER,
    PART_SITUATIONAL,
    PART_WOUND,
    RANGE_BANDS,
    RECOIL_ONE_ROUND,
    STAGED_NONE,
    STAGED_OVERFLOW,
    STATUSES,
    SUCCESSES,
    TEST_LABEL,
    TN,
    TN_HIDDEN,
    TRACKS,
    WOUNDS_ON,
)

__all__ = [
    "ARMOUR",
    "BAND",
    "BOTCHED",
    "DEFAULT_LABEL",
    "GIVEN",
    "HIDDEN_RECOIL_TN",
    "HIDDEN_TN",
    "LEVEL",
    "NOTHING",
    "ONE_ROUND",
    "POWER",
    "SITUATIONAL",
    "STAGED",
    "STATUS",
    "TRACK",
    "WOUNDS",
    "WOUND_MODIFIER",
    "dice",
    "floored",
    "result",
    "successes",
    "tn",
]

#: Level letter → its name (``Deadly``).
LEVEL: dict[str, Text] = {letter: message() for letter, message in LEVELS.items()}
#: Track key → its name in a line (``physical``).
TRACK: dict[str, Text] = {key: message() for key, message in TRACKS.items()}
#: Common status → its word (``dying``).
STATUS: dict[str, Text] = {key: message() for key, message in STATUSES.items()}
#: ``(monitor, level letter)`` → ``Physical Deadly``.
WOUNDS: dict[tuple[str, str], Text] = {
    (monitor, letter): message(level=LEVEL[letter])
    for monitor, message in WOUNDS_ON.items()
    for letter in LEVELS
}
#: Range band → the base of the attack TN (``short range``).
BAND: dict[str, Text] = {band: message() for band, message in RANGE_BANDS.items()}
#: An explicit base TN.
GIVEN = GIVEN_TN()
#: ``(armour type, given as a parameter)`` → ``ballistic armour (given)``.
ARMOUR: dict[tuple[str, bool], Text] = {
    **{(kind, False): message() for kind, message in ARMOURS.items()},
    **{(kind, True): message() for kind, message in ARMOURS_GIVEN.items()},
}
#: What players read for an NPC's recoil in a one-round attack TN.
ONE_ROUND = RECOIL_ONE_ROUND()
#: What players read for an NPC's attack TN that its recoil gives away.
HIDDEN_RECOIL_TN = ATTACK_TN_HIDDEN()
#: ``a hidden TN`` (in a test line).
HIDDEN_TN = TN_HIDDEN()
#: ``botch: every die shows 1 (SR-3)``.
BOTCHED = BOTCH()
#: ``none``.
NOTHING = NONE()
#: The labels of the outcome's ``tn_parts`` besides the range band, the recoil and
#: the armour: ``power``, ``wound modifier``, ``situational``.
POWER = PART_POWER()
WOUND_MODIFIER = PART_WOUND()
SITUATIONAL = PART_SITUATIONAL()
#: A success test's label when the request gave none (``Success test``).
DEFAULT_LABEL = TEST_LABEL()
#: The staging path's worded steps (``D->+1 overflow``, ``L->none``) as a step shows
#: them; the others (``S->D``) are letters, the same in every language.
STAGED: dict[str, Text] = {"D->+1 overflow": STAGED_OVERFLOW(), "L->none": STAGED_NONE()}


@lru_cache(maxsize=512)
def successes(count: int) -> Text:
    """``1 success``, ``2 successes``."""
    return SUCCESSES(count=count)


@lru_cache(maxsize=512)
def dice(count: int) -> Text:
    """``7 dice``."""
    return DICE(count=count)


@lru_cache(maxsize=1024)
def tn(value: int) -> Text:
    """``TN 5``."""
    return TN(tn=value)


@lru_cache(maxsize=1024)
def floored(raw: int, value: int) -> Text | str:
    """`` (floored to 2, SR-2)`` when SR-2 raised the TN, else nothing."""
    return FLOORED(tn=value) if value != raw else ""


def result(count: int, botch: bool) -> Text:
    """What a test scored: ``2 successes``, or SR-3's botch."""
    return BOTCHED if botch else successes(count)
