"""A Redis commit sends the table's info and meta only as far as they changed since
the last commit its process wrote to the table (docs/redis.md, "A commit sends only
what changed"), on a real redis-server: the bytes Redis reads per commit (counted
by Redis, ``INFO stats``), the table a reload gives (the same, byte for byte, as the
version before stored), and what a process of this version and one of the version
before (``redis_commit_before``) make of each other's commits."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest

from rollbridge.dice import SeededDice
from rollbridge.engine import Principal
from rollbridge.offline import TableService
from rollbridge.plain import pack
from rollbridge.plugins.sr2 import SR2Ruleset
from rollbridge.stores.redis import CommitRefused, RedisStore, prepare
from rollbridge.testing import host_with
from tests.stores.redis_commit_before import commit_before
from tests.stores.test_store_contract import make_commit, make_info, meta

GM = Principal("gm", "gm", "gm-key")
#: Request ids, unique across the processes of a test (a process started again too).
IDS = itertools.count()
ROLL = {"type": "roll", "formula": "1d6"}
#: The largest roll with supplied dice one player may keep waiting (1,499 dice).
SUPPLIED = {"type": "roll", "formula": "999d1000000+500d1000000", "dice": [1_000_000] * 1499}


def player(n: int) -> Principal:
    return Principal("player", f"player-{n}", f"player-key-{n}")


class Played:
    """One process: a RedisStore (its own writer id) and a TableService over it."""

    def __init__(self, url: str, prefix: str, writer: str) -> None:
        self.store = RedisStore(url, prefix=prefix, writer=writer)
        seeds = itertools.count(1)
        self.service = TableService(
            self.store, host_with(SR2Ruleset()), clock=None, dice=lambda: SeededDice(next(seeds))
        )

    def send(self, table_id: str, message: dict[str, Any], who: Principal = GM) -> Any:
        message = {**message, "id": f"r{next(IDS)}"}
        return self.service.handle(table_id, message, who)


@pytest.fixture
def own(redis_factory: Any, benchmark_script: Any) -> Iterator[tuple[Played, Any]]:
    """A process on a redis-server of this test's own, and that server's traffic:
    the bytes Redis read from every client (``INFO stats``'s
    ``total_net_input_bytes``), counted as ``bench_redis_commit_bytes`` counts them."""
    server = redis_factory()
    played = Played(server.url, "rb:", "p1")
    try:
        yield played, benchmark_script("bench_redis_commit_bytes").Counter(played.store.client)
    finally:
        played.store.close()


def measured(traffic: Any, send: Any) -> int:
    traffic.take()
    send()
    return traffic.take()


class TestBytes:
    def test_a_roll_while_eight_requests_wait_does_not_send_them(self, own):
        """8 players' largest requests wait (~62 KB of meta): a GM's roll sent them
        all with every commit (62,141 bytes), now what a roll sends without them."""
        played, traffic = own
        played.service.create_table("Waiting", "sr2", table_id="w")
        for _ in range(2):  # the script loaded; this process's first commit sent whole
            played.send("w", ROLL)
        ordinary = [measured(traffic, lambda: played.send("w", ROLL)) for _ in range(3)]
        played.send("w", {"type": "settings", "settings": {"approval": True, "player_dice": True}})
        for n in range(8):
            played.send("w", SUPPLIED, player(n))
        assert len(played.service.table("w").pending) == 8
        waiting = [measured(traffic, lambda: played.send("w", ROLL)) for _ in range(3)]
        assert len(pack(played.service.table("w").pending)) > 60_000
        assert max(waiting) <= max(ordinary) + 200, (ordinary, waiting)  # fields, not values
        # and an approval, which changes the waiting list, sends it (and its event)
        first = next(iter(played.service.table("w").pending))
        approve = measured(traffic, lambda: played.send("w", {"type": "approve", "request": first}))
        assert approve > 50_000

    def test_the_info_is_sent_when_it_changed_only(self, own):
        """Two tables, one named with 200 characters: their rolls send as many bytes;
        a change of their settings sends the info, the long name with it."""
        played, traffic = own
        for table_id, name in (("s", "S"), ("l", "L" * 200)):
            played.service.create_table(name, "sr2", table_id=table_id)
            played.send(table_id, ROLL)
        short = measured(traffic, lambda: played.send("s", ROLL))
        long = measured(traffic, lambda: played.send("l", ROLL))
        assert long == short
        change = {"type": "settings", "settings": {"approval": True}}
        short = measured(traffic, lambda: played.send("s", change))
        long = measured(traffic, lambda: played.send("l", change))
        assert long - short >= 199

    def test_a_process_s_first_commit_to_a_table_is_sent_whole(self, own):
        """A restarted process knows nothing it wrote: its first commit sends the
        waiting requests (then not again)."""
        played, traffic = own
        played.service.create_table("Restart", "sr2", table_id="r")
        played.send("r", {"type": "settings", "settings": {"approval": True, "player_dice": True}})
        for n in range(4):
            played.send("r", SUPPLIED, player(n))
        again = Played(_url(played.store), "rb:", "p1")
        try:
            sizes = [measured(traffic, lambda: again.send("r", ROLL)) for _ in range(3)]
        finally:
            again.store.close()
        assert sizes[0] > 30_000 > 2_000 > max(sizes[1:]), sizes


@pytest.fixture
def url_prefix(redis_server: Any, redis_prefix: str) -> tuple[str, str]:
    return redis_server.url, redis_prefix


def stored_as_before(store: RedisStore, table_id: str, expected: Any) -> None:
    """The table as stored is the table ``expected`` (an engine table), read back
    by a load of another store, and its info and meta are the bytes the version
    before stored (``pack`` of the whole of each): what its processes read."""
    reader = RedisStore(_url(store), prefix=store.keys.prefix)
    try:
        snapshot, history = reader.load(table_id)
    finally:
        reader.close()
    assert snapshot == expected.snapshot()
    assert sorted(history) == sorted({*expected.undo_stack, *expected.redo_stack})
    info, stored_meta = store.client.hmget(store.keys.table(table_id).info, "info", "meta")
    assert info == pack(expected.info.to_dict())
    assert stored_meta == pack(expected.meta())


def _url(store: RedisStore) -> str:
    kwargs = store.client.connection_pool.connection_kwargs
    return f"redis://{kwargs['host']}:{kwargs['port']}/{kwargs.get('db', 0)}"


class TestTheSameTable:
    def test_a_reload_gives_the_table_played_across_a_restart_and_a_takeover(self, url_prefix):
        """Requests waiting, approvals, a rejection, undo and redo, settings, an
        encounter: after each request another store's load gives the engine's table,
        and the stored info and meta are the version before's bytes; across a
        restart of the process and a takeover by another (and back)."""
        url, prefix = url_prefix
        first = Played(url, prefix, "p1")
        first.service.create_table("Same", "sr2", table_id="t")
        tukan = {"body": 5, "combat_pool": 6,
                 "weapons": [{"name": "Hackler", "code": "7M", "skill": 6}]}  # fmt: skip
        guard = {"body": 4, "combat_pool": 4, "armor": {"ballistic": 4, "impact": 2}}
        attack = {"type": "resolve", "action": "attack", "actor": "tukan", "targets": ["guard"],
                  "params": {"weapon": "Hackler", "rounds": 3, "range": "medium"}}  # fmt: skip

        def play(process: Played, round_: int) -> None:
            def send(message: dict[str, Any], who: Principal = GM) -> Any:
                reply = process.send("t", message, who)
                stored_as_before(process.store, "t", process.service.table("t"))
                return reply

            def setting(**values: Any) -> None:  # a change only (an undo may have made it)
                if any(table.info.settings.get(k) != v for k, v in values.items()):
                    send({"type": "settings", "settings": values})

            table = process.service.table("t")
            setting(approval=True, player_dice=True)
            for n in range(3):
                send({"type": "roll", "formula": f"{n + 1}d6"}, player(n))
            waiting = list(table.pending)
            send(ROLL)
            send({"type": "approve", "request": waiting[0]})
            send({"type": "reject", "request": waiting[1]})
            send(attack)
            send({"type": "undo"})
            send({"type": "redo"})
            send({"type": "undo"})
            send({"type": "settings", "settings": {"ruleset": {"rule_of_one": round_ % 2 == 1}}})
            send({"type": "approve", "request": waiting[2]})
            send({"type": "encounter.start", "order": ["tukan", "guard"]})
            send({"type": "encounter.next"})
            send({"type": "encounter.end"})
            # a dice segment (verifiable dice turn approval and players' dice off)
            setting(verifiable=True)
            send(ROLL)
            setting(verifiable=False)

        for actor_id, sheet in (("tukan", tukan), ("guard", guard)):
            first.send(
                "t",
                {
                    "type": "actor.create",
                    "actor": {"id": actor_id, "name": actor_id.title(), "sheet": sheet},
                },
            )
        play(first, 0)
        first.store.close()
        restarted = Played(url, prefix, "p1")  # the same process id, started again
        play(restarted, 1)
        other = Played(url, prefix, "p2")  # a takeover: the lease moves to p2
        owner = restarted.store.keys.table("t").owner
        other.store.client.set(owner, "p2")
        play(other, 2)
        restarted.store.client.set(owner, "p1")  # and back: p1 reads the table again
        restarted.service.forget("t")
        play(restarted, 3)
        for process in (restarted, other):
            process.store.close()


@pytest.fixture
def stores(url_prefix: tuple[str, str]) -> Iterator[Any]:
    url, prefix = url_prefix
    made: list[RedisStore] = []

    def make() -> RedisStore:
        made.append(RedisStore(url, prefix=prefix))
        return made[-1]

    yield make
    for store in made:
        store.close()


def stored(store: RedisStore, table_id: str = "t") -> tuple[bytes, bytes]:
    return tuple(store.client.hmget(store.keys.table(table_id).info, "info", "meta"))


def waiting(*names: str) -> dict[str, Any]:
    return {name: {"type": "roll", "who": {"name": name}, "fields": {"x": "y" * 500}}
            for name in names}  # fmt: skip


class TestAnotherWriter:
    def test_a_commit_after_another_process_wrote_is_sent_whole(self, stores):
        """A commits with a request waiting, B (this version) commits it gone, A
        commits it back — the same as A's last: A's commit, sent against its last,
        is refused ``whole`` by the script and sent again whole; the table holds A's."""
        a, b = stores(), stores()
        a.create_table(make_info(), [])
        a.commit("t", make_commit(a, meta_=meta(pending=waiting("x"))))
        b.commit("t", make_commit(b, meta_=meta(pending={})))
        third = make_commit(a, meta_=meta(pending=waiting("x")))
        a.commit("t", third)
        assert stored(a) == (pack(third.info.to_dict()), pack(third.meta))
        assert a.load("t")[0].pending == waiting("x")

    def test_a_batch_whose_first_commit_is_refused_whole_is_sent_again(self, stores):
        """Two commits of A's in one batch after B wrote: the first refused
        ``whole``, the second (sent against the first) refused behind it; both sent
        again, in order, and stored."""
        a, b = stores(), stores()
        a.create_table(make_info(), [])
        a.commit("t", make_commit(a, meta_=meta(pending=waiting("x"))))
        b.commit("t", make_commit(b, meta_=meta(pending={})))
        one = make_commit(a, meta_=meta(pending=waiting("x")))
        two = make_commit(a, meta_=meta(pending=waiting("x")))  # the meta of A's last, again
        two.events[0].seq = one.events[0].seq + 1
        two.info.seq = one.info.seq + 1
        a.commit_many([("t", one), ("t", two)])
        assert stored(a) == (pack(two.info.to_dict()), pack(two.meta))
        assert a.load("t")[0].info.seq == two.info.seq

    def test_a_fenced_table_s_next_commit_is_sent_whole(self, stores):
        """A fence moves the table to a new epoch: the next commit, of that epoch, is
        sent whole (the process's last was of the epoch before) and stored."""
        a = stores()
        a.create_table(make_info(), [])
        a.commit("t", make_commit(a, meta_=meta(pending=waiting("x"))))
        a.fence("t", 1, 99)  # known committed up to seq 99: Redis is behind
        commit = make_commit(a, meta_=meta(pending=waiting("x")))
        assert commit.info.epoch > 1
        a.commit("t", commit)
        assert stored(a) == (pack(commit.info.to_dict()), pack(commit.meta))


class TestRollingUpgrade:
    def test_processes_of_both_versions_write_one_table_in_turn(self, stores):
        """A process of the version before (its own commit script: the whole info and
        meta, no parts) and one of this version commit in turn: every commit is
        stored as the whole of its info and meta, the new one's sent against its last
        though the old one wrote between, and each reads the other's."""
        new, old = stores(), stores()
        new.create_table(make_info(), [])
        steps = [
            (new, meta(pending=waiting("x"))),
            (new, meta(pending=waiting("x"), undo=[1])),
            (old, meta(pending=waiting("x", "y"), undo=[1])),
            (new, meta(pending=waiting("x"), undo=[1])),  # the new one's last, again
            (old, meta(pending={}, undo=[1, 2], redo=[])),
            (new, meta(pending=waiting("x"), undo=[1])),
            (new, meta(pending=waiting("x"), undo=[1])),
        ]
        for n, (writer, fields) in enumerate(steps):
            settings = {"approval": n % 3 == 0}
            commit = make_commit(writer, meta_=fields, settings=settings)
            if writer is old:
                assert commit_before(old, "t", commit) == [1]
            else:
                new.commit("t", commit)
            assert stored(new) == (pack(commit.info.to_dict()), pack(commit.meta)), n
            assert old.load("t")[0].pending == fields["pending"]

    def test_a_commit_the_version_before_sends_again_is_known(self, stores):
        """A commit this version wrote, sent again by a process of the version before
        (the same commit: a retry across an upgrade), is known by its digest and not
        written twice."""
        new, old = stores(), stores()
        new.create_table(make_info(), [])
        commit = make_commit(new, meta_=meta(pending=waiting("x")))
        new.commit("t", commit)
        assert commit_before(old, "t", commit) == [2]

    def test_prepared_info_and_meta_are_the_bytes_the_version_before_packed(self, stores):
        a = stores()
        a.create_table(make_info(), [])
        for fields in (meta(), meta(pending=waiting("x", "y"), undo=[1, 2], redo=[3])):
            commit = make_commit(a, meta_={**fields, "dice": {"segment": 1}})
            p = prepare(commit)
            assert p.info == pack(commit.info.to_dict())
            assert p.meta == pack(commit.meta)


def evalsha_calls(store: RedisStore) -> int:
    """How many ``EVALSHA`` Redis ran so far (``INFO commandstats``)."""
    return int(store.client.info("commandstats").get("cmdstat_evalsha", {}).get("calls", 0))


def based(store: RedisStore, fields: dict[str, Any]) -> Any:
    """A table ``t`` with one commit of ``store``'s written: its next commit is sent
    against that one (the meta left out when the same)."""
    store.create_table(make_info(), [])
    first = make_commit(store, meta_=fields)
    store.commit("t", first)
    return first


class TestChecksOfACommitSentAgainstTheLast:
    """Each check of the commit script holds for a commit that leaves the meta out:
    a commit that does not continue the log is refused and changes nothing, and one
    refused ``whole`` is sent again once, never twice."""

    def test_events_that_skip_a_seq_are_refused(self, stores):
        a = stores()
        first = based(a, meta(pending=waiting("x")))
        commit = make_commit(a, meta_=meta(pending=waiting("x")))
        commit.events[0].seq += 1  # seq 3 after 1, the commit's seq 2: a gap
        with pytest.raises(CommitRefused) as refused:
            a.commit("t", commit)
        assert refused.value.details["reason"] == "seq"
        assert stored(a) == (pack(first.info.to_dict()), pack(first.meta))

    def test_a_commit_whose_seq_is_not_its_last_event_s_is_refused(self, stores):
        a = stores()
        first = based(a, meta(pending=waiting("x")))
        commit = make_commit(a, meta_=meta(pending=waiting("x")))
        commit.info.seq += 1  # events up to 2, the table's seq 3
        with pytest.raises(CommitRefused) as refused:
            a.commit("t", commit)
        assert refused.value.details["reason"] == "seq"
        assert stored(a) == (pack(first.info.to_dict()), pack(first.meta))
        assert a.load("t")[0].info.seq == first.info.seq

    def test_a_commit_refused_whole_is_sent_again_once_and_written_once(self, redis_factory):
        """A wrote seq 1, B seq 2; A's seq 3 (against its seq 1, its meta again) is
        refused ``whole`` and sent again whole: two runs of the script, one event
        3 in the log, the table as A's seq 3."""
        server = redis_factory()
        a, b = (RedisStore(server.url, prefix="rb:") for _ in range(2))
        try:
            based(a, meta(pending=waiting("x")))
            b.commit("t", make_commit(b, meta_=meta(pending={})))
            mine = make_commit(a, meta_=meta(pending=waiting("x")))
            before = evalsha_calls(a)
            a.commit("t", mine)
            assert evalsha_calls(a) - before == 2
            assert stored(a) == (pack(mine.info.to_dict()), pack(mine.meta))
            assert a.client.zcount(a.keys.table("t").log, 3, 3) == 1
            assert a.load("t")[0].info.seq == 3
        finally:
            a.close()
            b.close()

    def test_a_table_without_the_info_head_is_sent_whole(self, stores):
        """The info's head gone from the table (an operator's ``HDEL``, a partial
        restore) though ``mtag`` is the base: the commit is sent again whole, and
        stored whole, not refused with a script error."""
        a = stores()
        based(a, meta(pending=waiting("x")))
        a.client.hdel(a.keys.table("t").info, "ihead")
        commit = make_commit(a, meta_=meta(pending=waiting("x")))
        a.commit("t", commit)
        assert stored(a) == (pack(commit.info.to_dict()), pack(commit.meta))

    def test_a_batch_whose_first_commit_another_process_wrote_the_same_is_written(self, stores):
        """B wrote a commit without events; A, whose last is older, sends the same
        commit (the same digest) and one after it in one batch. The table holds what
        the first leaves, so the second, sent against it, is written by the batch:
        the first must not be refused ``whole`` then (sent again, it would be
        refused ``seq`` behind the second — a commit reported refused after a later
        one of its batch was written)."""
        a, b = stores(), stores()
        based(a, meta(pending=waiting("x")))
        same = meta(pending=waiting("x", "y"))
        b.commit("t", make_commit(b, events=0, meta_=same))
        one = make_commit(a, events=0, meta_=same)
        two = make_commit(a, meta_=same)
        assert prepare(one).digest == prepare(make_commit(b, events=0, meta_=same)).digest
        a.commit_many([("t", one), ("t", two)])
        assert stored(a) == (pack(two.info.to_dict()), pack(two.meta))
        assert a.load("t")[0].info.seq == two.info.seq
