"""``rollbridge verify`` flags every second settling of one request, on logs that a
real ``rollbridge serve`` wrote (a free 127.0.0.1 port, a SQLite file).

Before, ``settled_twice`` covered an approval after an approval or a rejection, but
not a rejection after either: a log that said the GM approved a request, then
rejected it (or rejected it twice) verified. The honest logs that settle a request
once, though they show it again, verify as before: a request sent again with its id
after a rejection (the server answers ``rejected`` again and writes nothing), an undo
and redo of the approved roll (``undo`` and ``redo`` events), and a restore between
the request and its answer (the GM's log: rejected in the old epoch, approved in the
restored one)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from websockets.asyncio.client import ClientConnection

from rollbridge.cli import main
from tests.server.test_server_lifecycle import Serve, cli, hello

pytestmark = pytest.mark.usefixtures("english_without_stores")


class Client:
    """One client's connection, every frame it receives kept as its log keeps it."""

    def __init__(self, ws: ClientConnection, welcome: str) -> None:
        self.ws, self.frames = ws, [welcome]

    async def call(self, message: dict) -> dict:
        """Send ``message``; every frame up to its reply is logged; returns the reply."""
        await self.ws.send(json.dumps(message))
        while True:
            frame = await self.ws.recv()
            self.frames.append(frame)
            reply = json.loads(frame)
            if reply.get("id") == message["id"] and reply.get("type") != "event":
                return reply

    async def done(self, message: dict) -> dict:
        """:meth:`call`, whose reply must be a result (not an error)."""
        reply = await self.call(message)
        assert reply["type"] == "result", reply
        return reply


async def _join(url: str, table: str, token: str) -> Client:
    ws, welcome = await hello(url, table, token)
    assert welcome["type"] == "welcome", welcome
    return Client(ws, json.dumps(welcome))


def _table(db: Path) -> dict:
    made = cli("table", "create", "--ruleset", "wilddie", "--name", "A", "--json", db=db)
    return json.loads(made.stdout)


async def _approval_on(url: str, made: dict) -> tuple[Client, Client]:
    """The GM turns approval and verifiable dice on; a player joins."""
    gm = await _join(url, made["table"], made["tokens"]["gm"])
    await gm.done(
        {"type": "settings", "id": "s", "settings": {"verifiable": True, "approval": True}}
    )
    return gm, await _join(url, made["table"], made["tokens"]["player"])


async def _played(url: str, made: dict) -> tuple[Client, Client]:
    """Approval on, verifiable dice: r1 rejected, then sent again with its id; r2
    approved, undone and redone; the dice revealed."""
    gm, player = await _approval_on(url, made)
    r1 = {"type": "roll", "id": "r1", "formula": "1d6"}
    held = await player.call(r1)
    assert held["status"] == "pending", held
    await gm.done({"type": "reject", "id": "g1", "request": held["pending"]})
    assert (await player.call(r1))["status"] == "rejected"  # sent again: no event
    held = await player.call({"type": "roll", "id": "r2", "formula": "1d6"})
    await gm.done({"type": "approve", "id": "g2", "request": held["pending"]})
    for step in ("undo", "redo", "dice.reveal"):
        await gm.done({"type": step, "id": step})
    for client in (gm, player):
        await client.call({"type": "state", "id": "end"})  # every event before it read
        await client.ws.close()
    return gm, player


def _verified(tmp_path: Path, lines: list[dict], capsys) -> tuple[int, dict]:
    """``rollbridge verify --json`` of a log of ``lines``: its status and report."""
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    capsys.readouterr()
    status = main(["verify", str(log), "--json"])
    return status, json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> dict[str, list[str]]:
    """The GM's and the player's logs of :func:`_played` at a real server."""
    db = tmp_path_factory.mktemp("served") / "a.db"
    server = Serve(db, "--no-demo")
    try:
        made = _table(db)
        gm, player = asyncio.run(_played(server.url, made))
    finally:
        assert server.stop() == 0
    return {"gm": gm.frames, "player": player.frames}


def _lines(frames: list[str]) -> list[dict]:
    return [json.loads(frame) for frame in frames]


def _events(lines: list[dict], kind: str) -> list[dict]:
    return [line for line in lines if line.get("type") == "event" and line["kind"] == kind]


@pytest.mark.parametrize("who", ["gm", "player"])
def test_the_honest_logs_settle_each_request_once(served, tmp_path, capsys, who):
    """Sent again after its rejection, undone and redone: each request settled once."""
    lines = _lines(served[who])
    assert len(_events(lines, "approval.rejected")) == 1
    assert [e["kind"] for e in _events(lines, "undo") + _events(lines, "redo")] == ["undo", "redo"]
    status, report = _verified(tmp_path, lines, capsys)
    assert status == 0 and report["ok"], report["problems"]
    counted = {"gm": (1, 0), "player": (0, 1)}[who]  # a player's log sees a stand-in
    assert (report["approvals_held"], report["approvals_unseen"]) == counted


@pytest.mark.parametrize("who", ["gm", "player"])
@pytest.mark.parametrize("after", ["approved", "rejected"])
def test_a_rejection_after_a_settling_is_settled_twice(served, tmp_path, capsys, who, after):
    """A rejection written after the request's approval, or after its rejection (the
    ids are in every view, so a player's log tells it too)."""
    lines = _lines(served[who])
    rejected = _events(lines, "approval.rejected")[0]
    approved = next(e for e in _events(lines, "roll") if "approved" in e["data"])
    first = approved if after == "approved" else rejected
    request = first["data"]["approved" if after == "approved" else "pending"]
    forged = json.loads(json.dumps(rejected))
    forged["seq"] = max(line.get("seq", 0) for line in lines if line.get("type") == "event") + 1
    forged["data"]["pending"] = request
    status, report = _verified(tmp_path, [*lines, forged], capsys)
    assert status == 1
    assert [(p["code"], p["seq"]) for p in report["problems"]] == [("settled_twice", forged["seq"])]
    assert report["problems"][0]["message"] == (
        f"seq {forged['seq']}: the log says the GM rejected request {request!r}, which seq "
        f"{first['seq']} already settled: a request is approved or rejected once"
    )


async def _held_then_rejected(url: str, made: dict, db: Path) -> tuple[Client, str]:
    """r1 held, a backup taken while it waits, then r1 rejected: the GM's client and
    the request's id."""
    gm, player = await _approval_on(url, made)
    held = await player.call({"type": "roll", "id": "r1", "formula": "1d6"})
    await player.ws.close()
    backup = cli("backup", "--db", str(db), str(db.with_name("b.db")), db=db)
    assert backup.returncode == 0, backup.stderr
    await gm.done({"type": "reject", "id": "g1", "request": held["pending"]})
    await gm.ws.close()
    return gm, held["pending"]


async def _approved_after_restore(url: str, made: dict, gm: Client, request: str) -> Client:
    """The GM's client resumes at the restored table (a new epoch, r1 waiting again),
    reveals the restored segment and approves r1."""
    last = json.loads(gm.frames[-1])
    ws, welcome = await hello(url, made["table"], made["tokens"]["gm"],
                              resume={"epoch": 1, "seq": last["seq"]})  # fmt: skip
    back = Client(ws, json.dumps(welcome))
    assert [p["pending"] for p in welcome["table"]["pending"]] == [request], welcome
    for step in ({"type": "dice.reveal", "id": "v1"},
                 {"type": "approve", "id": "g2", "request": request},
                 {"type": "dice.reveal", "id": "v2"}):  # fmt: skip
        await back.done(step)
    await back.ws.close()
    return back


def test_a_restore_between_a_request_and_its_answer_settles_it_once_per_epoch(tmp_path, capsys):
    """Rejected at the table, approved at its restored backup: the GM's log holds both,
    each in its own epoch, and verifies."""
    db = tmp_path / "a.db"
    server = Serve(db, "--no-demo")
    try:
        made = _table(db)
        gm, request = asyncio.run(_held_then_rejected(server.url, made, db))
    finally:
        assert server.stop() == 0
    restored = Serve(db.with_name("b.db"), "--no-demo")
    try:
        back = asyncio.run(_approved_after_restore(restored.url, made, gm, request))
    finally:
        assert restored.stop() == 0
    lines = _lines([*gm.frames, *back.frames])
    assert [e["data"]["pending"] for e in _events(lines, "approval.rejected")] == [request]
    approved = [e for e in _events(lines, "roll") if e["data"].get("approved") == request]
    assert len(approved) == 1 and approved[0]["epoch"] != 1
    status, report = _verified(tmp_path, lines, capsys)
    assert status == 0 and report["ok"], report["problems"]
    assert (report["approvals_held"], report["approvals_unseen"]) == (1, 0)
