"""Events the rollbridge of before 7 December 2026 stored with a ruleset's stored
private forms in their outcome (``{"private": 4000, "of": "bandit", "aspect":
"sheet"}``, kept as data then: commit eb0f4ee9 reads them as the ``Private`` they
stand for since) reached players with the NPC's number whenever they were read
again: a reconnect's backfill and ``table export --as player`` (review plugins-22's
closing note). They are read as today's events hold them when the store gives them
back (rollbridge.engine.forms): players' outcome leaves each out, or shows its
``instead``; the GM's holds the value.

The log is the old version's own: ``tests/fixtures/forms/make_fixture.py`` laid
``eb0f4ee9^`` out with ``git archive`` and played ``rb_keeper`` (its resolution's
outcome and its round hook's) into a SQLite file with that version's service and
store. Read here by a real server on a real port, over WebSocket, and by a real
``rollbridge table export`` process with the ruleset installed as a plugin."""

from __future__ import annotations

import gzip
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from websockets.asyncio.client import connect

from rollbridge.engine.model import Event
from rollbridge.host import PluginHost
from rollbridge.server import Server
from tests.conftest import installed_plugin
from tests.server.conftest import Boom, Peer, start

FORMS = Path(__file__).resolve().parents[1] / "fixtures" / "forms"
TOKENS = json.loads((FORMS / "keeper.tokens.json").read_text())
#: The bandit's guard (4000) and the numbers the ruleset built from it.
NUMBERS = ("4000", "4001", "4002", "4003")
#: One of them standing as a number of its own: not inside a longer run of digits
#: (or a decimal), as a request id made from an object's address or an event's time can hold.
_A_NUMBER = re.compile(r"(?<!\d)(?<!\d\.)(?:" + "|".join(NUMBERS) + r")(?!\d)(?!\.\d)")


def shows_a_number(text: str) -> bool:
    """Whether ``text`` (frames or a log, as text) shows one of the NPC's numbers."""
    return _A_NUMBER.search(text) is not None


#: What players read of the old resolution's outcome and of its round hook's.
PLAYERS_OUTCOME = {
    "told": "someone's guard",
    "list": ["plain"],
    "inside": {},
    "own": {"private": 5, "of": "bandit", "note": "the ruleset's own map"},
}
GMS_OUTCOME = {**PLAYERS_OUTCOME, "guard": 4000, "told": 4001, "list": [4002, "plain"],
               "inside": 0}  # fmt: skip


def keeper():
    return fixture_module("rb_keeper")


def fixture_module(name: str):
    """A fixture ruleset's module (``rb_keeper``, ``rb_teller``), from the fixtures."""
    sys.path.insert(0, str(FORMS))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(FORMS))


def old_log(folder: Path, name: str = "keeper") -> Path:
    """A copy of the old version's log ``name.db.gz`` in ``folder``."""
    path = folder / f"{name}.db"
    with gzip.open(FORMS / f"{name}.db.gz", "rb") as packed, open(path, "wb") as out:
        shutil.copyfileobj(packed, out)
    return path


def outcomes(events: list[dict]) -> tuple[dict, dict]:
    """The resolution's outcome and the round hook's, as ``events`` hold them."""
    by_seq = {event["seq"]: event for event in events}
    return by_seq[3]["data"]["outcome"], by_seq[4]["data"]["hooks"][0]["outcome"]


@asynccontextmanager
async def served(folder: Path) -> AsyncIterator[Server]:
    """Today's server, on a real port, on a copy of the old log."""
    host = PluginHost({"keeper": Boom(keeper().Keeper())},
                      environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})  # fmt: skip
    server, store = await start(old_log(folder), host)
    try:
        yield server
    finally:
        await server.stop()
        store.close()


async def test_a_reconnects_backfill_hides_them_from_players(tmp_path):
    async with served(tmp_path) as server:
        seen = {}
        for role in ("player", "gm"):
            peer = Peer(await connect(server.url))
            hello = {"type": "hello", "table": "keeper", "token": TOKENS[role],
                     "resume": {"epoch": 1, "seq": 2}}  # fmt: skip
            welcome = await peer.request(hello)
            assert welcome["resume"] == {"recovered": True, "missed": 2}, welcome
            await peer.wait_for(lambda p: len(p.events) == 2)
            seen[role] = peer
            raw = "".join(str(frame) for frame in peer.frames)
            if role == "player":
                assert not shows_a_number(raw), raw
            await peer.close()
        assert outcomes(seen["player"].events) == (PLAYERS_OUTCOME, {"guards": {"hero": 1}})
        gm = outcomes(seen["gm"].events)
        assert gm == (GMS_OUTCOME, {"guards": {"hero": 1, "bandit": 4000}})


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    source = (FORMS / "rb_keeper.py").read_text()
    return installed_plugin(tmp_path_factory.mktemp("keeper"), "keeper", source)


@pytest.mark.parametrize("who", ["player", "gm"])
def test_an_export_for_players_hides_them_and_the_gms_holds_the_values(site, tmp_path, who):
    environ = {**os.environ, "PYTHONPATH": str(site)}
    environ.pop("ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD", None)
    done = subprocess.run(
        [sys.executable, "-m", "rollbridge", "table", "export", "keeper", "--db",
         str(old_log(tmp_path)), "--as", who, "--format", "jsonl"],
        capture_output=True, text=True, env=environ, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    found = outcomes([event for event in events if event.get("type") == "event"])
    if who == "player":
        assert not shows_a_number(done.stdout), done.stdout
        assert found == (PLAYERS_OUTCOME, {"guards": {"hero": 1}})
    else:
        assert found == (GMS_OUTCOME, {"guards": {"hero": 1, "bandit": 4000}})


def test_events_written_since_are_marked_and_read_as_they_are():
    """Only an event without the mark is walked: one written today carries it (where
    it has an outcome), and a map shaped like a form that a marked event holds —
    none the engine makes now — is left as it was stored."""
    form = {"private": 7, "of": "orc", "aspect": "sheet"}
    made = Event("t", 1, 3, "resolution", data={"outcome": {"k": 1}}, texts=[["narration"]])
    assert made.to_dict()["forms"] is True
    assert "forms" not in Event("t", 1, 4, "roll", data={"total": 3}).to_dict()
    stored = {**made.to_dict(), "data": {"outcome": {"k": form}}}
    assert Event.from_dict(stored).data == {"outcome": {"k": form}}
    del stored["forms"]
    old = Event.from_dict(stored)
    assert old.data == {"outcome": {"k": 7}} and old.private == [[["outcome", "k"], "orc", "sheet"]]


def test_a_form_with_a_text_instead_keeps_the_text_and_moves_a_text_inside_it():
    """An old event noted a text in a form's ``instead`` and in its ``private`` among
    its texts, at paths inside the map: read, the one marks the entry's instead a
    text, the other leads to the form's place."""
    said = {"id": "keeper_fixture.someone", "args": {}}
    stored = Event("t", 1, 3, "resolution", texts=[["narration"]]).to_dict()
    stored["data"] = {"narration": said, "outcome": {
        "a": {"private": 1, "of": "orc", "instead": said},
        "b": {"private": said, "of": "orc"}}}  # fmt: skip
    stored["texts"] = [["narration"], ["outcome", "a", "instead"], ["outcome", "b", "private"]]
    old = Event.from_dict(stored)
    assert old.texts == [["narration"], ["outcome", "b"]]
    assert old.private == [
        [["outcome", "a"], "orc", "details", said, True],
        [["outcome", "b"], "orc", "details"],
    ]


async def test_a_form_inside_an_instead_reaches_no_player_on_the_wire(tmp_path):
    """Review plugins-22's closing note: ``Private(0, of="bandit", instead={"g":
    form})`` — a stored form inside what stands instead — reached players as ``{"g":
    4003}``: the form was read as its value there. A private value inside an
    ``instead`` is hidden as one (its own ``instead``, or left out), here in a
    resolution the same server makes today, sent live to a player."""
    async with served(tmp_path) as server:
        peers = {}
        for role in ("player", "gm"):
            peers[role] = Peer(await connect(server.url))
            hello = {"type": "hello", "table": "keeper", "token": TOKENS[role]}
            assert (await peers[role].request(hello))["type"] == "welcome"
        keep = {"type": "resolve", "action": "keep", "actor": "hero", "targets": ["bandit"]}
        assert (await peers["gm"].request(keep))["status"] == "done"
        player = peers["player"]
        await player.wait_for(lambda p: any(e["seq"] == 5 for e in p.events))
        event = next(e for e in player.events if e["seq"] == 5)
        assert event["data"]["outcome"] == PLAYERS_OUTCOME, event
        assert not shows_a_number(str(player.frames)), player.frames
        for peer in peers.values():
            await peer.close()


@pytest.mark.parametrize("binary", [False, True], ids=["json", "msgpack"])
async def test_every_audience_and_dialect_gets_the_players_outcome(tmp_path, binary):
    """Review plugins-23: what players read of the old events (a resume's backfill)
    and of one made today (a form inside an ``instead``), in JSON and in msgpack, to
    a player of the plain protocol and in the players' copy a Foundry GM's frames
    carry (``players``): the same outcome, no number of the NPC's in any frame."""
    async with served(tmp_path) as server:
        peers = {}
        for who, role, dialect in (("player", "player", None), ("foundry", "gm", "foundry")):
            peer = Peer(await connect(server.url), binary=binary)
            hello = {"type": "hello", "table": "keeper", "token": TOKENS[role],
                     "resume": {"epoch": 1, "seq": 2}}  # fmt: skip
            if dialect:
                hello["dialect"] = dialect
            assert (await peer.request(hello))["resume"]["recovered"] is True
            await peer.wait_for(lambda p: len(p.events) == 2)
            peers[who] = peer
        keep = {"type": "resolve", "action": "keep", "actor": "hero", "targets": ["bandit"]}
        assert (await peers["foundry"].request(keep))["status"] == "done"
        for peer in peers.values():
            await peer.wait_for(lambda p: any(e["seq"] == 5 for e in p.events))
        copies = [e["players"] for e in peers["foundry"].events]
        for events in (peers["player"].events, copies):
            assert outcomes(events) == (PLAYERS_OUTCOME, {"guards": {"hero": 1}})
            assert next(e for e in events if e["seq"] == 5)["data"]["outcome"] == PLAYERS_OUTCOME
            assert not shows_a_number(str(events)), events
        assert not shows_a_number(str(peers["player"].frames))
        assert outcomes(peers["foundry"].events)[0] == GMS_OUTCOME
        for peer in peers.values():
            await peer.close()


def test_an_outcome_too_deep_to_read_stays_unmarked_when_stored_again():
    """Review plugins-23: an unmarked event whose outcome cannot be read (nested past
    what an outcome may be: a chain of 100 forms, which no version stored — a damaged
    or hand-made log) was left as it was, no RecursionError, no traceback — but read
    back it was an event like today's, so storing it again (``rollbridge migrate`` to
    Redis, an ``import_table``) marked it ``"forms": true``: a later reading, able to
    read it, would take it as read. It keeps no mark; one that was read does."""
    chain: object = 99
    for _ in range(100):
        chain = {"private": chain, "of": "orc", "aspect": "sheet"}
    stored = Event("t", 1, 3, "resolution", data={"outcome": {"k": chain}},
                   texts=[["narration"]]).to_dict()  # fmt: skip
    del stored["forms"]
    event = Event.from_dict(stored)
    assert event.data == {"outcome": {"k": chain}} and event.private == []
    assert "forms" not in Event.unpacked(event.packed()).to_dict()
    readable = {**stored, "data": {"outcome": {"k": {"private": 7, "of": "orc"}}}}
    assert Event.from_dict(readable).to_dict()["forms"] is True
