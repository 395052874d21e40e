"""The idempotency filter's membership query, asked once per request, counted
(issue 12 item 6: docs/performance.md "Execute and stage, counted again")."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rollbridge.protocol.keys import KeyFilter, KeySet


def test_a_membership_query_makes_no_list_of_positions_and_answers_as_the_bits_say(
    monkeypatch,
):
    """``in`` is asked once per request: it walks the positions itself (no list of
    them, no generator), and answers exactly what the bits set by ``add`` say."""
    added = [f"gm/r{n}" for n in range(200)]
    keys = KeySet(added[:150], seq=1)
    for key in added[150:]:
        keys.add(key, seq=2)
    filters = keys._filters
    asked = [f"player/q{n}" for n in range(400)] + added

    def as_the_bits_say(key: str) -> bool:
        return any(all(f.bits[p >> 3] & (1 << (p & 7)) for p in f._positions(key)) for f in filters)

    expected = [as_the_bits_say(key) for key in asked]
    lists = {"n": 0}
    plain_positions = KeyFilter._positions

    def counting(self, key):
        lists["n"] += 1
        return plain_positions(self, key)

    monkeypatch.setattr(KeyFilter, "_positions", counting)
    assert [key in keys for key in asked] == expected
    assert all(key in keys for key in added)
    assert lists["n"] == 0


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    added=st.lists(st.text(max_size=40), max_size=120),
    asked=st.lists(st.one_of(st.text(max_size=40), st.integers(), st.none()), max_size=60),
    capacity=st.integers(min_value=1, max_value=5000),
)
def test_membership_answers_as_the_implementation_before_the_walk(added, asked, capacity):
    """Over random keys and sizes: ``in`` answers as the list of positions did (the
    implementation before the walk), never "no" for a key added, "no" for a non-string."""
    keys = KeySet(seq=1)
    one = KeyFilter(capacity=capacity)
    for n, key in enumerate(added):
        keys.add(key, seq=n + 1)
        one.add(key)

    def before(f: KeyFilter, key: object) -> bool:
        if not isinstance(key, str):
            return False
        return all(f.bits[p >> 3] & (1 << (p & 7)) for p in f._positions(key))

    for key in [*asked, *added]:
        assert (key in one) == before(one, key)
        assert (key in keys) == any(before(f, key) for f in keys._filters)
    assert all(key in one and key in keys for key in added)
