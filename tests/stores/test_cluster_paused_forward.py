"""A forward held up by a paused Redis leaves the table to its live owner
(rollbridge.server.cluster, docs/redis.md "One owner per table"): two real
``serve --redis`` processes, a real redis-server paused (SIGSTOP) for longer than a
lease but within the client's reply timeout, while a change of the table is sent
from the process that does not own it.

Left by the last session: the forward's read of the lease waited in Redis's socket
with the owner's renewal and was answered when Redis woke, after the lease ran out
in Redis's clock: "free", and the forward took the table over at once — it had seen
no failure, so it left the owner no renewal's time (the grace wait after a Redis
failure). The owner's renewal, answered late too, then found the lease taken and
gave its table up ("no longer runs table"). Not a second writer (the commit script
refuses a commit of a process that lost the lease), but a table moved from its live
owner. A read of the lease Redis held for longer than a third of a lease (the
owner's renewals come that often) now counts as a Redis failure: the forward waits
as one that saw it would.

The owner must take its lease again within that wait: a process not scheduled for
longer than a lease is, to the others, one that is gone (its table is taken over; the
commit script keeps it from writing). On a machine shared by many tests (load average
near 27 on two cores) the owner took it again 0.12-0.22 s after Redis woke; held back
(SIGSTOP) 1.8 s after Redis woke, it lost the table with the harness's 1.5 s lease — the
one failure seen under heavy load, where the forwarder's own slow reads no longer
restart the wait more than once (:data:`~rollbridge.server.cluster.GRACES`). With
leases of :data:`LEASE` it keeps it: the owner would have to be starved twice as long.
"""

from __future__ import annotations

import signal
import time
from typing import Any

from tests.stores.cluster_harness import Player, Process, run_by_a_seen_from_b
from tests.stores.test_cluster_redis_restart import kept_by_a

#: The processes' lease (ms): twice the harness's, a scheduling delay of the owner under
#: load well within one.
LEASE = 3000
#: Redis's pause: past the lease (the last renewal came before it; the lease runs out
#: in Redis's clock) and past a third of it (the forward's read held so long counts as a
#: failure), within the client's reply timeout (5 s).
PAUSE = LEASE / 1000 + 1.0


async def answered_by_a(a: Process, b: Process, on_b: Player, made: dict, rid: str) -> None:
    """B's roll ``rid``, sent before, is answered (sent again after a "try again", as
    any client does) and the table is still A's."""
    await on_b.until(lambda: rid in on_b.replies, 60, "the forwarded change's reply")
    reply = on_b.replies[rid]
    if reply["type"] != "result":
        assert reply["code"] == "store_error", reply
        reply = await on_b.ask_until_done({"type": "roll", "id": rid, "formula": "1d6"})
    kept_by_a(a, b, made, reply)


def test_a_forward_held_by_a_paused_redis_leaves_the_table_to_its_owner(redis_factory: Any):
    redis = redis_factory()

    async def play(a: Process, b: Process, on_a: Player, on_b: Player, made: dict) -> None:
        assert redis.process is not None and on_b.ws is not None
        redis.process.send_signal(signal.SIGSTOP)
        try:
            # B's forward reads the lease: the read waits in the paused Redis
            await on_b.ws.send('{"type": "roll", "id": "held", "formula": "1d6"}')
            time.sleep(PAUSE)
        finally:
            redis.process.send_signal(signal.SIGCONT)
        await answered_by_a(a, b, on_b, made, "held")

    said = run_by_a_seen_from_b(redis.url, play, lease_ms=LEASE)
    assert "no longer runs table" not in said, said
