"""``rollbridge_store_failing`` after an outage in which only reads failed (players
joining while Redis was down, no change sent): it goes back to 0 once the store
answers again, not at the next change — an idle table would keep it at 1 (and an
alert on it firing) for as long as nobody changes anything."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from websockets.asyncio.client import connect

from tests.server.storage_harness import Seat, Serve, make_table


async def test_failing_ends_when_reads_work_again(redis_factory: Any, tmp_path: Any) -> None:
    server = redis_factory()
    table, tokens = make_table("--redis", server.url)
    served = Serve(tmp_path / "serve.log", "--redis", server.url)
    try:
        server.kill()
        seat = Seat(await connect(f"ws://127.0.0.1:{served.port}/"))
        refused = await seat.ask({"type": "hello", "table": table, "token": tokens["player"]})
        assert refused.get("code") == "store_error", refused
        await seat.close()
        assert served.metric("rollbridge_store_failing") == 1
        server.start()
        deadline = time.monotonic() + 15
        while True:  # joins work again (the lease taken, the table read)
            try:
                player, _ = await Seat.take(served.port, table, tokens["player"])
                break
            except AssertionError:
                assert time.monotonic() < deadline
                await asyncio.sleep(0.2)
        await player.ask({"type": "state"})
        await player.close()
        assert served.metric("rollbridge_store_failing") == 0
    finally:
        served.stop()
