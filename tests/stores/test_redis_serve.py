"""`rollbridge serve --redis` and the table commands against a real redis-server
(issue 13, items 1 and 3): one process serving from Redis as from SQLite, the same
tables across a restart, verifiable dice whose key lives in Redis, and the refusal
of a Redis that would lose acknowledged changes."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys

from websockets.asyncio.client import connect

from rollbridge.dice.verifiable import DiceKey
from rollbridge.dice.verify import verify_events
from rollbridge.stores.redis import RedisStore
from tests.stores.cluster_harness import wait_listening

ENV = {**os.environ, "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cli(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rollbridge", *args], capture_output=True,
                          text=True, check=check, timeout=60, env=ENV)  # fmt: skip


class Serving:
    """`rollbridge serve --redis URL` in a subprocess on a free port."""

    def __init__(self, url: str, *extra: str) -> None:
        self.port = free_port()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "rollbridge", "serve", "--port", str(self.port),
             "--redis", url, "--no-demo", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
        )  # fmt: skip
        wait_listening(self.process, self.port, timeout=20)

    def stop(self) -> str:
        self.process.terminate()
        _out, err = self.process.communicate(timeout=20)
        return err


async def session(port: int, table: str, token: str, requests: list[dict]) -> list[dict]:
    """Join, send ``requests`` one by one, return every event received."""
    events: list[dict] = []
    async with connect(f"ws://127.0.0.1:{port}/") as ws:
        await ws.send(json.dumps({"type": "hello", "id": "h", "table": table, "token": token}))
        welcome = json.loads(await ws.recv())
        assert welcome["type"] == "welcome", welcome
        for request in requests:
            await ws.send(json.dumps(request))
            while True:
                message = json.loads(await ws.recv())
                if message["type"] == "event":
                    events.append(message)
                elif message.get("id") == request["id"]:
                    assert message["type"] == "result", message
                    break
    return events


def test_serve_on_redis_keeps_tables_across_a_restart_and_its_dice_verify(redis_factory):
    redis = redis_factory()
    made = json.loads(cli("table", "create", "--ruleset", "bandits", "--name", "R",
                          "--settings", '{"verifiable": true}', "--redis", redis.url,
                          "--json").stdout)  # fmt: skip
    table, gm = made["table"], made["tokens"]["gm"]
    listed = cli("table", "list", "--redis", redis.url).stdout
    assert table in listed
    first = Serving(redis.url)
    try:
        rolls = [{"type": "roll", "id": f"r{i}", "formula": "3d6!!"} for i in range(3)]
        events = asyncio.run(session(first.port, table, gm, rolls))
    finally:
        first.stop()
    again = Serving(redis.url)  # a restart: the same tables, the same dice key
    try:
        later = asyncio.run(session(again.port, table, gm, [{"type": "dice.reveal", "id": "v"}]))
    finally:
        again.stop()
    seqs = [e["seq"] for e in events + later]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    store = RedisStore(redis.url)
    try:
        stored = store.events_after(table, 0)
        log = [json.loads(json.dumps({"kind": e.kind, "seq": e.seq, "data": e.data}))
               for e in stored]  # fmt: skip
        assert [e["seq"] for e in log] == list(range(1, seqs[-1] + 1))
        secret = store.dice_secret()
        assert secret == RedisStore(redis.url).dice_secret()  # shared by every process
        assert DiceKey.for_store(store).seed(table, 1, 1) == DiceKey(secret).seed(table, 1, 1)
    finally:
        store.close()
    # the whole log (the client joined after the commitment, which its welcome named)
    report = verify_events(log)
    assert report.ok, report.problems
    assert report.verified_events == 3 and report.segments[1] == "revealed"


def test_serve_refuses_a_redis_that_would_lose_acknowledged_changes(redis_factory):
    unsafe = redis_factory("--appendonly", "no")
    port = free_port()
    refused = subprocess.run(
        [sys.executable, "-m", "rollbridge", "serve", "--port", str(port), "--redis",
         unsafe.url, "--no-demo"], capture_output=True, text=True, timeout=30, env=ENV,
    )  # fmt: skip
    assert refused.returncode == 1
    assert "would lose acknowledged changes" in refused.stderr
    assert "appendonly" in refused.stderr and "Traceback" not in refused.stderr
    allowed = Serving(unsafe.url, "--redis-unsafe")
    err = allowed.stop()
    assert "warning" in err and "appendonly" in err


def test_db_and_redis_together_are_refused(redis_factory, tmp_path):
    redis = redis_factory()
    result = cli("table", "list", "--redis", redis.url, "--db", str(tmp_path / "x.db"),
                 check=False)  # fmt: skip
    assert result.returncode == 1 and "--db or --redis" in result.stderr


def test_a_malformed_redis_url_is_a_typed_error_without_its_password():
    for url in ("redis://127.0.0.1:abc/0", "redis://:hunter2@127.0.0.1:99999/0", "foo://x"):
        result = cli("table", "list", "--redis", url, check=False)
        assert result.returncode == 1, result
        assert "store_error" in result.stderr and "Traceback" not in result.stderr
        assert "hunter2" not in result.stderr
