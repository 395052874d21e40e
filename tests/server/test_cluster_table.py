"""The cluster's table protocol, sans-I/O (issue 13, item 2): a follower delivers the
stored log's events once each, in order; forwards changes; parks a forwarded result
until its event; closes its members when the log cannot fill a gap; a takeover
executes after catching up. Driven synchronously on a memory store, no process."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rollbridge.engine.model import Principal
from rollbridge.exceptions import StoreError
from rollbridge.protocol.effects import (
    Close,
    Deliver,
    Effect,
    LoadTable,
    Persist,
    Read,
    ReadEvents,
)
from rollbridge.protocol.members import Member
from rollbridge.server.cluster_table import ClusterTable, Forward, Ownership
from rollbridge.stores.memory import MemoryStore
from tests.conftest import GM
from tests.server.cluster_driver import Driver, sent

ROLL = {"type": "roll", "formula": "1d6"}


def follower(service: Any, owned: bool = False) -> tuple[ClusterTable, Member, Driver]:
    """The table ``t`` opened again from the service's store as a cluster table, with
    one joined GM member."""
    store = service.store
    ownership = Ownership()
    if owned:
        ownership.take("t")
    table = ClusterTable.open(LoadTable(table_id="t").run(store), service.host.rulesets,
                              ownership=ownership)  # fmt: skip
    member = Member(Principal("gm", "gm", "tok-gm2"), kind="json", origin="m")
    driver = Driver(store)
    driver.carry(table.join(member, None))
    return table, member, driver


class CommitsHeld:
    """Carries a table's reads out at once on ``store`` and holds its commits
    (:attr:`in_flight`, for the test to write and resume); counts the reads."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.in_flight: list[Persist] = []
        self.reads = 0

    def carry(self, effects: list[Effect]) -> list[Effect]:
        pending, done = list(effects), []
        while pending:
            effect = pending.pop(0)
            if isinstance(effect, Read):
                self.reads += 1
                pending[:0] = effect.resume(effect.run(self.store))
            elif isinstance(effect, Persist):
                self.in_flight.append(effect)
            else:
                done.append(effect)
        return done


def test_a_follower_sends_each_stored_event_once_in_order(service):
    table, member, driver = follower(service)
    for i in range(3):  # the owner (another process) commits
        service.handle("t", {**ROLL, "id": f"r{i}"}, GM)
    out = driver.carry(table.notified(1, 3))
    assert sent(out, member) == [("event", 1), ("event", 2), ("event", 3)]
    assert driver.carry(table.notified(1, 3)) == []  # the same notice again: nothing
    assert driver.carry(table.notified(1, 2)) == []  # an older one: nothing
    service.handle("t", {**ROLL, "id": "r3"}, GM)
    out = driver.carry(table.resync())  # a lost subscription: read what is stored
    assert sent(out, member) == [("event", 4)]
    assert table.durable_seq == 4 and table.table.info.seq == 4


def test_a_gap_the_log_cannot_fill_closes_the_members(tally):
    from rollbridge.offline import TableService
    from tests.conftest import host_with

    service = TableService(MemoryStore(retain=2), host_with(tally))
    service.create_table("T", "tally", table_id="t")
    table, member, driver = follower(service)
    for i in range(5):
        service.handle("t", {**ROLL, "id": f"r{i}"}, GM)
    out = driver.carry(table.notified(1, 5))
    closes = [e for e in out if isinstance(e, Close)]
    assert [(c.member, c.code) for c in closes] == [(member, 1013)]  # it resumes elsewhere
    assert not [e for e in out if isinstance(e, Deliver)]  # never events with a hole
    assert member.gone and table.durable_seq == 5


def test_a_change_on_a_follower_is_forwarded_and_its_result_waits_for_its_event(service):
    table, member, driver = follower(service)
    out = driver.carry(table.receive({**ROLL, "id": "x"}, GM, "m", member=member))
    (forward,) = out
    assert isinstance(forward, Forward) and forward.message["id"] == "x"
    assert forward.principal == GM and service.store.events_after("t", 0) == []
    # the owner executes it (here: the service) and answers with seq 1
    answer = {"type": "result", "id": "x", **service.handle("t", {**ROLL, "id": "x"}, GM)}
    out = driver.carry(forward.table.forwarded(forward, answer))
    assert sent(out, member) == [("event", 1), ("result", "x")]  # event first, as at the owner


def test_a_change_out_to_the_owner_keeps_the_table_here_after_its_sender_left(service):
    """A follower forwards a change and its client leaves before the answer: the
    table was idle (no member, not owned) and its driver could drop it, so a
    take-over then ran on a copy out of the registry while the next client loaded
    another (found by review). A forward out keeps it; the answer frees it."""
    table, member, driver = follower(service)
    (forward,) = driver.carry(table.receive({**ROLL, "id": "x"}, GM, "m", member=member))
    table.leave(member)
    assert not table.idle and table.used  # answered or taken over here, not dropped
    answer = {"type": "result", "id": "x", **service.handle("t", {**ROLL, "id": "x"}, GM)}
    driver.carry(table.forwarded(forward, answer))  # its event read (a sync), then idle
    assert table.idle and not table.used
    (again,) = driver.carry(table.receive({**ROLL, "id": "y"}, GM, "m"))
    table.refuse_forward(again, StoreError("no owner answered"))
    assert table.idle


def test_a_resume_read_out_when_a_follower_moves_to_a_new_epoch_is_stale(service):
    """A follower takes the stored table at a new epoch (a Redis fence: the old
    history's last commits may be lost and its seqs made again) while a resume's read
    of the log is out: that read may hold the old history's events at those seqs,
    which must not be walked through or sent. It is stale, as after a reload: the
    resume is welcomed with the table as it is (found by review)."""
    for n in range(2):
        service.handle("t", {**ROLL, "id": f"r{n}"}, GM)
    table, _, driver = follower(service)
    epoch = table.table.info.epoch
    bob = Member(Principal("player", "bob", "tok-bob"), kind="json", origin="b")
    (read,) = [e for e in table.join(bob, {"epoch": epoch, "seq": 0}) if isinstance(e, Read)]
    assert isinstance(read, ReadEvents)
    stored = read.run(service.store)  # the old history's events 1 and 2
    snapshot, history, keys = LoadTable(table_id="t").run(service.store)
    snapshot.info.epoch = epoch + 1  # fenced: the stored table is at a new epoch
    driver.carry(table.follow(((snapshot, history, keys, None), [])))
    out = driver.carry(read.resume(stored))
    frames = [json.loads(f) for e in out if isinstance(e, Deliver) for to, f in e.frames
              if to is bob]  # fmt: skip
    (welcome,) = [f for f in frames if f["type"] == "welcome"]
    assert welcome["resume"]["recovered"] is False
    assert [f for f in frames if f["type"] == "event"] == []


def test_a_takeover_catches_up_then_executes(service):
    table, member, driver = follower(service)
    service.handle("t", {**ROLL, "id": "r0"}, GM)  # the old owner's last change
    (forward,) = driver.carry(table.receive({**ROLL, "id": "x"}, GM, "m", member=member))
    table.ownership.take("t")  # the lease was free: this process took it
    out = driver.carry(table.take_over(forward))
    assert sent(out, member) == [("event", 1), ("event", 2), ("result", "x")]
    assert [e.seq for e in service.store.events_after("t", 0)] == [1, 2]


def test_a_second_forward_that_finds_the_lease_already_here_runs_without_a_reload(service):
    """Two changes raced for a free lease: the first took it over (reloaded, executed,
    its commit in flight); the second, finding the lease already this process's, runs
    on the table as it is here. Loading it again would miss the commit in flight and
    give the second change the same seq: a refused commit, store_error for the client
    (found by benchmarks/bench_cluster.py on one `serve --redis` process)."""
    table, member, driver = follower(service)
    (a,) = driver.carry(table.receive({**ROLL, "id": "a"}, GM, "m", member=member))
    (b,) = driver.carry(table.receive({**ROLL, "id": "b"}, GM, "m", member=member))
    table.ownership.take("t")
    held = CommitsHeld(service.store)
    carry, in_flight = held.carry, held.in_flight
    out = carry(table.take_over(a))
    assert held.reads == 1 and len(in_flight) == 1  # reloaded once; a's commit in flight
    b.reload = False  # what the driver says when the lease is already this process's
    out += carry(table.take_over(b))
    assert held.reads == 1  # not loaded again
    while in_flight:
        persist = in_flight.pop(0)
        service.store.commit(persist.table_id, persist.commit)
        out += carry(persist.resume(None))
    assert sent(out, member) == [("event", 1), ("result", "a"), ("event", 2), ("result", "b")]
    assert [e.seq for e in service.store.events_after("t", 0)] == [1, 2]


def test_a_resync_asked_while_a_sync_runs_syncs_again_after_it(service):
    """A lost lease syncs the table, and so does the subscription made again right
    after: when the first sync read the store before the new owner's next commit, the
    second (asked while the first ran) must still run, or that commit waits for the
    next notice or poll."""
    table, member, driver = follower(service)
    service.handle("t", {**ROLL, "id": "r0"}, GM)
    (running,) = table.resync()  # the lease was lost: sync
    result = running.run(service.store)  # it reads seq 1 ...
    service.handle("t", {**ROLL, "id": "r1"}, GM)  # ... then the new owner commits seq 2
    assert table.resync() == []  # subscribed again: a sync runs, this one comes after it
    out = driver.carry(running.resume(result))
    assert sent(out, member) == [("event", 1), ("event", 2)]
    assert table.durable_seq == 2 and not table.syncing and not table.again
    assert driver.carry(table.resync()) == []  # nothing more stored: nothing sent


def test_ownership_changes_only_through_its_methods_each_a_new_version():
    ownership = Ownership()
    before = ownership.version
    assert ownership.take("t") and ownership.owns("t") and ownership.version == before + 1
    assert not ownership.take("t") and ownership.version == before + 1  # no change
    seen = ownership.owned
    assert ownership.take("u") and ownership.owned == {"t", "u"} and seen == {"t"}
    assert ownership.drop("t") and not ownership.drop("t") and ownership.owned == {"u"}
    ownership.clear()
    assert ownership.owned == frozenset() and ownership.version == before + 4
    assert not hasattr(ownership.owned, "add")  # read-only: nothing changes it unseen


def test_a_followed_table_keeps_the_drivers_clock_for_what_it_makes_later(service):
    """A follower replaces its table with the stored one at each sync; the new table
    keeps the driver's clock, so an event it makes after taking the table over
    carries its time (``at``) as the owner's would."""
    store = service.store
    ownership = Ownership()
    table = ClusterTable.open(LoadTable(table_id="t").run(store), service.host.rulesets,
                              ownership=ownership, clock=lambda: 1_800_000_000.0)  # fmt: skip
    driver = Driver(store)
    service.handle("t", {**ROLL, "id": "r0"}, GM)  # the owner (another process) commits
    driver.carry(table.notified(1, 1))
    assert table.table.info.seq == 1
    assert table.table.clock is table.clock
    ownership.take("t")  # taken over: this process executes now
    member = Member(Principal("gm", "gm", "tok-gm2"), kind="json", origin="m")
    driver.carry(table.join(member, None))
    driver.carry(table.receive({**ROLL, "id": "r1"}, member.principal, member))
    (event,) = store.events_after("t", 1)
    assert event.at == 1_800_000_000.0


def test_a_broken_table_tries_its_reload_again_with_a_growing_pause(service):
    """A takeover whose reload fails leaves the table broken: :meth:`ClusterTable.tick`
    loads it again ``first`` seconds after the first tick that sees it so, the pause
    doubling after each failure up to ``most``, while a member is there; with nobody
    waiting it stops trying (and the table is unused: its lease goes). A reload that
    works ends it, and sends the member what was stored meanwhile. No sync is made
    of it while it is broken. (The clock is the driver's: here, numbers.)"""
    table, member, driver = follower(service)
    (forward,) = driver.carry(table.receive({**ROLL, "id": "x"}, GM, "m", member=member))
    table.ownership.take("t")

    def fails(effects: list[Effect]) -> None:
        (read,) = [e for e in effects if isinstance(e, Read)]
        driver.carry(read.fail(StoreError("injected")))

    fails(table.take_over(forward))
    assert table.broken and table.failures == 1
    # the stored table moves on: no sync of it while broken (each poll made one, which
    # read the table and dropped it — ``follow`` ignores a broken table); the reload
    # reads it all
    service.handle("t", {**ROLL, "id": "elsewhere"}, GM)
    assert table.notified(table.table.info.epoch, 1) == [] and not table.syncing
    tried = []
    for now in [x / 10 for x in range(0, 200)]:  # 20 s of ticks, 0.1 s apart
        effects = table.tick(now, patience=3600.0, first=1.0, most=4.0)
        if effects:
            tried.append(now)
            fails(effects)
    # first after 1 s, then 2 s, then 4 s, and never more than 4 s — each pause from
    # the tick after the failure (a tick apart here)
    assert tried == pytest.approx([1.0, 3.1, 7.2, 11.3, 15.4, 19.5]), tried
    assert table.failures == 7 and table.used
    table.leave(member)
    assert table.tick(30.0, patience=3600.0) == [] and table.tick(99.0, patience=3600.0) == []
    assert not table.used  # nothing waits: its lease is given up
    again = Member(Principal("gm", "gm", "tok-gm2"), kind="json", origin="m2")
    driver.carry(table.join(again, None))
    assert table.members
    assert table.tick(100.0, patience=3600.0, first=1.0, most=4.0) == []  # a member again
    out = driver.carry(table.tick(104.0, patience=3600.0, first=1.0, most=4.0))  # it works
    assert not table.broken and table.failures == 0 and table.retry_at is None
    assert sent(out, again) == [("event", 1)] and table.durable_seq == 1


def test_a_parked_reply_waits_a_bounded_time_then_is_refused(service):
    """A forwarded change's answer names an event this process cannot read: the
    requester is told ``store_error`` once ``patience`` has passed since the first
    tick that saw it parked — not before, and not never; a parked reply of a member
    that leaves goes with it."""
    table, member, driver = follower(service)
    (forward,) = driver.carry(table.receive({**ROLL, "id": "x"}, GM, "m", member=member))
    answer = {"type": "result", "id": "x", **service.handle("t", {**ROLL, "id": "x"}, GM)}
    (sync,) = table.forwarded(forward, answer)  # parked; its sync fails
    assert len(table.parked) == 1 and isinstance(sync, Read)
    assert sync.fail(StoreError("injected")) == []
    assert table.tick(10.0, patience=5.0) == []
    assert table.tick(14.9, patience=5.0) == []
    (refused,) = table.tick(15.0, patience=5.0)
    assert refused.error is not None and refused.error.code == "store_error"
    assert refused.error.details == {"reason": "not_synced", "table": "t", "seq": 1}
    assert sent([refused], member) == [("error", "x")] and table.parked == []
    # another, whose member leaves: nothing is kept for it
    (forward,) = driver.carry(table.receive({**ROLL, "id": "y"}, GM, "m", member=member))
    answer = {"type": "result", "id": "y", **service.handle("t", {**ROLL, "id": "y"}, GM)}
    (sync,) = table.forwarded(forward, answer)
    sync.fail(StoreError("injected"))
    assert table.parked
    table.leave(member)
    assert table.parked == [] and not table.used


def test_a_catch_up_that_raises_after_a_reload_is_a_failed_reload_tried_again(
    service, monkeypatch, caplog
):
    """A bug in the catch-up that follows a reload that worked (the events stored
    meanwhile sent to the members) is a failed reload: the request the reload held is
    answered ``internal`` (the traceback logged once), the table is left as it was
    before — broken, its members' last seqs unmoved — and not held for good: the next
    tick loads it again, which sends the member what it missed, and it runs changes."""
    import logging

    table, member, driver = follower(service)
    service.handle("t", {**ROLL, "id": "r0"}, GM)  # the old owner's last change
    (forward,) = driver.carry(table.receive({**ROLL, "id": "x"}, GM, "m", member=member))
    table.ownership.take("t")
    catch_up = ClusterTable._catch_up
    raised = []

    def failing(self: ClusterTable, *args: Any) -> list[Effect]:
        if not raised:
            raised.append(1)
            raise RuntimeError("injected")
        return catch_up(self, *args)

    monkeypatch.setattr(ClusterTable, "_catch_up", failing)
    caplog.set_level(logging.INFO)
    out = driver.carry(table.take_over(forward))
    assert sent(out, member) == [("error", "x")]
    (refused,) = [json.loads(e.frame) for e in out if getattr(e, "frame", None)]
    assert refused["code"] == "internal"
    errors = [r for r in caplog.records if r.levelno == logging.ERROR and r.exc_info]
    assert len(errors) == 1 and str(errors[0].exc_info[1]) == "injected"
    assert table.broken and table.failures == 1 and not table.reloading
    assert table.durable_seq == 0 and member.last_seq == 0 and table.table.info.seq == 0
    assert table._holding == 0 and not table._held
    assert table.tick(0.0, patience=3600.0, first=1.0, most=4.0) == []
    out = driver.carry(table.tick(1.0, patience=3600.0, first=1.0, most=4.0))
    assert not table.broken and table.failures == 0
    assert sent(out, member) == [("event", 1)]
    out = driver.carry(table.receive({**ROLL, "id": "x"}, GM, "m", member=member))
    assert sent(out, member) == [("event", 2), ("result", "x")]


def test_a_bug_following_the_table_before_a_resume_answers_the_hello_internal(
    service, monkeypatch, caplog
):
    """A resume from a seq this follower has not reached syncs first; following the
    stored table then raises (a bug): the ``hello`` is answered ``internal`` (before,
    the exception left the sync's callback and the hello was never answered), and the
    next resume, the bug gone, is welcomed with what it missed."""
    import logging

    table, _member, driver = follower(service)
    for n in range(2):  # the owner (another process) commits
        service.handle("t", {**ROLL, "id": f"r{n}"}, GM)
    follow = ClusterTable.follow
    raised: list[int] = []

    def failing(self: ClusterTable, result: Any) -> list[Effect]:
        if not raised:
            raised.append(1)
            raise RuntimeError("injected")
        return follow(self, result)

    monkeypatch.setattr(ClusterTable, "follow", failing)
    caplog.set_level(logging.INFO)
    epoch = table.table.info.epoch
    bob = Member(Principal("player", "bob", "tok-bob"), kind="json", origin="b", hello_id="h1")
    out = driver.carry(table.join(bob, {"epoch": epoch, "seq": 2}))
    (refused,) = [json.loads(e.frame) for e in out if getattr(e, "frame", None)]
    assert refused["id"] == "h1" and refused["code"] == "internal"
    errors = [r for r in caplog.records if r.levelno == logging.ERROR and r.exc_info]
    assert len(errors) == 1 and str(errors[0].exc_info[1]) == "injected"
    assert not table.syncing
    again = Member(Principal("player", "bob", "tok-bob"), kind="json", origin="c", hello_id="h2")
    out = driver.carry(table.join(again, {"epoch": epoch, "seq": 2}))
    assert sent(out, again) == [("welcome", "h2")] and table.durable_seq == 2
    (welcome,) = [json.loads(f) for e in out if isinstance(e, Deliver)
                  for to, f in e.frames if to is again]  # fmt: skip
    assert welcome["resume"] == {"recovered": True, "missed": 0}


@pytest.mark.parametrize("whole", [False, True], ids=["log", "whole table"])
def test_a_bug_sending_the_followed_events_closes_the_members_to_resume(
    service, monkeypatch, caplog, whole
):
    """A follower takes in what the owner stored (the log's events, or the whole
    table) and sending them to its members raises (a bug): the table here has moved
    on, so nothing would send them again. Every member is closed with 1013 and
    resumes; before (found by review), the exception was only logged by the driver
    and the members went on without those events, unaware (the next event came
    after a gap)."""
    import logging

    from rollbridge.engine.table import Table

    table, member, driver = follower(service)
    for n in range(2):  # the owner (another process) commits
        service.handle("t", {**ROLL, "id": f"r{n}"}, GM)
    from tests.server.test_server_unexpected import Once

    bug = Once(monkeypatch, Table, "recall")
    caplog.set_level(logging.INFO)
    effects = table.resync() if not whole else [table._sync(tail=False)]
    out = driver.carry(effects)
    closes = [(e.member, e.code) for e in out if isinstance(e, Close)]
    assert closes == [(member, 1013)] and member.gone and bug.raised == 1
    errors = [r for r in caplog.records if r.levelno == logging.ERROR and r.exc_info]
    assert len(errors) == 1 and str(errors[0].exc_info[1]) == "injected"
    assert table.durable_seq == 2 and not table.syncing
    epoch = table.table.info.epoch
    again = Member(Principal("gm", "gm", "tok-gm2"), kind="json", origin="n", hello_id="h")
    out = driver.carry(table.join(again, {"epoch": epoch, "seq": 0}))
    assert sent(out, again) == [("welcome", "h"), ("event", 1), ("event", 2)]
    service.handle("t", {**ROLL, "id": "r2"}, GM)
    assert sent(driver.carry(table.notified(epoch, 3)), again) == [("event", 3)]


def test_a_takeover_whose_reload_cannot_be_sent_keeps_no_hold(service, monkeypatch, caplog):
    """A takeover's reload raises after the table's hold was taken for it (a bug
    making its read of the stored log): the change is answered ``internal``, and the
    hold goes with the load that never went out. Before (found by review), the hold
    stayed: every later request of the table was held, and the reloads the tick
    made never released them."""
    import logging

    from rollbridge.server.cluster_table import Sync
    from tests.server.test_server_unexpected import Once

    table, member, driver = follower(service)
    service.handle("t", {**ROLL, "id": "r0"}, GM)  # the old owner's last change
    (forward,) = driver.carry(table.receive({**ROLL, "id": "x"}, GM, "m", member=member))
    table.ownership.take("t")
    caplog.set_level(logging.INFO)
    bug = Once(monkeypatch, Sync, "of")
    out = driver.carry(table.take_over(forward))
    (refused,) = [json.loads(e.frame) for e in out if getattr(e, "frame", None)]
    assert refused["id"] == "x" and refused["code"] == "internal" and bug.raised == 1
    assert table._holding == 0 and not table._held and table.broken
    out = driver.carry(table.receive({**ROLL, "id": "y"}, GM, "m", member=member))
    assert sent(out, member) == [("event", 1), ("event", 2), ("result", "y")]
    assert not table.broken and table._holding == 0


def test_a_bug_syncing_for_a_forwarded_answer_answers_it_once(service, monkeypatch, caplog):
    """The owner's answer names an event this follower has not delivered: the reply
    waits for it (parked) while a sync reads it; making that sync raises (a bug).
    The change is answered ``internal``, once: the reply is not parked too (before,
    found by review, it was, and was sent as well — or refused ``store_error`` after
    the wait — a second answer), and the follower still follows (before, its sync was
    marked running for good: no notice ever synced it again)."""
    import logging

    from rollbridge.server.cluster_table import Sync
    from tests.server.test_server_unexpected import Once

    table, member, driver = follower(service)
    (forward,) = driver.carry(table.receive({**ROLL, "id": "x"}, GM, "m", member=member))
    answer = {"type": "result", "id": "x", **service.handle("t", {**ROLL, "id": "x"}, GM)}
    caplog.set_level(logging.INFO)
    bug = Once(monkeypatch, Sync, "of")
    out = driver.carry(table.forwarded(forward, answer))
    assert sent(out, member) == [("error", "x")] and bug.raised == 1
    assert not table.parked and not table.syncing
    out = driver.carry(table.notified(table.table.info.epoch, 1))
    assert sent(out, member) == [("event", 1)]
    out = driver.carry(table.tick(0.0, patience=0.0) + table.tick(1.0, patience=0.0))
    assert sent(out, member) == []


def test_a_refusal_raised_taking_a_table_over_keeps_its_code(service, monkeypatch):
    """A rollbridge error raised while taking the table over answers the change with
    its own code (before, found by review: ``internal``, logged as a bug)."""
    table, member, driver = follower(service)
    (forward,) = driver.carry(table.receive({**ROLL, "id": "x"}, GM, "m", member=member))
    table.ownership.take("t")

    def refusing(self: ClusterTable, forward: Forward) -> list[Effect]:
        raise StoreError("injected refusal")

    monkeypatch.setattr(ClusterTable, "_take_over", refusing)
    out = driver.carry(table.take_over(forward))
    (refused,) = [json.loads(e.frame) for e in out if getattr(e, "frame", None)]
    assert refused["id"] == "x" and refused["code"] == "store_error"
    assert not table._held and table._holding == 0


def test_the_tick_starts_no_reload_while_an_unwritten_change_waits_for_the_commits_out(
    service, monkeypatch, caplog
):
    """The owner meets a bug after the engine applied a change, a commit of the table
    still out (:meth:`TableProtocol._unwritten`): the table is broken, and is loaded
    again once that commit has come back. The poll's ticks meanwhile start no reload
    of their own: before (found by review), a tick saw a broken table with no reload
    running and loaded it — a load made before the commit out is written misses it —
    and the drain's reload then raced it (two loads out, the later answer winning)."""
    import logging

    from rollbridge.protocol.keys import KeySet
    from tests.server.test_server_unexpected import Once

    table, member, driver = follower(service, owned=True)
    caplog.set_level(logging.INFO)
    bug = Once(monkeypatch, KeySet, "add")
    bug.raised = 1  # not on c1's bookkeeping
    (persist,) = table.receive({**ROLL, "id": "c1"}, GM, "m", member=member)
    assert isinstance(persist, Persist)
    bug.raised = 0
    out = driver.carry(table.receive({**ROLL, "id": "x"}, GM, "m", member=member))
    assert sent(out, member) == [("error", "x")] and bug.raised == 1
    assert table.broken
    for now in range(0, 60, 5):  # a minute of polls: no load before c1 is written
        assert table.tick(float(now), patience=3600.0, first=1.0, most=4.0) == []
    assert table.receive({**ROLL, "id": "y"}, GM, "m", member=member) == []  # held
    service.store.commit(persist.table_id, persist.commit)
    out = driver.carry(persist.resume(None))
    assert sent(out, member) == [("event", 1), ("result", "c1"), ("event", 2), ("result", "y")]
    assert [e.seq for e in service.store.events_after("t", 0)] == [1, 2]
    assert not table.broken and table._holding == 0 and not table.reloading


def test_a_takeover_waiting_on_an_unwritten_change_starts_no_reload_of_its_own(
    service, monkeypatch, caplog
):
    """Two changes raced for a free lease: ``a`` took the table over (its commit out),
    ``b`` then met a bug after the engine applied it (the table broken, to be loaded
    once ``a``'s commit is back). A third forward's takeover finds it broken and waits
    for that load: before (found by review), no reload running, it loaded the table
    at once — before ``a`` was written, so the load missed it — beside the one the
    drain makes."""
    import logging

    from rollbridge.protocol.keys import KeySet
    from tests.server.test_server_unexpected import Once

    table, member, driver = follower(service)
    a, b, c = (driver.carry(table.receive({**ROLL, "id": i}, GM, "m", member=member))[0]
               for i in "abc")  # fmt: skip
    table.ownership.take("t")
    held = CommitsHeld(service.store)
    out = held.carry(table.take_over(a))
    (persist,) = held.in_flight  # a's commit out
    caplog.set_level(logging.INFO)
    bug = Once(monkeypatch, KeySet, "add")
    b.reload = c.reload = False  # the lease is this process's already
    out += held.carry(table.take_over(b))
    assert bug.raised == 1 and table.broken
    assert table.take_over(c) == []  # waits for the drain's load: none of its own
    service.store.commit(persist.table_id, persist.commit)
    out += driver.carry(persist.resume(None))
    assert sent(out, member) == [("error", "b"), ("event", 1), ("result", "a"),
                                 ("event", 2), ("result", "c")]  # fmt: skip
    assert [e.seq for e in service.store.events_after("t", 0)] == [1, 2]
    assert not table.broken and table._holding == 0 and not table._held


def test_a_bug_making_the_drains_reload_still_sends_the_commit_that_came_back(
    service, monkeypatch, caplog
):
    """A change never written waits for ``c1``'s commit to load the table again; when
    it comes back, making that reload raises (a second bug). ``c1``'s event is sent
    and ``c1`` answered all the same, ``y`` (held meanwhile) is answered ``internal``,
    and the table, broken still, is loaded by the next request. Before (found by
    review), the exception left the protocol with everything the commit's return
    made: the event was never sent, nor ``c1`` answered."""
    import logging

    from rollbridge.protocol.keys import KeySet
    from rollbridge.server.cluster_table import Sync
    from tests.server.test_server_unexpected import Once

    table, member, driver = follower(service, owned=True)
    caplog.set_level(logging.INFO)
    bug = Once(monkeypatch, KeySet, "add")
    bug.raised = 1  # not on c1's bookkeeping
    (persist,) = table.receive({**ROLL, "id": "c1"}, GM, "m", member=member)
    bug.raised = 0
    out = driver.carry(table.receive({**ROLL, "id": "x"}, GM, "m", member=member))
    assert sent(out, member) == [("error", "x")]
    assert table.receive({**ROLL, "id": "y"}, GM, "m", member=member) == []  # held
    second = Once(monkeypatch, Sync, "of")
    service.store.commit(persist.table_id, persist.commit)
    out = driver.carry(persist.resume(None))
    assert second.raised == 1
    assert sent(out, member) == [("event", 1), ("result", "c1"), ("error", "y")]
    assert table.broken and table._holding == 0 and not table._held
    out = driver.carry(table.receive({**ROLL, "id": "z"}, GM, "m", member=member))
    assert sent(out, member) == [("event", 2), ("result", "z")]
    assert not table.broken and table._holding == 0


def test_a_bug_making_the_reload_after_a_failed_commit_still_answers_its_requester(
    service, monkeypatch, caplog
):
    """The owner's commit fails; making the reload that follows raises (a bug making
    its read of the stored log). The failed commit's requester is told
    ``store_error`` all the same, the hold goes, and the table, broken still, is
    loaded by the next request. Before (found by review), the exception left the
    protocol with the refusal made before it: the requester was never answered."""
    import logging

    from rollbridge.server.cluster_table import Sync
    from tests.server.test_server_unexpected import Once

    table, member, driver = follower(service, owned=True)
    caplog.set_level(logging.INFO)
    (persist,) = table.receive({**ROLL, "id": "c1"}, GM, "m", member=member)
    bug = Once(monkeypatch, Sync, "of")
    out = driver.carry(persist.fail(StoreError("injected")))
    assert bug.raised == 1
    assert sent(out, member) == [("error", "c1")]
    assert json.loads(out[0].frame)["code"] == "store_error"
    assert table.broken and table._holding == 0 and not table.reloading
    out = driver.carry(table.receive({**ROLL, "id": "y"}, GM, "m", member=member))
    assert sent(out, member) == [("event", 1), ("result", "y")]
    assert not table.broken and table._holding == 0


def test_a_bug_taking_in_the_table_read_whole_loads_it_again(service, monkeypatch, caplog):
    """A follower reads the stored table whole, and taking it in raises (a bug, here
    in its reply keys), nothing changed: the table is loaded again, and its member
    is sent the events it missed, once each, in order. Before, the exception escaped
    to the driver: the member went without them until a later notice."""
    import logging

    from rollbridge.server import cluster_table
    from tests.server.test_server_unexpected import Once

    table, member, driver = follower(service)
    for n in range(2):  # the owner (another process) commits
        service.handle("t", {**ROLL, "id": f"r{n}"}, GM)
    bug = Once(monkeypatch, cluster_table, "KeySet")
    caplog.set_level(logging.INFO)
    out = driver.carry([table._sync(tail=False)])
    assert sent(out, member) == [("event", 1), ("event", 2)] and bug.raised == 1
    errors = [r for r in caplog.records if r.levelno == logging.ERROR and r.exc_info]
    assert len(errors) == 1 and str(errors[0].exc_info[1]) == "injected"
    assert table.durable_seq == 2 and not table.broken and not table.reloading
    assert table._holding == 0 and not table.syncing


@pytest.mark.parametrize("role", ["gm", "player"])
def test_a_resume_from_a_seq_the_owner_is_still_writing_waits_for_its_commit(service, role):
    """Found under load (test_cluster.py's hundred resumes): the owner's commit is
    stored, a follower reads it and sends it to a client, and the client resumes on
    the owner before the commit has come back there. The owner is not behind, only
    not yet told: the resume waits for the commit and is recovered. Before, it was
    answered at once with a snapshot at the seq before (``recovered: false``, the
    welcome's seq below the client's), the event then sent again."""
    table, member, _driver = follower(service, owned=True)
    held = CommitsHeld(service.store)
    out = held.carry(table.receive({**ROLL, "id": "a"}, GM, "m", member=member))
    (persist,) = held.in_flight  # seq 1, out on the writer
    service.store.commit(persist.table_id, persist.commit)  # stored: a follower sends it
    token = f"tok-{role}3"
    wanderer = Member(Principal(role, role, token), kind="json", origin="w", hello_id="h")
    assert held.carry(table.join(wanderer, {"epoch": 1, "seq": 1})) == []  # waits
    out += held.carry(persist.resume(None))
    (welcome,) = [json.loads(frame) for effect in out if isinstance(effect, Deliver)
                  for to, frame in effect.frames if to is wanderer]  # fmt: skip
    assert welcome["type"] == "welcome", welcome
    assert (welcome["seq"], welcome["resume"]) == (1, {"recovered": True, "missed": 0})
    assert sent(out, member) == [("event", 1), ("result", "a")]
    assert wanderer in table.members


@pytest.mark.parametrize("role", ["gm", "player"])
def test_a_resume_waiting_for_a_commit_that_fails_waits_for_the_reload(service, role, caplog):
    """The commit the resume waits for is stored, but fails here (the reply lost with
    the connection): the table is loaded again. The resume waits for that load, and
    is recovered at the seq it names. Before (review rev28o), it synced on its own
    beside the load: its sync found the table broken and left it, and — when its
    read came back before the load's, as on the driver's two reader threads — the
    resume was answered at the seq before (``recovered: false``), the event sent
    again after it. The reads are carried here the latest first."""
    table, member, _driver = follower(service, owned=True)
    held = CommitsHeld(service.store)
    out = held.carry(table.receive({**ROLL, "id": "a"}, GM, "m", member=member))
    (persist,) = held.in_flight
    service.store.commit(persist.table_id, persist.commit)  # stored: a follower sends it
    wanderer = Member(Principal(role, role, f"tok-{role}3"), kind="json", origin="w",
                      hello_id="h")  # fmt: skip
    assert held.carry(table.join(wanderer, {"epoch": 1, "seq": 1})) == []  # waits
    effects = persist.fail(StoreError("the connection was lost after the write"))
    reads = [e for e in effects if isinstance(e, Read)]
    out += [e for e in effects if not isinstance(e, Read)]
    out += _carried_latest_first(reads, held, service.store)
    _welcomed_recovered_at_1(out, wanderer)
    assert wanderer in table.members and not table.broken and table.durable_seq == 1
    assert table._after_writes == []


def _carried_latest_first(reads: list, held: Any, store: Any) -> list:
    """The effects of ``reads`` run and carried, the last asked coming back first (the
    server's two reader threads may answer in either order)."""
    out: list = []
    for read in reversed(reads):
        out += held.carry(read.resume(read.run(store)))
    return out


def _welcomed_recovered_at_1(out: list, wanderer: Member) -> None:
    """``wanderer`` was sent one frame: a recovered welcome at seq 1, nothing missed."""
    frames = [json.loads(frame) for effect in out if isinstance(effect, Deliver)
              for to, frame in effect.frames if to is wanderer]  # fmt: skip
    assert [(f["type"], f["seq"], f.get("resume")) for f in frames] == [
        ("welcome", 1, {"recovered": True, "missed": 0})
    ]


def test_a_resume_past_a_follower_being_loaded_again_waits_for_the_load(service):
    """A follower loading its table again (a bug taking in what it followed,
    :meth:`ClusterTable._not_followed`) is resumed on from a seq the owner stored
    since. The resume waits for the load, and is recovered at its seq. Before
    (review rev28o), its own sync found the table broken and left it, and when its
    read came back before the load's the resume was answered with the table before
    the load (``recovered: false``, a welcome behind the client), the event then
    sent again. The reads are carried here the latest first."""
    table, member, _driver = follower(service)
    service.handle("t", {**ROLL, "id": "r0"}, GM)  # the owner (elsewhere) stores seq 1
    effects = table._not_followed()  # loading it again
    wanderer = Member(Principal("player", "player", "tok-player3"), kind="json",
                      origin="w", hello_id="h")  # fmt: skip
    effects += table.join(wanderer, {"epoch": 1, "seq": 1})
    held = CommitsHeld(service.store)
    reads = [e for e in effects if isinstance(e, Read)]
    out = [e for e in effects if not isinstance(e, Read)]
    out += _carried_latest_first(reads, held, service.store)
    _welcomed_recovered_at_1(out, wanderer)
    assert sent(out, member) == [("event", 1)]
    assert wanderer in table.members and not table.broken and table.durable_seq == 1
