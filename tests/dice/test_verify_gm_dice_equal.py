"""``rollbridge verify`` and a GM's approval with dice equal to the player's held dice.

A player's resolution held for approval with their own dice (``player_dice``) is run
at the GM's ``approve`` either with the player's dice, the player its asker, or with
the GM's dice given with the approval, the GM its asker. The log shows the dice, not
whose they were: dice other than the held ones are the GM's; equal ones are read as
the player's, and the result is the same — the same dice, the same request, and what
the asker changes in the shipped rulesets (``by_gm``, ``controls``) are refusals the
request's rehearsal passed as the player's. Except where the table changed between
the request and the approval so that the player's dice could not have been taken
(``player_dice`` turned off, the actor no longer the player's): then the GM had to
give dice, and equal ones are the GM's. Before, verify ran that approval again with
the player's dice, which the table refuses, and an honest GM's log was a mismatch
(docs/dice.md, "Checking")."""

from __future__ import annotations

import pytest

from rollbridge.dice.verifiable import DiceKey
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore
from tests.dice.test_verify_players_dice import GM, PLAYER, _verified, _views

pytestmark = pytest.mark.usefixtures("english_without_stores")

DICE = [3, 2]  # the trait die and the wild die, neither exploding


def _held_table(store: SQLiteStore, table: str, ruleset: str) -> tuple[PluginHost, TableService]:
    """A verifiable table of ``ruleset`` in ``store`` whose players' requests wait for
    the GM's approval and may give their own dice (``approval``, ``player_dice``)."""
    host = PluginHost()
    service = TableService(store, host, dice_key=DiceKey.for_store(store))
    settings = {"verifiable": True, "approval": True, "player_dice": True}
    service.create_table(table, ruleset, settings=settings, table_id=table)
    return host, service


def _approved_with_equal_dice(tmp_path, change: dict | None) -> list[dict]:
    """A wilddie table (approval, player_dice) where the player's trait test of Ana is
    held with their dice, the GM makes ``change`` (a request, or none) and approves it
    with dice equal to the player's: the GM's export, as lines."""
    db = tmp_path / "eq.db"
    with SQLiteStore(db) as store:
        host, service = _held_table(store, "eq", "wilddie")
        sheet = dict(host.rulesets["wilddie"].example_sheets["Ana"])
        ana = {"id": "ana", "name": "Ana", "sheet": sheet, "controllers": ["player"]}
        service.handle("eq", {"type": "actor.create", "id": "a", "actor": ana}, GM)
        asked = {"type": "resolve", "id": "t", "actor": "ana", "action": "trait",
                 "params": {"trait": "notice"}, "dice": DICE}  # fmt: skip
        held = service.handle("eq", asked, PLAYER)
        assert held["status"] == "pending", held
        if change is not None:
            service.handle("eq", change, GM)
        approve = {"type": "approve", "id": "g", "request": held["pending"], "dice": DICE}
        done = service.handle("eq", approve, GM)
        assert done["status"] == "done", done
        service.handle("eq", {"type": "dice.reveal", "id": "v"}, GM)
    return _views(tmp_path, db, "eq")["gm"]


PLAYER_DICE_OFF = {"type": "settings", "id": "s", "settings": {"player_dice": False}}
NOT_HERS = {"type": "actor.update", "id": "u", "actor": "ana", "controllers": []}


@pytest.mark.parametrize(
    "change", [None, PLAYER_DICE_OFF, NOT_HERS], ids=["same", "dice_off", "not_hers"]
)
def test_a_gms_approval_with_dice_equal_to_the_players_verifies(tmp_path, change):
    lines = _approved_with_equal_dice(tmp_path, change)
    status, report = _verified(tmp_path, lines)
    assert status == 0 and report["ok"], report["problems"]
    assert report["resolved"] == 1 and not report["unresolved"], report


def _bandits_harm_with_equal_dice(tmp_path, change: dict | None) -> list[dict]:
    """A bandits table (approval, player_dice) where the player, controlling Boris and
    Ana, asks for Boris's harm dealt to Ana with Ana's two-weapon choice (BD-4: the
    GM's or the actor's player's) and their own 2d6 (BD-3), held; the GM makes
    ``change`` and approves with dice equal to the player's: the GM's export."""
    db = tmp_path / "bd.db"
    with SQLiteStore(db) as store:
        host, service = _held_table(store, "bd", "bandits")
        sheets = host.rulesets["bandits"].example_sheets
        for actor_id, name in (("boris", "Boris"), ("ana", "Ana")):
            actor = {"id": actor_id, "name": name, "sheet": dict(sheets[name]),
                     "controllers": ["player"]}  # fmt: skip
            service.handle("bd", {"type": "actor.create", "id": actor_id, "actor": actor}, GM)
        asked = {"type": "resolve", "id": "h", "actor": "boris", "action": "harm",
                 "targets": ["ana"], "dice": [4, 3],
                 "params": {"direction": "dealt", "target_dual_wield": "armour"}}  # fmt: skip
        held = service.handle("bd", asked, PLAYER)
        assert held["status"] == "pending", held
        if change is not None:
            assert service.handle("bd", change, GM)["status"] == "done"
        approve = {"type": "approve", "id": "g", "request": held["pending"], "dice": [4, 3]}
        done = service.handle("bd", approve, GM)
        assert done["status"] == "done", done
        service.handle("bd", {"type": "dice.reveal", "id": "v"}, GM)
    return _views(tmp_path, db, "bd")["gm"]


TARGET_NOT_HERS = {"type": "actor.update", "id": "u", "actor": "ana", "controllers": []}


@pytest.mark.parametrize("change", [None, TARGET_NOT_HERS], ids=["same", "target_not_hers"])
def test_equal_dice_the_player_could_not_have_given_for_a_target_read_as_the_gms(tmp_path, change):
    """The target no longer the player's at the approval: the player's reading of the
    dice is refused (BD-4, ``stance_not_yours``: the choice of a target's stance is the
    GM's or its player's), so the GM gave them — and the engine took them as the GM's.
    Before, only the acting actor's controllers were looked at: the honest log of
    this approval was a mismatch."""
    lines = _bandits_harm_with_equal_dice(tmp_path, change)
    status, report = _verified(tmp_path, lines)
    assert status == 0 and report["ok"], report["problems"]
    assert report["resolved"] == 1 and not report["unresolved"], report
