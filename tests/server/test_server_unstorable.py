"""Apply only what can be committed (Core issue, item 2), over a real socket.

Before the change a player's roll of ``999999999*999999999*999999999`` got
``internal`` *after* the table had moved its seq and actors forward (the reply could
not be packed: the total passes 64 bits), and from then on every ``state`` and some
``hello``s failed with "seq 1 is older than the retained event log". Now everything a
request would apply is checked storable and showable first; anything raised on the
way leaves the table exactly as it was.
"""

from __future__ import annotations

import pytest

from rollbridge.contract import Resolution
from rollbridge.text import Text

HUGE = "999999999*999999999*999999999"


async def test_a_roll_past_64_bits_is_refused_and_the_table_goes_on(tables):
    gm, _ = await tables.join("tally", "gm")
    player, _ = await tables.join("tally", "player")
    before = await gm.request({"type": "state"})
    seq = before["table"]["seq"]

    refused = await player.request({"type": "roll", "formula": HUGE})
    assert refused["type"] == "error" and refused["code"] == "dice_limit", refused
    assert "64-bit" in refused["message"]

    assert (await gm.request({"type": "state"}))["table"] == before["table"]
    assert (await player.request({"type": "state", "at": seq}))["table"]["seq"] == seq
    if seq > 1:
        assert (await gm.request({"type": "state", "at": 1}))["table"]["seq"] == 1
    watcher, welcome = await tables.join("tally", "observer", resume={"epoch": 1, "seq": 1})
    assert welcome["type"] == "welcome" and welcome["seq"] == seq
    assert welcome["resume"]["recovered"] is True
    later = await player.request({"type": "roll", "formula": "2d6"})
    assert later["status"] == "done" and later["seq"] == seq + 1
    await watcher.wait_for(lambda p: [e["seq"] for e in p.events][-1:] == [seq + 1])
    assert [e["seq"] for e in watcher.events] == list(range(2, seq + 2))


BAD_OUTPUTS = {
    "integer-past-64-bits": lambda r: Resolution("hit", {"amount": 2**70}, states=r.states),
    "nan": lambda r: Resolution("hit", {"amount": float("nan")}, states=r.states),
    "lone-surrogate": lambda r: Resolution("hit \ud800", {}, states=r.states),
    "an-object": lambda r: Resolution("hit", {"amount": object()}, states=r.states),
    "undeclared-message": lambda r: Resolution(Text("tally.nope", {}), {}, states=r.states),
    "state-past-64-bits": lambda r: Resolution(
        "hit", {}, states={k: {**v, "damage": 2**64} for k, v in r.states.items()}
    ),
}


@pytest.mark.parametrize("bad", sorted(BAD_OUTPUTS))
async def test_a_result_that_cannot_be_stored_or_sent_changes_nothing(tables, monkeypatch, bad):
    gm, _ = await tables.join("tally", "gm")
    player, _ = await tables.join("tally", "player")
    ruleset = tables.server.tables.open["tally"].table.ruleset
    before = await gm.request({"type": "state"})
    original = type(ruleset).resolve

    def broken(self, context, dice):
        return BAD_OUTPUTS[bad](original(self, context, dice))

    monkeypatch.setattr(type(ruleset), "resolve", broken)
    refused = await gm.request(
        {"type": "resolve", "action": "hit", "targets": ["guard"], "dice": [4]}
    )
    assert refused["type"] == "error" and refused["code"] == "internal", refused
    assert "cannot be stored" in refused["message"]
    monkeypatch.undo()

    assert (await gm.request({"type": "state"}))["table"] == before["table"]
    assert not player.events  # nothing was broadcast
    _, welcome = await tables.join("tally", "gm", resume={"epoch": 1, "seq": 1})
    assert welcome["table"] == before["table"] and welcome["resume"]["recovered"] is True
    done = await gm.request({"type": "resolve", "action": "hit", "targets": ["guard"], "dice": [4]})
    assert done["status"] == "done" and done["seq"] == before["table"]["seq"] + 1
    after = await gm.request({"type": "state"})
    guard = next(a for a in after["table"]["actors"] if a["id"] == "guard")
    assert guard["state"]["damage"] == 4


async def test_a_slow_store_read_never_stalls_the_event_loop(tables, monkeypatch):
    """``state`` at an earlier seq reads the log on a reader thread: while that read
    is held up, other clients (of this table and others) are answered."""
    import threading

    gm, _ = await tables.join("tally", "gm")
    other, _ = await tables.join("sr2", "gm")
    release, finished = threading.Event(), threading.Event()
    original = tables.store.events_after

    def slow_events_after(table_id, seq, until=None):
        release.wait(10)
        try:
            return original(table_id, seq, until)
        finally:
            finished.set()

    monkeypatch.setattr(tables.store, "events_after", slow_events_after)
    asked = await gm.send({"type": "state", "at": 1})
    rolled = await other.request({"type": "roll", "formula": "1d6"})
    same_table = await gm.request({"type": "roll", "formula": "1d4"})
    assert rolled["status"] == same_table["status"] == "done"
    assert not finished.is_set()  # both were answered while the read was still held
    release.set()
    state = await gm.reply(asked)
    assert state["table"]["seq"] == 1
