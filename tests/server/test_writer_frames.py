"""A frame that cannot be made among a group commit's deliveries
(rollbridge.server.outbox, ``write_together``): every other frame of the group still
leaves — the same connection's, in order, and every other connection's — so every
waiting request is answered and nothing acknowledged is lost. Before, the exception
left the batch from ``write_together``'s frame making (outside its ``try``): the
frames held for that connection and every connection after it were dropped, the
commits written. No client input makes such a frame today; it is injected here, in
the writer's callbacks (in-process: a real SQLite file, real websockets connections
on 127.0.0.1)."""

from __future__ import annotations

import asyncio

import pytest

from rollbridge.server.outbox import Outbox
from rollbridge.server.writer import CommitWriter, _Item
from rollbridge.stores.sqlite import SQLiteStore
from tests.server.test_server_outbox import pair, received
from tests.server.test_writer_handover import commit_at, info

#: Frames no WebSocket frame can be made of: text with a lone surrogate (no UTF-8),
#: and an object that is neither bytes nor text.
BAD = {"lone surrogate": "\ud800 half", "no frame": 42}


@pytest.mark.parametrize("compression", [None, "deflate"], ids=["framed here", "by websockets"])
@pytest.mark.parametrize("bad", BAD.values(), ids=BAD.keys())
async def test_a_frame_that_cannot_be_made_loses_no_other_reply(tmp_path, caplog, bad, compression):
    store = SQLiteStore(tmp_path / "frames.db")
    for table_id in "abc":
        store.create_table(info(table_id), [])
    outbox = Outbox()
    loop = asyncio.get_running_loop()
    writer = CommitWriter(store, loop, batch=outbox.batch)
    told: list[str] = []
    try:
        async with pair(compression=compression) as [(a, a_client), (b, b_client)]:
            sends = {
                "a": [(a, b"before"), (a, bad), (a, b"reply a")],
                "b": [(b, b"reply b")],
                "c": [(a, "reply c"), (b, "event c")],
            }

            def done(table_id: str):
                def told_it(error: BaseException | None) -> None:
                    assert error is None
                    told.append(table_id)
                    for connection, frame in sends[table_id]:
                        outbox.send(connection, frame, length=8)

                return told_it

            batch = [_Item(t, commit_at(t, 1), done(t)) for t in "abc"]
            writer.pending += 3
            writer._write(batch)  # one group: its callbacks in one batch of the outbox
            assert await received(a_client, 3) == [b"before", b"reply a", "reply c"]
            assert await received(b_client, 2) == [b"reply b", "event c"]
        assert told == ["a", "b", "c"]
        assert "skipped a frame to a connection" in caplog.text
        assert [store.load(t)[0].info.seq for t in "abc"] == [1, 1, 1]
    finally:
        await loop.run_in_executor(None, writer.close)
        store.close()
