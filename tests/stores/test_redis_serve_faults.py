"""Real Redis faults under a running ``rollbridge serve --redis`` with a GM and a
player at a table (docs/redis.md, "When Redis fails"): Redis out of memory
(``noeviction``), Redis refusing writes because it cannot save
(``stop-writes-on-bgsave-error`` after a failed ``BGSAVE``), Redis killed and
started again. Every request is answered at once (``store_error`` while it lasts),
nothing is shown that Redis does not hold, every result is in Redis afterwards, the
server goes on by itself once Redis does, and the log says so once — not a line per
request, nor several a second from each of the cluster's loops."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
import redis

from rollbridge.stores.redis import RedisStore
from tests.server.storage_harness import Seat, Serve, make_table, stored_seqs

ROLL = {"type": "roll", "formula": "30d6", "label": "x" * 200}


def wait_for(check: Any, what: str, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def fail_saving(client: redis.Redis, folder: Path) -> None:
    """A BGSAVE that fails (its file's name is a folder's): Redis, saving on a
    schedule with ``stop-writes-on-bgsave-error``, then refuses every write."""
    (folder / "taken").mkdir()
    client.config_set("save", "3600 1")
    client.config_set("dbfilename", "taken")
    client.bgsave()
    wait_for(lambda: client.info("persistence")["rdb_last_bgsave_status"] == "err",
             "the BGSAVE did not fail")  # fmt: skip


def save_again(client: redis.Redis) -> None:
    client.config_set("dbfilename", "dump.rdb")
    client.bgsave()
    wait_for(lambda: client.info("persistence")["rdb_last_bgsave_status"] == "ok",
             "the BGSAVE did not succeed")  # fmt: skip


@pytest.mark.parametrize("fault", ["out of memory", "cannot save"])
async def test_redis_refusing_writes_refuses_changes_once_in_the_log_and_recovers(
    redis_factory, tmp_path, fault
):
    server = redis_factory("--enable-protected-configs", "yes")
    client = redis.Redis.from_url(server.url)
    table, tokens = make_table("--redis", server.url)
    served = Serve(tmp_path / "serve.log", "--redis", server.url)
    try:
        gm, _ = await Seat.take(served.port, table, tokens["gm"])
        player, _ = await Seat.take(served.port, table, tokens["player"])
        observer, _ = await Seat.take(served.port, table, tokens["observer"])
        done = [await seat.ask(ROLL) for seat in (gm, player, gm)]
        if fault == "out of memory":
            client.config_set("maxmemory", int(client.info("memory")["used_memory"]) + 1024)
        else:
            fail_saving(client, server.folder)
        refused = []
        for _ in range(5):
            refused += await asyncio.gather(gm.ask(ROLL, timeout=5), player.ask(ROLL, timeout=5))
        assert {r["code"] for r in refused} == {"store_error"}, refused
        assert (await player.ask({"type": "state"}))["table"]["seq"] == done[-1]["seq"]
        if fault == "out of memory":
            client.config_set("maxmemory", 0)
        else:
            save_again(client)
        after = await gm.ask(ROLL)
        assert after["type"] == "result" and after["seq"] == done[-1]["seq"] + 1, after
        await observer.quiet()
        assert [e["seq"] for e in observer.events] == [r["seq"] for r in [*done, after]]
        failing = [line for line in served.lines() if line["level"] == "ERROR"]
        assert len(failing) == 1, failing
        assert fault in failing[0]["message"] and "nothing was written" in failing[0]["message"]
        assert any(line["message"].startswith("the store works again, after")
                   and "10 requests were" in line["message"]
                   for line in served.lines())  # fmt: skip
        for seat in (gm, player, observer):
            await seat.close()
    finally:
        served.stop()
        client.close()
    assert stored_seqs(RedisStore(server.url), table) == [r["seq"] for r in [*done, after]]


async def test_redis_killed_and_started_again_mid_game(redis_factory, tmp_path):
    server = redis_factory()
    table, tokens = make_table("--redis", server.url)
    served = Serve(tmp_path / "serve.log", "--redis", server.url, "--lease-ms", "1500")
    try:
        gm, _ = await Seat.take(served.port, table, tokens["gm"])
        player, _ = await Seat.take(served.port, table, tokens["player"])
        done = [await seat.ask(ROLL) for seat in (gm, player)]
        before = len(served.lines())
        server.kill()
        refused = []
        ends = time.monotonic() + 3
        while time.monotonic() < ends:  # three seconds of a game without Redis
            refused += await asyncio.gather(gm.ask(ROLL, timeout=5), player.ask(ROLL, timeout=5))
            await asyncio.sleep(0.2)
        assert {r["code"] for r in refused} == {"store_error"}, refused
        during = served.lines()[before:]
        server.start()
        deadline = time.monotonic() + 15
        while (after := await gm.ask(ROLL))["type"] != "result":  # the lease taken again
            assert after["code"] == "store_error" and time.monotonic() < deadline, after
            await asyncio.sleep(0.1)
        assert after["seq"] == done[-1]["seq"] + 1, after
        # one line from the writer, one from each loop that uses Redis: not one per
        # request, nor one each time a loop tries again
        said = [line for line in during if line["level"] in ("WARNING", "ERROR")]
        assert len(said) <= 8, [line["message"][:120] for line in said]
        writer = [line for line in said if line["logger"] == "rollbridge.writer"]
        assert len(writer) == 1 and "does not answer" in writer[0]["message"], writer
        for seat in (gm, player):
            await seat.close()
    finally:
        served.stop()
    assert stored_seqs(RedisStore(server.url), table) == [r["seq"] for r in [*done, after]]


async def test_redis_set_to_lose_changes_while_serving_refuses_them(redis_factory, tmp_path):
    """``serve`` refuses a Redis without a durable AOF at its start; an operator's
    ``CONFIG SET appendonly no`` while it serves is found before the next commit
    (at most a second later) and refuses changes until it is set back — else they
    were acknowledged and lost at Redis's next restart."""
    server = redis_factory()
    client = redis.Redis.from_url(server.url)
    table, tokens = make_table("--redis", server.url)
    served = Serve(tmp_path / "serve.log", "--redis", server.url)
    try:
        gm, _ = await Seat.take(served.port, table, tokens["gm"])
        done = [await gm.ask(ROLL) for _ in range(2)]
        client.config_set("appendonly", "no")
        await asyncio.sleep(1.2)  # the settings read at the last commit are out of date
        refused = [await gm.ask(ROLL) for _ in range(3)]
        assert [r.get("code") for r in refused] == ["store_error"] * 3, refused
        (failing,) = [line for line in served.lines() if line["level"] == "ERROR"]
        assert "appendonly no" in failing["message"] and "--redis-unsafe" in failing["message"]
        client.config_set("appendonly", "yes")
        wait_for(lambda: not any(client.info("persistence")[k] for k in
                                 ("aof_rewrite_in_progress", "aof_rewrite_scheduled")),
                 "the AOF was not written")  # fmt: skip
        deadline = time.monotonic() + 5
        while (after := await gm.ask(ROLL))["type"] != "result":
            assert time.monotonic() < deadline, after
            await asyncio.sleep(0.2)
        done.append(after)
        await gm.close()
    finally:
        served.stop()
        client.close()
    server.kill()  # only what Redis made durable comes back
    server.start()
    assert stored_seqs(RedisStore(server.url), table) == [r["seq"] for r in done]
