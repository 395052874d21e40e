"""KeyFilter: a Bloom filter never says "no" to a key it holds."""

from __future__ import annotations

from rollbridge.protocol.keys import BITS_PER_KEY, KeyFilter


def test_every_added_key_is_found() -> None:
    keys = [f"player-{n % 7}/request-{n}" for n in range(5_000)]
    found = KeyFilter(keys, capacity=5_000)
    assert all(key in found for key in keys)
    assert found.count == 5_000 and not found.full


def test_keys_never_added_are_mostly_refused_at_capacity() -> None:
    found = KeyFilter((f"in-{n}" for n in range(10_000)), capacity=10_000)
    others = [f"out-{n}" for n in range(10_000)]
    false_maybe = sum(key in found for key in others)
    assert false_maybe < 500  # about 1 % expected with 10 bits and 4 hashes per key


def test_empty_filter_refuses_everything_and_non_strings() -> None:
    empty = KeyFilter()
    assert "anything" not in empty and "" not in empty
    assert 5 not in KeyFilter(["5"])


def test_size_follows_capacity_and_full_flags_overflow() -> None:
    small = KeyFilter(capacity=10)
    assert small.capacity == 64  # a floor, so tiny tables do not rebuild at once
    assert len(small.bits) == 64 * BITS_PER_KEY // 8
    for n in range(64):
        small.add(str(n))
    assert not small.full
    small.add("one more")
    assert small.full and "one more" in small


def test_a_key_set_grows_and_never_forgets() -> None:
    from rollbridge.protocol.keys import KeySet

    keys = KeySet(["stored-1", "stored-2"])
    added = [f"new-{n}" for n in range(2_000)]  # far past the first filter's capacity
    for key in added:
        keys.add(key)
    assert all(key in keys for key in ["stored-1", "stored-2", *added])
    false_maybe = sum(f"never-{n}" in keys for n in range(2_000))
    assert false_maybe < 200  # each filter of the chain stays near 1 %
