"""Dice mechanics the rulesets share, each recording every die it rolls.

These are the building blocks rulesets call with an injected
:class:`~rollbridge.dice.sources.DiceSource`; the notation evaluator uses
them too. Nothing here keeps state or reads a clock.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rollbridge.dice.records import Die
from rollbridge.dice.sources import DiceSource
from rollbridge.exceptions import InvalidRequest
from rollbridge.text import Messages

__all__ = [
    "best_of",
    "count_successes",
    "keep",
    "reroll",
    "roll_compounding",
    "roll_die",
    "roll_exploding",
    "roll_pool",
]


say = Messages("rollbridge")


def _check_count(count: int) -> None:
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise InvalidRequest(
            say("dice.count", "a number of dice must be a whole number ≥ 0, not {count}")(
                count=repr(count)
            )
        )


def roll_die(source: DiceSource, faces: int) -> Die:
    """One plain die."""
    return Die.single(faces, source.roll(faces))


def roll_compounding(source: DiceSource, faces: int, *, threshold: int | None = None) -> Die:
    """One compounding (open-ended) die: on ``threshold`` (default the maximum)
    it rolls again and adds, as long as it keeps hitting it: 6 + 6 + 3 = 15.

    A d1 or a threshold of 1 would never stop, so both are refused.
    """
    at = faces if threshold is None else threshold
    if faces < 2 or at < 2:
        raise InvalidRequest(
            say("dice.compounding_endless", "a compounding d{faces} exploding on {at}+ would "
                "never stop")(faces=faces, at=at)
        )  # fmt: skip
    rolls = [source.roll(faces)]
    while rolls[-1] >= at:
        rolls.append(source.roll(faces))
    if len(rolls) == 1:
        return Die(faces, (rolls[0],), rolls[0])
    return Die(faces, tuple(rolls), sum(rolls), tags=("compounded",))


def roll_pool(
    source: DiceSource, count: int, faces: int, *, compounding: bool = False
) -> tuple[Die, ...]:
    """``count`` dice of ``faces`` faces, compounding when asked."""
    _check_count(count)
    if compounding:
        return tuple(roll_compounding(source, faces) for _ in range(count))
    return tuple(Die.single(faces, source.roll(faces)) for _ in range(count))


def roll_exploding(
    source: DiceSource,
    count: int,
    faces: int,
    *,
    explodes: Callable[[int], bool] | None = None,
    once: bool = False,
) -> tuple[Die, ...]:
    """Explosion as extra dice (Foundry's ``x``/``xo``): each die whose result
    satisfies ``explodes`` (default: its maximum) is tagged ``exploded`` and one
    more die, tagged ``explosion``, is added at the end, as Foundry orders its
    results: 2d6x rolling 6, 6, 2, 3 gives [6x, 6x, 2, 3]. With ``once`` the
    added dice do not explode again. The per-request limit of the source
    bounds the chain.
    """
    _check_count(count)
    test = explodes if explodes is not None else (lambda r: r >= faces)
    out = [Die.single(faces, source.roll(faces)) for _ in range(count)]
    index = 0
    while index < len(out):
        die = out[index]
        if not (once and "explosion" in die.tags) and test(die.value):
            out[index] = die.tagged("exploded")
            extra = source.roll(faces)
            out.append(Die(faces, (extra,), extra, tags=("explosion",)))
        index += 1
    return tuple(out)


def count_successes(dice: Sequence[Die], target: int) -> tuple[tuple[Die, ...], int]:
    """Tag each kept die ``success`` (value ≥ target) or ``failure``; one
    success per die at most. Returns the tagged dice and the count."""
    tagged: list[Die] = []
    hits = 0
    for die in dice:
        if not die.kept:
            tagged.append(die)
        elif die.value >= target:
            hits += 1
            tagged.append(die.tagged("success"))
        else:
            tagged.append(die.tagged("failure"))
    return tuple(tagged), hits


def keep(dice: Sequence[Die], count: int, *, highest: bool = True) -> tuple[Die, ...]:
    """Keep ``count`` of the kept dice, highest (or lowest) first; the rest are
    tagged ``dropped``. Ties keep the earlier die. Order is preserved."""
    _check_count(count)
    live = [i for i, d in enumerate(dice) if d.kept]
    ranked = sorted(live, key=lambda i: (-dice[i].value, i) if highest else (dice[i].value, i))
    kept_indices = set(ranked[:count])
    return tuple(
        d if (i in kept_indices or not d.kept) else d.tagged("dropped", kept=False)
        for i, d in enumerate(dice)
    )


def best_of(first: Die, second: Die) -> tuple[Die, Die, int]:
    """Best of two (a trait die and a wild die): the higher value is kept, the
    other tagged ``dropped``; on a tie the first is kept. Returns both dice and
    the index (0 or 1) of the kept one."""
    if second.value > first.value:
        return first.tagged("dropped", kept=False), second, 1
    return first, second.tagged("dropped", kept=False), 0


def reroll(source: DiceSource, die: Die, *, compounding: bool = False) -> tuple[Die, Die]:
    """Reroll one chosen die: the old die is tagged ``rerolled`` and dropped,
    the new one (compounding when asked) is tagged ``reroll``. Returns both."""
    old = die.tagged("rerolled", kept=False)
    new = roll_compounding(source, die.faces) if compounding else roll_die(source, die.faces)
    return old, new.tagged("reroll")
