"""The idempotency filter's membership query, asked once per request, counted
(issue 12 item 6: docs/performance.md "Execute and stage, counted again")."""

from __future__ import annotations

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
