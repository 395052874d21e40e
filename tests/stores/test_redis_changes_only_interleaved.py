"""Processes of this version and of the version before write one table in a seeded
random order — single commits, batches of two, a table deleted and made again with
the same id, a fence — on a real redis-server: after every write the table holds
exactly the info and meta of the last commit written, byte for byte, whichever
process wrote it and whatever each remembered (docs/redis.md, "A commit sends only
what changed": the process assumes nothing; the script compares)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from rollbridge.plain import pack
from rollbridge.stores.redis import CommitRefused, RedisStore
from tests.stores.redis_commit_before import commit_before
from tests.stores.test_redis_changes_only import stored, waiting
from tests.stores.test_store_contract import make_commit, make_info, meta

#: The metas the writers choose among: few, so that a writer's commit often has the
#: meta of its own last (left out) while another's came between.
METAS = [
    meta(pending=waiting("x")),
    meta(pending=waiting("x", "y")),
    meta(pending={}, undo=[1]),
    meta(pending=waiting("y"), undo=[1], redo=[2]),
]
SETTINGS = [{"approval": True}, {"approval": False}]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_table_holds_the_last_commit_whatever_the_order(redis_factory: Any, seed: int):
    rng = random.Random(seed)
    server = redis_factory()
    new = [RedisStore(server.url, prefix="rb:") for _ in range(2)]
    old = RedisStore(server.url, prefix="rb:")
    try:
        new[0].create_table(make_info(), [])
        for step in range(150):
            writer = rng.choice([*new, old])
            what = rng.random()
            if what < 0.04:  # deleted and made again: the same id, the same first commits
                rng.choice(new).delete_table("t")
                new[0].create_table(make_info(), [])
                continue
            if what < 0.07:
                info = next(i for i in writer.tables() if i.id == "t")
                writer.fence("t", info.epoch, info.seq + 1)
                continue
            fields = rng.choice(METAS)
            commits = [make_commit(writer, meta_=fields, settings=rng.choice(SETTINGS),
                                   events=rng.randint(0, 1))]  # fmt: skip
            if writer is old:
                assert commit_before(old, "t", commits[0])[0] == 1, step
            elif rng.random() < 0.3:
                two = make_commit(writer, meta_=rng.choice(METAS), events=1)
                two.info.seq = commits[0].info.seq + 1
                two.info.settings = commits[0].info.settings
                two.events[0].seq = two.info.seq
                two.events[0].epoch = two.info.epoch
                commits.append(two)
                writer.commit_many([("t", c) for c in commits])
            else:
                writer.commit("t", commits[0])
            last = commits[-1]
            assert stored(writer) == (pack(last.info.to_dict()), pack(last.meta)), step
            assert old.load("t")[0].pending == last.meta["pending"], step
        with pytest.raises(CommitRefused):  # and still refused when out of turn
            stale = make_commit(new[0], meta_=METAS[0])
            new[1].commit("t", make_commit(new[1], meta_=METAS[1]))
            new[0].commit("t", stale)
    finally:
        for store in (*new, old):
            store.close()
