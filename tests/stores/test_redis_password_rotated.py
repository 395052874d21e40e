"""A password rotated while ``rollbridge serve --redis`` runs (``CONFIG SET
requirepass``): the connections made before it stay authenticated, every new one
is refused. The server's tries of the store during an outage
(rollbridge.server.store_probe) went over a connection of the pool, one of those
made before: the try was written and ended the outage — ``rollbridge_store_failing``
0, "the store works again" — while a process started, or a connection made, with the
URL it serves with was refused. Now each try goes over a new connection and meets
what a new connection meets. A real ``redis-server`` and a real ``serve``; no fakes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import redis

from rollbridge.exceptions import StoreUnavailable
from rollbridge.stores.redis import RedisStore
from tests.server.storage_harness import Seat, Serve, make_table
from tests.stores.test_cluster import until

OLD, NEW = "oldPW-1", "newPW-2"
ROLL = {"type": "roll", "formula": "2d6"}


#: How an operator rotates the password, and sets it back: ``requirepass`` (the
#: default user's), or an ACL user's own (``ACL SETUSER``).
ROTATIONS = {
    "requirepass": (
        ("CONFIG", "SET", "requirepass", OLD), ("CONFIG", "SET", "requirepass", NEW),
        ("CONFIG", "SET", "requirepass", OLD), f":{OLD}",
    ),
    "acl": (
        ("ACL", "SETUSER", "table", "on", f">{OLD}", "~*", "&*", "+@all"),
        ("ACL", "SETUSER", "table", "resetpass", f">{NEW}"),
        ("ACL", "SETUSER", "table", "resetpass", f">{OLD}"), f"table:{OLD}",
    ),
}  # fmt: skip


def with_password(server: Any, password: str) -> tuple[redis.Redis, str]:
    """``server``'s ``requirepass`` set to ``password``: an admin client (signed in)
    and the URL a process serves with."""
    admin = redis.Redis(port=server.port)
    admin.config_set("requirepass", password)
    admin.execute_command("AUTH", password)
    return admin, f"redis://:{password}@127.0.0.1:{server.port}/0"


@pytest.mark.parametrize("rotation", sorted(ROTATIONS))
def test_a_probe_meets_what_a_new_connection_meets(redis_factory, rotation):
    server = redis_factory()
    admin = redis.Redis(port=server.port)
    first, rotate, back, user = ROTATIONS[rotation]
    admin.execute_command(*first)
    if rotation == "requirepass":
        admin.execute_command("AUTH", OLD)
    url = f"redis://{user}@127.0.0.1:{server.port}/0"
    store = RedisStore(url)
    try:
        store.probe_write()  # a connection of the pool, authenticated
        admin.execute_command(*rotate)
        with pytest.raises(redis.AuthenticationError):  # a new connection is refused
            redis.Redis.from_url(url).ping()
        store.ping()  # the pool's connection still answers (/readyz: this process serves)
        for probe in ("probe_write", "probe_read"):  # it was written, before
            with pytest.raises(StoreUnavailable) as refused:
                getattr(store, probe)()
            assert refused.value.details == {"reason": "refused_password"}
            assert OLD not in refused.value.render("en") and NEW not in refused.value.render("en")
        admin.execute_command(*back)
        store.probe_write()
        store.probe_read()
        assert 0 < admin.pttl("rb:probe") <= 60_000
    finally:
        admin.close()
        store.close()


async def test_an_outage_goes_on_while_new_connections_are_refused(
    redis_factory: Any, tmp_path: Path
) -> None:
    admin, url = with_password(redis_factory(), OLD)
    table, tokens = make_table("--redis", url)
    served = Serve(tmp_path / "serve.log", "--redis", url)
    try:
        gm, _ = await Seat.take(served.port, table, tokens["gm"])
        assert (await gm.ask(ROLL))["type"] == "result"
        # an outage of changes: Redis full
        admin.config_set("maxmemory", int(admin.info("memory")["used_memory"]) + 1024)
        refused = await gm.ask({"type": "roll", "formula": "30d6", "label": "x" * 200})
        assert refused.get("code") == "store_error", refused
        assert served.metric("rollbridge_store_failing") == 1
        # the password rotated, then memory back: the connections made before still
        # write, a new one is refused
        admin.config_set("requirepass", NEW)
        admin.config_set("maxmemory", 0)

        def said_refused() -> bool:
            return any("refuses the password" in line["message"] for line in served.lines())

        def works_again() -> bool:
            lines = served.lines()
            return any(line["message"].startswith("the store works again") for line in lines)

        await until(lambda: said_refused() or works_again(), what="a try of the store said")
        assert not works_again(), "a try over an old connection ended the outage"
        assert served.metric("rollbridge_store_failing") == 1
        # the password set back: the next try ends the outage
        admin.config_set("requirepass", OLD)
        await until(works_again, what="the outage ended once the password was set back")
        assert served.metric("rollbridge_store_failing") == 0
        assert (await gm.ask(ROLL))["type"] == "result"
        await gm.close()
    finally:
        served.stop()
        admin.close()
