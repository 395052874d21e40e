"""A ruleset whose statistics take as long as a test wants, and what the stats
tests over a real server ask with it: is another table answered while one table's
log is counted (``tests/stats/test_stats_off_loop.py``, and over ``serve --redis``
in ``tests/stores/test_cluster_stats.py``)."""

from __future__ import annotations

import asyncio
import threading

from rollbridge.contract import Statistics
from tests.conftest import Tally
from tests.server.conftest import Peer

__all__ = ["GATE", "SlowTally", "answered_while_counting"]

#: The longest the counting waits for a test to let it go (seconds): a bound, so
#: that on a server that counts on its event loop (which the test cannot reach
#: meanwhile) the test goes on, and fails, after it.
GATE = 15.0


class SlowTally(Tally):
    """The tally test ruleset, whose ``statistics`` (the first thing a count asks of
    its ruleset) says that a count started, then waits until the test opens
    :attr:`gate` (or :data:`GATE` seconds passed): a count of a large log, as long
    as the test needs."""

    def __init__(self) -> None:
        super().__init__()
        self.counting = threading.Event()
        self.gate = threading.Event()

    def statistics(self) -> Statistics | None:
        self.counting.set()
        self.gate.wait(GATE)
        return None


async def answered_while_counting(counter: Peer, other: Peer, ruleset: SlowTally) -> None:
    """``counter`` (the GM of a SlowTally table) asks ``stats``; while the count is
    under way, ``other`` (a member of another table) is answered its ``ping`` before
    the stats come, and ``counter``'s ``state`` at an earlier seq (another read of
    the same log) is refused with ``busy``: the read and its count are one read of
    the table's log. Once the count goes on, the stats come, counted."""
    asked = await counter.send({"type": "stats"})
    # on a server that counts on its event loop, this returns only once the count is
    # over (the loop was held), the stats reply sent
    await asyncio.to_thread(ruleset.counting.wait, GATE)
    try:
        pong = await other.request({"type": "ping"}, timeout=GATE)
        assert pong["type"] == "pong", pong
        assert asked not in counter.replies, "the stats came before another table's ping"
        again = await counter.request({"type": "state", "at": 1}, timeout=GATE)
        assert again["type"] == "error" and again["code"] == "busy", again
        assert again["details"] == {"reading": 1, "limit": 1}, again
        assert asked not in counter.replies, "the stats came before the busy state"
    finally:
        ruleset.gate.set()
    stats = await counter.reply(asked, timeout=GATE)
    assert stats["type"] == "result", stats
    assert stats["stats"]["audience"] == "gm" and stats["stats"]["events"] >= 2, stats
    again = await counter.request({"type": "state", "at": 1})  # the read is over
    assert again["type"] == "result" and again["table"]["seq"] == 1, again
