"""A restored table's ``welcome`` says which epochs its history ran through
(``epochs``, docs/protocol.md), over a real socket on a real SQLite file, in the plain
protocol and in the Foundry dialect (which the module reads to mark its chat cards:
docs/foundry.md, "A card a restore undid is marked").

Before, the welcome did not say where the restored epoch began: the module guessed it
from the welcome's seq and the GM's cards, so when the restored table went on while
no GM's client posted cards, the cards between the backup's seq and the welcome's
were left unmarked, and a later restore of an older backup (one of the first epoch,
taken after the first restore's backup) left the mark on cards that stood again.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

from rollbridge.cli import main
from rollbridge.stores.sqlite import SQLiteStore
from tests.server.conftest import Tables, make_host, seed_tables, start


async def _foundry_welcome(world: Tables) -> dict[str, Any]:
    """The GM's welcome in the Foundry dialect, as the module's client is sent it."""
    async with connect(world.server.url) as ws:
        hello = {"type": "hello", "id": "h", "table": "sr2", "token": world.tokens["sr2"]["gm"],
                 "dialect": "foundry"}  # fmt: skip
        await ws.send(json.dumps(hello))
        while True:
            frame = json.loads(await ws.recv())
            if frame.get("id") == "h":
                return frame


async def _rolls(world: Tables, count: int) -> int:
    """``count`` rolls at the sr2 table as its GM; the last one's seq."""
    gm, _ = await world.join("sr2", "gm")
    for _ in range(count):
        last = await gm.request({"type": "roll", "formula": "1d6"})
    return last["seq"]


class Night:
    """One SQLite file served in turn by servers on real ports, backed up and restored
    as docs/operations.md says (the server stopped, the file put back)."""

    def __init__(self, tally: Any, folder: Path) -> None:
        self.host, self.folder = make_host(tally), folder
        self.path = folder / "rollbridge.db"
        with SQLiteStore(self.path) as seed:
            self.tokens = seed_tables(seed, self.host)
        self.world: Tables | None = None

    async def serve(self) -> Tables:
        server, store = await start(self.path, self.host)
        self.world = Tables(server, store, self.path, self.tokens)
        return self.world

    async def stop(self) -> None:
        if self.world is not None:
            for peer in self.world.peers:
                peer._reader.cancel()
            await self.world.server.stop()
            self.world = None

    async def backup(self, name: str) -> Path:
        copy = self.folder / name
        assert await asyncio.to_thread(main, ["backup", "--db", str(self.path), str(copy)]) == 0
        return copy

    async def restore(self, copy: Path) -> Tables:
        await self.stop()
        for end in ("", "-wal", "-shm"):
            (self.folder / f"rollbridge.db{end}").unlink(missing_ok=True)
        shutil.copy(copy, self.path)
        with SQLiteStore(self.path) as restoring:  # as rollbridge serve does first
            assert restoring.finish_restore() is not None
        return await self.serve()


async def test_a_restores_welcome_says_which_epochs_the_history_ran_through(tally, tmp_path):
    night = Night(tally, tmp_path)
    world = await night.serve()
    try:
        _, first = await world.join("sr2", "gm")
        assert "epochs" not in first  # never restored: nothing to tell
        a = first["epoch"]
        early = await _rolls(world, 3)
        copy_early = await night.backup("early.db")
        late = await _rolls(world, 3)
        copy_late = await night.backup("late.db")  # of epoch a, after the early one
        await _rolls(world, 2)

        world = await night.restore(copy_early)
        _, welcome = await world.join("sr2", "player")
        b = welcome["epoch"]
        assert b != a and welcome["seq"] == early
        assert welcome["epochs"] == [{"epoch": a, "from": 0}, {"epoch": b, "from": early}]
        foundry = await _foundry_welcome(world)
        assert foundry["foundry"]["adapter"] and foundry["epochs"] == welcome["epochs"]
        # the restored table goes on (no GM's client then): the record stays with it
        await _rolls(world, 2)
        await night.stop()
        world = await night.serve()
        _, welcome = await world.join("sr2", "gm")
        assert welcome["seq"] == early + 2
        assert welcome["epochs"] == [{"epoch": a, "from": 0}, {"epoch": b, "from": early}]

        # a later restore of the later backup of epoch a: epoch b is no longer history,
        # and a's events up to the later backup's seq stand again
        world = await night.restore(copy_late)
        _, welcome = await world.join("sr2", "gm")
        c = welcome["epoch"]
        assert c not in (a, b) and welcome["seq"] == late
        assert welcome["epochs"] == [{"epoch": a, "from": 0}, {"epoch": c, "from": late}]
    finally:
        await night.stop()


async def test_a_restore_of_a_restored_tables_backup_keeps_the_whole_history(tally, tmp_path):
    night = Night(tally, tmp_path)
    world = await night.serve()
    try:
        _, first = await world.join("sr2", "gm")
        a = first["epoch"]
        one = await _rolls(world, 2)
        copy_one = await night.backup("one.db")
        await _rolls(world, 2)
        world = await night.restore(copy_one)
        _, welcome = await world.join("sr2", "gm")
        b = welcome["epoch"]
        two = await _rolls(world, 3)
        copy_two = await night.backup("two.db")  # of epoch b: its record with it
        await _rolls(world, 1)
        world = await night.restore(copy_two)
        _, welcome = await world.join("sr2", "gm")
        c = welcome["epoch"]
        assert welcome["epochs"] == [
            {"epoch": a, "from": 0},
            {"epoch": b, "from": one},
            {"epoch": c, "from": two},
        ]
    finally:
        await night.stop()
