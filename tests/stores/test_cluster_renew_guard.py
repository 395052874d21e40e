"""``RENEW`` taking a lapsed lease back (rollbridge.server.cluster, docs/redis.md
"One owner per table"), against the commit script's guards, on a real redis-server:
the interleavings in which another process took the table while its owner's renewals
went unanswered. Whoever believes it owns the table, one commit of each seq is
written and the other refused (``owner`` or ``seq``), and nothing lost by Redis makes
the owner's "stored as I know it" hold vacuously."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from rollbridge.server.cluster import RELEASE, RENEW, TAKE
from rollbridge.stores.redis import CommitRefused, RedisStore
from tests.stores.test_store_contract import make_commit, make_info

LEASE = 60_000


@pytest.fixture
def two(redis_server: Any, redis_prefix: str) -> Iterator[tuple[RedisStore, RedisStore]]:
    """Process A's and process B's stores (writers ``proc-a``, ``proc-b``) on one
    Redis, table ``t`` made and its lease held by A, which committed seq 1."""
    a = RedisStore(redis_server.url, prefix=redis_prefix, writer="proc-a")
    b = RedisStore(redis_server.url, prefix=redis_prefix, writer="proc-b")
    a.create_table(make_info(), [])
    assert _take(b.client, a, "proc-a") == 1
    a.commit("t", make_commit(a, data={"by": "a"}))
    yield a, b
    a.close()
    b.close()


def _keys(store: RedisStore) -> Any:
    return store.keys.table("t")


def _take(client: Any, store: RedisStore, node: str) -> int:
    keys = _keys(store)
    return int(client.eval(TAKE, 2, keys.owner, keys.info, node, LEASE))


def _renew_unanswered(store: RedisStore, node: str, seq: int) -> int:
    """``RENEW`` as an owner sends it after a renewal Redis did not answer: with the
    epoch and seq it knows stored."""
    keys = _keys(store)
    epoch = store.client.hget(keys.info, "epoch").decode()
    return int(store.client.eval(RENEW, 2, keys.owner, keys.info, node, LEASE, epoch, seq))


def _holder(store: RedisStore) -> bytes | None:
    return store.client.get(_keys(store).owner)


def _taken_by_b(a: RedisStore, b: RedisStore) -> None:
    """A's lease runs out while Redis does not answer A; B takes it (a hello, a read:
    nothing written)."""
    a.client.delete(_keys(a).owner)
    assert _take(b.client, b, "proc-b") == 1


def _refused(store: RedisStore, commit: Any, reason: str) -> None:
    """``commit`` is refused for ``reason`` by the commit script."""
    with pytest.raises(CommitRefused) as caught:
        store.commit("t", commit)
    assert caught.value.details["reason"] == reason


def _seqs(store: RedisStore) -> list[int]:
    return [e.seq for e in store.events_after("t", 0) or []]


def test_a_lease_taken_and_held_is_never_taken_back(two):
    """A's lease lapsed; B took it (a hello: nothing written) and holds it: A's
    renewal finds it held and gives the table up; A's commit, sent while it still
    believed it owned the table, is refused (``owner``)."""
    a, b = two
    _taken_by_b(a, b)
    assert _renew_unanswered(a, "proc-a", 1) == 0
    assert _holder(a) == b"proc-b"
    _refused(a, make_commit(a, data={"by": "a"}), "owner")
    b.commit("t", make_commit(b, data={"by": "b"}))
    assert _seqs(a) == [1, 2]


def test_a_lease_taken_let_go_unwritten_is_taken_back_and_the_taker_refused(two):
    """B took the lapsed lease, wrote nothing, and its own lease ran out (B paused:
    it still believes it owns the table). A's renewal takes it back (2): two processes
    believe they own it — and B's commit is refused (``owner``), A's written."""
    a, b = two
    _taken_by_b(a, b)
    b.client.delete(_keys(b).owner)  # B paused past its lease
    assert _renew_unanswered(a, "proc-a", 1) == 2
    _refused(b, make_commit(b, data={"by": "b"}), "owner")
    a.commit("t", make_commit(a, data={"by": "a"}))
    assert _seqs(a) == [1, 2]


def test_a_lease_let_go_by_release_is_taken_back(two):
    """B took the lapsed lease, wrote nothing and gave it up (``RELEASE``: unused, or
    stopped): A takes it back and commits; B, no longer owner, forwards."""
    a, b = two
    _taken_by_b(a, b)
    assert int(b.client.eval(RELEASE, 1, _keys(b).owner, "proc-b")) == 1
    assert _renew_unanswered(a, "proc-a", 1) == 2
    a.commit("t", make_commit(a, data={"by": "a"}))
    assert _seqs(a) == [1, 2]


def test_a_commit_while_the_lease_was_free_keeps_it_from_the_old_owner(two):
    """B, paused past its lease after taking it, commits while nobody holds the lease
    (the commit script lets any writer commit then): A's renewal finds the seq moved
    on and does not take the lease (0); A's own commit of seq 2 is refused (``seq``)."""
    a, b = two
    a_next = make_commit(a, data={"by": "a"})  # A's next change, made from its table at seq 1
    _taken_by_b(a, b)
    b.client.delete(_keys(b).owner)
    b.commit("t", make_commit(b, data={"by": "b"}))
    assert _renew_unanswered(a, "proc-a", 1) == 0
    assert _holder(a) is None
    _refused(a, a_next, "seq")
    assert _seqs(a) == [1, 2]


@pytest.mark.parametrize("lost", ["everything", "the info key"])
def test_redis_that_lost_the_table_gives_no_lease_back(two, lost):
    """Redis restarted without its data: no stored epoch and seq match what A knows
    (never vacuously: a missing field is no match), so no lease is set for a table
    that is not there."""
    a, _b = two
    if lost == "everything":  # this test's keys (the server is shared)
        a.client.delete(*a.client.scan_iter(match=a.keys.prefix + "*"))
    else:
        a.client.delete(_keys(a).info, _keys(a).owner)
    assert _renew_unanswered_known(a, "proc-a", epoch="1", seq=1) == 0
    assert _holder(a) is None


def _renew_unanswered_known(store: RedisStore, node: str, epoch: str, seq: int) -> int:
    keys = _keys(store)
    return int(store.client.eval(RENEW, 2, keys.owner, keys.info, node, LEASE, epoch, seq))
