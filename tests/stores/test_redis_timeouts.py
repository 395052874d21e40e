"""A Redis that never answers (its packets dropped, a peer half gone) fails a call
within the client's timeout instead of hanging the process: rollbridge sets the
timeouts itself (redis-py had none by default before version 8)."""

from __future__ import annotations

import socket
import threading

import pytest
import redis

from rollbridge.exceptions import StoreError
from rollbridge.stores.redis import CLIENT_TIMEOUTS, RedisStore


@pytest.fixture
def black_hole():
    """A TCP port that accepts connections and never says a word: (its port, the
    connections it accepted, an event set when one is)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    accepted: list[socket.socket] = []
    arrived = threading.Event()  # set at each connection accepted
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                continue
            arrived.set()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield listener.getsockname()[1], accepted, arrived
    stop.set()
    thread.join()
    for peer in accepted:
        peer.close()
    listener.close()


def _hung_up(peer: socket.socket) -> bytes:
    """What ``peer``'s client sent before it closed the connection (the end of stream
    read; a guard of 30 s against a client that never closes it, nothing timed)."""
    peer.settimeout(30)
    said = b""
    while chunk := peer.recv(4096):
        said += chunk
    return said


def _commands(said: bytes) -> list[list[bytes]]:
    """The RESP commands (arrays of bulk strings) in ``said``, in order; a command cut
    short at the end is left out."""
    commands, at = [], 0
    try:
        while said.startswith(b"*", at):
            end = said.index(b"\r\n", at)
            count, at = int(said[at + 1 : end]), end + 2
            words = []
            for _ in range(count):
                end = said.index(b"\r\n", at)
                size = int(said[at + 1 : end])
                words.append(said[end + 2 : end + 2 + size])
                at = end + 4 + size
            if at > len(said):
                break
            commands.append(words)
    except ValueError:  # cut short
        pass
    return commands


#: The commands redis-py may open a RESP2 connection with (no HELLO: RESP2 needs
#: none) before the store's first ``PING``: its library's name and version (redis-py
#: 5 and later), a password, a database.
RESP2_HANDSHAKE = {b"CLIENT", b"AUTH", b"SELECT", b"PING"}


@pytest.mark.parametrize("protocol", ["", "&protocol=3", "&protocol=2"])
def test_a_redis_that_never_answers_fails_within_the_timeout(black_hole, protocol):
    """The call fails by the client's own socket timeout (redis-py's TimeoutError is
    the StoreError's cause) and the client hangs up on the silent peer after its
    handshake's first command: it came back by itself. That command is ``HELLO 3``
    for RESP3 (redis-py's default, or ``protocol=3`` in the URL); a RESP2 connection
    (``protocol=2``) says no HELLO, but its library's name (``CLIENT SETINFO``) —
    the test once read HELLO there whatever the protocol. Before, a wall-clock bound
    (30 s) stood for this; the call runs on a thread joined with a guard against a
    hang, nothing timed."""
    port, accepted, arrived = black_hole
    refused: list[BaseException] = []

    def open_store() -> None:
        try:
            RedisStore(f"redis://127.0.0.1:{port}/0?socket_timeout=0.5{protocol}")
        except BaseException as exc:  # examined below
            refused.append(exc)

    thread = threading.Thread(target=open_store, daemon=True)
    thread.start()
    thread.join(60)  # a guard against a hang, not a measure
    assert not thread.is_alive(), "a silent Redis hung the store"
    (error,) = refused
    assert isinstance(error, StoreError), error
    assert isinstance(error.__cause__, redis.exceptions.TimeoutError), repr(error.__cause__)
    assert "Timeout" in str(error) or "timed out" in str(error).lower()
    assert arrived.wait(30), "nothing connected"  # (accepted on the fixture's thread)
    for peer in accepted:
        said = _hung_up(peer)
        commands = _commands(said)
        assert commands, f"the client said no whole command before hanging up: {said!r}"
        if protocol == "&protocol=2":
            names = [command[0].upper() for command in commands]
            assert b"HELLO" not in names, f"a RESP2 handshake said HELLO: {said!r}"
            assert names[0] in RESP2_HANDSHAKE, f"not a RESP2 handshake's command: {said!r}"
        else:
            assert commands[0] == [b"HELLO", b"3"], f"not the client's RESP3 hello: {said!r}"


def test_the_clients_timeouts_are_set_and_a_url_may_change_them(black_hole):
    assert CLIENT_TIMEOUTS == {"socket_timeout": 5.0, "socket_connect_timeout": 5.0}
    port, _, _ = black_hole

    made: list[dict] = []
    real = redis.Redis.from_url

    def spy(url, **kwargs):
        client = real(url, **kwargs)
        made.append(client.connection_pool.connection_kwargs)
        raise StoreError("stop here")  # no connection needed for this check

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(redis.Redis, "from_url", spy)
        for url in (f"redis://127.0.0.1:{port}/0",
                    f"redis://127.0.0.1:{port}/0?socket_timeout=2"):  # fmt: skip
            with pytest.raises(StoreError):
                RedisStore(url)
    assert made[0]["socket_timeout"] == 5.0 and made[0]["socket_connect_timeout"] == 5.0
    assert made[1]["socket_timeout"] == 2.0
