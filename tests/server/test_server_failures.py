"""Failures and races a review found (store failures, in-flight repeats, long
resumes, hostile frames): each must end with every request answered, nothing
acknowledged lost, and no client shown something that did not happen."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import msgpack
import pytest

from rollbridge.exceptions import StoreError
from rollbridge.protocol.table import RECENT_REPLIES


def slow_commits(store, seconds: float):
    """Make the writer thread take ``seconds`` before each group commit."""
    original = store.commit_many

    def slow(items):
        time.sleep(seconds)
        return original(items)

    store.commit_many = slow
    return original


def failing_for(store, table_id: str, *, times: int = 1_000_000, request: str | None = None):
    """Make commits of one table fail (as a full disk would): the next ``times``
    ones, or every one that carries the request ``request`` (a commit the store
    can never take, retried or not)."""
    left = {"n": times}
    lock = threading.Lock()

    def bad(items) -> bool:
        for table, commit in items:
            if table != table_id:
                continue
            if request is not None:
                return any(event.request == request for event in commit.events)
            with lock:
                if left["n"] > 0:
                    left["n"] -= 1
                    return True
        return False

    for name in ("commit", "commit_many"):
        original = getattr(store, name)

        def broken(*args, _original=original, _name=name):
            if bad(args[0] if _name == "commit_many" else [(args[0], args[1])]):
                raise StoreError("disk full (simulated)")
            return _original(*args)

        setattr(store, name, broken)


def actor_state(state_reply, actor_id):
    return next(a for a in state_reply["table"]["actors"] if a["id"] == actor_id)["state"]


async def test_a_players_retry_of_an_approved_secret_roll_gets_the_players_reply(tables):
    gm, _ = await tables.join("tally", "gm")
    player, _ = await tables.join("tally", "player")
    await gm.request({"type": "settings", "settings": {"approval": True}})
    ask = {"type": "roll", "id": "blind", "formula": "13d6+444", "secret": True}
    pending = await player.request(ask)
    slow_commits(tables.store, 0.3)
    approve = await gm.send({"type": "approve", "request": pending["pending"]})
    await asyncio.sleep(0.05)  # the approval is executed, its commit is being written
    retry = await player.request(ask)
    assert retry["status"] == "secret" and "event" not in retry
    assert "444" not in json.dumps(retry)
    assert (await gm.reply(approve))["event"]["data"]["formula"] == "13d6 + 444"


@pytest.mark.parametrize("limit", [16 * 1024, 1024 * 1024])
async def test_a_resume_is_bounded_by_the_outbox_limit(make_tables, limit):
    """The missed events count toward the client's limit (issue 16, item 3): within
    it they are all resent; beyond it the client is welcomed with the table as it is
    now (``recovered: false``) instead of the server holding them all for it."""
    world = await make_tables(buffer_limit=limit)
    gm, _ = await world.join("sr2", "gm")
    first = await gm.request({"type": "roll", "formula": "1d6"})
    for _ in range(60):  # in bursts the GM's own connection can take
        await asyncio.gather(*(gm.request({"type": "roll", "formula": "1d6"}) for _ in range(5)))
    peer, welcome = await world.join("sr2", "observer", resume={"epoch": 1, "seq": first["seq"]})
    assert welcome["seq"] == first["seq"] + 300
    if limit < 300 * 200:  # 300 roll events of about 250 bytes each do not fit
        assert welcome["resume"] == {"recovered": False, "missed": 0, "reason": "too_far_behind"}
        assert (await peer.request({"type": "state"}))["table"]["seq"] == welcome["seq"]
        assert peer.events == []
    else:
        assert welcome["resume"] == {"recovered": True, "missed": 300}
        await peer.wait_for(lambda p: len(p.events) == 300)
        assert [e["seq"] for e in peer.events] == list(range(first["seq"] + 1, first["seq"] + 301))
    assert (await peer.request({"type": "ping"}))["type"] == "pong"  # still connected


async def test_a_resumes_bound_counts_a_json_frames_utf_8_not_its_characters(tables):
    """The missed events a resume is sent are held to half the client's limit in bytes
    on the wire; a JSON client's frames were counted in characters, so a Russian
    client's resume (its texts mostly two-byte letters) was sent more bytes than the
    bound, as the outbox and the metric counted them before (8f883bf, 46876a4)."""
    gm, _ = await tables.join("sr2", "gm")
    first = await gm.request({"type": "roll", "formula": "1d6", "label": "Бросок"})
    for _ in range(10):
        await gm.request({"type": "roll", "formula": "1d6", "label": "Бросок на удачу" * 10})
    resume = {"epoch": 1, "seq": first["seq"]}
    whole, welcome = await tables.join("sr2", "observer", resume=resume, locale="ru")
    assert welcome["resume"] == {"recovered": True, "missed": 10}
    await whole.wait_for(lambda p: len(p.events) == 10)
    sent = whole.frames[:11]  # the welcome and the missed events, as they were sent
    assert all(isinstance(frame, str) for frame in sent)
    characters, utf_8 = sum(map(len, sent)), sum(len(frame.encode()) for frame in sent)
    assert utf_8 > characters + 1000  # the missed events' labels: Cyrillic
    # a bound they fit in counted as characters, not in bytes
    tables.server.tables.open["sr2"].backlog_limit = (characters + utf_8) // 2
    _peer, welcome = await tables.join("sr2", "observer", resume=resume, locale="ru")
    assert welcome["resume"] == {"recovered": False, "missed": 0, "reason": "too_far_behind"}
    tables.server.tables.open["sr2"].backlog_limit = utf_8
    _peer, welcome = await tables.join("sr2", "observer", resume=resume, locale="ru")
    assert welcome["resume"] == {"recovered": True, "missed": 10}


async def test_a_resume_whose_missed_event_cannot_be_sent_takes_the_table_as_it_is(
    make_tables, monkeypatch
):
    """An event the server cannot show a client (a ruleset's or adapter's bug) is not
    skipped in a resume's backlog, which would leave a gap the client cannot see: the
    client is welcomed with the table as it is (``recovered: false``)."""
    from rollbridge.protocol import members

    world = await make_tables()
    gm, _ = await world.join("sr2", "gm")
    first = await gm.request({"type": "roll", "formula": "1d6"})
    broken = (await gm.request({"type": "roll", "formula": "2d6"}))["seq"]
    await gm.request({"type": "roll", "formula": "3d6"})
    frame = members.Delivery.frame

    def failing(delivery, member):
        if delivery.seq == broken and member.principal.role == "observer":
            raise KeyError("a view that fails")
        return frame(delivery, member)

    monkeypatch.setattr(members.Delivery, "frame", failing)
    peer, welcome = await world.join("sr2", "observer", resume={"epoch": 1, "seq": first["seq"]})
    assert welcome["resume"] == {"recovered": False, "missed": 0, "reason": "unsendable"}
    assert welcome["seq"] == broken + 1
    assert (await peer.request({"type": "state"}))["table"]["seq"] == welcome["seq"]
    assert peer.events == []


async def test_one_tables_failing_commit_does_not_fail_another(tables):
    sr2, _ = await tables.join("sr2", "gm")
    tally, _ = await tables.join("tally", "gm")
    failing_for(tables.store, "tally", request="bad")
    slow_commits(tables.store, 0.1)  # so both requests share a group commit
    bad, good = await asyncio.gather(
        tally.request(
            {"type": "resolve", "action": "hit", "targets": ["guard"], "dice": [6], "id": "bad"}
        ),
        sr2.request({"type": "roll", "formula": "2d6"}),
    )
    assert good["status"] == "done"
    assert bad["code"] == "store_error" and "disk" not in bad["message"]
    state = await tally.request({"type": "state"})
    assert actor_state(state, "guard")["damage"] == 0  # nothing half-applied
    again = await tally.request({"type": "resolve", "action": "hit", "targets": ["guard"],
                                 "dice": [2]})  # fmt: skip
    assert again["status"] == "done" and again["seq"] == state["table"]["seq"] + 1
    assert actor_state(await tally.request({"type": "state"}), "guard")["damage"] == 2


async def test_requests_queued_behind_a_failed_commit_fail_and_the_table_recovers(tables):
    gm, _ = await tables.join("tally", "gm")
    failing_for(tables.store, "tally", request="first")
    slow_commits(tables.store, 0.2)
    hits = [{"type": "resolve", "action": "hit", "targets": ["guard"], "dice": [d], "id": name}
            for d, name in ((1, "first"), (2, "second"), (3, "third"))]  # fmt: skip
    replies = await asyncio.gather(*(gm.request(h) for h in hits))
    # the first failed; the others were built on it, so they fail too
    assert [r.get("code") for r in replies] == ["store_error"] * 3
    state = await gm.request({"type": "state"})
    stored = tables.store.load("tally")[0]
    assert state["table"]["seq"] == stored.info.seq  # memory and store agree
    assert actor_state(state, "guard") == stored.actors["guard"].state
    after = await gm.request({"type": "resolve", "action": "hit", "targets": ["guard"],
                              "dice": [4]})  # fmt: skip
    assert after["status"] == "done" and after["seq"] == stored.info.seq + 1


async def test_a_failed_reload_answers_and_a_later_request_recovers(tables):
    gm, _ = await tables.join("tally", "gm")
    failing_for(tables.store, "tally", times=1)
    original_load = tables.store.load
    calls = {"n": 0}

    def load_fails_once(table_id):
        calls["n"] += 1
        if calls["n"] == 1:
            raise StoreError("disk unreadable (simulated)")
        return original_load(table_id)

    tables.store.load = load_fails_once
    reply = await gm.request({"type": "resolve", "action": "hit", "targets": ["guard"],
                              "dice": [3]}, timeout=5)  # fmt: skip
    assert reply["code"] == "store_error"
    protocol = tables.server.tables.open["tally"]
    for _ in range(500):  # the reload runs on a reader thread: let it fail first
        if calls["n"] == 1 and not protocol.idle and protocol.broken and not protocol._holding:
            break
        await asyncio.sleep(0.01)
    assert calls["n"] == 1 and protocol.broken
    later = await gm.request({"type": "resolve", "action": "hit", "targets": ["guard"],
                              "dice": [5]}, timeout=5)  # fmt: skip
    assert later["status"] == "done", later
    assert calls["n"] == 2  # the later request loaded the table again
    assert actor_state(await gm.request({"type": "state"}), "guard")["damage"] == 5


async def test_welcome_and_state_show_only_what_is_durable(tables):
    gm, _ = await tables.join("tally", "gm")
    before = await gm.request({"type": "state"})
    slow_commits(tables.store, 0.4)
    hit = await gm.send({"type": "resolve", "action": "hit", "targets": ["guard"], "dice": [6]})
    await asyncio.sleep(0.05)
    watcher, welcome = await tables.join("tally", "gm")
    assert welcome["seq"] == before["table"]["seq"]
    assert actor_state({"table": welcome["table"]}, "guard")["damage"] == 0
    assert (await watcher.request({"type": "state"}))["table"]["seq"] == welcome["seq"]
    done = await gm.reply(hit)
    await watcher.wait_for(lambda p: len(p.events) == 1)
    assert watcher.events[0]["seq"] == done["seq"]  # and then the change arrives as an event


async def test_a_ruleset_failing_to_show_an_event_refuses_it_and_changes_nothing(
    tables, monkeypatch
):
    """Every audience's view is built before the table changes (Core issue, item 2):
    a ruleset that cannot show an event to players makes the request ``internal``,
    with the table as it was; the next request is applied and reaches everyone."""
    gm, _ = await tables.join("tally", "gm")
    player, _ = await tables.join("tally", "player")
    ruleset = tables.server.tables.open["tally"].table.ruleset
    before = await gm.request({"type": "state"})

    def broken(data, hidden, settings):
        raise RuntimeError("player view bug")

    monkeypatch.setattr(ruleset, "player_resolution", broken)
    reply = await gm.request({"type": "resolve", "action": "hit", "targets": ["guard"],
                              "dice": [2]}, timeout=5)  # fmt: skip
    assert reply["code"] == "internal" and reply["message"] == "ruleset 'tally' failed"
    after = await gm.request({"type": "state"})
    assert after["table"] == before["table"]
    monkeypatch.undo()
    later = await gm.request({"type": "roll", "formula": "1d4"})
    assert later["seq"] == before["table"]["seq"] + 1
    await player.wait_for(lambda p: any(e["seq"] == later["seq"] for e in p.events))


@pytest.mark.parametrize(
    "value",
    [b"\x00bytes", 2**63, float("nan")],
    ids=["bytes", "huge-int", "nan"],
)
async def test_values_no_store_or_codec_can_carry_are_refused(tables, value):
    gm, welcome = await tables.join("tally", "gm", binary=True)
    reply = await gm.request(
        {
            "type": "actor.update",
            "actor": "guard",
            "state": {"damage": 0, "rounds": 0, "turns": 0, "x": value},
        }
    )
    assert reply["code"] == "invalid_request", reply
    assert (await gm.request({"type": "state"}))["table"]["seq"] == welcome["seq"]


@pytest.mark.parametrize("ruleset", ["x", 1, 0.5, True, [1], "", 0, False, [], None])
async def test_ruleset_settings_that_are_no_object_are_refused_and_change_nothing(
    tables, ruleset, caplog
):
    """A GM's ``settings`` whose ``ruleset`` is no object: ``invalid_settings`` naming
    it, not ``internal`` (it was unpacked as a map before anything checked it), and
    no event (a falsy one was committed as a change of nothing)."""
    gm, welcome = await tables.join("sr2", "gm")
    before = tables.server.tables.open["sr2"].table.settings
    reply = await gm.request({"type": "settings", "settings": {"ruleset": ruleset}})
    assert reply["type"] == "error" and reply["code"] == "invalid_settings", reply
    assert "settings.ruleset" in reply["message"]
    assert (await gm.request({"type": "state"}))["table"]["seq"] == welcome["seq"]
    assert tables.server.tables.open["sr2"].table.settings == before
    assert "Traceback" not in caplog.text
    done = await gm.request({"type": "settings", "settings": {"ruleset": {"rule_of_one": False}}})
    assert done["type"] == "result"
    assert tables.server.tables.open["sr2"].table.settings["ruleset"]["rule_of_one"] is False


async def test_deeply_nested_json_is_refused_and_the_connection_stays(tables):
    gm, _ = await tables.join("sr2", "gm")
    await gm.connection.send('{"type": "roll", "id": "deep", "x": ' + "[" * 20_000
                             + "]" * 20_000 + "}")  # fmt: skip
    await gm.wait_for(lambda p: None in p.replies)
    assert gm.replies.pop(None)["code"] == "undecodable"
    nested = {"type": "state", "id": "n", "x": {}}
    inner = nested["x"]
    for _ in range(40):
        inner["y"] = {}
        inner = inner["y"]
    await gm.connection.send(msgpack.packb(nested))
    await gm.wait_for(lambda p: "n" in p.replies)
    assert gm.replies.pop("n")["code"] == "invalid_request"
    assert (await gm.request({"type": "ping"}))["type"] == "pong"


async def test_past_the_pending_limit_changes_are_refused_with_busy_and_nothing_changes(
    make_tables,
):
    world = await make_tables(max_pending=3)
    gm, _ = await world.join("tally", "gm")
    player, _ = await world.join("tally", "player")
    gate = threading.Event()
    original = world.store.commit_many

    def stalled(items):  # a disk that stops answering
        gate.wait(10)
        return original(items)

    world.store.commit_many = stalled
    hits = [
        {"type": "resolve", "action": "hit", "targets": ["guard"], "dice": [n], "id": f"h{n}"}
        for n in (1, 2, 3, 4)
    ]
    sent = [await gm.send(hit) for hit in hits[:3]]
    await asyncio.sleep(0.05)  # all three are executed and wait for the disk
    refused = await gm.request(hits[3])
    assert refused["code"] == "busy" and refused["id"] == "h4"
    assert refused["details"] == {"pending": 3, "limit": 3}
    assert "waiting to be written" in refused["message"]
    # reads and pings are still answered; the state shows nothing of the waiting hits
    assert (await player.request({"type": "ping"}))["type"] == "pong"
    assert actor_state(await gm.request({"type": "state"}), "guard")["damage"] == 0
    gate.set()
    done = [await gm.reply(request_id) for request_id in sent]
    assert [d["status"] for d in done] == ["done"] * 3
    # the refused request was not remembered: sent again it is applied once
    again = await gm.request(hits[3])
    assert again["status"] == "done" and again["seq"] == done[-1]["seq"] + 1
    assert actor_state(await gm.request({"type": "state"}), "guard")["damage"] == 1 + 2 + 3 + 4
    assert world.server.writer.pending == 0


class Gate:
    """A store call held on its thread until the test opens the gate: ``entered``
    is set when the call arrives."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.open = threading.Event()

    def hold(self) -> None:
        self.entered.set()
        assert self.open.wait(20), "the gate was never opened"

    async def arrived(self) -> None:
        assert await asyncio.to_thread(self.entered.wait, 10), "the call never came"


async def until(condition, what: str) -> None:
    """Wait (a bounded number of turns of the loop) until ``condition()``: a store
    call's result reaches the loop from its thread."""
    for _ in range(1000):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never: {what}")


async def test_requests_held_behind_a_read_when_the_reload_failed_are_answered(tables):
    """A change's commit fails while a repeat's stored reply is being read; the reload
    after it fails too (the disk still full). A request that comes after that, while
    the read is still out, waits behind it — and, once the read is back, for a reload
    no longer running: it waited for good, and so did every request after it, until
    the server stopped. Now the read coming back loads the table again, and every
    held request is answered."""
    store = tables.store
    gm, _ = await tables.join("tally", "gm")
    assert (await gm.request({"type": "roll", "formula": "1d6", "id": "r1"}))["seq"] == 3
    for _ in range(RECENT_REPLIES):  # r1 leaves the table's memory: the store holds it
        assert (await gm.request({"type": "roll", "formula": "1d6"}))["type"] == "result"
    stored_seq = store.load("tally")[0].info.seq
    commit_gate, reply_gate = Gate(), Gate()
    loads = {"n": 0}
    original = {name: getattr(store, name) for name in ("commit", "commit_many", "reply", "load")}

    def carries_c1(items) -> bool:
        return any(e.request == "c1" for _table, commit in items for e in commit.events)

    def commit_many(items):
        if carries_c1(items):
            commit_gate.hold()
            raise StoreError("disk full (simulated)")
        return original["commit_many"](items)

    def commit(table_id, commit):
        if carries_c1([(table_id, commit)]):
            raise StoreError("disk full (simulated)")
        return original["commit"](table_id, commit)

    def reply(table_id, key):
        if key.endswith("/r1"):
            reply_gate.hold()
        return original["reply"](table_id, key)

    def load(table_id):
        if table_id != "tally":
            return original["load"](table_id)
        loads["n"] += 1
        if loads["n"] == 1:
            raise StoreError("disk full (simulated)")
        return original["load"](table_id)

    store.commit, store.commit_many, store.reply, store.load = commit, commit_many, reply, load
    try:
        c1 = await gm.send({"type": "roll", "formula": "1d6", "id": "c1"})
        await commit_gate.arrived()  # c1 is being written
        r1 = await gm.send({"type": "roll", "formula": "1d6", "id": "r1"})
        await reply_gate.arrived()  # r1's stored reply is being read; c1 is still out
        commit_gate.open.set()
        assert (await gm.reply(c1))["code"] == "store_error"
        protocol = tables.server.tables.open["tally"]
        await until(lambda: loads["n"] == 1 and protocol._holding == 1, "the reload failed")
        assert protocol.broken
        s1 = await gm.send({"type": "state", "id": "s1"})  # waits behind r1's read
        await until(lambda: len(protocol._held) == 1, "s1 held")
        reply_gate.open.set()
        repeated = await gm.reply(r1)
        assert repeated["seq"] == 3 and repeated["event"]["seq"] == 3  # its first reply
        # another table is answered all along
        other, _ = await tables.join("sr2", "gm")
        assert (await other.request({"type": "state"}))["type"] == "result"
        state = await gm.reply(s1)  # it waited for good
        assert state["type"] == "result" and state["table"]["seq"] == stored_seq
        assert loads["n"] == 2 and not protocol.broken and not protocol._held
        after = await gm.request({"type": "roll", "formula": "1d6"})
        assert after["seq"] == stored_seq + 1
    finally:
        commit_gate.open.set()
        reply_gate.open.set()


async def test_a_log_read_out_when_a_commit_and_its_reload_fail_answers_and_nothing_waits(tables):
    """What was feared for the base protocol (the cluster's take-over hung so): a
    table broken while a read of its log is out. A log read (``state`` at a seq)
    holds no request: it answers whatever happens to the table meanwhile. The
    reload runs though the player whose change failed has left; when it fails, the
    request held for it is refused; the next request loads the table again."""
    store = tables.store
    gm, _ = await tables.join("tally", "gm")
    player, _ = await tables.join("tally", "player")
    for _ in range(3):
        assert (await gm.request({"type": "roll", "formula": "1d6"}))["type"] == "result"
    stored_seq = store.load("tally")[0].info.seq
    failing_for(store, "tally", request="c1")
    log_gate, load_gate = Gate(), Gate()
    # what ``state`` at a seq reads: the events' changes alone (hostile28)
    changes_after, load = store.changes_after, store.load

    def gated_changes_after(table_id, seq, *until):
        if seq == 1:
            log_gate.hold()
        return changes_after(table_id, seq, *until)

    def gated_load(table_id):
        if table_id == "tally" and not load_gate.entered.is_set():
            load_gate.hold()
            raise StoreError("disk unreadable (simulated)")
        return load(table_id)

    store.changes_after, store.load = gated_changes_after, gated_load
    try:
        at = await gm.send({"type": "state", "at": 1})
        await log_gate.arrived()  # the log is being read
        c1 = {"type": "roll", "formula": "1d6", "id": "c1"}
        assert (await player.request(c1))["code"] == "store_error"
        await load_gate.arrived()  # the reload is out
        await player.close()  # the client whose change failed leaves
        s1 = await gm.send({"type": "state"})
        protocol = tables.server.tables.open["tally"]
        await until(lambda: len(protocol._held) == 1, "the state held for the reload")
        load_gate.open.set()  # the reload fails
        assert (await gm.reply(s1))["code"] == "store_error"
        log_gate.open.set()
        assert (await gm.reply(at))["table"]["seq"] == 1
        assert protocol.broken and not protocol._held
        after = await gm.request({"type": "roll", "formula": "1d6"})  # loads it again
        assert after["seq"] == stored_seq + 1 and not protocol.broken
    finally:
        log_gate.open.set()
        load_gate.open.set()
