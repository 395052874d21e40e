"""A table whose reload failed on a ``serve --redis`` process (a passing Redis error
met by the reads of that one table), on a real redis-server, with a real
:class:`ClusterServer`; the other process that ran the table (``node-b``) is played
over Redis, and really commits the change it is forwarded (as its own writer).

The hole (docs/redis.md, "One owner per table, with a lease"): a change forwarded to
``node-b`` is committed there and answered with its seq; the answer is parked here
until that seq is read. The next change finds ``node-b``'s lease gone, takes the
table over, and its reload fails. The table is then *broken* — and nothing ever
loaded it again (only a new request did), nor answered the parked reply: a client
still there waited for good; once every client had left, the parked reply still
counted as "in use", so the lease was renewed and the table kept in memory for as
long as the process ran. Now a broken table loads itself again with a growing pause
while a client or a request waits on it; a parked reply gets a bounded wait, then
``store_error`` (``not_synced``); and with nothing waiting and no client it gives
its lease up and leaves memory.

No assertion on durations: each test waits (bounded) for what it expects, and counts
the injected failures and the renewals.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import redis

from rollbridge.engine.model import Principal
from rollbridge.offline import TableService
from rollbridge.plain import pack, unpack
from rollbridge.server.cluster import ClusterServer
from rollbridge.stores.redis import RedisStore
from rollbridge.text import stored
from tests.stores.test_cluster_lease_memory import on_a_cluster_server

#: The reads that load or follow a table (a reload, a sync).
READS = ("FOLLOW", "FOLLOW_LOG", "LOAD")


class TableFaults:
    """Wraps ``store``'s scripts that read a table (:data:`READS`) so that, while
    :attr:`on`, those naming ``table_id``'s keys fail as a dropped connection does
    (``redis.ConnectionError``: a passing error, not the whole connection's); counts
    them by script. Other tables' reads, and every other call, go through."""

    def __init__(self, store: RedisStore, table_id: str) -> None:
        self.on = False
        self.failed: Counter[str] = Counter()
        info = store.keys.table(table_id).info
        scripts = store._scripts
        for name in READS:
            script = scripts[name]

            def read(keys: list[str], args: list[Any], _script: Any = script,
                     _name: str = name) -> Any:  # fmt: skip
                if self.on and info in keys:
                    self.failed[_name] += 1
                    raise redis.ConnectionError("injected: connection reset by peer")
                return _script(keys=keys, args=args)

            scripts[name] = read


async def answer_to(ws: Any, request_id: str) -> dict:
    while (message := json.loads(await ws.recv())).get("id") != request_id:
        pass
    return message


def open_tables(server: ClusterServer) -> float:
    """``rollbridge_open_tables`` as ``/metrics`` shows it."""
    text = server.metrics.render().decode()
    line = next(x for x in text.splitlines() if x.startswith("rollbridge_open_tables "))
    return float(line.split()[1])


class Stage:
    """A table ``t`` owned by ``node-b`` (played here), a GM of it connected to the
    server under test (``node-a``), and the reads of ``t`` there failing on demand."""

    def __init__(self, server: ClusterServer) -> None:
        assert server.redis is not None
        self.server = server
        self.redis = server.redis
        self.service = TableService(server.store, server.host)
        _info, tokens = self.service.create_table("T", "bandits", table_id="t")
        self.token = tokens["gm"]
        self.owner = server.keys.table("t").owner
        self.inbox_b = f"{server.keys.prefix}node:node-b:inbox"
        self.store_b = RedisStore(server.redis_url, writer="node-b")  # node-b's store
        self.node_b = TableService(self.store_b, server.host)
        assert isinstance(server.store, RedisStore)
        self.faults = TableFaults(server.store, "t")
        self.renewals = 0
        renew = server._renew

        async def counted(*, keys: list[str], args: list[Any]) -> Any:
            if keys == [self.owner]:
                self.renewals += 1
            return await renew(keys=keys, args=args)

        server._renew = counted  # type: ignore[method-assign]

    def close(self) -> None:
        self.store_b.close()

    async def hello(self, ws: Any) -> dict:
        await ws.send(json.dumps({"type": "hello", "id": "h", "table": "t", "token": self.token}))
        welcome = json.loads(await ws.recv())
        assert welcome["type"] == "welcome", welcome
        return welcome

    async def r1_to_b(self, ws: Any) -> dict:
        """``node-b`` holds the lease; the GM joins here (its welcome returned), the
        reads of ``t`` start failing, and the GM sends r1 (forwarded to ``node-b``)."""
        await self.redis.set(self.owner, "node-b", px=60_000)
        welcome = await self.hello(ws)
        self.faults.on = True
        await ws.send(json.dumps({"type": "roll", "id": "r1", "formula": "1d6"}))
        return welcome

    async def run_on_b(self) -> dict:
        """``node-b`` pops the next change forwarded to it, commits it (its lease
        held) and answers it, as its process would: the answer it sent."""
        popped = await self.redis.blpop([self.inbox_b], timeout=10)
        assert popped is not None, "nothing forwarded to the owner"
        body = unpack(popped[1])
        message = body["message"]
        fields = self.node_b.handle("t", message, Principal(*body["who"]))
        result = {"type": "result", "id": message["id"], **fields}
        await self.redis.rpush(self.server.replies, pack(
            {"fid": body["fid"], "message": result, "work": 0.0}, stored))  # fmt: skip
        return result

    async def refused(self, ws: Any, request_id: str) -> dict:
        """The answer to ``request_id`` (waited for, bounded): ``store_error``."""
        try:
            async with asyncio.timeout(15):
                refused = await answer_to(ws, request_id)
        except TimeoutError:
            raise AssertionError(f"{request_id} is never answered: {self.state()}") from None
        assert refused["type"] == "error" and refused["code"] == "store_error", refused
        return refused

    async def next_event_once_read(self, ws: Any) -> dict:
        """The reads of ``t`` work again: the next event the client is sent."""
        self.faults.on = False
        async with asyncio.timeout(15):
            while (message := json.loads(await ws.recv())).get("type") != "event":
                pass
        return message

    async def parked_then_taken_over(self, ws: Any) -> None:
        """r1 is run by ``node-b`` (event 1) and its answer parked here, the reads of
        ``t`` failing; then ``node-b``'s lease goes (it died), r2 takes the table over
        and its reload fails: r2 is refused, r1's answer stays parked."""
        welcome = await self.r1_to_b(ws)
        result = await self.run_on_b()
        assert result["seq"] == welcome["seq"] + 1
        table = self.server.tables.open["t"]
        async with asyncio.timeout(10):  # parked until its event is read here
            while not table.parked:
                await asyncio.sleep(0.01)
        await self.redis.delete(self.owner)  # node-b is gone
        await ws.send(json.dumps({"type": "roll", "id": "r2", "formula": "1d6"}))
        refused = await answer_to(ws, "r2")
        assert refused["type"] == "error" and refused["code"] == "store_error", refused
        assert self.server.ownership.owns("t") and table.broken and table.parked
        assert self.faults.failed["FOLLOW"] >= 1  # the reload's read

    def state(self) -> dict:
        """What keeps the table here (as the soak's ``diagnose`` reports it)."""
        table = self.server.tables.open.get("t")
        held = None
        if table is not None:
            held = {name: getattr(table, name) for name in ("broken", "syncing", "forwards_out")}
            held.update(members=len(table.members), parked=len(table.parked), used=table.used)
        return {"table": held, "owned": sorted(self.server.ownership.owned),
                "renewals": self.renewals, "open_tables": open_tables(self.server),
                "failed": dict(self.faults.failed)}  # fmt: skip


@contextlib.asynccontextmanager
async def broken_with_a_client(server: ClusterServer, patience: float) -> AsyncIterator[Any]:
    """A :class:`Stage` after :meth:`~Stage.parked_then_taken_over`, its client still
    connected: ``(stage, ws)``. Reloads are tried again soon (every 0.05–0.2 s), a
    parked reply waits ``patience`` seconds."""
    from websockets.asyncio.client import connect

    server.reload_retry = (0.05, 0.2)
    server.park_timeout = patience
    stage = Stage(server)
    try:
        async with connect(f"ws://127.0.0.1:{server.port}/") as ws:
            await stage.parked_then_taken_over(ws)
            yield stage, ws
    finally:
        stage.close()


@contextlib.asynccontextmanager
async def followed_with_r1_run(server: ClusterServer, patience: float) -> AsyncIterator[Any]:
    """A :class:`Stage` after :meth:`~Stage.r1_to_b` and :meth:`~Stage.run_on_b`:
    this process follows ``t``, its reads failing, r1's answer (event 1) parked;
    ``(stage, ws)``. A parked reply waits ``patience`` seconds."""
    from websockets.asyncio.client import connect

    server.park_timeout = patience
    stage = Stage(server)
    try:
        async with connect(f"ws://127.0.0.1:{server.port}/") as ws:
            await stage.r1_to_b(ws)
            await stage.run_on_b()
            yield stage, ws
    finally:
        stage.close()


def test_a_broken_table_whose_clients_left_gives_its_lease_up(redis_factory):
    """The hole itself: the reload of a table taken over fails (a passing error of
    its reads), a reply is parked there, and its client leaves; the error passes.
    Before, the parked reply kept the table "in use" for good: its lease renewed at
    every turn of the lease keeper, the table in memory (``rollbridge_open_tables``
    1), nothing ever loading it again. Now the reply goes with its client, nothing
    waits on the table, and it is given up like any unused table."""
    from websockets.asyncio.client import connect

    async def play(server: ClusterServer) -> None:
        stage = Stage(server)
        try:
            async with connect(f"ws://127.0.0.1:{server.port}/") as ws:
                await stage.parked_then_taken_over(ws)
            stage.faults.on = False  # the error passes
            renewed = stage.renewals
            try:
                async with asyncio.timeout(15):  # 4 unused leases of 0.3 s, then given up
                    while (
                        "t" in server.tables.open
                        or server.ownership.owns("t")
                        or await stage.redis.exists(stage.owner)  # released in Redis
                    ):
                        await asyncio.sleep(0.02)
            except TimeoutError:
                raise AssertionError(f"the table is still held: {stage.state()}") from None
            assert stage.renewals - renewed < 40, stage.state()  # not renewed for good
            assert open_tables(server) == 0
        finally:
            stage.close()

    on_a_cluster_server(redis_factory, play, poll_interval=0.05)


def test_a_broken_table_loads_itself_again_and_answers_the_parked_reply(redis_factory):
    """A client stays at the broken table and sends nothing more. Before, nothing
    loaded the table again: the client never got r1's answer (nor any event). Now
    the reload is tried again, with a growing pause, while the error lasts (two more
    tries here), and once it passes the client is sent event 1 and then r1's answer,
    parked until then — the change committed by the owner, never lost."""

    async def play(server: ClusterServer) -> None:
        async with broken_with_a_client(server, 3600.0) as (stage, ws):
            try:
                async with asyncio.timeout(15):  # the reload tried again, failing
                    while stage.faults.failed["FOLLOW"] < 3:
                        await asyncio.sleep(0.01)
            except TimeoutError:
                raise AssertionError(f"not loaded again: {stage.state()}") from None
            stage.faults.on = False  # the error passes
            seen = []
            async with asyncio.timeout(15):
                while (message := json.loads(await ws.recv())).get("id") != "r1":
                    seen.append(message)
            assert message["type"] == "result" and message["seq"] == 1, message
            assert [m.get("seq") for m in seen if m.get("type") == "event"] == [1], seen
            table = server.tables.open["t"]
            assert not table.broken and not table.parked and table.durable_seq == 1
            # and play goes on here, the owner now
            await ws.send(json.dumps({"type": "roll", "id": "r3", "formula": "1d6"}))
            later = await answer_to(ws, "r3")
            assert later["type"] == "result" and later["seq"] == 2, later

    on_a_cluster_server(redis_factory, play, poll_interval=0.05)


def test_a_parked_reply_is_refused_after_a_bounded_wait(redis_factory, caplog):
    """The error lasts: the client still at the table is told ``store_error`` for
    r1 after ``park_timeout`` (the log says why: event 1 not read back), rather than
    waiting for good; sent again with the same id once the error has
    passed, r1 is answered with its result, from the owner's commit (seq 1: it
    was not run twice)."""

    async def play(server: ClusterServer) -> None:
        async with broken_with_a_client(server, 0.5) as (stage, ws):
            async with asyncio.timeout(15):
                refused = await answer_to(ws, "r1")
            assert refused["type"] == "error" and refused["code"] == "store_error", refused
            assert stage.faults.failed["FOLLOW"] >= 2  # tried again meanwhile
            assert "t" in server.tables.open  # its client is still there
            stage.faults.on = False
            await ws.send(json.dumps({"type": "roll", "id": "r1", "formula": "1d6"}))
            again = await answer_to(ws, "r1")
            assert again["type"] == "result" and again["seq"] == 1, again
        async with asyncio.timeout(15):  # its client gone, so is the table
            while "t" in server.tables.open or server.ownership.owns("t"):
                await asyncio.sleep(0.02)

    on_a_cluster_server(redis_factory, play, poll_interval=0.05)
    told = [r.getMessage() for r in caplog.records if r.name == "rollbridge.cluster"]
    assert sum("the change was written (event 1)" in m for m in told) == 1, told


def test_a_forward_that_finds_the_table_broken_by_another_s_take_over_runs(redis_factory):
    """Two clients' changes forwarded to ``node-b``, which dies with them: the first
    to see its lease gone takes the table over, and its reload fails (refused
    ``store_error``); the second then finds the table owned here and broken. It was
    held "until the reload" — but none was running any more: it waited for good,
    and so did every request of the table after it (each held behind it), while its
    clients kept the table "in use". It now starts a reload of its own, and runs
    once that works. (The retries of :meth:`ClusterTable.tick` are kept out of the
    way: the request does not wait for them.)"""
    from websockets.asyncio.client import connect

    async def play(server: ClusterServer) -> None:
        server.reload_retry = (3600.0, 3600.0)
        stage = Stage(server)
        assert server.redis is not None
        get = server.redis.get
        taken, go = asyncio.Event(), asyncio.Event()

        async def gated(key: Any) -> Any:
            # once a forward has seen the lease gone, the others' looks (and one that
            # was on its way then, seeing this process take it) wait for ``go``
            if key == stage.owner and taken.is_set():
                await go.wait()
            value = await get(key)
            if key == stage.owner:
                if value is None:
                    taken.set()
                elif taken.is_set():
                    await go.wait()
            return value

        try:
            await stage.redis.set(stage.owner, "node-b", px=60_000)
            url = f"ws://127.0.0.1:{server.port}/"
            async with connect(url) as ws1, connect(url) as ws2:
                await stage.hello(ws1)
                await stage.hello(ws2)  # the GM on two connections: two forwards at once
                stage.faults.on = True
                await ws1.send(json.dumps({"type": "roll", "id": "r1", "formula": "1d6"}))
                await ws2.send(json.dumps({"type": "roll", "id": "r2", "formula": "1d6"}))
                seen: set[str] = set()
                while seen != {"r1", "r2"}:  # node-b takes both, and dies
                    popped = await stage.redis.blpop([stage.inbox_b], timeout=10)
                    assert popped is not None, seen
                    seen.add(unpack(popped[1])["message"]["id"])
                server.redis.get = gated  # type: ignore[method-assign]
                await stage.redis.delete(stage.owner)
                answers = {"r1": asyncio.ensure_future(answer_to(ws1, "r1")),
                           "r2": asyncio.ensure_future(answer_to(ws2, "r2"))}  # fmt: skip
                async with asyncio.timeout(15):  # the first: taken over, its reload failed
                    await asyncio.wait(answers.values(), return_when=asyncio.FIRST_COMPLETED)
                ((first_id, first),) = [(k, t.result()) for k, t in answers.items() if t.done()]
                assert first["type"] == "error" and first["code"] == "store_error", first
                assert server.ownership.owns("t") and server.tables.open["t"].broken
                stage.faults.on = False  # the error passes
                go.set()
                other = "r2" if first_id == "r1" else "r1"
                try:
                    async with asyncio.timeout(15):
                        answer = await answers[other]
                except TimeoutError:
                    raise AssertionError(f"{other} is never answered: {stage.state()}") from None
                assert answer["type"] == "result" and answer["seq"] == 1, answer
        finally:
            stage.close()

    on_a_cluster_server(redis_factory, play, poll_interval=0.05)


def test_a_reply_parked_on_a_follower_whose_reads_fail_is_refused_in_time(redis_factory):
    """The same wait without a takeover: ``node-b`` runs the table and answers r1;
    this process follows the table, but every read of it fails, so the event r1
    names is never read here and its answer was parked for good — the client
    waiting, the table kept for it. Now it is refused ``store_error`` after
    ``park_timeout``; once the error passes, the poll reads the table and the client
    is sent event 1."""

    async def play(server: ClusterServer) -> None:
        async with followed_with_r1_run(server, 0.5) as (stage, ws):
            await stage.refused(ws, "r1")
            assert stage.faults.failed["FOLLOW_LOG"] >= 1  # it tried to read it
            assert not server.ownership.owns("t")
            message = await stage.next_event_once_read(ws)
            assert message["seq"] == 1, message

    on_a_cluster_server(redis_factory, play, poll_interval=0.05)


def test_an_answer_for_a_client_gone_is_not_parked(redis_factory):
    """The client leaves while its change is out on ``node-b``; the answer then
    names an event this process has not read (its reads failing). It was parked all
    the same, for nobody — and a parked reply makes a table "in use" to the lease
    keeper of a process that owns it (or comes to own it), until ``park_timeout``.
    It is not parked now; the table leaves memory, nothing waiting on it."""
    from websockets.asyncio.client import connect

    async def play(server: ClusterServer) -> None:
        server.park_timeout = 3600.0
        stage = Stage(server)
        try:
            async with connect(f"ws://127.0.0.1:{server.port}/") as ws:
                await stage.r1_to_b(ws)
                popped = await stage.redis.blpop([stage.inbox_b], timeout=10)
                assert popped is not None, "nothing forwarded to the owner"
            table = server.tables.open["t"]
            async with asyncio.timeout(15):  # this process saw its client go
                while table.members:
                    await asyncio.sleep(0.01)
            await stage.redis.rpush(stage.inbox_b, popped[1])  # node-b runs it now
            await stage.run_on_b()
            try:
                async with asyncio.timeout(15):
                    while "t" in server.tables.open:
                        await asyncio.sleep(0.02)
            except TimeoutError:
                raise AssertionError(f"the table is still held: {stage.state()}") from None
            assert table.forwards_out == 0 and not table.parked
        finally:
            stage.close()

    on_a_cluster_server(redis_factory, play, poll_interval=0.05)


def test_a_table_broken_for_hours_still_loads_itself_again(redis_factory, caplog):
    """The pause between two reloads was ``first * 2 ** (failures - 1)``, capped
    after it was computed: after 1,025 failures in a row (some 2 h 17 min of 8 s
    pauses, a client staying) the power no longer fit a float, and every poll's
    :meth:`ClusterTable.tick` raised ``OverflowError`` — logged with its traceback
    every poll, the table never loaded again, and the late parked replies taken
    off the table without their refusal being sent. The pause is capped before it
    is computed now: the table goes on trying, its log quiet."""

    async def play(server: ClusterServer) -> None:
        async with broken_with_a_client(server, 3600.0) as (stage, ws):
            table = server.tables.open["t"]
            async with asyncio.timeout(15):  # the first retry has been tried and failed
                while stage.faults.failed["FOLLOW"] < 2 or table.reloading:
                    await asyncio.sleep(0.01)
            table.failures = 5000  # as after hours of a lasting error
            tried = stage.faults.failed["FOLLOW"]
            try:
                async with asyncio.timeout(15):
                    while stage.faults.failed["FOLLOW"] < tried + 2:
                        await asyncio.sleep(0.01)
            except TimeoutError:
                raise AssertionError(f"not loaded again: {stage.state()}") from None
            stage.faults.on = False
            async with asyncio.timeout(15):
                answer = await answer_to(ws, "r1")
            assert answer["type"] == "result" and answer["seq"] == 1, answer

    on_a_cluster_server(redis_factory, play, poll_interval=0.05)
    failed = [r for r in caplog.records if "its timers failed" in r.getMessage()]
    assert failed == [], failed[0].exc_text


def test_a_table_whose_reads_fail_here_hands_its_lease_over(redis_factory, caplog):
    """The reads of the table fail here for good, its client staying. Before, the
    table stayed "in use" (its client): its lease was renewed for as long as the
    error lasted, and every other process's change of it was forwarded here and
    refused, none of them ever trying to read the table itself. Now, after
    ``HAND_OVER_AFTER`` failed reloads in a row, the lease is given up — the table
    and its client stay here, a follower — and another process takes the table
    over; once this process reads again, its client is sent what it missed, then
    r1's parked answer, and its next change runs at the new owner."""
    from rollbridge.server.cluster_table import HAND_OVER_AFTER

    async def play(server: ClusterServer) -> None:
        async with broken_with_a_client(server, 3600.0) as (stage, ws):
            table = server.tables.open["t"]
            try:
                async with asyncio.timeout(15):
                    while server.ownership.owns("t") or await stage.redis.exists(stage.owner):
                        await asyncio.sleep(0.01)
            except TimeoutError:
                raise AssertionError(f"the lease is kept: {stage.state()}") from None
            assert stage.faults.failed["FOLLOW"] >= HAND_OVER_AFTER
            assert server.tables.open.get("t") is table and len(table.members) == 1
            await stage.redis.set(stage.owner, "node-b", px=60_000)  # node-b takes it
            stage.faults.on = False
            await ws.send(json.dumps({"type": "roll", "id": "r3", "formula": "1d6"}))
            result = await stage.run_on_b()  # forwarded to the new owner
            assert result["seq"] == 2, result
            seen = []
            async with asyncio.timeout(15):
                while (message := json.loads(await ws.recv())).get("id") != "r3":
                    seen.append(message)
            assert message["type"] == "result" and message["seq"] == 2, message
            order = [m.get("seq") if m.get("type") == "event" else m.get("id") for m in seen]
            assert [x for x in order if x in (1, 2, "r1")] == [1, "r1", 2], seen
            assert not server.ownership.owns("t")

    on_a_cluster_server(redis_factory, play, poll_interval=0.05)
    told = [r.getMessage() for r in caplog.records if r.name == "rollbridge.cluster"]
    assert sum("giving its lease up" in m for m in told) == 1, told


def test_a_broken_table_that_loses_its_lease_is_not_synced(redis_factory, caplog):
    """A broken table's lease is taken by another process. Its loss, and the new
    subscription to its channel, each asked it to sync (:meth:`ClusterTable.resync`):
    a read whose result a broken table drops (its reload reads it all), and which,
    its reads failing, logged a WARNING each time. It is not synced now; nor is it
    by the poll (a notice) meanwhile."""

    async def play(server: ClusterServer) -> None:
        async with broken_with_a_client(server, 3600.0) as (stage, _ws):
            server.reload_retry = (3600.0, 3600.0)  # no retry in the way
            table = server.tables.open["t"]
            async with asyncio.timeout(15):
                while table.reloading:
                    await asyncio.sleep(0.01)
            before = dict(stage.faults.failed)
            logged = len(caplog.records)
            channel = server.keys.table("t").channel
            await stage.redis.set(stage.owner, "node-b", px=60_000)  # taken elsewhere
            async with asyncio.timeout(15):  # lost, and followed: subscribed to
                while (
                    server.ownership.owns("t")
                    or (await stage.redis.pubsub_numsub(channel))[0][1] != 1
                ):
                    await asyncio.sleep(0.01)
            ticks = 0
            tick = server._tick

            def counted() -> None:
                nonlocal ticks
                ticks += 1
                tick()

            server._tick = counted  # type: ignore[method-assign]
            async with asyncio.timeout(15):  # three polls more (each notices seq 1)
                while ticks < 3:
                    await asyncio.sleep(0.01)
            assert dict(stage.faults.failed) == before, stage.state()
            assert table.broken and not table.syncing
            told = [r.getMessage() for r in caplog.records[logged:]]
            assert not any("following the stored log failed" in m for m in told), told

    on_a_cluster_server(redis_factory, play, poll_interval=0.05)


def test_a_follower_whose_reads_fail_says_so_once(redis_factory, caplog):
    """A follower whose reads of the table fail, its client staying: every poll
    syncs it again (the table is ahead: a notice), and each failed sync logged a
    WARNING — one a second for as long as the error lasted (every poll here). The
    first failure of a streak is a WARNING now, the others DEBUG, and the sync that
    works again says so once (INFO)."""
    caplog.set_level(logging.INFO, logger="rollbridge.cluster")

    async def play(server: ClusterServer) -> None:
        async with followed_with_r1_run(server, 3600.0) as (stage, ws):
            async with asyncio.timeout(15):  # the poll tries again and again
                while stage.faults.failed["FOLLOW_LOG"] < 5:
                    await asyncio.sleep(0.01)
            message = await stage.next_event_once_read(ws)
            assert message["seq"] == 1, message

    on_a_cluster_server(redis_factory, play, poll_interval=0.05)
    told = [
        (r.levelname, r.getMessage())
        for r in caplog.records
        if r.name == "rollbridge.cluster" and r.levelno >= logging.INFO
    ]
    failed = [x for x in told if "following the stored log failed" in x[1]]
    assert [level for level, _ in failed] == ["WARNING"], told
    assert sum("following the stored log works again" in m for _, m in told) == 1, told


def test_a_reload_whose_table_does_not_fit_counts_as_failed(redis_factory, caplog):
    """The reload reads the table, but the table read cannot be taken here (made
    to raise as a table that does not fit the ruleset would). The reload's result
    raised out of its callback: its hold on the table was never let go (every later
    request held for good, unanswered), and its count of failures was reset first
    — so the poll tried again every half second, with a traceback each time, for
    good, and never handed the lease over. It counts as a failed reload now: the
    request waiting for it is refused ``store_error``, the pause grows, the lease is
    handed over after ``HAND_OVER_AFTER``; once the table fits, it is read again."""
    from rollbridge.server.cluster_table import HAND_OVER_AFTER

    async def play(server: ClusterServer) -> None:
        async with broken_with_a_client(server, 3600.0) as (stage, ws):
            table = server.tables.open["t"]
            adopt = table.adopt
            unfit = 0

            def boom(_taken: Any) -> Any:
                nonlocal unfit
                unfit += 1
                raise ValueError("injected: the stored table does not fit")

            table.adopt = boom  # type: ignore[method-assign]
            stage.faults.on = False  # the reads work; the table read does not fit
            await ws.send(json.dumps({"type": "roll", "id": "r2", "formula": "1d6"}))
            await stage.refused(ws, "r2")
            try:
                async with asyncio.timeout(15):
                    while server.ownership.owns("t"):
                        await asyncio.sleep(0.01)
            except TimeoutError:
                raise AssertionError(f"the lease is kept: {stage.state()}") from None
            assert unfit >= HAND_OVER_AFTER - 1 and table.failures >= HAND_OVER_AFTER
            table.adopt = adopt  # type: ignore[method-assign]
            message = await stage.next_event_once_read(ws)
            assert message["seq"] == 1, message
            async with asyncio.timeout(15):
                answer = await answer_to(ws, "r1")
            assert answer["type"] == "result" and answer["seq"] == 1, answer
            assert not table.broken and table._holding == 0

    on_a_cluster_server(redis_factory, play, poll_interval=0.05)
    told = [r.getMessage() for r in caplog.records if r.levelno >= 40]
    assert not any("Exception in callback" in m for m in told), told
