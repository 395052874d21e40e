"""The WARNINGs of ``serve --redis``'s background loops say what rollbridge was doing
and what to check, redis-py's words kept as the detail. They were redis-py's words
alone — ``reading the inbox: Error 111 connecting to 127.0.0.1:PORT. Connection
refused.`` — which name what the library met, not what to look at. A real
``redis-server`` (stopped; its password changed) and a real ``serve``; the
:func:`~rollbridge.server.redis_advice.advice` table on redis-py's own exception
classes."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import redis

from rollbridge.server.redis_advice import advice
from tests.server.storage_harness import Serve

#: What every WARNING of a loop that met a Redis stopped says to check.
CHECK_IT_RUNS = "does not answer: check that it runs"


def warnings_of(served: Serve, start: str, timeout: float = 30) -> list[str]:
    """The WARNINGs logged so far, read until one starts with ``start`` (a bound)."""
    deadline = time.monotonic() + timeout
    while True:
        said = [line["message"] for line in served.lines() if line["level"] == "WARNING"]
        if any(line.startswith(start) for line in said) or time.monotonic() > deadline:
            return said
        time.sleep(0.1)


def test_a_loop_meeting_redis_stopped_says_what_it_did_and_what_to_check(
    redis_factory: Any, tmp_path: Path
) -> None:
    server = redis_factory()
    served = Serve(tmp_path / "serve.log", "--redis", server.url)
    try:
        server.stop()
        said = warnings_of(served, "reading this process's inbox failed")
        inbox = [line for line in said if line.startswith("reading this process's inbox")]
        assert inbox, said
        where = f"redis 127.0.0.1:{server.port}/0"
        assert inbox[0].startswith(f"reading this process's inbox failed: {where} {CHECK_IT_RUNS}")
        # redis-py's words after: a connection refused, or (the inbox's blocking pop
        # under way as Redis stopped) "Connection closed by server."
        assert "(ConnectionError: " in inbox[0], inbox[0]
        for line in said:  # no loop says redis-py's words alone
            if "Error 111" in line:
                assert CHECK_IT_RUNS in line, line
    finally:
        served.stop()


@pytest.mark.parametrize(
    ("error", "check"),
    [
        (redis.ConnectionError("Error 111 connecting to h:1. Connection refused."),
         "does not answer: check that it runs"),
        (redis.TimeoutError("Timeout reading from h:1"),
         "does not answer in time: it took the connection but sent no reply"),
        (redis.AuthenticationError("invalid username-password pair or user is disabled."),
         "refuses the password (or user) this process gives: check its requirepass"),
        (redis.ConnectionError("max number of clients reached"), "raise maxclients"),
        (redis.exceptions.OutOfMemoryError("OOM command not allowed"), "raise maxmemory"),
        (redis.exceptions.ReadOnlyError("You can't write against a read only replica."),
         "is a read-only replica: point --redis (or $ROLLBRIDGE_REDIS) at its primary"),
        (redis.exceptions.NoPermissionError("NOPERM this user has no permissions"),
         "check the user's ACL rules"),
        (redis.ResponseError("MISCONF Redis is configured to save RDB snapshots"),
         "cannot save to its disk"),
        (redis.exceptions.BusyLoadingError("Redis is loading the dataset in memory"),
         "is loading its data"),
        (redis.ResponseError("ERR unknown command 'FOO'"), "refused a command"),
    ],
)  # fmt: skip
def test_each_redis_error_says_what_to_check_and_keeps_redis_py_words(error, check):
    said = advice(error, "redis h:1")
    assert said.startswith("redis h:1 ") and check in said, said
    assert said.endswith(f"({type(error).__name__}: {error})"), said
