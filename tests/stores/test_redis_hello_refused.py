"""A ``hello`` that ``rollbridge serve --redis`` cannot answer because Redis is down
(its token cannot be read): refused ``store_error``, and then the WebSocket was left
open until the hello timeout closed it with 1008, ``no hello within 10 s`` — the code
a client takes for a refused token, ending the session of a client that did not say
``hello`` again at once. A client expects what a limit's refusal does: the refusal,
then the connection closed 1013 ("try again later") with the code as its reason, so
it reconnects with backoff and joins once Redis is back (the bundled client closes
its side on that refusal already: its Node tests run against this). Real sockets, a
real ``redis-server`` and a real ``serve``; no fakes."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from rollbridge.plain import pack, unpack
from tests.server.storage_harness import Seat, Serve, make_table

ROOT = Path(__file__).parents[2]


async def test_a_hello_refused_store_error_closes_1013_after_the_refusal(
    redis_factory: Any, tmp_path: Path
) -> None:
    server = redis_factory()
    table, tokens = make_table("--redis", server.url)
    # a long hello timeout: the close must come from the refusal, not from the timeout
    served = Serve(tmp_path / "serve.log", "--redis", server.url, "--hello-timeout", "600")
    try:
        server.kill()
        for kind in ("json", "msgpack"):
            connection = await connect(f"ws://127.0.0.1:{served.port}/")
            hello = {"type": "hello", "id": "h1", "table": table, "token": tokens["player"]}
            if kind == "json":
                await connection.send(json.dumps(hello))
            else:
                await connection.send(pack(hello))
            frames = []
            try:
                async with asyncio.timeout(30):
                    async for frame in connection:
                        frames.append(frame)
            except ConnectionClosed:
                pass
            except TimeoutError:
                pytest.fail(f"the connection was left open after {frames}")
            await connection.wait_closed()
            assert len(frames) == 1, frames
            refusal = json.loads(frames[0]) if kind == "json" else unpack(frames[0])
            assert refusal["type"] == "error" and refusal["id"] == "h1", refusal
            assert refusal["code"] == "store_error", refusal
            assert connection.close_code == 1013, connection.close_code
            assert connection.close_reason == "store_error"
        server.start()
        player, welcome = await Seat.take(served.port, table, tokens["player"])  # joins again
        assert welcome["table"]["id"] == table
        await player.close()
        assert not any("Traceback" in line.get("message", "") for line in served.lines())
    finally:
        served.stop()


#: The bundled client (adapters/client/connection.mjs) in Node, over the ``ws``
#: package the Foundry tests use: each status change a JSON line on stdout.
CLIENT = """
import { createRequire } from "node:module";
import { Connection } from "ROOT/adapters/client/connection.mjs";
const require = createRequire("ROOT/tests/foundry/node_modules/");
const WebSocket = require("ws");
const [url, table, token] = process.argv.slice(2);
const connection = new Connection({
  url, table, token, WebSocket, random: () => 0,
  onStatus: (status, detail) => {
    console.log(JSON.stringify({ status, detail }));
    if (status === "connected") { connection.stop(); process.exit(0); }
    if (status === "refused") process.exit(1);
  },
});
connection.start();
"""


async def test_the_bundled_client_waits_and_joins_once_redis_is_back(
    redis_factory: Any, tmp_path: Path
) -> None:
    node, modules = shutil.which("node"), ROOT / "tests/foundry/node_modules/ws"
    if node is None or not modules.exists():
        pytest.skip("node and tests/foundry/node_modules (ws) are needed")
    server = redis_factory()
    table, tokens = make_table("--redis", server.url)
    served = Serve(tmp_path / "serve.log", "--redis", server.url, "--hello-timeout", "600")
    script = tmp_path / "client.mjs"
    script.write_text(CLIENT.replace("ROOT", str(ROOT)))
    # Redis down before the client starts: killed after, the client's first hello
    # could join (if Node started first, under load) and the test waited in vain
    server.kill()
    client = await asyncio.create_subprocess_exec(
        node, str(script), f"ws://127.0.0.1:{served.port}/tables/{table}", table,
        tokens["player"], stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        statuses = []
        async with asyncio.timeout(60):  # a guard against a hang, nothing timed
            while True:
                line = await client.stdout.readline()
                assert line, f"the client ended: {statuses}"
                statuses.append(json.loads(line))
                refusal = (statuses[-1]["detail"] or {}).get("refusal") or {}
                if statuses[-1]["status"] == "waiting" and refusal.get("code") == "store_error":
                    break
            server.start()  # Redis back: the client's next attempt joins
            while statuses[-1]["status"] != "connected":
                line = await client.stdout.readline()
                assert line, f"the client ended: {statuses}"
                statuses.append(json.loads(line))
            assert await client.wait() == 0
        assert "refused" not in [s["status"] for s in statuses], statuses
    finally:
        if client.returncode is None:
            client.kill()
            await client.wait()
        served.stop()
