"""``rollbridge verify`` holds only a client's own requests to its own replies, on
logs that a real ``rollbridge serve`` wrote (a free 127.0.0.1 port, a SQLite file).

A request's ``id`` is its client's: the server keeps replies by requester and id, so
two players may each send a roll ``1`` (any client may name its requests so; the
protocol asks only that an id be unique among the client's own). Before, the
replies a player's log holds were noted by id alone: Ana's roll ``1``, held as
``p3``, made Bo's approved roll ``1`` (``p5``) a mismatch in Ana's honest log
(``other_request``, exit 1). An approval naming the player's own request under
another request's id is still one (docs/dice.md, ``other_request``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path

import pytest

from tests.dice.test_verify_settled_once import (
    Client,
    _approval_on,
    _join,
    _lines,
    _table,
    _verified,
)
from tests.server.test_server_lifecycle import Serve, cli

pytestmark = pytest.mark.usefixtures("english_without_stores")


async def _two_players(url: str, made: dict, bo: str) -> dict[str, Client]:
    """Approval on, verifiable dice: Ana's roll ``1`` approved, Bo's roll ``1``
    approved and his roll ``2`` rejected, the dice revealed; every client reads to
    its last frame."""
    gm, ana = await _approval_on(url, made)
    clients = {"gm": gm, "ana": ana, "bo": await _join(url, made["table"], bo)}
    for who, asked, answer in (("ana", "1", "approve"), ("bo", "1", "approve"),
                               ("bo", "2", "reject")):  # fmt: skip
        held = await clients[who].call({"type": "roll", "id": asked, "formula": "1d6"})
        assert held["status"] == "pending", held
        await gm.done({"type": answer, "id": f"g-{who}-{asked}", "request": held["pending"]})
    await gm.done({"type": "dice.reveal", "id": "v"})
    for client in clients.values():
        await client.call({"type": "ping", "id": "last"})
        await client.ws.close()
    return clients


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> dict[str, list[dict]]:
    """The GM's, Ana's and Bo's client logs of :func:`_two_players`, as lines."""
    db = tmp_path_factory.mktemp("served") / "a.db"
    made = _table(db)
    new = cli("table", "tokens", made["table"], "--new", "player", "--name", "bo",
              "--json", db=db)  # fmt: skip
    server = Serve(db, "--no-demo")
    with contextlib.ExitStack() as stop:
        stop.callback(lambda: server.stop() == 0 or pytest.fail("serve did not stop cleanly"))
        clients = asyncio.run(
            _two_players(server.url, made, json.loads(new.stdout)["new"]["token"])
        )
    return {who: _lines(client.frames) for who, client in clients.items()}


def _approved(lines: list[dict], by: str) -> dict:
    return next(
        line
        for line in lines
        if line.get("type") == "event" and line.get("data", {}).get("approved") and line["by"] == by
    )


@pytest.mark.parametrize("who", ["gm", "ana", "bo"])
def test_the_honest_logs_verify_though_two_players_name_a_request_alike(
    served, tmp_path: Path, capsys, who
):
    """Before, Ana's log: exit 1, ``other_request`` at Bo's approved roll."""
    lines = served[who]
    replies = [line for line in lines if line.get("type") == "result" and "pending" in line]
    assert len(replies) == {"gm": 0, "ana": 1, "bo": 2}[who]
    assert _approved(lines, "player")["request"] == _approved(lines, "player:bo")["request"]
    status, report = _verified(tmp_path, lines, capsys)
    assert status == 0 and report["ok"], report["problems"]


def test_the_other_players_approved_roll_said_to_be_the_players_is_a_mismatch(
    served, tmp_path: Path, capsys
):
    """Bo's approved roll ``1`` said to be Ana's (its ``by``): Ana's log holds her
    roll ``1`` held as another id, so the event settles a request she did not make."""
    lines = json.loads(json.dumps(served["ana"]))
    mine, bos = _approved(lines, "player"), _approved(lines, "player:bo")
    bos["by"] = "player"
    status, report = _verified(tmp_path, lines, capsys)
    assert status == 1
    assert [(p["code"], p["seq"]) for p in report["problems"]] == [("other_request", bos["seq"])]
    assert report["problems"][0]["message"] == (
        f"seq {bos['seq']}: the log says the GM approved request {bos['data']['approved']!r} "
        f"of this client's request '1', but the server's reply to that request said it was "
        f"held as {mine['data']['approved']!r}: the approval settles another request than "
        "the one this client made"
    )
