"""A numeric field of a table's ``info`` hash damaged in a real redis-server (bytes
where a seq, an epoch or the undo/redo seqs stand) is the store's ``damaged``
(rollbridge.stores.redis_damaged, docs/redis.md "Damaged entries"), naming the
table and the key, as any entry it cannot read. Before, the scripts' ``tonumber``
of it was nil and Redis answered an error (``attempt to compare nil with number``,
``min or max is not a float``) that read as Redis refusing the script (no
``reason``), or the commit's answer came back cut short (an ``IndexError``)."""

from __future__ import annotations

from typing import Any

import pytest

from rollbridge.exceptions import StoreError
from rollbridge.offline import TableService
from rollbridge.stores.redis import RedisStore
from tests.dice.test_verifiable_dice import GM, HOST
from tests.stores.test_redis_damaged_fuzz import _played


@pytest.mark.parametrize("field", ["seq", "epoch", "undos", "wanted"])
def test_a_damaged_number_of_a_tables_info_is_damaged(redis_factory: Any, field: str):
    redis = redis_factory()
    _played(redis.url)
    store = RedisStore(redis.url, writer="test")
    try:
        info = store.keys.table("t").info
        store.client.hset(info, field, b"x\xff")
        with pytest.raises(StoreError) as caught:
            TableService(store, HOST).handle("t", {"type": "roll", "id": "r", "formula": "1d6"}, GM)
        assert caught.value.details == {"reason": "damaged", "table": "t", "key": info}
        assert f"{field!r} holds no number" in str(caught.value)
        assert store.client.hget(info, field) == b"x\xff"  # nothing written
        store.client.hset(info, field, b"5" if field != "wanted" else b"")
        assert "t" in [t.id for t in store.tables()]
    finally:
        store.close()


@pytest.mark.parametrize("value", [b"nan", b"inf", b"-inf", b"1_0"])
@pytest.mark.parametrize("field", ["seq", "epoch"])
def test_a_number_python_reads_and_lua_reads_otherwise_is_damaged(
    redis_factory: Any, field: str, value: bytes
):
    """Numbers no rollbridge writes that Python's ``float`` reads: ``1_0`` (Lua's
    ``tonumber`` does not: Redis refused the script, or the commit's answer came cut
    short), ``inf`` and ``nan`` (Lua's does, through C's ``strtod``: the commit was
    refused as if another process had written the table, at seq or epoch -2**63,
    and a reload met it again). Each is ``damaged``, naming the table and key."""
    redis = redis_factory()
    _played(redis.url)
    store = RedisStore(redis.url, writer="test")
    try:
        info = store.keys.table("t").info
        store.client.hset(info, field, value)
        with pytest.raises(StoreError) as caught:
            TableService(store, HOST).handle("t", {"type": "roll", "id": "r", "formula": "1d6"}, GM)
        assert caught.value.details == {"reason": "damaged", "table": "t", "key": info}
        assert f"{field!r} holds no number" in str(caught.value)
        assert store.client.hget(info, field) == value  # nothing written
    finally:
        store.close()
