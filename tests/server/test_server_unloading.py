"""A long-running server lets go of what its clients left: a table nobody is at
leaves memory once the reads and writes it started are done, whenever its last
client left (during a ``stats``, a ``state`` at an earlier seq, a resume, the
reload after a failed commit); and a client that left while its ``hello`` was being
answered leaves nothing behind (no timer keeps its object alive).

Each store read is held on its reader thread by a :class:`Gate` (threading events,
no sleeps) while the client leaves, so the leaving always happens mid-read."""

from __future__ import annotations

import asyncio
import gc
import threading
import weakref
from collections.abc import Callable
from typing import Any

import pytest
from websockets.asyncio.client import connect

from rollbridge.exceptions import StoreError
from rollbridge.protocol.effects import LoadTable
from rollbridge.protocol.table import TableProtocol
from rollbridge.server.client import Client
from rollbridge.server.limits import Limits
from tests.server.conftest import Peer
from tests.server.httpclient import get
from tests.server.test_server_failures import failing_for


class Gate:
    """Holds every call of one store method on its (reader) thread until
    :meth:`open`; then it runs, or raises ``fail``."""

    def __init__(self, store: Any, name: str, fail: BaseException | None = None) -> None:
        self.entered, self.opened, self.left = (threading.Event() for _ in range(3))
        original = getattr(store, name)

        def held(*args: Any, **kwargs: Any) -> Any:
            self.entered.set()
            self.opened.wait(10)
            try:
                if fail is not None:
                    raise fail
                return original(*args, **kwargs)
            finally:
                self.left.set()

        setattr(store, name, held)

    async def reached(self) -> None:
        assert await asyncio.to_thread(self.entered.wait, 10), "the read never started"

    async def open(self) -> None:
        self.opened.set()
        assert await asyncio.to_thread(self.left.wait, 10), "the read never ended"


async def settled(predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
    """Whether ``predicate`` holds within ``timeout`` seconds (polled)."""
    try:
        async with asyncio.timeout(timeout):
            while not predicate():
                await asyncio.sleep(0.01)
    except TimeoutError:
        return False
    return True


def alive(refs: list[weakref.ref[Any]]) -> int:
    """How many of the objects ``refs`` point to are still alive."""
    return sum(ref() is not None for ref in refs)


async def let_go(refs: list[weakref.ref[Any]]) -> bool:
    """Whether nothing keeps the objects ``refs`` point to, soon (polled, collected)."""

    def collected() -> bool:
        gc.collect()
        return not alive(refs)

    return await settled(collected)


async def resume_from_zero(world: Any, welcome: dict[str, Any]) -> tuple[Peer, Any]:
    """A new connection's GM ``hello`` at tally, resuming from seq 0 of ``welcome``'s
    epoch (sent, not waited for): the connection and the hello's id."""
    peer = Peer(await connect(world.server.url))
    world.peers.append(peer)
    token = world.tokens["tally"]["gm"]
    hello = await peer.send({"type": "hello", "table": "tally", "token": token,
                             "resume": {"epoch": welcome["epoch"], "seq": 0}})  # fmt: skip
    return peer, hello


async def open_tables_metric(server: Any) -> float:
    _status, _headers, body = await get(server, "/metrics")
    line = next(x for x in body.decode().splitlines() if x.startswith("rollbridge_open_tables "))
    return float(line.split()[1])


async def leave_now(world: Any, peer: Peer, *, staying: int = 0) -> None:
    """The client goes; the server has seen it go (its connection left the table):
    ``staying`` connections are left."""
    await peer.close()
    assert await settled(lambda: len(world.server.clients) <= staying), "the server kept it"


@pytest.mark.parametrize("kind", ["stats", "state_at", "resume"])
async def test_a_table_whose_last_client_left_during_a_read_is_unloaded(tables, kind):
    """The client leaves while its read of the log is out: once the read is back the
    table leaves memory (before the fix it stayed loaded for good: the leaving tried
    to release it while the read was out, and the read's end never tried again)."""
    server = tables.server
    gm, welcome = await tables.join("tally", "gm")
    await gm.request({"type": "roll", "formula": "1d6"})
    if kind == "resume":  # it left, and comes back to resume from seq 0
        await leave_now(tables, gm)
        assert await settled(lambda: not server.tables.open)
    # state at a seq reads the events' changes alone (hostile28), the others whole
    gate = Gate(tables.store, "changes_after" if kind == "state_at" else "events_after")
    if kind == "resume":
        gm = Peer(await connect(server.url))
        tables.peers.append(gm)
        token = tables.tokens["tally"]["gm"]
        await gm.send({"type": "hello", "table": "tally", "token": token,
                       "resume": {"epoch": welcome["epoch"], "seq": 0}})  # fmt: skip
    elif kind == "stats":
        await gm.send({"type": "stats"})
    else:
        await gm.send({"type": "state", "at": 1})
    await gate.reached()
    await leave_now(tables, gm)
    assert "tally" in server.tables.open  # its read is still out
    await gate.open()
    assert await settled(lambda: not server.tables.open), "the table stayed loaded"
    assert await open_tables_metric(server) == 0
    # it loads again for the next client, as it was
    _again, welcome = await tables.join("tally", "gm")
    assert welcome["type"] == "welcome" and welcome["seq"] == 3


@pytest.mark.parametrize("reload", ["loaded", "failed"])
async def test_a_table_left_during_its_reload_after_a_failed_commit_is_unloaded(tables, reload):
    """A commit fails, the table is loaded again, and its client leaves while that
    load is out: the table leaves memory when the load is back (done or failed)."""
    server = tables.server
    gm, _ = await tables.join("tally", "gm")
    failing_for(tables.store, "tally", times=1)
    fail = StoreError("disk unreadable (simulated)") if reload == "failed" else None
    gate = Gate(tables.store, "load", fail)
    refused = await gm.request({"type": "roll", "formula": "1d6"})
    assert refused["code"] == "store_error"
    await gate.reached()  # the reload
    await leave_now(tables, gm)
    await gate.open()
    assert await settled(lambda: not server.tables.open), "the table stayed loaded"
    assert await open_tables_metric(server) == 0


async def test_a_table_left_during_a_held_request_s_read_is_unloaded(tables):
    """A repeated request id the table's key filter may know is checked in the store
    (the table's requests wait behind that read): its client leaves meanwhile."""
    server = tables.server
    gm, _ = await tables.join("tally", "gm")
    first = await gm.request({"type": "roll", "formula": "1d6", "id": "r1"})
    await leave_now(tables, gm)
    assert await settled(lambda: not server.tables.open)
    gm, _ = await tables.join("tally", "gm")  # loaded again: r1 is only in the store now
    gate = Gate(tables.store, "reply")
    await gm.send({"type": "roll", "formula": "1d6", "id": "r1"})
    await gate.reached()
    await leave_now(tables, gm)
    await gate.open()
    assert await settled(lambda: not server.tables.open), "the table stayed loaded"
    again, _ = await tables.join("tally", "gm")
    repeat = await again.request({"type": "roll", "formula": "1d6", "id": "r1"})
    assert repeat["seq"] == first["seq"]  # answered from the store, not rolled again


async def test_a_failed_welcome_leaves_the_table_and_the_connection_may_say_hello_again(tables):
    """A resume whose read fails refuses the ``hello``, and its member leaves: the
    connection is no longer at the table, which nothing else holds and which is dropped
    at once — never under a connection that uses it (the refused one's next frame
    finds it is no longer at the table, docs/engine.md). Its next ``hello`` is
    welcomed, on the one copy of the table every connection shares. (Before, the
    refused connection stayed at the table, which it kept in memory, and its next
    ``hello`` was refused as "already joined".)"""
    server = tables.server
    gm, welcome = await tables.join("tally", "gm")
    await gm.request({"type": "roll", "formula": "1d6"})
    await leave_now(tables, gm)
    assert await settled(lambda: not server.tables.open)
    gate = Gate(tables.store, "events_after", StoreError("disk unreadable (simulated)"))
    peer, hello = await resume_from_zero(tables, welcome)
    token = tables.tokens["tally"]["gm"]
    await gate.reached()
    await gate.open()
    assert (await peer.reply(hello))["code"] == "store_error"
    assert not server.tables.open  # dropped with the read, not at the sweep
    again = await peer.request({"type": "hello", "table": "tally", "token": token})
    assert again["type"] == "welcome"
    protocol = server.tables.open["tally"]
    other, _ = await tables.join("tally", "player")
    assert server.tables.open.get("tally") is protocol  # one copy of the table
    await leave_now(tables, other, staying=1)
    assert server.tables.open.get("tally") is protocol, "dropped under a connection"
    await leave_now(tables, peer)
    assert await settled(lambda: not server.tables.open)


async def test_the_sweep_drops_a_table_left_idle_by_a_path_not_foreseen(make_tables, caplog):
    """The backstop: a table the registry holds with nobody at it and nothing running
    (put there by hand here, as a path nobody foresaw would leave it) is dropped by
    the periodic sweep, which says so."""
    world = await make_tables(sweep_interval=0.05)
    server = world.server
    loaded = await asyncio.to_thread(LoadTable(table_id="sr2").run, world.store)
    stray = TableProtocol.open(loaded, server.host.rulesets)
    server.tables.open["sr2"] = stray
    busy, _ = await world.join("tally", "gm")  # a table in use is kept
    assert await settled(lambda: "sr2" not in server.tables.open), "the sweep never ran"
    assert "tally" in server.tables.open
    assert (await busy.request({"type": "ping"}))["type"] == "pong"
    said = [r for r in caplog.records if r.name == "rollbridge.server" and r.levelname == "WARNING"]
    assert [r.getMessage() for r in said] == ["dropped 1 idle table left in memory"]


# -- a client gone while its hello is answered --------------------------------------


async def deadline_watched(
    make_tables: Any, monkeypatch: Any, hello_timeout: float = 0.2
) -> tuple[Any, asyncio.Event]:
    """A world whose hello timeout is ``hello_timeout`` seconds, and an event set each
    time a client's hello deadline has looked (:meth:`Client._no_hello`)."""
    limits = Limits(hello_timeout=hello_timeout, rate_per_connection=None, rate_per_table=None,
                    per_token=None, per_address=None)  # fmt: skip
    world = await make_tables(limits=limits)
    looked = asyncio.Event()
    looks = Client._no_hello

    def look(self: Client) -> None:
        looks(self)
        looked.set()

    monkeypatch.setattr(Client, "_no_hello", look)
    return world, looked


@pytest.mark.parametrize("slow", ["find_token", "load"])
async def test_a_client_gone_during_its_hello_past_the_deadline_is_let_go(
    make_tables, monkeypatch, slow
):
    """The hello deadline passes while the hello is answered (the token look-up, or
    the table's load, is slow), and the client goes before it is: nothing keeps the
    client's object (before the fix a timer looked again every second, for ever:
    ``joining`` was never reset), and the hello loads nothing for nobody.

    The 0.2 s deadline is set once the hello is held at the gate: set at the
    connection's start, a loop starved for 0.2 s before it read the hello —
    met under load with two workers — cut the client off as one that never said
    ``hello`` (rightly: its deadline had passed), and the read never started. The
    deadline at the start is a hang guard here, long enough for any load."""
    world, fired = await deadline_watched(make_tables, monkeypatch, hello_timeout=60)
    server = world.server
    loads: list[str] = []
    load = world.store.load
    world.store.load = lambda table_id: loads.append(table_id) or load(table_id)
    gate = Gate(world.store, slow)
    peer = Peer(await connect(server.url))
    world.peers.append(peer)
    await peer.send({"type": "hello", "table": "tally", "token": world.tokens["tally"]["gm"]})
    await gate.reached()
    (client,) = server.clients
    server.hello_timeout = 0.2  # its deadline from now, while its hello is answered
    client._start_deadline()
    await asyncio.wait_for(fired.wait(), 30)  # (a hang guard)
    assert client.protocol.joining
    gone = weakref.ref(client)
    del client
    await leave_now(world, peer)
    await gate.open()

    def collected() -> bool:
        gc.collect()
        return gone() is None

    # (the read's callback holds the client until it has run: then it is let go. The
    # load runs on a reader thread after the gate opens: on a CI machine at a load of
    # 19 it took over 3 s; a client kept for ever still fails, only later)
    assert await settled(collected, timeout=30), "the client's object is kept alive"
    assert not server.tables.open
    # gone before its token was found, it had nothing loaded for it
    assert loads == ([] if slow == "find_token" else ["tally"])


@pytest.mark.parametrize("failure", ["store_error", "internal"])
async def test_a_connection_whose_welcome_failed_is_held_to_a_new_hello_deadline(
    make_tables, monkeypatch, failure
):
    """A ``hello`` with a resume: its hello deadline passes while the missed events
    are read (the connection is at the table then: the deadline lets it be), and the
    welcome then fails — the read fails, or a bug once it is back. The member leaves,
    and the connection may say ``hello`` again; one that never does is closed as one
    that never said ``hello`` (1008, the same reason), a hello timeout after the
    failure. Before, nothing closed it: its deadline had passed for good."""
    from tests.server.test_server_unexpected import Once

    world, looked = await deadline_watched(make_tables, monkeypatch)
    server = world.server
    gm, welcome = await world.join("tally", "gm")
    await gm.request({"type": "roll", "formula": "1d6"})
    await leave_now(world, gm)
    assert await settled(lambda: not server.tables.open)
    looked.clear()
    fail = StoreError("disk unreadable (simulated)") if failure == "store_error" else None
    gate = Gate(world.store, "events_after", fail)
    if failure == "internal":
        Once(monkeypatch, TableProtocol, "welcome_fields")
    peer, hello = await resume_from_zero(world, welcome)
    await gate.reached()
    await asyncio.wait_for(looked.wait(), 5)  # the deadline passed while it was at the table
    (client,) = server.clients
    assert client.protocol.member is not None and not client.protocol.joining
    await gate.open()
    assert (await peer.reply(hello))["code"] == failure
    silent = Peer(await connect(server.url))  # one that never says hello, for comparison
    world.peers.append(silent)
    assert await silent.wait_closed(5) == 1008
    assert await peer.wait_closed(5) == 1008, "the connection was never closed"
    assert peer.connection.close_reason == silent.connection.close_reason == "no hello within 0.2 s"
    assert not server.tables.open


async def test_two_hellos_waiting_on_one_load_one_gone_leave_no_orphan_copy(tables):
    """A and B say hello to an unloaded table; both wait on its one load; A goes
    before the load is back. A's continuation, run first, released the table it was
    just given, still idle, so the registry dropped it, and B's joined that dropped
    copy: a third client loaded a second copy, B never saw its events, and B's next
    change failed against the stored seq (found by review; so before the release
    work too). Now the table is dropped, if idle, only once every waiter has run."""
    server = tables.server
    gate = Gate(tables.store, "load")
    a = Peer(await connect(server.url))
    b = Peer(await connect(server.url))
    tables.peers += [a, b]
    await a.send({"type": "hello", "table": "tally", "token": tables.tokens["tally"]["gm"]})
    await gate.reached()
    hello_b = await b.send(
        {"type": "hello", "table": "tally", "token": tables.tokens["tally"]["player"]}
    )
    assert await settled(lambda: len(server.tables._loading.get("tally", ())) == 2)
    await leave_now(tables, a, staying=1)
    await gate.open()
    assert (await b.reply(hello_b))["type"] == "welcome"
    (client_b,) = server.clients
    copy_b = client_b.protocol.table
    c, _ = await tables.join("tally", "gm")
    rolled = await c.request({"type": "roll", "formula": "1d6"})
    assert rolled["type"] == "result"
    await asyncio.sleep(0.3)
    # B is at the table the registry runs, and saw C's roll
    assert server.tables.open.get("tally") is copy_b, "B is on a copy the registry dropped"
    assert [e["seq"] for e in b.events] == [rolled["seq"]]
    seen = await b.request({"type": "roll", "formula": "1d6"})
    assert seen["type"] == "result" and seen["seq"] == rolled["seq"] + 1


async def test_a_table_dropped_after_a_failed_reload_accepts_its_next_change(tables):
    """A commit fails, its reload fails too, the client leaves: the table is dropped
    once the read is back. The writer still refused the table's commits (the failed
    one's mark, cleared only by a reload's ``Reopened``), so the first change after
    the next hello, on a fresh good load, was refused ``store_error`` (found by
    review). A fresh load now clears it: a copy leaves memory with no write out."""
    server = tables.server
    gm, _ = await tables.join("tally", "gm")
    failing_for(tables.store, "tally", times=1)
    gate = Gate(tables.store, "load", StoreError("disk unreadable (simulated)"))
    refused = await gm.request({"type": "roll", "formula": "1d6"})
    assert refused["code"] == "store_error"
    await gate.reached()
    await leave_now(tables, gm)
    await gate.open()
    assert await settled(lambda: not server.tables.open)
    # the store is fine again; a new client loads the table afresh
    tables.store.load = type(tables.store).load.__get__(tables.store)
    again, _ = await tables.join("tally", "gm")
    rolled = await again.request({"type": "roll", "formula": "1d6"})
    assert rolled["type"] == "result", rolled


# -- clients the server cut off ------------------------------------------------------


async def test_clients_cut_off_that_close_in_time_are_let_go_at_once(make_tables, monkeypatch):
    """The server ends connections of many clients of both tables — ``hello`` with a
    wrong token (1008), joined ones whose token is gone (revoked, 1008), ones over
    their token's limit (1013) — and each takes its close. Once they are gone nothing
    keeps their objects (each with its websockets connection and buffers), and the
    registry is back to empty. Before the fix each one's abort timer held it for the
    whole close timeout (5 s by default, an hour here), whether its connection had
    closed or not: a client refused in a loop kept a few hundred of them alive."""
    limits = Limits(close_timeout=3600, per_token=2, rate_per_connection=None,
                    rate_per_table=None, per_address=None)  # fmt: skip
    world = await make_tables(limits=limits)
    server = world.server
    made: list[weakref.ref[Client]] = []
    init = Client.__init__

    def counted(self: Client, *args: Any) -> None:
        init(self, *args)
        made.append(weakref.ref(self))

    monkeypatch.setattr(Client, "__init__", counted)
    peers: list[Peer] = []
    for table in ("sr2", "tally"):
        for _ in range(10):  # refused: a token that opens nothing
            peer = Peer(await connect(server.url))
            await peer.send({"type": "hello", "table": table, "token": "rbt_wrong"})
            peers.append(peer)
        for role in ("gm", "player", "observer"):
            for _ in range(3):  # the third of each token is over its limit
                peer = Peer(await connect(server.url))
                await peer.reply(await peer.send({"type": "hello", "table": table,
                                                  "token": world.tokens[table][role]}))  # fmt: skip
                peers.append(peer)
    assert len(made) == 38
    assert await settled(lambda: len(server.clients) == 12)  # the joined ones are left
    assert server.drop_revoked(set()) == 12  # every joined one's token is gone
    codes = [await peer.wait_closed() for peer in peers]
    assert sorted(set(codes)) == [1008, 1013]
    assert await settled(lambda: not server.clients and not server.sockets)
    assert not server.tables.open and not server.tables.per_token and not server.per_address

    assert await let_go(made), f"{alive(made)} of {len(made)} clients kept alive"


async def test_the_last_changes_written_keep_neither_their_tables_nor_their_clients(tables):
    """Clients of both tables make changes and leave; the server goes idle. Their
    tables leave memory and nothing keeps them, nor the clients, alive. Before the
    fix the commit writer's thread, waiting for the next commit, still held its last
    group of commits — whose callbacks name the table and the client of each — so an
    idle server kept its last few hundred changes' tables and clients for good."""
    server = tables.server
    made: list[weakref.ref[Any]] = []
    for table in ("sr2", "tally", "sr2", "tally"):
        gm, _ = await tables.join(table, "gm")
        (client,) = server.clients
        made += [weakref.ref(client), weakref.ref(server.tables.open[table])]
        del client
        assert (await gm.request({"type": "roll", "formula": "2d6"}))["type"] == "result"
        await leave_now(tables, gm)
        assert await settled(lambda: not server.tables.open)
    assert server.writer is not None and server.writer.pending == 0

    assert await let_go(made), f"{alive(made)} of {len(made)} tables and clients kept alive"
