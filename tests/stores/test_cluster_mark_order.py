"""A process's lease protocol mark (rollbridge.server.cluster_versions) is back in
Redis before its claim of its settings is: another process that finds the claim
finds the mark with it, and says no live process of this release "runs an older
rollbridge". Redis restarted without its data (here ``FLUSHALL``) took both away:
each process claimed its settings again first and set its mark a round trip later,
and a process reading the claims between the two named it older (a false WARNING,
said once; "restart it with this release")."""

from __future__ import annotations

import threading
import time
from typing import Any

import redis as redis_py

from tests.stores.cluster_harness import Process


def _commands(url: str, stop: threading.Event, into: list[str]) -> None:
    """Every command Redis runs (``MONITOR``), as its text, until ``stop``."""
    client = redis_py.Redis.from_url(url)
    with client.monitor() as monitor:
        for said in monitor.listen():
            into.append(said["command"])
            if stop.is_set():
                return


def test_after_redis_lost_its_data_the_mark_comes_back_before_the_claim(redis_factory: Any):
    redis = redis_factory()
    process = Process(redis.url)
    admin = redis_py.Redis.from_url(redis.url)
    seen: list[str] = []
    stop = threading.Event()
    watcher = threading.Thread(target=_commands, args=(redis.url, stop, seen), daemon=True)
    try:
        deadline = time.monotonic() + 30
        while not admin.keys("rb:node:*:lease_protocol"):  # marked at its start
            assert time.monotonic() < deadline, "no mark"
            time.sleep(0.05)
        watcher.start()
        time.sleep(0.2)  # MONITOR on
        admin.flushall()
        deadline = time.monotonic() + 30
        while not (admin.keys("rb:node:*:lease_protocol") and admin.exists("rb:processes")):
            assert time.monotonic() < deadline, "neither claimed nor marked again"
            time.sleep(0.05)
        admin.ping()  # one more command: the watcher sees stop set and ends
        stop.set()
        admin.ping()
        watcher.join(10)
    finally:
        admin.close()
        logs = process.stop()
    assert "Traceback" not in logs, logs
    after = seen[next(i for i, c in enumerate(seen) if c.upper().startswith("FLUSHALL")) :]
    marked = next(i for i, c in enumerate(after) if c.startswith("SET rb:node:"))
    claimed = next(
        i for i, c in enumerate(after) if c.startswith("EVALSHA") and " rb:processes " in c
    )
    assert marked < claimed, after[: max(marked, claimed) + 1]
