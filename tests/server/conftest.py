"""Fixtures for end-to-end server tests: a real server on 127.0.0.1, a real
SQLite file, real WebSocket clients."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

import msgpack
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

import rollbridge
from rollbridge.engine import Principal
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.server import Server
from rollbridge.server.limits import Limits
from rollbridge.stores.sqlite import DEFAULT_BUSY_TIMEOUT, SQLiteStore
from tests.server.httpclient import debug_log  # noqa: F401  (a fixture)

GM = Principal("gm", "gm", "setup")


class Peer:
    """A test client over a real WebSocket: keeps every raw frame it receives,
    the events in order, and answers requests by id."""

    def __init__(self, connection: ClientConnection, binary: bool = False) -> None:
        self.connection = connection
        self.binary = binary
        self.frames: list[bytes | str] = []
        self.events: list[dict[str, Any]] = []
        self.replies: dict[Any, dict[str, Any]] = {}
        self.others: list[dict[str, Any]] = []
        self._arrived = asyncio.Event()
        self._counter = 0
        self._reader = asyncio.create_task(self._read())
        self.close_code: int | None = None

    async def _read(self) -> None:
        try:
            async for frame in self.connection:
                self.frames.append(frame)
                message = msgpack.unpackb(frame) if isinstance(frame, bytes) else json.loads(frame)
                if message.get("type") == "event":
                    self.events.append(message)
                elif message.get("type") in ("result", "error", "welcome", "pong"):
                    self.replies[message.get("id")] = message
                else:
                    self.others.append(message)
                self._arrived.set()
        except ConnectionClosed:
            pass
        finally:
            self.close_code = self.connection.close_code
            self._arrived.set()

    def encode(self, message: dict[str, Any]) -> bytes | str:
        return msgpack.packb(message) if self.binary else json.dumps(message)

    async def send(self, message: dict[str, Any]) -> Any:
        if "id" not in message:
            self._counter += 1
            message = {**message, "id": f"{id(self)}-{self._counter}"}
        await self.connection.send(self.encode(message))
        return message["id"]

    async def reply(self, request_id: Any, timeout: float = 10) -> dict[str, Any]:
        async def wait() -> dict[str, Any]:
            while request_id not in self.replies:
                if self._reader.done():
                    raise AssertionError(f"connection closed ({self.close_code}) before reply")
                self._arrived.clear()
                await self._arrived.wait()
            return self.replies.pop(request_id)

        return await asyncio.wait_for(wait(), timeout)

    async def request(self, message: dict[str, Any], timeout: float = 10) -> dict[str, Any]:
        return await self.reply(await self.send(message), timeout)

    async def wait_for(self, predicate, timeout: float = 10) -> None:
        async def wait() -> None:
            while not predicate(self):
                if self._reader.done():
                    raise AssertionError(f"connection closed ({self.close_code})")
                self._arrived.clear()
                await self._arrived.wait()

        await asyncio.wait_for(wait(), timeout)

    async def wait_closed(self, timeout: float = 10) -> int | None:
        await asyncio.wait_for(asyncio.shield(self._reader), timeout)
        return self.close_code

    async def close(self) -> None:
        await self.connection.close()
        await asyncio.wait_for(asyncio.shield(self._reader), 5)


@dataclass
class Tables:
    """The tables a running server holds, with their tokens."""

    server: Server
    store: SQLiteStore
    path: Any
    tokens: dict[str, dict[str, str]] = field(default_factory=dict)
    peers: list[Peer] = field(default_factory=list)

    async def join(
        self, table: str, role: str, *, binary: bool = False, resume: dict | None = None,
        token: str | None = None, locale: str | None = None,
    ) -> tuple[Peer, dict[str, Any]]:  # fmt: skip
        peer = Peer(await connect(self.server.url, max_size=2**22), binary)
        self.peers.append(peer)
        hello = {"type": "hello", "table": table, "token": token or self.tokens[table][role]}
        if resume is not None:
            hello["resume"] = resume
        if locale is not None:
            hello["locale"] = locale
        welcome = await peer.request(hello)
        return peer, welcome


class Boom:
    """A plugin whose ruleset raises a plain Python error on one action."""

    def __init__(self, ruleset) -> None:
        self.ruleset = ruleset

    @rollbridge.hookimpl
    def register_rulesets(self, register) -> None:
        register(self.ruleset)


def make_host(tally) -> PluginHost:
    return PluginHost({"tally": Boom(tally)}, environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})


def seed_tables(store, host) -> dict[str, dict[str, str]]:
    """Two tables (sr2 and tally) with player characters and NPCs."""
    service = TableService(store, host)
    tokens = {}
    _, tokens["sr2"] = service.create_table("Shadowrun night", "sr2", table_id="sr2")
    sheets = host.rulesets["sr2"].example_sheets
    for index, (name, controllers) in enumerate([("Tukan", ["player"]), ("Guard A", [])]):
        service.handle("sr2", {"type": "actor.create", "id": f"s{index}", "actor": {
            "id": name.lower().replace(" ", "-"), "name": name, "sheet": dict(sheets[name]),
            "controllers": controllers}}, GM)  # fmt: skip
    _, tokens["tally"] = service.create_table("Tally", "tally", table_id="tally")
    for index, (actor_id, controllers) in enumerate([("ana", ["player"]), ("guard", [])]):
        service.handle("tally", {"type": "actor.create", "id": f"t{index}", "actor": {
            "id": actor_id, "name": actor_id.title(), "sheet": {"hp": 100},
            "controllers": controllers}}, GM)  # fmt: skip
    return tokens


#: The limits of the servers these tests start: the defaults, but no request rates
#: and no connection counts (tests send bursts and open crowds a person would not;
#: tests/hostile checks those limits against a real `rollbridge serve`).
TEST_LIMITS = Limits(rate_per_connection=None, rate_per_table=None, per_token=None,
                     per_address=None)  # fmt: skip


async def start(path, host, **options) -> tuple[Server, SQLiteStore]:
    store = SQLiteStore(path, retain=options.pop("retain", 1000),
                        busy_timeout=options.pop("busy_timeout", DEFAULT_BUSY_TIMEOUT))  # fmt: skip
    options.setdefault("limits", TEST_LIMITS)
    server = Server(store, host, port=0, **options)
    await server.start()
    return server, store


@pytest.fixture
async def make_tables(tmp_path, tally):
    """A factory: ``await make_tables(retain=3, buffer_limit=65536)`` seeds a fresh db
    file and starts a server on it; ``await restart(world)`` stops the server and
    starts a new one on the same file. Everything is stopped after the test."""
    worlds: list[Tables] = []
    host = make_host(tally)
    counter = 0

    async def make(**options: Any) -> Tables:
        nonlocal counter
        counter += 1
        path = tmp_path / f"rollbridge-{counter}.db"
        seed = SQLiteStore(path)
        tokens = seed_tables(seed, host)
        seed.close()
        server, store = await start(path, host, **options)
        world = Tables(server, store, path, tokens)
        world.options = options  # type: ignore[attr-defined]
        worlds.append(world)
        return world

    async def restart(world: Tables) -> Tables:
        for peer in world.peers:
            peer._reader.cancel()
        world.peers.clear()
        await world.server.stop()
        world.server, world.store = await start(world.path, host, **world.options)  # type: ignore[attr-defined]
        return world

    make.restart = restart  # type: ignore[attr-defined]
    yield make
    for world in worlds:
        for peer in world.peers:
            peer._reader.cancel()
        if world.server.writer is not None:
            await world.server.stop()


@pytest.fixture
async def tables(make_tables):
    """Two seeded tables (sr2, tally) on a running server."""
    return await make_tables()
