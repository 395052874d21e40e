"""Localisation issue, items 3 and 5, over a real socket: each client at a table
receives events, results, states and errors in the language its ``hello`` asked for
(or the table's default locale), views are built once per audience and locale however
many clients share them, and an unknown locale falls back with a note in ``welcome``."""

from __future__ import annotations

import collections

import pytest

from rollbridge.engine import table as engine_table
from rollbridge.engine.views import Audience
from rollbridge.i18n import known_locales
from rollbridge.visible import CONTROLS

ATTACK = {
    "type": "resolve",
    "action": "attack",
    "actor": "tukan",
    "targets": ["guard-a"],
    "params": {"weapon": "Hackler", "range": "short"},
}


def narration(frame: dict) -> str:
    return frame["data"]["narration"]


async def test_each_client_reads_its_own_language(tables):
    gm, welcome = await tables.join("sr2", "gm", locale="cs")
    assert welcome["locale"] == "cs" and "notes" not in welcome
    readers = {}
    for locale in ("de", "ru", "en"):
        readers[locale], welcome = await tables.join("sr2", "player", locale=locale)
        assert welcome["locale"] == locale
    result = await gm.request(ATTACK)
    seq = result["seq"]
    for peer in [gm, *readers.values()]:
        await peer.wait_for(lambda p: any(e["seq"] == seq for e in p.events))
    table = tables.server.tables.open["sr2"].table
    (event,) = [e for e in tables.store.events_after("sr2", seq - 1) if e.seq == seq]
    assert result["event"] == table.view_event(event, audience=Audience(True, "cs"))
    seen = {}
    for locale, peer, audience in [("cs", gm, Audience(True, "cs"))] + [
        (locale, peer, Audience(False, locale)) for locale, peer in readers.items()
    ]:
        (frame,) = [e for e in peer.events if e["seq"] == seq]
        expected = table.view_event(event, audience=audience)
        assert frame == {"type": "event", "table": "sr2", **expected}
        seen[locale] = narration(frame)
    assert len(set(seen.values())) == 4, f"four languages, four narrations: {seen}"
    assert seen["en"] == narration(table.view_event(event, gm=False))


async def test_a_state_and_an_error_come_in_the_clients_language(tables):
    czech, _ = await tables.join("sr2", "player", locale="cs")
    english, _ = await tables.join("sr2", "player", locale="en")
    wrong = {"type": "resolve", "action": "fly", "actor": "tukan", "params": {}}
    errors = [await peer.request(dict(wrong)) for peer in (czech, english)]
    assert errors[0]["type"] == errors[1]["type"] == "error"
    assert errors[0]["code"] == errors[1]["code"] == "unknown_action"
    assert errors[0]["message"] != errors[1]["message"]
    assert "fly" in errors[0]["message"]
    states = [(await peer.request({"type": "state"}))["table"] for peer in (czech, english)]
    table = tables.server.tables.open["sr2"].table
    assert states[0] == table.view(gm=False, locale="cs")
    assert states[1] == table.view(gm=False, locale="en")


async def test_an_unknown_locale_falls_back_with_a_note(tables):
    _peer, welcome = await tables.join("sr2", "player", locale="tlh")
    assert welcome["locale"] == "en"
    (note,) = welcome["notes"]
    assert note["code"] == "locale_unavailable"
    assert "tlh" in note["message"]
    for known in known_locales():
        assert known in note["message"]
    # a control character around a known name is no language's name (was read as it)
    _peer, welcome = await tables.join("sr2", "player", locale="\ncs")
    assert welcome["locale"] == "en"
    assert [note["code"] for note in welcome["notes"]] == ["locale_unavailable"]
    # and the note quotes what was asked with its control characters written as
    # escapes: an ESC sequence or a NUL reached the client's note as sent
    _peer, welcome = await tables.join("sr2", "player", locale="\x1b[2J\x00")
    (note,) = welcome["notes"]
    assert "\\x1b[2J\\x00" in note["message"], note["message"]
    assert not CONTROLS.search(note["message"])
    # a region of a known language is that language, with no note
    _peer, welcome = await tables.join("sr2", "player", locale="de-AT")
    assert welcome["locale"] == "de" and "notes" not in welcome


async def test_a_bad_locale_in_hello_is_refused_by_the_schema(tables):
    _peer, reply = await tables.join("sr2", "player", locale="x" * 36)
    assert reply["type"] == "error" and reply["code"] == "invalid_request"
    assert "hello.locale" in reply["message"]


async def test_the_tables_default_locale_serves_clients_that_ask_for_none(tables):
    gm, _ = await tables.join("sr2", "gm")
    for wrong in ("xx", "\nru", "ru\t"):  # a control character: no language's name
        refused = await gm.request({"type": "settings", "settings": {"locale": wrong}})
        assert refused["type"] == "error" and refused["code"] == "invalid_settings"
    assert "locale" not in tables.server.tables.open["sr2"].table.settings
    done = await gm.request({"type": "settings", "settings": {"locale": "ru-RU"}})
    assert done["type"] == "result"
    assert tables.server.tables.open["sr2"].table.settings["locale"] == "ru"
    _newcomer, welcome = await tables.join("sr2", "player")
    assert welcome["locale"] == "ru"
    _asked, welcome = await tables.join("sr2", "player", locale="de")
    assert welcome["locale"] == "de"
    # a locale nobody has falls back to the table's default, not to English
    _peer, welcome = await tables.join("sr2", "player", locale="tlh")
    assert welcome["locale"] == "ru" and welcome["notes"][0]["code"] == "locale_unavailable"


async def test_views_are_built_once_per_audience_and_locale(tables, monkeypatch):
    built = collections.Counter()
    original = engine_table.event_view

    def counting(event, *, audience, **rest):
        built[audience] += 1
        return original(event, audience=audience, **rest)

    monkeypatch.setattr(engine_table, "event_view", counting)
    gm, _ = await tables.join("sr2", "gm", locale="cs")
    peers = [gm]
    for locale in ("cs", "cs", "cs", "de", "de", "en", "en"):
        peers.append((await tables.join("sr2", "player", locale=locale))[0])
    json_peer, _ = await tables.join("sr2", "player", locale="de", binary=False)
    binary_peer, _ = await tables.join("sr2", "player", locale="de", binary=True)
    peers += [json_peer, binary_peer]
    built.clear()
    seq = (await gm.request(ATTACK))["seq"]
    for peer in peers:
        await peer.wait_for(lambda p: any(e["seq"] == seq for e in p.events))
    assert built, "no view was built"
    assert max(built.values()) == 1, f"a view built twice: {built}"
    needed = {Audience(True, "cs"), Audience(False, "cs"), Audience(False, "de")}
    assert needed <= set(built)


@pytest.mark.parametrize("locale", ["cs", "de", "ru"])
async def test_a_result_embeds_the_event_in_the_requesters_language(tables, locale):
    player, _ = await tables.join("sr2", "player", locale=locale)
    result = await player.request({"type": "roll", "formula": "3d6", "label": "Test"})
    table = tables.server.tables.open["sr2"].table
    (event,) = [e for e in tables.store.events_after("sr2", result["seq"] - 1)
                if e.seq == result["seq"]]  # fmt: skip
    assert result["event"] == table.view_event(event, audience=Audience(False, locale))
