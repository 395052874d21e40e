"""A frame that cannot be made among a group commit's deliveries
(rollbridge.server.outbox, ``write_together``; rollbridge.server.unsendable): every
other frame of the group still leaves — the same connection's, in order, and every
other connection's — so every waiting request is answered and nothing acknowledged is
lost. Before ops27 the exception left the batch from ``write_together``'s frame making
(outside its ``try``): the frames held for that connection and every connection after
it were dropped, the commits written. And the frame itself leaves no client waiting:
a text with a lone surrogate is sent with U+FFFD in its place, and a frame of no
type a frame is made of closes its connection with 1011 after the others, so its
client reconnects and asks again — after ops27 it was skipped, and a requester whose
own result it was waited for it without end. No client input makes such a frame
today; it is injected here, in the writer's callbacks (in-process: a real SQLite
file, real websockets connections on 127.0.0.1)."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import pytest
from websockets.exceptions import ConnectionClosedError

from rollbridge.server import unsendable
from rollbridge.server.outbox import Outbox
from rollbridge.server.throttle import Throttle
from rollbridge.server.writer import CommitWriter, _Item
from rollbridge.stores.sqlite import SQLiteStore
from tests.server.test_server_outbox import pair, received
from tests.server.test_writer_handover import commit_at, info

#: A frame that is neither bytes nor text: nothing can be sent for it.
NO_FRAME = 42
#: A text frame no UTF-8 holds: a lone surrogate in a player's words.
LONE = '{"type": "result", "id": "r1", "text": "my secret plan \ud800"}'
COMPRESSION = pytest.mark.parametrize(
    "compression", [None, "deflate"], ids=["framed here", "by websockets"]
)


@pytest.fixture(autouse=True)
def said(monkeypatch):
    """Each test's WARNINGs counted from none (the module's says one a minute)."""
    monkeypatch.setattr(unsendable, "_said", Throttle(60.0))


@contextlib.asynccontextmanager
async def _group(tmp_path, compression: str | None, bad: object):
    """Three commits (tables a, b, c) written in one group, each callback sending its
    table's frames — ``bad`` among a's own, between two others — to two connections:
    yields (a's client, b's client, the tables told, the store)."""
    store = SQLiteStore(tmp_path / "frames.db")
    for table_id in "abc":
        store.create_table(info(table_id), [])
    outbox = Outbox()
    writer = CommitWriter(store, asyncio.get_running_loop(), batch=outbox.batch)
    told: list[str] = []
    try:
        async with pair(compression=compression) as [(a, a_client), (b, b_client)]:
            sends = {"a": [(a, b"before"), (a, bad), (a, b"reply a")], "b": [(b, b"reply b")],
                     "c": [(a, "reply c"), (b, "event c")]}  # fmt: skip

            def done(table_id: str):
                def told_it(error: BaseException | None) -> None:
                    assert error is None
                    told.append(table_id)
                    for connection, frame in sends[table_id]:
                        outbox.send(connection, frame, length=8)

                return told_it

            writer.pending += 3
            writer._write([_Item(t, commit_at(t, 1), done(t)) for t in "abc"])  # one group
            yield a_client, b_client, told, store
    finally:
        await asyncio.get_running_loop().run_in_executor(None, writer.close)
        store.close()


async def _closed_with(client) -> int:
    """The close code ``client`` is sent (a guard of 10 s against a hang, not a measure)."""
    with pytest.raises(ConnectionClosedError):
        async with asyncio.timeout(10):
            while True:
                await client.recv()
    return client.close_code


@COMPRESSION
async def test_a_requesters_result_with_a_lone_surrogate_reaches_it_mended(
    tmp_path, caplog, compression
):
    """The requester's own result is the frame: it arrives with U+FFFD in the lone
    surrogate's place, the group's other frames in their order. The WARNING names
    what was done and not the player's words."""
    caplog.set_level(logging.WARNING, "rollbridge.client")
    async with _group(tmp_path, compression, LONE) as (a_client, b_client, told, store):
        mended = LONE.replace("\ud800", "\ufffd")
        assert await received(a_client, 4) == [b"before", mended, b"reply a", "reply c"]
        assert await received(b_client, 2) == [b"reply b", "event c"]
        assert told == ["a", "b", "c"]
        assert [store.load(t)[0].info.seq for t in "abc"] == [1, 1, 1]
    (line,) = [r for r in caplog.records if r.name == "rollbridge.client"]
    assert line.levelno == logging.WARNING
    assert "lone surrogate" in line.getMessage() and "secret" not in caplog.text


@COMPRESSION
async def test_a_frame_that_cannot_be_sent_closes_its_connection_after_the_others(
    tmp_path, caplog, compression
):
    """A frame of no type a frame is made of: the connection's other frames leave in
    order, then it is closed with 1011 (internal error), so its client reconnects
    and asks again; every other connection is served as before."""
    caplog.set_level(logging.WARNING, "rollbridge.client")
    async with _group(tmp_path, compression, NO_FRAME) as (a_client, b_client, told, _store):
        assert await received(a_client, 3) == [b"before", b"reply a", "reply c"]
        assert await _closed_with(a_client) == 1011
        assert await received(b_client, 2) == [b"reply b", "event c"]
        assert b_client.close_code is None
        assert told == ["a", "b", "c"]
    assert "type int cannot be sent; its connection is closed (1011)" in caplog.text


@pytest.mark.parametrize("bad", [LONE, NO_FRAME], ids=["lone surrogate", "no frame"])
async def test_outside_a_batch_too(bad):
    """A frame sent outside a batch (``broadcast`` at once) is handled the same:
    before, its exception left ``Outbox.send`` for its caller."""
    outbox = Outbox()
    async with pair(1, compression=None) as [(a, a_client)]:
        outbox.send(a, bad)
        outbox.send(a, b"after")
        if bad is NO_FRAME:
            assert await received(a_client, 1) == [b"after"]
            assert await _closed_with(a_client) == 1011
        else:
            assert await received(a_client, 2) == [LONE.replace("\ud800", "\ufffd"), b"after"]


async def test_the_lines_are_said_once_a_minute(caplog):
    """The same bad event to every connection of a table says one line, not one each."""
    caplog.set_level(logging.WARNING, "rollbridge.client")
    outbox = Outbox()
    async with pair(3, compression=None) as pairs:
        with outbox.batch():
            for server_side, _client in pairs:
                outbox.send(server_side, LONE)
        for _server_side, client in pairs:
            assert await received(client, 1) == [LONE.replace("\ud800", "\ufffd")]
    assert len([r for r in caplog.records if r.name == "rollbridge.client"]) == 1
