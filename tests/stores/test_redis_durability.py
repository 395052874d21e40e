"""The Redis store against a real ``redis-server`` that stops, dies, fills up or is
set up to lose data (issue 13, items 1 and 4; ``../shared/SCALING.md`` failures 4
and 14). Each test starts servers of its own (``redis_factory``) and stops them."""

from __future__ import annotations

import hashlib
import threading
import time
from typing import Any

import pytest
import redis

from rollbridge.exceptions import StoreError
from rollbridge.stores import redis_scripts
from rollbridge.stores.redis import RedisStore, check_durability
from rollbridge.tokens import new_admin_token, new_token
from tests.stores.test_redis_commit import raw
from tests.stores.test_store_contract import actor, everything, make_commit, make_info, meta


def fill(store: RedisStore, commits: int) -> None:
    _, gm = new_token("t", "gm")
    store.create_table(make_info(), [gm])
    store.add_admin_token(new_admin_token("ops")[1])
    for n in range(commits):
        store.commit(
            "t",
            make_commit(store, actors=[actor("ana", n)], meta_=meta(undo=[n + 1]),
                        replies={f"k{n}": {"seq": n + 1}}),
        )  # fmt: skip


def settle_aof(client: redis.Redis) -> None:
    """Wait for a background AOF rewrite: Redis will not shut down during its first."""
    deadline = time.monotonic() + 10
    while True:
        info = client.info("persistence")
        if not (info["aof_rewrite_in_progress"] or info["aof_rewrite_scheduled"]):
            return
        assert time.monotonic() < deadline, "the AOF rewrite did not end within 10 s"
        time.sleep(0.01)


def test_a_restarted_server_has_everything_and_the_store_carries_on(redis_factory):
    """SIGTERM, then the same folder again: the AOF brings every commit back, and the
    store object that was open reconnects (and loads its scripts again) by itself."""
    server = redis_factory()
    store = RedisStore(server.url)
    fill(store, 20)
    before = everything(store), store.list_admin_tokens(), store.reply("t", "k7")
    server.stop()
    with pytest.raises(StoreError):
        store.ping()
    server.start()
    sha = hashlib.sha1(redis_scripts.COMMIT.encode()).hexdigest()
    assert store.client.script_exists(sha) == [False]  # Redis forgot the scripts
    after = RedisStore(server.url)
    assert (everything(after), after.list_admin_tokens(), after.reply("t", "k7")) == before
    store.commit("t", make_commit(store))  # seq 21: EVALSHA, NOSCRIPT, SCRIPT LOAD, EVALSHA
    server.stop()
    server.start()
    third = make_commit(store)
    fourth = make_commit(store)
    fourth.events[0].seq = fourth.info.seq = 23
    store.commit_many([("t", third), ("t", fourth)])  # the same, pipelined
    assert [e.seq for e in after.events_after("t", 19)] == [20, 21, 22, 23]
    assert after.load("t")[0].actors["ana"].state == {"damage": 19}
    store.close()
    after.close()


def test_kill_9_keeps_every_acknowledged_commit(redis_factory):
    """With ``appendfsync always`` Redis fsyncs before it answers: a kill -9 while
    commits flow loses none that was acknowledged (SCALING.md failure 4)."""
    server = redis_factory()
    store = RedisStore(server.url)
    store.create_table(make_info(), [])
    acknowledged: list[dict[str, Any]] = []
    failed: list[BaseException] = []

    def commit_until_it_fails() -> None:
        n = 0
        while True:
            n += 1
            try:
                commit = make_commit(store, data={"n": n}, replies={f"r{n}": {"seq": n}})
                store.commit("t", commit)
            except StoreError as exc:
                failed.append(exc)
                return
            acknowledged.append(commit.events[0].to_dict())

    thread = threading.Thread(target=commit_until_it_fails)
    thread.start()
    deadline = time.monotonic() + 20
    while len(acknowledged) < 50 and time.monotonic() < deadline:
        time.sleep(0.005)
    server.kill()
    thread.join(timeout=30)
    assert failed and len(acknowledged) >= 50
    server.start()
    reborn = RedisStore(server.url)
    stored = reborn.events_after("t", 0)
    assert [e.to_dict() for e in stored[: len(acknowledged)]] == acknowledged
    # at most the one commit in flight at the kill is there unacknowledged
    assert len(stored) - len(acknowledged) in (0, 1)
    last = acknowledged[-1]["seq"]
    assert reborn.reply("t", f"r{last}") == {"seq": last}
    # no seq is reused: the log goes on after what the server kept
    reborn.commit("t", make_commit(reborn))
    assert reborn.events_after("t", 0)[-1].seq == len(stored) + 1
    store.close()
    reborn.close()


def test_check_durability_passes_a_durable_server(redis_factory):
    server = redis_factory()
    client = redis.Redis.from_url(server.url)
    assert check_durability(client) == []
    client.close()


def test_check_durability_names_each_setting_that_loses_data(redis_factory):
    server = redis_factory("--appendonly", "no", "--appendfsync", "everysec")
    client = redis.Redis.from_url(server.url)
    client.config_set("maxmemory-policy", "allkeys-lru")
    problems = check_durability(client)
    assert len(problems) == 3
    assert "appendonly no, needs yes" in problems[0]
    assert "appendfsync everysec, needs always" in problems[1]
    assert "maxmemory-policy allkeys-lru, needs noeviction" in problems[2]
    client.config_set("maxmemory-policy", "noeviction")
    client.config_set("appendonly", "yes")
    client.config_set("appendfsync", "always")
    assert check_durability(client) == []
    settle_aof(client)  # Redis writes its first AOF in the background
    assert RedisStore(server.url).check_durability() == []
    client.close()


def test_check_durability_on_a_server_that_refuses_config(redis_factory):
    server = redis_factory("--rename-command", "CONFIG", "")
    client = redis.Redis.from_url(server.url)
    problems = check_durability(client)
    assert len(problems) == 3 and all(p.startswith("cannot read") for p in problems)
    client.close()


def test_check_durability_still_returns_english_sentences(redis_factory):
    """``check_durability`` is public (docs/redis.md shows a script calling it): it
    returned English ``str`` sentences, and a script joining them or looking for a
    setting in them got a TypeError once they became catalogue texts. They are
    ``str`` again; ``durability_problems`` gives the texts, to say in any language."""
    from rollbridge.stores.redis_durability import durability_problems

    server = redis_factory("--appendonly", "no")
    client = redis.Redis.from_url(server.url)
    problems = check_durability(client)
    assert all(type(p) is str for p in problems) and "appendonly" in "\n".join(problems)
    assert RedisStore(server.url).check_durability() == problems
    texts = durability_problems(client)
    assert [t.render() for t in texts] == problems
    assert texts[0].render("cs").startswith("Redis má appendonly no, potřebuje yes")
    client.close()


def test_out_of_memory_acknowledges_nothing_and_recovers(redis_factory):
    """A full Redis (``noeviction``) refuses the commit script before its first write
    (SCALING.md failure 14): a clear error, nothing written, and the next commit works
    once memory is there again."""
    server = redis_factory()
    store = RedisStore(server.url)
    fill(store, 3)
    used = int(store.client.info("memory")["used_memory"])
    store.client.config_set("maxmemory", used + 64 * 1024)
    big = {"blob": "x" * 16 * 1024}
    with pytest.raises(StoreError) as caught:
        for _ in range(20):
            store.commit("t", make_commit(store, data=big))
    assert "out of memory" in str(caught.value) and caught.value.code == "store_error"
    assert caught.value.details == {"reason": "out_of_memory"}
    before = raw(store)
    with pytest.raises(StoreError):
        store.commit("t", make_commit(store, data=big))
    assert raw(store) == before
    seq = store.load("t")[0].info.seq  # reads go on (scripts flagged no-writes)
    assert store.events_after("t", seq - 1)[0].seq == seq and store.reply("t", "k1")
    store.client.config_set("maxmemory", 0)
    store.commit("t", make_commit(store, data=big))
    assert store.load("t")[0].info.seq == seq + 1
    store.close()


def test_a_read_only_replica_refuses_commits_and_serves_reads(redis_factory):
    """Writes against a replica (SCALING.md failure 8): a clear store error."""
    primary = redis_factory("--repl-diskless-sync-delay", "0")
    replica = redis_factory()
    store = RedisStore(primary.url)
    fill(store, 2)
    follower = RedisStore(replica.url)
    follower.client.replicaof("127.0.0.1", primary.port)
    deadline = time.monotonic() + 10
    while follower.client.info("replication")["master_link_status"] != "up":
        assert time.monotonic() < deadline, "the replica did not sync"
        time.sleep(0.02)
    while follower.tables() == [] and time.monotonic() < deadline:
        time.sleep(0.02)
    assert follower.load("t")[0].info.seq == 2
    before = raw(follower)
    with pytest.raises(StoreError) as caught:
        follower.commit("t", make_commit(follower))
    assert caught.value.details == {"reason": "read_only"}
    assert raw(follower) == before
    settle_aof(follower.client)  # after its sync the replica rewrites its AOF
    store.close()
    follower.close()
