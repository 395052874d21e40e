"""A GM's honest ``welcome`` listing requests the GM's log already shows verifies, on
logs a real ``rollbridge serve`` wrote (a free 127.0.0.1 port, a SQLite file, a
retained log of 4 events so that a resume cannot recover).

``welcome_pending`` holds a GM's welcome listing to the requests its log shows (their
``approval.requested``: type, requester, client id). The forged listings are tested in
tests/dice/test_verify_welcome_pending.py on welcomes put into a log; this is the
honest case those rules must pass: the GM's client saw three requests held (one of them
secret), went away while the player rolled on, and came back — by a new connection or
by a resume the server could not recover — to a welcome that lists them again, then
approved two and rejected one (review of dice-22, 7 December 2026: checked holding)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.dice.test_verify_settled_once import Client, _join, _lines, _table, _verified
from tests.server.test_server_lifecycle import Serve, hello

pytestmark = pytest.mark.usefixtures("english_without_stores")


async def _away_and_back(url: str, made: dict, resume: bool) -> tuple[list[str], list[str]]:
    """The GM's log (before and after it was away) and the player's."""
    gm = await _join(url, made["table"], made["tokens"]["gm"])
    settings = {"verifiable": True, "approval": True}
    await gm.done({"type": "settings", "id": "s", "settings": settings})
    player = await _join(url, made["table"], made["tokens"]["player"])
    held = []
    for n in range(3):
        roll = {"type": "roll", "id": f"r{n}", "formula": "1d6", "secret": n == 2}
        held.append((await player.call(roll))["pending"])
    await gm.call({"type": "ping", "id": "seen"})  # every request's event read
    await gm.ws.close()
    for n in range(3, 10):  # while the GM is away: past the retained log
        await player.call({"type": "roll", "id": f"r{n}", "formula": "1d6"})
    last = json.loads(gm.frames[-2])  # the last event before the pong
    asked = {"resume": {"epoch": last["epoch"], "seq": last["seq"]}} if resume else {}
    ws, welcome = await hello(url, made["table"], made["tokens"]["gm"], **asked)
    assert (welcome.get("resume") or {}).get("recovered") is not True, welcome
    assert {p["pending"] for p in welcome["table"]["pending"]} >= set(held)
    back = Client(ws, json.dumps(welcome))
    for answer, request in zip(("approve", "reject", "approve"), held, strict=True):
        await back.done({"type": answer, "id": f"g-{request}", "request": request})
    await back.done({"type": "dice.reveal", "id": "v"})
    for client in (back, player):
        await client.call({"type": "state", "id": "end"})
        await client.ws.close()
    return [*gm.frames, *back.frames], player.frames


@pytest.mark.parametrize("resume", [False, True], ids=["new connection", "resume"])
def test_a_welcome_listing_logged_requests_again_verifies(tmp_path: Path, capsys, resume):
    db = tmp_path / "a.db"
    made = _table(db)
    server = Serve(db, "--no-demo", "--retain", "4")
    try:
        gm, player = asyncio.run(_away_and_back(server.url, made, resume))
    finally:
        assert server.stop() == 0
    status, report = _verified(tmp_path, _lines(gm), capsys)
    assert (status, report["problems"], report["complete"]) == (0, [], True)
    assert (report["approvals_held"], report["approvals_welcomed"]) == (2, 0)
    assert [run["epoch"] for run in report["unreceived"]] == [1]
    status, report = _verified(tmp_path, _lines(player), capsys)
    assert (status, report["problems"]) == (0, [])
