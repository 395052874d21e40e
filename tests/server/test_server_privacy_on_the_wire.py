"""No NPC detail reaches a player, on the wire, for every built-in ruleset (Core issue,
item 3) and in every language (Localisation issue, item 5): every action of each
ruleset is resolved over a real socket with NPCs taking part, and every frame a player
received — one player per locale — is exactly the players' view the engine builds from
the stored event in that player's locale; and at every place the event marks an NPC's
private value, the player's frame holds nothing, or what the ruleset gave instead."""

from __future__ import annotations

from typing import Any

import pytest
from websockets.asyncio.client import connect

from rollbridge.engine import Principal
from rollbridge.engine.views import Audience
from rollbridge.host import PluginHost
from rollbridge.i18n import LOCALES
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore

from .conftest import Peer, start

GM = Principal("gm", "gm", "setup")
RULESETS = ("sr2", "techlevel", "bandits", "wilddie")
_MISSING = object()


def at(data: Any, path: list[Any]) -> Any:
    for key in path:
        if (isinstance(data, dict) and key in data) or (
            isinstance(data, list) and isinstance(key, int) and 0 <= key < len(data)
        ):
            data = data[key]
        else:
            return _MISSING
    return data


def seed_every_ruleset(path, host) -> dict[str, dict[str, str]]:
    """A table per built-in ruleset in the SQLite file ``path``, each with the
    ruleset's example characters (``a0``, ``a1``, …): the first a player's, the rest
    NPCs. The join tokens of each table."""
    seed = SQLiteStore(path)
    service = TableService(seed, host)
    tokens = {}
    for ruleset_id in RULESETS:
        _, tokens[ruleset_id] = service.create_table(ruleset_id, ruleset_id, table_id=ruleset_id)
        sheets = host.rulesets[ruleset_id].example_sheets
        for index, (name, sheet) in enumerate(sheets.items()):
            actor = {"id": f"a{index}", "name": name, "sheet": dict(sheet)}
            if index == 0:
                actor["controllers"] = ["player"]  # the first is a player's, the rest NPCs
            service.handle(ruleset_id, {"type": "actor.create", "id": f"c{index}",
                                        "actor": actor}, GM)  # fmt: skip
    seed.close()
    return tokens


@pytest.fixture
async def world(tmp_path):
    host = PluginHost(environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    path = tmp_path / "privacy.db"
    tokens = seed_every_ruleset(path, host)
    server, store = await start(path, host)
    peers: list[Peer] = []

    async def join(ruleset_id: str, role: str, locale: str = "en") -> Peer:
        peer = Peer(await connect(server.url, max_size=2**22))
        peers.append(peer)
        hello = {"type": "hello", "table": ruleset_id, "token": tokens[ruleset_id][role]}
        welcome = await peer.request({**hello, "locale": locale})
        assert welcome["locale"] == locale
        return peer

    yield server, store, host, join
    for peer in peers:
        peer._reader.cancel()
    await server.stop()


def requests_for(ruleset, actor_ids: list[str]) -> list[dict[str, Any]]:
    """Each action's example, once with the player's actor against NPCs and once with
    an NPC acting against the player's actor, where the action takes an actor."""
    out = []
    for name, spec in ruleset.actions.items():
        wanted = spec.min_targets or (1 if (spec.max_targets or 0) >= 1 else 0)
        pairs = [(actor_ids[0], actor_ids[1:]), (actor_ids[1], [actor_ids[0], *actor_ids[2:]])]
        for acting, others in pairs if spec.actor != "none" else [(None, actor_ids[1:])]:
            message: dict[str, Any] = {"type": "resolve", "action": name,
                                       "params": spec.example_in("en") or {}}  # fmt: skip
            if acting is not None:
                message["actor"] = acting
            if not spec.every_actor:
                message["targets"] = others[:wanted]
            out.append(message)
    return out


@pytest.mark.parametrize("ruleset_id", RULESETS)
async def test_a_players_frames_are_the_players_view_and_hold_no_npc_detail(world, ruleset_id):
    server, store, host, join = world
    gm = await join(ruleset_id, "gm")
    players = {locale: await join(ruleset_id, "player", locale) for locale in LOCALES}
    ruleset = host.rulesets[ruleset_id]
    ids = [f"a{i}" for i in range(len(ruleset.example_sheets))]
    done = 0
    for message in requests_for(ruleset, ids):
        reply = await gm.request(message)
        done += reply.get("type") == "result"
    assert done >= len(ruleset.actions) // 2  # the rules refuse some (bleed: nobody dying)
    last = (await gm.request({"type": "state"}))["table"]["seq"]
    for player in players.values():
        await player.wait_for(lambda p: p.events and p.events[-1]["seq"] == last)

    table = server.tables.open[ruleset_id].table
    stored = {e.seq: e for e in store.events_after(ruleset_id, 0)}
    for locale, player in players.items():
        checked_private = 0
        for frame in player.events:
            event = stored[frame["seq"]]
            view = table.view_event(event, audience=Audience(False, locale))
            expected = {"type": "event", "table": ruleset_id, **view}
            assert frame == expected, f"{ruleset_id} seq {frame['seq']} in {locale}: not the view"
            npc_marks = [e for e in event.private if not table.controlled(e[1])
                         and not ruleset.reveals(e[2], table.ruleset_settings)]  # fmt: skip
            for path, *rest in npc_marks:
                seen = at(frame["data"], path)
                if len(rest) > 2:  # the ruleset said what players read instead
                    assert seen is _MISSING or seen != at(event.data, path) or seen == rest[2]
                else:
                    assert seen is _MISSING, f"{ruleset_id} {event.kind} {path}: {seen!r} leaked"
                checked_private += 1
        assert checked_private, f"{ruleset_id}: no NPC detail was at stake"
    narrations = {
        locale: [f["data"].get("narration") for f in player.events if f["kind"] == "resolution"]
        for locale, player in players.items()
    }
    for locale in LOCALES[1:]:  # each language its own words (the catalogues are complete)
        assert narrations[locale] != narrations["en"], f"{ruleset_id}: {locale} reads English"
