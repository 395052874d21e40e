"""An entry the Redis store cannot unpack is a StoreError with the stable ``reason``
``damaged`` naming the table and the Redis key (rollbridge.stores.redis_damaged,
docs/redis.md "Damaged entries"), as the SQLite store's damaged rows are
(tests/stores/test_sqlite_corrupt_rows.py): every read of the store, a served
client (``store_error``, the log naming the table and the key, no traceback) and
the CLI's ``table export`` (one line). Before, ``Event.unpacked`` and the like
raised their own errors (msgpack's ``ExtraData``, a ``KeyError``) out of the store.
On a real redis-server."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from websockets.asyncio.client import connect

from rollbridge.cli import main
from rollbridge.exceptions import StoreError
from rollbridge.offline import TableService
from rollbridge.server.cluster import ClusterServer
from rollbridge.stores.redis import RedisStore
from tests.dice.test_verifiable_dice import GM, HOST
from tests.server.conftest import TEST_LIMITS, Peer

#: Bytes no packed event is (msgpack: a reserved byte).
GARBAGE = b"\xc1\xc1"


@pytest.fixture
def redis_url(redis_factory: Any) -> str:
    """A redis-server of the test's own (the CLI uses the default key prefix)."""
    return redis_factory().url


@pytest.fixture
def damaged(redis_url: str) -> Iterator[tuple[RedisStore, dict]]:
    """A table ``t`` of five rolls (and a reply to each) whose logged event of seq 5
    is garbage; the store and the table's tokens."""
    store = RedisStore(redis_url, writer="test")
    service = TableService(store, HOST)
    _, tokens = service.create_table("t", "bandits", table_id="t")
    for n in range(5):
        service.handle("t", {"type": "roll", "id": f"r{n}", "formula": "1d6"}, GM)
    log = store.keys.table("t").log
    store.client.zremrangebyscore(log, 5, 5)
    store.client.zadd(log, {GARBAGE: 5})
    yield store, tokens
    store.close()


def _said(caught: pytest.ExceptionInfo[StoreError], key: str) -> None:
    error = caught.value
    assert error.code == "store_error"
    assert error.details["reason"] == "damaged"
    assert error.details["table"] == "t" and error.details["key"] == key
    assert "table t" in str(error) and key in str(error)


def test_every_read_of_a_damaged_event_is_a_store_error_naming_table_and_key(damaged):
    store, _ = damaged
    log = store.keys.table("t").log
    for read in (
        lambda: store.events_after("t", 2),
        lambda: store.event("t", 5),
        lambda: store.follow("t", 2),
        lambda: store.follow_log("t", 2),
    ):
        with pytest.raises(StoreError) as caught:
            read()
        _said(caught, log)
    assert store.event("t", 4) is not None  # the other entries read as before
    assert [e.seq for e in store.events_after("t", 1, 4)] == [2, 3, 4]


def test_a_damaged_state_is_a_store_error_naming_table_and_key(damaged):
    store, _ = damaged
    info = store.keys.table("t").info
    store.client.hset(info, "meta", GARBAGE)
    for read in (lambda: store.load("t"), lambda: store.follow("t", 4)):
        with pytest.raises(StoreError) as caught:
            read()
        _said(caught, info)
    store.client.hset(info, "info", GARBAGE)
    with pytest.raises(StoreError) as caught:
        store.tables()
    _said(caught, info)


def test_a_damaged_reply_is_a_store_error_naming_table_key_and_request(damaged):
    store, _ = damaged
    replies = store.keys.table("t").replies
    (key,) = [k for k in store.reply_keys("t") if k.endswith("/r1")]
    store.client.hset(replies, key, b"\x00" + GARBAGE)
    with pytest.raises(StoreError) as caught:
        store.reply("t", key)
    _said(caught, replies)
    assert caught.value.details["request"] == key


def test_a_damaged_undo_is_a_store_error(damaged):
    store, _ = damaged
    undos = store.keys.table("t").undos
    store.client.zadd(undos, {GARBAGE: 4})
    with pytest.raises(StoreError) as caught:
        store.undos_after("t", 0)
    _said(caught, undos)


async def test_a_served_client_sees_store_error_and_the_log_names_table_and_key(
    damaged, redis_url: str, caplog: pytest.LogCaptureFixture
):
    """A resume from seq 2 backfills the events after it from the log: the damaged
    one is refused ``store_error`` (no traceback in the log, which names the key); a
    ``state`` of the table (read from Redis at the hello) answers as before. A hello
    to a table whose stored state is damaged is refused ``store_error`` too."""
    store, tokens = damaged
    _, other = TableService(store, HOST).create_table("u", "bandits", table_id="u")
    store.client.hset(store.keys.table("u").info, "meta", GARBAGE)
    server = ClusterServer(
        RedisStore(redis_url, writer="node-a"),
        HOST, port=0, redis_url=redis_url, limits=TEST_LIMITS,
    )  # fmt: skip
    caplog.set_level(logging.INFO)
    await server.start()
    try:
        fresh = Peer(await connect(server.url))
        welcome = await fresh.request({"type": "hello", "table": "t", "token": tokens["gm"]})
        assert welcome["type"] == "welcome", welcome
        state = await fresh.request({"type": "state"})
        assert state["type"] == "result", state
        await fresh.close()
        resumed = Peer(await connect(server.url))
        hello = {"type": "hello", "table": "t", "token": tokens["gm"],
                 "resume": {"epoch": welcome["epoch"], "seq": 2}}  # fmt: skip
        answer = await resumed.request(hello)
        assert answer["type"] == "error" and answer["code"] == "store_error", answer
        said = json.dumps(answer)
        assert "Reserved" not in said and "rb:{" not in said  # no details of the store's
        await resumed.close()
        broken = Peer(await connect(server.url))
        answer = await broken.request({"type": "hello", "table": "u", "token": other["gm"]})
        assert answer["type"] == "error" and answer["code"] == "store_error", answer
        await broken.close()
    finally:
        await server.stop()
        server.store.close()
    logged = caplog.text
    assert "Traceback" not in logged, logged
    assert store.keys.table("t").log in logged, logged
    assert store.keys.table("u").info in logged, logged


@pytest.mark.parametrize(
    "command", [["export", "--as", "gm", "--format", "jsonl"], ["stats"]], ids=["export", "stats"]
)
def test_the_cli_says_one_line_naming_the_key(damaged, redis_url, capsys, monkeypatch, command):
    store, _ = damaged
    monkeypatch.setenv("LANGUAGE", "en")
    status = main(["table", command[0], "t", "--redis", redis_url, *command[1:]])
    _out, err = capsys.readouterr()
    assert status == 1 and err.count("\n") == 1, err
    assert err.startswith("rollbridge: error: store_error: table t: "), err
    assert store.keys.table("t").log in err, err


def test_a_fence_of_a_damaged_table_is_a_store_error(damaged):
    """A fence (a failover's check of a seq Redis has not) reads the stored info and
    meta, then the log's ends: damaged, each is a StoreError naming its key."""
    store, _ = damaged
    keys = store.keys.table("t")
    with pytest.raises(StoreError) as caught:
        store.fence("t", 1, 50)  # the log's last event (seq 5) is the damaged one
    _said(caught, keys.log)
    store.client.hset(keys.info, "meta", GARBAGE)
    with pytest.raises(StoreError) as caught:
        store.fence("t", 1, 50)
    _said(caught, keys.info)


def test_a_damaged_token_or_admin_token_is_a_store_error_naming_the_key(damaged):
    """A join token's record (a hello's look-up, ``table tokens``) and an admin
    token's (the admin API's look-up, ``admin-token --list``) that cannot be
    unpacked: before, msgpack's ValueError out of the store."""
    from rollbridge.tokens import hash_token, new_admin_token

    store, tokens = damaged
    keys = store.keys.table("t")
    for token_id in store.client.hkeys(keys.tokens):
        store.client.hset(keys.tokens, token_id, GARBAGE)
    for read in (lambda: store.find_token("t", hash_token(tokens["gm"])),
                 lambda: store.list_tokens("t")):  # fmt: skip
        with pytest.raises(StoreError) as caught:
            read()
        _said_of_token(caught, keys.tokens)
        assert caught.value.details["table"] == "t"
    secret, record = new_admin_token("ops")
    store.add_admin_token(record)
    admin = store.keys.glob("admin_tokens")
    store.client.hset(admin, record.id, GARBAGE)
    for read in (lambda: store.find_admin_token(hash_token(secret)), store.list_admin_tokens):
        with pytest.raises(StoreError) as caught:
            read()
        _said_of_token(caught, admin)
        assert "table" not in caught.value.details


def _said_of_token(caught: pytest.ExceptionInfo[StoreError], key: str) -> None:
    error = caught.value
    assert error.code == "store_error"
    assert error.details["reason"] == "damaged" and error.details["key"] == key
    assert key in str(error) and "token" in str(error)
