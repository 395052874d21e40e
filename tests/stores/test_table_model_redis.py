"""The model-based test of a whole table (tests/engine/test_table_model.py) on a
real redis-server instead of a SQLite file: the same promises — loaded again equals
live, ``state`` at every retained seq, refusals change nothing, a request sent again
applies once, undo and redo restore — held by the Redis store's scripts (its actor
order, snapshots, pruning and reply window). Each example gets keys of its own."""

from __future__ import annotations

import uuid

import pytest

from rollbridge.stores.base import Store
from rollbridge.stores.redis import RedisStore
from tests.engine.test_table_model import HOST, RETAIN, TableModel, run_model


@pytest.mark.parametrize("ruleset_id", sorted(HOST.rulesets))
def test_a_table_on_redis_keeps_its_promises(ruleset_id: str, redis_factory) -> None:
    url = redis_factory().url

    class OnRedis(TableModel):
        def __init__(self) -> None:
            self.prefix = f"model-{uuid.uuid4().hex[:12]}:"
            super().__init__()

        def open_store(self) -> Store:
            return RedisStore(url, retain=RETAIN, prefix=self.prefix, writer="model")

    OnRedis.ruleset_id = ruleset_id
    run_model(OnRedis)
