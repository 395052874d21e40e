"""benchmarks/bench_soak.py's sample of Redis (``RedisChild.sample``), on a real
redis-server of its own: the leases and the subscriptions it compares are read at one
instant, a lease taken after its scan of the keys counted with the subscriptions."""

from __future__ import annotations

import asyncio
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_soak  # noqa: E402

from rollbridge.stores.redis_keys import RedisKeys  # noqa: E402

pytestmark = pytest.mark.skipif(
    bench_soak.shutil.which("redis-server") is None, reason="no redis-server installed"
)


def test_a_lease_taken_after_the_scan_is_read_with_the_subscriptions(tmp_path):
    """A process took the table's lease while the sample measured the keys (after the
    scan), and still follows its channel — the leak the soak's smoke test looks for
    (``subscribers + leases <= 2`` with the other process following): the sample
    counts that lease, which it read only where the scan had found the owner key."""
    keys = RedisKeys("rb:").table("t1")

    async def sampled() -> dict:
        child = await bench_soak.RedisChild.start(tmp_path / "redis")
        follower = None
        try:
            client = child.client
            client.zadd("rb:tables", {"t1": 1})
            client.hset(keys.info, "epoch", 1)
            follower = client.pubsub()
            follower.subscribe(keys.channel)
            follower.get_message(timeout=1)  # the subscription's reply: it is made
            indexed = client.zrange

            def zrange_taking_the_lease(*args, **kwargs):  # after the scan, before the MULTI
                client.set(keys.owner, b"node-a")
                return indexed(*args, **kwargs)

            client.zrange = zrange_taking_the_lease
            return child.sample()
        finally:
            if follower is not None:
                follower.close()
            await child.stop()

    sample = asyncio.run(sampled())
    assert (sample["channels"], sample["subscribers"], sample["leases"]) == (1, 1, 1), sample
