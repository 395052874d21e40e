"""What a ``serve --redis`` process remembers of a table's lease, on a real
redis-server: once the lease is lost (another process took the table), nothing of
the table is kept — a long-running process that loses the leases of many tables
(deleted ones too) does not keep an entry for each for good; and a lease held for a
table not in memory is given up, not renewed for good."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from rollbridge.host import PluginHost
from rollbridge.server.cluster import ClusterServer
from rollbridge.stores.redis import RedisStore


def on_a_cluster_server(
    redis_factory, play: Callable[[ClusterServer], Awaitable[None]], **options: Any
) -> None:
    """Run ``play`` against a started ``serve --redis`` process (leases of 0.3 s
    unless ``options`` say ``lease_ms``; ``options`` for :class:`ClusterServer`) on a
    fresh redis-server; the server is stopped and its store closed after it."""
    redis = redis_factory()
    store = RedisStore(redis.url, writer="node-a")
    host = PluginHost({}, environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    options.setdefault("lease_ms", 300)
    server = ClusterServer(store, host, port=0, redis_url=redis.url, **options)

    async def run() -> None:
        await server.start()
        assert server.redis is not None
        try:
            await play(server)
        finally:
            await server.stop()

    try:
        asyncio.run(run())
    finally:
        store.close()


def test_a_lost_lease_leaves_nothing_of_its_table_behind(redis_factory):
    tables = [f"t{n}" for n in range(3)]

    async def play(server: ClusterServer) -> None:
        assert server.redis is not None
        renewed = dict.fromkeys(tables, 0.0)
        for table_id in tables:  # taken as a forward takes a free lease
            await server.redis.set(server.keys.table(table_id).owner, server.node)
            server._took(table_id)
            renewed[table_id] = server._renewed[table_id]
        async with asyncio.timeout(10):  # the lease keeper renews them
            while any(server._renewed.get(t, 0) <= renewed[t] for t in tables):
                await asyncio.sleep(0.02)
        assert set(server._used) == set(tables)
        for table_id in tables:  # another process takes each over
            await server.redis.set(server.keys.table(table_id).owner, "node-b")
        async with asyncio.timeout(10):
            while server.ownership.owned:
                await asyncio.sleep(0.02)
        assert server._renewed == {}
        assert server._used == {}

    on_a_cluster_server(redis_factory, play)


def test_a_lease_of_a_table_not_in_memory_is_given_up_like_an_unused_one(redis_factory, caplog):
    """A lease held for a table this process has no copy of was counted as in use
    and renewed for as long as the process ran (found by review): nothing here
    would ever use it, and every other process had to forward to this one. It is
    given up after ``idle_leases`` lease lengths, as an unused table's is.

    The process stops owning the table before its ``RELEASE`` reaches Redis (its
    changes are forwarded from then on): the lease is looked for until it is gone,
    not at once — failed once on a loaded machine, this test's read of the lease
    having gone to Redis before the release (a release held back by 0.1 s made it
    fail every time). (Nor is the log asked whether it was given up as unused: a
    process starved past its lease finds it run out, and lost, first.) What ended
    the lease is Redis's word (keyspace events): a ``del``, its release, not an
    ``expired`` — a wait for the key alone passed with the release left out."""

    async def play(server: ClusterServer) -> None:
        assert server.redis is not None
        owner = server.keys.table("t").owner
        # what ends the lease, as Redis tells it: "del" (released) or "expired" (left
        # to run out: a process not releasing it passed a wait for the key alone)
        await server.redis.config_set("notify-keyspace-events", "Kgx")
        events = server.redis.pubsub()
        await events.subscribe(f"__keyspace@0__:{owner}")
        await server.redis.set(owner, server.node)
        server._took("t")
        assert "t" not in server.tables.open
        async with asyncio.timeout(10):  # 4 leases of 0.3 s, then given up
            while server.ownership.owns("t"):
                await asyncio.sleep(0.02)
        assert "t" not in server._used and "t" not in server._renewed
        ended = None
        async with asyncio.timeout(10):  # released for the next taker
            while ended not in (b"del", b"expired"):
                message = await events.get_message(ignore_subscribe_messages=True, timeout=1)
                ended = None if message is None else message["data"]
        await events.aclose()
        assert ended == b"del"
        assert await server.redis.get(owner) is None

    on_a_cluster_server(redis_factory, play)


def test_a_burst_of_redis_commands_opens_a_bounded_number_of_connections(redis_factory):
    """500 commands at once on a ``serve --redis`` process's event-loop client (as
    500 forwards would send them): each opened a connection of its own, and the
    pool kept them all for as long as the process ran (audit). The pool is capped
    (``REDIS_CONNECTIONS``); the others wait for a connection to come free."""
    from rollbridge.server.cluster import REDIS_CONNECTIONS

    async def play(server: ClusterServer) -> None:
        assert server.redis is not None
        await asyncio.gather(*(server.redis.get(f"k{n}") for n in range(500)))
        clients = await server.redis.client_list()
        assert len(clients) <= REDIS_CONNECTIONS + 4, len(clients)  # + the store's own

    on_a_cluster_server(redis_factory, play)


def test_tables_whose_clients_left_are_not_kept_by_the_loops(redis_factory):
    """Clients of three tables join, roll and leave: every table leaves memory and
    nothing keeps it — neither the poll of the stored seqs nor the lease keeper,
    whose loop variables still named the last table they looked at while they slept,
    and for good once no table was left to look at (an idle process kept the last
    table it had served)."""
    import gc
    import json
    import weakref

    from websockets.asyncio.client import connect

    from rollbridge.offline import TableService

    async def play(server: ClusterServer) -> None:
        service = TableService(server.store, server.host)
        made = []
        for n in range(3):
            info, tokens = service.create_table(f"T{n}", "bandits", table_id=f"t{n}")
            made.append((info.id, tokens["gm"]))
        kept: list[weakref.ref] = []
        for table_id, token in made:
            async with connect(f"ws://127.0.0.1:{server.port}/") as ws:
                await ws.send(json.dumps({"type": "hello", "id": "h", "table": table_id,
                                          "token": token}))  # fmt: skip
                assert json.loads(await ws.recv())["type"] == "welcome"
                kept.append(weakref.ref(server.tables.open[table_id]))
                await asyncio.sleep(server.poll_interval * 2)  # the loops see it in use
                await ws.send(json.dumps({"type": "roll", "id": "r", "formula": "1d6"}))
                while json.loads(await ws.recv()).get("id") != "r":
                    pass
        async with asyncio.timeout(10):  # out of memory, leases given up
            while server.tables.open or server.ownership.owned:
                await asyncio.sleep(0.02)

        def alive() -> int:
            gc.collect()
            return sum(ref() is not None for ref in kept)

        try:
            async with asyncio.timeout(5):  # the loops go round in that time, many times
                while alive():
                    await asyncio.sleep(0.05)
        except TimeoutError:
            raise AssertionError(f"{alive()} of {len(kept)} tables kept alive") from None

    on_a_cluster_server(redis_factory, play)


def test_a_forward_for_a_table_that_cannot_be_opened_leaves_no_rate_bucket(redis_factory):
    """The owner counts every forwarded change against its table's rate before it
    opens the table, which makes the table's bucket. A bucket goes when its table
    leaves memory; a forward for a table that never opened here (deleted after the
    sender sent it: ``unknown_table``) left its bucket for as long as the process ran,
    one for each such table id (found by reading the forward path after the Redis
    soak). The sender is answered, and the buckets are back to what they were."""
    from rollbridge.plain import pack, unpack
    from rollbridge.text import stored

    async def play(server: ClusterServer) -> None:
        assert server.redis is not None
        assert server.tables.buckets == {}
        replies = f"{server.keys.prefix}node:node-b:replies"
        for n in range(3):  # as process node-b forwards them, for tables deleted meanwhile
            body = {"fid": f"f{n}", "from": "node-b", "table": f"gone{n}",
                    "message": {"type": "roll", "id": f"r{n}", "formula": "1d6"},
                    "who": ["gm", "GM", f"key{n}"], "locale": "en"}  # fmt: skip
            await server.redis.rpush(server.inbox, pack(body, stored))
            popped = await server.redis.blpop([replies], timeout=10)
            assert popped is not None, "no answer"
            answer = unpack(popped[1])
            assert answer["fid"] == f"f{n}"
            assert answer["message"]["code"] == "unknown_table", answer
        assert server.tables.buckets == {}
        assert server.tables.open == {}

    on_a_cluster_server(redis_factory, play)


def test_a_table_deleted_while_a_change_is_written_leaves_nothing_in_the_writer(
    redis_factory, caplog
):
    """A table deleted (by another process's admin API, or the CLI) while a change of
    it is on its way to Redis: the commit fails (``unknown_table``), and the commit
    writer marks the table as failed so that the commits queued after it are refused
    until the table is loaded again. The table is never loaded again, so the mark
    stayed for as long as the process ran, one for each table deleted that way (found
    by the Redis soak's probe of deletions under forwarded changes). It goes when the
    table leaves memory (the next load would clear it anyway). Nor is the operator's
    deletion logged as an ERROR (it was, once per failed commit and reload)."""
    import json

    from websockets.asyncio.client import connect

    from rollbridge.offline import TableService
    from rollbridge.stores.redis import RedisStore

    async def play(server: ClusterServer) -> None:
        assert server.writer is not None
        service = TableService(server.store, server.host)
        other = RedisStore(server.redis_url)  # another process's view of the same Redis
        try:
            for n in range(3):
                info, tokens = service.create_table(f"T{n}", "bandits", table_id=f"d{n}")
                async with connect(f"ws://127.0.0.1:{server.port}/") as ws:
                    await ws.send(json.dumps({"type": "hello", "id": "h", "table": info.id,
                                              "token": tokens["gm"]}))  # fmt: skip
                    assert json.loads(await ws.recv())["type"] == "welcome"
                    await ws.send(json.dumps({"type": "roll", "id": "r1", "formula": "1d6"}))
                    while json.loads(await ws.recv()).get("id") != "r1":
                        pass
                    other.delete_table(info.id)
                    await ws.send(json.dumps({"type": "roll", "id": "r2", "formula": "1d6"}))
                    while (answer := json.loads(await ws.recv())).get("id") != "r2":
                        pass
                    assert answer["type"] == "error", answer
                async with asyncio.timeout(10):  # the table leaves memory, its lease goes
                    while server.tables.open or server.ownership.owned:
                        await asyncio.sleep(0.02)
            async with asyncio.timeout(5):  # the writer thread takes what it is told
                while server.writer._poisoned:
                    await asyncio.sleep(0.02)
        finally:
            other.close()

    with caplog.at_level("INFO", logger="rollbridge"):
        on_a_cluster_server(redis_factory, play)
    told = [r for r in caplog.records if r.name.startswith("rollbridge")]
    assert any("no table" in r.getMessage() for r in told), [r.getMessage() for r in told]
    assert [r.getMessage() for r in told if r.levelname == "ERROR"] == []


def test_a_deleted_table_s_lease_is_not_taken_again_by_a_forward(redis_factory):
    """The Redis soak stalled now and then (under load, a minute per cycle: its wait
    for the processes to be quiet ran to its bound): a process whose player sent
    changes to a table deleted in play on the other process kept the table in memory,
    and its lease in Redis, for as long as it ran. Deleting a table removes its lease;
    a change forwarded afterwards found nobody holding it and took it (``SET NX``),
    for a table no longer stored: its reload failed, and a reply parked for an event
    of the deleted table (answered by the owner before the deletion, not yet synced
    here, and never to be) kept the table in use, so the lease was renewed for good
    and the table never left memory. A forward now takes a lease only for a table
    stored in Redis (``TAKE``); for a deleted one its client is told
    ``unknown_table``, no lease is made, and the table goes when its clients do.

    Here the other process (``node-b``, holding the lease) is played over Redis: it
    pops the forwarded roll and answers it with the event after the table's seq, as
    it had committed it; then the table is deleted (as by ``node-b``'s admin API), and
    another roll is sent. (The poll, which would close the client on seeing the table
    gone, is kept out of the way: the deletion is seen through the forward only.)"""
    import json

    from websockets.asyncio.client import connect

    from rollbridge.offline import TableService
    from rollbridge.plain import pack, unpack
    from rollbridge.text import stored

    async def answer(ws: Any, request_id: str) -> dict:
        while (message := json.loads(await ws.recv())).get("id") != request_id:
            pass
        return message

    async def play(server: ClusterServer) -> None:
        assert server.redis is not None
        service = TableService(server.store, server.host)
        _info, tokens = service.create_table("T", "bandits", table_id="d")
        owner = server.keys.table("d").owner
        await server.redis.set(owner, "node-b", px=60_000)  # node-b runs the table
        other = RedisStore(server.redis_url)  # node-b's store
        try:
            async with connect(f"ws://127.0.0.1:{server.port}/") as ws:
                await ws.send(json.dumps({"type": "hello", "id": "h", "table": "d",
                                          "token": tokens["gm"]}))  # fmt: skip
                welcome = json.loads(await ws.recv())
                assert welcome["type"] == "welcome", welcome
                await ws.send(json.dumps({"type": "roll", "id": "r1", "formula": "1d6"}))
                inbox = f"{server.keys.prefix}node:node-b:inbox"
                popped = await server.redis.blpop([inbox], timeout=10)
                assert popped is not None, "nothing forwarded to the owner"
                forwarded = unpack(popped[1])
                result = {"type": "result", "id": "r1", "seq": welcome["seq"] + 1}
                await server.redis.rpush(server.replies, pack(
                    {"fid": forwarded["fid"], "message": result, "work": 0.0}, stored))  # fmt: skip
                async with asyncio.timeout(10):  # parked until its event is delivered here
                    while not server.tables.open["d"].parked:
                        await asyncio.sleep(0.02)
                other.delete_table("d")  # its lease with it
                await ws.send(json.dumps({"type": "roll", "id": "r2", "formula": "1d6"}))
                refused = await answer(ws, "r2")
                assert refused["type"] == "error" and refused["code"] == "unknown_table"
                assert not await server.redis.exists(owner), "a deleted table's lease was taken"
                assert not server.ownership.owns("d")
            async with asyncio.timeout(10):  # its client gone, so is the table
                while server.tables.open or server.ownership.owned:
                    await asyncio.sleep(0.02)
        finally:
            other.close()

    on_a_cluster_server(redis_factory, play, poll_interval=3600.0)
