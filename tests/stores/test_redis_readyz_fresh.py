"""``/readyz`` of ``rollbridge serve --redis`` judges Redis as a new connection meets
it, and a Redis that hangs is counted out (rollbridge.server.ready_probe). A real
``redis-server`` (its password rotated with ``CONFIG SET``, its process stopped with
SIGSTOP) and a real ``serve``; no fakes.

* A password rotated while the process serves leaves the pool's connections
  authenticated: ``/readyz`` pinged over one of them, answered 200 and its read that
  worked ended the outage the clients' new connections met — an outage that could
  flip back and forth on every poll.
* A Redis that accepts and never answers: ``/readyz`` answered 503 "slow" for as long
  as it hung, ``rollbridge_store_failing`` stayed 0 and the log said nothing.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
import redis

from tests.server.storage_harness import Serve
from tests.stores.test_redis_password_rotated import with_password
from tests.stores.test_redis_readyz import ready, until_status

OLD, NEW = "readyOld-1", "readyNew-2"


def until_metric(served: Serve, name: str, value: float, timeout: float = 30) -> float:
    """``name`` read until it is ``value`` (a bound, not an assertion)."""
    deadline = time.monotonic() + timeout
    while True:
        got = served.metric(name)
        if got == value or time.monotonic() > deadline:
            return got
        time.sleep(0.1)


def test_readyz_meets_a_rotated_password_as_a_new_connection_does(
    redis_factory: Any, tmp_path: Path
) -> None:
    admin, url = with_password(redis_factory(), OLD)
    served = Serve(tmp_path / "serve.log", "--redis", url)
    try:
        assert ready(served.port) == (200, "ready\n")  # the pool's connections made
        admin.config_set("requirepass", NEW)
        with_new = redis.Redis.from_url(url)
        try:  # a new connection is refused; the pool's still answer
            with pytest.raises(redis.AuthenticationError):
                with_new.ping()
        finally:
            with_new.close()
        refused = (
            503,
            "not ready: the store failed: store_error (refused_password); "
            "the server's log says more\n",
        )
        assert until_status(served.port, 503) == refused
        assert served.metric("rollbridge_store_failing") == 1
        for _ in range(5):  # no flip: each poll meets the refusal, the outage goes on
            assert ready(served.port) == refused
            assert served.metric("rollbridge_store_failing") == 1
        said = [line["message"] for line in served.lines()]
        assert any("refuses the password" in line for line in said), said
        assert not any(line.startswith("the store works again") for line in said), said
        admin.config_set("requirepass", OLD)
        assert until_status(served.port, 200) == (200, "ready\n")
        assert served.metric("rollbridge_store_failing") == 0
    finally:
        served.stop()
        admin.close()


def test_a_redis_that_hangs_is_counted_out(redis_factory: Any, tmp_path: Path) -> None:
    server = redis_factory()
    served = Serve(tmp_path / "serve.log", "--redis", server.url)
    assert server.process is not None
    pid = server.process.pid
    try:
        assert ready(served.port) == (200, "ready\n")
        assert served.metric("rollbridge_store_failing") == 0
        os.kill(pid, signal.SIGSTOP)  # connections accepted (the kernel's), no answer
        # the pool's answer of a moment ago stands a tenth of a second (PING_FRESH_FOR)
        status, _body = until_status(served.port, 503)
        assert status == 503
        assert until_metric(served, "rollbridge_store_failing", 1) == 1
        assert ready(served.port) == (
            503,
            "not ready: the store failed: store_error (unreachable); the server's log says more\n",
        )
        said = [line["message"] for line in served.lines() if line["level"] == "ERROR"]
        assert any(line.startswith("the store fails") and "does not answer" in line
                   for line in said), said  # fmt: skip
        os.kill(pid, signal.SIGCONT)
        assert until_status(served.port, 200) == (200, "ready\n")
        assert until_metric(served, "rollbridge_store_failing", 0) == 0
    finally:
        os.kill(pid, signal.SIGCONT)
        served.stop()
