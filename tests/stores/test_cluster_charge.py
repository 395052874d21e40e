"""The CPU-time charge of a request (docs/protocol.md, "Limits of a hosted server")
under ``rollbridge serve --redis``: a change sent to a process that does not own its
table runs on the owner, and is charged there."""

from __future__ import annotations

import time

import pytest

from tests.stores.cluster_harness import Cluster

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_a_forwarded_request_that_keeps_the_owner_busy_takes_more_of_the_tables_rate(
    redis_factory,
):
    """Rolls of ``999d6x>1`` (~50 ms of the loop each) sent to the process that does
    not own the table ran on the owner uncharged: only the process that took the
    request timed it, and forwarding took no time there — so a player on another
    process kept the owner's loop, which every table it owns shares, busy within
    the table's rate. The owner now charges the table's rate for the time too."""
    redis = redis_factory()
    rate = 20  # requests a second at the table, bursts of twice as many
    cluster = Cluster(
        redis.url, 2, extra=("--rate-per-connection", "0", "--rate-per-table", str(rate))
    )
    heavy = "999d6x>1"  # every die exploding: ms of the owner's loop, too large to keep

    async def play() -> None:
        (gm,) = await cluster.joined(0)
        assert (await gm.ask({"type": "roll", "id": "own", "formula": "1d6"}))["type"] == "result"
        owner = cluster.owner()
        other = next(i for i, p in enumerate(cluster.processes) if p is not owner)
        (player,) = await cluster.joined(other)
        codes = []
        started = time.monotonic()
        for n in range(200):
            reply = await player.ask({"type": "roll", "id": f"x{n}", "formula": heavy})
            codes.append((reply.get("code"), reply.get("details", {}).get("scope")))
            if codes[-1] == ("rate_limited", "table"):
                break
        elapsed = time.monotonic() - started
        assert codes[-1] == ("rate_limited", "table"), codes
        # Counted, not timed: uncharged, each roll takes one request from the table's
        # rate, so it is refused only after the burst and what refilled meanwhile
        # (2 * rate + rate * elapsed: however slow the machine, never before);
        # charged for its time, well before.
        plain = 2 * rate + rate * elapsed
        assert len(codes) < 0.8 * plain, (len(codes), plain, codes)
        for client in (gm, player):
            await client.close()

    cluster.run(play)
