"""A group commit that Redis refuses part-way (out of memory after its first
commit): the commits Redis wrote are acknowledged, not told ``store_error`` with
"nothing was written" — the Redis store's batch is not one transaction, so a
:class:`StoreUnavailable` met at its second commit is not the whole batch's."""

from __future__ import annotations

import asyncio
from typing import Any

from rollbridge.exceptions import StoreUnavailable
from rollbridge.server.writer import CommitWriter
from rollbridge.stores.redis import RedisStore
from tests.stores.test_store_contract import make_commit, make_info


async def test_a_batch_refused_after_its_first_commit_acknowledges_that_one(redis_factory: Any):
    server = redis_factory()
    store = RedisStore(server.url)
    try:
        ids = [f"t{n}" for n in range(6)]
        for table_id in ids:
            store.create_table(make_info(table_id), [])
        commits = [(t, make_commit(store, t, data={"blob": "x" * 300_000})) for t in ids]
        used = int(store.client.info("memory")["used_memory"])
        store.client.config_set("maxmemory", str(used + 700_000))  # room for one commit

        loop = asyncio.get_running_loop()
        writer = CommitWriter(store, loop, linger=0.2)  # one batch: all are queued by then
        answers: dict[str, Any] = {}
        done = loop.create_future()

        def answer(table_id: str):
            def told(error: BaseException | None) -> None:
                answers[table_id] = error
                if len(answers) == len(ids):
                    done.set_result(None)

            return told

        for table_id, commit in commits:
            writer.submit(table_id, commit, answer(table_id))
        await asyncio.wait_for(done, 30)
        writer.close()
        store.client.config_set("maxmemory", "0")

        stored = {i.id: i.seq for i in store.tables()}
        assert 0 < sum(stored.values()) < len(ids)  # Redis took some, refused the rest
        for table_id in ids:
            if stored[table_id]:  # written: its sender must be told so
                assert answers[table_id] is None, (table_id, answers[table_id])
            else:
                assert isinstance(answers[table_id], StoreUnavailable)
    finally:
        store.close()
