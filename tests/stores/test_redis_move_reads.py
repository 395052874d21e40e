"""The reads of RedisStore that a move back to SQLite needs beyond the store
interface (rollbridge.stores.redis, docs/redis.md "Moving tables back to SQLite"),
on a real redis-server: the ``serve --redis`` processes' claims with Redis's clock,
a table's creation time and the seq of each stored reply. Before, ``migrate`` back
read them through the store's private ``_call`` and its client (the method names
here did not exist)."""

from __future__ import annotations

from typing import Any

import pytest

from rollbridge.exceptions import StoreError
from rollbridge.offline import TableService
from rollbridge.stores.redis import RedisStore
from tests.dice.test_verifiable_dice import GM, HOST


@pytest.fixture
def store(redis_factory: Any) -> Any:
    redis = redis_factory()
    opened = RedisStore(redis.url, writer="test")
    try:
        yield opened
    finally:
        opened.close()


def test_process_claims_are_read_with_redis_clock(store: RedisStore):
    assert store.process_claims()[0] == {}
    seconds, micro = store.client.time()
    key = f"{store.keys.prefix}processes"
    store.client.hset(key, "node-a", b"123|settings")
    store.client.hset(key, b"\xffnode", b"garbage")
    claims, now = store.process_claims()
    assert claims == {"node-a": b"123|settings", "\ufffdnode": b"garbage"}
    assert now >= seconds * 1000 + micro // 1000  # Redis's clock, in ms
    assert now < (seconds + 60) * 1000


def test_a_tables_created_time_and_reply_seqs(store: RedisStore):
    service = TableService(store, HOST)
    service.create_table("t", "bandits", table_id="t")
    for n in range(3):
        service.handle("t", {"type": "roll", "id": f"r{n}", "formula": "1d6"}, GM)
    info, seqs = store.keys.table("t").info, store.keys.table("t").reply_seqs
    created = store.table_created("t")
    assert created is not None and created == float(store.client.hget(info, "created"))
    assert store.reply_seqs("t") == {f"gm-token/r{n}": n + 1 for n in range(3)}
    assert store.table_created("nope") is None and store.reply_seqs("nope") == {}
    store.client.hset(info, "created", b"not a time")  # an older rollbridge's: none
    assert store.table_created("t") is None
    store.client.hset(info, "created", b"inf")
    with pytest.raises(StoreError) as caught:
        store.table_created("t")
    assert caught.value.details == {"reason": "damaged", "table": "t", "key": info}
    store.client.zadd(seqs, {"gm-token/r1": 1.5})
    with pytest.raises(StoreError) as caught:
        store.reply_seqs("t")
    assert caught.value.details == {"reason": "damaged", "table": "t", "key": seqs,
                                    "request": "gm-token/r1"}  # fmt: skip
