"""The outbox (rollbridge.server.outbox): the frames a batch releases leave each
connection in one transport write, in order and intact (a lone frame too); outside
a batch each frame is written at once, as websockets' ``broadcast`` does.

Real websockets connections on 127.0.0.1; the server side's transport ``write`` is
wrapped only to count calls (the bytes still go out through it)."""

from __future__ import annotations

import asyncio
import contextlib
import threading

import msgpack
from websockets.asyncio.client import connect
from websockets.asyncio.server import serve
from websockets.protocol import State

from rollbridge.server.outbox import FLUSH_AT, Outbox


def count_writes(connection) -> list[bytes]:
    """Every chunk the connection's transport is asked to write, from now on."""
    transport = connection.transport
    original = transport.write
    written: list[bytes] = []

    def write(data) -> None:
        written.append(bytes(data))
        original(data)

    transport.write = write
    return written


@contextlib.asynccontextmanager
async def pair(count: int = 2, compression: str | None = "deflate"):
    """``count`` connections: (server side, client side) for each (``compression``:
    websockets' default, deflate; None, as rollbridge serves by default)."""
    accepted: list = []
    done = asyncio.Event()

    async def handler(connection) -> None:
        accepted.append(connection)
        await done.wait()

    async with serve(handler, "127.0.0.1", 0, compression=compression) as server:
        url = f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}"
        clients = [await connect(url, compression=compression) for _ in range(count)]
        while len(accepted) < count:
            await asyncio.sleep(0.01)
        try:
            yield list(zip(accepted, clients, strict=True))
        finally:
            done.set()
            for client in clients:
                await client.close()


async def received(client, count: int) -> list:
    return [await asyncio.wait_for(client.recv(), 5) for _ in range(count)]


async def test_a_batch_writes_each_connections_frames_together_in_order():
    outbox = Outbox()
    async with pair() as [(a, a_client), (b, b_client)]:
        a_writes, b_writes = count_writes(a), count_writes(b)
        frames = [msgpack.packb({"n": 1}), '{"n": 2}', msgpack.packb({"n": 3}), "x" * 20_000]
        with outbox.batch():
            assert outbox.holding
            for frame in frames:
                outbox.send(a, frame)
            outbox.send(b, b"lone")
            assert a_writes == [] and b_writes == []  # held until the batch ends
        assert not outbox.holding
        assert len(a_writes) == 1  # four frames, one write
        assert len(b_writes) == 1  # a lone frame: one write as well
        assert await received(a_client, 4) == frames  # text stays text, bytes stay bytes
        assert await received(b_client, 1) == [b"lone"]


async def test_outside_a_batch_each_frame_leaves_at_once():
    outbox = Outbox()
    async with pair(1) as [(a, a_client)]:
        writes = count_writes(a)
        outbox.send(a, b"one")
        assert len(writes) == 1
        outbox.send(a, "two")
        assert len(writes) == 2
        assert await received(a_client, 2) == [b"one", "two"]


async def test_a_batch_inside_a_batch_is_part_of_the_outer_one():
    outbox = Outbox()
    async with pair(1) as [(a, a_client)]:
        writes = count_writes(a)
        with outbox.batch():
            outbox.send(a, b"1")
            with outbox.batch():
                outbox.send(a, b"2")
            assert writes == []  # the inner batch's end flushes nothing
            outbox.send(a, b"3")
        assert len(writes) == 1
        assert await received(a_client, 3) == [b"1", b"2", b"3"]


async def test_a_batch_left_by_an_exception_still_writes_and_ends_every_level():
    """The outbox is its own context manager, counting the batches entered (a
    ``contextlib`` generator per batch cost more: docs/performance.md, "The loop's
    glue, 7 December (evening)"): an exception raised in an inner batch passes
    through both, the frames held are written once, when the outer one ends, and
    the outbox holds nothing after it — the next frame leaves at once, and the
    next batch holds again."""
    outbox = Outbox()
    async with pair(1) as [(a, a_client)]:
        writes = count_writes(a)
        with contextlib.suppress(KeyError), outbox.batch():
            outbox.send(a, b"1")
            with outbox.batch():
                outbox.send(a, b"2")
                raise KeyError("a driver bug")
        assert len(writes) == 1 and not outbox.holding
        outbox.send(a, b"3")  # outside any batch: at once
        assert len(writes) == 2
        with outbox.batch():
            outbox.send(a, b"4")
            assert outbox.holding and len(writes) == 2
        assert len(writes) == 3 and not outbox.holding
        assert await received(a_client, 4) == [b"1", b"2", b"3", b"4"]


async def test_a_connection_closed_meanwhile_is_skipped_and_the_others_still_get_theirs(caplog):
    outbox = Outbox()
    async with pair() as [(a, a_client), (b, b_client)]:
        await a_client.close()
        await asyncio.wait_for(a.wait_closed(), 5)
        assert a.state is State.CLOSED
        a_writes = count_writes(a)
        with outbox.batch():
            outbox.send(a, b"lost")
            outbox.send(a, b"lost too")
            outbox.send(b, b"kept")
            outbox.send(b, b"kept too")
        assert a_writes == []
        assert await received(b_client, 2) == [b"kept", b"kept too"]
        assert "skipped" not in caplog.text  # not even tried: it is not open


async def test_frames_past_64_kib_are_written_without_waiting_for_the_batch_to_end():
    """A burst (a catch-up of many events) reaches the transport as it is made, so the
    client's limit on unsent bytes sees it."""
    outbox = Outbox()
    async with pair(1) as [(a, a_client)]:
        writes = count_writes(a)
        frames = [bytes([n]) * (FLUSH_AT // 4) for n in range(6)]
        with outbox.batch():
            for frame in frames:
                outbox.send(a, frame)
            assert len(writes) == 1  # the first four, together, at 64 KiB
        assert len(writes) == 2  # the other two at the end
        assert await received(a_client, 6) == frames


async def test_text_frames_past_64_kib_of_utf_8_are_written_without_waiting():
    """The 64 KiB a connection's held frames may reach are bytes on the wire: JSON
    frames of Cyrillic text (two bytes a letter) are written at 64 KiB of UTF-8, not
    at 64 Ki characters (128 KiB more the client would owe, unseen by its limit)."""
    outbox = Outbox()
    async with pair(1, compression=None) as [(a, a_client)]:
        writes = count_writes(a)
        frames = [chr(0x430 + n) * (FLUSH_AT // 8) for n in range(6)]  # 16 KiB each
        with outbox.batch():
            for frame in frames:
                outbox.send(a, frame)
            assert len(writes) == 1  # the first four, together, at 64 KiB
            assert len(writes[0]) == 4 * (FLUSH_AT // 4 + 4)  # each with its 4-byte header
        assert len(writes) == 2  # the other two at the end
        assert await received(a_client, 6) == frames


async def test_flush_writes_a_connections_held_frames_now():
    """Before a client's close frame: what it was sent goes first."""
    outbox = Outbox()
    async with pair() as [(a, a_client), (b, b_client)]:
        a_writes, b_writes = count_writes(a), count_writes(b)
        with outbox.batch():
            outbox.send(a, b"1")
            outbox.send(a, b"2")
            outbox.send(b, b"other")
            outbox.flush(a)
            assert len(a_writes) == 1 and b_writes == []
            outbox.send(a, b"3")
        assert len(a_writes) == 2 and len(b_writes) == 1
        assert await received(a_client, 3) == [b"1", b"2", b"3"]
        assert await received(b_client, 1) == [b"other"]


async def test_a_refused_hello_gets_its_error_before_the_close(make_tables):
    world = await make_tables()
    peer = await connect(world.server.url)
    await peer.send(msgpack.packb({"type": "hello", "table": "sr2", "token": "rbt_x", "id": 1}))
    error = msgpack.unpackb(await asyncio.wait_for(peer.recv(), 5))
    assert (error["type"], error["code"]) == ("error", "unauthorized")
    await asyncio.wait_for(peer.wait_closed(), 5)
    assert peer.close_code == 1008


async def test_a_connection_that_fails_to_write_is_skipped_never_the_batch(caplog):
    outbox = Outbox()
    async with pair() as [(a, _a_client), (b, b_client)]:
        a.transport.write_eof()  # from now on its transport refuses every write
        with outbox.batch():
            outbox.send(a, b"refused")
            outbox.send(a, b"refused too")
            outbox.send(b, b"kept")
            outbox.send(b, b"kept too")
        assert await received(b_client, 2) == [b"kept", b"kept too"]
        assert "could not write to a connection" in caplog.text


def hold_first_commit(store) -> tuple[threading.Event, threading.Event]:
    """The writer's first group commit waits for ``release``; ``entered`` is set when
    it starts waiting."""
    entered, release = threading.Event(), threading.Event()
    original = store.commit_many

    def held(items):
        entered.set()
        release.wait(10)
        return original(items)

    store.commit_many = held
    return entered, release


async def test_a_group_commit_sends_each_client_its_frames_in_one_write(make_tables):
    """Two requests committed in one group (they queue behind a first, held in the
    writer): each client's events and the requester's results leave in one write per
    group, in seq order, and read as separate, intact frames."""
    world = await make_tables()
    gm, _ = await world.join("tally", "gm", binary=True)
    watcher, _ = await world.join("tally", "observer", binary=True)
    clients = {c.principal.role: c for c in world.server.clients}
    gm_writes = count_writes(clients["gm"].connection)
    watcher_writes = count_writes(clients["observer"].connection)
    entered, release = hold_first_commit(world.store)
    hit = {"type": "resolve", "action": "hit", "targets": ["guard"]}
    first = await gm.send({**hit, "dice": [1]})
    assert await asyncio.to_thread(entered.wait, 10)  # the writer holds the first group
    second = await gm.send({**hit, "dice": [2]})
    third = await gm.send({**hit, "dice": [3]})
    while world.server.writer.pending < 3:  # both queued behind it
        await asyncio.sleep(0.01)
    release.set()
    replies = [await gm.reply(r) for r in (first, second, third)]
    assert [r["status"] for r in replies] == ["done"] * 3
    seqs = [r["seq"] for r in replies]
    assert seqs == sorted(seqs) and len(set(seqs)) == 3
    await watcher.wait_for(lambda p: len(p.events) == 3)
    assert [e["seq"] for e in watcher.events] == seqs
    assert [e["seq"] for e in gm.events] == seqs
    assert len(watcher_writes) == 2  # the first group, then the second's two events together
    assert len(gm_writes) == 2  # each group: its events and results in one write


async def test_a_connection_in_the_middle_of_a_fragmented_message_is_skipped_as_broadcast_does(
    caplog,
):
    """A frame must not land between the fragments of a message: a connection whose
    fragmented send is under way (websockets' ``send_in_progress``, the one name the
    floor of websockets 17 has) is skipped, as ``broadcast`` skips it, in a batch
    and out of one; the other connections get theirs, and the fragmented message
    arrives whole."""
    outbox = Outbox()
    async with pair(compression=None) as [(a, a_client), (b, b_client)]:
        go_on = asyncio.Event()

        async def fragments():
            yield b"first half, "
            await go_on.wait()
            yield b"second half"

        sending = asyncio.ensure_future(a.send(fragments()))
        while a.send_in_progress is None:
            await asyncio.sleep(0)
        with outbox.batch():
            outbox.send(a, b"between")
            outbox.send(b, b"kept")
        outbox.send(a, b"between, at once")
        go_on.set()
        await sending
        assert await received(a_client, 1) == [b"first half, second half"]
        assert await received(b_client, 1) == [b"kept"]
        outbox.send(a, b"after")  # the message sent: frames go again
        assert await received(a_client, 1) == [b"after"]
        assert caplog.text.count("sending a fragmented message") == 2
