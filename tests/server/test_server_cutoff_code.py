"""A client cut off for its own unread replies sees 1013, as for events (issue 16,
item 7: it saw 1000)."""

from __future__ import annotations

import asyncio
import json

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed


async def test_a_client_that_reads_none_of_its_replies_is_closed_with_1013(make_tables):
    world = await make_tables(buffer_limit=64 * 1024)
    ws = await connect(world.server.url, max_size=2**24)
    await ws.send(json.dumps({"type": "hello", "id": 1, "table": "sr2",
                              "token": world.tokens["sr2"]["gm"]}))  # fmt: skip
    for _ in range(100):  # the welcome's table is open
        if "sr2" in world.server.tables.open:
            break
        await asyncio.sleep(0.05)
    ws.transport.pause_reading()  # it asks and asks, and never reads an answer
    session = world.server.tables.open["sr2"]
    for n in range(5000):
        await ws.send(json.dumps({"type": "state", "id": f"s{n}"}))
        await asyncio.sleep(0)
        if not session.members:
            break
    assert not session.members, "the client was not cut off"
    await asyncio.sleep(0.2)
    ws.transport.resume_reading()
    with pytest.raises(ConnectionClosed):
        while True:
            await asyncio.wait_for(ws.recv(), 10)
    assert ws.close_code == 1013


async def test_a_client_gone_while_its_resume_is_read_is_not_kept_as_a_member(tables):
    """Connect, hello with a resume, close at once, many times: once the reads of the
    missed events finish, none of those clients is still a member (issue 16 review:
    they were kept for ever, and the table with them)."""
    gm, _ = await tables.join("sr2", "gm")
    for _ in range(5):
        await gm.request({"type": "roll", "formula": "1d6"})
    token = tables.tokens["sr2"]["observer"]
    for n in range(30):
        ws = await connect(tables.server.url)
        await ws.send(json.dumps({"type": "hello", "id": f"h{n}", "table": "sr2", "token": token,
                                  "resume": {"epoch": 1, "seq": 1}}))  # fmt: skip
        await ws.close()
    session = tables.server.tables.open["sr2"]
    for _ in range(100):  # the reads finish on the reader threads
        if session._reading == 0 and len(session.members) == 1:
            break
        await asyncio.sleep(0.05)
    assert [m.principal.role for m in session.members] == ["gm"]
    assert (await gm.request({"type": "ping"}))["type"] == "pong"
