"""``rollbridge verify`` holds a GM's ``welcome`` listing of waiting requests, a
settling's client id, and a player's stand-ins to what the log shows, on logs a real
``rollbridge serve`` wrote (tests/dice/test_verify_settled_once.py: the player's roll
``r1`` held as ``p3`` and rejected, ``r2`` held as ``p5`` and approved).

Nothing in a log signs a GM's ``welcome``: its ``table.pending`` is the word of the
line. Where the log itself shows a request it lists (the request's
``approval.requested``, its settling, another event at its seq), the listing must agree
(``welcome_pending``); before, the welcome's listing replaced what the log showed, so a
welcome put into the GM's log made the player's request another player's. A request
only a welcome lists is counted apart (``approvals_welcomed``). The client's own id of
a request (an approved event's ``request``, a rejection's ``data.request``) must be the
request's ``id`` where the log shows it (``other_request``). In a player's log, the
stand-ins a settling names as requests are the client's own where its replies say so
(``stand_in_own``); the rest could be secret rolls of the GM's (docs/dice.md)."""

from __future__ import annotations

import copy

import pytest

from rollbridge.cli.verify import render_report
from rollbridge.dice.verify import verify_events
from tests.dice.test_verify_settled_once import _events, _lines, _verified, served

pytestmark = pytest.mark.usefixtures("english_without_stores")

__all__ = ["served"]  # the served logs, a fixture of this module too


def _gm_log(served) -> list[dict]:
    return copy.deepcopy(_lines(served["gm"]))


def _at(lines: list[dict], seq: int) -> int:
    """The index of the event line of ``seq``."""
    return next(i for i, line in enumerate(lines) if line.get("seq") == seq and "kind" in line)


def _welcome(lines: list[dict], seq: int, pending: list[dict]) -> dict:
    """A GM's welcome of a new connection (no resume recovered) at ``seq``, the table
    as the log's first welcome shows it with approval and verifiable dice on, listing
    ``pending`` as waiting."""
    welcome = copy.deepcopy(lines[0])
    table = welcome["table"]
    table.update(seq=seq, pending=pending)
    table["settings"].update(approval=True, verifiable=True)
    welcome["seq"] = seq
    return welcome


def _listed(lines: list[dict], seq: int, **changed) -> dict:
    """The request the log's ``approval.requested`` at ``seq`` holds, as a GM's
    welcome lists it (``pending`` and the entry), with ``changed``."""
    data = lines[_at(lines, seq)]["data"]
    return {"pending": data["pending"], **data["request"], **changed}


def _problems(report: dict) -> list[tuple[str, int]]:
    return [(p["code"], p["seq"]) for p in report["problems"]]


def test_the_honest_gm_log_verifies(served, tmp_path, capsys):
    status, report = _verified(tmp_path, _gm_log(served), capsys)
    assert (status, report["problems"], report["approvals_held"]) == (0, [], 1)
    assert report["approvals_welcomed"] == 0 and report["complete"]


def test_a_welcome_that_lists_a_logged_request_as_another_players_is_a_mismatch(
    served, tmp_path, capsys
):
    """A welcome put after the player's request (seq 5) lists it as Bo's, sent as
    ``r9``, and the approval says Bo's ``r9``. Before, the welcome's word replaced the
    log's request and the approval was held to it: exit 0."""
    lines = _gm_log(served)
    at = _at(lines, 5)
    bo = {"role": "player", "name": "bo", "key": "k"}
    welcome = _welcome(lines, 5, [_listed(lines, 5, id="r9", who=bo)])
    lines.insert(at + 1, welcome)
    approved = lines[_at(lines, 6)]
    approved.update(by="player:bo", request="r9")
    status, report = _verified(tmp_path, lines, capsys)
    assert status == 1 and _problems(report)[0] == ("welcome_pending", 5), report["problems"]
    assert report["problems"][0]["message"] == (
        "the GM's welcome line at seq 5, in its pending, lists request 'p5' as a 'roll' "
        "request by 'player:bo' sent as 'r9', but the log shows that request (seq 5) as a "
        "'roll' request by 'player' sent as 'r2'"
    )


@pytest.mark.parametrize(
    ("listed", "said"),
    [
        ("p3", "but seq 4 of the log already settled it"),
        ("p2", "but seq 2 of the log is a 'dice.committed' event, not a request held"),
        ("p9", "but that names no request held at or before it"),
    ],
)
def test_a_welcome_that_lists_what_the_log_shows_is_no_waiting_request(
    served, tmp_path, capsys, listed, said
):
    """A request the log settled before the welcome, an event that is no request, a
    seq after the welcome's: none was waiting then. Before, exit 0."""
    lines = _gm_log(served)
    entry = {**_listed(lines, 5), "pending": listed}
    lines.insert(_at(lines, 5) + 1, _welcome(lines, 5, [_listed(lines, 5), entry]))
    status, report = _verified(tmp_path, lines, capsys)
    assert status == 1 and _problems(report) == [("welcome_pending", 5)], report["problems"]
    assert said in report["problems"][0]["message"]


def test_a_request_only_a_welcome_lists_is_counted_apart(served, tmp_path, capsys):
    """The GM's client away from seq 3 to 5 (its request and the rejection before it
    not in the log), back with a welcome listing ``p5``: the approval is held to the
    listing, and the report says that the request is that welcome's word alone."""
    lines = _gm_log(served)
    listed = _listed(lines, 5)
    kept = [line for line in lines if line.get("seq") not in (3, 4, 5) or "kind" not in line]
    kept.insert(_at(kept, 6), _welcome(lines, 5, [listed]))
    status, report = _verified(tmp_path, kept, capsys)
    assert (status, report["problems"]) == (0, [])
    assert (report["approvals_held"], report["approvals_welcomed"]) == (1, 1)
    assert report["unreceived"] == [{"epoch": 1, "first": 3, "last": 5}]
    assert (
        "1 of them is held to a request only a GM's welcome line lists (its pending; no "
        "line of this log shows the request): that it was held, whose it was and what it "
        "asked is that welcome's word, and another log of the table (an export, a "
        "player's log) shows what its seq was"
    ) in render_report(verify_events(kept))


@pytest.mark.parametrize("kind", ["approval.rejected", "roll"])
def test_a_settling_of_another_client_id_than_its_requests_is_a_mismatch(
    served, tmp_path, capsys, kind
):
    """The GM's log shows each request's client id (``r1``, ``r2``): a rejection's
    ``data.request`` or an approved event's ``request`` naming another one settles
    another request than it names. Before, exit 0."""
    lines = _gm_log(served)
    settling = next(e for e in _events(lines, kind) if kind != "roll" or "approved" in e["data"])
    if kind == "roll":
        settling["request"], sent = "r9", "r2"
    else:
        settling["data"]["request"], sent = "r9", "r1"
    status, report = _verified(tmp_path, lines, capsys)
    assert status == 1 and _problems(report) == [("other_request", settling["seq"])]
    field = "this event's request" if kind == "roll" else "its data.request"
    assert f"sent as 'r9' ({field}), but that request (seq " in report["problems"][0]["message"]
    assert report["problems"][0]["message"].endswith(
        f"was sent as {sent!r}: the "
        + ("approval" if kind == "roll" else "rejection")
        + " settles another request than the one it names"
    )


def test_the_players_own_requests_are_told_from_what_could_be_the_gms(served, tmp_path, capsys):
    """The player's log keeps the replies to its requests: both stand-ins its
    settlings name are its own (``stand_in_own``). Without the replies (an export, a
    log of events alone) the same stand-ins pass every check, and the report says each
    could be a GM's secret roll passed off as a request. Before, the report said
    neither: both were "told" as requests alike."""
    lines = _lines(served["player"])
    status, report = _verified(tmp_path, lines, capsys)
    assert (status, report["problems"]) == (0, [])
    assert (report["stand_in_requests"], report["stand_in_own"]) == (2, 2)
    said = render_report(verify_events(lines))
    assert (
        "2 of the requests so told are this client's own, as the server's replies to them "
        "say (the ids they were held as)"
    ) in said
    assert not any("passed off as a player's request" in line for line in said)
    events = [line for line in lines if line.get("type") != "result"]
    status, report = _verified(tmp_path, events, capsys)
    assert (status, report["problems"]) == (0, [])
    assert (report["stand_in_requests"], report["stand_in_own"]) == (2, 0)
    assert (
        "2 of the requests so told pass every check this log allows, yet each could be a "
        "secret roll or action the GM made while approval was on, passed off as a "
        "player's request: only the GM's log shows what they were (a client's own "
        "requests are tied to their stand-ins by the server's replies, where its log "
        "keeps them)"
    ) in render_report(verify_events(events))


def _epochs_log() -> list[dict]:
    """A client's log over a restore: epoch 1 from seq 2, away for seqs 5–6; the
    restored epoch 2 from seq 2 again, away for seqs 5–6 there too."""
    lines: list[dict] = []
    for epoch in (1, 2):
        for seq, events in ((2, (3, 4)), (6, (7,))):
            table = {"id": "t", "epoch": epoch, "seq": seq, "settings": {}, "actors": []}
            lines.append({"type": "welcome", "role": "player", "name": "ana", "table": table})
            lines += [{"type": "event", "kind": "chat", "table": "t", "epoch": epoch,
                       "seq": s, "data": {}} for s in events]  # fmt: skip
    return lines


def test_the_seqs_a_welcome_skipped_name_their_epoch(tmp_path, capsys):
    """After a restore two events may share a seq: each run names its epoch (JSON:
    ``epoch``; the report: ``5–6@2`` where the log spans epochs). Before, ``[5, 6]``
    twice, and the report said ``5–6, 5–6``."""
    lines = _epochs_log()
    status, report = _verified(tmp_path, lines, capsys)
    assert (status, report["problems"], report["epochs"]) == (0, [], [1, 2])
    assert report["unreceived"] == [
        {"epoch": 1, "first": 5, "last": 6},
        {"epoch": 2, "first": 5, "last": 6},
    ]
    said = [line for line in render_report(verify_events(lines)) if "skipped at" in line]
    assert len(said) == 1 and "seqs 5–6@1, 5–6@2;" in said[0], said
