"""A table whose commit failed is loaded again before its next request runs
(docs/engine.md, "A failed commit"): every request held meanwhile — behind the
reload, or behind a read that was out when the commit failed — is answered, with
its result once the table is loaded, or ``store_error`` when the load fails too;
none waits for a load that is not running. Sans-I/O: the test is the driver, and
hands each effect its result (or its failure) in the order it chooses."""

from __future__ import annotations

from typing import Any

from rollbridge.exceptions import StoreError
from rollbridge.offline import TableService
from rollbridge.protocol.effects import (
    Effect,
    FindReply,
    LoadTable,
    Persist,
    Read,
    ReadEvents,
    Reopened,
    Reply,
)
from rollbridge.protocol.members import Member
from rollbridge.protocol.table import TableProtocol
from rollbridge.testing import host_with
from tests.conftest import GM

FULL = StoreError("disk full (simulated)")


def roll(request_id: str) -> dict[str, Any]:
    return {"type": "roll", "formula": "1d6", "id": request_id}


def opened(service: TableService, tally: Any, *maybe: str) -> TableProtocol:
    """Table ``t`` as the store holds it; its key filter says "maybe" to the GM's
    request ids ``maybe`` too (a false "maybe", or a reply the store forgot)."""
    snapshot, history, keys = LoadTable(table_id="t").run(service.store)
    keys = [*keys, *(f"{GM.key}/{request_id}" for request_id in maybe)]
    return TableProtocol.open((snapshot, history, keys), host_with(tally).rulesets)


def carry(store: Any, effects: list[Effect]) -> list[Effect]:
    """Carry out every read and commit at once; what is left (replies, …)."""
    out, pending = [], list(effects)
    while pending:
        effect = pending.pop(0)
        if isinstance(effect, Read):
            pending[:0] = effect.resume(effect.run(store))
        elif isinstance(effect, Persist):
            store.commit(effect.table_id, effect.commit)
            pending[:0] = effect.resume(None)
        else:
            out.append(effect)
    return out


def answers(effects: list[Effect]) -> dict[Any, dict[str, Any]]:
    return {e.origin: e.message for e in effects if isinstance(e, Reply)}


def one(effects: list[Effect], kind: type) -> Any:
    [found] = [e for e in effects if isinstance(e, kind)]
    return found


def test_a_request_held_behind_a_read_when_the_reload_failed_loads_the_table_again(service, tally):
    """The case that hung: a change's commit fails while a repeat's stored reply is
    read; the reload fails (the disk still full); ``s1`` comes while the read is out
    and waits behind it. When the read came back, nothing was released (the table
    was broken) and no load was out: ``s1``, and every request after it, waited for
    good. Now the read coming back loads the table again."""
    service.handle("t", roll("r1"), GM)  # seq 1: its reply is in the store
    store = service.store
    protocol = opened(service, tally)
    persist = one(protocol.receive(roll("c1"), GM, "c1"), Persist)
    find = one(protocol.receive(roll("r1"), GM, "r1"), FindReply)
    failed = persist.fail(FULL)
    assert answers(failed)["c1"]["code"] == "store_error"
    assert one(failed, LoadTable).fail(FULL) == []  # nothing was held yet
    assert protocol.receive({"type": "state", "id": "s1"}, GM, "s1") == []  # behind r1
    after = find.resume(find.run(store))
    one(after, LoadTable)  # before: none, and s1 was never answered
    out = answers(carry(store, after))
    assert out["r1"]["seq"] == 1 and out["r1"]["event"]["seq"] == 1  # its first reply
    assert out["s1"]["table"]["seq"] == 1  # c1 never happened
    assert not protocol.broken and protocol.idle
    assert answers(carry(store, protocol.receive(roll("c2"), GM, "c2")))["c2"]["seq"] == 2


def test_when_that_load_fails_too_the_held_requests_are_refused_and_the_next_loads_again(
    service, tally
):
    service.handle("t", roll("r1"), GM)
    store = service.store
    protocol = opened(service, tally)
    persist = one(protocol.receive(roll("c1"), GM, "c1"), Persist)
    find = one(protocol.receive(roll("r1"), GM, "r1"), FindReply)
    one(persist.fail(FULL), LoadTable).fail(FULL)
    protocol.receive({"type": "state", "id": "s1"}, GM, "s1")
    after = find.fail(FULL)  # the read fails too
    assert answers(after)["r1"]["code"] == "store_error"
    refused = one(after, LoadTable).fail(FULL)
    assert answers(refused)["s1"]["code"] == "store_error"
    assert protocol.broken and not protocol._held and protocol.idle  # nothing left waiting
    # the store works again: the next request loads the table, then runs
    out = carry(store, protocol.receive(roll("c2"), GM, "c2"))
    one(out, Reopened)
    assert answers(out)["c2"]["seq"] == 2 and not protocol.broken


def test_a_change_whose_stored_reply_was_sought_while_its_commit_failed_waits_for_the_reload(
    service, tally
):
    """``ghost``'s key filter said "maybe"; while the store was asked, the commit
    before it failed. The store has no reply for it, so it runs — on the table once
    it is loaded again, not on the one still holding the failed commit's event
    (whose seq it took: a commit the writer refuses, built on one never stored),
    and ahead of the request that came after it."""
    store = service.store
    protocol = opened(service, tally, "ghost")
    persist = one(protocol.receive(roll("c1"), GM, "c1"), Persist)
    find = one(protocol.receive(roll("ghost"), GM, "ghost"), FindReply)
    load = one(persist.fail(FULL), LoadTable)
    assert protocol.receive(roll("next"), GM, "next") == []  # behind the reload
    assert find.resume(find.run(store)) == []  # before: a Persist of seq 2, now waits
    reloaded = load.resume(load.run(store))
    one(reloaded, Reopened)
    persists = [e for e in reloaded if isinstance(e, Persist)]  # ghost's first
    assert [(e.request, e.seq) for p in persists for e in p.commit.events] == [
        ("ghost", 1),
        ("next", 2),
    ]
    out = answers(carry(store, persists))
    assert out["ghost"]["seq"] == 1 and out["next"]["seq"] == 2
    assert [e.seq for e in store.events_after("t", 0)] == [1, 2]


def test_a_repeat_only_request_held_for_the_reload_stays_one(service, tally):
    """The same, sent only to repeat (``"repeat": true``, docs/protocol.md): held for
    the reload, it is asked again as it came, and the table loaded again does not
    remember its id either: refused ``not_remembered``, never run as a new request."""
    store = service.store
    protocol = opened(service, tally, "ghost")
    persist = one(protocol.receive(roll("c1"), GM, "c1"), Persist)
    find = one(protocol.receive({**roll("ghost"), "repeat": True}, GM, "ghost"), FindReply)
    load = one(persist.fail(FULL), LoadTable)
    assert protocol.receive(roll("next"), GM, "next") == []  # behind the reload
    assert find.resume(find.run(store)) == []  # not in the store: waits for the reload
    out = answers(carry(store, load.resume(load.run(store))))
    assert out["ghost"]["code"] == "not_remembered", out["ghost"]
    assert out["next"]["seq"] == 1  # the ghost took no seq
    assert [(e.request, e.seq) for e in store.events_after("t", 0)] == [("next", 1)]


def test_a_log_read_out_when_the_commit_and_its_reload_fail_answers_and_nothing_hangs(
    service, tally
):
    """What was feared for the base protocol: a table broken while a read of its log
    is out. A log read holds no request (``state`` at a seq, ``stats``, a resume):
    it answers its asker whatever happens to the table meanwhile; the requests held
    for the reload are refused when it fails, even when the member whose change
    failed has left; the next request loads the table again."""
    store = service.store
    for n in range(3):
        service.handle("t", roll(f"r{n}"), GM)  # seqs 1-3
    protocol = opened(service, tally)
    player = Member(GM, origin="resumer", hello_id="hello")
    read_at = one(protocol.receive({"type": "state", "id": "at", "at": 1}, GM, "at"), ReadEvents)
    resume = one(protocol.join(player, {"epoch": 1, "seq": 1}), ReadEvents)
    changer = Member(GM, origin="c1")
    persist = one(protocol.receive(roll("c1"), GM, "c1", member=changer), Persist)
    load = one(persist.fail(FULL), LoadTable)
    protocol.leave(changer)  # the client whose change failed leaves
    assert protocol.receive({"type": "state", "id": "s1"}, GM, "s1") == []
    assert answers(load.fail(FULL))["s1"]["code"] == "store_error"
    assert answers(read_at.resume(read_at.run(store)))["at"]["table"]["seq"] == 1
    welcomed = resume.resume(resume.run(store))
    assert welcomed and not protocol._held and not protocol._holding
    out = carry(store, protocol.receive(roll("c2"), GM, "c2"))
    assert answers(out)["c2"]["seq"] == 4


def test_a_table_read_again_that_cannot_be_taken_in_refuses_what_it_held(
    service, tally, monkeypatch, caplog
):
    """The load comes back, but the table it read cannot be made (a bug, or a stored
    table this code no longer reads): before, the exception left the callback, the
    table stayed broken with its requests held for a load no longer running, and
    each waited for good. Now it counts as a failed load: every held request is
    refused ``store_error``, the cause is logged with its traceback, and the next
    request loads the table again."""
    import rollbridge.protocol.table as module

    store = service.store
    protocol = opened(service, tally)
    persist = one(protocol.receive(roll("c1"), GM, "c1"), Persist)
    load = one(persist.fail(FULL), LoadTable)
    assert protocol.receive({"type": "state", "id": "s1"}, GM, "s1") == []  # behind it
    real = module.Table

    def unreadable(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("a stored actor this ruleset version cannot read (simulated)")

    monkeypatch.setattr(module, "Table", unreadable)
    refused = load.resume(load.run(store))
    assert answers(refused)["s1"]["code"] == "store_error"
    assert protocol.broken and not protocol._held and not protocol._holding
    assert "cannot be taken in" in caplog.text and "simulated" in caplog.text
    monkeypatch.setattr(module, "Table", real)  # the next try reads it
    out = carry(store, protocol.receive(roll("c2"), GM, "c2"))
    one(out, Reopened)
    assert answers(out)["c2"]["seq"] == 1 and not protocol.broken
