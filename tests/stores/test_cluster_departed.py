"""Every surviving process hears of a process gone without stopping, not only the one
whose renewal of its claim finds the claim run out (:data:`rollbridge.server.
cluster_peers.CLAIM`, on a real redis-server). With three processes the one that
took a table over is often not that one: before, the other survivor said "took over
none of its tables" and the one that had taken them never named the dead process
(a SIGKILL drill with three processes; the whole over real processes:
tests/stores/test_cluster.py)."""

from __future__ import annotations

import logging

import redis as redis_py

from rollbridge.server.cluster_peers import CLAIM, Departures

SETTINGS = '{"max_actors":1000,"max_event_size":131072,"retain":1000}'
TTL = 60_000


def renew(client: redis_py.Redis, node: str) -> list:
    """A serving process's renewal of its claim: what it found gone."""
    found, gone = client.eval(CLAIM, 2, "rb:processes", "rb:processes:gone", node, SETTINGS,
                              TTL, 1)  # fmt: skip
    assert found == []
    return gone


def test_every_survivor_hears_of_a_process_gone_once_each(redis_factory, caplog):
    caplog.set_level(logging.WARNING, "rollbridge.cluster")
    client = redis_py.Redis.from_url(redis_factory().url)
    try:
        for node in ("serve-h-1-aa", "serve-h-2-bb", "serve-h-3-cc"):
            renew(client, node)
        # A killed: its claim left to run out (here: its time set in the past)
        client.hset("rb:processes", "serve-h-1-aa", f"1000|{SETTINGS}")
        b, c = Departures(), Departures()
        c.took("t1", "serve-h-1-aa")  # C took A's table; B finds the claim run out
        found_by_b = renew(client, "serve-h-2-bb")
        assert [x.decode() if isinstance(x, bytes) else x for x in found_by_b[:1]] == [
            "serve-h-1-aa"
        ]
        b.gone(found_by_b)
        found_by_c = renew(client, "serve-h-3-cc")
        assert found_by_c and found_by_c[0] == b"serve-h-1-aa", found_by_c
        c.gone(found_by_c)
        for _ in range(3):  # the renewals after: said once
            b.gone(renew(client, "serve-h-2-bb"))
            c.gone(renew(client, "serve-h-3-cc"))
        assert not client.hexists("rb:processes", "serve-h-1-aa")
        assert 0 < client.pttl("rb:processes:gone") <= TTL  # kept a claim's length
    finally:
        client.close()
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2, lines
    assert all("serve-h-1-aa (pid 1 on h) went away without stopping" in x for x in lines)
    assert lines[0].endswith("took over none of its tables (each goes to the first process "
                             "that gets a change of it)"), lines  # fmt: skip
    assert lines[1].endswith("this process took over its 1 table: t1"), lines


def test_a_process_back_is_no_longer_gone_and_a_record_past_its_time_is_dropped(
    redis_factory,
):
    client = redis_py.Redis.from_url(redis_factory().url)
    try:
        renew(client, "serve-h-2-bb")
        client.hset("rb:processes", "serve-h-1-aa", f"1000|{SETTINGS}")
        assert renew(client, "serve-h-2-bb")[0] == b"serve-h-1-aa"
        renew(client, "serve-h-1-aa")  # A was paused, and renews again: not gone
        assert renew(client, "serve-h-2-bb") == []
        client.hset("rb:processes:gone", "serve-h-9-ff", "1000|500")  # kept until 1000
        assert renew(client, "serve-h-2-bb") == []
        assert not client.hexists("rb:processes:gone", "serve-h-9-ff")
    finally:
        client.close()
