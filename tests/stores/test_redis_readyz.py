"""``/readyz`` of a ``rollbridge serve --redis`` whose Redis fails: its 503 said
only ``the store failed: StoreUnavailable`` — the same words for Redis gone, a
password refused and Redis full, so an operator (or a balancer's log) could not tell
them apart without the server's log. It names the error's stable code and its cause
now, and still nothing an anonymous caller should read: no password, no URL, no
address of Redis. A real ``redis-server`` and a real ``serve``; no fakes."""

from __future__ import annotations

import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import redis

from rollbridge.exceptions import StoreUnavailable
from rollbridge.stores.redis import RedisStore
from tests.server.storage_harness import Serve

SECRET = "readyzPW-7"


def ready(port: int, language: str = "en") -> tuple[int, str]:
    """``GET /readyz``: its status and body."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/readyz", headers={"Accept-Language": language}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode()


def until_status(port: int, status: int, timeout: float = 20) -> tuple[int, str]:
    """``/readyz`` asked until it answers ``status`` (a bound, not an assertion)."""
    deadline = time.monotonic() + timeout
    while True:
        got = ready(port)
        if got[0] == status or time.monotonic() > deadline:
            return got
        time.sleep(0.1)


def test_readyz_names_the_code_and_the_cause_and_no_secret(redis_factory: Any, tmp_path: Path):
    server = redis_factory()
    admin = redis.Redis(port=server.port)
    admin.config_set("requirepass", SECRET)
    admin.close()
    url = f"redis://:{SECRET}@127.0.0.1:{server.port}/0"
    served = Serve(tmp_path / "serve.log", "--redis", url)
    try:
        assert ready(served.port) == (200, "ready\n")
        server.kill()
        status, body = until_status(served.port, 503)
        assert (status, body) == (
            503,
            "not ready: the store failed: store_error (unreachable); the server's log says more\n",
        )
        german = ready(served.port, "de")[1]
        assert "store_error (unreachable)" in german and "store failed" not in german
        for said in (body, german):
            assert SECRET not in said and "redis://" not in said and str(server.port) not in said
        server.start()
        assert until_status(served.port, 200) == (200, "ready\n")
    finally:
        served.stop()


def test_a_redis_at_its_maxclients_is_named_so_not_unreachable(redis_factory: Any, tmp_path: Path):
    """A Redis with as many clients as its ``maxclients`` allows refuses each new
    connection ("max number of clients reached"): it answers, yet the store said
    "does not answer … start it, or check the network", and ``/readyz`` the cause
    ``unreachable`` — an operator serving many groups (many processes, each with its
    pool) looked for a Redis that ran. It is ``max_clients`` now, in the log with
    what to raise."""
    server = redis_factory()
    served = Serve(tmp_path / "serve.log", "--redis", server.url)
    admin = redis.Redis(port=server.port)
    try:
        assert ready(served.port) == (200, "ready\n")
        admin.config_set("maxclients", 1)  # this one connection: no new one is taken
        admin.client_kill_filter(_type="normal", skipme=True)  # the server's connections go
        status, body = until_status(served.port, 503)
        assert (status, body) == (
            503,
            "not ready: the store failed: store_error (max_clients); the server's log says more\n",
        )
        admin.config_set("maxclients", 10_000)
        assert until_status(served.port, 200) == (200, "ready\n")
    finally:
        admin.close()
        served.stop()


def test_the_store_names_maxclients_and_what_to_raise(redis_factory: Any):
    server = redis_factory()
    store = RedisStore(server.url)
    admin = redis.Redis(port=server.port)
    try:
        admin.config_set("maxclients", 1)
        admin.client_kill_filter(_type="normal", skipme=True)
        with pytest.raises(StoreUnavailable) as refused:
            store.ping()
        assert refused.value.details == {"reason": "max_clients"}
        said = refused.value.render("en")
        assert "has as many clients as its maxclients allows" in said
        assert "raise maxclients" in said and "does not answer" not in said
    finally:
        admin.config_set("maxclients", 10_000)
        admin.close()
        store.close()
