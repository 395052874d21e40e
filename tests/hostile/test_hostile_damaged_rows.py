"""A log row damaged by hand is told the same way by ``state`` at a seq as by the whole
reads (hostile29).

``state`` at an earlier seq reads each later event's changes alone, stepping over
the dice in msgpack's C reader (hostile28). Where that reader met a damaged byte its
faults carry no text: the operator's log said ``cannot be read (FormatError: )``
where ``stats`` of the same row said ``(ValueError: invalid type Reserved)``. Now the
stepping read says what the whole read says. (Damage the stepping read cannot see —
a text that is not UTF-8, which it steps over — is docs/operations.md's, "Hostile
input": not checked there.)

A real SQLite file whose dice bytes are replaced by hand, and a real server on it."""

from __future__ import annotations

import itertools
import logging
import sqlite3

import pytest

from rollbridge.dice.sources import SeededDice
from rollbridge.exceptions import StoreError
from rollbridge.stores.sqlite import SQLiteStore
from tests.server.conftest import make_tables  # noqa: F401  (a fixture)

#: Ways to damage the dice of one stored roll: the byte msgpack never uses put in
#: place of a die's value, and the row cut in the middle of its dice.
DAMAGES = {
    "invalid type": lambda blob, at: blob[:at] + b"\xc1" + blob[at + 1 :],
    "unexpected end of file": lambda blob, at: blob[:at],
}


def _damage(path, how: str) -> tuple[int, int]:
    """The third roll's row damaged in its dice; its first and last seq."""
    with sqlite3.connect(path) as conn:
        first, last, blob = conn.execute(
            'SELECT first, last, events FROM log WHERE "table" = ? AND length(events) > 2000'
            " ORDER BY first LIMIT 1 OFFSET 2",
            ("sr2",),
        ).fetchone()
        at = blob.index(b"rolls") + 6  # a die's first roll: a number
        conn.execute('UPDATE log SET events = ? WHERE "table" = ? AND first = ?',
                     (DAMAGES[how](blob, at), "sr2", first))  # fmt: skip
    return first, last


@pytest.mark.parametrize("how", DAMAGES)
async def test_state_at_a_seq_tells_a_damaged_row_as_the_whole_read_does(
    make_tables,  # noqa: F811
    caplog,
    how,
):
    draws = itertools.count()
    world = await make_tables(dice=lambda: SeededDice(f"damaged:{next(draws)}"))
    gm, _ = await world.join("sr2", "gm")
    for _ in range(6):
        rolled = await gm.request({"type": "roll", "formula": "200d6"})
        assert rolled["status"] == "done", rolled
    first, last = _damage(world.path, how)
    with SQLiteStore(world.path) as store:
        with pytest.raises(StoreError) as whole:
            store.events_after("sr2", 0)
        with pytest.raises(StoreError) as changes:
            store.changes_after("sr2", 0)
    assert f"seqs {first} to {last}" in str(whole.value) and how in str(whole.value)
    # before: "(FormatError: )", "(OutOfData: No more data to unpack.)"
    assert f"seqs {first} to {last}" in str(changes.value) and how in str(changes.value)
    caplog.set_level(logging.WARNING, logger="rollbridge")
    refused = await gm.request({"type": "state", "at": 1})
    assert refused.get("code") == "store_error", refused
    said = [r.getMessage() for r in caplog.records if "cannot be read" in r.getMessage()]
    assert said and f"seqs {first} to {last}" in said[0] and how in said[0], said
