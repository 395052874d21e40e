"""Several ``rollbridge serve --redis`` processes serving one table (issue 13, item 2),
and their failures (item 4): real redis-server, real processes, real clients.

Each test checks what the issue asks of clients: every client of a table, on any
process, is sent the same events in the same seq order — none skipped, none twice —
and every acknowledged change is in the stored log, at a seq no other event has.
"""

from __future__ import annotations

import asyncio

import pytest

from rollbridge.stores.redis import RedisStore
from tests.stores.cluster_harness import Player, Process, make_table

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def stored_seqs(url: str, table: str) -> list[int]:
    store = RedisStore(url)
    try:
        events = store.events_after(table, 0) or []
        return [e.seq for e in events]
    finally:
        store.close()


def same_stream(*players: Player, upto: int) -> None:
    """Every player was sent exactly the events 1..upto (from where it joined), in
    order, and the same ones."""
    for player in players:
        assert player.seqs() == list(range(player.seqs()[0], upto + 1)), player.seqs()
    first = {e["seq"]: e for e in players[0].events}
    for player in players[1:]:
        for event in player.events:
            mine = first.get(event["seq"])
            if mine is not None:
                assert (mine["kind"], mine.get("data")) == (event["kind"], event.get("data"))


def test_two_processes_one_table_same_events_in_the_same_order(redis_factory):
    redis = redis_factory()
    made = make_table(redis.url)
    table, gm = made["table"], made["tokens"]["gm"]
    a, b = Process(redis.url), Process(redis.url)

    async def play() -> None:
        on_a, on_b = Player(a.port, table, gm), Player(b.port, table, gm)
        await on_a.join()
        await on_b.join()
        # requests on both processes, interleaved: one runs the table, the other forwards
        for i in range(10):
            who = on_a if i % 2 == 0 else on_b
            reply = await who.ask({"type": "roll", "id": f"r{i}", "formula": "2d6"})
            assert reply["type"] == "result", reply
            assert reply["seq"] == i + 1
        # concurrent requests from both
        replies = await asyncio.gather(
            *[(on_a if i % 2 else on_b).ask({"type": "roll", "id": f"c{i}", "formula": "1d6"})
              for i in range(10)]
        )  # fmt: skip
        assert all(r["type"] == "result" for r in replies), replies
        assert sorted(r["seq"] for r in replies) == list(range(11, 21))
        for player in (on_a, on_b):
            await player.until(lambda p=player: p.seq >= 20, what="seq 20")
        same_stream(on_a, on_b, upto=20)
        assert on_a.seqs() == on_b.seqs() == list(range(1, 21))
        # a retry of a request answered on the other process: the first result
        again = await on_a.ask({"type": "roll", "id": "r1", "formula": "2d6"})
        assert again["seq"] == 2 and again.get("event", {}).get("data") == on_b.replies.get(
            "r1", again
        ).get("event", {}).get("data")
        await on_a.close()
        await on_b.close()

    try:
        asyncio.run(play())
        assert stored_seqs(redis.url, table) == list(range(1, 21))
    finally:
        err_a, err_b = a.stop(), b.stop()
    assert "Traceback" not in err_a + err_b, err_a + err_b
    # one process ran the table; the other forwarded its half of the requests
    assert (f"now runs table {table}" in err_a) != (f"now runs table {table}" in err_b)


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


def test_kill_9_of_the_owner_mid_session_the_others_take_over(redis_factory):
    redis = redis_factory()
    made = make_table(redis.url)
    table, gm = made["table"], made["tokens"]["gm"]
    a, b, c = Process(redis.url), Process(redis.url), Process(redis.url)

    async def play() -> None:
        on_a, on_b, on_c = (Player(p.port, table, gm) for p in (a, b, c))
        for player in (on_a, on_b, on_c):
            await player.join()
        first = await on_a.ask({"type": "roll", "id": "a0", "formula": "1d6"})
        assert first["seq"] == 1  # A runs the table now
        acked: dict[str, int] = {"a0": 1}
        rolling = [
            asyncio.ensure_future(keep_rolling(on_b, "b", 30, acked)),
            asyncio.ensure_future(keep_rolling(on_c, "c", 30, acked)),
        ]
        await on_b.until(lambda: len(acked) >= 15, what="15 acknowledged changes")
        a.kill()  # kill -9, mid-session: its lease is left to run out
        await asyncio.gather(*rolling)
        assert len(acked) == 61
        last = max(acked.values())
        for player in (on_b, on_c):
            await player.until(lambda p=player: p.seq >= last, what=f"seq {last}")
        # the clients on the surviving processes: every event once, in order
        assert on_b.seqs() == on_c.seqs() == list(range(1, last + 1))
        for player in (on_b, on_c):
            await player.close()
        await on_a.close()
        seqs = check_acknowledged(redis.url, table, acked)
        assert seqs[-1] == last

    try:
        asyncio.run(play())
    finally:
        errors = b.stop() + c.stop()
        a.stop()
    assert "Traceback" not in errors, errors
    assert f"now runs table {table}" in errors  # B or C took the table over


def test_the_subscription_killed_while_events_flow_no_gap_no_duplicate(redis_factory):
    import redis as redis_py

    redis = redis_factory()
    made = make_table(redis.url)
    table, gm = made["table"], made["tokens"]["gm"]
    a, b = Process(redis.url), Process(redis.url)
    admin = redis_py.Redis.from_url(redis.url)

    async def play() -> None:
        on_a, on_b, also_b = (Player(p.port, table, gm) for p in (a, b, b))
        for player in (on_a, on_b, also_b):
            await player.join()
        acked: dict[str, int] = {}
        rolling = asyncio.ensure_future(keep_rolling(on_a, "r", 60, acked))
        killed = 0
        while not rolling.done():
            killed += admin.client_kill_filter(_type="pubsub")  # every process's subscription
            await asyncio.sleep(0.05)
        await rolling
        assert killed >= 2  # it was cut while the events flowed
        for player in (on_a, on_b, also_b):
            await player.until(lambda p=player: p.seq >= 60, what="seq 60")
        for player in (on_a, on_b, also_b):
            assert player.seqs() == list(range(1, 61)), player.seqs()
            await player.close()
        check_acknowledged(redis.url, table, acked)

    try:
        asyncio.run(play())
    finally:
        admin.close()
        errors = a.stop() + b.stop()
    assert "Traceback" not in errors, errors
    assert "subscribing again" in errors  # the subscription was lost, and made again


def test_a_hundred_resumes_across_processes_while_another_commits(redis_factory):
    redis = redis_factory()
    made = make_table(redis.url)
    table, gm = made["table"], made["tokens"]["gm"]
    a, b, c = Process(redis.url), Process(redis.url), Process(redis.url)

    async def play() -> None:
        committer = Player(a.port, table, gm)
        await committer.join()
        acked: dict[str, int] = {}
        wanderer = Player(b.port, table, gm)
        await wanderer.join()
        seen: list[int] = []
        rolling = asyncio.ensure_future(keep_rolling(committer, "r", 150, acked))
        ports = [b.port, a.port, c.port]
        cycles = 0
        while cycles < 100:
            await asyncio.sleep(0.01 * (cycles % 4))
            await wanderer.close()  # then what it was sent: nothing arrives after the close
            seen += wanderer.seqs()
            wanderer.events = []
            wanderer.port = ports[cycles % 3]
            welcome = await wanderer.join(resume=True)  # on A (committing) or B or C
            assert welcome["resume"]["recovered"] is True, welcome["resume"]
            cycles += 1
        await rolling
        await wanderer.until(lambda: wanderer.seq >= 150, what="seq 150")
        await wanderer.close()
        seen += wanderer.seqs()
        await committer.close()
        # 100 resumes on three processes while A committed: 0 gaps, 0 duplicates
        assert seen == list(range(1, 151)), [s for s in seen]
        check_acknowledged(redis.url, table, acked)

    try:
        asyncio.run(play())
    finally:
        errors = a.stop() + b.stop() + c.stop()
    assert "Traceback" not in errors, errors


def test_redis_restarted_every_process_recovers(redis_factory):
    redis = redis_factory()
    made = make_table(redis.url)
    table, gm = made["table"], made["tokens"]["gm"]
    a, b = Process(redis.url), Process(redis.url)

    async def play() -> None:
        on_a, on_b = Player(a.port, table, gm), Player(b.port, table, gm)
        await on_a.join()
        await on_b.join()
        acked: dict[str, int] = {}
        await keep_rolling(on_a, "a", 5, acked)
        await keep_rolling(on_b, "b", 5, acked)
        redis.stop()  # SIGTERM: Redis fsyncs and exits; both processes lose it
        await asyncio.sleep(0.5)
        redis.start()  # the same folder and port: every acknowledged change is there
        await keep_rolling(on_b, "c", 5, acked)
        await keep_rolling(on_a, "d", 5, acked)
        for player in (on_a, on_b):
            await player.until(lambda p=player: p.seq >= 20, what="seq 20")
            assert player.seqs() == list(range(1, 21)), player.seqs()
            await player.close()
        check_acknowledged(redis.url, table, acked)

    try:
        asyncio.run(play())
    finally:
        errors = a.stop() + b.stop()
    assert "Traceback" not in errors, errors


def test_approval_across_three_processes_and_undo_after_a_takeover(redis_factory):
    redis = redis_factory()
    made = make_table(redis.url, settings={"approval": True})
    table, gm, player = made["table"], made["tokens"]["gm"], made["tokens"]["player"]
    a, b, c = Process(redis.url), Process(redis.url), Process(redis.url)

    async def play() -> None:
        asker = Player(a.port, table, player)
        judge = Player(b.port, table, gm)
        await asker.join()
        await judge.join()
        asked = await asker.ask({"type": "roll", "id": "p1", "formula": "2d6"})
        assert asked["type"] == "result" and asked["status"] == "pending", asked
        approved = await judge.ask({"type": "approve", "id": "g1", "request": asked["pending"]})
        assert approved["type"] == "result", approved
        await asker.close()
        retry = Player(c.port, table, player)  # the player's retry, on a third process
        await retry.join()
        result = await retry.ask({"type": "roll", "id": "p1", "formula": "2d6"})
        assert result["type"] == "result" and isinstance(result.get("seq"), int), result
        assert result.get("status") != "pending"
        rolled = result["seq"]
        changed = await judge.ask({"type": "settings", "id": "g2", "settings": {"approval": False}})
        assert changed["type"] == "result" and changed["seq"] > rolled, changed
        # the owner goes; the GM's undo on another process after the takeover
        owner = next(p for p in (a, b, c) if p.owns(table))
        owner.kill()
        survivor = next(p for p in (a, b, c) if p.process is not None and p is not owner)
        gm_there = Player(survivor.port, table, gm)
        await gm_there.join()
        undone = await gm_there.ask_until_done({"type": "undo", "id": "u1"})
        assert undone["type"] == "result", undone
        await gm_there.until(lambda: gm_there.events and gm_there.events[-1]["kind"] == "undo",
                             what="the undo event")  # fmt: skip
        assert gm_there.events[-1]["seq"] == changed["seq"] + 1
        state = await gm_there.ask({"type": "state", "id": "s1"})
        assert state["table"]["settings"].get("approval") is True, state  # undone
        for p in (retry, judge, gm_there):
            await p.close()

    try:
        asyncio.run(play())
    finally:
        errors = a.stop() + b.stop() + c.stop()
    assert "Traceback" not in errors, errors


def test_an_owner_stopped_past_its_lease_is_fenced_when_it_resumes(redis_factory):
    import signal

    redis = redis_factory()
    made = make_table(redis.url)
    table, gm = made["table"], made["tokens"]["gm"]
    a, b = Process(redis.url), Process(redis.url)

    async def play() -> None:
        on_a, on_b = Player(a.port, table, gm), Player(b.port, table, gm)
        await on_a.join()
        await on_b.join()
        acked: dict[str, int] = {}
        await keep_rolling(on_a, "a", 3, acked)  # A runs the table
        assert a.owns(table)
        a.signal(signal.SIGSTOP)  # paused: its lease runs out, its clients wait
        # a request A read before it was paused is in its socket: it runs it on waking
        await on_a.ws.send('{"type": "roll", "id": "stale", "formula": "1d6"}')
        await keep_rolling(on_b, "b", 3, acked)  # B takes the table over
        assert b.owns(table)
        a.signal(signal.SIGCONT)
        stale = await on_a.ask_until_done({"type": "roll", "id": "stale", "formula": "1d6"})
        assert stale["type"] == "result", stale
        acked["stale"] = stale["seq"]
        await keep_rolling(on_a, "c", 3, acked)
        last = max(acked.values())
        for player in (on_a, on_b):
            await player.until(lambda p=player: p.seq >= last, what=f"seq {last}")
            assert player.seqs() == list(range(1, last + 1)), player.seqs()
            await player.close()
        check_acknowledged(redis.url, table, acked)
        assert last == 10  # each request once: none executed twice, no seq reused

    try:
        asyncio.run(play())
    finally:
        err_a, err_b = a.stop(), b.stop()
    assert "Traceback" not in err_a + err_b, err_a + err_b
    # A learned it no longer runs the table: its late commit was refused by the commit
    # script (the lease names B; the seq moved on), or its renewal found B's lease
    # first and it forwarded instead. Either way nothing of A's was written twice.
    assert "not by this writer" in err_a or "no longer runs table" in err_a, err_a
