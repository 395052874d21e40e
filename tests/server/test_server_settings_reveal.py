"""A settings change that shows or hides an NPC's details sends players the NPC's new
view at once (docs/protocol.md, "Visibility"): the ``settings`` event, and the
``undo`` and ``redo`` of one, carry ``actors`` for players and observers — the NPCs
whose view they now see differently — and none for the GM. Before, the event carried
no actors, and every player client kept the NPC's old view (its boxes, its sheet,
after the GM had hidden them) until the NPC's next change.

Every built-in ruleset with such a setting, on a real server, SQLite file and sockets;
the event read back from the log (a resume after a restart) reads as it did live.
"""

from __future__ import annotations

import pytest

from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore

from .conftest import GM, Tables, start

#: (ruleset, setting, player character, NPC): every built-in ruleset's settings that
#: show players an NPC's details, with two of its example sheets.
CASES = [
    ("sr2", "show_npc_details", "Tukan", "Guard A"),
    ("sr2", "show_npc_sheet", "Tukan", "Guard A"),
    ("techlevel", "show_npc_details", "Ana", "Guard"),
    ("bandits", "show_npc_details", "Ana", "Guard"),
    ("wilddie", "show_npc_details", "Ana", "Guard"),
]


@pytest.fixture
def host() -> PluginHost:
    return PluginHost(environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})


@pytest.fixture
async def world(tmp_path, host, request):
    """A server on a fresh SQLite file with one table of ``request.param``'s ruleset:
    a player character and an NPC (its example sheets)."""
    ruleset, _setting, pc, npc = request.param
    path = tmp_path / "reveal.db"
    store = SQLiteStore(path)
    service = TableService(store, host)
    _, tokens = service.create_table("Reveal", ruleset, table_id="t")
    sheets = host.rulesets[ruleset].example_sheets
    for index, (name, controllers) in enumerate([(pc, ["player"]), (npc, [])]):
        actor = {"id": f"a{index}", "name": name, "sheet": dict(sheets[name])}
        service.handle("t", {"type": "actor.create", "id": f"c{index}",
                             "actor": {**actor, "controllers": controllers}}, GM)  # fmt: skip
    store.close()
    server, store = await start(path, host)
    found = Tables(server, store, path, {"t": tokens})
    found.setting = request.param[1]  # type: ignore[attr-defined]
    yield found
    for peer in found.peers:
        peer._reader.cancel()
    await found.server.stop()


def npc_of(actors: list[dict]) -> dict:
    (found,) = [a for a in actors if a["id"] == "a1"]
    return found


async def players_npc(peer) -> dict:
    """The NPC as the table shows it to ``peer`` now (``state``)."""
    return npc_of((await peer.request({"type": "state"}))["table"]["actors"])


async def set_to(gm, setting: str, value: bool) -> dict:
    reply = await gm.request({"type": "settings", "settings": {"ruleset": {setting: value}}})
    assert reply["status"] == "done", reply
    return reply


IDS = [f"{case[0]}-{case[1]}" for case in CASES]


@pytest.mark.parametrize("world", CASES, indirect=True, ids=IDS)
async def test_players_see_an_npc_as_the_setting_says_right_after_the_change(world):
    setting = world.setting
    gm, _ = await world.join("t", "gm")
    player, welcome = await world.join("t", "player")
    watcher, _ = await world.join("t", "observer", binary=True)
    hidden = npc_of(welcome["table"]["actors"])
    assert hidden["limited"] is True

    # on: the settings event alone brings the players the NPC as the table now shows it
    on = await set_to(gm, setting, True)
    assert on["event"]["actors"] == []  # the GM's view of the NPC did not change
    for peer in (player, watcher):
        await peer.wait_for(lambda p: len(p.events) == 1)
        (event,) = peer.events
        assert event["kind"] == "settings" and event["seq"] == on["seq"]
        shown = npc_of(event["actors"])
        assert shown == await players_npc(peer)
        assert shown != hidden  # what the setting reveals
    assert [a["id"] for a in player.events[0]["actors"]] == ["a1"]  # the NPC alone

    # off: the NPC's details leave the players' view at once, again with no other event
    off = await set_to(gm, setting, False)
    assert off["event"]["actors"] == []
    for peer in (player, watcher):
        await peer.wait_for(lambda p: len(p.events) == 2)
        event = peer.events[1]
        assert event["kind"] == "settings" and event["seq"] == off["seq"]
        assert npc_of(event["actors"]) == hidden == await players_npc(peer)

    # the undo of "off" reveals them again; its redo hides them
    undo = await gm.request({"type": "undo"})
    assert undo["event"]["actors"] == []
    redo = await gm.request({"type": "redo"})
    assert redo["event"]["actors"] == []
    await player.wait_for(lambda p: len(p.events) == 4)
    undone, redone = player.events[2:]
    assert (undone["kind"], redone["kind"]) == ("undo", "redo")
    assert npc_of(undone["actors"]) == npc_of(player.events[0]["actors"])
    assert npc_of(redone["actors"]) == hidden == await players_npc(player)

    # read back from the log after a restart: each event reads as it did live
    live = player.events
    world.server, world.store = await restart(world)
    late, welcome = await world.join("t", "player", resume={"epoch": 1, "seq": on["seq"] - 1})
    assert welcome["resume"] == {"recovered": True, "missed": 4}
    await late.wait_for(lambda p: len(p.events) == 4)
    assert late.events == live


@pytest.mark.parametrize("world", CASES[:1], indirect=True, ids=IDS[:1])
async def test_a_change_that_shows_no_npc_differently_carries_no_actors(world):
    """A setting that shows nothing of an NPC (sr2's ``rule_of_one``) sends no actors."""
    gm, _ = await world.join("t", "gm")
    player, _ = await world.join("t", "player")
    reply = await set_to(gm, "rule_of_one", False)
    await player.wait_for(lambda p: len(p.events) == 1)
    assert player.events[0]["seq"] == reply["seq"] and player.events[0]["actors"] == []


async def restart(world):
    for peer in world.peers:
        peer._reader.cancel()
    world.peers.clear()
    await world.server.stop()
    return await start(world.path, PluginHost(environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"}))
