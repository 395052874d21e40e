"""``rollbridge verify`` holds an approval or a rejection in a client's log to the
replies the client received to its own held requests.

In a player's log the request a held roll's approval names is a ``hidden`` stand-in:
an approval written into the player's own roll naming the stand-in of the GM's
secret roll instead (made while ``approval`` was on, no actor changed) passed every
check — found by hand on a served wilddie table, exit 0. But a client's log holds the
server's reply to the player's request (``{"status": "pending", "pending": "p13"}``
under its id), and the approved event names that id (its ``request``): the two must
agree (docs/dice.md, ``other_request``)."""

from __future__ import annotations

import pytest

from rollbridge.dice.verifiable import DiceKey
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore
from tests.dice.test_verify_players_dice import GM, PLAYER, _verified, _views

pytestmark = pytest.mark.usefixtures("english_without_stores")


def _client_log(tmp_path) -> tuple[list[dict], dict[str, str]]:
    """A player's client log at a verifiable wilddie table with approval on: the GM's
    secret roll, the player's rolls r1 (approved) and r2 (rejected), a reveal; the
    player's view of the events, each reply to the player's held requests after its
    stand-in. And the held requests' ids by the player's request id, and the secret
    roll's as ``secret``."""
    db = tmp_path / "o.db"
    with SQLiteStore(db) as store:
        service = TableService(store, PluginHost(), dice_key=DiceKey.for_store(store))
        settings = {"verifiable": True, "approval": True}
        service.create_table("O", "wilddie", settings=settings, table_id="o")
        secret = service.handle("o", {"type": "roll", "id": "s", "formula": "1d20",
                                      "secret": True}, GM)  # fmt: skip
        replies = {}
        for n, answer in ((1, "approve"), (2, "reject")):
            reply = service.handle("o", {"type": "roll", "id": f"r{n}", "formula": "1d6"}, PLAYER)
            replies[f"r{n}"] = reply
            service.handle("o", {"type": answer, "id": f"g{n}", "request": reply["pending"]}, GM)
        service.handle("o", {"type": "dice.reveal", "id": "v"}, GM)
    log = []
    for line in _views(tmp_path, db, "o")["player"]:
        if line.get("type") == "welcome":  # the player's own join, as a client's log has it
            line = {**line, "name": PLAYER.name}
        log.append(line)
        for asked, reply in replies.items():
            if line.get("seq") == int(reply["pending"][1:]):
                log.append({"type": "result", "id": asked, **reply})
    held = {asked: reply["pending"] for asked, reply in replies.items()}
    return log, {**held, "secret": f"p{secret['seq']}"}


def _codes(report: dict) -> list[tuple[str, int]]:
    return [(p["code"], p["seq"]) for p in report["problems"]]


def test_the_honest_client_log_verifies(tmp_path):
    log, held = _client_log(tmp_path)
    assert [line.get("pending") for line in log if line.get("type") == "result"] == [
        held["r1"],
        held["r2"],
    ]
    status, report = _verified(tmp_path, log)
    assert status == 0 and report["ok"], report["problems"]


def test_an_approval_of_the_players_roll_naming_another_stand_in_is_a_mismatch(tmp_path):
    """Before, exit 0: the secret roll's stand-in passes every check the log has of
    a stand-in."""
    log, held = _client_log(tmp_path)
    approved = next(line for line in log if line.get("request") == "r1" and "seq" in line)
    approved["data"]["approved"] = held["secret"]
    status, report = _verified(tmp_path, log)
    assert status == 1 and _codes(report) == [("other_request", approved["seq"])], report
    assert report["problems"][0]["message"] == (
        f"seq {approved['seq']}: the log says the GM approved request '{held['secret']}' of "
        f"this client's request 'r1', but the server's reply to that request said it was "
        f"held as '{held['r1']}': the approval settles another request than the one this "
        "client made"
    )


def test_a_rejection_naming_the_players_request_for_another_is_a_mismatch(tmp_path):
    """A rejection of the secret roll's stand-in, said to be the player's request r2:
    before, exit 0."""
    log, held = _client_log(tmp_path)
    rejected = next(line for line in log if line.get("kind") == "approval.rejected")
    assert rejected["data"]["request"] == "r2"
    rejected["data"]["pending"] = held["secret"]
    status, report = _verified(tmp_path, log)
    assert status == 1 and _codes(report) == [("other_request", rejected["seq"])], report
    assert report["problems"][0]["message"].startswith(
        f"seq {rejected['seq']}: the log says the GM rejected request '{held['secret']}' of "
        "this client's request 'r2', but the server's reply"
    )
