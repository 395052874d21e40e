"""A client cut off for its own unread replies sees 1013, as for events (issue 16,
item 7: it saw 1000)."""

from __future__ import annotations

import asyncio
import json
import socket

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


@pytest.mark.parametrize("binary", [False, True], ids=["json", "msgpack"])
async def test_a_watcher_that_never_reads_its_events_is_cut_off_once_past_the_limit(
    make_tables, monkeypatch, binary
):
    """The limit on unsent bytes (``buffer_limit``, docs/operations.md) is held by
    ``Client.enqueue`` for a client that sends nothing (so the check after each read
    of its socket never runs): it asks the transport's unsent bytes before every
    frame held to the limit, a binary frame's size taken as its length, a text
    frame's as its UTF-8 (docs/performance.md, "The loop's glue, 7 December
    (evening)"). A watcher that never reads the GM's rolls' events is cut off, 1013,
    the first time they pass the limit (measured: 8,384 and 8,225 bytes owed against
    8,192, after 56 and 82 rolls), not later than one group's frames past it. Both
    sockets' kernel buffers are made small, so the limit is reached in tens of events
    rather than megabytes."""
    from rollbridge.server.client import Client
    from rollbridge.server.outbox import FLUSH_AT

    limit = 8 * 1024
    world = await make_tables(buffer_limit=limit)
    cut: list[int] = []
    fell_behind = Client.fell_behind

    def recorded(self: Client, owed: int) -> None:
        cut.append(owed)
        fell_behind(self, owed)

    monkeypatch.setattr(Client, "fell_behind", recorded)
    gm, _ = await world.join("sr2", "gm")
    watcher, _ = await world.join("sr2", "observer", binary=binary)
    session = world.server.tables.open["sr2"]
    watcher.connection.transport.get_extra_info("socket").setsockopt(
        socket.SOL_SOCKET, socket.SO_RCVBUF, 4096
    )
    watcher.connection.transport.pause_reading()  # it never reads an event
    (served,) = [m.origin for m in session.members if m.principal.role == "observer"]
    served.connection.transport.get_extra_info("socket").setsockopt(
        socket.SOL_SOCKET, socket.SO_SNDBUF, 4096
    )
    rolls = 0
    while not cut and rolls < 3000:
        assert (await gm.request({"type": "roll", "formula": "1d6"}))["status"] == "done"
        rolls += 1
    # past it by at most what one group's callbacks wrote (a roll's event: < 4 KiB,
    # a batch's held frames are written at FLUSH_AT at the latest)
    assert len(cut) == 1 and limit < cut[0] <= limit + min(4096, FLUSH_AT), (rolls, cut)
    assert [m.principal.role for m in session.members] == ["gm"]
    watcher.connection.transport.resume_reading()
    assert await watcher.wait_closed() == 1013
    assert watcher.events and all(
        isinstance(frame, bytes if binary else str) for frame in watcher.frames
    )


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
