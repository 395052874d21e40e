"""A resolution's follow-up (``Resolution.apply``; issue 15, item 5: "apply to selected
targets where the ruleset allows"): what the event carries, that sending it on another
target applies the same result, and that a bad one is refused before anything changes."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from rollbridge.cli.offline import offline_host
from rollbridge.dice import SeededDice
from rollbridge.engine.model import Principal
from rollbridge.exceptions import InternalError
from rollbridge.offline import TableService
from rollbridge.stores.memory import MemoryStore
from rollbridge.testing import host_with
from rollbridge.text import Messages, Private

SAY = Messages("follow_up_tests")

GM = Principal("gm", "gm", "gm-token")
HOST = offline_host()


def seated(ruleset: str, *names: str) -> TableService:
    service = TableService(MemoryStore(), HOST, dice=lambda: SeededDice(5))
    service.create_table("t", ruleset, table_id="t")
    sheets = HOST.ruleset(ruleset).example_sheets
    for index, name in enumerate(names):
        body = {"id": f"a{index}", "name": name, "sheet": dict(sheets[name])}
        service.handle("t", {"type": "actor.create", "id": f"c{index}", "actor": body}, GM)
    return service


def resolve(service: TableService, rid: str, **fields: Any) -> dict[str, Any]:
    return service.handle("t", {"type": "resolve", "id": rid, **fields}, GM)


def test_a_techlevel_hit_applies_the_same_roll_to_another_target():
    """TL-1: a given roll draws no dice, so the follow-up is the hit with its roll."""
    service = seated("techlevel", "Ana", "Guard", "Sentinel")
    params = {"weapon": "Rifle", "dice": "3d6", "tl": 3, "type": "kinetic"}
    first = resolve(service, "h1", action="hit", actor="a0", targets=["a1"], params=params)
    data = first["event"]["data"]
    roll = data["outcome"]["roll"]
    assert data["apply"] == {"action": "hit", "params": {**params, "roll": roll}}
    again = resolve(service, "h2", action="hit", actor="a0", targets=["a2"],
                    params=data["apply"]["params"])  # fmt: skip
    assert again["event"]["data"]["outcome"]["roll"] == roll
    assert again["event"]["data"]["dice"] == []  # no die drawn for the follow-up
    assert again["event"]["data"]["apply"]["params"]["roll"] == roll


def test_an_sr2_damage_follow_up_keeps_the_attack_not_the_defenders_overrides():
    """SR-9: each target resists for itself: its Body, armour and pool are its own."""
    service = seated("sr2", "Tukan", "Guard A", "Guard B")
    params = {"code": "9M", "attack_successes": 4, "body": 7, "armor": 3}
    first = resolve(service, "d1", action="damage", targets=["a1"], params=params)
    apply = first["event"]["data"]["apply"]
    assert apply["action"] == "damage"
    assert apply["params"]["code"] == "9M" and apply["params"]["attack_successes"] == 4
    assert not {"body", "armor", "defender_pool"} & set(apply["params"])  # the defender's
    again = resolve(service, "d2", action="damage", targets=["a2"], params=apply["params"])
    outcome = again["event"]["data"]["outcome"]
    assert outcome["code"] == first["event"]["data"]["outcome"]["code"]
    assert outcome["attack_successes"] == 4 and outcome["defender"] == "a2"


@pytest.mark.parametrize(
    "apply",
    [{"action": "nope"},
     # a Private in the parameters reached players without it: their follow-up would
     # have applied other parameters than the GM's
     {"action": "hit", "params": {"bonus": Private(3, of="g")}},
     {"action": "hit", "params": {"bonus": 1, "note": SAY("note", "a note")()}}],
    ids=["no-such-action", "private-param", "text-param"],
)  # fmt: skip
def test_a_follow_up_naming_no_action_or_unplain_params_is_refused_and_changes_nothing(
    tally, apply
):
    original = type(tally).resolve

    class Broken(type(tally)):
        def resolve(self, context, dice):
            return replace(original(self, context, dice), apply=apply)

    service = TableService(MemoryStore(), host_with(Broken()))
    service.create_table("t", "tally", table_id="t")
    service.handle("t", {"type": "actor.create", "id": "c", "actor": {
        "id": "g", "name": "G", "sheet": {"hp": 10}}}, GM)  # fmt: skip
    before = service.table("t").snapshot()
    with pytest.raises(InternalError) as refused:
        resolve(service, "x", action="hit", targets=["g"], params={"bonus": 1})
    assert "follow-up" in str(refused.value) and refused.value.details == {"field": "apply"}
    assert service.table("t").snapshot() == before
