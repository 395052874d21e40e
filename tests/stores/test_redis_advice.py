"""What a background loop's line says to check, for errors redis-py raised meeting a
real redis-server (rollbridge.server.redis_advice). Each was said ``does not answer:
check that it runs`` (a Redis that ran, and answered) or ``refused a command: …
the version it runs`` (any version does it):

* every connection of this process's pool in use (a burst of forwards against a
  slow Redis; the cluster's pool holds 64, each waiting the client's 5 s for one);
* a TLS certificate the process does not accept (expired, renewed by another CA);
* ``NOREPLICAS`` (``min-replicas-to-write``), also as a pipeline's answer, whose
  ``Command # 1 (…) of pipeline`` hid what Redis said from the checks (``MISCONF``
  and ``NOPERM`` alike);
* ``BUSY`` (a script past ``busy-reply-threshold``);
* something that answers, not in Redis's protocol (``InvalidResponse``).

And no line carries the URL's password.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import redis
import redis.asyncio as aioredis

from rollbridge.server.redis_advice import advice
from tests.stores.test_redis_password_rotated import with_password
from tests.stores.test_redis_url_tls import _start_tls_redis, other_ca

WHERE = "redis h:1/0"
#: What the line said for a Redis gone: never right for these.
GONE = "does not answer: check that it runs"


def said(error: BaseException) -> str:
    """The advice for ``error``, which never says Redis is gone."""
    line = advice(error, WHERE)
    assert GONE not in line and "unexpected" not in line, line
    assert line.endswith(f"({type(error).__name__}: {error})") or "pipeline" in str(error), line
    return line


def test_a_pool_with_no_connection_free_names_latency_not_a_redis_gone(redis_server: Any):
    async def exhausted() -> BaseException:
        # as the cluster's pool waits for a connection (BlockingConnectionPool)
        pool = aioredis.BlockingConnectionPool.from_url(
            redis_server.url, max_connections=1, timeout=0.2
        )
        client = aioredis.Redis.from_pool(pool)
        held = await pool.get_connection()
        try:
            with pytest.raises(redis.ConnectionError) as caught:
                await client.ping()
        finally:
            await pool.release(held)
            await client.aclose()
        return caught.value

    line = said(asyncio.run(exhausted()))
    assert "all its connections to it were in use" in line and "latency" in line, line
    client = redis.Redis.from_url(redis_server.url, max_connections=1)  # the store's pool
    held = client.connection_pool.get_connection()
    try:
        with pytest.raises(redis.exceptions.MaxConnectionsError) as caught:
            client.ping()
    finally:
        client.connection_pool.release(held)
        client.close()
    assert "max_connections" in said(caught.value)


def test_a_certificate_not_accepted_is_named_so(tmp_path: Path):
    other = other_ca(tmp_path)  # a CA that did not sign the Redis's certificate
    folder = tmp_path / "redis"
    folder.mkdir()
    with contextlib.contextmanager(_start_tls_redis)(folder, "--tls-auth-clients", "no") as port:
        client = redis.Redis(port=port, ssl=True, ssl_ca_certs=str(other), socket_timeout=5)
        with pytest.raises(redis.ConnectionError) as caught:
            client.ping()
        client.close()
    line = said(caught.value)
    assert "answers in TLS but the handshake failed: check its certificate" in line, line


def test_noreplicas_said_also_as_a_pipeline_answer(redis_factory: Any):
    server = redis_factory()
    client = redis.Redis(port=server.port)
    client.config_set("min-replicas-to-write", 1)
    try:
        with pytest.raises(redis.ResponseError) as alone:
            client.set("k", "v")
        pipe = client.pipeline(transaction=False)
        pipe.set("k", "secret value")
        with pytest.raises(redis.ResponseError) as piped:
            pipe.execute()
    finally:
        client.config_set("min-replicas-to-write", 0)
        client.close()
    assert str(piped.value).startswith("Command # 1 (SET k secret value) of pipeline")
    for error in (alone.value, piped.value):
        line = said(error)
        assert "min-replicas-to-write" in line, line
    assert "secret value" not in advice(piped.value, WHERE)  # the command's words left out


def test_a_busy_script_is_named_so(redis_factory: Any):
    server = redis_factory()
    admin = redis.Redis(port=server.port)
    admin.config_set("busy-reply-threshold", 50)  # ms
    looping = redis.Redis(port=server.port)
    ended: list[BaseException] = []

    def run_forever() -> None:
        try:
            looping.eval("while true do end", 0)
        except redis.RedisError as exc:  # killed
            ended.append(exc)

    thread = threading.Thread(target=run_forever)
    thread.start()
    busy: BaseException | None = None
    deadline = time.monotonic() + 30  # a bound: the script runs until killed
    while busy is None and time.monotonic() < deadline:
        try:
            admin.ping()
        except redis.ResponseError as exc:
            busy = exc
    admin.script_kill()
    thread.join(timeout=30)
    admin.close()
    looping.close()
    assert busy is not None and ended
    assert "running a script past its busy-reply-threshold" in said(busy)


def test_a_port_that_answers_no_redis_is_named_so():
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def answer_as_http() -> None:
        connection, _ = listener.accept()
        with connection:
            connection.recv(1024)
            connection.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")

    thread = threading.Thread(target=answer_as_http)
    thread.start()
    client = redis.Redis(port=port, socket_timeout=5)
    try:
        with pytest.raises(redis.exceptions.InvalidResponse) as caught:
            client.ping()
    finally:
        client.close()
        thread.join(timeout=10)
        listener.close()
    assert "not as Redis does" in said(caught.value)


def test_a_refused_password_leaves_the_password_out(redis_factory: Any):
    admin, url = with_password(redis_factory(), "right-one")
    admin.close()
    client = redis.Redis.from_url(url.replace("right-one", "wrong-Pass-9"))
    with pytest.raises(redis.AuthenticationError) as caught:
        client.ping()
    client.close()
    line = advice(caught.value, WHERE)
    assert "refuses the password" in line and "wrong-Pass-9" not in line, line
