"""The CPU-time charge of a request (docs/protocol.md, "Limits of a hosted server")
under ``rollbridge serve --redis``: a change sent to a process that does not own its
table runs on the owner, and is charged there to the table's rate; the owner sends
its time back with the reply, and the sender charges it to the rate of the
connection that sent the change."""

from __future__ import annotations

import asyncio
import json
import math
import signal
import time

import msgpack
import pytest

from rollbridge.host import PluginHost
from rollbridge.server.cluster import ClusterServer
from rollbridge.stores.redis import RedisStore
from tests.stores.cluster_harness import Cluster, Player

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


#: Every die exploding: ms of the owner's loop, and too large to keep (refused).
HEAVY = "999d6x>1"


async def away_from_the_owner(cluster: Cluster, *roles: str) -> tuple[Player, list[Player]]:
    """The GM on the first process, whose roll makes it the table's owner; then a
    client of each of ``roles`` on the other process."""
    (gm,) = await cluster.joined(0)
    assert (await gm.ask({"type": "roll", "id": "own", "formula": "1d6"}))["type"] == "result"
    owner = cluster.owner()
    other = next(i for i, p in enumerate(cluster.processes) if p is not owner)
    clients = [cluster.player(other, role) for role in roles]
    for client in clients:
        await client.join()
    return gm, clients


async def flood(player: Player, rate: int, scope: str, most: int) -> None:
    """Send :data:`HEAVY` rolls until one is refused for a rate (at most ``most``):
    it must be for ``scope``'s, well before that rate alone refuses it."""
    codes = []
    started = time.monotonic()
    for n in range(most):
        reply = await player.ask({"type": "roll", "id": f"x{n}", "formula": HEAVY})
        codes.append((reply.get("code"), reply.get("details", {}).get("scope")))
        if codes[-1][0] == "rate_limited":
            break
    elapsed = time.monotonic() - started
    assert codes[-1] == ("rate_limited", scope), codes
    # Counted, not timed: uncharged, each roll takes one request from the rate, so it
    # is refused only after the burst and what refilled meanwhile (2 * rate + rate *
    # elapsed: however slow the machine, never before); charged for its time, well
    # before.
    plain = 2 * rate + rate * elapsed
    assert len(codes) < 0.8 * plain, (len(codes), plain, codes)


def test_a_forwarded_request_that_keeps_the_owner_busy_takes_more_of_the_tables_rate(
    redis_factory,
):
    """Rolls of ``999d6x>1`` (~50 ms of the loop each) sent to the process that does
    not own the table ran on the owner uncharged: only the process that took the
    request timed it, and forwarding took no time there — so a player on another
    process kept the owner's loop, which every table it owns shares, busy within
    the table's rate. The owner now charges the table's rate for the time too."""
    redis = redis_factory()
    # requests a second at the table, bursts of twice as many: low, so that a roll
    # charged ~10 requests is refused within a few however slow the machine (at 20 a
    # second, a loaded machine taking over 0.5 s of wall clock a roll refilled more
    # than each roll was charged, and nothing was ever refused)
    rate = 5
    cluster = Cluster(
        redis.url, 2, extra=("--rate-per-connection", "0", "--rate-per-table", str(rate))
    )

    async def play() -> None:
        gm, (player,) = await away_from_the_owner(cluster, "gm")
        await flood(player, rate, "table", 200)
        for client in (gm, player):
            await client.close()

    cluster.run(play)


def test_a_forwarded_request_that_keeps_the_owner_busy_takes_more_of_its_connection_s_rate(
    redis_factory,
):
    """The owner charged a forwarded change's time to the table's rate only: a player
    on a process that does not own the table rolled ``999d6x>1`` (~50 ms of the
    owner's loop each) within their own connection's rate, and could spend the whole
    table's budget — every other player's at the table — without ever being limited
    themselves. The owner now sends the time back with the reply, and the sender
    charges it to the player's connection, as if the roll had run there. (The table's
    rate is off here: only the connection's is under test.) A player whose changes
    are cheap is not charged more."""
    redis = redis_factory()
    rate = 5  # requests a second from one connection, bursts of twice as many (low: above)
    cluster = Cluster(
        redis.url, 2, extra=("--rate-per-connection", str(rate), "--rate-per-table", "0")
    )

    async def play() -> None:
        gm, (flooder, player) = await away_from_the_owner(cluster, "player", "player")
        await flood(flooder, rate, "connection", 100)
        # another player on the same process, rolling cheap dice: a burst of them
        # (all but a few of the 2 * rate it holds) goes through, nothing refused
        for n in range(2 * rate - 4):
            reply = await player.ask({"type": "roll", "id": f"p{n}", "formula": "1d6"})
            assert reply["type"] == "result", (n, reply)
        for client in (gm, flooder, player):
            await client.close()

    cluster.run(play)


def test_changes_sent_at_once_to_a_process_that_forwards_them_are_charged_each_before_the_next(
    redis_factory,
):
    """A forwarded change's time came back with its reply, after the frames the client
    had sent meanwhile had each taken their one request from its connection's rate: a
    player on a process that does not own the table who sent ``999d6x>1`` rolls at once,
    without waiting for replies, had a whole burst of them run on the owner (the charges
    that came back later only took the bucket to its floor), where on the owner's own
    process the second or third is refused. That process now reads the connection's next
    frame once its forwarded changes are answered and charged, as a change run there is
    charged before the next frame is read."""
    redis = redis_factory()
    rate = 5  # requests a second from one connection, bursts of twice as many (low: above)
    cluster = Cluster(
        redis.url, 2, extra=("--rate-per-connection", str(rate), "--rate-per-table", "0")
    )
    sent = 3 * 2 * rate
    seen: dict[str, float] = {}

    async def play() -> None:
        gm, (player,) = await away_from_the_owner(cluster, "player")
        assert player.ws is not None
        started = time.monotonic()
        for n in range(sent):  # at once: no reply awaited
            await player.ws.send(json.dumps({"type": "roll", "id": f"x{n}", "formula": HEAVY}))
        ids = [f"x{n}" for n in range(sent)]

        def refused() -> bool:
            return any(r.get("code") == "rate_limited" for r in player.replies.values())

        await player.until(refused, 120, "a refusal")
        # the frames are read in order: the first refusal to come is the first in that order
        seen["elapsed"] = time.monotonic() - started
        await player.until(lambda: all(i in player.replies for i in ids), 120, "every reply")
        codes = [player.replies[i].get("code") for i in ids]
        seen["first"] = codes.index("rate_limited")  # the rolls let through before it
        assert player.replies[ids[int(seen["first"])]]["details"]["scope"] == "connection"
        for client in (gm, player):
            await client.close()

    cluster.run(play)
    # Counted, not timed: uncharged, the first refusal comes only once the burst is spent
    # (the hello took one) and what refilled until it came (however slow the machine,
    # never before); charged, well before.
    plain = 2 * rate - 1 + rate * seen["elapsed"]
    assert seen["first"] < 0.8 * plain, (seen, plain)


def test_the_owner_s_time_is_read_only_from_a_number_in_the_reply(redis_factory):
    """The time a forward's reply carries (``work``, seconds) is the owner process's
    word, at the top of the reply beside the client's message: a reply without it
    (an owner of an older version, during a rolling upgrade) charges nothing more,
    and so does one with anything but a finite number above 0."""
    redis = redis_factory()
    store = RedisStore(redis.url, writer="node-a")
    host = PluginHost({}, environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    server = ClusterServer(store, host, redis_url=redis.url)
    sent = {
        "old": None, "timed": 0.05, "whole": 2, "none": 0, "below": -1.0, "text": "9",
        "yes": True, "nan": math.nan, "inf": math.inf, "map": {"work": 1},
    }  # fmt: skip
    charged = {"timed": 0.05, "whole": 2.0}

    async def play() -> dict[str, tuple[object, float]]:
        loop = asyncio.get_running_loop()
        got = {}
        for fid, work in sent.items():
            waiter = loop.create_future()
            server._waiting[fid] = waiter
            body = {"fid": fid, "message": {"type": "result", "id": fid}}
            if work is not None:
                body["work"] = work
            # the reference codec: it writes what rollbridge's own pack refuses (NaN)
            server._handle_popped(True, msgpack.packb(body, use_bin_type=True))
            answer = waiter.result()
            got[fid] = (answer.message, answer.work)
        return got

    try:
        got = asyncio.run(play())
    finally:
        store.close()
    for fid in sent:
        assert got[fid] == ({"type": "result", "id": fid}, charged.get(fid, 0.0)), fid


async def _metrics(port: int) -> tuple[float, float]:
    """``rollbridge_connections`` and the sum of ``rollbridge_forwarded_total`` (the
    forwards ended, whatever their outcome) from the process's ``GET /metrics``."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    text = (await reader.read()).decode()
    writer.close()
    lines = text.splitlines()
    (line,) = [x for x in lines if x.startswith("rollbridge_connections ")]
    ended = sum(float(x.split()[-1]) for x in lines if x.startswith("rollbridge_forwarded_total"))
    return float(line.split()[1]), ended


def _pushes(url: str) -> int:
    """The ``RPUSH`` commands the Redis at ``url`` has run (``INFO commandstats``): a
    forward is pushed to its owner's inbox with one (the stopped owner's blocking pop,
    already waiting in Redis, may take it at once, so the inbox's length says nothing)."""
    import redis as redis_py

    client = redis_py.Redis.from_url(url)
    try:
        stats = client.info("commandstats")
    finally:
        client.close()
    return int(stats.get("cmdstat_rpush", {}).get("calls", 0))


def test_a_client_that_leaves_while_its_forward_waits_is_gone_at_once(redis_factory):
    """Found by CI (the Redis soak timed out): a rated connection's next frame waits
    for its forwarded changes to be answered and charged, and that wait also kept a
    client that had left — closed by its peer, or cut off as its table was deleted —
    until each of its forwards ended, up to the forward's 15 s timeout each. The
    owner is stopped here (its lease long), so the forward cannot end before its
    timeout: the connection must be gone before then."""
    redis = redis_factory()
    cluster = Cluster(redis.url, 2, extra=("--lease-ms", "60000"))

    async def play() -> None:
        gm, (player,) = await away_from_the_owner(cluster, "player")
        owner = cluster.owner()
        other = next(p for p in cluster.processes if p is not owner)
        owner.signal(signal.SIGSTOP)
        try:
            assert player.ws is not None
            pushed = _pushes(redis.url)  # (the owner, stopped, pushes nothing now)
            await player.ws.send(json.dumps({"type": "roll", "id": "stuck", "formula": "1d6"}))
            # the frame read, its forward pushed to the stopped owner's inbox: seen in
            # Redis's count (before, a sleep of 0.3 s stood for it, and a frame not
            # read by then left the test passing with no forward waiting at all)
            async with asyncio.timeout(60):  # a guard against a hang, nothing timed
                while _pushes(redis.url) == pushed:
                    await asyncio.sleep(0.05)
            _, ended = await _metrics(other.port)
            await player.close()
            # gone while its forward still waits (the owner stopped: it ends only by
            # its own 15 s timeout), counted — before, the connection went only once
            # the forward had ended; a bound of 12 s wall time stood for this
            async with asyncio.timeout(60):  # a guard against a hang, nothing timed
                while True:
                    connections, ended_now = await _metrics(other.port)
                    assert ended_now == ended, "the client stayed until its forward ended"
                    if connections == 0:
                        break
                    await asyncio.sleep(0.1)
        finally:
            owner.signal(signal.SIGCONT)
        await gm.close()

    cluster.run(play)
