"""``rollbridge verify`` holds an approved event to the request it names.

An event the GM approved is drawn on the GM's stream, which players cannot check,
and says which request it settles (``data.approved``: ``p`` and the seq of the
request's GM-only ``approval.requested``). Before, only a table whose setting
``approval`` was off all along was judged (``unasked_approval``): at a table with
approval on, or in a log that begins after seq 0, a server could write
``approved_by`` into any roll, naming any request or none, and the log verified.
Now the request it names must be held before it (a request in the GM's log, a
``hidden`` stand-in in a player's), by the same requester for the same kind of
event, and settled once; what the log cannot show is counted and said."""

from __future__ import annotations

import json

import pytest

from rollbridge.dice.verifiable import DiceKey
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore
from tests.dice.test_verify_players_dice import GM, PLAYER, _run, _verified

pytestmark = pytest.mark.usefixtures("english_without_stores")


def _approved_rolls(tmp_path, *, rejected_first: bool = False) -> dict[str, list[dict]]:
    """A verifiable table with approval on, where the player asks for three rolls
    (the GM rejects the first when ``rejected_first``, else approves it) and the GM
    approves the others, then reveals: the GM's and the player's exports, by view."""
    db = tmp_path / "a.db"
    with SQLiteStore(db) as store:
        service = TableService(store, PluginHost(), dice_key=DiceKey.for_store(store))
        settings = {"verifiable": True, "approval": True}
        service.create_table("A", "wilddie", settings=settings, table_id="a")
        held = [
            service.handle("a", {"type": "roll", "id": f"r{n}", "formula": "1d6"}, PLAYER)
            for n in range(3)
        ]
        for n, request in enumerate(held):
            answer = "reject" if rejected_first and n == 0 else "approve"
            service.handle("a", {"type": answer, "id": f"g{n}", "request": request["pending"]}, GM)
        service.handle("a", {"type": "dice.reveal", "id": "v"}, GM)
    exports = {}
    for who in ("gm", "player"):
        status, said = _run("table", "export", "a", "--db", str(db), "--as", who,
                            "--format", "jsonl")  # fmt: skip
        assert status == 0, said
        exports[who] = [json.loads(line) for line in said.splitlines()]
    return exports


def _rolls(lines: list[dict]) -> list[dict]:
    return [line for line in lines if line.get("kind") == "roll"]


def _codes(report: dict) -> list[tuple[str, int]]:
    return [(p["code"], p["seq"]) for p in report["problems"]]


def test_honest_approvals_verify_and_are_counted(tmp_path):
    """The GM's log holds each approval to its request; a player's log sees each
    request as a hidden stand-in, and counts the approvals it cannot hold."""
    exports = _approved_rolls(tmp_path)
    status, report = _verified(tmp_path, exports["gm"])
    assert status == 0 and report["ok"], report["problems"]
    assert (report["approvals_held"], report["approvals_unseen"]) == (3, 0)
    status, report = _verified(tmp_path, exports["player"])
    assert status == 0 and report["ok"], report["problems"]
    assert (report["approvals_held"], report["approvals_unseen"]) == (0, 3)


@pytest.mark.parametrize("who", ["gm", "player"])
def test_an_approval_naming_an_event_that_is_no_request_is_a_mismatch(tmp_path, who):
    """The last roll names the seq of the first approved roll as its request."""
    lines = _approved_rolls(tmp_path)[who]
    first, last = _rolls(lines)[0], _rolls(lines)[-1]
    last["data"]["approved"] = f"p{first['seq']}"
    status, report = _verified(tmp_path, lines)
    assert status == 1
    assert ("unheld_approval", last["seq"]) in _codes(report)
    said = next(p["message"] for p in report["problems"] if p["code"] == "unheld_approval")
    assert said == (
        f"seq {last['seq']}: the log says the GM approved request 'p{first['seq']}', but "
        f"seq {first['seq']} of the log is a 'roll' event, not a request held for "
        "approval: an approved event's dice are on the GM's stream, where players cannot "
        "check them"
    )


@pytest.mark.parametrize("who", ["gm", "player"])
@pytest.mark.parametrize("named", [None, "p", "request", "p99999"])
def test_an_approval_naming_no_request_before_it_is_a_mismatch(tmp_path, who, named):
    lines = _approved_rolls(tmp_path)[who]
    last = _rolls(lines)[-1]
    if named is None:
        del last["data"]["approved"]
    else:
        last["data"]["approved"] = named
    status, report = _verified(tmp_path, lines)
    assert status == 1 and ("unheld_approval", last["seq"]) in _codes(report)
    said = next(p["message"] for p in report["problems"] if p["code"] == "unheld_approval")
    assert f"its field approved ({named!r}) names no request held before it" in said


@pytest.mark.parametrize("who", ["gm", "player"])
@pytest.mark.parametrize("rejected_first", [False, True])
def test_a_request_settled_twice_is_a_mismatch(tmp_path, who, rejected_first):
    """Two rolls say they settle one request, or a rejected request is approved: the
    ids are in every view, so a player's log tells it too."""
    lines = _approved_rolls(tmp_path, rejected_first=rejected_first)[who]
    rolls = _rolls(lines)
    first = next(
        line["data"]["pending"] for line in lines if line.get("kind") == "approval.rejected"
    ) if rejected_first else rolls[0]["data"]["approved"]  # fmt: skip
    settled = next(line["seq"] for line in lines if first in (
        line.get("data", {}).get("approved"), line.get("data", {}).get("pending")
    ) and line.get("kind") != "approval.requested")  # fmt: skip
    rolls[-1]["data"]["approved"] = first
    status, report = _verified(tmp_path, lines)
    assert status == 1 and ("settled_twice", rolls[-1]["seq"]) in _codes(report)
    said = next(p["message"] for p in report["problems"] if p["code"] == "settled_twice")
    assert said == (
        f"seq {rolls[-1]['seq']}: the log says the GM approved request {first!r}, which "
        f"seq {settled} already settled: a request is approved or rejected once"
    )


@pytest.mark.parametrize("by", ["player:mallory", None])
def test_an_approval_of_another_players_request_is_a_mismatch(tmp_path, by):
    """In the GM's log the request shows who asked: the roll it settles is theirs.
    A roll without ``by`` (every event the server writes names who asked) was held
    to no requester and passed: its dice, on the GM's stream, could be anyone's."""
    lines = _approved_rolls(tmp_path)["gm"]
    last = _rolls(lines)[-1]
    if by is None:
        del last["by"]
    else:
        last["by"] = by
    status, report = _verified(tmp_path, lines)
    assert status == 1 and ("other_request", last["seq"]) in _codes(report)
    said = next(p["message"] for p in report["problems"] if p["code"] == "other_request")
    assert said.endswith(f"where this event is a 'roll' by {by!r}"), said


def test_the_report_says_what_it_could_and_could_not_hold(tmp_path):
    exports = _approved_rolls(tmp_path)
    for who, line in (
        ("gm", "3 events approved by the GM held to the requests they name"),
        (
            "player",
            "3 events approved by the GM name requests this log shows only as hidden stand-ins",
        ),
    ):
        log = tmp_path / f"{who}.jsonl"
        log.write_text("".join(json.dumps(e) + "\n" for e in exports[who]))
        status, said = _run("verify", str(log))
        assert status == 0 and line in said, said


def _gm_log_from(tmp_path, after: str) -> tuple[list[dict], dict]:
    """A GM's client log that begins after the request ``after`` names was held: the
    GM's export from the seq after it, its welcome listing the requests then waiting
    as a GM's welcome does (``table.pending``, docs/protocol.md), and the approval."""
    db = tmp_path / "a.db"
    with SQLiteStore(db) as store:
        service = TableService(store, PluginHost(), dice_key=DiceKey.for_store(store))
        service.create_table("A", "wilddie", settings={"verifiable": True, "approval": True},
                             table_id="a")  # fmt: skip
        held = service.handle("a", {"type": "roll", "id": "r", "formula": "1d6"}, PLAYER)
        waiting = service.handle("a", {"type": "state", "id": "t"}, GM)["table"]["pending"]
        service.handle("a", {"type": "approve", "id": "g", "request": held["pending"]}, GM)
        service.handle("a", {"type": "dice.reveal", "id": "v"}, GM)
    since = held["pending"][1:]  # the events after the request
    status, said = _run("table", "export", "a", "--db", str(db), "--as", "gm",
                        "--format", "jsonl", "--since", since)  # fmt: skip
    assert status == 0, said
    lines = [json.loads(line) for line in said.splitlines()]
    assert lines[0]["type"] == "welcome" and "pending" not in lines[0]["table"]
    assert [w["pending"] for w in waiting] == [held["pending"]] == [after]
    lines[0]["table"]["pending"] = waiting
    return lines, _rolls(lines)[0]


def test_a_gm_log_that_begins_later_holds_an_approval_to_its_welcomes_request(tmp_path):
    """A GM's client that joined while a request waited has it in its welcome: the
    approval is held to it, and a forged requester is told, though the log begins
    after the request."""
    lines, approved = _gm_log_from(tmp_path, "p3")
    status, report = _verified(tmp_path, lines)
    assert status == 0 and report["ok"], report["problems"]
    assert (report["approvals_held"], report["approvals_unseen"]) == (1, 0)
    approved["by"] = "player:mallory"
    status, report = _verified(tmp_path, lines)
    assert status == 1 and ("other_request", approved["seq"]) in _codes(report)
