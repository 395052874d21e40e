"""``stats`` is counted off the event loop (a red-team pass): a large table's count
(1,000 actors, ~1,300 events: ~2.9 s of every event's view and its dice) ran on the
event loop, so back-to-back ``stats`` within the rates held every other table of
the process (0.58 s ping spikes). The count now runs on a reader thread after the
read, as one read of the table's log; the same test over ``serve --redis`` is in
tests/stores/test_cluster_stats.py."""

from __future__ import annotations

import pytest

from tests.stats.counting import SlowTally, answered_while_counting


@pytest.fixture
def tally() -> SlowTally:
    """The tally ruleset of the served tables (tests/server's fixtures), slow to count."""
    return SlowTally()


async def test_another_table_is_answered_while_one_table_s_stats_are_counted(make_tables, tally):
    world = await make_tables()
    counter, _ = await world.join("tally", "gm")
    other, _ = await world.join("sr2", "player")
    for n in range(2):  # a log to count
        rolled = await counter.request({"type": "roll", "id": f"r{n}", "formula": "3d6"})
        assert rolled["type"] == "result", rolled
    await answered_while_counting(counter, other, tally)
