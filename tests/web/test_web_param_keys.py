"""A ruleset's parameter without the ruleset's words for it, on the web view in real
headless Chromium against a real server (browser/param_keys.mjs).

A parameter the ruleset gives no label for in the viewer's language was shown by its
key — *extra_dice* — in the form, the GM's list of requests waiting and the
player's own log entry, in every language. It is shown as its schema's ``title``
where it has one, else as its key in words (*Extra dice*).

Needs what tests/web/test_web_browser.py needs; skipped without chromium.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from rollbridge import ActionContext, Resolution
from rollbridge.contract import ActionSpec
from rollbridge.dice import DiceGroup, DiceSource, roll_die
from rollbridge.dice.sources import SeededDice
from rollbridge.offline import TableService
from rollbridge.server import Server
from rollbridge.stores.sqlite import SQLiteStore
from tests.conftest import Tally
from tests.server.conftest import TEST_LIMITS
from tests.web.conftest import GM, SEED, WebWorld, host_of
from tests.web.test_web_browser import CHROMIUM
from tests.web.test_web_phone import run_case

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM}")


class Plain(Tally):
    """tally with an action whose parameters have no words: one key of two words,
    one with a schema ``title``."""

    id = "plain"
    name = "Plain (a ruleset without words for its parameters)"
    actions = {
        **Tally.actions,
        "strike": ActionSpec(
            "strike",
            "Roll 1d6 and more against one target.",
            params={
                "type": "object",
                "properties": {
                    "extra_dice": {"type": "integer", "minimum": 0},
                    "aim": {"type": "integer", "minimum": 0, "title": "Aim bonus"},
                },
                "required": ["extra_dice", "aim"],
            },
            actor="optional",
            min_targets=1,
            max_targets=1,
        ),
    }

    def resolve(self, context: ActionContext, dice: DiceSource) -> Resolution:
        if context.action != "strike":
            return super().resolve(context, dice)
        target = context.targets[0]
        die = roll_die(dice, 6)
        amount = die.value + context.params["extra_dice"] + context.params["aim"]
        damage = min(target.sheet["hp"], target.state["damage"] + amount)
        return Resolution(
            f"{target.name} takes {amount}",
            {"amount": amount},
            dice=[DiceGroup("damage", (die,), formula="1d6", total=die.value)],
            states={target.id: {**target.state, "damage": damage}},
        )


@pytest.fixture
async def plain_world(tmp_path) -> AsyncIterator[WebWorld]:
    """A server over a table ``plain`` of the ruleset :class:`Plain` (the player's
    Ana, the NPC Guard), players' requests waiting for the GM."""
    host = host_of("plain", Plain())
    path = tmp_path / "web.db"
    with SQLiteStore(path) as seed:
        service = TableService(seed, host)
        _, tokens = service.create_table("Plain words", "plain", table_id="plain")
        service.handle("plain", {"type": "settings", "id": "a", "settings": {"approval": True}}, GM)
        for index, (actor_id, controllers) in enumerate([("ana", ["player"]), ("guard", [])]):
            actor = {"id": actor_id, "name": actor_id.title(), "sheet": {"hp": 10},
                     "controllers": controllers}  # fmt: skip
            service.handle("plain", {"type": "actor.create", "id": f"c{index}", "actor": actor}, GM)
    store = SQLiteStore(path)
    server = Server(store, host, port=0, limits=TEST_LIMITS, dice=lambda: SeededDice(SEED))
    await server.start()
    try:
        yield WebWorld(server, store, {"plain": tokens})
    finally:
        await server.stop()
        store.close()


async def test_a_parameter_without_words_is_shown_as_its_title_or_its_key_in_words(plain_world):
    result = await run_case(plain_world, "words", script="param_keys.mjs")
    for fields in (result["gmFields"], result["playerFields"]):
        assert "Extra dice" in fields and "Aim bonus" in fields, result
        assert not {"extra_dice", "aim"} & set(fields), result
    for said in (result["gmList"], result["mine"]):
        assert "Extra dice" in said and "Aim bonus" in said, result
        assert "extra_dice" not in said and "aim:" not in said, result
