"""A request that divides by a constant 0 is refused at once, not held (fuzz audit,
finding 2): at a table with approval on, a player's ``2d6 / 0`` — or a techlevel ``hit``
with ``params.dice`` ``1d6/0`` — was checked only up to its first die, held as pending,
and then every ``approve`` failed ``invalid_notation``: it took one of the player's
pending slots until the GM rejected it. The formula is refused when it is compiled now,
before any die (``rollbridge.dice.prepare``)."""

from __future__ import annotations

import copy

import pytest

from rollbridge.dice import SeededDice
from rollbridge.engine import Principal
from rollbridge.exceptions import NotationError
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores import MemoryStore

HOST = PluginHost(environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
GM = Principal("gm", "gm", "tok-gm")
ALICE = Principal("player", "alice", "tok-alice")


@pytest.fixture
def service() -> TableService:
    """A techlevel table with approval on: Ana (alice's) and a Guard."""
    service = TableService(MemoryStore(), HOST, dice=lambda: SeededDice(3))
    service.create_table("t", "techlevel", table_id="t")
    sheets = HOST.ruleset("techlevel").example_sheets
    for index, (actor_id, name, controllers) in enumerate(
        [("ana", "Ana", ["alice"]), ("guard", "Guard", [])]
    ):
        actor = {"id": actor_id, "name": name, "sheet": dict(sheets[name]),
                 "controllers": controllers}  # fmt: skip
        service.handle("t", {"type": "actor.create", "id": f"c{index}", "actor": actor}, GM)
    service.handle("t", {"type": "settings", "id": "s", "settings": {"approval": True}}, GM)
    return service


def refused_at_once(service: TableService, message: dict) -> NotationError:
    table = service.table("t")
    before = copy.deepcopy((table.info.to_dict(), table.pending))
    with pytest.raises(NotationError) as caught:
        service.handle("t", message, ALICE)
    assert caught.value.code == "invalid_notation"
    assert "divides by zero" in caught.value.message
    table = service.table("t")
    assert table.pending == {} and (table.info.to_dict(), table.pending) == before
    return caught.value


@pytest.mark.parametrize("formula", ["2d6/0", "2d6 / (3 - 3)", "1d6 + 2d6 / floor(1 / 2)"])
def test_a_players_roll_dividing_by_a_constant_zero_is_refused_not_held(service, formula):
    refused_at_once(service, {"type": "roll", "id": "x1", "formula": formula})
    # the same request id is refused again, never answered as pending
    refused_at_once(service, {"type": "roll", "id": "x1", "formula": formula})


def test_a_techlevel_hit_dividing_by_zero_is_refused_before_approval(service):
    hit = {"type": "resolve", "action": "hit", "actor": "ana", "targets": ["guard"]}
    params = {"dice": "1d6/0", "tl": 2}
    error = refused_at_once(service, {**hit, "id": "h1", "params": params})
    assert error.details["field"] == "params.dice"
    # a given roll draws no dice, and the expression is still checked
    refused_at_once(service, {**hit, "id": "h2", "params": {**params, "roll": 3}})


def test_a_divisor_with_dice_is_still_held_and_fails_only_when_it_rolls_zero(service):
    """``1d6 / (1d2 - 1)`` may roll: it is held for the GM as before."""
    reply = service.handle("t", {"type": "roll", "id": "x2", "formula": "1d6 / (1d2 - 1)"}, ALICE)
    assert reply["status"] == "pending"
