"""One connection's queued frames take turns with every other connection's: the
event loop every table shares is not held by one client for as long as it keeps
frames waiting (docs/operations.md, "Limits")."""

from __future__ import annotations

from typing import Any

#: How many frames the busy connection sends in one go (below websockets' queue of
#: 16 frames, past which it stops reading the socket).
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
