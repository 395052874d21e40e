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
