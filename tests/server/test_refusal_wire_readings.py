"""Each audience's reading of a refusal quoting an NPC's hidden number, on every wire
(review rev-22p of plugins-22, which made ``str()`` of a refusal the players'
reading): the GM reads the number in the error's ``message`` over JSON (the web view's
frames), msgpack and the Foundry dialect; a player reads "(hidden)" on each, and its
``details`` carry ``"<Private>"`` to both; the server's log at DEBUG holds no number.
A real server on a real port, a real SQLite file."""

from __future__ import annotations

import json

import pytest
from websockets.asyncio.client import connect

from rollbridge.exceptions import RuleViolation
from rollbridge.text import Messages, Private
from tests.server.conftest import Peer

say = Messages("refusal_wire_tests")
TOUGH = say("tough", "{name}'s armour {armour} turns the blow")
#: The NPC's hidden number: one no request id, port or time holds by chance.
ARMOUR = 7173
RESOLVE = {"type": "resolve", "action": "hit", "actor": "ana", "targets": ["guard"]}


@pytest.fixture
def refusing(tables, tally, monkeypatch):
    def refuse(self, context, dice):
        target = context.targets[0]
        armour = Private(ARMOUR, of=target.id, aspect="sheet")
        raise RuleViolation(
            TOUGH(name=target.name, armour=armour), code="too_tough", details={"armour": armour}
        )

    monkeypatch.setattr(type(tally), "resolve", refuse)
    return tables


async def joined(tables, role: str, wire: str) -> Peer:
    """A client of ``role`` at table tally over ``wire`` (json, msgpack or foundry)."""
    if wire != "foundry":
        peer, welcome = await tables.join("tally", role, binary=wire == "msgpack")
        assert welcome["type"] == "welcome", welcome
        return peer
    peer = Peer(await connect(tables.server.url))
    tables.peers.append(peer)
    hello = {"type": "hello", "table": "tally", "token": tables.tokens["tally"][role],
             "dialect": "foundry"}  # fmt: skip
    assert (await peer.request(hello))["type"] == "welcome"
    return peer


@pytest.mark.parametrize("wire", ["json", "msgpack", "foundry"])
async def test_the_gm_reads_the_number_and_a_player_does_not(refusing, debug_log, wire):
    gm = await joined(refusing, "gm", wire)
    player = await joined(refusing, "player", wire)
    told = await gm.request(RESOLVE)
    assert (told["type"], told["code"]) == ("error", "too_tough"), told
    assert told["message"] == f"Guard's armour {ARMOUR} turns the blow"
    assert told["details"] == {"armour": "<Private>", "origin": "ruleset"}
    refused = await player.request(RESOLVE)
    assert (refused["code"], refused["message"]) == (
        "too_tough",
        "Guard's armour (hidden) turns the blow",
    ), refused
    assert refused["details"] == {"armour": "<Private>", "origin": "ruleset"}
    for frame in player.frames:  # the raw frames, not only the decoded reply
        raw = frame if isinstance(frame, bytes) else frame.encode()
        assert str(ARMOUR).encode() not in raw, frame
    logged = debug_log.getvalue()
    assert '"code": "too_tough"' in logged and str(ARMOUR) not in logged, logged
    assert json.loads(logged.splitlines()[-1])  # the log is JSON lines, as serve writes
