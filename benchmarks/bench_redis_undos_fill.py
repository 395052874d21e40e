"""What the undone read costs on a Redis log the version before wrote, and the fill.

Run from the repository, with a redis-server of your own (nothing else in it is
touched: the keys have a prefix of their own)::

    python benchmarks/bench_redis_undos_fill.py --redis redis://127.0.0.1:6379/0
    python benchmarks/bench_redis_undos_fill.py --redis redis://127.0.0.1:6379/0 --retain 40000

A table whose whole retained log (``--retain`` events of about 400 bytes, every 500th
an undo) was written by the commit script of the version before, which keeps no
``rb:{T}:undos`` set (``tests/stores/redis_commit_before.py``). Timed (medians of 3):
``undos_after`` read from that log (every retained event sent, sifted by bytes), the
commits of this version that sift the log into the set (at most ``UNDOS_FILL`` events
each, inside the commit script: Redis serves nothing else meanwhile) until it reaches
the log's oldest event, the commit after them, and ``undos_after`` read from the set.
Then that both reads answer the same.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rollbridge.stores.redis import RedisStore
from tests.stores.redis_commit_before import commit_before
from tests.stores.test_store_contract import make_commit, make_info

#: A line of about the size of an attack's result.
SAID = "Tukan hits the rook for 7 physical, soaks 2; the alarm goes off " * 3


def timed(read: Callable[[], Any], repeats: int = 3) -> tuple[float, Any]:
    """The median milliseconds of ``read`` and its last answer."""
    spent, found = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        found = read()
        spent.append((time.perf_counter() - start) * 1000)
    return statistics.median(spent), found


def main() -> None:
    """Write the log as the version before did, then time the reads and the fill."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis", required=True, help="a redis-server's URL")
    parser.add_argument("--retain", type=int, default=1000, help="events retained")
    args = parser.parse_args()
    store = RedisStore(args.redis, prefix=f"bench{time.time_ns()}:", retain=args.retain)
    try:
        store.create_table(make_info(), [])
        for _ in range(max(1, args.retain // 500)):
            commit = make_commit(store, events=500, data={"total": 7, "said": SAID})
            commit.events[0].kind = "undo"
            commit.events[0].data = {"undoes": commit.events[0].seq - 1}
            assert commit_before(store, "t", commit)[0] == 1
        by_bytes, before = timed(lambda: store.undos_after("t", 0))
        info = store.keys.table("t").info
        fills = []  # each commit's ms until the set reaches the log's oldest event
        while True:
            start = time.perf_counter()
            store.commit("t", make_commit(store))
            fills.append((time.perf_counter() - start) * 1000)
            low = store.client.zrange(store.keys.table("t").log, 0, 0, withscores=True)
            if int(store.client.hget(info, "undos")) <= int(low[0][1]):
                break
        start = time.perf_counter()
        store.commit("t", make_commit(store))
        then = (time.perf_counter() - start) * 1000
        from_set, after = timed(lambda: store.undos_after("t", 0))
        oldest = store.load("t")[0].info.seq - args.retain  # the commits pruned the oldest
        same = [e.seq for e in before if e.seq > oldest] == [e.seq for e in after]
        print(f"retain {args.retain}: {len(after)} undos; read by bytes {by_bytes:.1f} ms; "
              f"the fill's {len(fills)} commits {statistics.median(fills):.1f} ms median, "
              f"{max(fills):.1f} ms the longest (the next {then:.1f} ms); read from the "
              f"set {from_set:.2f} ms; same answer: {same}")  # fmt: skip
    finally:
        for key in store.client.scan_iter(match=f"{store.keys.prefix}*"):
            store.client.delete(key)
        store.close()


if __name__ == "__main__":
    main()
