"""A watched Redis (``serve --redis``, :class:`DurabilityWatch`) that stops answering
(a network partition, a stalled disk, SIGSTOP): a commit fails after one socket
timeout, as an unwatched one does, not after three more for the settings."""

from __future__ import annotations

import os
import signal
import time
from typing import Any

from rollbridge.exceptions import StoreUnavailable
from rollbridge.stores.redis import CLIENT_TIMEOUTS, RedisStore
from tests.stores.test_store_contract import make_commit, make_info


def test_a_watched_redis_that_hangs_fails_a_commit_in_one_timeout(redis_factory: Any) -> None:
    server = redis_factory()
    store = RedisStore(server.url)
    try:
        store.create_table(make_info("t"), [])
        store.watch_durability()
        commit = make_commit(store, "t")
        os.kill(server.process.pid, signal.SIGSTOP)
        started = time.monotonic()
        try:
            store.commit("t", commit)
            raise AssertionError("a hung Redis acknowledged a commit")
        except StoreUnavailable as exc:
            assert exc.details["reason"] == "unreachable"
        finally:
            os.kill(server.process.pid, signal.SIGCONT)
        waited = time.monotonic() - started
        assert waited < 1.6 * CLIENT_TIMEOUTS["socket_timeout"], waited
        store.commit("t", commit)  # answering again: written
    finally:
        store.close()
