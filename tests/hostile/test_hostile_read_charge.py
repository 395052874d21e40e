"""What a read of the log is charged, and what it holds off (hostile28; the charge
and the collector's quiet came with hostile27, docs/operations.md "Hostile input").

- A read's reader-thread CPU time was charged past one share "paid" — but the
  request had paid its share against its time on the event loop already, so each
  read (two for ``stats``) took another 5 ms free, from the connection's rate and
  from the table's.
- A read that raised was charged nothing: a log that fails to decode late (a damaged
  row after seconds of good ones) cost its asker one request however long it took.
- Every read on the reader threads held the collector off, a token's or a stored
  reply's look-up and a table's load among them, not only the reads of the log that
  make millions of objects.

Counted, not timed: requests served before a refusal, the collector's holds."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from rollbridge.exceptions import StoreError
from rollbridge.protocol.limits import SECONDS_PER_REQUEST
from rollbridge.server.limits import Limits
from tests.server.conftest import make_tables  # noqa: F401  (a fixture)
from tests.server.httpclient import debug_log  # noqa: F401  (a fixture)
from tests.server.test_rate_limits import rated_connection


def test_a_read_is_charged_every_share_of_its_time():
    connection, tables, send = rated_connection("state")
    assert send()  # 39 of the connection's 40 left, 99 of the table's 100
    for _ in range(3):  # three reads of one share each (stats makes two a request)
        connection.charge_read(SECONDS_PER_REQUEST)
        tables.charge_read("t", SECONDS_PER_REQUEST)
    served = 0
    while send():
        served += 1
    assert served == 39 - 3  # before: 39, the reads' time credited against the request
    left = 0
    while tables.table_wait("t") is None:
        left += 1
    assert left == 100 - 1 - served - 3  # the table's: one a request, and the reads'


def test_a_long_read_is_owed_by_its_table_in_full():
    """Held to one burst below empty, a read of ~5 s (``stats`` of a log of the
    largest events) cost its table ~2 s of waiting whatever its rate: one table could
    keep a reader thread decoding five seconds in seven. Now the table's reads of the
    log owe all of it — the next one, and a ``hello`` resuming behind the latest,
    wait it out; the connection's bucket is still held to one burst below (a new
    connection has a bucket of its own: the table's is what binds)."""
    connection, tables, send = rated_connection("stats")
    assert send()  # 35 of the connection's 40 left, 99 of the table's 100
    connection.charge_read(5.0)  # a thousand shares
    tables.charge_read("t", 5.0)
    # the table's reads: 900 below empty at 50 a second, before 100 below (2.02 s)
    for refusal in (tables.read_refusal("t"), tables.resume_refusal("t")):
        assert refusal is not None and refusal.details["scope"] == "table"
        assert refusal.details["retry_after"] == pytest.approx(900 / 50)
    assert not send()  # the connection's: 40 below (its burst) at 20 a second


def test_a_long_read_costs_the_table_s_other_requests_one_burst_at_most():
    """Owed in the table's one bucket, a ``stats`` of ~5 s had every request at its
    table refused ``rate_limited`` for the ~18 s the debt took to refill (at 50 a
    second; ~50 s at 20): one player's request, honest players' rolls refused with
    it (review of hostile28). The reads of the log owe it (above); the table's rate
    loses one burst at most, as for any request's work."""
    _, tables, send = rated_connection("stats")
    assert send()  # 99 of the table's 100 left
    tables.charge_read("t", 5.0)  # a thousand shares
    # one burst below empty at 50 a second (before: 901 below, 18 s)
    assert tables.table_wait("t") == pytest.approx((100 + 1) / 50)


def _burn(seconds: float) -> None:
    """``seconds`` of this thread's CPU time (counted, whatever the machine's load)."""
    started = time.thread_time()
    while time.thread_time() - started < seconds:
        pass


async def test_a_read_that_fails_is_charged_its_time(make_tables, monkeypatch):  # noqa: F811
    rates = Limits(rate_per_connection=2, rate_per_table=None, per_token=None, per_address=None)
    world = await make_tables(limits=rates)
    player, _ = await world.join("tally", "player")
    gm, _ = await world.join("tally", "gm")
    for _ in range(3):
        assert (await gm.request({"type": "roll", "formula": "1d6"}))["status"] == "done"

    def damaged(*args: Any) -> None:
        _burn(0.1)  # twenty shares of a reader thread's time, then a damaged row
        raise StoreError("a damaged row", details={"table": "tally"})

    monkeypatch.setattr(world.store, "changes_after", damaged)
    failed = await player.request({"type": "state", "at": 1})
    assert failed["code"] == "store_error", failed
    again = await player.request({"type": "ping"})
    # before: served (one request of the burst of four taken, the read's time not)
    assert again.get("code") == "rate_limited", again
    assert again["details"]["scope"] == "connection"


@pytest.fixture
def holds(make_tables) -> Any:  # noqa: F811
    """A server whose collector is managed, with its holds (``quiet``) counted."""

    async def make() -> tuple[Any, list[int]]:
        world = await make_tables(manage_gc=True)
        held: list[int] = []
        quiet = world.server.collector.quiet

        def counted() -> Any:
            held.append(1)
            return quiet()

        world.server.collector.quiet = counted
        return world, held

    return make


async def test_only_reads_of_the_log_hold_the_collector_off(holds):
    world, held = await holds()
    gm, _ = await world.join("tally", "gm")  # the token's look-up, the table's load
    for n in range(3):
        assert (await gm.request({"type": "roll", "id": f"r{n}", "formula": "1d6"}))["seq"]
    again = await gm.request({"type": "roll", "id": "r1", "formula": "1d6"})  # a stored reply
    assert again["type"] == "result", again
    assert held == [], held  # before: one each
    assert (await gm.request({"type": "state", "at": 1}))["table"]["seq"] == 1
    assert held == [1]
    assert (await gm.request({"type": "stats"}))["type"] == "result"
    assert held == [1, 1, 1]  # its read of the log, then its count


async def test_a_read_whose_turn_comes_while_its_table_owes_one_is_refused(
    make_tables,  # noqa: F811
    monkeypatch,
):
    """Requests are admitted as they arrive, and nine reads may be out or waiting at a
    table: eight ``stats`` of a log of the largest events sent at once were each read
    and counted — a minute of the interpreter every table shares — before the first
    came back and its time was charged. A read whose turn comes while the table owes
    an earlier one's time is refused ``rate_limited`` (``scope`` ``table``) now, and
    nothing of it read. Counted: the store's reads."""
    rates = Limits(rate_per_connection=None, rate_per_table=10, per_token=None, per_address=None)
    world = await make_tables(limits=rates)  # a burst of 20 at the table
    gm, _ = await world.join("tally", "gm")
    for _ in range(3):
        assert (await gm.request({"type": "roll", "formula": "1d6"}))["status"] == "done"
    gate, reads = threading.Event(), []
    changes = world.store.changes_after

    def costly(*args: Any) -> Any:
        reads.append(args[1])
        gate.wait(60)  # a hang guard: set once the second read waits its turn
        _burn(0.2)  # forty shares of a reader thread's time: below empty
        return changes(*args)

    monkeypatch.setattr(world.store, "changes_after", costly)
    player, _ = await world.join("tally", "player")
    first = await gm.send({"type": "state", "at": 1})
    # another connection's (one connection's requests are handled one after another)
    second = await player.send({"type": "state", "at": 2})  # admitted: nothing owed yet
    protocol = world.server.tables.open["tally"]
    for _ in range(6000):  # a hang guard: the second waits its turn at the table
        if protocol._queued_reads or second in player.replies:
            break
        await asyncio.sleep(0.01)
    assert protocol._queued_reads and reads == [1], (reads, player.replies)
    gate.set()
    assert (await gm.reply(first))["table"]["seq"] == 1
    refused = await player.reply(second)
    assert refused.get("code") == "rate_limited", refused  # before: read, and answered
    assert refused["details"]["scope"] == "table" and refused["details"]["retry_after"] > 0
    assert reads == [1]


async def test_a_players_long_read_leaves_the_others_at_the_table_their_rolls(
    make_tables,  # noqa: F811
    monkeypatch,
):
    """The same on a real server: a player's ``state`` at a seq whose read takes 200
    shares of a reader thread (a log of the largest events) left the GM's roll
    refused for the ~18 s its table owed (at 10 a second, a burst of 20); now the
    roll waits one burst at most (2.1 s), and a read of the log (here a ``hello``
    resuming behind the latest) still the whole debt.
    Counted, not timed: the retry each refusal tells, from CPU time burned."""
    rates = Limits(rate_per_connection=None, rate_per_table=10, per_token=None, per_address=None)
    world = await make_tables(limits=rates)
    gm, welcome = await world.join("tally", "gm")
    epoch = welcome["epoch"]
    for _ in range(3):
        assert (await gm.request({"type": "roll", "formula": "1d6"}))["status"] == "done"
    changes = world.store.changes_after

    def costly(*args: Any) -> Any:
        _burn(1.0)  # two hundred shares of a reader thread's time
        return changes(*args)

    monkeypatch.setattr(world.store, "changes_after", costly)
    player, _ = await world.join("tally", "player")
    assert (await player.request({"type": "state", "at": 1}))["table"]["seq"] == 1
    roll = await gm.request({"type": "roll", "formula": "1d6"})
    if roll.get("code") == "rate_limited":  # one burst below empty at most
        assert roll["details"]["retry_after"] <= (20 + 1) / 10, roll  # before: ~18 s
    else:
        assert roll["status"] == "done", roll
    # a hello resuming behind the latest (which would read the log) waits it all out
    again, refused = await world.join("tally", "observer", resume={"epoch": epoch, "seq": 0})
    assert refused.get("code") == "rate_limited", refused
    assert refused["details"]["scope"] == "table" and refused["details"]["retry_after"] > 10
    await again.wait_for(lambda peer: peer.close_code is not None)


async def test_a_gm_s_settled_requests_are_read_while_the_table_owes_a_read(
    make_tables,  # noqa: F811
    monkeypatch,
):
    """A GM's resume answered with a snapshot reads the settled requests from the log
    (docs/protocol.md, ``settled``). That read is the join's, not a request's: its
    hello was counted at the table's rate when it came. When another client's long
    read left the table owing its time while the resume's missed events were being
    read, the settled read was refused as a request's would be — the welcome came
    without ``settled`` and the server logged a failed read for a rate limit (found
    reading, review rev28h). Counted: nothing timed; the reads are held by events."""
    from tests.server.test_server_settled_welcome import _settled_while_away

    rates = Limits(rate_per_connection=None, rate_per_table=10, per_token=None, per_address=None)
    world = await make_tables(retain=4, limits=rates)
    cursor, approved, rejected, other = await _settled_while_away(world)
    latest = (await other.request({"type": "state"}))["table"]["seq"]
    resuming, charged = threading.Event(), threading.Event()
    events_after, changes_after = world.store.events_after, world.store.changes_after
    held: list[Any] = []

    def missed_held(*args: Any) -> Any:
        if not held:  # the resume's read of its missed events waits for the charge
            held.append(args)
            resuming.set()
            charged.wait(60)  # a hang guard
        return events_after(*args)

    def costly(*args: Any) -> Any:
        _burn(0.2)  # forty shares of a reader thread's time: the table owes
        return changes_after(*args)

    monkeypatch.setattr(world.store, "events_after", missed_held)
    monkeypatch.setattr(world.store, "changes_after", costly)
    join = asyncio.ensure_future(world.join("sr2", "gm", resume=cursor))
    for _ in range(6000):  # a hang guard: the resume's read has begun
        if resuming.is_set():
            break
        await asyncio.sleep(0.01)
    assert resuming.is_set()
    assert (await other.request({"type": "state", "at": latest - 1}))["type"] == "result"
    assert world.server.tables.read_refusal("sr2") is not None  # the table owes now
    charged.set()
    _gm, welcome = await join
    assert welcome["resume"] == {"recovered": False, "missed": 0}
    settled = {entry["pending"]: entry["outcome"] for entry in welcome.get("settled", [])}
    assert settled == {approved: "approved", rejected: "rejected"}, welcome  # before: none
