"""``stats`` over ``serve --redis`` is counted off the event loop as on a single
process (tests/stats/test_stats_off_loop.py): a :class:`ClusterServer` on a real
redis-server, its clients over real WebSockets — another table's ``ping`` is
answered while one table's log is counted, and the read and its count are one
read of that table's log."""

from __future__ import annotations

from tests.server.conftest import make_host
from tests.stats.counting import SlowTally, answered_while_counting
from tests.stores.cluster_served import served_cluster


async def test_another_table_is_answered_while_one_table_s_stats_are_counted(redis_factory):
    redis = redis_factory()
    ruleset = SlowTally()
    joins = (("tally", "gm"), ("sr2", "player"))
    async with served_cluster(redis.url, make_host(ruleset), joins) as (counter, other):
        try:
            rolled = await counter.request({"type": "roll", "id": "r", "formula": "3d6"})
            assert rolled["type"] == "result", rolled
            await answered_while_counting(counter, other, ruleset)
        finally:
            ruleset.gate.set()
