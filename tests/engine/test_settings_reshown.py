"""A settings change that shows or hides NPCs' details records which actors players
now see differently (``Event.shown``), and every audience's view of it follows from
the stored event alone: read back from the log it reads as it did live; an event
stored before it existed reads as it did (no actors); one whose records pass the
largest event the table stores goes through marked ``reread``."""

from __future__ import annotations

import pytest

from rollbridge.engine import Principal
from rollbridge.engine.model import Event
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores import MemoryStore

GM = Principal("gm", "gm", "tok-gm")
PLAYER = Principal("player", "player", "tok-player")
ON = {"ruleset": {"show_npc_details": True}}


@pytest.fixture
def service() -> TableService:
    host = PluginHost(environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    found = TableService(MemoryStore(), host)
    found.create_table("Reveal", "sr2", table_id="t")
    sheets = host.rulesets["sr2"].example_sheets
    actors = [("tukan", "Tukan", ["player"]), ("g1", "Guard A", []), ("g2", "Guard B", [])]
    for actor_id, name, controllers in actors:
        actor = {"id": actor_id, "name": name, "sheet": dict(sheets[name])}
        found.handle("t", {"type": "actor.create", "id": f"c-{actor_id}",
                           "actor": {**actor, "controllers": controllers}}, GM)  # fmt: skip
    return found


def change(service, request_id: str, settings: dict) -> Event:
    reply = service.handle("t", {"type": "settings", "id": request_id, "settings": settings}, GM)
    (event,) = [e for e in service.store.events_after("t", reply["seq"] - 1)]
    return event


def test_the_event_records_the_npcs_players_now_see_differently(service):
    table = service.table("t")
    before = [table.view_actor(a, gm=False) for a in ("g1", "g2")]
    event = change(service, "on", ON)
    # the NPCs, as the change left them; never the player's character
    assert [r["id"] for r in event.shown] == ["g1", "g2"]
    assert event.shown == [table.actors[a].as_data() for a in ("g1", "g2")]
    assert table.view_event(event, gm=True)["actors"] == []
    seen = table.view_event(event, gm=False)["actors"]
    assert seen == [table.view_actor(a, gm=False) for a in ("g1", "g2")] != before
    # a setting that changes no NPC's view records none
    assert change(service, "one", {"ruleset": {"rule_of_one": False}}).shown == []


def test_read_back_from_the_log_it_reads_as_it_did_live(service):
    table = service.table("t")
    live = change(service, "on", ON)
    shown = table.view_event(live, gm=False)
    change(service, "off", {"ruleset": {"show_npc_details": False}})  # the table moves on
    stored = Event.unpacked(live.packed())
    table.recall([stored, *service.store.events_after("t", stored.seq)])
    assert table.view_event(stored, gm=False) == shown
    # what it reads is the NPCs' views as the change left them (an event that carried
    # none would read alike live and stored: that alone tells nothing)
    assert [a["id"] for a in shown["actors"]] == ["g1", "g2"]
    assert all(a["common"]["tracks"] for a in shown["actors"]), shown


def test_a_settings_event_stored_before_reads_as_it_did(service):
    table = service.table("t")
    live = change(service, "on", ON)
    old = Event.from_dict({k: v for k, v in live.to_dict().items() if k != "shown"})
    old.redaction = live.redaction
    assert table.view_event(old, gm=False)["actors"] == []


def test_a_change_whose_records_pass_the_event_size_goes_through_marked_reread(service):
    """The records of the NPCs players now see differently do not fit in the event:
    the change is made all the same, storing the mark that tells clients to read
    ``state`` again instead of the records (before, it was refused
    ``event_too_large`` and the GM could not toggle the setting at all)."""
    table = service.table("t")
    # room for a settings event, not for the records of two NPCs besides
    plain = change(service, "one", {"ruleset": {"rule_of_one": False}})
    table.max_event_bytes = len(plain.packed()) + 64
    event = change(service, "on", ON)
    assert table.info.settings["ruleset"]["show_npc_details"] is True
    assert (event.shown, event.reread) == ([], True)
    assert len(event.packed()) <= table.max_event_bytes
    for gm in (True, False):
        view = table.view_event(event, gm=gm)
        assert view["actors"] == []
        assert view.get("reread") is (None if gm else True)
    # read back from the log, it keeps the mark; its undo and redo make their own
    stored = Event.unpacked(event.packed())
    assert stored.reread and table.view_event(stored, gm=False)["reread"] is True
    for kind in ("undo", "redo"):
        reply = service.handle("t", {"type": kind, "id": kind}, GM)
        (again,) = service.store.events_after("t", reply["seq"] - 1)
        assert (again.kind, again.shown, again.reread) == (kind, [], True)
    # a change that fits carries the records, and no mark
    table.max_event_bytes = 1 << 20
    event = change(service, "off", {"ruleset": {"show_npc_details": False}})
    assert [r["id"] for r in event.shown] == ["g1", "g2"] and not event.reread
    assert "reread" not in table.view_event(event, gm=False)


def test_a_table_of_900_sr2_npcs_at_the_default_size_toggles_the_setting():
    """The table the review met: some 800 sr2 NPCs pass the default 128 KiB, and the
    GM's change was refused ``event_too_large``; now it is made, marked ``reread``."""
    host = PluginHost(environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    service = TableService(MemoryStore(), host)
    service.create_table("Large", "sr2", table_id="t")
    sheet = dict(host.rulesets["sr2"].example_sheets["Guard A"])
    for n in range(900):
        actor = {"id": f"g{n}", "name": f"Guard {n}", "sheet": sheet, "controllers": []}
        service.handle("t", {"type": "actor.create", "id": f"c{n}", "actor": actor}, GM)
    table = service.table("t")
    assert table.max_event_bytes == 128 * 1024  # the default
    for shown in (True, False):
        event = change(service, f"s{shown}", {"ruleset": {"show_npc_details": shown}})
        assert table.info.settings["ruleset"]["show_npc_details"] is shown
        assert event.reread and not event.shown
        assert len(event.packed()) < 1024  # the mark, not 900 records
