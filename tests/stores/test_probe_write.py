"""``Store.probe_write``: a write that changes nothing a table reads, refused as a
commit would be (the server tries it while changes fail, to see the store mended when
nobody sends a change: rollbridge.server.store_probe). Each store against its real
fault: a lock another program holds on SQLite, a full Redis (``noeviction``)."""

from __future__ import annotations

import sqlite3

import pytest
import redis as redis_py

from rollbridge.exceptions import StoreUnavailable
from rollbridge.stores import SQLiteStore
from rollbridge.stores.redis import RedisStore
from rollbridge.stores.sqlite import SCHEMA_VERSION


def test_sqlite_probe_is_refused_while_another_program_holds_the_lock(tmp_path):
    path = tmp_path / "t.db"
    store = SQLiteStore(path, busy_timeout=0.2)
    try:
        store.probe_write()  # the file takes writes
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(StoreUnavailable) as refused:
            store.probe_write()
        assert refused.value.details["reason"] == "locked"
        other.execute("ROLLBACK")
        store.probe_write()
        assert other.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        other.close()
    finally:
        store.close()


def test_redis_probe_is_refused_while_redis_is_full(redis_factory):
    redis = redis_factory()
    store = RedisStore(redis.url)
    admin = redis_py.Redis.from_url(redis.url)
    try:
        store.probe_write()
        admin.config_set("maxmemory", int(admin.info("memory")["used_memory"]))
        with pytest.raises(StoreUnavailable):
            store.probe_write()
        admin.config_set("maxmemory", 0)
        store.probe_write()
        assert 0 < admin.pttl("rb:probe") <= 60_000  # it expires: nothing is left for good
    finally:
        admin.close()
        store.close()
