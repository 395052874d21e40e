"""A GM welcomed while a change is still being written gets no ``undo_redo``
(docs/protocol.md). It would be as of the table's latest seq, the change
included; if that write then failed, the table would be loaded again without
it and the next request's event would take the same seq: the page's tracker
(adapters/client/undo.mjs), counting every event up to ``undo_redo.seq`` as in
its stacks already, would skip that event and name a change that never happened
(review of 460085a). Without it the page knows nothing and names nothing until
events say more."""

from __future__ import annotations

import json
import shutil
import subprocess

from rollbridge.exceptions import StoreError
from rollbridge.offline import TableService
from rollbridge.protocol.effects import Persist
from rollbridge.stores.memory import MemoryStore
from tests.conftest import ALICE, GM
from tests.server.test_undo_tracker_wire import TRACKER

SEE = """
import { UndoTracker } from %s;
let input = "";
for await (const chunk of process.stdin) input += chunk;
const { welcome, events } = JSON.parse(input);
const tracker = new UndoTracker();
tracker.reset(welcome);
for (const event of events) tracker.see(event);
console.log(JSON.stringify({ undo: tracker.undo, redo: tracker.redo, known: tracker.known }));
"""


def test_a_welcome_during_a_write_names_no_change_that_may_fail(tally):
    from rollbridge.testing import host_with

    service = TableService(MemoryStore(), host_with(tally))
    service.create_table("t", "tally", table_id="t")
    service.handle("t", {"type": "actor.create", "id": "c",
                         "actor": {"id": "g", "name": "G", "sheet": {"hp": 9}}}, GM)  # fmt: skip
    protocol = service.protocol("t")
    effects = protocol.receive(
        {"type": "adjust", "id": "a", "actor": "g", "track": "damage", "delta": 1}, GM
    )
    persist = next(e for e in effects if isinstance(e, Persist))
    welcome = protocol.welcome_fields(GM)  # a GM's page joins now
    assert welcome["seq"] == 1 and "undo_redo" not in welcome["table"]
    assert welcome["table"]["can_undo"] is True
    service._carry(persist.fail(StoreError("disk full")), [])  # the write fails: reloaded
    assert protocol.table.info.seq == 1
    roll = service.handle("t", {"type": "roll", "id": "r", "formula": "1d6"}, GM)
    assert roll["seq"] == 2  # the same seq as the change that never was
    server = service.handle("t", {"type": "state", "id": "s"}, GM)["table"]["undo_redo"]
    assert server["undo"] == [1]

    events = [protocol.table.view_event(e, gm=True) for e in service.store.events_after("t", 1)]
    run = subprocess.run(
        [shutil.which("node"), "--input-type=module", "-e", SEE % json.dumps(TRACKER.as_uri())],
        input=json.dumps({"welcome": welcome["table"].get("undo_redo"), "events": events}),
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    page = json.loads(run.stdout)
    # the page's Undo would read "Undo #2" (the failed adjust); it says plain "Undo",
    # which takes the server's latest (#1)
    assert page == {"undo": [], "redo": [], "known": False}, (page, server)

    # once nothing is being written, a GM's welcome has the stacks again
    again = protocol.welcome_fields(GM)["table"]["undo_redo"]
    assert again["undo"] == server["undo"] and again["seq"] == 2


def test_a_welcome_during_a_write_lists_the_requests_waiting_as_of_its_seq(tally):
    """The same for ``pending`` (the requests waiting for the GM's approval): a
    player's request held for approval, still being written, was listed in a GM's
    welcome; its write failed and the GM's page kept a request the table never had
    (an approve of it: unknown). Listed as of the welcome's seq, the event that
    follows it brings the request (``approval.requested``) — or, failed, nothing."""
    from rollbridge.testing import host_with

    service = TableService(MemoryStore(), host_with(tally))
    service.create_table("t", "tally", table_id="t", settings={"approval": True})
    protocol = service.protocol("t")
    effects = protocol.receive({"type": "roll", "id": "p", "formula": "1d6"}, ALICE)
    persist = next(e for e in effects if isinstance(e, Persist))
    assert list(protocol.table.pending)  # held, being written
    welcome = protocol.welcome_fields(GM)["table"]
    assert welcome["pending"] == []  # as of seq 0: the request comes with its event
    (event,) = persist.commit.events  # what the GM is sent once it is written
    shown = protocol.table.view_event(event, gm=True)
    assert shown["kind"] == "approval.requested"
    assert [shown["data"]["pending"]] == list(protocol.table.pending)
    service._carry(persist.fail(StoreError("disk full")), [])  # the write fails: reloaded
    assert protocol.table.pending == {} and welcome["pending"] == []

    # the GM's approval being written: the request is still listed, its event drops it
    held = service.handle("t", {"type": "roll", "id": "q", "formula": "1d6"}, ALICE)
    effects = protocol.receive({"type": "approve", "id": "a", "request": held["pending"]}, GM)
    persist = next(e for e in effects if isinstance(e, Persist))
    listed = protocol.welcome_fields(GM)["table"]["pending"]
    assert [p["pending"] for p in listed] == [held["pending"]]
    service._carry(persist.fail(StoreError("disk full")), [])
    assert list(protocol.table.pending) == [held["pending"]]  # as the welcome said
