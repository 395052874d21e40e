"""A group commit that Redis refuses part-way (out of memory after its first
commit): the commits Redis wrote are acknowledged, not told ``store_error`` with
"nothing was written" — the Redis store's batch is not one transaction, so a
:class:`StoreUnavailable` met at its second commit is not the whole batch's."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from rollbridge.exceptions import StoreError, StoreUnavailable
from rollbridge.server.writer import CommitWriter, _Item
from rollbridge.stores.redis import RedisStore
from tests.server.test_writer_handover import held_linger
from tests.stores.test_store_contract import make_commit, make_info


async def test_a_batch_refused_after_its_first_commit_acknowledges_that_one(
    redis_factory: Any, monkeypatch: pytest.MonkeyPatch
):
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
        # one batch: the writer lingers until all are queued (not for 0.2 s)
        submitted = held_linger(monkeypatch)
        groups: list[int] = []  # the size of each group the writer hands the store
        real = store.commit_many
        store.commit_many = lambda items: (groups.append(len(items)), real(items))[1]
        writer = CommitWriter(store, loop, linger=0.2)
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
        submitted.set()
        await asyncio.wait_for(done, 30)
        writer.close()
        store.client.config_set("maxmemory", "0")

        assert groups == [len(ids)]  # one group, refused part-way
        stored = {i.id: i.seq for i in store.tables()}
        assert 0 < sum(stored.values()) < len(ids)  # Redis took some, refused the rest
        for table_id in ids:
            if stored[table_id]:  # written: its sender must be told so
                assert answers[table_id] is None, (table_id, answers[table_id])
            else:
                assert isinstance(answers[table_id], StoreUnavailable)
    finally:
        store.close()


async def test_a_refused_commit_is_told_in_its_place_among_a_partly_written_batch(
    redis_factory: Any,
):
    """The same part-way refusal, with a commit of a table whose earlier commit failed
    (refused before anything is written) after the first one of the batch: the
    callbacks still run in submission order — the written one, the refused one, the
    ones Redis refused — though the refusal is found first (``serve --redis`` shares
    the commit writer; docs/performance.md, "The loop's glue, 7 December (evening)":
    the results are put back in order only when a refusal was told before a commit
    written that was submitted first)."""
    server = redis_factory()
    store = RedisStore(server.url)
    try:
        ids = ["t0", "poisoned", "t1", "t2"]
        for table_id in ids:
            store.create_table(make_info(table_id), [])
        commits = {t: make_commit(store, t, data={"blob": "x" * 300_000}) for t in ids}
        used = int(store.client.info("memory")["used_memory"])
        store.client.config_set("maxmemory", str(used + 700_000))  # room for one commit
        loop = asyncio.get_running_loop()
        writer = CommitWriter(store, loop)
        told: list[tuple[str, BaseException | None]] = []
        try:
            writer._poisoned.add("poisoned")  # its earlier commit failed, not reloaded
            batch = [_Item(t, commits[t], lambda error, t=t: told.append((t, error))) for t in ids]
            writer.pending += len(batch)
            writer._write(batch)
            for _ in range(500):
                if len(told) == len(ids):
                    break
                await asyncio.sleep(0.01)
        finally:
            await loop.run_in_executor(None, writer.close)
            store.client.config_set("maxmemory", "0")
        assert [t for t, _ in told] == ids  # submission order, the refusal in its place
        answers = dict(told)
        assert answers["t0"] is None
        assert type(answers["poisoned"]) is StoreError  # not the outage
        assert all(isinstance(answers[t], StoreUnavailable) for t in ("t1", "t2"))
        stored = {i.id: i.seq for i in store.tables()}
        assert stored == {"t0": 1, "poisoned": 0, "t1": 0, "t2": 0}
    finally:
        store.close()
