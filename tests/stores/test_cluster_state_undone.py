"""``state``'s ``undone`` over ``serve --redis`` as over SQLite
(tests/server/test_state_undone.py): a :class:`ClusterServer` on a real
redis-server, its clients over real WebSockets — the retained log's latest undo or
redo of each event asked, a GM-only one for the GM alone, and a bad list refused
before anything is read."""

from __future__ import annotations

from tests.server.conftest import make_host
from tests.server.test_state_undone import _hurt
from tests.stores.cluster_served import served_cluster


async def test_undone_over_redis_says_the_latest_undo_or_redo_and_hides_a_secret_s(
    redis_factory, tally
):
    redis = redis_factory()
    joins = (("tally", "gm"), ("tally", "player"))
    async with served_cluster(redis.url, make_host(tally), joins) as (gm, player):
        first, second = await _hurt(gm), await _hurt(gm)
        assert (await gm.request({"type": "undo", "seq": second}))["status"] == "done"
        hit = {"type": "resolve", "action": "hit", "targets": ["guard"], "secret": True}
        secret = (await gm.request(hit))["seq"]
        assert (await gm.request({"type": "undo", "seq": secret}))["status"] == "done"
        asked = {"type": "state", "undone": [first, second, secret]}
        reply = await gm.request(asked)
        assert reply["undone"] == {str(second): True, str(secret): True}, reply
        reply = await player.request(asked)
        assert reply["undone"] == {str(second): True}, reply
        assert reply["table"]["seq"] == secret + 1, reply
        refused = await player.request({"type": "state", "undone": [first, first]})
        assert refused["code"] == "invalid_request", refused
        assert refused["details"]["field"] == "undone", refused
