"""Dice sources: seeded, secure, scripted, and the per-request result limit."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from rollbridge.dice import MAX_RESULTS_PER_REQUEST, ScriptedDice, SecureDice, SeededDice, sources
from rollbridge.dice.sources import MAX_FACES, RANDOM_BUFFER
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


def test_a_seed_that_is_not_utf8_seeds_by_its_bytes() -> None:
    """A command line's bytes that are not UTF-8 reach ``--seed`` as lone surrogates
    (``surrogateescape``): :class:`random.Random` could not encode them, and
    ``rollbridge roll 1d6 --seed $'\\xff'`` ended with a traceback (the offline
    CLI's fuzzer, 5 December). Now the bytes given seed it; a text seed is seeded
    as before (its UTF-8 bytes, as :class:`random.Random` seeds a text)."""
    import random

    def rolls(seed: object) -> list[int]:
        source = random.Random(seed)  # type: ignore[arg-type]
        return [int(source.random() * 20) + 1 for _ in range(20)]

    escaped = SeededDice("\udcffa")
    assert [escaped.roll(20) for _ in range(20)] == rolls(b"\xffa")
    lone = SeededDice("\ud800")  # no command line's: its three bytes
    assert [lone.roll(20) for _ in range(20)] == rolls("\ud800".encode("utf-8", "surrogatepass"))
    text = SeededDice("Würfel")
    assert [text.roll(20) for _ in range(20)] == rolls("Würfel")


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
    with pytest.raises(DiceLimitExceeded):
        while True:
            source.roll(6)
    assert source.drawn == 10_000


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


# -- secure: the operating system's bytes, buffered -----------------------------------


@pytest.fixture
def os_bytes(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bytes]]:
    """Replace ``os.urandom`` with bytes the test supplies (one chunk per call)
    and start from an empty buffer; every chunk handed out is recorded."""
    chunks: list[bytes] = []
    handed: list[bytes] = []

    def urandom(size: int) -> bytes:
        assert size == RANDOM_BUFFER
        chunk = chunks.pop(0) if chunks else bytes(size)
        handed.append(chunk)
        return chunk

    monkeypatch.setattr(sources.os, "urandom", urandom)
    monkeypatch.setattr(sources._random_bytes, "data", b"")
    monkeypatch.setattr(sources._random_bytes, "position", 0)
    yield chunks
    monkeypatch.undo()


def test_secure_dice_map_bytes_to_faces_and_reject_the_remainder(os_bytes: list[bytes]) -> None:
    # a d6 takes one byte; 252..255 would favour 1..4, so they are drawn again
    os_bytes.append(bytes([252, 255, 7, 0, 251]) + bytes(RANDOM_BUFFER - 5))
    source = SecureDice()
    assert [source.roll(6), source.roll(6), source.roll(6)] == [7 % 6 + 1, 1, 251 % 6 + 1]
    assert source.drawn == 3


def test_secure_dice_are_exactly_uniform_over_the_accepted_bytes(os_bytes: list[bytes]) -> None:
    for faces in (2, 3, 6, 10, 20, 100, 256):
        cutoff = 256 - 256 % faces
        os_bytes.append(bytes(range(256)) * (RANDOM_BUFFER // 256))
        sources._random_bytes.data = b""
        source = SecureDice()
        counts = [0] * faces
        for _ in range(cutoff):  # one pass over 0..255 minus the rejected tail
            counts[source.roll(faces) - 1] += 1
        assert counts == [cutoff // faces] * faces, faces


def test_secure_dice_use_two_and_four_bytes_for_big_dice(os_bytes: list[bytes]) -> None:
    chunk = (999).to_bytes(2, "little") + (123_456).to_bytes(4, "little")
    os_bytes.append(chunk + bytes(RANDOM_BUFFER - len(chunk)))
    source = SecureDice()
    assert source.roll(1000) == 999 % 1000 + 1
    assert source.roll(MAX_FACES) == 123_456 % MAX_FACES + 1


def test_secure_dice_refill_without_reusing_a_byte(os_bytes: list[bytes]) -> None:
    # the last byte of the first chunk, then the first of the next: a d1000
    # needs two bytes, so the single byte left over is dropped, never reused
    os_bytes.append(bytes(RANDOM_BUFFER - 1) + bytes([9]))
    os_bytes.append((500).to_bytes(2, "little") + bytes(RANDOM_BUFFER - 2))
    source = SecureDice()
    for _ in range(RANDOM_BUFFER - 1):
        assert source.roll(6) == 1
    assert source.roll(1000) == 501


def test_secure_dice_threads_never_share_bytes() -> None:
    seen: dict[str, bytes] = {}

    def draw(name: str) -> None:
        sources._random_bytes.take(1)
        seen[name] = sources._random_bytes.data

    threads = [threading.Thread(target=draw, args=(f"t{i}",)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen["t0"] is not seen["t1"] and seen["t0"] != seen["t1"]


def test_a_forked_child_does_not_reuse_the_parents_bytes() -> None:
    import os

    sources._random_bytes.take(1)  # the parent's buffer holds unread bytes
    unread = sources._random_bytes.data[sources._random_bytes.position :]
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report what its buffer holds, then leave at once
        os.write(writer, sources._random_bytes.data[sources._random_bytes.position :] or b"-")
        os._exit(0)
    os.close(writer)
    child = os.read(reader, len(unread) + 1)
    os.close(reader)
    os.waitpid(pid, 0)
    assert child == b"-" and unread  # the child starts empty; the parent keeps its own
