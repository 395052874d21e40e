"""The note of a lease let go unused, ``rb:{T}:let_go`` (docs/redis.md, "Key
layout"): written by the owner's ``RELEASE``, read and deleted by the next ``TAKE``
(rollbridge.server.cluster), so the process that takes the table counts its change
``loaded``, not ``taken_over``. The scripts the processes run, on a real
redis-server.

* Two takes at once: one takes the table and the note with it, the other neither.
* A deleted table left its note behind for a day — against docs/redis.md's "a
  deleted table leaves no key" (a ``rb:{T}:…`` key of a table not in ``rb:tables``
  is worth reporting, it says); ``DELETE_TABLE`` deletes it now.
"""

from __future__ import annotations

from typing import Any

from rollbridge.server.cluster import LET_GO_KEEP_MS, RELEASE, TAKE
from rollbridge.stores.redis import RedisStore
from tests.stores.test_store_contract import make_info

LEASE_MS = 5_000


def let_go(store: RedisStore, table_id: str, node: str) -> None:
    """``node`` takes the table's lease and lets it go unused, as a process does."""
    keys = store.keys.table(table_id)
    take = store.client.register_script(TAKE)
    assert take(keys=[keys.owner, keys.info, keys.let_go], args=[node, LEASE_MS, ""]) == 1
    release = store.client.register_script(RELEASE)
    assert release(keys=[keys.owner, keys.let_go], args=[node, LET_GO_KEEP_MS]) == 1


def test_two_takes_at_once_one_takes_the_table_and_its_note(redis_server: Any, redis_prefix: str):
    store = RedisStore(redis_server.url, prefix=redis_prefix)
    try:
        store.create_table(make_info("t"), [])
        let_go(store, "t", "node-a")
        keys = store.keys.table("t")
        assert store.client.get(keys.let_go) == b"node-a"
        assert 0 < store.client.pttl(keys.let_go) <= LET_GO_KEEP_MS  # a day at most
        take = store.client.register_script(TAKE)
        both = [keys.owner, keys.info, keys.let_go]
        assert take(keys=both, args=["node-b", LEASE_MS, "node-a"]) == 2  # let go: loaded
        assert take(keys=both, args=["node-c", LEASE_MS, "node-a"]) == 0  # held by B
        assert store.client.get(keys.owner) == b"node-b"
        assert store.client.exists(keys.let_go) == 0  # read once, by the one that took
    finally:
        store.close()


def test_a_deleted_table_leaves_no_note_of_a_lease_let_go(redis_server: Any, redis_prefix: str):
    store = RedisStore(redis_server.url, prefix=redis_prefix)
    try:
        for table_id in ("t", "kept"):
            store.create_table(make_info(table_id), [])
            let_go(store, table_id, "node-a")
        store.delete_table("t")
        left = sorted(
            key.decode() for key in store.client.scan_iter(match=f"{redis_prefix}{{t}}:*")
        )
        assert left == []
        assert store.client.exists(store.keys.table("kept").let_go) == 1  # another table's stays
    finally:
        store.close()
