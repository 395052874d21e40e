"""A request that only repeats (``"repeat": true``, docs/protocol.md) under two real
``rollbridge serve --redis`` processes on a real redis-server: sent to the process
that does not own the table, it is forwarded with the field, so the owner answers a
remembered id with its reply and refuses one it does not remember
(``not_remembered``) — it is never rolled there as a new request."""

from __future__ import annotations

import pytest

from tests.stores.cluster_harness import Cluster

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_a_repeat_sent_away_from_the_owner_is_answered_or_refused_never_run(redis_factory):
    redis = redis_factory()
    cluster = Cluster(redis.url, 2)

    async def play() -> None:
        (gm,) = await cluster.joined(0)
        own = await gm.ask({"type": "roll", "id": "own", "formula": "1d6"})
        assert own["type"] == "result", own
        owner = cluster.owner()
        other = next(i for i, p in enumerate(cluster.processes) if p is not owner)
        (player,) = await cluster.joined(other, role="player")

        roll = {"type": "roll", "id": "p1", "formula": "2d6"}
        first = await player.ask(roll)
        assert first["type"] == "result" and first["status"] == "done", first
        assert (await player.ask({**roll, "repeat": True})) == first

        before = (await gm.ask({"type": "state", "id": "s1"}))["table"]
        never = {"type": "roll", "id": "never", "formula": "2d6", "repeat": True}
        refused = await player.ask(never)
        assert refused["type"] == "error" and refused["code"] == "not_remembered", refused
        assert refused["details"] == {"request": "never"}
        after = (await gm.ask({"type": "state", "id": "s2"}))["table"]
        assert after["seq"] == before["seq"] and after["pending"] == before["pending"]
        assert cluster.owner() is owner  # it went to the owner, which ran nothing
        # the control: without the field the id is a new request, and runs
        ran = await player.ask({**never, "repeat": False})
        assert ran["type"] == "result" and ran["seq"] == before["seq"] + 1, ran

        await player.close()
        await gm.close()

    cluster.run(play)
