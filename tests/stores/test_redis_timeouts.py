"""A Redis that never answers (its packets dropped, a peer half gone) fails a call
within the client's timeout instead of hanging the process: rollbridge sets the
timeouts itself (redis-py had none by default before version 8)."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from rollbridge.exceptions import StoreError
from rollbridge.stores.redis import CLIENT_TIMEOUTS, RedisStore


@pytest.fixture
def black_hole():
    """A TCP port that accepts connections and never says a word."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join()
    for peer in accepted:
        peer.close()
    listener.close()


def test_a_redis_that_never_answers_fails_within_the_timeout(black_hole):
    started = time.monotonic()
    with pytest.raises(StoreError) as refused:
        RedisStore(f"redis://127.0.0.1:{black_hole}/0?socket_timeout=0.5")
    assert "Timeout" in str(refused.value) or "timed out" in str(refused.value).lower()
    assert time.monotonic() - started < 30  # it came back at all: no hang


def test_the_clients_timeouts_are_set_and_a_url_may_change_them(black_hole):
    assert CLIENT_TIMEOUTS == {"socket_timeout": 5.0, "socket_connect_timeout": 5.0}
    import redis

    made: list[dict] = []
    real = redis.Redis.from_url

    def spy(url, **kwargs):
        client = real(url, **kwargs)
        made.append(client.connection_pool.connection_kwargs)
        raise StoreError("stop here")  # no connection needed for this check

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(redis.Redis, "from_url", spy)
        for url in (f"redis://127.0.0.1:{black_hole}/0",
                    f"redis://127.0.0.1:{black_hole}/0?socket_timeout=2"):  # fmt: skip
            with pytest.raises(StoreError):
                RedisStore(url)
    assert made[0]["socket_timeout"] == 5.0 and made[0]["socket_connect_timeout"] == 5.0
    assert made[1]["socket_timeout"] == 2.0
