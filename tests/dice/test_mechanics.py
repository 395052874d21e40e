"""The shared dice mechanics, each with scripted dice and exact results."""

from __future__ import annotations

import pytest

from rollbridge.dice import (
    Die,
    ScriptedDice,
    best_of,
    count_successes,
    keep,
    reroll,
    roll_compounding,
    roll_die,
    roll_exploding,
    roll_pool,
)
from rollbridge.dice.sources import DiceSource
from rollbridge.exceptions import DiceLimitExceeded, DiceScriptExhausted, InvalidRequest
from tests.dice.counted import counting


def scripted(*results: int) -> ScriptedDice:
    return ScriptedDice(results)


def dice(*values: int, faces: int = 6) -> tuple[Die, ...]:
    return tuple(Die.single(faces, v) for v in values)


# -- single dice and pools ------------------------------------------------------------


def test_roll_die() -> None:
    assert roll_die(scripted(4), 6) == Die(6, (4,), 4)


def test_roll_pool() -> None:
    source = scripted(1, 6, 3)
    assert roll_pool(source, 3, 6) == dice(1, 6, 3)
    source.finish()
    assert roll_pool(scripted(), 0, 6) == ()


@pytest.mark.parametrize("count", [-1, 1.5, True, "3"])
def test_roll_pool_refuses_a_bad_count(count: object) -> None:
    with pytest.raises(InvalidRequest, match="whole number"):
        roll_pool(scripted(), count, 6)  # type: ignore[arg-type]


# -- compounding ----------------------------------------------------------------------


def test_compounding_totals_6_6_3() -> None:
    source = scripted(6, 6, 3)
    die = roll_compounding(source, 6)
    assert die == Die(6, (6, 6, 3), 15, tags=("compounded",))
    source.finish()


def test_compounding_without_a_maximum_is_a_plain_die() -> None:
    assert roll_compounding(scripted(4), 6) == Die(6, (4,), 4)


def test_compounding_threshold() -> None:
    die = roll_compounding(scripted(5, 6, 2), 6, threshold=5)
    assert (die.rolls, die.value) == ((5, 6, 2), 13)


@pytest.mark.parametrize(("faces", "threshold"), [(1, None), (6, 1), (6, 0)])
def test_compounding_that_would_never_stop_is_refused(faces: int, threshold: int | None) -> None:
    with pytest.raises(InvalidRequest, match="never stop"):
        roll_compounding(scripted(), faces, threshold=threshold)


def test_compounding_pool() -> None:
    source = scripted(6, 1, 3, 6, 6, 2)
    pool = roll_pool(source, 3, 6, compounding=True)
    assert [d.value for d in pool] == [7, 3, 14]
    assert [d.rolls for d in pool] == [(6, 1), (3,), (6, 6, 2)]
    source.finish()


# -- explosion as extra dice ----------------------------------------------------------


def test_exploding_adds_dice_at_the_end() -> None:
    source = scripted(6, 6, 2, 3)
    pool = roll_exploding(source, 2, 6)
    assert [d.value for d in pool] == [6, 6, 2, 3]
    assert [d.tags for d in pool] == [("exploded",), ("exploded",), ("explosion",), ("explosion",)]
    source.finish()


def test_exploding_chains() -> None:
    pool = roll_exploding(scripted(6, 6, 1), 1, 6)
    assert [d.value for d in pool] == [6, 6, 1]
    assert pool[1].tags == ("explosion", "exploded")


def test_exploding_once() -> None:
    source = scripted(6, 6, 6, 6)
    pool = roll_exploding(source, 2, 6, once=True)
    assert [d.tags for d in pool] == [("exploded",), ("exploded",), ("explosion",), ("explosion",)]
    source.finish()
    source = scripted(6, 2, 6)
    pool = roll_exploding(source, 2, 6, once=True)
    assert [d.value for d in pool] == [6, 2, 6]
    assert [d.tags for d in pool] == [("exploded",), (), ("explosion",)]
    source.finish()


def test_exploding_condition() -> None:
    source = scripted(5, 1, 4, 2)
    pool = roll_exploding(source, 2, 6, explodes=lambda r: r >= 4)
    assert [d.value for d in pool] == [5, 1, 4, 2]
    source.finish()


class Maximum(DiceSource):
    def _draw(self, faces: int) -> int:
        return faces


def test_an_endless_explosion_ends_at_the_source_limit() -> None:
    source = Maximum()
    with pytest.raises(DiceLimitExceeded), counting() as work:
        roll_exploding(source, 1, 1)
    assert source.drawn <= source.limit
    assert work.calls < 30 * source.limit  # ~10 calls a die: linear in the dice drawn


# -- success counting -----------------------------------------------------------------


def test_count_successes() -> None:
    tagged, hits = count_successes(dice(5, 2, 6, 4), 5)
    assert hits == 2
    assert [d.tags for d in tagged] == [("success",), ("failure",), ("success",), ("failure",)]


def test_count_successes_skips_dropped_dice() -> None:
    pool = keep(dice(6, 5, 1), 1)
    tagged, hits = count_successes(pool, 5)
    assert hits == 1
    assert tagged[1].tags == ("dropped",)


# -- keep / drop ----------------------------------------------------------------------


def test_keep_highest() -> None:
    pool = keep(dice(3, 6, 1, 5), 2)
    assert [d.kept for d in pool] == [False, True, False, True]
    assert [d.tags for d in pool] == [("dropped",), (), ("dropped",), ()]


def test_keep_lowest() -> None:
    pool = keep(dice(3, 6, 1, 5), 1, highest=False)
    assert [d.kept for d in pool] == [False, False, True, False]


def test_keep_ties_keep_the_earlier_die() -> None:
    pool = keep(dice(4, 4, 4), 2)
    assert [d.kept for d in pool] == [True, True, False]


def test_keep_more_than_there_are_and_none() -> None:
    assert all(d.kept for d in keep(dice(1, 2), 5))
    assert not any(d.kept for d in keep(dice(1, 2), 0))


def test_keep_ignores_dice_already_dropped() -> None:
    once = keep(dice(6, 5, 4, 3), 3)
    twice = keep(once, 1, highest=False)
    assert [d.kept for d in twice] == [False, False, True, False]


# -- best of two, reroll --------------------------------------------------------------


def test_best_of_keeps_the_higher() -> None:
    trait, wild = Die.single(8, 3), Die.single(6, 5)
    first, second, index = best_of(trait, wild)
    assert index == 1
    assert (first.kept, first.tags) == (False, ("dropped",))
    assert second == wild


def test_best_of_tie_keeps_the_first() -> None:
    first, second, index = best_of(Die.single(8, 4), Die.single(6, 4))
    assert index == 0
    assert first.kept and not second.kept


def test_reroll_one_chosen_die() -> None:
    old, new = reroll(scripted(5), Die.single(6, 1))
    assert (old.kept, old.tags, old.value) == (False, ("rerolled",), 1)
    assert (new.value, new.kept, new.tags) == (5, True, ("reroll",))


def test_reroll_compounding() -> None:
    _old, new = reroll(scripted(6, 2), Die.single(6, 1), compounding=True)
    assert (new.rolls, new.value, new.tags) == ((6, 2), 8, ("compounded", "reroll"))


def test_reroll_needs_a_result() -> None:
    with pytest.raises(DiceScriptExhausted):
        reroll(scripted(), Die.single(6, 1))
