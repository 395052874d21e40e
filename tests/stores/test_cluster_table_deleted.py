"""A table deleted while its clients play on a ``serve --redis`` process: they are
told so as a single process tells them (1008 ``table deleted``, in each one's
language), where the process that noticed the table gone from Redis closed them
with ``table gone``, in English for everyone (review, 5 December)."""

from __future__ import annotations

import json

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from rollbridge.server.cluster import ClusterServer
from tests.stores.test_cluster_lease_memory import on_a_cluster_server


def test_a_deleted_table_s_clients_are_told_in_their_language(redis_factory):
    closes: dict[str, tuple[int | None, str | None]] = {}

    async def play(server: ClusterServer) -> None:
        from rollbridge.offline import TableService
        from rollbridge.stores.redis import RedisStore

        info, tokens = TableService(server.store, server.host).create_table("T", "bandits")
        other = RedisStore(server.redis_url)  # another process's view (the CLI's)
        try:
            async with (
                connect(f"ws://127.0.0.1:{server.port}/") as german,
                connect(f"ws://127.0.0.1:{server.port}/") as english,
            ):
                for ws, locale in ((german, "de"), (english, "en")):
                    hello = {"type": "hello", "id": "h", "table": info.id,
                             "token": tokens["gm"], "locale": locale}  # fmt: skip
                    await ws.send(json.dumps(hello))
                    assert json.loads(await ws.recv())["type"] == "welcome"
                other.delete_table(info.id)
                for ws, locale in ((german, "de"), (english, "en")):
                    try:
                        while True:  # what was sent before the close, then the close
                            await ws.recv()
                    except ConnectionClosed:
                        closes[locale] = (ws.close_code, ws.close_reason)
        finally:
            other.close()

    # no token check in between: the poll that finds the table gone closes them
    on_a_cluster_server(redis_factory, play, token_check_interval=None)
    assert closes == {"de": (1008, "Tisch gelöscht"), "en": (1008, "table deleted")}
