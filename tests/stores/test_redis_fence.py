"""Fencing a table whose Redis went back in time (SCALING.md failure 6, and 5 when data
comes back from an older copy): :mod:`rollbridge.stores.redis_fence`, and the cluster
table protocol finding it, against real ``redis-server`` processes — a master and a
replica (``--replicaof``) detached (``REPLICAOF NO ONE``) while the master goes on,
then the protocol's store switched to it: a promoted replica that lagged.

What is asserted throughout: no ``(epoch, seq)`` ever names two different events —
not in what a member is sent, not in the stored log."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from rollbridge.engine.epochs import shown
from rollbridge.engine.model import Principal
from rollbridge.exceptions import UnknownTable
from rollbridge.offline import TableService
from rollbridge.plain import pack, unpack
from rollbridge.protocol.effects import Close, Deliver, Effect, LoadTable, Persist, Read, Reply
from rollbridge.protocol.members import Member
from rollbridge.server.cluster_table import ClusterTable, Forward, Ownership
from rollbridge.stores.redis import CommitRefused, RedisStore
from rollbridge.stores.redis_fence import behind, new_epoch
from rollbridge.testing import host_with
from tests.conftest import GM
from tests.stores.test_redis_commit import raw
from tests.stores.test_store_contract import make_commit, make_info, meta

ROLL = {"type": "roll", "formula": "1d20"}


# -- the store -------------------------------------------------------------------------


@pytest.fixture
def store(redis_server: Any, redis_prefix: str) -> Iterator[RedisStore]:
    """A store on the session's server with a table ``t`` at epoch 1, seq 3."""
    opened = RedisStore(redis_server.url, prefix=redis_prefix)
    opened.create_table(make_info(), [])
    opened.commit("t", make_commit(opened, events=3))
    yield opened
    opened.close()


def test_behind_and_new_epochs():
    assert behind((1, 3), (1, 5)) and behind((1, 9), (2, 1))  # a lower seq; an older epoch
    assert not behind((1, 5), (1, 5)) and not behind((2, 1), (1, 9))
    assert new_epoch(now=1_700_000_000.0) == 1_700_000_000_000  # the time, in ms
    assert new_epoch(1_700_000_000_005, now=1_700_000_000.0) == 1_700_000_000_006  # a clock behind
    assert new_epoch(1) < 2**53  # JavaScript reads it exactly


def test_a_table_found_behind_moves_to_a_new_epoch_once(store):
    before = store.load("t")[0].info
    fenced = store.fence("t", 1, 5)  # seq 5 of epoch 1 was committed; Redis holds 3
    assert fenced.moved and fenced.seq == 3 and fenced.epoch >= int(time.time() * 1000) - 60_000
    after = store.load("t")[0].info
    assert (after.epoch, after.seq) == (fenced.epoch, 3)
    assert {**after.to_dict(), "epoch": 1} == before.to_dict()  # nothing else changed
    # the record a welcome shows: epoch 1 from its start, the new one from seq 3
    assert store.load("t")[0].epochs == [[1, 0], [fenced.epoch, 3]]
    again = store.fence("t", 1, 5)  # another process that found it too: nothing to do
    assert not again.moved and (again.epoch, again.seq) == (fenced.epoch, 3)
    unchanged = raw(store)
    assert not store.fence("t", fenced.epoch, 3).moved  # not behind: left as it is
    assert raw(store) == unchanged
    with pytest.raises(UnknownTable):
        store.fence("nope", 1, 5)


def test_two_processes_fencing_at_once_move_it_once(redis_server, redis_prefix):
    """Every process that finds the table behind fences it; exactly one moves it, and
    all of them end with the same new epoch (20 races)."""
    stores = [RedisStore(redis_server.url, prefix=redis_prefix) for _ in range(2)]
    try:
        for round_ in range(20):
            table = f"t{round_}"
            stores[0].create_table(make_info(table), [])
            stores[0].commit(table, make_commit(stores[0], table, events=2))
            gate, found = threading.Barrier(2), [None, None]

            def fence(n: int, gate=gate, found=found, table=table) -> None:
                gate.wait()
                found[n] = stores[n].fence(table, 1, 4)

            threads = [threading.Thread(target=fence, args=(n,)) for n in (0, 1)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert sorted(f.moved for f in found) == [False, True], found
            assert found[0].epoch == found[1].epoch > 1 and found[0].seq == found[1].seq == 2
    finally:
        for opened in stores:
            opened.close()


def test_a_segment_open_across_a_fence_rolls_nothing_and_still_reveals(
    redis_server: Any, redis_prefix: str
):
    """Its seed may have been revealed in the history Redis lost, and the new epoch's
    seed is not the committed one: its dice were refused as `dice_key_lost` (blaming a
    key file) and its reveal abandoned it, so its honest rolls could never be checked.
    Now it is refused as a moved segment and its reveal publishes its real seed."""
    from rollbridge.cli.offline import offline_host
    from rollbridge.dice.verifiable import DiceKey
    from rollbridge.dice.verify import verify_events
    from rollbridge.exceptions import Conflict

    key = DiceKey(bytes(range(32)))
    opened = RedisStore(redis_server.url, prefix=redis_prefix)
    svc = TableService(opened, offline_host(), dice_key=key)
    svc.create_table("t", "bandits", table_id="t", settings={"verifiable": True})
    for n in range(2):
        svc.handle("t", {**ROLL, "id": f"r{n}"}, GM)
    table = svc.table("t")
    before = [table.view_event(e, gm=False) for e in opened.events_after("t", 0)]
    info = opened.load("t")[0].info
    assert opened.fence("t", info.epoch, info.seq + 2).moved
    opened.close()
    again = RedisStore(redis_server.url, prefix=redis_prefix)
    try:
        svc = TableService(again, offline_host(), dice_key=key)
        table = svc.table("t")
        welcome = {"type": "welcome", "table": table.view(gm=False)}
        with pytest.raises(Conflict) as refused:
            svc.handle("t", {**ROLL, "id": "after"}, GM)
        assert refused.value.code == "dice_segment_restored"
        assert "moved to a new epoch" in refused.value.message
        svc.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
        after = [table.view_event(e, gm=False) for e in again.events_after("t", info.seq)]
    finally:
        again.close()
    assert "dice.revealed" in [e["kind"] for e in after]  # not abandoned
    log = json.loads(json.dumps([*before, welcome, *after]))
    report = verify_events(log)
    assert report.ok and report.verified_events == 2, report.problems


def test_a_commit_of_the_old_epoch_is_refused_after_a_fence(store):
    """A process that has not noticed the fence commits on under the old epoch: the
    commit script refuses it (an older epoch never writes again), writing nothing."""
    stale = make_commit(store, events=1)  # epoch 1, seq 4: what followed seq 3
    fenced = store.fence("t", 1, 6)
    before = raw(store)
    with pytest.raises(CommitRefused) as caught:
        store.commit("t", stale)
    assert caught.value.details["reason"] == "seq"
    assert caught.value.details["stored_epoch"] == fenced.epoch
    assert raw(store) == before


def test_a_commit_of_a_newer_epoch_is_refused_a_fence_lost_is_found_again(store):
    """Only FENCE moves a table to a new epoch. A commit of a *newer* epoch than the
    stored one is a fence Redis lost (a second failover to a replica that had not
    seen it): it is refused, writing nothing — not written past the stored log's end
    with the seqs between lost — so its writer reloads, finds the table behind what it
    committed under the new epoch, and fences it again."""
    key = store.keys.table("t").info
    lagging = store.client.hmget(key, "epoch", "info")  # what the replica still holds
    fenced = store.fence("t", 1, 6)  # on the old master: the table moved to a new epoch
    ahead = make_commit(store, events=1)  # what its owner then wrote: (new epoch, 4)
    ahead.events[0].seq = ahead.info.seq = 10  # after 7..9, which this Redis never got
    store.client.hset(key, mapping={"epoch": lagging[0], "info": lagging[1]})  # promoted
    before = raw(store)
    with pytest.raises(CommitRefused) as caught:
        store.commit("t", ahead)
    assert caught.value.details["reason"] == "seq"
    assert (caught.value.details["stored_epoch"], caught.value.details["stored_seq"]) == (1, 3)
    assert raw(store) == before  # nothing written
    again = store.fence("t", fenced.epoch, 9)  # the writer's reload: behind what it knew
    assert again.moved and again.epoch > fenced.epoch and again.seq == 3
    # the lost fence's epoch is no part of the history: the record goes on from what
    # this Redis holds (its meta as the replica had it: no record, so the log's)
    assert store.load("t")[0].epochs == [[1, 0], [again.epoch, 3]]


def racing(store: RedisStore, racer: Any) -> None:
    """``store``'s next fence runs ``racer`` between its read of the table and its
    script, once: another process's write landing exactly then."""
    register = store.client.register_script
    pending = [racer]

    def registered(text: str) -> Any:
        script = register(text)

        def run(*args: Any, **kwargs: Any) -> Any:
            while pending:
                pending.pop()()
            return script(*args, **kwargs)

        return run

    store.client.register_script = registered  # type: ignore[method-assign]


def test_a_commit_landing_between_the_fence_s_read_and_its_script(store, redis_server):
    """The script finds the table changed since the read (its info holds the seq) and
    the fence reads it again: the new epoch goes on from the seq the racing commit left,
    and its record says so — not from the seq first read, which would leave the racing
    event out of the table's history for every client that reads ``epochs``."""
    other = RedisStore(redis_server.url, prefix=store.keys.prefix)
    try:
        racing(store, lambda: other.commit("t", make_commit(other, events=1)))  # (1, 4)
        fenced = store.fence("t", 1, 6)
    finally:
        other.close()
    assert fenced.moved and fenced.seq == 4
    assert store.load("t")[0].epochs == [[1, 0], [fenced.epoch, 4]]
    assert [(e.epoch, e.seq) for e in store.events_after("t", 0)][-1] == (1, 4)  # kept


def test_a_commit_changing_only_the_meta_between_the_fence_s_read_and_its_script(
    store, redis_server
):
    """A commit without events leaves the info as it was but writes the meta: the script
    also checks the meta read, so the fence reads again and keeps what that commit
    wrote, with the record added — not the meta it first read, putting the other
    process's change back."""
    other = RedisStore(redis_server.url, prefix=store.keys.prefix)
    dice = {"segment": 2, "open": False}
    try:
        change = make_commit(other, events=0, meta_=meta(dice=dice))
        racing(store, lambda: other.commit("t", change))
        fenced = store.fence("t", 1, 6)
    finally:
        other.close()
    assert fenced.moved and fenced.seq == 3
    snapshot = store.load("t")[0]
    assert snapshot.dice == dice
    assert snapshot.epochs == [[1, 0], [fenced.epoch, 3]]


def test_a_table_fenced_by_an_older_server_and_again_before_any_event(store):
    """An older server's fence kept no record; fenced again before any event of that
    epoch, the log (all of epoch 1, up to the table's seq) tells that the fenced epoch
    went on from seq 3 and wrote nothing: the record names it so, every ``from`` known
    after the first — not a null there, which a client's record check refuses."""
    first = store.fence("t", 1, 5)
    key = store.keys.table("t").info
    stored = unpack(store.client.hget(key, "meta"))
    del stored["epochs"]  # as an older server's fence left it
    store.client.hset(key, "meta", pack(stored))
    second = store.fence("t", first.epoch, 4)
    assert second.moved and second.seq == 3
    record = [[1, 0], [first.epoch, 3], [second.epoch, 3]]
    assert store.load("t")[0].epochs == record
    assert shown(record, second.epoch) == [{"epoch": e, "from": f} for e, f in record]


def _sent(server: Any) -> int:
    """The bytes ``server`` has sent its clients so far (``INFO stats``)."""
    return int(redis.Redis.from_url(server.url).info("stats")["total_net_output_bytes"])


def test_a_first_fence_of_a_long_log_reads_two_events_of_it(redis_factory):
    """A table never restored nor fenced has no record: the fence makes it from the
    retained log, which may be ``retain`` events of up to ``max-event-size`` each
    (135 MB at the defaults' worst). Epochs only grow along the log, so one whose first
    and last events are of one epoch is that epoch's alone: the fence reads those two,
    not the whole log (before, all of it, at every attempt)."""
    server = redis_factory()
    opened = RedisStore(server.url)
    try:
        opened.create_table(make_info(), [])
        label = "x" * 8_000
        for _ in range(4):  # 200 events of ~8 KB: 1.6 MB of log
            opened.commit("t", make_commit(opened, events=50, data={"label": label}))
        before = _sent(server)
        fenced = opened.fence("t", 1, 205)
        read = _sent(server) - before
        assert fenced.moved and opened.load("t")[0].epochs == [[1, 0], [fenced.epoch, 200]]
    finally:
        opened.close()
    assert read < 100_000, f"the fence read {read} bytes"


def test_a_fence_of_a_log_of_several_epochs_without_a_record_reads_it_all(store):
    """A log that went through an older server's fence (which kept no record) has
    events of two epochs: the fence reads it event by event, a chunk at a time, and
    records each epoch from where it went on."""
    store.commit("t", make_commit(store, events=97))  # epoch 1: seqs 1..100
    first = store.fence("t", 1, 105)
    store.commit("t", make_commit(store, events=150))  # its meta has no record, as then
    assert store.load("t")[0].epochs is None
    second = store.fence("t", first.epoch, 260)
    assert second.moved and second.seq == 250
    assert store.load("t")[0].epochs == [[1, 0], [first.epoch, 100], [second.epoch, 250]]


# -- a promoted replica that lagged, found by the cluster protocol ------------------------


class Failover:
    """A master and its replica, a table ``t`` played on the master through the cluster
    protocol (this process owns it, or follows it); :meth:`promote` detaches the
    replica (``REPLICAOF NO ONE``) once it holds everything so far, and :meth:`switch`
    points the protocol's store at it: Redis failed over to a replica that lagged."""

    def __init__(self, redis_factory: Any, tally: Any) -> None:
        self.master = redis_factory("--repl-diskless-sync-delay", "0")  # sync at once
        self.replica = redis_factory("--replicaof", "127.0.0.1", str(self.master.port))
        self.host = host_with(tally)
        self.stores = [RedisStore(s.url, writer="proc-a") for s in (self.master, self.replica)]
        self.store = self.stores[0]
        TableService(self.store, self.host).create_table("T", "tally", table_id="t")
        self.out: list[Effect] = []

    def protocol(self, *, owned: bool) -> ClusterTable:
        ownership = Ownership()
        if owned:
            ownership.take("t")
        loaded = LoadTable(table_id="t").run(self.store)
        return ClusterTable.open(loaded, self.host.rulesets, ownership=ownership)

    def carry(self, effects: list[Effect]) -> list[Effect]:
        """Carry the effects out at once on the current store; what went out."""
        pending, done = list(effects), []
        while pending:
            effect = pending.pop(0)
            if isinstance(effect, Read | Persist):
                try:
                    if isinstance(effect, Persist):
                        self.store.commit(effect.table_id, effect.commit)
                        result = None
                    else:
                        result = effect.run(self.store)
                except Exception as exc:
                    pending[:0] = effect.fail(exc)
                else:
                    pending[:0] = effect.resume(result)
            else:
                done.append(effect)
        self.out += done
        return done

    def promote(self) -> None:
        master = redis.Redis.from_url(self.master.url)
        replica = redis.Redis.from_url(self.replica.url)
        try:
            assert master.wait(1, 10_000) == 1  # the replica holds every write so far
            replica.execute_command("REPLICAOF", "NO", "ONE")
        finally:
            master.close()
            replica.close()

    def switch(self) -> None:
        self.store = self.stores[1]
        self.master.kill()

    def close(self) -> None:
        for store in self.stores:
            store.close()


@pytest.fixture
def failover(redis_factory: Any, tally: Any) -> Iterator[Failover]:
    made = Failover(redis_factory, tally)
    yield made
    made.close()


def member(name: str = "m") -> Member:
    return Member(Principal("gm", "gm", f"tok-{name}"), kind="json", origin=name)


def frames(effects: list[Effect], to: Member) -> list[dict]:
    """The messages ``to`` was sent, decoded, in order."""
    out = []
    for effect in effects:
        pairs = effect.frames if isinstance(effect, Deliver) else []
        if isinstance(effect, Reply) and effect.frame is not None and effect.origin == to.origin:
            pairs = [(to, effect.frame)]
        out += [json.loads(frame) for who, frame in pairs if who is to]
    return out


def names_once(*streams: list[dict]) -> dict[tuple[int, int], tuple[Any, str]]:
    """Every event of the streams by (epoch, seq); asserts that no (epoch, seq) names two
    different events."""
    named: dict[tuple[int, int], tuple[Any, str]] = {}
    for stream in streams:
        for message in stream:
            if message.get("type") == "event":
                key = (message["epoch"], message["seq"])
                what = (message["request"], json.dumps(message["data"], sort_keys=True))
                assert named.setdefault(key, what) == what, f"{key} names two events"
    return named


def stored_names(store: RedisStore) -> dict[tuple[int, int], tuple[Any, str]]:
    events = store.events_after("t", 0) or []
    return {(e.epoch, e.seq): (e.request, json.dumps(e.data, sort_keys=True)) for e in events}


def play(f: Failover, table: ClusterTable, who: Member, prefix: str, count: int) -> list[dict]:
    """``count`` rolls by ``who`` (joined) on ``table``; what ``who`` was sent."""
    sent = []
    for n in range(count):
        out = f.carry(table.receive({**ROLL, "id": f"{prefix}{n}"}, GM, who.origin, member=who))
        sent += frames(out, who)
    return sent


def test_the_owner_s_refused_commit_fences_a_promoted_lagging_replica(failover):
    """The owner has committed 1..8; Redis fails over to a replica that holds 1..5. The
    owner's next commit is refused; its reload finds Redis behind what it committed and
    fences the table with a new epoch before anything else; its member is closed to
    resume, and resuming at (1, 8) gets ``recovered: false`` and the table at seq 5 of
    the new epoch; play goes on from seq 6 of the new epoch."""
    f = failover
    table, gm = f.protocol(owned=True), member("gm")
    seen = frames(f.carry(table.join(gm, None)), gm)
    seen += play(f, table, gm, "a", 5)
    f.promote()  # the replica holds 1..5
    seen += play(f, table, gm, "b", 3)  # 6..8: acknowledged by the master alone
    assert [m["seq"] for m in seen if m["type"] == "event"] == list(range(1, 9))
    f.switch()  # Redis is the replica now; the master is gone

    out = f.carry(table.receive({**ROLL, "id": "c0"}, GM, gm.origin, member=gm))
    refused = [m for m in frames(out, gm) if m["type"] == "error"]
    assert refused and refused[0]["code"] == "store_error"  # try again
    assert [(c.member, c.code) for c in out if isinstance(c, Close)] == [(gm, 1013)]
    assert not [m for m in frames(out, gm) if m["type"] == "event"]  # nothing delivered
    info = f.store.load("t")[0].info
    assert info.epoch > 1 and info.seq == 5 and table.table.info.epoch == info.epoch

    back = member("gm2")  # the client again, resuming from what it saw
    welcome = frames(f.carry(table.join(back, {"epoch": 1, "seq": 8})), back)[0]
    assert welcome["resume"]["recovered"] is False
    assert (welcome["epoch"], welcome["seq"]) == (info.epoch, 5)
    assert welcome["epochs"] == [{"epoch": 1, "from": 0}, {"epoch": info.epoch, "from": 5}]
    after = play(f, table, back, "c", 3)
    assert [(m["epoch"], m["seq"]) for m in after if m["type"] == "event"] == [
        (info.epoch, 6), (info.epoch, 7), (info.epoch, 8)
    ]  # fmt: skip
    names_once(seen, after, [{"type": "event", "epoch": e, "seq": s, "request": r,
                              "data": json.loads(d)}
                             for (e, s), (r, d) in stored_names(f.store).items()])  # fmt: skip


@pytest.mark.parametrize("owned", [True, False], ids=["on the owner", "on a follower"])
def test_a_resume_past_the_stored_seq_fences_it(failover, owned):
    """Every process that knew seq 8 is gone; a process that loaded the table from the
    promoted replica (at 5) gets a client resuming at (1, 8): it fences the table before
    it welcomes it — ``recovered: false``, the table at seq 5 of the new epoch."""
    f = failover
    old, gm = f.protocol(owned=True), member("gm")
    seen = frames(f.carry(old.join(gm, None)), gm)
    seen += play(f, old, gm, "a", 5)
    f.promote()
    seen += play(f, old, gm, "b", 3)
    f.switch()
    fresh = f.protocol(owned=owned)  # a process started after the failover
    assert (fresh.table.info.epoch, fresh.durable_seq) == (1, 5)
    back = member("gm2")
    welcome = frames(f.carry(fresh.join(back, {"epoch": 1, "seq": 8})), back)[0]
    info = f.store.load("t")[0].info
    assert info.epoch > 1 and info.seq == 5
    assert welcome["resume"]["recovered"] is False
    assert (welcome["epoch"], welcome["seq"]) == (info.epoch, 5)
    assert fresh.table.info.epoch == info.epoch
    assert welcome["epochs"] == [{"epoch": 1, "from": 0}, {"epoch": info.epoch, "from": 5}]
    if owned:
        after = play(f, fresh, back, "c", 2)
        assert [(m["epoch"], m["seq"]) for m in after if m["type"] == "event"] == [
            (info.epoch, 6), (info.epoch, 7)
        ]  # fmt: skip
        names_once(seen, after)
    # a resume of the new epoch is recovered as usual
    again = member("gm3")
    welcome = frames(f.carry(fresh.join(again, {"epoch": info.epoch, "seq": 5})), again)[0]
    assert welcome["resume"]["recovered"] is True


def test_a_player_s_resume_past_the_stored_seq_does_not_fence_it(failover):
    """A player's claim is not trusted: resuming at (1, 8) on a process that loaded the
    table at 5 gets ``recovered: false`` and the table as stored, at (1, 5); the epoch
    stays (else any player could make every client of the table start over). The GM's
    resume, as above, fences."""
    f = failover
    old, gm = f.protocol(owned=True), member("gm")
    f.carry(old.join(gm, None))
    play(f, old, gm, "a", 5)
    f.promote()
    play(f, old, gm, "b", 3)
    f.switch()
    fresh = f.protocol(owned=True)
    player = Member(Principal("player", "Tukan", "tok-p"), kind="json", origin="p")
    welcome = frames(f.carry(fresh.join(player, {"epoch": 1, "seq": 8})), player)[0]
    assert welcome["resume"]["recovered"] is False
    assert (welcome["epoch"], welcome["seq"]) == (1, 5)
    assert f.store.load("t")[0].info.epoch == 1


def test_a_follower_that_delivered_more_fences_on_its_next_sync(failover):
    """A follower delivered 1..8 (the owner is elsewhere); after the failover its next
    sync (the poll finds the stored seq below what it delivered) fences the table and
    closes its member to resume; no event is delivered under the old epoch again."""
    f = failover
    owner, gm = f.protocol(owned=True), member("gm")
    f.carry(owner.join(gm, None))
    follower, watcher = f.protocol(owned=False), member("w")
    seen = frames(f.carry(follower.join(watcher, None)), watcher)
    play(f, owner, gm, "a", 5)
    f.promote()
    play(f, owner, gm, "b", 3)
    seen += frames(f.carry(follower.notified(1, 8)), watcher)
    assert [m["seq"] for m in seen if m["type"] == "event"] == list(range(1, 9))
    f.switch()
    out = f.carry(follower.resync())
    assert [(c.member, c.code) for c in out if isinstance(c, Close)] == [(watcher, 1013)]
    assert not frames(out, watcher)
    info = f.store.load("t")[0].info
    assert info.epoch > 1 and follower.table.info.epoch == info.epoch
    assert (follower.table.info.seq, follower.durable_seq) == (5, 5)


def test_replies_parked_for_seqs_of_the_old_epoch_are_dropped_by_the_fence(failover):
    """A follower holds the owner's answer to a forwarded change until the event it
    names (seq 9) has been delivered here. The table is then found behind and fenced:
    seq 9 of the old epoch will never be delivered, and seq 9 of the new one would be
    another event, so the parked answer is dropped (its requester is closed to
    resume; its retry is answered by the owner or runs again), and the follower does
    not stay 'used' for it."""
    f = failover
    owner, gm = f.protocol(owned=True), member("gm")
    f.carry(owner.join(gm, None))
    follower, asker = f.protocol(owned=False), member("asker")
    f.carry(follower.join(asker, None))
    play(f, owner, gm, "a", 5)
    f.promote()
    play(f, owner, gm, "b", 3)
    f.carry(follower.notified(1, 8))
    (forward,) = [e for e in follower.receive({**ROLL, "id": "x"}, GM, asker.origin,
                                              member=asker) if isinstance(e, Forward)]  # fmt: skip
    f.switch()  # the owner ran it as seq 9 on the old master, then Redis failed over
    answer = {"type": "result", "id": "x", "seq": 9, "status": "done"}
    out = f.carry(follower.forwarded(forward, answer))  # parked for 9; its sync fences
    assert [(c.member, c.code) for c in out if isinstance(c, Close)] == [(asker, 1013)]
    assert follower.table.info.epoch > 1 and follower.durable_seq == 5
    assert follower.parked == [] and not follower.used
    assert not [e for e in out if isinstance(e, Reply)]  # the answer is not sent
