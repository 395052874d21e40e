"""Texts with a private argument in the outcome of events the rollbridge of before 7
December 2026 stored (an NPC's number in a text the outcome keeps: ``{"id": …,
"args": {"guard": {"private": 4000, "of": "bandit", …}}}``). Reading such an old
event walked into the text and took the argument's form for a value of the outcome:
players' copy of the text lost the argument, and every reading of it logged
``message … has no argument 'guard' (stored by another version of it?); it reads
as hidden`` — nothing leaked, but an operator read a WARNING for nothing (review
plugins-23's closing note). The form is the renderer's to read, as in a text made
today: players read the hidden word (or what stands instead), the GM the number,
and nothing is logged.

The log is the old version's own: ``tests/fixtures/forms/make_fixture.py teller``
laid ``eb0f4ee9^`` out with ``git archive`` and played ``rb_teller`` (its
resolution's outcome and its round hook's) into a SQLite file with that version's
service and store. Read here by a real server on a real port, over WebSocket."""

from __future__ import annotations

import json
import logging

import pytest
from websockets.asyncio.client import connect

from rollbridge import text
from rollbridge.engine.model import Event
from rollbridge.host import PluginHost
from rollbridge.stores.sqlite import SQLiteStore
from tests.engine.test_old_stored_forms import FORMS, fixture_module, old_log, shows_a_number
from tests.server.conftest import Boom, Peer, start

TOKENS = json.loads((FORMS / "teller.tokens.json").read_text())

#: What each audience reads of the old resolution (its narration, its outcome) and of
#: its round hook's outcome.
PLAYERS = (
    "Hero reads (hidden) on Bandit",
    {"said": "Hero reads (hidden) on Bandit", "listed": ["Hero reads someone's guard on Bandit"]},
    {"said": "round 1: (hidden) on guard"},
)
GMS = (
    "Hero reads 4002 on Bandit",
    {"said": "Hero reads 4000 on Bandit", "listed": ["Hero reads 4001 on Bandit"]},
    {"said": "round 1: 4003 on guard"},
)


@pytest.fixture
def warnings_anew():
    """The renderer warns once a process for each message and argument: this test's
    messages are warned of anew (another test may have read them first)."""
    text._warned.difference_update({key for key in text._warned
                                    if isinstance(key, tuple) and "teller" in key[0]})  # fmt: skip


def read(events):
    by_seq = {event["seq"]: event for event in events}
    data = by_seq[3]["data"]
    return data["narration"], data["outcome"], by_seq[4]["data"]["hooks"][0]["outcome"]


async def test_a_reconnects_backfill_logs_nothing_and_hides_them(tmp_path, caplog, warnings_anew):
    host = PluginHost({"teller": Boom(fixture_module("rb_teller").Teller())},
                      environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})  # fmt: skip
    server, store = await start(old_log(tmp_path, "teller"), host)
    seen = {}
    try:
        with caplog.at_level(logging.WARNING):
            for role in ("player", "gm"):
                peer = Peer(await connect(server.url))
                hello = {"type": "hello", "table": "teller", "token": TOKENS[role],
                         "resume": {"epoch": 1, "seq": 2}}  # fmt: skip
                assert (await peer.request(hello))["resume"]["recovered"] is True
                await peer.wait_for(lambda p: len(p.events) == 2)
                seen[role] = peer
                await peer.close()
    finally:
        await server.stop()
        store.close()
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert read(seen["player"].events) == PLAYERS
    assert not shows_a_number("".join(map(str, seen["player"].frames)))
    assert read(seen["gm"].events) == GMS


def test_the_text_keeps_its_argument_as_the_old_version_stored_it(tmp_path):
    """Read from the store, the old resolution's texts hold the form in their
    arguments, as a text made today does, and no mark points inside them."""
    store = SQLiteStore(old_log(tmp_path, "teller"))
    try:
        event = store.event("teller", 3)
    finally:
        store.close()
    assert isinstance(event, Event)
    assert event.data["outcome"]["said"]["args"]["guard"] == {
        "private": 4000, "of": "bandit", "aspect": "sheet"}  # fmt: skip
    assert event.data["outcome"]["listed"][0]["args"]["guard"]["instead"]["id"] == (
        "teller_fixture.someone")  # fmt: skip
    assert event.private == []
