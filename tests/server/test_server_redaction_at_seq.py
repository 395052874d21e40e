"""What players see of an event is decided by the table as that event left it, never
by a later change (docs/engine.md, "Views"): on a real server (SQLite file, 127.0.0.1,
WebSocket clients), every player — in every language — gets the same redaction live,
on a retry of the request, on a resume (before and after a restart, when the event
is read back from the log) and in the session-log export, after the GM turned the
ruleset's NPC-detail setting on and after the NPCs became players' actors."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from websockets.asyncio.client import connect

from rollbridge.dice.sources import SeededDice
from rollbridge.engine import Principal
from rollbridge.engine.views import Audience
from rollbridge.export.log import read_log
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore

from .conftest import Peer, start

GM = Principal("gm", "gm", "setup")
RULESETS = ("sr2", "techlevel", "bandits", "wilddie")
#: Each ruleset's settings that show players an NPC's details.
REVEALING = {
    "sr2": {"show_npc_sheet": True, "show_npc_details": True},
    "techlevel": {"show_npc_details": True},
    "bandits": {"show_npc_details": True},
    "wilddie": {"show_npc_details": True},
}
#: The rulesets whose events name an NPC they do not change (the controller check
#: has something at stake there; elsewhere it must hold all the same).
NAMES_UNCHANGED_NPCS = ("sr2", "bandits")


class World:
    """A seeded SQLite file, the server on it, and the clients joined to it."""

    def __init__(self, tmp_path, ruleset_id: str) -> None:
        draws = itertools.count()
        #: seeded dice, one seed a request, in the order the server executes them
        self.dice = lambda: SeededDice(f"redaction:{next(draws)}")
        self.host = PluginHost(environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
        self.path = tmp_path / "redaction.db"
        self.ruleset_id = ruleset_id
        self.ruleset = self.host.rulesets[ruleset_id]
        seed = SQLiteStore(self.path)
        service = TableService(seed, self.host)
        _, self.tokens = service.create_table(ruleset_id, ruleset_id, table_id="t")
        self.ids = []
        for index, (name, sheet) in enumerate(self.ruleset.example_sheets.items()):
            actor = {"id": f"a{index}", "name": name, "sheet": dict(sheet)}
            if index == 0:
                actor["controllers"] = ["player"]  # the first is a player's, the rest NPCs
            service.handle("t", {"type": "actor.create", "id": f"c{index}", "actor": actor}, GM)
            self.ids.append(f"a{index}")
        self.created = service.table("t").info.seq
        seed.close()
        self.peers: list[Peer] = []
        #: the player's requests, by id (to send again)
        self.requests: dict[str, dict[str, Any]] = {}
        self.server: Any = None
        self.store: Any = None

    async def start(self) -> None:
        self.server, self.store = await start(self.path, self.host, dice=self.dice)

    async def restart(self) -> None:
        await self.stop()
        await self.start()

    async def stop(self) -> None:
        for peer in self.peers:
            peer._reader.cancel()
        self.peers.clear()
        if self.server.writer is not None:  # not stopped already
            await self.server.stop()

    async def join(self, role: str, locale: str = "en", resume: int | None = None) -> Peer:
        peer = Peer(await connect(self.server.url, max_size=2**22))
        self.peers.append(peer)
        hello: dict[str, Any] = {"type": "hello", "table": "t", "token": self.tokens[role],
                                 "locale": locale}  # fmt: skip
        if resume is not None:
            hello["resume"] = {"epoch": 1, "seq": resume}
        welcome = await peer.request(hello)
        assert welcome["type"] == "welcome", welcome
        if resume is not None:
            assert welcome["resume"]["recovered"] is True, welcome
        return peer


@pytest.fixture
async def worlds(tmp_path):
    made: list[World] = []

    async def make(ruleset_id: str) -> World:
        (tmp_path / ruleset_id).mkdir()
        world = World(tmp_path / ruleset_id, ruleset_id)
        await world.start()
        made.append(world)
        return world

    yield make
    for world in made:
        await world.stop()


def frame_of(view: dict[str, Any]) -> dict[str, Any]:
    """An ``event`` frame of table ``t`` holding ``view``."""
    return {"type": "event", "table": "t", **view}


def resistance(event: dict[str, Any]) -> list[str] | None:
    """The keys of an sr2 attack's resistance test (None: the attack missed)."""
    shown = event["data"]["outcome"]["resistance"]
    return None if shown is None else sorted(shown)


async def test_a_settings_change_sent_right_after_an_attack_does_not_reach_its_live_views(
    worlds,
):
    """The fuzz audit's case: a player's attack and the GM's ``show_npc_sheet`` sent
    back to back (the second executes while the first is being written). Before, the
    players whose view was built at delivery (another language than English) saw the
    guard's armour, Body and TN that the English players' view hid."""
    world = await worlds("sr2")
    gm, player, watcher = (await world.join("gm"), await world.join("player"),
                           await world.join("observer", "de"))  # fmt: skip
    player_de = await world.join("player", "ru")
    seq, hits = world.created, set()
    for attempt in range(8):
        on = attempt % 2 == 0
        await player.send({"type": "resolve", "id": f"a{attempt}", "action": "attack",
                           "actor": "a0", "targets": ["a1"],
                           "params": {"weapon": "Hackler", "range": "short"}})  # fmt: skip
        await gm.send({"type": "settings", "id": f"s{attempt}",
                       "settings": {"ruleset": {"show_npc_sheet": on}}})  # fmt: skip
        seq += 2
        for peer in (player, watcher, player_de, gm):
            await peer.wait_for(lambda p, s=seq: p.events and p.events[-1]["seq"] >= s)
        attack = seq - 1
        views = [next(e for e in peer.events if e["seq"] == attack)
                 for peer in (player, watcher, player_de)]  # fmt: skip
        assert [v["kind"] for v in views] == ["resolution"] * 3
        if resistance(views[0]) is None:
            continue  # a miss: no resistance test
        hits.add(on)
        shown = "armor" in resistance(views[0])
        assert shown is (not on), f"attempt {attempt}: the live view is not the table's then"
        assert [resistance(v) for v in views[1:]] == [resistance(views[0])] * 2, (
            f"attempt {attempt}: a player in another language saw another redaction"
        )
    assert hits == {True, False}, "the seeded dice hit both before a change on and off"


def requests_for(world: World) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Each action's example: the player's (its actor against NPCs) and the GM's (an
    NPC against the player's actor, and actions on every actor)."""
    ids, mine, theirs = world.ids, [], []
    for name, spec in world.ruleset.actions.items():
        wanted = spec.min_targets or (1 if (spec.max_targets or 0) >= 1 else 0)
        for acting, others in ((ids[0], ids[1:]), (ids[1], [ids[0], *ids[2:]])):
            message: dict[str, Any] = {"type": "resolve", "id": f"{name}-{acting}",
                                       "action": name,
                                       "params": spec.example_in("en") or {}}  # fmt: skip
            if spec.actor != "none":
                message["actor"] = acting
            if not spec.every_actor:
                message["targets"] = others[:wanted]
            player_may = acting == ids[0] and not spec.gm_only and not spec.every_actor
            (mine if player_may else theirs).append(message)
    return mine, theirs


async def shown_again(
    world: World, live: dict[str, dict[int, dict]], mine: dict[str, int], last: int
) -> list[str]:
    """Every way an event is shown again that does not give the live frames, of: a
    resume from before the first (each language), a retry of each of the player's
    requests, the session-log export (each language)."""
    wrong = []
    first = min(live["en"])
    for locale, frames in live.items():
        again = await world.join("player", locale, resume=first - 1)
        await again.wait_for(lambda p: p.events and p.events[-1]["seq"] >= last)
        resent = {e["seq"]: e for e in again.events}
        wrong += [f"resume in {locale}"] * ({s: resent[s] for s in frames} != frames)
        session = read_log(world.store, "t", world.host.rulesets)
        exported = {json.loads(line)["seq"]: json.loads(line) for line in
                    session.frames("player", locale)}  # fmt: skip
        wrong += [f"export in {locale}"] * ({s: exported[s] for s in frames} != frames)
        if locale == "en":
            for request_id, seq in mine.items():
                reply = await again.request(dict(world.requests[request_id]))
                assert reply["type"] == "result" and reply["seq"] == seq, reply
                wrong += [f"retry of {request_id}"] * (frame_of(reply["event"]) != frames[seq])
    return wrong


def redacted_as_now(world: World, live: dict[int, dict[str, Any]]) -> list[int]:
    """The events whose players' view would read otherwise were they shown as the
    table is now (what the server did before): the test has something at stake."""
    table = world.server.tables.open["t"].table
    fresh = {e.seq: e for e in world.store.events_after("t", 0)}  # no redaction of their own
    return [
        seq
        for seq, frame in live.items()
        if frame_of(table.view_event(fresh[seq], audience=Audience(False))) != frame
    ]


async def played(
    world: World, gm: Peer, player: Peer, shots: int = 0
) -> tuple[dict[str, int], int]:
    """The player's requests (:func:`requests_for`; ``shots`` more of its attack
    after them), then the GM's: the seq of each of the player's that made an event,
    by id (kept in ``world.requests``), and the table's seq after them all."""
    mine_requests, theirs = requests_for(world)
    attack = next((m for m in mine_requests if m.get("action") == "attack"), None)
    if shots:
        mine_requests += [{**attack, "id": f"shot{n}"} for n in range(shots)]
    world.requests = {m["id"]: m for m in mine_requests}
    mine: dict[str, int] = {}
    for message in mine_requests:
        reply = await player.request(message)
        if reply["type"] == "result" and "seq" in reply:
            mine[message["id"]] = reply["seq"]
    for message in theirs:
        await gm.request(message)
    assert mine, "the player's actor acted"
    return mine, (await gm.request({"type": "state"}))["table"]["seq"]


async def changed(world: World, gm: Peer, change: str) -> int:
    """The GM's change — ``settings``: the ruleset's NPC-detail setting turned on;
    ``controllers``: every NPC made the player's (``actor.update``) — and its (last)
    seq."""
    if change == "settings":
        settings = {"ruleset": REVEALING[world.ruleset_id]}
        replies = [await gm.request({"type": "settings", "settings": settings})]
    else:
        replies = [await gm.request({"type": "actor.update", "actor": actor_id,
                                     "controllers": ["player"]})
                   for actor_id in world.ids[1:]]  # fmt: skip
    assert all(reply["type"] == "result" for reply in replies), replies
    return replies[-1]["seq"]


@pytest.mark.parametrize("change", ["settings", "controllers"])
@pytest.mark.parametrize("ruleset_id", RULESETS)
async def test_an_event_reads_the_same_live_on_retry_resume_and_export_after_a_change(
    worlds, ruleset_id, change
):
    """``settings``: the ruleset's NPC-detail setting turned on; ``controllers``: every
    NPC made the player's (``actor.update``)."""
    world = await worlds(ruleset_id)
    gm = await world.join("gm")
    players = {locale: await world.join("player", locale) for locale in ("en", "de", "cs")}
    mine, last = await played(world, gm, players["en"])
    for peer in players.values():
        await peer.wait_for(lambda p: p.events and p.events[-1]["seq"] >= last)
    live = {
        locale: {e["seq"]: e for e in peer.events if e["seq"] > world.created}
        for locale, peer in players.items()
    }

    await changed(world, gm, change)
    if change == "settings" or ruleset_id in NAMES_UNCHANGED_NPCS:
        assert redacted_as_now(world, live["en"]), "no event would read otherwise: nothing at stake"
    assert await shown_again(world, live, mine, last) == []
    await world.restart()  # every event read back from the log
    assert await shown_again(world, live, mine, last) == []


async def rolled(gm: Any, count: int) -> None:
    """The GM rolls ``count`` times (sent 25 at a time: one event each)."""
    for done in range(0, count, 25):
        sent = [await gm.send({"type": "roll", "formula": "1d6"})
                for _ in range(min(25, count - done))]  # fmt: skip
        for request_id in sent:
            assert (await gm.reply(request_id))["type"] == "result"


@pytest.mark.parametrize("change", ["settings", "controllers"])
async def test_a_retry_after_a_restart_and_a_change_reads_only_up_to_the_change(
    worlds, change, monkeypatch
):
    """The player's requests (two more shots at the guard among them, whose players'
    views depend on the change) are repeated after a restart, 150 events, the change
    (the NPC-detail setting on, or every NPC made the player's) and 150 events more.
    Each repeat's event reads as it did live, and its read of the log asks only for
    the events from its own to the change — the first that left the table as it is —
    where it read the whole rest of the retained log (``until``: None)."""
    world = await worlds("sr2")
    gm, player = await world.join("gm"), await world.join("player")
    mine, last = await played(world, gm, player, shots=2)  # (the magazine's rest)
    await player.wait_for(lambda p: p.events and p.events[-1]["seq"] >= last)
    live = {e["seq"]: e for e in player.events if e["seq"] > world.created}
    await world.restart()
    gm = await world.join("gm")
    await rolled(gm, 150)
    change_seq = await changed(world, gm, change)
    await rolled(gm, 150)
    at_stake = set(redacted_as_now(world, live)) & set(mine.values())
    assert at_stake, "no repeated event would read otherwise: nothing at stake"
    reads: list[tuple[int, int | None, int]] = []
    original = world.store.events_after

    def counted(table_id: str, seq: int, until: int | None = None) -> Any:
        found = original(table_id, seq, *(() if until is None else (until,)))  # (any version)
        reads.append((seq, until, len(found)))
        return found

    monkeypatch.setattr(world.store, "events_after", counted)
    again = await world.join("player")
    for request_id, seq in mine.items():
        reply = await again.request(dict(world.requests[request_id]))
        assert reply["type"] == "result" and reply["seq"] == seq, reply
        assert frame_of(reply["event"]) == live[seq], f"retry of {request_id}"
    assert reads == [(seq - 1, change_seq, change_seq - seq + 1) for seq in mine.values()]
