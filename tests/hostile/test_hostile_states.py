"""Hostile actor states over a real server (issue 16, item 2).

A GM's ``actor.create`` / ``actor.update`` with an ill-typed, out-of-range, unknown
or deeply nested ``state`` gets ``invalid_state`` naming the field — never
``internal`` — and the table does not change. Self-contained: an in-process server
on a free port over a fresh SQLite file, real WebSocket clients.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect

from rollbridge.offline import TableService
from rollbridge.plugins.bandits import BanditsRuleset
from rollbridge.plugins.sr2.ruleset import SR2Ruleset
from rollbridge.plugins.techlevel import TechLevel
from rollbridge.plugins.wilddie.ruleset import WildDieRuleset
from rollbridge.server import Server
from rollbridge.stores.sqlite import SQLiteStore
from rollbridge.testing import host_with

pytestmark = pytest.mark.asyncio

RULESETS = (SR2Ruleset(), WildDieRuleset(), TechLevel(), BanditsRuleset())


class World:
    """A running server with one table per built-in ruleset (``<id>``) and GM tokens."""

    def __init__(self, server: Server, tokens: dict[str, str]) -> None:
        self.server, self.tokens = server, tokens
        self.count = 0

    async def gm(self, table: str) -> ClientConnection:
        ws = await connect(self.server.url, max_size=2**22)
        hello = {"type": "hello", "id": "h", "table": table, "token": self.tokens[table]}
        welcome = await self.ask(ws, hello)
        assert welcome["type"] == "welcome", welcome
        return ws

    async def ask(self, ws: ClientConnection, message: dict[str, Any]) -> dict[str, Any]:
        """Send one request and return its reply (events are skipped)."""
        if "id" not in message:
            self.count += 1
            message = {**message, "id": f"q{self.count}"}
        await ws.send(json.dumps(message))
        while True:
            reply = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if reply.get("type") != "event" and reply.get("id") == message["id"]:
                return reply


@pytest.fixture
async def world(tmp_path) -> AsyncIterator[World]:
    host = host_with(*RULESETS)
    path = tmp_path / "states.db"
    seed = SQLiteStore(path)
    service = TableService(seed, host)
    tokens = {}
    for ruleset in RULESETS:
        _info, table_tokens = service.create_table(ruleset.id, ruleset.id, table_id=ruleset.id)
        tokens[ruleset.id] = table_tokens["gm"]
    seed.close()
    store = SQLiteStore(path)
    server = Server(store, host, port=0)
    await server.start()
    try:
        yield World(server, tokens)
    finally:
        await server.stop()


def _deep(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = {"n": value}
    return value


CASES = [
    ("sr2", {"body": 4}, {"physical": "x"}, "state.physical"),
    ("sr2", {"body": 4}, {"stun": 5.5}, "state.stun"),
    ("sr2", {"body": 4}, {"overflow": 2**40}, "state.overflow"),
    ("sr2", {"body": 4}, {"stun": _deep(20)}, "state.stun"),
    ("sr2", {"body": 4}, {"nonsense": _deep(20)}, "state.nonsense"),
    ("bandits", {}, {"slots": "x"}, "state.slots"),
    ("bandits", {}, {"slots": {"dying": None}}, "state.slots.dying"),
    ("techlevel", {"body_tl": 1}, {"ksk": "x"}, "state.ksk"),
    ("techlevel", {"body_tl": 1}, {"ksk": {"lethal": -1}}, "state.ksk.lethal"),
    ("techlevel", {"body_tl": 1}, {"carried": [{"name": "Vest"}]}, "state.carried[0].kind"),
    ("wilddie", None, {"wounds": [1]}, "state.wounds"),
    ("wilddie", None, {"rolls": "x"}, "state.rolls"),
]


async def test_what_the_request_layer_refuses_never_reaches_the_ruleset(world):
    """Beyond 64 bits or 32 levels deep, the request itself is refused (invalid_request)."""
    ws = await world.gm("sr2")
    try:
        for state in ({"overflow": 2**70}, {"stun": _deep(40)}):
            actor = {"name": "X", "sheet": {"body": 4}, "state": state}
            reply = await world.ask(ws, {"type": "actor.create", "actor": actor})
            assert reply["type"] == "error" and reply["code"] == "invalid_request", reply
            assert "state" in reply["details"]["field"]
    finally:
        await ws.close()


@pytest.mark.parametrize(("table", "sheet", "state", "field"), CASES)
async def test_a_hostile_state_gets_invalid_state_and_changes_nothing(
    world, table, sheet, state, field
):
    if sheet is None:
        sheet = dict(next(iter(WildDieRuleset.example_sheets.values())))
    ws = await world.gm(table)
    try:
        before = (await world.ask(ws, {"type": "state"}))["table"]
        reply = await world.ask(
            ws, {"type": "actor.create", "actor": {"name": "X", "sheet": sheet, "state": state}}
        )
        assert reply["type"] == "error" and reply["code"] == "invalid_state", reply
        assert reply["details"]["field"] == field and field in reply["message"]
        created = await world.ask(
            ws, {"type": "actor.create", "actor": {"id": "x", "name": "X", "sheet": sheet}}
        )
        assert created["type"] == "result", created
        middle = (await world.ask(ws, {"type": "state"}))["table"]
        reply = await world.ask(ws, {"type": "actor.update", "actor": "x", "state": state})
        assert reply["type"] == "error" and reply["code"] == "invalid_state", reply
        assert reply["details"]["field"] == field
        after = (await world.ask(ws, {"type": "state"}))["table"]
        assert after == middle and after != before
    finally:
        await ws.close()


async def test_a_partial_state_is_completed_on_the_wire(world):
    ws = await world.gm("sr2")
    try:
        actor = {"id": "tukan", "name": "Tukan", "sheet": {"body": 5, "combat_pool": 6}}
        reply = await world.ask(ws, {"type": "actor.create", "actor": {**actor, "state": {}}})
        assert reply["type"] == "result", reply
        reply = await world.ask(
            ws, {"type": "actor.update", "actor": "tukan", "state": {"stun": 3}}
        )
        assert reply["type"] == "result", reply
        table = (await world.ask(ws, {"type": "state"}))["table"]
        text = json.dumps(table)
        assert '"stun": 3' in text and '"pool": 6' in text  # SR-14: a fresh Combat Pool
    finally:
        await ws.close()
