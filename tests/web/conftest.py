"""Fixtures of the web view's tests: a real server on 127.0.0.1 over a real SQLite
file, with seeded dice, and a sr2 table of three actors (the player's Tukan, Rook
of another player, the NPC Guard A); a second table whose actor's name is HTML; a
third whose players' requests wait for the GM's approval; a wilddie table whose
player plays Ana."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import rollbridge
from rollbridge.dice.sources import SeededDice
from rollbridge.engine import Principal
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.server import Server
from rollbridge.server.limits import Limits
from rollbridge.stores.sqlite import SQLiteStore
from tests.server.conftest import TEST_LIMITS
from tests.server.httpclient import debug_log  # noqa: F401  (a fixture)

GM = Principal("gm", "gm", "setup")
#: The seed of every request's dice: with it Tukan's attack (browser/pages.mjs,
#: ``fillAttack``) hits Rook and a 4d6x roll explodes (the browser test checks both
#: happened, not their numbers).
SEED = 1
#: The name of the actor of the table ``xss``: HTML that would run if parsed.
XSS_NAME = "<img src=x onerror=alert(1)>"


class OneRuleset:
    """A plugin that registers one ruleset (a test's own)."""

    def __init__(self, ruleset: Any) -> None:
        self.ruleset = ruleset

    @rollbridge.hookimpl
    def register_rulesets(self, register) -> None:
        register(self.ruleset)


def host_of(name: str, ruleset: Any) -> PluginHost:
    """A plugin host with the one plugin ``name`` registering ``ruleset``, and no
    other (the installed plugins not loaded)."""
    return PluginHost(
        {name: OneRuleset(ruleset)}, environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"}
    )


@dataclass
class WebWorld:
    """A running server and the tokens of its tables (``web``, ``xss``, ``approval``,
    ``wild``)."""

    server: Server
    store: SQLiteStore
    tokens: dict[str, dict[str, str]]

    @property
    def base(self) -> str:
        """The server's http:// origin."""
        return f"http://{self.server.address}:{self.server.port}"


def seed_tables(store: SQLiteStore, host: PluginHost) -> dict[str, dict[str, str]]:
    """The tables ``web``, ``xss``, ``approval`` (players' requests wait for the
    GM) and ``wild`` (wilddie) and their gm, player and observer tokens."""
    service = TableService(store, host)
    sheets = host.rulesets["sr2"].example_sheets
    wild = host.rulesets["wilddie"].example_sheets
    tokens: dict[str, dict[str, str]] = {}
    _, tokens["web"] = service.create_table("Friday run", "sr2", table_id="web")
    _, tokens["xss"] = service.create_table("Hostile names", "sr2", table_id="xss")
    _, tokens["approval"] = service.create_table("Asking first", "sr2", table_id="approval")
    _, tokens["wild"] = service.create_table("Wild night", "wilddie", table_id="wild")
    approval = {"type": "settings", "id": "approval-on", "settings": {"approval": True}}
    service.handle("approval", approval, GM)
    guard = ("guard-a", "Guard A", "Guard A", [])
    tukan = ("tukan", "Tukan", "Tukan", ["player"])
    casts = {
        "web": [tukan, ("rook", "Rook", "Guard B", ["ally"]), guard],
        "xss": [("evil", XSS_NAME, "Tukan", ["player"]), guard],
        "approval": [tukan, guard],
        "wild": [("ana", "Ana", "Ana", ["player"]), ("guard", "Guard", "Guard", [])],
    }
    for table, cast in casts.items():
        add_cast(service, table, cast, wild if table == "wild" else sheets)
    return tokens


def add_cast(
    service: TableService,
    table: str,
    cast: list[tuple[str, str, str, list[str]]],
    book: dict[str, dict[str, Any]],
) -> None:
    """Create at ``table`` (as its GM) each actor of ``cast`` — its id, name, the name
    of its sheet in ``book`` (a ruleset's example sheets) and its controllers."""
    for index, (actor_id, name, sheet, controllers) in enumerate(cast):
        actor = {"id": actor_id, "name": name, "sheet": dict(book[sheet])}
        actor["controllers"] = controllers
        request = {"type": "actor.create", "id": f"{table}-{index}", "actor": actor}
        service.handle(table, request, GM)


@asynccontextmanager
async def served_world(
    tmp_path: Path,
    limits: Limits = TEST_LIMITS,
    server_options: dict[str, Any] | None = None,
    **store_options: Any,
) -> AsyncIterator[WebWorld]:
    """A server on a free port of 127.0.0.1 over ``web.db`` in ``tmp_path``, its
    tables seeded, dice seeded with :data:`SEED`, under ``limits`` and
    ``server_options`` (``buffer_limit``), its store opened with ``store_options``
    (``retain``); stopped, and its store closed, after."""
    path = tmp_path / "web.db"
    host = PluginHost()
    with SQLiteStore(path) as seed:
        tokens = seed_tables(seed, host)
    async with serving(path, host, tokens, limits, server_options, **store_options) as world:
        yield world


@asynccontextmanager
async def serving(
    path: Path,
    host: PluginHost,
    tokens: dict[str, dict[str, str]],
    limits: Limits = TEST_LIMITS,
    server_options: dict[str, Any] | None = None,
    **store_options: Any,
) -> AsyncIterator[WebWorld]:
    """A server on a free port of 127.0.0.1 over the seeded store at ``path`` with
    ``host``'s rulesets, dice seeded with :data:`SEED` (as :func:`served_world`);
    stopped, and its store closed, after."""
    store = SQLiteStore(path, **store_options)
    server = Server(store, host, port=0, limits=limits, dice=lambda: SeededDice(SEED),
                    **(server_options or {}))  # fmt: skip
    await server.start()
    try:
        yield WebWorld(server, store, tokens)
    finally:
        await server.stop()
        store.close()


@pytest.fixture
async def web_world(tmp_path) -> Any:
    """A server on a free port of 127.0.0.1 over ``web.db`` in tmp, dice seeded with
    :data:`SEED`; stopped after the test."""
    async with served_world(tmp_path) as world:
        yield world
