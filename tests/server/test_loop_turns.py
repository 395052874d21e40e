"""One connection's queued frames take turns with every other connection's: the
event loop every table shares is not held by one client for as long as it keeps
frames waiting (docs/operations.md, "Limits")."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

#: How many frames the busy connection sends in one go (past the server's queue of 8
#: frames, websockets' ``max_queue``, it stops reading the socket until 2 are left).
QUEUED = 12


async def test_a_connection_with_frames_queued_lets_another_connection_in_between(tables):
    """A client that keeps frames queued (sent faster than the server handles them,
    as on a loaded machine) was served frame after frame without the loop turning
    once: another client's request, and the keepalive pong websockets answers on
    the loop, waited for all of them (a ``ping`` 20 s late on a loaded machine, its
    connection closed "keepalive ping timeout"). Now the client's task lets the loop
    turn after each frame: the other request is handled before the last of the
    queued ones. Counted, not timed: the order the server handles them in."""
    busy, _ = await tables.join("sr2", "gm")
    other, _ = await tables.join("sr2", "observer")
    order: list[str] = []
    carry = tables.server.carry

    def recorded(effects: list[Any], client: Any = None) -> None:
        if client is not None:
            order.append(client.principal.role)
        carry(effects, client)

    tables.server.carry = recorded  # type: ignore[method-assign]
    sent = [await busy.send({"type": "ping"}) for _ in range(QUEUED)]
    asked = await other.send({"type": "ping"})  # in the socket before any is handled
    assert (await other.reply(asked))["type"] == "pong"
    for request_id in sent:
        assert (await busy.reply(request_id))["type"] == "pong"
    assert order.count("gm") == QUEUED and order.count("observer") == 1, order
    assert order.index("observer") < QUEUED, order  # not after every queued frame


async def test_a_connection_with_no_frame_queued_takes_no_turn_of_its_own(tables, monkeypatch):
    """The turn after a frame is for frames already queued: with none (a request
    sent after the last one's reply, as nearly every client does), waiting for the
    next frame lets the loop turn anyway, and a turn of the connection's own was one
    more pass of the loop a request (docs/performance.md, "The loop's glue, 7
    December (evening)"). Counted: the client's own turns, none for requests sent
    one at a time; one per queued frame but the last for a burst."""
    from rollbridge.server.client import Client

    turns: list[float] = []
    sleep = asyncio.sleep

    async def counted(delay: float, *args: Any) -> Any:
        if sys._getframe(1).f_code is Client.run.__code__:
            turns.append(delay)
        return await sleep(delay, *args)

    monkeypatch.setattr(asyncio, "sleep", counted)
    busy, _ = await tables.join("sr2", "gm")
    for _ in range(5):
        assert (await busy.reply(await busy.send({"type": "ping"})))["type"] == "pong"
    assert turns == []
    sent = [await busy.send({"type": "ping"}) for _ in range(QUEUED)]
    for request_id in sent:
        assert (await busy.reply(request_id))["type"] == "pong"
    assert turns and set(turns) == {0}  # queued frames still take turns


#: Frames the flooding connection writes in one TCP segment (one ``send``).
FLOOD = 200


async def test_frames_of_one_tcp_segment_take_turns_with_another_connection_and_the_writer(
    tables,
):
    """A client that writes many small frames in one segment (a single ``send`` of
    them all, past websockets' queue of 8: all read at once, parsed into its queue)
    has each frame handled with a turn of the loop after it — the queue is not
    empty — so another connection's request, and a callback handed to the loop as the
    commit writer hands a group's back (``call_soon_threadsafe``), are served
    while the flood is still being handled, not after its 200 frames. Counted, not
    timed: how many of the flood's frames were handled before each."""
    flooder, _ = await tables.join("sr2", "gm")
    other, _ = await tables.join("sr2", "observer")
    loop = asyncio.get_running_loop()
    order: list[str] = []
    carry = tables.server.carry

    def recorded(effects: list[Any], client: Any = None) -> None:
        if client is not None:
            role = client.principal.role
            order.append(role)
            if role == "gm" and order.count("gm") == 1:  # as the writer hands back
                loop.call_soon_threadsafe(order.append, "writer")
        carry(effects, client)

    tables.server.carry = recorded  # type: ignore[method-assign]
    connection = flooder.connection
    for n in range(FLOOD):
        connection.protocol.send_text(json.dumps({"type": "ping", "id": f"f{n}"}).encode())
    segment = b"".join(connection.protocol.data_to_send())
    connection.transport.write(segment)  # one write: the kernel's one segment
    asked = await other.send({"type": "ping"})
    assert (await other.reply(asked))["type"] == "pong"
    await flooder.wait_for(lambda peer: f"f{FLOOD - 1}" in peer.replies)
    assert all(f"f{n}" in flooder.replies for n in range(FLOOD))
    assert order.count("gm") == FLOOD and order.count("observer") == 1, order
    assert "writer" in order
    # a few of the flood's frames at most, not all 200 of them
    assert order[: order.index("observer")].count("gm") <= 8, order
    assert order[: order.index("writer")].count("gm") <= 8, order
