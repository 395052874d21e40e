"""Several ``rollbridge serve --redis`` processes serving one table (issue 13, item 2),
and their failures (item 4): real redis-server, real processes, real clients.

Each test checks what the issue asks of clients: every client of a table, on any
process, is sent the same events in the same seq order — none skipped, none twice —
and every acknowledged change is in the stored log, at a seq no other event has.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import signal
import socket
import time
from typing import Any

import pytest
import redis as redis_py
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from rollbridge.server.cluster import DEFAULT_POLL_INTERVAL
from rollbridge.stores.redis import RedisStore
from tests.stores import cluster_harness
from tests.stores.cluster_harness import Cluster, Player, Proxy, cli, make_table

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


async def keep_rolling(player: Player, name: str, count: int, acked: dict[str, int]) -> None:
    """Roll ``count`` times with fresh ids, each sent again until it is done (what a
    client does when told to try again); every acknowledgement recorded."""
    for i in range(count):
        reply = await player.ask_until_done({"type": "roll", "id": f"{name}{i}", "formula": "1d6"})
        assert reply["type"] == "result", reply
        acked[f"{name}{i}"] = reply["seq"]


def check_acknowledged(url: str, table: str, acked: dict[str, int]) -> list[int]:
    """Every acknowledged change is in the stored log at its seq, made by its request;
    the stored seqs run 1..N without a gap (no seq reused, none lost)."""
    store = RedisStore(url)
    try:
        events = store.events_after(table, 0) or []
    finally:
        store.close()
    seqs = [e.seq for e in events]
    assert seqs == list(range(1, len(seqs) + 1)), seqs
    by_seq = {e.seq: e for e in events}
    for request, seq in acked.items():
        assert by_seq[seq].request == request, (request, seq, by_seq[seq].request)
    assert len(set(acked.values())) == len(acked)
    return seqs


async def until(check: Any, timeout: float = 30, what: str = "") -> None:
    """Wait until ``check()`` (polled), at most ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.1)


async def all_sent(players: list[Player], last: int) -> None:
    """Each player is sent every event up to ``last``, exactly once, in seq order."""
    for player in players:
        await player.until(lambda p=player: p.seq >= last, what=f"seq {last}")
    for player in players:
        assert player.seqs() == list(range(1, last + 1)), player.seqs()
        await player.close()


def test_two_processes_one_table_same_events_in_the_same_order(redis_factory):
    redis = redis_factory()
    cluster = Cluster(redis.url, 2)

    async def play() -> None:
        on_a, on_b = await cluster.joined(0, 1)
        # requests on both processes, in turn: one runs the table, the other forwards
        for i in range(10):
            who = on_a if i % 2 == 0 else on_b
            reply = await who.ask({"type": "roll", "id": f"r{i}", "formula": "2d6"})
            assert reply["type"] == "result" and reply["seq"] == i + 1, reply
        # at the same time from both
        replies = await asyncio.gather(
            *[(on_a if i % 2 else on_b).ask({"type": "roll", "id": f"c{i}", "formula": "1d6"})
              for i in range(10)]
        )  # fmt: skip
        assert all(r["type"] == "result" for r in replies), replies
        assert sorted(r["seq"] for r in replies) == list(range(11, 21))
        # the same events, with the same dice, at both
        await on_b.until(lambda: on_b.seq >= 20)
        assert [e["data"] for e in on_a.events] == [e["data"] for e in on_b.events]
        # a retry, on A, of a request B forwarded: the first result
        again = await on_a.ask({"type": "roll", "id": "r1", "formula": "2d6"})
        assert again["seq"] == 2 and again["event"]["data"] == on_b.replies["r1"]["event"]["data"]
        # a brief client on the process that forwards: no event in its results
        brief = cluster.player(1 if cluster.owner() is cluster.processes[0] else 0)
        await brief.join(results="brief")
        short = await brief.ask({"type": "roll", "id": "b", "formula": "1d6"})
        assert short["type"] == "result" and short["seq"] == 21 and "event" not in short, short
        assert brief.seqs() == [21]  # the event came as a frame, before the result
        await brief.close()
        await all_sent([on_a, on_b], 21)
        assert check_acknowledged(redis.url, cluster.table, {}) == list(range(1, 22))

    cluster.run(play)
    # one process ran the table; the other forwarded its half of the requests
    ran = [f"now runs table {cluster.table}" in log for log in cluster.logs]
    assert sorted(ran) == [False, True]


def test_kill_9_of_the_owner_mid_session_the_others_take_over(redis_factory):
    redis = redis_factory()
    cluster = Cluster(redis.url, 3)
    a = cluster.processes[0]

    async def play() -> None:
        on_a, on_b, on_c = await cluster.joined(0, 1, 2)
        first = await on_a.ask({"type": "roll", "id": "a0", "formula": "1d6"})
        assert first["seq"] == 1 and cluster.owner() is a  # A runs the table
        acked: dict[str, int] = {"a0": 1}
        rolling = asyncio.gather(keep_rolling(on_b, "b", 30, acked),
                                 keep_rolling(on_c, "c", 30, acked))  # fmt: skip
        await on_b.until(lambda: len(acked) >= 15, what="15 acknowledged changes")
        a.kill()  # kill -9, mid-session: its lease is left to run out
        await rolling
        assert len(acked) == 61
        last = max(acked.values())
        await on_a.close()
        await all_sent([on_b, on_c], last)  # the clients of the surviving processes
        assert check_acknowledged(redis.url, cluster.table, acked)[-1] == last

    errors = cluster.run(play)
    assert f"now runs table {cluster.table}" in cluster.logs[1] + cluster.logs[2], errors


def test_a_process_killed_is_named_once_by_the_one_that_took_its_table(redis_factory):
    """A killed (its lease and its claim in ``rb:processes`` left to run out): the
    survivor B, whose change waited for A's lease, says it runs the table now and
    which process ran it before; once A's claim has run out, one WARNING names A (its
    id, pid and host) as gone without stopping, with the table B took over from it —
    once, not at each renewal after. Before, B said only that it now ran the table:
    which process had died was left to each one's ``/readyz``."""
    import socket

    redis = redis_factory()
    cluster = Cluster(redis.url, 2)
    a = cluster.processes[0]
    admin = redis_py.Redis.from_url(redis.url)
    killed: dict[str, Any] = {}

    async def play() -> None:
        on_a, on_b = await cluster.joined(0, 1)
        first = await on_a.ask({"type": "roll", "id": "a0", "formula": "1d6"})
        assert first["type"] == "result", first
        await until(lambda: a.owns(cluster.table), what="A owns")
        node = admin.get(f"rb:{{{cluster.table}}}:owner").decode()
        assert admin.hexists("rb:processes", node)
        assert a.process is not None
        killed.update(node=node, pid=a.process.pid)
        a.kill()
        taken = await on_b.ask_until_done({"type": "roll", "id": "b0", "formula": "1d6"})
        assert taken["type"] == "result" and taken["seq"] == first["seq"] + 1, taken
        await until(lambda: not admin.hexists("rb:processes", node), what="A's claim gone")
        renewals = admin.hget("rb:processes", next(iter(admin.hkeys("rb:processes"))))
        await until(lambda: admin.hget("rb:processes", admin.hkeys("rb:processes")[0])
                    != renewals, what="B renews its claim again")  # fmt: skip
        await on_a.close()
        await on_b.close()

    try:
        cluster.run(play)
    finally:
        admin.close()
    told = cluster.logs[1]
    node, pid = killed["node"], killed["pid"]
    named = f"process {node} (pid {pid} on {socket.gethostname()})"
    assert f"now runs table {cluster.table} ({named} ran it before)" in told, told
    gone = [line for line in told.splitlines() if "went away without stopping" in line]
    assert len(gone) == 1 and "WARNING" in gone[0], gone
    assert named in gone[0], gone
    assert gone[0].endswith(f"this process took over its 1 table: {cluster.table}"), gone


def test_with_three_processes_each_survivor_names_the_killed_one_with_its_own_tables(
    redis_factory,
):
    """A killed, B takes its table, C takes none: whichever of B and C finds A's
    claim run out, each says A went away once — B with the table it took over, C with
    none. Before, only the one whose renewal found the claim said it: when that was C,
    the operator read "took over none of its tables" and B, which had taken the table,
    never named A (a SIGKILL drill with three processes)."""
    import socket

    redis = redis_factory()
    cluster = Cluster(redis.url, 3)
    a = cluster.processes[0]
    admin = redis_py.Redis.from_url(redis.url)
    killed: dict[str, Any] = {}

    def renewed_twice(node: str) -> Any:
        seen: list[bytes | None] = [admin.hget("rb:processes", node)]

        def check() -> bool:
            now = admin.hget("rb:processes", node)
            if now != seen[-1]:
                seen.append(now)
            return len(seen) >= 3

        return check

    async def play() -> None:
        on_a, on_b, on_c = await cluster.joined(0, 1, 2)
        first = await on_a.ask({"type": "roll", "id": "a0", "formula": "1d6"})
        assert first["type"] == "result", first
        await until(lambda: a.owns(cluster.table), what="A owns")
        node = admin.get(f"rb:{{{cluster.table}}}:owner").decode()
        assert a.process is not None
        killed.update(node=node, pid=a.process.pid)
        others = [k.decode() for k in admin.hkeys("rb:processes") if k.decode() != node]
        a.kill()
        taken = await on_b.ask_until_done({"type": "roll", "id": "b0", "formula": "1d6"})
        assert taken["type"] == "result" and taken["seq"] == first["seq"] + 1, taken
        # (waited for: B starved past its lease on a loaded machine finds it run out,
        # and takes it back at its next renewal, nobody having written the table)
        await until(lambda: cluster.processes[1].owns(cluster.table), what="B owns")
        await until(lambda: not admin.hexists("rb:processes", node), what="A's claim gone")
        for other in others:  # each survivor renews its claim twice since
            await until(renewed_twice(other), what=f"{other} renews")
        # B kept the table through those renewals (or took it back at its next one,
        # starved): a B giving a lease up at its first renewal after a take-over
        # (deliberately broken so) passed the wait above, owning it for a moment
        await until(lambda: cluster.processes[1].owns(cluster.table), what="B keeps it")
        for player in (on_a, on_b, on_c):
            await player.close()

    try:
        cluster.run(play)
    finally:
        admin.close()
    named = f"process {killed['node']} (pid {killed['pid']} on {socket.gethostname()})"
    said = {}
    for index in (1, 2):
        lines = [line for line in cluster.logs[index].splitlines()
                 if "went away without stopping" in line]  # fmt: skip
        assert len(lines) == 1 and "WARNING" in lines[0] and named in lines[0], (index, lines)
        said[index] = lines[0]
    assert said[1].endswith(f"this process took over its 1 table: {cluster.table}"), said
    assert said[2].endswith("this process took over none of its tables (each goes to the "
                            "first process that gets a change of it)"), said  # fmt: skip


def test_the_subscription_killed_while_events_flow_no_gap_no_duplicate(redis_factory):
    redis = redis_factory()
    cluster = Cluster(redis.url, 2)
    admin = redis_py.Redis.from_url(redis.url)

    async def play() -> None:
        on_a, on_b, also_b = await cluster.joined(0, 1, 1)
        acked: dict[str, int] = {}
        rolling = asyncio.ensure_future(keep_rolling(on_a, "r", 60, acked))
        killed = 0
        while not rolling.done():
            killed += admin.client_kill_filter(_type="pubsub")  # every process's subscription
            await asyncio.sleep(0.05)
        await rolling
        assert killed >= 2  # it was cut while the events flowed
        await all_sent([on_a, on_b, also_b], 60)
        check_acknowledged(redis.url, cluster.table, acked)

    try:
        errors = cluster.run(play)
    finally:
        admin.close()
    assert "subscribing again" in errors  # the subscription was lost, and made again


def test_a_hundred_resumes_across_processes_while_another_commits(redis_factory):
    redis = redis_factory()
    cluster = Cluster(redis.url, 3)

    async def play() -> None:
        committer, wanderer = await cluster.joined(0, 1)
        acked: dict[str, int] = {}
        seen: list[int] = []
        rolling = asyncio.ensure_future(keep_rolling(committer, "r", 150, acked))
        for cycle in range(100):
            await asyncio.sleep(0.01 * (cycle % 4))
            await wanderer.close()  # then what it was sent: nothing arrives after the close
            seen += wanderer.seqs()
            wanderer.events = []
            wanderer.port = cluster.processes[(cycle + 1) % 3].port
            welcome = await wanderer.join(resume=True)  # on A (committing), B or C
            assert welcome["resume"]["recovered"] is True, welcome["resume"]
        await rolling
        await wanderer.until(lambda: wanderer.seq >= 150, what="seq 150")
        await wanderer.close()
        seen += wanderer.seqs()
        await committer.close()
        # 100 resumes on three processes while A committed: 0 gaps, 0 duplicates
        assert seen == list(range(1, 151)), seen
        check_acknowledged(redis.url, cluster.table, acked)

    cluster.run(play)


@pytest.mark.parametrize("how", ["stop", "kill"])
def test_redis_restarted_every_process_recovers(redis_factory, how):
    redis = redis_factory()
    cluster = Cluster(redis.url, 2)

    async def play() -> None:
        on_a, on_b = await cluster.joined(0, 1)
        acked: dict[str, int] = {}
        await keep_rolling(on_a, "a", 5, acked)
        await keep_rolling(on_b, "b", 5, acked)
        # SIGTERM (Redis fsyncs and exits) or SIGKILL (appendfsync always: what it
        # acknowledged is on disk); both processes lose it
        getattr(redis, how)()
        await asyncio.sleep(0.5)
        redis.start()  # the same folder and port: every acknowledged change is there
        await keep_rolling(on_b, "c", 5, acked)
        await keep_rolling(on_a, "d", 5, acked)
        await all_sent([on_a, on_b], 20)
        check_acknowledged(redis.url, cluster.table, acked)

    cluster.run(play)


def test_a_change_forwarded_while_redis_is_down_logs_once_and_goes_through(redis_factory):
    """A change sent to the process that does not own its table while Redis is down
    waits for Redis (the forward tries every 0.2 s) and goes through once Redis is
    back. The log says so once — one WARNING when the first try fails, one INFO when
    Redis answers again — not a WARNING per try (five a second per waiting change,
    found in an outage drill: 291 lines a minute for one player)."""
    redis = redis_factory()
    cluster = Cluster(redis.url, 2)

    async def play() -> None:
        on_a, on_b = await cluster.joined(0, 1)
        first = await on_a.ask({"type": "roll", "id": "a0", "formula": "1d6"})
        assert first["type"] == "result", first
        await until(lambda: cluster.processes[0].owns(cluster.table), what="A owns")
        redis.kill()
        assert on_b.ws is not None
        await on_b.ws.send(json.dumps({"type": "roll", "id": "b0", "formula": "1d6"}))
        await asyncio.sleep(2)  # the forward tries again and again meanwhile
        redis.start()  # the same folder: a0 is there
        await on_b.until(lambda: "b0" in on_b.replies, what="b0 answered")
        answer = on_b.replies["b0"]
        assert answer["type"] == "result" and answer["seq"] == first["seq"] + 1, answer
        await all_sent([on_a, on_b], answer["seq"])
        check_acknowledged(redis.url, cluster.table, {"a0": first["seq"], "b0": answer["seq"]})

    logs = cluster.run(play)
    tries = [line for line in logs.splitlines() if "forwarding to table" in line]
    assert len(tries) == 1 and "WARNING" in tries[0], tries
    assert "forwarding works again, after" in logs, logs


def failing(port: int) -> float:
    """``rollbridge_store_failing`` of the process on ``port`` (its ``/metrics``)."""
    import urllib.request

    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        for line in answer.read().decode().splitlines():
            if line.startswith("rollbridge_store_failing "):
                return float(line.split()[1])
    raise AssertionError("no rollbridge_store_failing")


def test_a_process_whose_changes_another_now_runs_says_the_store_works_again(redis_factory):
    """A's change refused while Redis was down (``rollbridge_store_failing`` 1, the
    ERROR); Redis back, B took the table over, and A's next change is run by B and
    answered: A's store works — the gauge back at 0 and the WARNING "works again".
    Before, A said so only once it wrote a change itself: a process whose tables had
    all moved to another kept the gauge at 1 (an alert firing) and never said the
    outage ended (found in an outage drill)."""
    redis = redis_factory()
    cluster = Cluster(redis.url, 2)
    a = cluster.processes[0]

    async def play() -> None:
        on_a, on_b = await cluster.joined(0, 1)
        first = await on_a.ask({"type": "roll", "id": "a0", "formula": "1d6"})
        assert first["type"] == "result", first
        await until(lambda: a.owns(cluster.table), what="A owns")
        redis.kill()
        refused = await on_a.ask({"type": "roll", "id": "a1", "formula": "1d6"})
        assert refused["code"] == "store_error", refused
        assert failing(a.port) == 1
        redis.start()
        # A's lease runs out (as after an outage longer than a lease, when A gave it
        # up: its reads failing), and B takes the table with a change. A process
        # starved past a lease since its last renewal (a loaded machine: failed so
        # once, "B owns" never came) counts the 0 of its next renewal as unanswered and
        # takes the lease back, nobody having written the table (RENEW, by design):
        # then B's change was run by A, and the lease is taken from A again
        admin = redis_py.Redis.from_url(redis.url)
        for attempt in range(5):
            admin.delete(f"rb:{{{cluster.table}}}:owner")
            await until(lambda: not a.owns(cluster.table), what="A's lease gone")
            taken = await on_b.ask_until_done(
                {"type": "roll", "id": f"b{attempt}", "formula": "1d6"}
            )
            assert taken["type"] == "result", taken
            if cluster.processes[1].owns(cluster.table):
                break
        admin.close()
        await until(lambda: cluster.processes[1].owns(cluster.table), what="B owns")
        forwarded = await on_a.ask_until_done({"type": "roll", "id": "a1", "formula": "1d6"})
        assert forwarded["type"] == "result", forwarded
        assert failing(a.port) == 0
        await all_sent([on_a, on_b], forwarded["seq"])

    cluster.run(play)
    assert "the store works again" in cluster.logs[0], cluster.logs[0]


def test_approval_across_three_processes_and_undo_after_a_takeover(redis_factory):
    redis = redis_factory()
    cluster = Cluster(redis.url, 3, settings={"approval": True})

    async def play() -> None:
        (asker,) = await cluster.joined(0, role="player")
        (judge,) = await cluster.joined(1)
        asked = await asker.ask({"type": "roll", "id": "p1", "formula": "2d6"})
        assert asked["type"] == "result" and asked["status"] == "pending", asked
        approved = await judge.ask({"type": "approve", "id": "g1", "request": asked["pending"]})
        assert approved["type"] == "result", approved
        await asker.close()
        (retry,) = await cluster.joined(2, role="player")  # the player's retry, on a third
        result = await retry.ask({"type": "roll", "id": "p1", "formula": "2d6"})
        assert result["type"] == "result" and isinstance(result.get("seq"), int), result
        assert result.get("status") != "pending"
        changed = await judge.ask({"type": "settings", "id": "g2", "settings": {"approval": False}})
        assert changed["type"] == "result" and changed["seq"] > result["seq"], changed
        # the owner goes; the GM's undo on another process after the takeover
        owner = cluster.owner()
        owner.kill()
        survivor = next(i for i, p in enumerate(cluster.processes) if p.process is not None)
        (gm_there,) = await cluster.joined(survivor)
        undone = await gm_there.ask_until_done({"type": "undo", "id": "u1"})
        assert undone["type"] == "result", undone
        await gm_there.until(lambda: gm_there.seq > changed["seq"], what="the undo event")
        assert gm_there.events[-1]["kind"] == "undo"
        state = await gm_there.ask({"type": "state", "id": "s1"})
        assert state["table"]["settings"].get("approval") is True, state  # undone
        for player in (retry, judge, gm_there):
            await player.close()

    cluster.run(play)


def test_an_owner_stopped_past_its_lease_is_fenced_when_it_resumes(redis_factory):
    redis = redis_factory()
    cluster = Cluster(redis.url, 2)
    a, b = cluster.processes

    async def play() -> None:
        on_a, on_b = await cluster.joined(0, 1)
        acked: dict[str, int] = {}
        await keep_rolling(on_a, "a", 3, acked)
        assert cluster.owner() is a
        a.signal(signal.SIGSTOP)  # paused: its lease runs out, its clients wait
        # a request waits in A's socket: A runs it when it wakes, still thinking it owns
        await on_a.ws.send('{"type": "roll", "id": "stale", "formula": "1d6"}')
        await keep_rolling(on_b, "b", 3, acked)  # B takes the table over meanwhile
        assert cluster.owner() is b
        a.signal(signal.SIGCONT)
        stale = await on_a.ask_until_done({"type": "roll", "id": "stale", "formula": "1d6"})
        assert stale["type"] == "result", stale
        acked["stale"] = stale["seq"]
        await keep_rolling(on_a, "c", 3, acked)
        await all_sent([on_a, on_b], 10)  # each request once: no seq reused, none twice
        check_acknowledged(redis.url, cluster.table, acked)

    cluster.run(play)
    # A learned it no longer runs the table: its late commit was refused by the commit
    # script (the lease names B, the seq moved on), or its renewal found B's lease
    # first and it forwarded instead. Either way nothing of A's was written twice.
    log_a = cluster.logs[0]
    assert "not by this writer" in log_a or "no longer runs table" in log_a, log_a


def test_a_revoked_token_is_cut_off_on_every_process(redis_factory):
    redis = redis_factory()
    cluster = Cluster(redis.url, 2)

    async def play() -> None:
        players = await cluster.joined(0, 1, role="player")
        (gm,) = await cluster.joined(1)
        store = RedisStore(redis.url)
        try:
            token = next(t for t in store.list_tokens(cluster.table) if t.role == "player")
        finally:
            store.close()
        cli("table", "tokens", cluster.table, "--revoke", token.id, "--redis", redis.url)
        for player in players:  # the server's token check, on each process
            await player.until(lambda p=player: p.ws.close_code is not None, what="the cut-off")
            assert player.ws.close_code == 1008
        reply = await gm.ask({"type": "roll", "id": "g", "formula": "1d6"})  # the GM stays
        assert reply["type"] == "result", reply
        await gm.close()

    cluster.run(play)


def test_a_table_s_rate_holds_across_processes(redis_factory):
    """``--rate-per-table`` counts every change of a table once at its owner, whichever
    process its client is on: a client on another process cannot add a second
    process's allowance. (0.05 requests a second: a burst of one, the next in 20 s.)"""
    redis = redis_factory()
    cluster = Cluster(redis.url, 2, extra=("--rate-per-table", "0.05",
                                           "--rate-per-connection", "0"))  # fmt: skip

    async def play() -> None:
        on_a, on_b = await cluster.joined(0, 1)
        first = await on_a.ask({"type": "roll", "id": "a1", "formula": "1d6"})
        assert first["type"] == "result" and first["seq"] == 1, first
        assert cluster.owner() is cluster.processes[0]
        again = await on_a.ask({"type": "roll", "id": "a2", "formula": "1d6"})
        assert again["code"] == "rate_limited" and again["details"]["scope"] == "table", again
        # B has not counted anything at this table itself: only the owner refuses it
        elsewhere = await on_b.ask({"type": "roll", "id": "b1", "formula": "1d6"})
        assert elsewhere["type"] == "error", elsewhere
        assert elsewhere["code"] == "rate_limited", elsewhere
        assert elsewhere["details"]["scope"] == "table", elsewhere
        assert elsewhere["details"]["retry_after"] > 0
        # nothing was done: the stored log holds the first roll only
        assert check_acknowledged(redis.url, cluster.table, {"a1": 1}) == [1]
        await on_a.close()
        await on_b.close()

    cluster.run(play)


def test_a_resume_from_before_the_retained_log_on_another_process(redis_factory):
    redis = redis_factory()
    cluster = Cluster(redis.url, 2, extra=("--retain", "5"))

    async def play() -> None:
        on_a, late = await cluster.joined(0, 0)
        await keep_rolling(on_a, "r", 2, {})
        await late.until(lambda: late.seq >= 2)
        await late.close()  # it saw 1..2
        await keep_rolling(on_a, "s", 10, {})  # 3..12: the log keeps 8..12
        late.port = cluster.processes[1].port
        welcome = await late.join(resume=True)  # on B: what it missed is gone
        assert welcome["resume"]["recovered"] is False and welcome["seq"] == 12, welcome
        late.events = []
        await keep_rolling(on_a, "t", 3, {})  # and it follows from the snapshot on
        await late.until(lambda: late.seq >= 15)
        assert late.seqs() == [13, 14, 15]
        for player in (on_a, late):
            await player.close()

    cluster.run(play)


def test_a_black_holed_subscription_is_found_and_no_event_is_lost(redis_factory):
    redis = redis_factory()
    proxy = Proxy(redis.port)
    admin = redis_py.Redis.from_url(redis.url)
    try:
        cluster = Cluster(proxy.url, 2)

        async def play() -> None:
            (on_a,) = await cluster.joined(0)
            acked: dict[str, int] = {}
            await keep_rolling(on_a, "a", 1, acked)
            assert cluster.owner() is cluster.processes[0]  # A runs the table: not subscribed
            await until(lambda: cluster.subscribers(admin) == 0, 10,
                        "A leaving its own table's channel")  # fmt: skip
            await asyncio.sleep(0.3)
            subscribed = proxy.subscribers
            proxy.black_hole_next_subscriber()  # B, following the table, hears nothing
            (on_b,) = await cluster.joined(1)
            count, deadline = 0, time.monotonic() + 60
            while proxy.subscribers < subscribed + 2:  # until B subscribed again
                assert time.monotonic() < deadline, "the black hole was never found"
                await keep_rolling(on_a if count % 2 else on_b, f"r{count}-", 1, acked)
                count += 1
                await asyncio.sleep(0.05)
            await keep_rolling(on_a, "after", 5, acked)
            last = max(acked.values())
            await all_sent([on_a], last)  # meanwhile too: every event once, in order
            await on_b.until(lambda: on_b.seq >= last, what=f"seq {last} on B")
            assert on_b.seqs() == list(range(on_b.welcome["seq"] + 1, last + 1))
            await on_b.close()
            check_acknowledged(proxy.url, cluster.table, acked)

        errors = cluster.run(play)
    finally:
        proxy.close()
        admin.close()
    assert proxy.holed == 1
    assert "no answer to a ping" in cluster.logs[1], errors


def test_a_process_lets_go_of_a_table_its_clients_left(redis_factory):
    redis = redis_factory()
    cluster = Cluster(redis.url, 2)
    admin = redis_py.Redis.from_url(redis.url)

    async def play() -> None:
        on_a, on_b = await cluster.joined(0, 1)
        await keep_rolling(on_b, "r", 3, {})  # B forwards to A, or runs the table itself
        owner = cluster.owner()
        follower = cluster.processes[1 if owner is cluster.processes[0] else 0]
        # the process that does not run the table listens; the owner does not
        await on_a.until(
            lambda: cluster.subscribers(admin) == 1 and follower.subscriptions(admin) == 1,
            what="the follower subscribed, the owner not",
        )
        leaving = on_b if owner is cluster.processes[0] else on_a
        await leaving.close()  # the process that does not run the table: no client left
        await on_a.until(lambda: cluster.subscribers(admin) == 0, what="the follower unsubscribed")
        staying = on_a if leaving is on_b else on_b
        await keep_rolling(staying, "s", 2, {})  # the owner plays on
        await all_sent([staying], 5)

    try:
        cluster.run(play)
    finally:
        admin.close()


def test_an_unused_table_s_lease_is_given_up_and_taken_elsewhere(redis_factory):
    redis = redis_factory()
    cluster = Cluster(redis.url, 2)
    a = cluster.processes[0]

    async def play() -> None:
        (on_a,) = await cluster.joined(0)
        await keep_rolling(on_a, "r", 2, {})
        assert cluster.owner() is a
        await on_a.close()  # nobody uses the table on A any more
        await until(lambda: not a.owns(cluster.table), what="A giving the lease up")
        (on_b,) = await cluster.joined(1)
        await keep_rolling(on_b, "s", 2, {})  # B takes the table, at once
        assert cluster.owner() is cluster.processes[1]
        await on_b.until(lambda: on_b.seq >= 4)
        assert on_b.welcome["seq"] == 2 and on_b.seqs() == [3, 4]
        await on_b.close()

    cluster.run(play)
    assert f"gave up table {cluster.table}" in cluster.logs[0], cluster.logs[0]


def test_the_owner_is_not_subscribed_to_its_own_table_a_follower_is(redis_factory):
    """The commit script publishes every commit; the owner made each one itself, so it
    does not listen to its own tables' channels (it would read every notice only to
    drop it). A process that holds the table without owning it does."""
    redis = redis_factory()
    cluster = Cluster(redis.url, 2)
    a, b = cluster.processes
    admin = redis_py.Redis.from_url(redis.url)

    async def play() -> None:
        on_a, also_a = await cluster.joined(0, 0)  # every client of the table on A
        acked: dict[str, int] = {}
        await keep_rolling(on_a, "a", 3, acked)
        assert cluster.owner() is a
        await until(
            lambda: cluster.subscribers(admin) == 0, 10, "A leaving its own table's channel"
        )
        counts = []
        for i in range(10):  # A commits: nobody is sent its notices
            await keep_rolling(also_a if i % 2 else on_a, f"b{i}-", 1, acked)
            counts.append(cluster.subscribers(admin))
        assert counts == [0] * 10 and a.subscriptions(admin) == 0
        # a client on B: B holds the table in memory, not owning it, and listens
        (on_b,) = await cluster.joined(1)
        await until(lambda: b.subscriptions(admin) == 1, 10, "B subscribing")
        await keep_rolling(on_b, "c", 3, acked)  # forwarded to A
        await keep_rolling(on_a, "d", 3, acked)  # B hears of A's own commits
        assert cluster.owner() is a
        assert cluster.subscribers(admin) == 1 and a.subscriptions(admin) == 0
        last = max(acked.values())
        assert last == 19
        await on_b.until(lambda: on_b.seq >= last, what=f"seq {last} on B")
        assert on_b.seqs() == list(range(on_b.welcome["seq"] + 1, last + 1))
        await on_b.close()
        await all_sent([on_a, also_a], last)
        check_acknowledged(redis.url, cluster.table, acked)

    try:
        cluster.run(play)
    finally:
        admin.close()


@pytest.mark.parametrize("how", ["lease deleted", "owner stopped"])
def test_an_owner_that_loses_its_table_listens_again_and_misses_nothing(redis_factory, how):
    """A process that loses the lease of a table its clients still use subscribes to
    the table's channel again (and syncs); its clients are sent every event the new
    owner commits, once each, in order. The new owner leaves the channel."""
    redis = redis_factory()
    cluster = Cluster(redis.url, 2)
    a, b = cluster.processes
    admin = redis_py.Redis.from_url(redis.url)

    async def play() -> None:
        on_a, also_a = await cluster.joined(0, 0)
        acked: dict[str, int] = {}
        await keep_rolling(on_a, "a", 3, acked)
        assert cluster.owner() is a
        await until(
            lambda: cluster.subscribers(admin) == 0, 10, "A leaving its own table's channel"
        )
        if how == "owner stopped":
            a.signal(signal.SIGSTOP)  # paused: its lease runs out, B takes the table
        else:
            admin.delete(f"rb:{{{cluster.table}}}:owner")  # the lease gone under A
        (on_b,) = await cluster.joined(1)
        await keep_rolling(on_b, "b", 3, acked)
        assert cluster.owner() is b
        if how == "owner stopped":
            a.signal(signal.SIGCONT)
        # A finds its lease gone and follows the table: it listens, B (the owner) not
        await until(
            lambda: a.subscriptions(admin) == 1 and b.subscriptions(admin) == 0,
            10, "A subscribed again, B not",
        )  # fmt: skip
        assert cluster.subscribers(admin) == 1
        # the new owner commits, and A forwards: A's clients are sent every event
        await keep_rolling(on_b, "c", 10, acked)
        await keep_rolling(also_a, "d", 3, acked)
        assert cluster.owner() is b
        last = max(acked.values())
        assert last == 19
        await on_b.until(lambda: on_b.seq >= last, what=f"seq {last} on B")
        assert on_b.seqs() == list(range(on_b.welcome["seq"] + 1, last + 1))
        # the process whose clients follow the table listens and its owner does not;
        # on a machine loaded past the short test lease (CI at load 19-20) the table
        # may change hands again after the last commit — then A owns it and B, whose
        # client follows it, listens — and a read may fall between a hand-over and
        # the listening that follows it: the state is waited for, as above. Looked at
        # while both still have clients: without one a process drops the table and
        # stops listening, and an owner gives an unused table's lease up after four
        # leases (6 s) — on a loaded machine the checks below took that long, and
        # nobody owned the table or listened when this was looked at after them

        def settled() -> bool:
            owners = [p for p in cluster.processes if p.owns(cluster.table)]
            if len(owners) > 1:
                return False
            followers = [p for p in cluster.processes if p not in owners]
            return cluster.subscribers(admin) == len(followers) and all(
                p.subscriptions(admin) == (p not in owners) for p in cluster.processes
            )

        await until(settled, 10, "the process that does not own the table listening alone")
        await on_b.close()
        await all_sent([on_a, also_a], last)  # no gap, no duplicate
        check_acknowledged(redis.url, cluster.table, acked)

    try:
        cluster.run(play)
    finally:
        admin.close()
    assert f"no longer runs table {cluster.table}" in cluster.logs[0], cluster.logs[0]


# -- Redis going back in time (SCALING.md failures 5 and 6) -------------------------------


def promote(master: Any, replica: Any) -> None:
    """The replica holds every write so far (``WAIT``), then stops following its master
    (``REPLICAOF NO ONE``): from here on the master's writes are not on it."""
    on_master, on_replica = (redis_py.Redis.from_url(s.url) for s in (master, replica))
    try:
        assert on_master.wait(1, 10_000) == 1
        on_replica.execute_command("REPLICAOF", "NO", "ONE")
    finally:
        on_master.close()
        on_replica.close()


def one_meaning(players: list[Player], url: str) -> dict[tuple[int, int], Any]:
    """No (epoch, seq) names two different events: across what every client was sent
    (over all its connections) and the stored log. Returns them all."""
    named: dict[tuple[int, int], Any] = {}

    def see(epoch: int, seq: int, request: Any, data: Any) -> None:
        what = (request, json.dumps(data, sort_keys=True))
        assert named.setdefault((epoch, seq), what) == what, f"({epoch}, {seq}) names two events"

    for player in players:
        for event in player.events:
            see(event["epoch"], event["seq"], event["request"], event["data"])
    store = RedisStore(url)
    try:
        for event in store.events_after(players[0].table, 0) or []:
            see(event.epoch, event.seq, event.request, event.data)
    finally:
        store.close()
    return named


async def hello_refused(port: int, table: str, token: str) -> dict | None:
    """A hello for ``table``: the error it is answered with (None: the server closed
    the connection without one). :raises AssertionError: still welcomed after 30 s."""
    deadline = time.monotonic() + 30
    while True:  # a process drops the table from memory once unused: until then it welcomes
        async with connect(f"ws://127.0.0.1:{port}/", open_timeout=30) as ws:
            await ws.send(json.dumps({"type": "hello", "id": "h", "table": table, "token": token}))
            try:
                answer = json.loads(await asyncio.wait_for(ws.recv(), 30))
            except ConnectionClosed:
                return None
        if answer["type"] == "error":
            return answer
        assert time.monotonic() < deadline, answer
        await asyncio.sleep(0.5)


async def refused_or_closed(player: Player, request: dict) -> dict | None:
    """Send ``request``: its reply, or None when the server closed the connection
    before answering it."""
    assert player.ws is not None
    with contextlib.suppress(ConnectionClosed):
        await player.ws.send(json.dumps(request))
    await player.until(
        lambda: request["id"] in player.replies or player.ws.close_code is not None,
        what=f"reply {request} or a close",
    )
    return player.replies.get(request["id"])


async def closed_with(players: list[Player], code: int) -> None:
    """Each player's connection is closed by the server with ``code``."""
    for player in players:
        await player.until(lambda p=player: p.ws.close_code is not None, what=f"close {code}")
        assert player.ws.close_code == code, player.ws.close_code


async def resumed_in_a_new_epoch(players: list[Player], seq: int) -> int:
    """Each player resumes from the last (epoch, seq) it saw and is told ``recovered:
    false`` with the table at ``seq`` of one new epoch; that epoch."""
    epochs = set()
    for player in players:
        before = player.epoch
        welcome = await player.join(resume=True)
        assert welcome["resume"]["recovered"] is False, welcome["resume"]
        assert welcome["epoch"] > before and welcome["seq"] == seq, welcome
        epochs.add(welcome["epoch"])
    (epoch,) = epochs
    return epoch


async def plays_on(players: list[Player], epoch: int, first: int, url: str) -> None:
    """Changes on every process after the fence: the seqs go on from ``first`` under
    ``epoch``, every client is sent each once, and nothing has two meanings."""
    acked: dict[str, int] = {}
    for n, player in enumerate(players):
        await keep_rolling(player, f"new{n}-", 2, acked)
    last = first + 2 * len(players) - 1
    assert sorted(acked.values()) == list(range(first, last + 1))
    for player in players:
        await player.until(lambda p=player: p.seq >= last, what=f"seq {last}")
        fresh = [(e["epoch"], e["seq"]) for e in player.events if e["epoch"] == epoch]
        assert fresh == [(epoch, s) for s in range(first, last + 1)], fresh
    one_meaning(players, url)
    for player in players:
        await player.close()


@pytest.mark.parametrize("how", ["the owner commits", "a client resumes"])
def test_a_lagging_replica_promoted_is_fenced_with_a_new_epoch(redis_factory, how):
    """SCALING.md failure 6. Redis is behind a TCP proxy that switches its backend (a
    stand-in for Sentinel, a virtual IP or DNS). A replica is detached at seq 6 while
    the master goes on to 10; the proxy switches to it and the master is killed. Either
    the processes that delivered 1..10 find it (the owner's next commit is refused, or
    a poll finds the stored seq below what it delivered), or — every such process gone
    too — a client resuming at (1, 10) on a fresh process does. The table moves to a
    new epoch before anything else is committed or sent; every client gets
    ``recovered: false`` and the table at seq 6 of it; play goes on at 7, 8, … of the
    new epoch; no (epoch, seq) names two events, for any client or in the log."""
    master = redis_factory("--repl-diskless-sync-delay", "0")
    replica = redis_factory("--replicaof", "127.0.0.1", str(master.port))
    proxy = Proxy(master.port)
    earlier: list[str] = []
    try:
        cluster = Cluster(proxy.url, 2)

        async def play() -> None:
            on_a, on_b = await cluster.joined(0, 1)
            await keep_rolling(on_a, "a", 3, {})
            await keep_rolling(on_b, "b", 3, {})
            promote(master, replica)  # the replica holds 1..6
            await keep_rolling(on_a, "c", 4, {})  # 7..10: acknowledged by the master alone
            for player in (on_a, on_b):
                await player.until(lambda p=player: p.seq >= 10, what="seq 10")
            owner = on_a if cluster.owner() is cluster.processes[0] else on_b
            if how == "a client resumes":  # every process that knew seq 10 goes too
                for player in (on_a, on_b):
                    await player.close()
                earlier.extend(p.stop() for p in cluster.processes)
            proxy.switch(replica.port)
            master.kill()
            if how == "a client resumes":
                for process in cluster.processes:
                    process.start()  # they load the table from the replica: seq 6
            else:  # the owner's next change (unless its poll found the table first)
                await owner.ws.send(json.dumps({"type": "roll", "id": "d", "formula": "1d6"}))
                await closed_with([on_a, on_b], 1013)  # to resume
            epoch = await resumed_in_a_new_epoch([on_b, on_a], 6)
            await plays_on([on_a, on_b], epoch, 7, proxy.url)
            store = RedisStore(proxy.url)
            try:
                stored = [(e.epoch, e.seq) for e in store.events_after(cluster.table, 0)]
            finally:
                store.close()
            assert stored == [(1, s) for s in range(1, 7)] + [(epoch, s) for s in range(7, 11)]

        errors = cluster.run(play)
    finally:
        proxy.close()
    logs = "".join(earlier) + errors
    assert "Traceback" not in logs, logs
    assert "moved to the new epoch" in logs, logs


@pytest.mark.parametrize(
    "how", ["restarted from an older copy", "flushed", "info key lost", "info key lost, polled"]
)
def test_redis_losing_data_every_process_recovers(redis_factory, tmp_path, how):
    """SCALING.md failure 5, two processes serving the table. Redis restarted from an
    older copy of its folder (a backup, a disk snapshot): fenced as a promoted replica
    is — ``recovered: false``, a new epoch, play goes on. Redis emptied (``FLUSHALL``):
    the table is gone — a change is refused with ``unknown_table`` on either process,
    the clients are cut off (their tokens are gone, 1008), a hello is refused; the
    processes serve a new table at once. A table's info key lost: its changes are
    refused with ``unknown_table`` on either process and nothing is written. A change
    sent after a process's poll (every second) read the table gone finds its client
    closed (1008) instead of refused: "polled" waits for the polls first (the
    assertion of a refusal alone failed then, and once in a run before)."""
    redis = redis_factory()
    cluster = Cluster(redis.url, 2)
    admin = redis_py.Redis.from_url(redis.url)
    older = tmp_path / "older"

    async def play() -> None:
        on_a, on_b = await cluster.joined(0, 1)
        await keep_rolling(on_a, "a", 3, {})
        await keep_rolling(on_b, "b", 3, {})
        if how == "restarted from an older copy":
            redis.stop()
            shutil.copytree(redis.folder, older)  # Redis's data at seq 6
            redis.start()
        await keep_rolling(on_a, "c", 4, {})
        for player in (on_a, on_b):
            await player.until(lambda p=player: p.seq >= 10, what="seq 10")
        if how == "restarted from an older copy":
            redis.stop()
            shutil.rmtree(redis.folder)
            shutil.copytree(older, redis.folder)
            redis.start()
            await closed_with([on_a, on_b], 1013)  # both processes found it behind
            epoch = await resumed_in_a_new_epoch([on_a, on_b], 6)
            await plays_on([on_a, on_b], epoch, 7, redis.url)
            return
        if how == "flushed":
            admin.flushall()
        else:
            admin.delete(f"rb:{{{cluster.table}}}:info")
        if how.endswith("polled"):  # each process's poll reads the table gone first
            await asyncio.sleep(1.5 * DEFAULT_POLL_INTERVAL)
        for n, player in enumerate((on_a, on_b)):
            # refused, or closed first: a process's poll (every second) that reads the
            # table gone closes its clients before a change sent then is answered
            refused = await refused_or_closed(player, {"type": "roll", "id": f"x{n}",
                                                       "formula": "1d6"})  # fmt: skip
            assert refused is None or refused.get("code") == "unknown_table", refused
        await closed_with([on_a, on_b], 1008)  # as for a deleted table
        if how.startswith("info key lost"):  # nothing was written: the log holds 1..10, no more
            assert admin.zcard(f"rb:{{{cluster.table}}}:log") == 10
        for process in cluster.processes:  # the table cannot be opened any more
            await hello_refused(process.port, cluster.table, cluster.tokens["gm"])
        made = make_table(redis.url)  # the processes serve on, no restart
        players = [Player(p.port, made["table"], made["tokens"]["gm"]) for p in cluster.processes]
        for player in players:
            await player.join()
        await plays_on(players, players[0].epoch, 1, redis.url)

    try:
        errors = cluster.run(play)
    finally:
        admin.close()
    if how == "restarted from an older copy":
        assert "moved to the new epoch" in errors, errors


def test_a_full_redis_refuses_a_forwarded_change_at_once_and_the_store_fails(redis_factory):
    """Redis out of memory (``noeviction``, SCALING.md failure 14): a change sent to a
    process that does not own the table is refused at once as the owner's own would
    be (``store_error``), not retried every 0.2 s until the forward's 15 s run out —
    and that process's store fails as a commit's failure says it: the gauge
    ``rollbridge_store_failing`` 1, one ERROR for the outage with Redis's words (not a
    line per refusal), its probe trying Redis; memory back, the probe's write ends the
    outage without any change sent (the gauge 0, "the store works again"), and the
    same request goes through, once. Before, the forward logged an ERROR of its own,
    the gauge stayed 0 and no probe ran: nothing said when it ended."""
    redis = redis_factory()
    cluster = Cluster(redis.url, 2)
    admin = redis_py.Redis.from_url(redis.url)
    b = cluster.processes[1]

    async def play() -> None:
        on_a, on_b = await cluster.joined(0, 1)
        first = await on_a.ask({"type": "roll", "id": "a0", "formula": "1d6"})
        assert first["type"] == "result"
        await until(lambda: cluster.processes[0].owns(cluster.table), what="A owns")
        assert failing(b.port) == 0
        admin.config_set("maxmemory", int(admin.info("memory")["used_memory"]) // 2)
        refused = await on_b.ask({"type": "roll", "id": "b0", "formula": "1d6"})
        assert refused["code"] == "store_error", refused
        assert failing(b.port) == 1
        # a second refused forward is not logged again (one line for the outage)
        refused = await on_b.ask({"type": "roll", "id": "b1", "formula": "1d6"})
        assert refused["code"] == "store_error", refused
        admin.config_set("maxmemory", 0)
        await until(lambda: failing(b.port) == 0, what="B's probe ends the outage")
        again = await on_b.ask_until_done({"type": "roll", "id": "b0", "formula": "1d6"})
        assert again["type"] == "result" and again["seq"] == first["seq"] + 1, again
        await all_sent([on_a, on_b], again["seq"])

    cluster.run(play)
    admin.close()
    told = cluster.logs[1]
    fails = [line for line in told.splitlines() if "the store fails" in line]
    assert len(fails) == 1 and "ERROR" in fails[0] and "is out of memory" in fails[0], fails
    # what Redis said, not redis-py's pipeline command with the packed request before it
    assert "(OutOfMemoryError: command not allowed when used memory > 'maxmemory'.)" in fails[0], (
        fails
    )
    assert "RPUSH" not in told and "pipeline caused error" not in told, told
    assert "a change forwarded for table" not in told, told  # not a second line each
    assert told.count("the store works again") == 1, told
    assert "2 requests were refused meanwhile" in told, told


def test_a_full_redis_keeps_the_owner_s_lease(redis_factory):
    """Redis out of memory for longer than a lease: the owner's renewals go on (they
    take no memory), so the table stays with it — no lease lapsing, no "no longer runs
    table", no reload — and its next change, memory back, is its own. Before, the
    renewal script was refused like any write (found in an outage drill: every table
    changed owner during a full Redis)."""
    redis = redis_factory()
    cluster = Cluster(redis.url, 2)
    admin = redis_py.Redis.from_url(redis.url)
    a = cluster.processes[0]

    async def play() -> None:
        (on_a,) = await cluster.joined(0)
        first = await on_a.ask({"type": "roll", "id": "a0", "formula": "1d6"})
        assert first["type"] == "result", first
        await until(lambda: a.owns(cluster.table), what="A owns")
        admin.config_set("maxmemory", int(admin.info("memory")["used_memory"]))
        refused = await on_a.ask({"type": "roll", "id": "a1", "formula": "1d6"})
        assert refused["code"] == "store_error", refused
        await asyncio.sleep(cluster_harness.LEASE_MS / 1000 * 2)  # two leases, full
        # (waited for, still full: A starved past its lease on a loaded machine takes it
        # back at its next renewal — which a full Redis refused before the fix)
        await until(lambda: a.owns(cluster.table), what="A owns, Redis full")
        admin.config_set("maxmemory", 0)
        again = await on_a.ask_until_done({"type": "roll", "id": "a1", "formula": "1d6"})
        assert again["seq"] == first["seq"] + 1, again

    try:
        cluster.run(play)
    finally:
        admin.close()
    assert "no longer runs table" not in cluster.logs[0], cluster.logs[0]
    assert "renewing the leases" not in cluster.logs[0], cluster.logs[0]


def _idle_inbox_logs(redis_factory, between, *extra: str, query: str = "") -> str:
    """The logs of two processes with a reply timeout of 0.9 s in the URL (below 1 s)
    whose clients roll once, then wait for ``between(cluster, redis)`` — pauses of a
    process or of Redis — and roll again on the other process: the roll answered
    once, seen by both. ``extra``: redis-server's arguments; ``query``: more of the
    URL's."""
    redis = redis_factory(*extra)
    cluster = Cluster(f"{redis.url}?socket_timeout=0.9{query}", 2)

    async def play() -> None:
        on_a, on_b = await cluster.joined(0, 1)
        first = await on_b.ask({"type": "roll", "id": "r0", "formula": "1d6"})
        await between(cluster, redis)
        await asyncio.sleep(1)  # idle again
        second = await on_a.ask({"type": "roll", "id": "r1", "formula": "1d6"})
        assert second["seq"] == first["seq"] + 1, (first, second)
        await all_sent([on_a, on_b], second["seq"])

    return cluster.run(play)


async def _paused(process: Any, seconds: float = 1.2) -> None:
    """``process`` (a serve's or Redis's ``Popen``) stopped for ``seconds``."""
    process.send_signal(signal.SIGSTOP)
    try:
        await asyncio.sleep(seconds)
    finally:
        process.send_signal(signal.SIGCONT)


def test_a_short_reply_timeout_in_the_url_leaves_an_idle_inbox_quiet(redis_factory):
    """The URL's ``socket_timeout`` wins over the 5 s default (docs/redis.md): below 1 s
    the inbox's blocking pop (1 s) was taken for a dead connection — a warning and a
    new connection about every second while idle. The pop now waits half the timeout.
    (0.9 s: under 1 s, so the old pop always overran it.) The 0.45 s left for the reply
    was a margin a loaded machine could overrun (at 0.5 s, 0.25 s was overrun once at a
    load average of 15); one reply late is now taken for this process's own load, and
    only a second late pop in a row is said: here the load is a process paused
    (SIGSTOP) for longer than its reply timeout while its pop waits, which was said
    every time."""

    async def each_paused_in_turn(cluster, _redis) -> None:
        await asyncio.sleep(3)  # both idle
        for process in cluster.processes:  # each held past its reply timeout, in turn
            await _paused(process.process)

    logs = _idle_inbox_logs(redis_factory, each_paused_in_turn)
    assert "reading this process's inbox" not in logs, logs


def test_a_process_paused_again_while_its_next_pop_waits_leaves_its_inbox_quiet(redis_factory):
    """The flake of the test above, made every time: under a load average of ~12
    (two CPU burners on two cores) it failed once in 15 runs, its process's next pop
    late too — sent just before the pause, or its reply held by the load — so two
    late pops in a row were said as a Redis that hangs. Here a process is paused past
    its reply timeout, let go, and paused again while the pop it sent on its new
    connection waits. A pop whose timeout this process noticed well after it was due
    (a quarter of the timeout later) is the process's own stall, not Redis's silence,
    and is not counted; a Redis that hangs is noticed on time by an unloaded process,
    and said at its second late pop as before (test_cluster_paused_forward's Redis)."""

    async def paused_twice(cluster, _redis) -> None:
        await asyncio.sleep(1)  # idle: a pop waits
        process = cluster.processes[1].process
        await _paused(process)  # past the reply timeout: this pop is late
        await asyncio.sleep(0.3)  # the next pop, on a new connection, sent
        await _paused(process)  # and late too

    logs = _idle_inbox_logs(redis_factory, paused_twice)
    assert "reading this process's inbox" not in logs, logs


def test_a_redis_that_hangs_is_still_said_by_an_idle_inbox(redis_factory):
    """The other side of the test above: Redis itself paused (SIGSTOP) for three reply
    timeouts, the processes running — their pops are noticed late on time, and the
    second in a row is said, naming a Redis that does not answer in time."""

    async def redis_paused(_cluster, redis) -> None:
        await _paused(redis.process, 2.7)

    logs = _idle_inbox_logs(redis_factory, redis_paused)
    said = [line for line in logs.splitlines() if "reading this process's inbox failed" in line]
    assert said and all("does not answer in time" in line for line in said), logs


def test_a_redis_that_takes_no_connection_is_still_said_by_an_idle_inbox(redis_factory):
    """A Redis that hangs and takes no new connection (its accept queue full, as a
    paused Redis's fills, or one behind a network that drops its packets): each pop
    after the first late one opens a new connection, and waits the connect timeout
    (2.5 s here, 5 s by default) before it fails — more than a quarter of the reply
    timeout (0.9 s) past it, taken for this process's own stall every time, and the
    hang was never said (rev29o). A stalled pop is excused once after a late one, no
    more: the third late pop in a row is said."""

    async def redis_unreachable(_cluster, redis) -> None:
        redis.process.send_signal(signal.SIGSTOP)
        filling = []
        try:
            for _ in range(4):  # the accept queue (--tcp-backlog 1) full: SYNs dropped
                sock = socket.socket()
                sock.setblocking(False)
                with contextlib.suppress(BlockingIOError):
                    sock.connect(("127.0.0.1", redis.port))
                filling.append(sock)
            await asyncio.sleep(9)  # a late pop (0.9 s) and three connects (2.5 s)
        finally:
            redis.process.send_signal(signal.SIGCONT)
            for sock in filling:
                sock.close()

    logs = _idle_inbox_logs(redis_factory, redis_unreachable, "--tcp-backlog", "1",
                            query="&socket_connect_timeout=2.5")  # fmt: skip
    assert "reading this process's inbox failed" in logs, logs
