"""Fixtures for the session log export: a table with a night's events on a real
SQLite file (seeded and supplied dice), and the server fixtures of tests/server."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from rollbridge.dice.sources import ScriptedDice, SeededDice
from rollbridge.engine import Principal
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore
from tests.server.conftest import make_tables, tables  # noqa: F401  (fixtures)
from tests.server.httpclient import debug_log  # noqa: F401  (a fixture)

GM = Principal("gm", "gm", "gm-key")
PLAYER = Principal("player", "player", "player-key")

#: The GM's secret roll: a formula, a constant and a label no player may see.
SECRET_ROLL = {"type": "roll", "formula": "17d6+48611", "label": "ambush check", "secret": True}
#: The attack the player makes with Tukan at Guard A (sr2's example parameters).
ATTACK = {"weapon": "Hackler", "skill": 5, "attacker_pool": 2, "rounds": 3, "range": "short"}


#: When the night's clock starts (2026-12-02T19:00:00Z), and how far it moves per event.
NIGHT_START, NIGHT_TICK = 1796238000.0, 30.0


class Clock:
    """A table's clock for tests: NIGHT_START, then NIGHT_TICK seconds later at
    every reading (the engine reads it once per event)."""

    def __init__(self) -> None:
        self.readings = 0

    def __call__(self) -> float:
        self.readings += 1
        return NIGHT_START + NIGHT_TICK * (self.readings - 1)


@dataclass
class Night:
    """A sr2 table after a night: its store file, the seqs of what happened."""

    path: Any
    host: PluginHost
    seqs: dict[str, int]

    def store(self, **options: Any) -> SQLiteStore:
        return SQLiteStore(self.path, **options)


def play_night(service: TableService, table: str = "sr2") -> dict[str, int]:
    """The events every export test reads, by name: their seqs."""
    sheets = service.host.rulesets["sr2"].example_sheets
    for index, (name, controllers) in enumerate([("Tukan", ["player"]), ("Guard A", [])]):
        actor = {"id": name.lower().replace(" ", "-"), "name": name,
                 "sheet": dict(sheets[name]), "controllers": controllers}  # fmt: skip
        service.handle(table, {"type": "actor.create", "id": f"a{index}", "actor": actor}, GM)
    seqs: dict[str, int] = {}

    def do(name: str, message: dict, who: Principal = GM, dice: Any = None) -> None:
        reply = service.handle(table, {"id": name, **message}, who, dice)
        seqs[name] = reply["seq"]

    # 6 explodes into 6, which explodes into 1: [6!→6!→1, 4, 2] + 2 = 21
    do("boom", {"type": "roll", "formula": "3d6x+2", "label": "boom",
                "dice": [6, 4, 2, 6, 1]})  # fmt: skip
    do("secret", SECRET_ROLL)
    do("attack", {"type": "resolve", "action": "attack", "actor": "tukan",
                  "targets": ["guard-a"], "params": ATTACK}, PLAYER)  # fmt: skip
    do("adjust", {"type": "adjust", "actor": "guard-a", "track": "physical", "delta": 4})
    do("undo", {"type": "undo"})
    do("redo", {"type": "redo"})
    return seqs


@pytest.fixture
def night(tmp_path) -> Night:
    """A sr2 table ``sr2`` on a SQLite file, played with seeded dice."""
    path = tmp_path / "night.db"
    host = PluginHost()
    with SQLiteStore(path) as store:
        service = TableService(store, host, dice=lambda: SeededDice(2026), clock=Clock())
        service.create_table("Friday night", "sr2", table_id="sr2")
        seqs = play_night(service)
    return Night(path, host, seqs)


__all__ = [
    "ATTACK",
    "GM",
    "NIGHT_START",
    "NIGHT_TICK",
    "PLAYER",
    "SECRET_ROLL",
    "Clock",
    "Night",
    "ScriptedDice",
    "play_night",
]
