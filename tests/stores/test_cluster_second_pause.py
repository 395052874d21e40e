"""A forward meeting a second Redis pause after its grace wait leaves the table to
its live owner again (rollbridge.server.cluster, docs/redis.md "One owner per
table"): two real ``serve --redis`` processes and a real redis-server paused
(SIGSTOP) twice within one change forwarded from the process that does not own the
table, the owner hung (SIGSTOP) through both pauses and woken just after the second.

Left by the last session: the grace after a Redis failure (a lease found free is
left to its owner for a lease, :data:`LEASE_MS`) was set once per forward. Its wait
spent in the first pause, the forward found the lease free again after the second
and took the table at once, from an owner that renewed a moment later ("no longer
runs table" in its log). Each new failure now starts the grace wait again.
"""

from __future__ import annotations

import signal
import time
from typing import Any

from tests.stores.cluster_harness import LEASE_MS, Player, Process, run_by_a_seen_from_b
from tests.stores.test_cluster_paused_forward import answered_by_a

#: A pause of Redis: past the lease (it runs out in Redis's clock), within the
#: client's reply timeout (5 s).
PAUSE = 2 * LEASE_MS / 1000 - 0.5


def test_a_second_redis_pause_in_one_forward_restarts_the_grace_wait(redis_factory: Any):
    redis = redis_factory()

    async def play(a: Process, b: Process, on_a: Player, on_b: Player, made: dict) -> None:
        assert redis.process is not None and on_b.ws is not None
        a.signal(signal.SIGSTOP)  # the owner hangs through both pauses
        try:
            redis.process.send_signal(signal.SIGSTOP)
            try:
                # B's forward reads the lease: the read waits in the paused Redis
                await on_b.ws.send('{"type": "roll", "id": "twice", "formula": "1d6"}')
                time.sleep(PAUSE)
            finally:
                redis.process.send_signal(signal.SIGCONT)
            # the lease ran out: B's forward leaves it to A for a lease (its grace)
            time.sleep(LEASE_MS / 2000)
            redis.process.send_signal(signal.SIGSTOP)
            try:
                time.sleep(PAUSE)  # the first grace ends meanwhile
            finally:
                redis.process.send_signal(signal.SIGCONT)
            time.sleep(0.3)  # B reads the lease free again, after a second failure
        finally:
            a.signal(signal.SIGCONT)  # A takes its lease again at its next renewal
        await answered_by_a(a, b, on_b, made, "twice")

    said = run_by_a_seen_from_b(redis.url, play)
    assert "no longer runs table" not in said, said
