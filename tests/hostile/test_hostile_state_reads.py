"""``state`` at an earlier seq reads the log for its events' changes alone (hostile28).

A player who filled their own table with ~1,000 rolls of ~128 KiB and asked
``state`` at an early seq from eight connections made the server decode every one
of those events whole — the dice, the texts — though the table is walked back
through nothing but their actors' and the table's changes: ~5 s of a reader
thread's CPU a request, the interpreter's lock held for most of it, so a player at
another table was answered two rolls in three (docs/operations.md, "Hostile
input"). Now the store steps over the rest of each stored event without decoding it
(:mod:`rollbridge.stores.actor_changes`).

Counted, not timed: the events decoded whole while the request is out. The answers
are the same as ever: each earlier seq's ``state`` equals the table that was
answered live at that seq. A real server on a real SQLite file and a real port."""

from __future__ import annotations

import random
from typing import Any

import pytest

from rollbridge.engine import Event
from tests.server.conftest import make_tables, tables  # noqa: F401  (fixtures)
from tests.server.httpclient import debug_log  # noqa: F401  (a fixture)
from tests.server.test_undo_tracker_more import _gm_request

#: What a GM's view of the table as it stands adds (an earlier seq's has none).
GM_FIELDS = ("pending", "can_undo", "can_redo", "undo_redo")


def _as_then(table: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in table.items() if k not in GM_FIELDS}


@pytest.fixture
def whole(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The seq of every event decoded whole from its stored form from now on."""
    decoded: list[int] = []
    from_dict = Event.from_dict.__func__

    def counted(cls: type[Event], data: dict[str, Any], **options: Any) -> Event:
        decoded.append(data["seq"])
        return from_dict(cls, data, **options)

    monkeypatch.setattr(Event, "from_dict", classmethod(counted))
    return decoded


async def test_state_at_an_earlier_seq_decodes_no_event_whole(tables, whole):  # noqa: F811
    gm, _ = await tables.join("tally", "gm")
    player, _ = await tables.join("tally", "player")
    for n in range(30):
        roll = {"type": "roll", "formula": "20d6"} if n % 2 else {
            "type": "adjust", "actor": "ana", "track": "damage", "delta": 1}  # fmt: skip
        assert (await gm.request(roll))["status"] == "done"
    live = await player.request({"type": "state"})
    whole.clear()
    then = await player.request({"type": "state", "at": 3})
    assert then["type"] == "result" and then["table"]["seq"] == 3, then
    # before: the 27 events after seq 3, each decoded whole on a reader thread
    assert whole == [], whole
    undone = await player.request({"type": "state", "at": 3, "undone": [5]})
    assert undone["table"] == then["table"] and undone["undone"] == {}
    assert whole == [], "only the undos and redos are read whole"
    assert live["table"]["seq"] == 32


@pytest.mark.parametrize("seed", [3, 28])
async def test_state_at_each_earlier_seq_is_the_table_answered_then(make_tables, seed):  # noqa: F811
    """Rolls, hits, undos and redos, actors made, renamed and removed, settings and
    an encounter (the GM's requests of tests/server/test_undo_tracker_more.py): each
    seq's table asked for later (``state`` with ``at``, and with ``undone`` too) is
    the one answered while it was the latest, to the GM and to a player."""
    world = await make_tables()
    rng = random.Random(seed)
    gm, _ = await world.join("tally", "gm")
    player, _ = await world.join("tally", "player")
    seen: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}
    state = (await gm.request({"type": "state"}))["table"]
    for step in range(60):
        request = _gm_request(rng, step, state)
        if request is not None:
            await gm.request(request)
        state = (await gm.request({"type": "state"}))["table"]
        mine = (await player.request({"type": "state"}))["table"]
        if mine["seq"] == state["seq"]:
            seen[state["seq"]] = (_as_then(state), mine)
    latest = state["seq"]
    assert len(seen) > 30, sorted(seen)
    for seq, (gm_then, player_then) in sorted(seen.items()):
        if seq == latest:
            continue
        for peer, then in ((gm, gm_then), (player, player_then)):
            asked = await peer.request({"type": "state", "at": seq})
            assert asked["table"] == then, seq
            undone = await peer.request({"type": "state", "at": seq, "undone": [seq]})
            assert undone["table"] == then, seq
    # the undos' own answer is read from them whole, as before
    final = await gm.request({"type": "state", "undone": list(range(1, latest + 1))[:50]})
    again = await gm.request({"type": "state", "at": 1, "undone": list(range(1, latest + 1))[:50]})
    assert again["undone"] == final["undone"]
