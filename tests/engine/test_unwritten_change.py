"""A bug after the engine applied a change to the table in memory and before its
commit was handed to the driver (an exception that is no rollbridge error, injected
here in the idempotency keys' bookkeeping): the change is never written, so the
table in memory is ahead of the store. It is answered ``internal`` and the table is
loaded again — once the commits still out have come back — before anything else
runs; before (found by review), the table went on from the unwritten change: the
next change took the seq after it, and memory and store no longer agreed. Sans-I/O:
the test is the driver."""

from __future__ import annotations

import logging

import pytest

from rollbridge.protocol.effects import LoadTable, Persist, Read
from rollbridge.protocol.keys import KeySet
from rollbridge.protocol.table import TableProtocol
from rollbridge.testing import host_with
from tests.conftest import GM
from tests.engine.test_reload_after_failed_commit import answers, carry, one, opened, roll
from tests.server.cluster_driver import assert_same
from tests.server.test_server_unexpected import Once


@pytest.fixture
def bug(monkeypatch):
    """``KeySet.add`` raises once (a bug after the engine applied the change)."""
    return Once(monkeypatch, KeySet, "add")


def test_a_bug_after_a_change_was_applied_answers_internal_and_reloads(service, tally, bug, caplog):
    store = service.store
    protocol = opened(service, tally)
    caplog.set_level(logging.INFO)
    out = carry(store, protocol.receive(roll("x"), GM, "x"))
    assert answers(out)["x"]["code"] == "internal" and bug.raised == 1
    errors = [r for r in caplog.records if r.levelno == logging.ERROR and r.exc_info]
    assert len(errors) == 1 and str(errors[0].exc_info[1]) == "injected"
    assert store.events_after("t", 0) == []
    assert protocol.table.info.seq == 0 and protocol.durable_seq == 0  # loaded again
    assert not protocol.broken and not protocol._holding and protocol.idle
    out = carry(store, protocol.receive(roll("y"), GM, "y"))
    assert answers(out)["y"]["seq"] == 1  # not 2: x was never made
    assert [e.seq for e in store.events_after("t", 0)] == [1]
    again = TableProtocol.open(LoadTable(table_id="t").run(store), host_with(tally).rulesets)
    assert_same(protocol.table, again.table)
    out = carry(store, protocol.receive(roll("x"), GM, "x"))  # sent again: it runs now
    assert answers(out)["x"]["seq"] == 2


def test_the_reload_waits_for_the_commits_still_out(service, tally, bug):
    """A change's commit is out when the next change meets the bug: the table is
    loaded again only once that commit has come back (a load before it is written
    would miss it), and the requests sent meanwhile wait for the load."""
    store = service.store
    protocol = opened(service, tally)
    bug.raised = 1  # not on c1's bookkeeping
    persist = one(protocol.receive(roll("c1"), GM, "c1"), Persist)
    bug.raised = 0
    out = protocol.receive(roll("x"), GM, "x")
    assert answers(out)["x"]["code"] == "internal"
    assert not [e for e in out if isinstance(e, Read)]  # no load before c1 is written
    assert protocol.receive(roll("y"), GM, "y") == []  # held
    store.commit(persist.table_id, persist.commit)
    out = carry(store, persist.resume(None))
    got = answers(out)
    assert got["c1"]["seq"] == 1 and got["y"]["seq"] == 2
    assert [e.seq for e in store.events_after("t", 0)] == [1, 2]
    again = TableProtocol.open(LoadTable(table_id="t").run(store), host_with(tally).rulesets)
    assert_same(protocol.table, again.table)
    assert protocol.idle


def test_a_refusal_that_cannot_be_rendered_still_answers_and_lets_go(
    service, tally, monkeypatch, caplog
):
    """A bug after a read (here: after a repeat's stored reply was looked up) is
    answered ``internal``; rendering that refusal raises too (a second bug): the
    request is answered all the same, ``internal`` in plain English, and the read's
    hold is let go — the request held behind it runs. Before (found by review), the
    exception left the protocol: the request was never answered and every later
    request of the table was held for good."""
    import rollbridge.protocol.table as module

    store = service.store
    protocol = opened(service, tally, "r1")  # r1's reply is looked up first
    caplog.set_level(logging.INFO)
    find = one(protocol.receive(roll("r1"), GM, "r1"), Read)
    assert protocol.receive(roll("r2"), GM, "r2") == []  # held behind the lookup
    first = Once(monkeypatch, TableProtocol, "_repeat_or_execute")
    second = Once(monkeypatch, module, "error_message")
    out = carry(store, find.resume(find.run(store)))
    got = answers(out)
    assert got["r1"]["code"] == "internal" and got["r1"]["id"] == "r1"
    assert got["r1"]["message"] == "the server failed; try again"
    assert got["r2"]["seq"] == 1
    assert first.raised == 1 and second.raised == 1
    errors = [r for r in caplog.records if r.levelno == logging.ERROR and r.exc_info]
    assert len(errors) == 2  # each bug's traceback, once
    assert not protocol._holding and not protocol._held and protocol.idle


def test_a_bug_while_the_engine_applies_a_change_reloads_the_table(service, tally, monkeypatch):
    """The engine raises while it applies a staged change (a bug: the table may be
    changed in part — here its seq and undo stack moved): answered ``internal`` and
    loaded again. Before (found by review), the table went on as the bug left it:
    the next change took the seq after the unwritten one."""
    from rollbridge.engine.table import Table

    store = service.store
    protocol = opened(service, tally)
    bug = Once(monkeypatch, Table, "_keep_recent_history")
    out = carry(store, protocol.receive(roll("x"), GM, "x"))
    assert answers(out)["x"]["code"] == "internal" and bug.raised == 1
    assert protocol.table.info.seq == 0 and protocol.table.undo_stack == []
    out = carry(store, protocol.receive(roll("y"), GM, "y"))
    assert answers(out)["y"]["seq"] == 1
    again = TableProtocol.open(LoadTable(table_id="t").run(store), host_with(tally).rulesets)
    assert_same(protocol.table, again.table)


def test_a_member_joining_while_the_table_waits_for_its_reload_is_welcomed(service, tally, bug):
    """A change never written (a bug after the engine applied it), a commit still out:
    a ``hello`` meanwhile is welcomed with the table at the last durable seq — the
    view walks back over the events being written and the unwritten one, as after a
    failed commit. Before (found by review), the unwritten change's events were
    dropped from those the view walks back through: the view at the durable seq
    could not be made (its events missing), and the ``hello`` was refused."""
    import json

    from rollbridge.engine.model import Principal
    from rollbridge.protocol.effects import Reply
    from rollbridge.protocol.members import Member

    store = service.store
    protocol = opened(service, tally)
    bug.raised = 1  # not on c1's bookkeeping
    persist = one(protocol.receive(roll("c1"), GM, "c1"), Persist)
    bug.raised = 0
    assert answers(protocol.receive(roll("x"), GM, "x"))["x"]["code"] == "internal"
    for who in (GM, Principal("player", "alice", "tok-alice")):
        member = Member(who, kind="json", origin=who.role, hello_id="h")
        (welcomed,) = protocol.join(member, None)
        assert not isinstance(welcomed, Reply), welcomed.message
        ((to, frame),) = welcomed.frames
        message = json.loads(frame)
        assert to is member and message["type"] == "welcome" and message["seq"] == 0
    store.commit(persist.table_id, persist.commit)
    carry(store, persist.resume(None))
    assert not protocol.broken and protocol.durable_seq == 1 and protocol.idle is False


def test_a_member_joining_after_a_bug_applying_a_change_is_welcomed(service, tally, monkeypatch):
    """As above, the bug while the engine applied the change (:class:`ApplyFailed`,
    after the table's seq moved): a ``hello`` before the reload is back is welcomed
    at the last durable seq, the view walking back over the change's events."""
    import json

    from rollbridge.engine.table import Table
    from rollbridge.protocol.effects import Reply
    from rollbridge.protocol.members import Member

    store = service.store
    protocol = opened(service, tally)
    Once(monkeypatch, Table, "_keep_recent_history")
    out = protocol.receive(roll("x"), GM, "x")
    assert answers(out)["x"]["code"] == "internal" and protocol.table.info.seq == 1
    member = Member(GM, kind="json", origin="gm", hello_id="h")
    (welcomed,) = protocol.join(member, None)
    assert not isinstance(welcomed, Reply), welcomed.message
    assert json.loads(welcomed.frames[0][1])["seq"] == 0
    carry(store, [e for e in out if isinstance(e, Read)])
    assert not protocol.broken and protocol.table.info.seq == 0
