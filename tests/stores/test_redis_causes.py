"""One description of redis-py's errors (rollbridge.stores.redis_causes): for each
cause met on a real redis-server (or a real socket where Redis is not the point),
the store's typed error (``RedisStore.error_of``, as a client gets it) and a
background loop's log line (``redis_advice.advice``) name the same cause and the
same thing to check, and the store's ``details["reason"]`` code is the one it was.

They were two tables that drifted apart: a Redis hanging, one refusing connections
and a host not reached were one "does not answer … start it" to a client; a TLS
certificate refused was "does not answer" in the store and a certificate to check
in the log; a script missing, a ``NOREPLICAS`` were redis-py's words alone to a
client.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from rollbridge.exceptions import StoreUnavailable
from rollbridge.server.redis_advice import advice
from rollbridge.stores.redis import RedisStore
from rollbridge.stores.redis_causes import cause_of
from rollbridge.stores.redis_url import OPTION_OR_ENV
from tests.stores.test_redis_password_rotated import with_password
from tests.stores.test_redis_url_tls import _start_tls_redis, other_ca

QUICK = {"socket_timeout": 0.5, "socket_connect_timeout": 0.5}


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def _listener(answer: bytes | None) -> Iterator[int]:
    """A real TCP port that takes connections and answers ``answer`` to anything
    (None: never answers)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    held: list[socket.socket] = []

    def serve() -> None:
        with contextlib.suppress(OSError):
            while True:
                conn, _ = sock.accept()
                held.append(conn)
                if answer is not None:
                    conn.recv(4096)
                    conn.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield sock.getsockname()[1]
    finally:
        sock.close()
        for conn in held:
            conn.close()


def _raised(call: Callable[[], Any]) -> BaseException:
    with pytest.raises(Exception) as caught:
        call()
    return caught.value


def refused(server: Any, tmp_path: Path) -> BaseException:
    return _raised(redis.Redis(port=_closed_port(), **QUICK).ping)


def unreachable(server: Any, tmp_path: Path) -> BaseException:
    return _raised(redis.Redis(host="no-such-host.invalid", **QUICK).ping)


def timeout(server: Any, tmp_path: Path) -> BaseException:
    client = redis.Redis(port=server.port, **QUICK)
    client.ping()  # connected; then Redis stops answering (SIGSTOP: a hung process)
    os.kill(server.process.pid, signal.SIGSTOP)
    try:
        return _raised(client.ping)
    finally:
        os.kill(server.process.pid, signal.SIGCONT)


def refused_password(server: Any, tmp_path: Path) -> BaseException:
    admin, _url = with_password(server, "right")
    try:
        return _raised(redis.Redis(port=server.port, password="wrong", **QUICK).ping)
    finally:
        admin.config_set("requirepass", "")


def tls(server: Any, tmp_path: Path) -> BaseException:
    other = other_ca(tmp_path)  # a CA that did not sign the Redis's certificate
    folder = tmp_path / "tls"
    folder.mkdir()
    with contextlib.contextmanager(_start_tls_redis)(folder, "--tls-auth-clients", "no") as port:
        client = redis.Redis(port=port, ssl=True, ssl_ca_certs=str(other), socket_timeout=5)
        return _raised(client.ping)


def read_only(server: Any, tmp_path: Path) -> BaseException:
    client = redis.Redis(port=server.port, **QUICK)
    client.execute_command("REPLICAOF", "127.0.0.1", str(_closed_port()))
    try:
        return _raised(lambda: client.set("k", "v"))
    finally:
        client.execute_command("REPLICAOF", "NO", "ONE")


def out_of_memory(server: Any, tmp_path: Path) -> BaseException:
    client = redis.Redis(port=server.port, **QUICK)
    client.config_set("maxmemory-policy", "noeviction")
    client.config_set("maxmemory", 1)
    try:
        return _raised(lambda: client.set("k", "v"))
    finally:
        client.config_set("maxmemory", 0)


def script_missing(server: Any, tmp_path: Path) -> BaseException:
    client = redis.Redis(port=server.port, **QUICK)
    return _raised(lambda: client.evalsha("0" * 40, 0))


def not_redis(server: Any, tmp_path: Path) -> BaseException:
    with _listener(b"HTTP/1.1 400 Bad Request\r\n\r\n") as port:
        return _raised(redis.Redis(port=port, **QUICK).ping)


#: Each cause: how it is met, its name, and the store's reason code (None: a
#: StoreError that is no StoreUnavailable), as before.
CASES = {
    "refused": (refused, "unreachable"),
    "unreachable": (unreachable, "unreachable"),
    "timeout": (timeout, "unreachable"),
    "refused_password": (refused_password, "refused_password"),
    "tls": (tls, "unreachable"),
    "read_only": (read_only, "read_only"),
    "out_of_memory": (out_of_memory, "out_of_memory"),
    "script_missing": (script_missing, None),
    "not_redis": (not_redis, None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_store_and_the_loops_name_the_same_cause(redis_factory: Any, tmp_path: Path, name):
    server = redis_factory()
    meet, reason = CASES[name]
    error = meet(server, tmp_path)
    found = cause_of(error)
    assert found.name == name, (found, error)
    store = RedisStore(server.url)
    try:
        typed = store.error_of(error)
    finally:
        store.close()
    line = advice(error, store.where)
    check = found.check_in(OPTION_OR_ENV().render())
    assert line.startswith(f"{store.where} {found.did}: {check} ("), line
    assert str(typed).startswith(f"{store.where} {found.did}"), typed
    assert check in str(typed), typed
    assert isinstance(typed, StoreUnavailable) == (reason is not None), typed
    assert typed.code == "store_error"
    if reason is not None:
        assert typed.details == {"reason": reason}, typed.details
    assert f"({type(error).__name__}: " in line  # redis-py's words stay as the detail


def test_every_cause_is_told_apart():
    """The causes a test above meets are each their own (an operator checks a
    different thing for each)."""
    from rollbridge.stores import redis_causes

    causes = [v for v in vars(redis_causes).values() if isinstance(v, redis_causes.Cause)]
    assert len({c.name for c in causes}) == len(causes)
    assert len({(c.did, c.check) for c in causes}) == len(causes)
    assert set(CASES) <= {c.name for c in causes}
