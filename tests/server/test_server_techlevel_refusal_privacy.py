"""techlevel's refusals tell a player nothing of an NPC its view hides (fuzz audit,
finding 1): a player's ``enchant``, ``dispel`` or ``hit`` against an NPC was refused
with the NPC's item and mount names and whether its armour is magical, in the message
and in ``details`` (``cannot improve 'Plate' with 'Haste': 'Plate' on the armour is
magical``, ``details: {"item": "Plate"}``), though the player's view of that NPC shows
only boxes. Over a real server: a player reads the layer (or the mount's kind) instead,
in every language, ``details`` name no item, casting onto an NPC's armour is one
refusal whether it is magical or not; the GM, a player about its own actor, and a
table with ``show_npc_details`` still read the names."""

from __future__ import annotations

from typing import Any

import pytest
from websockets.asyncio.client import connect

from rollbridge.engine import Principal
from rollbridge.host import PluginHost
from rollbridge.i18n import LOCALES
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore

from .conftest import Peer, start

GM = Principal("gm", "gm", "setup")
#: What players may not see of the NPCs: their items', spells' and mount's names.
HIDDEN = ("Plate", "Ironskin", "Kevlar", "Warhorse", "Barding")

IMPROVE = {"layer": "armour", "mode": "improve", "spell": "Haste", "boxes": 10}
CAST = {"layer": "armour", "mode": "cast", "spell": "Haste", "boxes": 10, "tl": 2}


def resolve(action: str, target: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"type": "resolve", "action": action, "actor": "ana", "targets": [target],
            "params": params}  # fmt: skip


#: Each refusal about an NPC's layer: the request, its code, and words of what the GM
#: reads (the player reads none of HIDDEN).
REFUSALS = [
    (resolve("enchant", "knight", IMPROVE), "magical_armour_present", "'Plate' on the armour"),
    (resolve("enchant", "knight", CAST), "cast_onto_armour", "'Plate' on the armour is magical"),
    (resolve("enchant", "guard", CAST), "cast_onto_armour", "while 'Kevlar vest' is worn"),
    (resolve("dispel", "guard", {"layer": "armour"}), "not_magical", "'Kevlar vest' on the"),
    (resolve("hit", "knight", {"dice": "1d6", "tl": 2, "section": "front"}), "invalid_params",
     "'Warhorse' has no section 'front'"),
    (resolve("enchant", "wreck", IMPROVE), "item_destroyed", "cannot improve 'Kevlar vest'"),
]  # fmt: skip


@pytest.fixture
async def world(tmp_path):
    """A techlevel table: Ana (the player's), the Knight (magical Plate, on a
    Warhorse), a Guard (a Kevlar vest) and a Wreck (a Guard whose vest is destroyed)."""
    host = PluginHost(environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    path = tmp_path / "techlevel.db"
    seed = SQLiteStore(path)
    service = TableService(seed, host)
    _, tokens = service.create_table("tl", "techlevel", table_id="tl")
    sheets = host.rulesets["techlevel"].example_sheets
    actors = [("ana", "Ana", ["player"]), ("knight", "Knight", []), ("guard", "Guard", []),
              ("wreck", "Guard", [])]  # fmt: skip
    for index, (actor_id, name, controllers) in enumerate(actors):
        actor = {"id": actor_id, "name": name.title() if actor_id != "wreck" else "Wreck",
                 "sheet": dict(sheets[name]), "controllers": controllers}  # fmt: skip
        service.handle("tl", {"type": "actor.create", "id": f"c{index}", "actor": actor}, GM)
    destroy = {"type": "resolve", "id": "d", "action": "destroy", "targets": ["wreck"],
               "params": {"layer": "armour"}}  # fmt: skip
    assert service.handle("tl", destroy, GM)["status"] == "done"
    seed.close()
    server, _ = await start(path, host)
    peers: list[Peer] = []

    async def join(role: str, locale: str = "en") -> Peer:
        peer = Peer(await connect(server.url, max_size=2**22))
        peers.append(peer)
        welcome = await peer.request(
            {"type": "hello", "table": "tl", "token": tokens[role], "locale": locale}
        )
        assert welcome["type"] == "welcome", welcome
        return peer

    yield join
    for peer in peers:
        peer._reader.cancel()
    await server.stop()


def leaked(reply: dict[str, Any]) -> list[str]:
    return [name for name in HIDDEN if name in str(reply)]


@pytest.mark.parametrize(("request_", "code", "gm_reads"), REFUSALS, ids=lambda v: str(v)[:24])
async def test_a_players_refusal_names_nothing_of_an_npc_the_gms_does(
    world, request_, code, gm_reads
):
    gm, player = await world("gm"), await world("player")
    mine = await player.request(request_)
    assert mine["type"] == "error" and mine["code"] == code, mine
    assert not leaked(mine), mine
    theirs = await gm.request(request_)
    assert theirs["code"] == code, theirs
    assert gm_reads in theirs["message"], theirs
    assert set(mine.get("details", {})) == set(theirs.get("details", {}))


@pytest.mark.parametrize("locale", LOCALES[1:])
async def test_in_every_language_too(world, locale):
    player = await world("player", locale)
    for request_, code, _ in REFUSALS:
        refused = await player.request(request_)
        assert refused["code"] == code, refused
        assert not leaked(refused), refused


async def test_casting_onto_an_npcs_armour_is_one_refusal_magical_or_not(world):
    """TL-9: the view hides whether an NPC's armour is magical, and so does the refusal
    of a cast onto it: the same code and the same words for the Knight's magical Plate
    and the Guard's Kevlar vest (the layers' names are the same)."""
    player = await world("player")
    knight = await player.request(resolve("enchant", "knight", CAST))
    guard = await player.request(resolve("enchant", "guard", CAST))
    assert (knight["code"], knight["message"], knight.get("details")) == (
        guard["code"], guard["message"], guard.get("details"),
    )  # fmt: skip


async def test_a_players_own_actor_and_show_npc_details_keep_the_names(world):
    gm, player = await world("gm"), await world("player")
    own = await player.request(resolve("dispel", "ana", {"layer": "shield"}))
    assert own["code"] == "not_magical" and "'Belt shield'" in own["message"], own
    done = await gm.request({"type": "settings", "settings": {"ruleset": {
        "show_npc_details": True}}})  # fmt: skip
    assert done["type"] == "result", done
    shown = await player.request(resolve("dispel", "guard", {"layer": "armour"}))
    assert "'Kevlar vest' on the armour" in shown["message"], shown
