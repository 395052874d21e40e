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
    the same log) waits its turn: the read and its count are one read of the table's
    log, so the stats come first, counted, and then the state."""
    asked = await counter.send({"type": "stats"})
    # on a server that counts on its event loop, this returns only once the count is
    # over (the loop was held), the stats reply sent
    await asyncio.to_thread(ruleset.counting.wait, GATE)
    try:
        pong = await other.request({"type": "ping"}, timeout=GATE)
        assert pong["type"] == "pong", pong
        assert asked not in counter.replies, "the stats came before another table's ping"
        waiting = await counter.send({"type": "state", "at": 1})
        pong = await other.request({"type": "ping"}, timeout=GATE)  # the state was taken
        assert pong["type"] == "pong", pong
        assert asked not in counter.replies, "the stats came before the count went on"
        assert waiting not in counter.replies, "the state was read beside the count"
    finally:
        ruleset.gate.set()

    async def state_answered() -> None:
        while waiting not in counter.replies:
            await asyncio.sleep(0.01)

    await asyncio.wait_for(state_answered(), GATE)
    # replies are read in the order sent: the stats, asked first, came first
    assert asked in counter.replies, "the state came before the stats"
    stats = await counter.reply(asked, timeout=GATE)
    assert stats["type"] == "result", stats
    assert stats["stats"]["audience"] == "gm" and stats["stats"]["events"] >= 2, stats
    state = await counter.reply(waiting, timeout=GATE)
    assert state["type"] == "result" and state["table"]["seq"] == 1, state
