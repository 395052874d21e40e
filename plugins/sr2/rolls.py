"""Success tests: open-ended d6 (SR-1), the TN floor (SR-2), the rule of one
(SR-3) — the building block of every test (SR-16)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rollbridge.dice import DiceGroup, DiceSource, Die, count_successes
from rollbridge.exceptions import InvalidParams

from .refusals import BAD_DICE

__all__ = ["TN_FLOOR", "TestRoll", "effective_tn", "roll_test", "score"]

#: SR-2: a TN below 2 counts as 2, so a die showing 1 never succeeds.
TN_FLOOR = 2


def effective_tn(tn: int) -> int:
    """SR-2: the TN the dice are rolled against."""
    return tn if tn >= TN_FLOOR else TN_FLOOR


def _chain(die: Die) -> str:
    if len(die.rolls) == 1:
        return str(die.value)
    return "+".join(map(str, die.rolls)) + f"={die.value}"


class TestRoll:
    """The dice of one test and what they scored.

    :ivar dice: the dice, each tagged ``success`` or ``failure``; a die that
        rolled 6 and again carries every roll in ``rolls`` (SR-1).
    :ivar tn: the TN the dice were rolled against (after SR-2's floor).
    :ivar successes: dice whose total is ≥ ``tn``, one per die at most; 0 on a botch.
    :ivar botch: every die showed 1 (SR-3), only when at least one die was rolled.
    """

    __test__ = False  # not a pytest test class
    __slots__ = ("botch", "chains", "dice", "successes", "tn")

    def __init__(
        self,
        dice: tuple[Die, ...],
        tn: int,
        successes: int,
        botch: bool,
        chains: list[str] | None = None,
    ) -> None:
        self.dice = dice
        self.tn = tn
        self.successes = successes
        self.botch = botch
        #: each die's explosion chain as text: ``4``, ``6+6+3=15``
        self.chains = chains if chains is not None else [_chain(d) for d in dice]

    def group(
        self, label: Any, note: Any = "", target: Any = None, actor: str | None = None
    ) -> DiceGroup:
        """The dice as a :class:`DiceGroup` for the resolution.

        :param label: its label (a text, or the label a player gave).
        :param note: a text, or a :class:`~rollbridge.text.Private` one.
        :param target: the TN as the group records it (a Private one for a TN
            players may not see); default: :attr:`tn`.
        :param actor: who rolled, where not the acting actor (the defender).
        """
        return DiceGroup(
            label=label,
            dice=self.dice,
            formula=f"{len(self.dice)}d6!!",
            target=self.tn if target is None else target,
            successes=self.successes,
            note=note,
            tags=("botch",) if self.botch else (),
            actor=actor,
        )


# A die that rolled once (1 to 5) is an immutable record; one per face and
# outcome is shared by every test. _ROWS[t][face] is the die of that face
# tagged against TN t (TN 7 and above: every single face fails), and
# _HITS[t][face] is 1 when it succeeds. This keeps an attack well inside its
# time budget (docs/performance.md).
_SUCCESS_DIE = tuple(Die(6, (f,), f, True, ("success",)) for f in range(6))
_FAILURE_DIE = tuple(Die(6, (f,), f, True, ("failure",)) for f in range(6))
_ROWS = tuple(
    tuple(_SUCCESS_DIE[f] if f >= t else _FAILURE_DIE[f] for f in range(6)) for t in range(8)
)
_HITS = tuple(tuple(1 if f >= t else 0 for f in range(6)) for t in range(8))
_FACE_TEXT = ("0", "1", "2", "3", "4", "5")
_SUCCESS = ("compounded", "success")
_FAILURE = ("compounded", "failure")
# Dice that exploded, by (rolls, success): (the die, its chain as text).
_EXPLODED: dict[tuple[tuple[int, ...], bool], tuple[Die, str]] = {}


def score(dice: Sequence[Die], tn: int, *, rule_of_one: bool = True) -> TestRoll:
    """Count the successes of already rolled dice against ``tn`` (floored per SR-2)."""
    target = effective_tn(tn)
    tagged, hits = count_successes(dice, target)
    botch = bool(tagged) and rule_of_one and all(d.rolls[0] == 1 for d in tagged)
    return TestRoll(tagged, target, 0 if botch else hits, botch)


def roll_test(source: DiceSource, count: int, tn: int, *, rule_of_one: bool = True) -> TestRoll:
    """Roll ``count`` open-ended d6 against ``tn`` (SR-1 to SR-3).

    Gives exactly what ``score(roll_pool(source, count, 6, compounding=True),
    tn)`` gives — the same draws from ``source``, the same :class:`Die` records
    and tags (``compounded``, ``success``/``failure``) — in a single pass,
    several times faster (the tests check that they agree).

    :raises InvalidParams: when ``count`` is negative or not a whole number.
    """
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise InvalidParams(BAD_DICE(value=repr(count)))
    target = tn if tn >= TN_FLOOR else TN_FLOOR
    row = target if target < 7 else 7
    die_of = _ROWS[row]
    hit_of = _HITS[row]
    text_of = _FACE_TEXT
    roll = source.roll
    dice: list[Die] = []
    chains: list[str] = []
    add = dice.append
    say = chains.append
    hits = 0
    for _ in range(count):
        face = roll(6)
        if face != 6:
            add(die_of[face])
            say(text_of[face])
            hits += hit_of[face]
            continue
        rolls = [6]
        total = 6
        while face == 6:
            face = roll(6)
            rolls.append(face)
            total += face
        hit = total >= target
        hits += hit
        key = (tuple(rolls), hit)
        known = _EXPLODED.get(key)
        if known is None:
            known = (
                Die(6, key[0], total, True, _SUCCESS if hit else _FAILURE),
                "+".join(map(str, rolls)) + f"={total}",
            )
            if len(_EXPLODED) < 1024:
                _EXPLODED[key] = known
        add(known[0])
        say(known[1])
    botch = hits == 0 and rule_of_one and count > 0 and all(d.rolls[0] == 1 for d in dice)
    return TestRoll(tuple(dice), target, hits, botch, chains)
