"""A follower applies the events it follows to its table in memory (docs/scaling.md,
"What each process costs", win 3) instead of reading the whole table again: over a
real Redis, an owner (a table service on one store client) and a follower (a
:class:`ClusterTable` on another, as a second process holds it) play a long mixed
session — attacks, rolls, draws, actor changes, undo and redo, approvals, settings,
encounters, verifiable dice — and after every batch of commits the follower's table
equals the one a fresh load builds, its member got each event once, in order, and
the follower read only the log (``FOLLOW_LOG``). What does not fit (a gap, an event
that does not find the table as it left it, a kind it does not know, another epoch)
reads the whole table, as before."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from rollbridge.engine import follow
from rollbridge.engine.model import Principal
from rollbridge.engine.table import Table
from rollbridge.exceptions import RollbridgeError
from rollbridge.offline import TableService
from rollbridge.protocol.effects import Close, LoadTable
from rollbridge.protocol.members import Member
from rollbridge.server.cluster_table import ClusterTable, Ownership, Sync
from rollbridge.stores.base import LogTail
from rollbridge.stores.redis import RedisStore
from rollbridge.testing import host_with
from tests.conftest import ALICE, BOB, GM
from tests.server.cluster_driver import Driver, assert_same, sent

#: Small enough that undo entries and events leave the log during a session.
RETAIN = 25
SEATS = [
    {"id": "ana", "name": "Ana", "sheet": {"hp": 10}, "controllers": ["alice"]},
    {"id": "bo", "name": "Bo", "sheet": {"hp": 8}, "controllers": ["bob"]},
    {"id": "guard", "name": "Guard", "sheet": {"hp": 6}},
]


class Session:
    """An owner playing table ``t`` on one store client, and a follower of it on
    another, with a GM member; ``ran`` names the scripts the follower's store runs."""

    def __init__(self, url: str, prefix: str, tally: Any) -> None:
        self.store = RedisStore(url, prefix=prefix, retain=RETAIN)
        self.owner = TableService(self.store, host_with(tally))
        self.owner.create_table("Apply", "tally", table_id="t")
        for n, actor in enumerate(SEATS):
            self.play({"type": "actor.create", "id": f"seat{n}", "actor": actor}, GM)
        self.tally = tally
        self.other = RedisStore(url, prefix=prefix, retain=RETAIN)
        loaded = LoadTable(table_id="t").run(self.other)
        self.follower = ClusterTable.open(loaded, {"tally": tally}, ownership=Ownership())
        self.member = Member(Principal("gm", "gm", "tok-gm2"), kind="json", origin="m")
        self.driver = Driver(self.other)
        self.driver.carry(self.follower.join(self.member, None))
        self.seen: list[int] = []
        self.ran: list[str] = []
        run = self.other._run

        def counted(name: str, *args: Any) -> Any:
            self.ran.append(name)
            return run(name, *args)

        self.other._run = counted  # type: ignore[method-assign]
        self.joined = self.table.info.seq

    @property
    def table(self) -> Table:
        """The owner's table."""
        return self.owner.table("t")

    def play(self, message: dict[str, Any], who: Principal) -> dict[str, Any] | None:
        """One request at the owner; None when it is refused (nothing changed)."""
        try:
            return self.owner.handle("t", message, who)
        except RollbridgeError:
            return None

    def sync(self) -> list[Any]:
        """The follower hears the owner's latest commit and follows it."""
        info = self.table.info
        out = self.driver.carry(self.follower.notified(info.epoch, info.seq))
        self.seen += [seq for kind, seq in sent(out, self.member) if kind == "event"]
        return out

    def check(self) -> None:
        """The follower's table is the stored one, and its member got every event."""
        assert_same(self.follower.table, loaded(self.store, self.tally))
        assert self.follower.durable_seq == self.table.info.seq
        assert self.seen == list(range(self.joined + 1, self.table.info.seq + 1))

    def close(self) -> None:
        self.store.close()
        self.other.close()


@pytest.fixture
def session(redis_server: Any, redis_prefix: str, tally: Any) -> Iterator[Session]:
    played = Session(redis_server.url, redis_prefix, tally)
    yield played
    played.close()


def loaded(store: RedisStore, tally: Any) -> Table:
    """The table as a fresh load builds it."""
    snapshot, history = store.load("t")
    return Table(snapshot, tally, history)


def mixed(session: Session, rng: random.Random, n: int) -> None:
    """One request of a mixed session, chosen by ``rng`` from what the table allows."""
    table = session.table
    actors = sorted(table.actors)
    pick = rng.choice
    target = pick(actors) if actors else None
    kind = rng.choices(
        ["hit", "roll", "draw", "adjust", "update", "create", "remove", "settings",
         "undo", "redo", "decide", "encounter", "reveal"],
        weights=[6, 4, 1, 4, 2, 2, 1, 3, 5, 3, 4, 2, 2],
    )[0]  # fmt: skip
    rid = f"q{n}"
    if kind == "hit" and target:
        who = pick([GM, ALICE, BOB])
        session.play({"type": "resolve", "id": rid, "action": "hit", "targets": [target],
                      "params": {"bonus": rng.randint(0, 2)}, "secret": rng.random() < 0.2},
                     who)  # fmt: skip
    elif kind == "roll":
        roll = {"type": "roll", "id": rid, "formula": "2d6", "secret": rng.random() < 0.3}
        if "ana" in table.actors:
            roll["actor"] = "ana"
        session.play(roll, pick([GM, ALICE]))
    elif kind == "draw":
        session.play({"type": "draw", "id": rid, "faces": 6, "number": 3}, BOB)
    elif kind == "adjust" and target:
        session.play({"type": "adjust", "id": rid, "actor": target, "track": "damage",
                      "delta": rng.choice([-2, -1, 1, 2, 3])}, GM)  # fmt: skip
    elif kind == "update" and target:
        session.play({"type": "actor.update", "id": rid, "actor": target,
                      "name": f"{target}-{n}", "controllers": pick([[], ["bob"], ["alice"]])},
                     GM)  # fmt: skip
    elif kind == "create":
        actor = {"id": f"x{n}", "name": f"Extra {n}", "sheet": {"hp": rng.randint(3, 9)}}
        session.play({"type": "actor.create", "id": rid, "actor": actor}, GM)
    elif kind == "remove" and len(actors) > 2:
        session.play({"type": "actor.remove", "id": rid, "actor": target}, GM)
    elif kind == "settings":
        name = pick(["approval", "verifiable", "show_damage"])
        value = rng.random() < 0.5
        settings = {"ruleset": {name: value}} if name == "show_damage" else {name: value}
        session.play({"type": "settings", "id": rid, "settings": settings}, GM)
    elif kind in ("undo", "redo"):
        session.play({"type": kind, "id": rid}, GM)
    elif kind == "decide" and table.pending:
        pending = pick(sorted(table.pending))
        decision = pick(["approve", "reject"])
        session.play({"type": decision, "id": rid, "request": pending}, GM)
    elif kind == "encounter":
        if table.encounter is None and actors:
            order = rng.sample(actors, min(len(actors), 3))
            session.play({"type": "encounter.start", "id": rid, "order": order}, GM)
        elif table.encounter is not None:
            roll = rng.random()
            if roll < 0.15 and table.encounter.current in actors:
                order = rng.sample(actors, len(actors))
                session.play({"type": "encounter.reorder", "id": rid, "order": order}, GM)
                return
            step = "encounter.end" if roll < 0.3 else "encounter.next"
            session.play({"type": step, "id": rid}, GM)
    elif kind == "reveal":
        session.play({"type": "dice.reveal", "id": rid}, GM)


#: A request of each kind: the session begins with them, so that every kind of event
#: is applied whatever the random part chooses.
EVERY_KIND: list[tuple[dict[str, Any], Principal]] = [
    ({"type": "roll", "formula": "1d6"}, GM),
    ({"type": "draw", "faces": 6, "number": 2}, BOB),
    ({"type": "resolve", "action": "hit", "targets": ["guard"]}, ALICE),
    ({"type": "adjust", "actor": "bo", "track": "damage", "delta": 1}, GM),
    ({"type": "actor.create", "actor": {"id": "x", "name": "X", "sheet": {"hp": 4}}}, GM),
    ({"type": "actor.update", "actor": "x", "controllers": ["bob"]}, GM),
    ({"type": "encounter.start", "order": ["x", "ana"]}, GM),
    ({"type": "encounter.next"}, GM),
    ({"type": "encounter.reorder", "order": ["ana", "x"]}, GM),
    ({"type": "actor.remove", "actor": "x"}, GM),
    ({"type": "undo"}, GM),
    ({"type": "redo"}, GM),
    ({"type": "undo"}, GM),
    ({"type": "encounter.end"}, GM),
    ({"type": "settings", "settings": {"approval": True, "verifiable": True}}, GM),
    ({"type": "roll", "formula": "1d4"}, ALICE),
    ({"type": "approve", "request": "PENDING"}, GM),
    ({"type": "roll", "formula": "1d4"}, ALICE),
    ({"type": "reject", "request": "PENDING"}, GM),
    ({"type": "roll", "formula": "1d4"}, ALICE),  # left pending
    ({"type": "dice.reveal"}, GM),
    ({"type": "settings", "settings": {"verifiable": False}}, GM),
]


def every_kind(session: Session) -> set[str]:
    """Make each kind of event once (``PENDING``: the request pending last), the
    follower following every few requests; the kinds of the events made."""
    pending, made = None, set()
    for n, (message, who) in enumerate(EVERY_KIND):
        before = session.table.info.seq
        if message.get("request") == "PENDING":
            message = {**message, "request": pending}
        reply = session.play({**message, "id": f"k{n}"}, who)
        assert reply is not None, message
        pending = reply.get("pending", pending)
        made |= {e.kind for e in session.store.events_after("t", before)}
        if n % 3 == 2:
            session.sync()
            session.check()
    return made


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_follower_that_applies_the_events_holds_the_table_a_load_builds(session, seed):
    assert every_kind(session) == follow.APPLIED_KINDS  # every kind the engine makes, applied
    rng = random.Random(seed)
    for n in range(220):
        mixed(session, rng, n)
        if rng.random() < 0.4:  # a batch of commits, then the notice of the last one
            session.sync()
            session.check()
    session.sync()
    session.check()
    assert session.table.info.seq > 150
    # the log alone, never the whole table (FOLLOW): every event applied
    assert set(session.ran) == {"FOLLOW_LOG"} and len(session.ran) > 50


def test_an_undone_removal_puts_the_actor_back_where_it_stood_everywhere(session):
    """Live, on the follower that applies the events, and in a load from Redis: the
    actor an undo puts back stands where it stood (core/engine/places.py)."""
    session.play({"type": "actor.remove", "id": "rm1", "actor": "bo"}, GM)
    session.play({"type": "actor.remove", "id": "rm2", "actor": "ana"}, GM)
    session.sync()
    session.play({"type": "undo", "id": "u1"}, GM)
    session.sync()
    session.play({"type": "undo", "id": "u2"}, GM)
    session.play({"type": "actor.create", "id": "mk", "actor": {"id": "x", "name": "X",
                  "sheet": {"hp": 3}}}, GM)  # fmt: skip
    session.sync()
    session.check()
    assert list(session.table.actors) == ["ana", "bo", "guard", "x"]
    assert list(session.follower.table.actors) == ["ana", "bo", "guard", "x"]
    assert set(session.ran) == {"FOLLOW_LOG"}  # applied, never read whole


def test_a_follower_behind_the_retained_log_reads_the_whole_table(session):
    for n in range(RETAIN + 5):
        session.play({"type": "adjust", "id": f"a{n}", "actor": "guard", "track": "damage",
                      "delta": 1}, GM)  # fmt: skip
    out = session.sync()
    assert session.ran[:2] == ["FOLLOW_LOG", "FOLLOW"]  # the log cannot fill the gap
    assert [(c.member, c.code) for c in out if isinstance(c, Close)] == [(session.member, 1013)]
    assert_same(session.follower.table, loaded(session.store, session.tally))


def test_an_event_that_does_not_find_the_table_as_it_left_it_reads_the_whole_table(session):
    """The follower's table differs from the stored one (it cannot, but if it did):
    the event that finds an actor not as it left it is not applied, nothing is, and
    the whole table is read instead; the member still gets each event once."""
    session.play({"type": "adjust", "id": "a0", "actor": "ana", "track": "damage",
                  "delta": 1}, GM)  # fmt: skip
    session.sync()
    record = session.follower.table.actors["guard"]
    wrong = {**record.state, "damage": 5}
    session.follower.table.actors["guard"] = type(record)(
        record.id, record.name, record.sheet, wrong, record.controllers
    )
    session.play({"type": "adjust", "id": "a1", "actor": "ana", "track": "damage",
                  "delta": 1}, GM)  # fmt: skip
    session.play({"type": "adjust", "id": "a2", "actor": "guard", "track": "damage",
                  "delta": 1}, GM)  # fmt: skip
    del session.ran[:]
    session.sync()
    assert session.ran == ["FOLLOW_LOG", "FOLLOW"]
    session.check()


def test_a_stack_or_a_pending_request_not_as_it_was_left_reads_the_whole_table(session):
    session.play({"type": "settings", "id": "s0", "settings": {"approval": True}}, GM)
    pending = session.play({"type": "roll", "id": "r0", "formula": "1d6"}, ALICE)
    assert pending is not None and pending["status"] == "pending"
    session.sync()
    session.follower.table.pending = {}  # as if it had missed the request
    session.play({"type": "approve", "id": "ok", "request": pending["pending"]}, GM)
    del session.ran[:]
    session.sync()
    assert session.ran == ["FOLLOW_LOG", "FOLLOW"]
    session.check()
    session.follower.table.undo_stack = session.follower.table.undo_stack[:-1]
    session.play({"type": "undo", "id": "u0"}, GM)
    del session.ran[:]
    session.sync()
    assert session.ran == ["FOLLOW_LOG", "FOLLOW"]
    session.check()


def test_an_event_of_a_kind_it_does_not_apply_reads_the_whole_table(session, monkeypatch):
    monkeypatch.setattr(follow, "APPLIED_KINDS", follow.APPLIED_KINDS - {"adjusted"})
    session.play({"type": "roll", "id": "r0", "formula": "1d6"}, GM)
    session.play({"type": "adjust", "id": "a0", "actor": "ana", "track": "damage",
                  "delta": 1}, GM)  # fmt: skip
    session.sync()
    assert session.ran == ["FOLLOW_LOG", "FOLLOW"]  # in the same read, no second notice
    session.check()


def test_another_epoch_reads_the_whole_table(session, monkeypatch):
    """A log of another epoch (the table restored or moved meanwhile) is not applied."""
    session.play({"type": "roll", "id": "r0", "formula": "1d6"}, GM)
    real = session.other.follow_log

    def other_epoch(table_id: str, after: int) -> LogTail:
        return real(table_id, after)._replace(epoch=session.table.info.epoch + 1)

    monkeypatch.setattr(session.other, "follow_log", other_epoch)
    sync = Sync.of(session.follower, session.follower.durable_seq, tail=True)
    assert not isinstance(sync.run(session.other), LogTail)


def test_follow_log_reads_the_log_after_a_seq_and_where_it_starts(session):
    for n in range(RETAIN + 3):
        session.play({"type": "roll", "id": f"r{n}", "formula": "1d6"}, GM)
    store, latest = session.other, session.table.info.seq
    tail = store.follow_log("t", latest - 4)
    assert (tail.epoch, tail.seq) == (1, latest)
    assert tail.kept_from == latest - RETAIN + 1  # the log's first seq
    assert [e.seq for e in tail.events] == list(range(latest - 3, latest + 1))
    assert [e.packed() for e in tail.events] == [e.packed() for e in
                                                 store.events_after("t", latest - 4)]  # fmt: skip
    assert store.follow_log("t", latest).events == []
    assert store.follow_log("t", latest - RETAIN - 1).events is None  # left the log
    log = store.keys.table("t").log
    store.client.zremrangebyscore(log, "-inf", latest - 10)  # a shorter log
    assert store.follow_log("t", latest).kept_from == latest - 9
