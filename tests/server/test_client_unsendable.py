"""A frame a client is sent that cannot be made as it is, handed over by
``Client.enqueue`` (rollbridge.server.client) — a reply, or a member's event — is
the outbox's to handle (rollbridge.server.unsendable): a text with a lone surrogate
reaches its client with U+FFFD in its place, and a frame of no type a frame is made
of closes the connection with 1011 after its other frames. Before ops28 ``enqueue``
measured the frame (its UTF-8 bytes, for the limit and /metrics) before handing it
over: the measure raised, and the server closed the client 1013 ("the server
failed") — the mended reply never sent. No client input makes such a frame today
(test_writer_frames.py); it is injected here as a reply effect, carried by a real
server on a real SQLite file to a real WebSocket client."""

from __future__ import annotations

import pytest

from rollbridge.protocol.effects import Reply
from rollbridge.server import unsendable
from rollbridge.server.throttle import Throttle

#: A reply no UTF-8 holds: a lone surrogate in a player's words.
LONE = '{"type": "result", "id": "r1", "text": "my secret plan \ud800"}'
#: A frame that is neither bytes nor text: nothing can be sent for it.
NO_FRAME = 42


@pytest.fixture(autouse=True)
def said(monkeypatch):
    """Each test's WARNINGs counted from none (the module's says one a minute)."""
    monkeypatch.setattr(unsendable, "_said", Throttle(60.0))


def _client(tables):
    """The server's side of the one client at a table."""
    (client,) = [c for c in tables.server.clients if c.session is not None]
    return client


@pytest.mark.parametrize("batch", [False, True], ids=["alone", "in a batch"])
async def test_a_reply_with_a_lone_surrogate_reaches_its_requester_mended(tables, batch):
    """Its text arrives with U+FFFD in the surrogate's place; the connection stays
    open and answers the next request."""
    peer, _ = await tables.join("tally", "gm")
    client = _client(tables)
    if batch:
        tables.server.carry([Reply(origin=client, frame=LONE)])
    else:
        client.enqueue(LONE)
    reply = await peer.reply("r1")
    assert reply["text"] == "my secret plan \ufffd"
    assert (await peer.request({"type": "state"}))["type"] == "result"
    assert peer.close_code is None


async def test_a_reply_of_no_frames_type_closes_1011_after_the_others(tables):
    """Nothing can be sent for it: the frames before and after it in the batch
    leave in order, then the connection is closed 1011 (internal error), not 1013."""
    peer, _ = await tables.join("tally", "gm")
    client = _client(tables)
    before = '{"type": "result", "id": "before"}'
    after = '{"type": "result", "id": "after"}'
    tables.server.carry([Reply(origin=client, frame=frame) for frame in (before, NO_FRAME, after)])
    assert await peer.wait_closed() == 1011
    assert peer.frames[-2:] == [before, after]
