"""Dice sources: seeded, secure, scripted, and the per-request result limit."""

from __future__ import annotations

import time

import pytest

from rollbridge.dice import MAX_RESULTS_PER_REQUEST, ScriptedDice, SecureDice, SeededDice
from rollbridge.dice.sources import MAX_FACES
from rollbridge.exceptions import (
    DiceLimitExceeded,
    DiceScriptError,
    DiceScriptExhausted,
    DiceScriptUnused,
    InvalidRequest,
)


def test_seeded_dice_replay() -> None:
    first, second = SeededDice("seed"), SeededDice("seed")
    assert [first.roll(20) for _ in range(50)] == [second.roll(20) for _ in range(50)]
    assert [SeededDice(1).roll(20) for _ in range(5)] == [SeededDice(1).roll(20)] * 5
    assert not first.supplied


@pytest.mark.parametrize("source", [SeededDice(7), SecureDice()])
def test_generated_results_cover_the_faces(source: SeededDice | SecureDice) -> None:
    seen = {source.roll(6) for _ in range(600)}
    assert seen == {1, 2, 3, 4, 5, 6}
    assert source.drawn == 600
    assert source.roll(1) == 1


@pytest.mark.parametrize("faces", [0, -3, MAX_FACES + 1])
def test_faces_out_of_range(faces: int) -> None:
    source = SeededDice()
    with pytest.raises(InvalidRequest, match="faces"):
        source.roll(faces)
    assert source.drawn == 0


def test_the_result_limit() -> None:
    source = SeededDice(limit=3)
    for _ in range(3):
        source.roll(6)
    with pytest.raises(DiceLimitExceeded) as caught:
        source.roll(6)
    assert caught.value.code == "dice_limit"
    assert caught.value.details == {"limit": 3}
    assert "3" in caught.value.message
    assert source.drawn == 3


def test_the_default_limit_is_ten_thousand() -> None:
    assert MAX_RESULTS_PER_REQUEST == 10_000
    source = SecureDice()
    started = time.perf_counter()
    with pytest.raises(DiceLimitExceeded):
        while True:
            source.roll(6)
    assert source.drawn == 10_000
    assert time.perf_counter() - started < 1


# -- scripted -------------------------------------------------------------------------


def test_scripted_results_in_order() -> None:
    source = ScriptedDice([3, 6, 1])
    assert source.supplied
    assert [source.roll(6), source.roll(6), source.roll(20)] == [3, 6, 1]
    assert source.remaining == 0
    source.finish()


def test_scripted_mismatch() -> None:
    source = ScriptedDice([3, 7])
    source.roll(6)
    with pytest.raises(DiceScriptError) as caught:
        source.roll(6)
    assert caught.value.code == "dice_mismatch"
    assert caught.value.message == "supplied die #2 is 7, which a d6 cannot show"
    assert caught.value.details == {"index": 1, "value": 7, "faces": 6}
    # the refused result is neither used nor counted
    assert (source.position, source.drawn) == (1, 1)
    assert source.roll(8) == 7


def test_scripted_zero_is_a_mismatch() -> None:
    with pytest.raises(DiceScriptError, match="#1 is 0"):
        ScriptedDice([0]).roll(6)


def test_scripted_exhausted() -> None:
    source = ScriptedDice([2])
    source.roll(6)
    with pytest.raises(DiceScriptExhausted) as caught:
        source.roll(10)
    assert caught.value.code == "dice_exhausted"
    assert "1 supplied" in caught.value.message and "d10" in caught.value.message
    assert isinstance(caught.value, DiceScriptError)
    assert source.drawn == 1


def test_scripted_unused() -> None:
    source = ScriptedDice([2, 3, 4])
    source.roll(6)
    with pytest.raises(DiceScriptUnused) as caught:
        source.finish()
    assert caught.value.code == "dice_unused"
    assert caught.value.details == {"supplied": 3, "used": 1}
    assert "2 of the 3" in caught.value.message


@pytest.mark.parametrize("bad", [1.5, "3", None, True])
def test_scripted_results_must_be_whole_numbers(bad: object) -> None:
    with pytest.raises(DiceScriptError) as caught:
        ScriptedDice([1, bad])  # type: ignore[list-item]
    assert caught.value.code == "dice_mismatch"
    assert "#2" in caught.value.message


def test_scripted_results_past_the_limit() -> None:
    with pytest.raises(DiceLimitExceeded):
        ScriptedDice([1] * 11, limit=10)
    with pytest.raises(DiceLimitExceeded):
        ScriptedDice([1] * (MAX_RESULTS_PER_REQUEST + 1))


def test_scripted_from_any_iterable() -> None:
    source = ScriptedDice(iter([1, 2]))
    assert source.remaining == 2
