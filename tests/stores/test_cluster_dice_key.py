"""The key of verifiable dice when Redis loses its data under a running ``rollbridge
serve --redis`` (docs/redis.md, "What an outage looks like"): real redis-server, a
real process, real clients.

Found in an outage drill: after ``FLUSHALL`` (or Redis restarted empty) the process
kept the key it started with, while the next ``rollbridge table create`` made a new
one in Redis: every roll at a verifiable table made after the loss was refused
``dice_key_lost`` until the process was restarted.
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest
import redis as redis_py

from tests.stores.cluster_harness import Player, Process, cli

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_a_process_puts_its_dice_key_back_and_takes_the_one_redis_holds(redis_factory):
    redis = redis_factory()
    client = redis_py.Redis.from_url(redis.url)
    serving = Process(redis.url)
    try:
        mine = client.get("rb:dice_key")
        assert mine is not None and len(mine) == 32

        # Redis loses everything: the process puts its key back
        client.flushall()
        tries = 0
        while client.get("rb:dice_key") != mine:
            tries += 1
            assert tries < 100, "the key was not put back"
            time.sleep(0.1)

        # Redis loses everything again, and another key is made there before the
        # process puts its own back (another process started, a table create)
        client.flushall()
        other = bytes(range(32))
        client.set("rb:dice_key", other)
        made = json.loads(
            cli("table", "create", "--ruleset", "bandits", "--name", "V", "--redis", redis.url,
                "--json", "--settings", json.dumps({"verifiable": True})).stdout
        )  # fmt: skip
        assert client.get("rb:dice_key") == other  # the table's segment: under that key

        async def play() -> dict:
            gm = Player(serving.port, made["table"], made["tokens"]["gm"])
            await gm.join()
            try:
                for _attempt in range(100):  # refused only until the process takes the key
                    reply = await gm.ask({"type": "roll", "id": "r1", "formula": "2d6"})
                    if reply.get("code") != "dice_key_lost":
                        return reply
                    await asyncio.sleep(0.1)
                return reply
            finally:
                await gm.close()

        reply = asyncio.run(play())
        assert reply["type"] == "result", reply
        assert client.get("rb:dice_key") == other  # it took Redis's, did not put its own
    finally:
        logs = serving.stop()
        client.close()
    assert "Traceback" not in logs, logs
    assert (
        "ERROR rollbridge.cluster: the key of verifiable dice was gone from Redis: Redis lost"
        in logs
    )
    assert "this process put its own back" in logs, logs
    assert "this process takes Redis's" in logs, logs


def _sets(client: redis_py.Redis) -> int:
    """How many SETs Redis has run: with no table, only the process's check of the
    dice key sends any (one a poll, each second)."""
    return int(client.info("commandstats").get("cmdstat_set", {}).get("calls", 0))


def test_a_value_in_redis_that_is_no_dice_key_ends_no_poll(redis_factory):
    """``rb:dice_key`` holding something else (5 bytes, written by hand): the process
    says so once, keeps its key, and its poll goes on — deleted, its key is put back.
    Before, the check's ValueError ended the poll (no more key put back, no deleted
    table or failover noticed) until a restart."""
    redis = redis_factory()
    client = redis_py.Redis.from_url(redis.url)
    serving = Process(redis.url)
    try:
        mine = client.get("rb:dice_key")
        client.set("rb:dice_key", b"short")
        seen = _sets(client) + 2  # two checks since: one has met the 5 bytes
        for _ in range(300):
            if _sets(client) >= seen:
                break
            time.sleep(0.05)
        assert _sets(client) >= seen, "the process checked no dice key"
        assert client.get("rb:dice_key") == b"short"  # not overwritten
        client.delete("rb:dice_key")
        for _ in range(300):
            if client.get("rb:dice_key") is not None:
                break
            time.sleep(0.05)
        assert client.get("rb:dice_key") == mine, "the poll no longer runs"
    finally:
        logs = serving.stop()
        client.close()
    assert "Traceback" not in logs, logs
    said = [line for line in logs.splitlines() if "is no key of verifiable dice" in line]
    assert len(said) == 1 and "ERROR" in said[0] and "32 bytes, not 5" in said[0], logs
