"""A player who suspects the GM checks a night of sr2 with held rolls.

The table has ``approval`` on: each of Ana's rolls and actions waits for the GM,
who approves them (and rejects one of Bo's), rolls a secret die and reveals.
Ana downloads her log from the web view (the players' export) and runs
``rollbridge verify`` on it as docs/web.md says. Before, the report said "2 rolled
on the GM's stream (secret or with NPCs)" — neither was — and "no die could be
checked from this log": nothing said that an approved request is rolled on the GM's
stream whoever asked, so that at such a table her own rolls can be checked only in
the GM's log. The report now says so, and what it checked of each approval."""

from __future__ import annotations

import json

import pytest

from rollbridge.cli.offline import offline_host
from rollbridge.dice.verifiable import DiceKey
from rollbridge.engine.model import Principal
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore
from tests.dice.test_verify_players_dice import GM, _run

pytestmark = pytest.mark.usefixtures("english_without_stores")

ANA = Principal("player", "ana", "ana-token")
BO = Principal("player", "bo", "bo-token")
ATTACK = {"weapon": "Hackler", "skill": 5, "attacker_pool": 2, "rounds": 3, "range": "short"}


def _night(tmp_path) -> str:
    """The night; Ana's download (the players' export), as its path."""
    db = tmp_path / "night.db"
    with SQLiteStore(db) as store:
        host = offline_host()
        service = TableService(store, host, dice_key=DiceKey.for_store(store))
        settings = {"verifiable": True, "approval": True}
        service.create_table("run", "sr2", table_id="run", settings=settings)
        sheets = host.rulesets["sr2"].example_sheets
        for actor_id, name, controllers in (("tukan", "Tukan", ["ana"]), ("ga", "Guard A", [])):
            actor = {"id": actor_id, "name": name, "sheet": dict(sheets[name]),
                     "controllers": controllers}  # fmt: skip
            service.handle("run", {"type": "actor.create", "id": actor_id, "actor": actor}, GM)
        asked = [
            (
                ANA,
                {
                    "type": "resolve",
                    "id": "shot",
                    "action": "attack",
                    "actor": "tukan",
                    "targets": ["ga"],
                    "params": ATTACK,
                },
            ),
            (ANA, {"type": "roll", "id": "luck", "formula": "4d6"}),
            (BO, {"type": "roll", "id": "bo", "formula": "2d6"}),
            (
                ANA,
                {
                    "type": "resolve",
                    "id": "test",
                    "action": "success_test",
                    "actor": "tukan",
                    "params": {"dice": 4, "tn": 5},
                },
            ),
        ]
        for who, request in asked:
            held = service.handle("run", request, who)["pending"]
            answer = "reject" if who is BO else "approve"
            service.handle("run", {"type": answer, "id": f"a-{held}", "request": held}, GM)
        service.handle("run", {"type": "roll", "id": "s", "formula": "1d6", "secret": True}, GM)
        service.handle("run", {"type": "dice.reveal", "id": "v"}, GM)
    log = tmp_path / "web-player.jsonl"
    status, said = _run("table", "export", "run", "--db", str(db), "--as", "player",
                        "--format", "jsonl", "--out", str(log))  # fmt: skip
    assert status == 0, said
    return str(log)


def test_the_report_says_why_her_held_rolls_cannot_be_checked_here(tmp_path):
    log = _night(tmp_path)
    status, said = _run("verify", log)
    lines = said.splitlines()
    assert status == 0
    assert (
        "2 rolled on the GM's stream (secret, approved by the GM, or with NPCs): only the GM's "
        "log checks them"
    ) in lines
    assert (
        "2 of them were approved by the GM: a request held for approval is rolled on the GM's "
        "stream when the GM approves it, whoever asked, so at a table with the setting "
        "approval on a player cannot check the dice of their own held rolls here, only in "
        "the GM's log"
    ) in lines
    assert lines[-1] == (
        "no die could be checked from this log: what was rolled in its revealed segments is "
        "secret, withheld from this view or on the GM's stream"
    )
    status, said = _run("verify", log, "--json")
    report = json.loads(said)
    assert (report["gm_stream"], report["gm_stream_approved"], report["withheld"]) == (2, 2, 1)
    # Ana's three requests and Bo's rejected one, and the GM's seed at the reveal
    assert (report["hidden"], report["stand_in_requests"], report["stand_in_seeds"]) == (6, 4, 1)


def test_the_gms_log_checks_them(tmp_path):
    _night(tmp_path)
    gm_log = tmp_path / "gm.jsonl"
    status, said = _run("table", "export", "run", "--db", str(tmp_path / "night.db"), "--as",
                        "gm", "--format", "jsonl", "--out", str(gm_log))  # fmt: skip
    assert status == 0, said
    status, said = _run("verify", str(gm_log), "--json")
    report = json.loads(said)
    assert status == 0 and report["ok"] and report["gm_stream"] == 0, report
    assert report["verified_events"] == 4 and report["approvals_held"] == 3
