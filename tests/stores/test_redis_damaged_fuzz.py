"""Every key of a played table in a real redis-server, and the admin tokens, filled
with random bytes (seeded): no request a client can send — ``hello``, a resume,
``state`` (also ``at`` a seq), a roll, an undo, the admin API — answers with a
traceback, an ``internal_error`` or a Redis key's name or Redis's address, and the
CLI (``table list``, ``export``, ``stats``, ``tokens``, ``admin-token --list``)
says one line (rollbridge.stores.redis_damaged, docs/redis.md "Damaged entries").
Before, a damaged token or admin-token record was msgpack's error out of the store
(an ``internal_error`` with a traceback in the log)."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import urllib.error
import urllib.request
from typing import Any

import pytest
from websockets.asyncio.client import connect

from rollbridge.cli import main
from rollbridge.offline import TableService
from rollbridge.server.cluster import ClusterServer
from rollbridge.stores.redis import RedisStore
from rollbridge.tokens import new_admin_token
from tests.dice.test_verifiable_dice import GM, HOST
from tests.server.conftest import TEST_LIMITS, Peer

#: The keys filled with random bytes, one at a time: a table's kind, or a global one.
DAMAGED = ["info", "actors", "log", "replies", "undos", "tokens", "owner", "admin_tokens"]


def _fill(client: Any, key: str, rng: random.Random) -> None:
    """Every value of ``key`` (a hash's values, a sorted set's members, a string)
    replaced with random bytes."""
    kind = client.type(key).decode()
    if kind == "hash":
        for field in client.hkeys(key):
            client.hset(key, field, rng.randbytes(rng.randint(1, 12)))
    elif kind == "zset":
        for member, score in client.zrange(key, 0, -1, withscores=True):
            client.zrem(key, member)
            client.zadd(key, {rng.randbytes(rng.randint(1, 12)): score})
    else:
        client.set(key, rng.randbytes(rng.randint(1, 12)))


def _played(url: str) -> tuple[dict[str, str], str]:
    """Table ``t``: rolls, an actor, an undo; its tokens and an admin token."""
    store = RedisStore(url, writer="test")
    try:
        service = TableService(store, HOST)
        _, tokens = service.create_table("t", "bandits", table_id="t")
        for n in range(4):
            service.handle("t", {"type": "roll", "id": f"r{n}", "formula": "1d6"}, GM)
        actor = {"id": "x", "name": "X", "sheet": {"armour": 1}}
        service.handle("t", {"type": "actor.create", "id": "a1", "actor": actor}, GM)
        service.handle("t", {"type": "actor.remove", "id": "a2", "actor": "x"}, GM)
        service.handle("t", {"type": "undo", "id": "u1"}, GM)
        secret, record = new_admin_token("ops")
        store.add_admin_token(record)
    finally:
        store.close()
    return tokens, secret


def _admin(port: int, path: str, secret: str) -> tuple[int, str]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/admin/{path}", headers={"Authorization": f"Bearer {secret}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


async def _play(url: str, tokens: dict[str, str], secret: str) -> list[Any]:
    """What a served client is answered, with the table's keys damaged."""
    # (a lease held by bytes no process id is: a forward waits for it, 1 s here)
    server = ClusterServer(
        RedisStore(url, writer="node-a"), HOST, port=0, redis_url=url, limits=TEST_LIMITS,
        forward_timeout=1.0,
    )  # fmt: skip
    await server.start()
    said: list[Any] = []
    try:
        join = {"type": "hello", "table": "t", "token": tokens["gm"]}
        for hello in (join, {**join, "resume": {"epoch": 1, "seq": 1}}):
            peer = Peer(await connect(server.url))
            answer = await peer.request(hello)
            said.append(answer)
            if answer["type"] == "welcome":
                for message in (
                    {"type": "state"},
                    {"type": "state", "at": 2},
                    {"type": "roll", "formula": "1d6"},
                    {"type": "undo"},
                ):
                    said.append(await peer.request(message))
            await peer.close()
        for path in ("tables", "tables/t", "tables/t/tokens"):
            said.append(await asyncio.to_thread(_admin, server.port, path, secret))
    finally:
        await server.stop()
        server.store.close()
    return said


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("kind", DAMAGED)
def test_no_damaged_key_gives_a_client_a_traceback_or_a_key(
    redis_factory: Any, caplog: pytest.LogCaptureFixture, capsys: Any, monkeypatch: Any, kind, seed
):
    redis = redis_factory()
    tokens, secret = _played(redis.url)
    store = RedisStore(redis.url, writer="test")
    keys = store.keys
    key = keys.glob(kind) if kind == "admin_tokens" else getattr(keys.table("t"), kind)
    _fill(store.client, key, random.Random(seed))
    store.close()
    caplog.set_level(logging.INFO)
    said = asyncio.run(_play(redis.url, tokens, secret))
    for answer in said:
        text = json.dumps(answer)
        assert "internal_error" not in text and "internal" not in text.lower(), said
        # the admin API too: before, it told an admin the store's own words (the key)
        assert "rb:" not in text and "127.0.0.1" not in text and str(redis.port) not in text, said
        if isinstance(answer, tuple) and answer[0] == 503:
            body = json.loads(answer[1])
            assert body["code"] == "store_error" and body["details"]["reason"] == "damaged", body
            if "table" in body["details"]:  # named to the admin; the key to the log alone
                assert body["message"].startswith("table 't'"), body
            assert key in caplog.text, caplog.text
    assert "Traceback" not in caplog.text, caplog.text
    monkeypatch.setenv("LANGUAGE", "en")
    for command in (
        ["table", "list"],
        ["table", "export", "t", "--as", "gm", "--format", "jsonl"],
        ["table", "stats", "t"],
        ["table", "tokens", "t"],
        ["admin-token", "--list"],
    ):
        capsys.readouterr()
        status = main([*command, "--redis", redis.url])
        _out, err = capsys.readouterr()
        assert status in (0, 1), (command, err)
        assert status == 0 or err.count("\n") == 1, (command, err)
        assert "Traceback" not in err and "internal" not in err, (command, err)
