"""The Redis store's memory of what its last commit to each table left
(:mod:`rollbridge.stores.redis_sent`) keeps within its budget: a process that served
many tables with requests waiting does not keep every one's meta for as long as it
runs; a table it forgot is committed whole, and stored the same, on a real
redis-server."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from rollbridge.plain import pack
from rollbridge.stores.redis import RedisStore
from rollbridge.stores.redis_sent import SENT_BYTES, Sent, SentMemory
from tests.stores.test_redis_changes_only import stored, waiting
from tests.stores.test_store_contract import make_commit, make_info, meta


def sent(size: int, digest: str = "d") -> Sent:
    return Sent(1, digest, b"h", b"m" * (size - 1))


class TestSentMemory:
    def test_it_forgets_the_least_recently_remembered_first(self):
        memory = SentMemory(budget=300)
        for table in ("a", "b", "c"):
            memory.remember(table, sent(100))
        memory.remember("a", sent(100, "again"))  # a is now the most recent
        memory.remember("d", sent(100))
        assert ("b" in memory, "c" in memory, "a" in memory, "d" in memory) == (
            False, True, True, True)  # fmt: skip
        assert memory.bytes == 300 and len(memory) == 3
        assert memory.get("a") == sent(100, "again")

    def test_one_larger_than_the_budget_is_not_kept(self):
        memory = SentMemory(budget=100)
        memory.remember("a", sent(50))
        memory.remember("b", sent(101))
        assert len(memory) == 0 and memory.bytes == 0

    def test_a_forgotten_table_s_bytes_are_given_back(self):
        memory = SentMemory(budget=1000)
        memory.remember("a", sent(100))
        memory.remember("a", sent(300))  # replaced, not added
        assert memory.bytes == 300
        memory.forget("a")
        memory.forget("never")
        assert memory.bytes == 0 and memory.get("a") is None

    def test_the_default_budget_bounds_a_thousand_tables_with_requests_waiting(self):
        """1,000 tables with 64 KiB of requests waiting (what a process that served
        them kept, 64 MB, before the bound) stay within the default budget."""
        memory = SentMemory()
        for n in range(1000):
            memory.remember(f"t{n}", sent(66_000))
        assert memory.bytes <= SENT_BYTES == 32 * 1024 * 1024
        assert len(memory) == SENT_BYTES // 66_000


@pytest.fixture
def own(redis_factory: Any, benchmark_script: Any) -> Iterator[tuple[Any, Any]]:
    """A store on a redis-server of this test's own that remembers about two tables'
    metas, and that server's traffic (``bench_redis_commit_bytes``'s counter)."""
    server = redis_factory()

    def make(budget: int) -> RedisStore:
        store = RedisStore(server.url, prefix="rb:", writer="p1", sent_bytes=budget)
        made.append(store)
        return store

    made: list[RedisStore] = []
    try:
        yield make, benchmark_script("bench_redis_commit_bytes").Counter
    finally:
        for store in made:
            store.close()


class TestOnRedis:
    def test_a_process_committing_to_many_tables_keeps_within_its_budget(self, own):
        """Five tables, each with two requests of ~500 bytes waiting, under a budget
        of about two tables' metas: two remembered; the third's next commit, sent
        whole (its meta in it), is stored as whole; the last's, against its last,
        sends no meta."""
        make, counter = own
        big = meta(pending=waiting("x", "y"))
        size = len(pack(big)) + 200
        store = make(2 * size + size // 2)
        traffic = counter(store.client)
        for n in range(5):
            store.create_table(make_info(f"t{n}"), [])
            store.commit(f"t{n}", make_commit(store, f"t{n}", meta_=big))
        assert store.sent.bytes <= store.sent.budget
        assert [f"t{n}" in store.sent for n in range(5)] == [False, False, False, True, True]
        commit = make_commit(store, "t2", meta_=big)
        traffic.take()
        store.commit("t2", commit)
        forgotten = traffic.take()
        assert stored(store, "t2") == (pack(commit.info.to_dict()), pack(commit.meta))
        commit = make_commit(store, "t4", meta_=big)
        traffic.take()
        store.commit("t4", commit)
        remembered = traffic.take()
        assert forgotten > len(pack(big)) > remembered, (forgotten, remembered)
        assert store.sent.bytes <= store.sent.budget


def test_a_table_that_leaves_a_servers_memory_is_forgotten_at_once(redis_factory):
    """What the last commit to a table left was kept until the budget pushed it out
    (or the table was read again): a table that left the server's memory is forgotten
    when it leaves, its bytes given back at once."""
    from rollbridge.host import PluginHost
    from rollbridge.server.cluster import ClusterServer

    redis = redis_factory()
    store = RedisStore(redis.url, writer="node-a")
    try:
        host = PluginHost({}, environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
        server = ClusterServer(store, host, port=0, redis_url=redis.url)

        async def serve_and_drop() -> None:
            await server.start()  # as serve does: the table registry's drop hook set
            try:
                store.sent.remember("gone", sent(1000))
                store.sent.remember("kept", sent(1000))
                assert server.tables.on_drop is not None
                server.tables.on_drop("gone")
            finally:
                await server.stop()

        asyncio.run(serve_and_drop())
        assert "gone" not in store.sent and "kept" in store.sent
        assert store.sent.bytes == 1000
    finally:
        store.close()
