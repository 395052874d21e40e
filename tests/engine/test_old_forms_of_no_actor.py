"""Stored private forms of no actor (``{"private": 4000, "of": null, "aspect": …}``)
in the outcomes of events stored before ``stored_private`` read them as private
(615ab8e7, 7 December 2026, 19:17 UTC). An event stored before 6 December, 23:47
(eb0f4ee9) carries no mark, and its forms are read when the store gives it back:
hidden from players already. One stored from then until 615ab8e7 carries the mark
(``"forms": true``: its outcome's forms were read as it was made) while it kept such
a form as data — and players were sent the NPC's number in every reading of it: a
resume's backfill, ``state``'s events, an export for players. Such a form is read
again now (``rollbridge.engine.forms.holds_nobodys_form``).

The files are made by hand from the old version's own log
(``tests/fixtures/forms/keeper.db.gz``): each form of the resolution's outcome and of
the round hook's given ``of`` null, the events marked or not; read by a real server
on a real port, over WebSocket."""

from __future__ import annotations

import json
import sqlite3

import pytest
from websockets.asyncio.client import connect

from rollbridge.host import PluginHost
from rollbridge.plain import pack, unpack
from tests.engine.test_old_stored_forms import TOKENS, keeper, old_log, outcomes, shows_a_number
from tests.server.conftest import Boom, Peer, start

#: What players read of the outcomes: every form of no actor left out, or its instead.
PLAYERS = ({"told": "someone's guard", "list": ["plain"], "inside": {},
            "own": {"private": 5, "of": "bandit", "note": "the ruleset's own map"}},
           {"guards": {}})  # fmt: skip


def _rows_rewritten(path, rewrite) -> None:
    """Each log row's bytes of the file at ``path`` as ``rewrite(bytes)`` gives them."""
    with sqlite3.connect(path) as plain:
        rows = plain.execute('SELECT "table", first, events FROM log').fetchall()
        for table_id, first, blob in rows:
            plain.execute('UPDATE log SET events = ? WHERE "table" = ? AND first = ?',
                          (rewrite(blob), table_id, first))  # fmt: skip


def _each_event(path, change) -> None:
    """Each stored event of the file at ``path`` as ``change(event)`` leaves it."""

    def changed(blob: bytes) -> bytes:
        events = unpack(blob)
        for event in events:
            change(event)
        return pack(events)

    _rows_rewritten(path, changed)


def _of_no_actor(path, *, marked: bool) -> None:
    """Each stored form the old log's outcomes hold as data given ``of`` null; the
    events ``marked`` as made between eb0f4ee9 and 615ab8e7 or not."""

    def of_no_actor(event: dict) -> None:
        data = event.get("data") or {}
        found = [data["outcome"]] if "outcome" in data else []
        found += [hook["outcome"] for hook in data.get("hooks") or []]
        for outcome in found:
            forms = [outcome.get("guard"), outcome.get("told"),
                     *(outcome.get("list") or [])[:1],
                     *(outcome.get("guards") or {}).values()]  # fmt: skip
            for form in filter(None, forms):
                form["of"] = None
        if found and marked:
            event["forms"] = True

    _each_event(path, of_no_actor)


def _keys_in_str8(path) -> None:
    """Each ``of`` key of the log's rows written as a msgpack str8 (``d9 02``) where
    the packers write a fixstr (``a2``): the same data, as another msgpack writer
    (a tool that rewrote the file, another language's codec) may hold it."""

    def again(blob: bytes) -> bytes:
        again = blob.replace(b"\xa2of\xc0", b"\xd9\x02of\xc0")
        assert unpack(again) == unpack(blob)
        return again

    _rows_rewritten(path, again)


async def _backfilled(path) -> dict[str, Peer]:
    """The player's and the GM's peers after a resume from seq 2 on a real server
    reading ``path``: each got the two events after it (the resolution, the hook)."""
    host = PluginHost({"keeper": Boom(keeper().Keeper())},
                      environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})  # fmt: skip
    server, store = await start(path, host)
    seen = {}
    try:
        for role in ("player", "gm"):
            peer = Peer(await connect(server.url))
            hello = {"type": "hello", "table": "keeper", "token": TOKENS[role],
                     "resume": {"epoch": 1, "seq": 2}}  # fmt: skip
            assert (await peer.request(hello))["resume"] == {"recovered": True, "missed": 2}
            await peer.wait_for(lambda p: len(p.events) == 2)
            seen[role] = peer
            await peer.close()
    finally:
        await server.stop()
        store.close()
    return seen


@pytest.mark.parametrize(
    ("marked", "str8"),
    [(False, False), (True, False), (True, True)],
    ids=["before_6_december", "marked", "marked_of_in_str8"],
)
async def test_a_resumes_backfill_hides_forms_of_no_actor_from_players(tmp_path, marked, str8):
    path = old_log(tmp_path)
    _of_no_actor(path, marked=marked)
    if str8:
        _keys_in_str8(path)
    seen = await _backfilled(path)
    raw = "".join(str(frame) for frame in seen["player"].frames)
    assert not shows_a_number(raw), raw
    assert outcomes(seen["player"].events) == PLAYERS
    gm, hook = outcomes(seen["gm"].events)
    assert (gm["guard"], gm["told"], gm["list"]) == (4000, 4001, [4002, "plain"])
    assert hook == {"guards": {"hero": 1, "bandit": 4000}}
    assert json.dumps(gm)  # plain data


def _plain_narrations(path) -> None:
    """Each outcome's event as a ruleset narrating in plain strings left it: no texts
    and no private marks at all (the resolution's ``told`` without its text instead,
    its ``inside`` plain) — but a time, as every event since 2 December has."""

    def plain(event: dict) -> None:
        data = event.get("data") or {}
        if "outcome" in data:
            data["narration"] = "kept"
            data["outcome"]["told"].pop("instead")
            data["outcome"]["inside"] = 0
        for hook in data.get("hooks") or []:
            hook["narration"] = "round 1"
        if "outcome" in data or "hooks" in data:
            assert event["at"] is not None
            event.pop("texts", None)
            event.pop("private", None)

    _each_event(path, plain)


@pytest.mark.parametrize("marked", [False, True], ids=["before_6_december", "marked"])
async def test_forms_in_an_event_without_texts_are_hidden_from_players(tmp_path, marked):
    """An event with no texts and no private marks (a ruleset narrating in plain
    strings, its outcome's values kept in stored forms) was taken for one stored
    before texts were data, and its forms were not read: but it has a time, so it is
    not withheld as one either (``legacy.before_texts``) — players got the NPC's
    numbers. Its forms are read as any other event's."""
    path = old_log(tmp_path)
    _plain_narrations(path)
    if marked:
        _of_no_actor(path, marked=True)
    seen = await _backfilled(path)
    raw = "".join(str(frame) for frame in seen["player"].frames)
    assert not shows_a_number(raw), raw
    own = {"private": 5, "of": "bandit", "note": "the ruleset's own map"}
    guards = {} if marked else {"hero": 1}
    assert outcomes(seen["player"].events) == ({"list": ["plain"], "inside": 0, "own": own},
                                               {"guards": guards})  # fmt: skip
    gm, hook = outcomes(seen["gm"].events)
    assert (gm["guard"], gm["told"], gm["list"]) == (4000, 4001, [4002, "plain"])
    assert hook == {"guards": {"hero": 1, "bandit": 4000}}
