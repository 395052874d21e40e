"""The Redis store's commit script (issue 13, item 1): the checks it makes before it
writes, and what it writes. ``docs/redis.md`` describes each check; the failures
named here are those of ``../shared/SCALING.md`` ("Failures others hit")."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from redis.crc import key_slot

from rollbridge.exceptions import InvalidSettings, StoreError, UnknownTable
from rollbridge.stores.redis import CommitRefused, RedisStore
from rollbridge.stores.redis_keys import GLOBAL_KINDS
from rollbridge.tokens import new_admin_token, new_token
from tests.stores.test_store_contract import actor, make_commit, make_info, meta


@pytest.fixture
def opened(redis_server: Any, redis_prefix: str) -> Iterator[Any]:
    """``opened(**options)``: a RedisStore on the session's server, under this test's
    prefix (a second call is a second process's store); all closed after."""
    stores: list[RedisStore] = []

    def make(**options: Any) -> RedisStore:
        stores.append(RedisStore(redis_server.url, prefix=redis_prefix, **options))
        return stores[-1]

    yield make
    for store in stores:
        store.close()


def raw(store: RedisStore) -> dict[str, Any]:
    """Every key under the store's prefix with its whole value: to prove that a
    refused commit wrote nothing at all."""
    client = store.client
    out: dict[str, Any] = {}
    for key in client.scan_iter(match=store.keys.prefix + "*"):
        kind = client.type(key)
        if kind == b"hash":
            out[key] = client.hgetall(key)
        elif kind == b"zset":
            out[key] = client.zrange(key, 0, -1, withscores=True)
        else:
            out[key] = client.get(key)
    return out


class TestSequence:
    def test_two_stores_committing_the_same_seq_exactly_one_wins(self, opened):
        """Two processes commit from the same seq (SCALING.md failure 10), 40 times in a
        race: each time exactly one commit is written, the other refused."""
        first, second = opened(), opened()
        first.create_table(make_info(), [])
        for round_ in range(40):
            commits = [
                make_commit(store, data={"by": n, "round": round_})
                for n, store in enumerate((first, second))
            ]
            outcomes: list[Any] = [None, None]
            gate = threading.Barrier(2)

            def attempt(
                n: int, store: RedisStore, gate=gate, commits=commits, outcomes=outcomes
            ) -> None:
                gate.wait()
                try:
                    store.commit("t", commits[n])
                    outcomes[n] = "won"
                except CommitRefused as exc:
                    outcomes[n] = exc

            threads = [threading.Thread(target=attempt, args=(n, s))
                       for n, s in enumerate((first, second))]  # fmt: skip
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert outcomes.count("won") == 1, outcomes
            winner = outcomes.index("won")
            loser = outcomes[1 - winner]
            assert loser.code == "store_error" and loser.details["reason"] == "seq"
            assert loser.details["stored_seq"] == round_ + 1
            stored = first.events_after("t", round_)
            assert [e.data["by"] for e in stored] == [winner]
        assert [e.seq for e in second.events_after("t", 0)] == list(range(1, 41))

    def test_a_stale_commit_is_refused_and_writes_nothing(self, opened):
        store = opened()
        store.create_table(make_info(), [])
        stale = make_commit(store, actors=[actor("ana", 9)])
        store.commit("t", make_commit(store, actors=[actor("ana")]))
        before = raw(store)
        with pytest.raises(CommitRefused) as caught:
            store.commit("t", stale)
        assert caught.value.details == {"table": "t", "reason": "seq", "stored_epoch": 1,
                                        "stored_seq": 1, "commit_seq": 1}  # fmt: skip
        assert raw(store) == before

    def test_the_same_commit_sent_again_is_written_once(self, opened):
        """A retry after a lost reply (or the writer's one-by-one retry of a batch)
        sends a written commit again: accepted, nothing written twice."""
        store = opened()
        store.create_table(make_info(), [])
        commit = make_commit(store, events=2, actors=[actor("ana")], replies={"k": {"seq": 2}})
        store.commit("t", commit)
        after = raw(store)
        store.commit("t", commit)
        assert raw(store) == after
        assert [e.seq for e in store.events_after("t", 0)] == [1, 2]
        store.client.set(store.keys.table("t").owner, "proc-b")  # the lease moved on since
        store.commit("t", commit)  # still answered truthfully: it was written
        changed = make_commit(store, events=2, actors=[actor("ana", 1)])
        changed.info.seq = 2
        for n, event in enumerate(changed.events, start=1):
            event.seq = n
        store.client.delete(store.keys.table("t").owner)
        with pytest.raises(CommitRefused):  # same seqs, other contents: not a repeat
            store.commit("t", changed)

    def test_a_commit_of_another_epoch_is_refused_only_a_fence_moves_it(self, opened):
        """Only ``fence`` moves a table to a new epoch (docs/redis.md, "Failover and
        fencing"): a commit of another epoch than the stored one — a newer one here,
        starting its seqs over — is refused and writes nothing (it was written before
        fencing existed; a newer epoch in a commit now means a fence Redis lost)."""
        store = opened()
        store.create_table(make_info(), [])
        store.commit("t", make_commit(store, events=3))
        fresh = make_commit(store, events=1)
        fresh.info.epoch, fresh.info.seq = 2, 2
        fresh.events[0].epoch, fresh.events[0].seq = 2, 2
        before = raw(store)
        with pytest.raises(CommitRefused) as caught:
            store.commit("t", fresh)
        assert caught.value.details["reason"] == "seq"
        assert raw(store) == before
        moved = store.fence("t", 1, 4)  # seq 4 of epoch 1 was seen: the table moves
        ahead = make_commit(store, events=1)  # and commits go on in its new epoch
        store.commit("t", ahead)
        assert [(e.epoch, e.seq) for e in store.events_after("t", 0)][-2:] == [
            (1, 3), (moved.epoch, 4)
        ]  # fmt: skip


class TestReplies:
    def test_a_commit_whose_reply_key_was_answered_is_refused_and_writes_nothing(self, opened):
        """A request whose stored reply names an event was executed: a second commit
        answering it again (another writer executed it too) is refused."""
        store = opened()
        store.create_table(make_info(), [])
        store.commit("t", make_commit(store, replies={"tok/r1": {"seq": 1, "status": "done"}}))
        before = raw(store)
        again = make_commit(store, actors=[actor("ana")],
                            replies={"tok/r2": {"seq": 2}, "tok/r1": {"seq": 2}})  # fmt: skip
        with pytest.raises(CommitRefused) as caught:
            store.commit("t", again)
        assert caught.value.details == {"table": "t", "reason": "reply", "key": "tok/r1"}
        assert raw(store) == before
        assert store.reply("t", "tok/r2") is None
        assert store.reply("t", "tok/r1") == {"seq": 1, "status": "done"}

    def test_a_pending_reply_is_replaced_by_the_decision(self, opened):
        """An approval answers the player's pending request: its reply has no event
        yet, so the commit that decides it may replace it."""
        store = opened()
        store.create_table(make_info(), [])
        store.commit("t", make_commit(store, replies={"p/r1": {"pending": "p1",
                                                                "status": "pending"}}))  # fmt: skip
        decided = {"seq": 2, "status": "done", "view": "players"}
        store.commit("t", make_commit(store, replies={"gm/ok": {"seq": 2}, "p/r1": decided}))
        assert store.reply("t", "p/r1") == decided

    def test_replies_past_the_window_are_pruned_from_redis(self, opened):
        store = opened(retain=2)  # a window of 20 seqs
        store.create_table(make_info(), [])
        for n in range(30):
            store.commit("t", make_commit(store, replies={f"k{n}": {"seq": n + 1}}))
        keys = store.keys.table("t")
        kept = sorted(int(k[1:]) for k in map(bytes.decode, store.client.hkeys(keys.replies)))
        assert kept == list(range(10, 30))  # seqs 11..30
        assert store.client.zcard(keys.reply_seqs) == 20


class TestFencing:
    def test_only_the_lease_holder_may_commit(self, opened):
        """The ``owner`` key names the lease holder; a paused owner that lost its lease
        (SCALING.md failure 9) is refused even at the right seq."""
        holder, stale, anonymous = opened(writer="proc-a"), opened(writer="proc-b"), opened()
        holder.create_table(make_info(), [])
        holder.client.set(holder.keys.table("t").owner, "proc-a")
        before = raw(holder)
        for store in (stale, anonymous):
            with pytest.raises(CommitRefused) as caught:
                store.commit("t", make_commit(store, actors=[actor("ana")]))
            assert caught.value.details["reason"] == "owner"
            assert caught.value.details["owner"] == "proc-a"
            assert raw(holder) == before
        holder.commit("t", make_commit(holder))
        holder.client.set(holder.keys.table("t").owner, "proc-b")  # a takeover
        with pytest.raises(CommitRefused):
            holder.commit("t", make_commit(holder))
        stale.commit("t", make_commit(stale))
        assert [e.seq for e in anonymous.events_after("t", 0)] == [1, 2]

    def test_without_a_lease_any_writer_commits(self, opened):
        store = opened(writer="proc-a")
        store.create_table(make_info(), [])
        store.commit("t", make_commit(store))
        assert opened().events_after("t", 0)[0].seq == 1


class TestBatches:
    def test_when_the_second_of_a_batch_fails(self, opened):
        """Each commit's script is atomic, the pipeline is not: the first is written,
        the second writes nothing, the next of its table fails its seq check, another
        table's is written; sending them again one by one answers each rightly."""
        store = opened()
        store.create_table(make_info(), [])
        store.create_table(make_info("other"), [])
        store.commit("t", make_commit(store, replies={"done": {"seq": 1}}))
        first = make_commit(store)  # t seq 2
        bad = make_commit(store, replies={"done": {"seq": 3}})  # t seq 3, answered already
        bad.events[0].seq = bad.info.seq = 3
        later = make_commit(store)  # t seq 4 (after bad)
        later.events[0].seq = later.info.seq = 4
        other = make_commit(store, "other")
        batch = [("t", first), ("t", bad), ("t", later), ("other", other)]
        with pytest.raises(CommitRefused) as caught:
            store.commit_many(batch)
        assert caught.value.details["reason"] == "reply"
        assert [e.seq for e in store.events_after("t", 0)] == [1, 2]
        assert [e.seq for e in store.events_after("other", 0)] == [1]
        outcomes = []
        for table_id, commit in batch:  # what the server's writer does after a failure
            try:
                store.commit(table_id, commit)
                outcomes.append("ok")
            except CommitRefused as exc:
                outcomes.append(exc.details["reason"])
        assert outcomes == ["ok", "reply", "seq", "ok"]
        assert [e.seq for e in store.events_after("t", 0)] == [1, 2]

    def test_a_batch_of_several_tables_is_written(self, opened):
        store = opened()
        for table_id in ("a", "b"):
            store.create_table(make_info(table_id), [])
        batch = []
        for n in range(3):
            for table_id in ("a", "b"):
                commit = make_commit(store, table_id, actors=[actor("ana", n)])
                batch.append((table_id, commit))
        # make_commit reads the stored seq: number the batch's commits by hand
        for n, (_, commit) in enumerate(batch):
            commit.events[0].seq = commit.info.seq = n // 2 + 1
        store.commit_many(batch)
        for table_id in ("a", "b"):
            assert [e.seq for e in store.events_after(table_id, 0)] == [1, 2, 3]
            assert store.load(table_id)[0].actors["ana"].state == {"damage": 2}

    def test_a_batch_sends_no_script_exists_and_survives_a_script_flush(self, opened):
        """A batch is its EVALSHAs only (redis-py would send SCRIPT EXISTS before a
        Script given a pipeline: a round trip per batch); a script Redis lost (SCRIPT
        FLUSH, a restart) is loaded again and the commits it refused are sent again,
        in order, each written once."""
        store = opened()
        store.create_table(make_info(), [])

        def batch(first: int) -> list[Any]:
            commits = [make_commit(store) for _ in range(3)]
            for n, commit in enumerate(commits):
                commit.events[0].seq = commit.info.seq = first + n
            return [("t", c) for c in commits]

        def calls(name: str) -> int:
            return int(store.client.info("commandstats").get(f"cmdstat_{name}", {}).get("calls", 0))

        store.commit("t", make_commit(store))  # seq 1; the script is loaded
        before = calls("script|exists")
        store.commit_many(batch(2))
        assert calls("script|exists") == before
        store.client.script_flush()
        store.commit_many(batch(5))
        assert [e.seq for e in store.events_after("t", 0)] == list(range(1, 8))

    def test_a_batch_is_one_write_and_is_sent_again_when_its_answer_is_lost(
        self, opened, monkeypatch
    ):
        """A batch of 20 commits of ~2 KB each goes to Redis in one ``sendall``
        (redis-py's pipeline would write it in 6 KB pieces, and Redis might run and
        fsync it in several turns). When the connection fails after the batch went
        out (its answers lost), the batch is sent once more on a new connection and
        each commit is recognised as written (check 0), never written twice."""
        store = opened()
        store.create_table(make_info(), [])
        store.commit("t", make_commit(store))  # seq 1; the script is loaded

        def batch(first: int) -> list[Any]:
            commits = [make_commit(store, data={"note": "x" * 2000}) for _ in range(20)]
            for n, commit in enumerate(commits):
                commit.events[0].seq = commit.info.seq = first + n
            return [("t", c) for c in commits]

        first, second = batch(2), batch(22)  # (make_commit reads the store)
        writes: list[int] = []
        lose_next_answer = False
        send = redis.connection.AbstractConnection.send_packed_command

        def counted(conn: Any, command: Any, check_health: bool = True) -> None:
            nonlocal lose_next_answer
            pieces = command if isinstance(command, list) else [command]
            evalsha = any(b"EVALSHA" in bytes(piece) for piece in pieces)
            if evalsha:  # not a connection's handshake
                writes.append(len(pieces))  # one sendall each
            send(conn, command, check_health)
            if evalsha and lose_next_answer:
                lose_next_answer = False
                conn.disconnect()  # sent and run by Redis; the answers never read
                raise redis.ConnectionError("connection lost (test)")

        monkeypatch.setattr(redis.connection.AbstractConnection, "send_packed_command", counted)
        store.commit_many(first)
        assert writes == [1]
        writes.clear()
        lose_next_answer = True
        store.commit_many(second)
        assert writes == [1, 1]
        assert [e.seq for e in store.events_after("t", 0)] == list(range(1, 42))
        assert store.client.zcard(store.keys.table("t").log) == 41

    def test_an_unknown_table_in_a_batch(self, opened):
        store = opened()
        store.create_table(make_info(), [])
        gone = make_commit(store)
        store.delete_table("t")
        with pytest.raises(UnknownTable):
            store.commit_many([("t", gone)])


class TestLog:
    def test_the_log_keeps_exactly_the_last_retain_events(self, opened):
        store = opened(retain=5)
        store.create_table(make_info(), [])
        for n in range(12):
            store.commit("t", make_commit(store, events=1 + n % 3))
        latest = store.load("t")[0].info.seq
        scores = store.client.zrange(store.keys.table("t").log, 0, -1, withscores=True)
        assert [int(s) for _, s in scores] == list(range(latest - 4, latest + 1))
        assert [e.seq for e in store.events_after("t", latest - 5)] == [int(s) for _, s in scores]
        assert store.events_after("t", latest - 6) is None

    def test_a_ranged_read_takes_only_its_range_of_the_log(self, opened):
        """``events_after`` with ``until`` is a bounded range of the sorted set: a
        member past it is never sent (were it, this garbage one could not be read)."""
        store = opened()
        store.create_table(make_info(), [])
        for _ in range(8):
            store.commit("t", make_commit(store))
        log = store.keys.table("t").log
        store.client.zremrangebyscore(log, 7, 7)
        store.client.zadd(log, {b"\xc1\xc1": 7})
        assert [e.seq for e in store.events_after("t", 2, 5)] == [3, 4, 5]
        assert [e.seq for e in store.events_after("t", 5, 6)] == [6]
        with pytest.raises(StoreError) as caught:  # (test_redis_damaged.py)
            store.events_after("t", 5)  # the whole rest: the garbage member too
        assert caught.value.details["reason"] == "damaged"

    def test_a_commit_publishes_its_epoch_and_seq(self, opened):
        store = opened()
        store.create_table(make_info(), [])
        listener = store.client.pubsub()
        listener.subscribe(store.keys.table("t").channel)
        assert listener.get_message(timeout=2)["type"] == "subscribe"
        store.commit("t", make_commit(store, events=3))
        message = listener.get_message(timeout=2)
        assert message["data"] == b"1:3"
        with pytest.raises(CommitRefused):
            store.commit("t", _stale(store))
        assert listener.get_message(timeout=0.3) is None  # a refused commit publishes nothing
        listener.close()

    def test_a_read_racing_commits_sees_whole_commits(self, opened):
        """Each commit sets the actor's damage to its seq and pushes its seq on the undo
        stack: a load that saw half a commit would find them apart."""
        writer, reader = opened(), opened()
        writer.create_table(make_info(), [])
        stop = threading.Event()
        torn: list[Any] = []
        loads = [0]

        def read() -> None:
            while not stop.is_set():
                snapshot, history = reader.load("t")
                seq = snapshot.info.seq
                loads[0] += 1
                if seq and (snapshot.actors["ana"].state["damage"] != seq
                            or snapshot.undo[-1] != seq or seq not in history):  # fmt: skip
                    torn.append(seq)

        thread = threading.Thread(target=read)
        thread.start()
        try:
            for _ in range(150):
                writer.commit("t", _numbered(writer))
        finally:
            stop.set()
            thread.join()
        assert torn == [] and loads[0] > 10


def _stale(store: RedisStore) -> Any:
    commit = make_commit(store)
    commit.events[0].seq = commit.info.seq = 1
    return commit


def _numbered(store: RedisStore) -> Any:
    """The next commit: the actor's damage and the top of the undo stack are its seq."""
    snapshot = store.load("t")[0]
    commit = make_commit(store, events=1 + snapshot.info.seq % 2)
    seq = commit.info.seq
    commit.actors = [actor("ana", seq)]
    commit.meta = meta(undo=[*snapshot.undo, seq][-10:])
    return commit


class TestKeys:
    def test_every_key_of_a_table_carries_its_hash_tag(self, opened):
        """So a Redis Cluster keeps each table in one slot (issue 13, item 5's next step)."""
        store = opened()
        for table_id in ("t", "second"):
            _, gm = new_token(table_id, "gm")
            store.create_table(make_info(table_id), [gm])
            store.commit(table_id, make_commit(store, table_id, actors=[actor("ana")],
                                               replies={"k": {"seq": 1}}))  # fmt: skip
            undo = make_commit(store, table_id)  # kept in the undos set too
            undo.events[0].kind, undo.events[0].data = "undo", {"undoes": 1}
            store.commit(table_id, undo)
            store.client.set(store.keys.table(table_id).owner, "proc")
        store.add_admin_token(new_admin_token("ops")[1])
        prefix = store.keys.prefix
        keys = sorted(k.decode() for k in store.client.scan_iter(match=prefix + "*"))
        by_table: dict[str, set[int]] = {}
        globals_ = []
        for key in keys:
            rest = key[len(prefix) :]
            if rest in GLOBAL_KINDS:
                globals_.append(rest)
                continue
            assert rest.startswith("{") and "}:" in rest, key
            tag = rest[1 : rest.index("}")]
            by_table.setdefault(tag, set()).add(key_slot(key.encode()))
        assert set(by_table) == {"t", "second"}
        assert all(len(slots) == 1 for slots in by_table.values())
        assert by_table["t"] == {key_slot(b"t")}
        per_table = {k for k in keys if "{t}" in k}
        assert len(per_table) == 13  # every kind of redis_keys.TABLE_KINDS is in use
        assert set(globals_) <= set(GLOBAL_KINDS) and "tables" in globals_

    def test_a_prefix_with_a_brace_is_refused(self, redis_server):
        with pytest.raises(InvalidSettings) as caught:
            RedisStore(redis_server.url, prefix="rb{x}:")
        assert caught.value.code == "invalid_settings"


def test_an_unreachable_server_is_a_store_error():
    with pytest.raises(StoreError) as caught:
        RedisStore("redis://127.0.0.1:1/0")
    assert caught.value.code == "store_error" and "127.0.0.1:1" in str(caught.value)


def test_a_closed_store_refuses_calls(opened):
    store = opened()
    store.ping()
    store.close()
    with pytest.raises(StoreError):
        store.ping()
    with pytest.raises(StoreError):
        store.tables()


def test_redis_errors_become_store_errors(opened):
    store = opened()
    store.create_table(make_info(), [])
    store.client.delete(store.keys.table("t").log)
    store.client.set(store.keys.table("t").log, "not a sorted set")
    with pytest.raises(StoreError) as caught:
        store.commit("t", make_commit(store))
    assert caught.value.code == "store_error"
    assert isinstance(caught.value.__cause__, redis.RedisError)
