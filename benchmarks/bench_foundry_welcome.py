"""Bytes of a Foundry GM's ``welcome`` at sr2 tables of many NPCs with long names.

Run from anywhere, with the Python rollbridge is developed with (3.11+)::

    python benchmarks/bench_foundry_welcome.py 30 300 999
    python benchmarks/bench_foundry_welcome.py 30 300 999 --without-players

For each count it makes a table (one player's character, that many NPCs named
"Nameless corporate security guard of the Renraku arcology, shift NNN") with the
offline :class:`~rollbridge.offline.TableService`, starts a server on a free port of
127.0.0.1 and prints the bytes on the wire of: a Foundry GM's first welcome (a
snapshot) as JSON and as msgpack, a Foundry GM's resume after three adjustments
(recovered: the welcome alone, its missed events not counted), a plain GM's and a
Foundry player's welcome, and whether each carries ``players``.
``--without-players`` takes ``welcome`` out of the Foundry adapter's
``public_view``: the welcome as it was before it carried the NPCs' players' view
(docs/foundry.md, "What every client may read of an actor"). The figures do not
move with the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

import msgpack
from websockets.asyncio.client import connect

from rollbridge.adapters.foundry.adapter import FoundryAdapter
from rollbridge.engine import Principal
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.server import Server
from rollbridge.stores import MemoryStore

HOST = PluginHost()
SETUP = Principal("gm", "gm", "setup")
GUARD = {"body": 5, "combat_pool": 3, "armor": {"ballistic": 8, "impact": 6}}
NAME = "Nameless corporate security guard of the Renraku arcology, shift {:03d}"


def make_table(count: int) -> tuple[MemoryStore, dict[str, str]]:
    """A store holding table ``big``: one player's character and ``count`` NPCs."""
    store = MemoryStore()
    service = TableService(store, HOST)
    _, tokens = service.create_table("Big", "sr2", table_id="big")
    cast = [("ana", "Ana", HOST.rulesets["sr2"].example_sheets["Tukan"], ["player"])]
    cast += [(f"npc{n:04d}", NAME.format(n), GUARD, []) for n in range(count)]
    for actor_id, name, sheet, controllers in cast:
        actor = {"id": actor_id, "name": name, "sheet": sheet, "controllers": controllers}
        request = {"type": "actor.create", "id": f"c-{actor_id}", "actor": actor}
        assert service.handle("big", request, SETUP)["status"] == "done"
    return store, tokens


async def welcome(url: str, hello: dict[str, Any], codec: str = "json") -> tuple[int, dict]:
    """The bytes of the welcome to ``hello`` and the welcome itself."""
    async with connect(url, max_size=None) as ws:
        await ws.send(json.dumps(hello) if codec == "json" else msgpack.packb(hello))
        frame = await ws.recv()
        message = json.loads(frame) if isinstance(frame, str) else msgpack.unpackb(frame)
        assert message["type"] == "welcome", message
        return len(frame.encode() if isinstance(frame, str) else frame), message


async def measure(count: int) -> dict[str, Any]:
    """Each welcome's bytes and whether it carries ``players``."""
    store, tokens = make_table(count)
    server = Server(store, HOST, port=0)
    await server.start()
    out: dict[str, Any] = {"npcs": count}
    try:
        gm = {"type": "hello", "id": "h", "table": "big", "token": tokens["gm"]}
        foundry = {**gm, "dialect": "foundry"}
        size, first = await welcome(server.url, foundry)
        out["gm foundry json"] = (size, "players" in first)
        size, packed = await welcome(server.url, foundry, "msgpack")
        out["gm foundry msgpack"] = (size, "players" in packed)
        async with connect(server.url, max_size=None) as ws:
            await ws.send(json.dumps(foundry))
            await ws.recv()
            for n in range(3):
                adjust = {"type": "adjust", "id": f"a{n}", "actor": f"npc{n:04d}"}
                await ws.send(json.dumps({**adjust, "track": "stun", "delta": 1}))
                while json.loads(await ws.recv()).get("id") != f"a{n}":
                    pass
        resume = {"epoch": first["epoch"], "seq": first["seq"]}
        size, resumed = await welcome(server.url, {**foundry, "resume": resume})
        assert resumed["resume"]["recovered"] is True, resumed["resume"]
        out["gm foundry resume json"] = (size, "players" in resumed)
        size, plain = await welcome(server.url, {**gm, "dialect": "rollbridge"})
        out["gm rollbridge json"] = (size, "players" in plain)
        player = {**foundry, "token": tokens["player"]}
        size, seen = await welcome(server.url, player)
        out["player foundry json"] = (size, "players" in seen)
    finally:
        await server.stop()
    return out


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    """Measure each count given in ``argv``, print one JSON line each and return them."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("counts", nargs="+", type=int, help="NPCs at the table (at most 999)")
    before = "the welcome as before it carried the NPCs' players' view"
    parser.add_argument("--without-players", action="store_true", help=before)
    options = parser.parse_args(argv)
    wanted = FoundryAdapter.public_view
    if options.without_players:  # put back after: a test runs this in its own process
        FoundryAdapter.public_view = wanted - {"welcome"}
    try:
        figures = [asyncio.run(measure(count)) for count in options.counts]
    finally:
        FoundryAdapter.public_view = wanted
    for row in figures:
        print(json.dumps(row))
    return figures


if __name__ == "__main__":
    main()
