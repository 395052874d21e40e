"""``rollbridge verify`` checks what a Foundry client's log shows beside the plain
protocol (adapters/foundry/checked.py; docs/dice.md, "A dialect's own fields"): the
chat card's rolls, speaker and texts, each actor view's flags and system paths, and
a GM frame's ``players`` copy. Logs of a real server on a real SQLite file, received
over real sockets by Foundry GM and player clients, of every ruleset.

Before, only the plain frame was resolved again: a forger could change a Foundry
log's cards (a roll's total, a die, a players' copy's dice) and the log verified,
exit 0."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

from rollbridge import __version__
from rollbridge.adapters.foundry import outbound
from rollbridge.cli import main
from rollbridge.engine import Principal
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore
from rollbridge.tokens import new_token
from tests.dice.test_verify_resolutions import HOST, SESSIONS, _actor
from tests.export.test_export_verify_frame_fields import _verified
from tests.server.conftest import Peer, start

GM = Principal("gm", "gm", "gm-token")


async def _peer(server, token: str, dialect: str | None = None) -> Peer:
    peer = Peer(await connect(server.url, max_size=2**22))
    hello = {"type": "hello", "table": "t", "token": token}
    if dialect:
        hello["dialect"] = dialect
    assert (await peer.request(hello))["type"] == "welcome"
    return peer


def _table(path: Path, ruleset: str, settings: dict[str, Any]) -> dict[str, str]:
    """A table ``t`` of ``ruleset`` with ``settings`` in a SQLite file at ``path``, its
    session's player character (``pc``, controlled by ``pat``) and NPC (``npc``): the
    GM's join token and the player's (``gm``, ``pat``)."""
    pc, npc, _ = SESSIONS[ruleset]
    with SQLiteStore(path) as store:
        service = TableService(store, HOST)
        _, tokens = service.create_table("t", ruleset, table_id="t", settings=settings)
        for index, ((name, actor_id), owned) in enumerate(((pc, True), (npc, False))):
            actor = _actor(ruleset, name, actor_id, owned)
            service.handle("t", {"type": "actor.create", "id": f"c{index}", "actor": actor}, GM)
        pat, record = new_token("t", "player", "pat")
        store.add_token(record)
    return {"gm": tokens["gm"], "pat": pat}


async def _session(tmp_path: Path, ruleset: str) -> dict[str, list[dict[str, Any]]]:
    """A verifiable table of ``ruleset`` (tests/dice/test_verify_resolutions.py's
    session: a secret of the GM's, the player's requests approved after a settings
    change, a reveal) played by plain clients on a real server, while a Foundry GM
    and a Foundry player watch: the frames each Foundry client received."""
    path = tmp_path / f"{ruleset}.db"
    requests = SESSIONS[ruleset][2]
    tokens = _table(path, ruleset, {"verifiable": True})
    pat = tokens["pat"]
    server, _ = await start(path, HOST)
    peers: list[Peer] = []
    try:
        foundry_gm = await _peer(server, tokens["gm"], "foundry")
        foundry_pat = await _peer(server, pat, "foundry")
        gm, player = await _peer(server, tokens["gm"]), await _peer(server, pat)
        peers += [foundry_gm, foundry_pat, gm, player]
        secret = {"type": "resolve", **requests[0][1], "secret": True}
        assert (await gm.request(secret))["status"] == "done"
        for index, (who, request) in enumerate(requests):
            reply = await (gm if who == "gm" else player).request({"type": "resolve", **request})
            if reply.get("status") == "pending":
                reply = await gm.request({"type": "approve", "request": reply["pending"]})
            assert reply.get("status") == "done", reply
            if index == 1:
                change = {"type": "settings", "settings": {"approval": True}}
                assert (await gm.request(change)).get("status") != "error"
        assert (await gm.request({"type": "dice.reveal"})).get("status") != "error"
        for peer in (foundry_gm, foundry_pat):
            await peer.wait_for(lambda p: any(e["kind"] == "dice.revealed" for e in p.events))
        return {
            "gm": [json.loads(frame) for frame in foundry_gm.frames],
            "player": [json.loads(frame) for frame in foundry_pat.frames],
        }
    finally:
        for peer in peers:
            await peer.close()
        await server.stop()


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """Each ruleset's Foundry GM and player logs (played once for the module)."""
    import asyncio

    root = tmp_path_factory.mktemp("foundry-logs")
    return {ruleset: asyncio.run(_session(root, ruleset)) for ruleset in sorted(SESSIONS)}


@pytest.mark.parametrize("audience", ["gm", "player"])
@pytest.mark.parametrize("ruleset", sorted(SESSIONS))
def test_honest_foundry_logs_of_every_ruleset_verify(logs, tmp_path, capsys, ruleset, audience):
    lines = logs[ruleset][audience]
    assert any("foundry" in line for line in lines if line.get("kind") == "resolution")
    if audience == "gm":
        assert any("players" in line for line in lines if line.get("kind") == "resolution")
    status, report = _verified(tmp_path, lines, capsys)
    assert (status, report["problems"], report["complete"]) == (0, [], True), report
    assert "dialect_version" not in report["unresolved"]


def _first(lines: list[dict[str, Any]], test) -> dict[str, Any]:
    return next(line for line in lines if test(line))


def _with_rolls(line: dict[str, Any]) -> bool:
    return line.get("kind") == "resolution" and bool(line.get("foundry", {}).get("rolls"))


#: Each forgery of a Foundry field, and the path verify names.
FORGERIES = {
    "a roll's total": (
        lambda line: line["foundry"]["rolls"][0].__setitem__(
            "total", line["foundry"]["rolls"][0]["total"] + 1),
        "foundry.rolls.0.total"),
    "a die of a roll": (
        lambda line: line["foundry"]["rolls"][0]["terms"][0]["results"][0].__setitem__(
            "result", line["foundry"]["rolls"][0]["terms"][0]["results"][0]["result"] % 2 + 1),
        "foundry.rolls.0.terms.0.results.0.result"),
    "the card's text": (
        lambda line: line["foundry"].__setitem__("content", "The guard is dead."),
        "foundry.content"),
    # Python's == has True == 1 == 1.0: a check comparing so passed it (exit 0)
    "a die's flag as a number": (
        lambda line: line["foundry"]["rolls"][0]["terms"][0]["results"][0].__setitem__(
            "active", int(line["foundry"]["rolls"][0]["terms"][0]["results"][0]["active"])),
        "foundry.rolls.0.terms.0.results.0.active"),
    "a die as true": (
        lambda line: line["foundry"]["rolls"][0]["terms"][0]["results"][0].__setitem__(
            "result", True),
        "foundry.rolls.0.terms.0.results.0.result"),
    "the speaker": (
        lambda line: line["foundry"]["speaker"].__setitem__("alias", "Someone else"),
        "foundry.speaker.alias"),
}  # fmt: skip


@pytest.mark.parametrize("audience", ["gm", "player"])
@pytest.mark.parametrize("forgery", sorted(FORGERIES))
@pytest.mark.parametrize("ruleset", sorted(SESSIONS))
def test_a_forged_foundry_field_is_a_mismatch(logs, tmp_path, capsys, ruleset, forgery, audience):
    """The plain frame untouched (it still resolves again as logged): the card a
    Foundry client shows of it changed. ``wrong_dialect``, exit 1; before, exit 0."""
    lines = json.loads(json.dumps(logs[ruleset][audience]))
    line = _first(lines, _with_rolls)
    forge, part = FORGERIES[forgery]
    forge(line)
    status, report = _verified(tmp_path, lines, capsys)
    assert status == 1, report
    assert [(p["code"], p["seq"]) for p in report["problems"]] == [("wrong_dialect", line["seq"])]
    assert report["problems"][0]["message"] == (
        f"seq {line['seq']}: its {part} is not what the Foundry VTT adapter makes of the "
        "event it carries: what that client shows (its chat card, an actor's flags) was "
        "altered"
    )


@pytest.mark.parametrize("ruleset", sorted(SESSIONS))
def test_a_forged_players_copy_is_a_mismatch(logs, tmp_path, capsys, ruleset):
    """The GM's frame untouched, the players' copy it carries (the card every player
    reads) shows another die, another card, another event: ``wrong_dialect``."""
    honest = logs[ruleset]["gm"]
    public = _first(honest, lambda line: _with_rolls(line) and not line.get("gm_only"))
    seq = public["seq"]

    def forged(change) -> tuple[int, list]:
        lines = json.loads(json.dumps(honest))
        change(_first(lines, lambda line: line.get("seq") == seq and "players" in line))
        status, report = _verified(tmp_path, lines, capsys)
        return status, [
            (p["code"], p["seq"], p["message"].split(":")[1]) for p in report["problems"]
        ]

    def die(line):  # the players' copy's data and its card agree with each other
        players = line["players"]
        record = players["data"]["dice"][0]["dice"][0]
        record["rolls"][0] = record["value"] = record["faces"] + 1  # no die the GM's shows
        players["foundry"] = outbound.translate(outbound.plain(players))["foundry"]

    said = " its {} is not what the Foundry VTT adapter makes of the event it carries"
    for change, part in [
        (lambda line: line["players"]["foundry"].__setitem__("content", "x"),
         "players.foundry.content"),
        (lambda line: line["players"].__setitem__("seq", seq - 1), "players.seq"),
        (lambda line: line["players"].__setitem__("kind", "roll"), "players.kind"),
        (die, "players.data"),
        # a copy without its Foundry fields (its card's rolls, its actors' flags): not
        # the adapter's, though it was passed before (exit 0)
        (lambda line: line.__setitem__("players", outbound.plain(line["players"])),
         "players.actors.0.foundry" if public["players"].get("actors") else "players.foundry"),
        # who asked and who acted are the same event's, whoever reads it (exit 0 before)
        (lambda line: line["players"].__setitem__("by", "someone"), "players.by"),
        (lambda line: line["players"].__setitem__("request", "r-forged"), "players.request"),
    ]:  # fmt: skip
        assert forged(change) == (1, [("wrong_dialect", seq, said.format(part))]), part


def test_another_adapter_version_that_made_other_cards_is_counted_apart(logs, tmp_path, capsys):
    """A log whose welcome says another adapter version wrote it, a card unlike this
    version's: counted apart (``dialect_version``, incomplete, exit 3), not called
    forged; the same card with this version's welcome is (exit 1)."""
    lines = json.loads(json.dumps(logs["sr2"]["gm"]))
    line = _first(lines, _with_rolls)
    line["foundry"]["flavor"] = "attack (0.9)"
    status, report = _verified(tmp_path, lines, capsys)
    assert status == 1 and report["problems"][0]["code"] == "wrong_dialect"
    welcome = lines[0]
    assert welcome["type"] == "welcome" and welcome["foundry"]["adapter"] == __version__
    welcome["foundry"]["adapter"] = "0.9.0"
    status, report = _verified(tmp_path, lines, capsys)
    assert (status, report["problems"], report["complete"]) == (3, [], False)
    # the card; the welcome itself names the version it names (it was counted too)
    assert report["unresolved"]["dialect_version"] == 1
    assert main(["verify", str(tmp_path / "log.jsonl")]) == 3
    said = capsys.readouterr().out
    assert "1 frame of a dialect not checked whole" in said
    assert "run verify with the rollbridge (and adapter) version the log's welcome names" in said


@pytest.mark.parametrize("audience", ["gm", "player"])
def test_an_older_adapter_versions_log_whose_cards_this_one_makes_verifies(
    logs, tmp_path, capsys, audience
):
    """An honest log another version of the adapter wrote (its welcome names it), every
    card as this version makes it: verified, exit 0. Before, its welcome's own
    ``foundry.adapter`` (not this version's) made every such log incomplete (exit 3),
    whatever its cards."""
    lines = json.loads(json.dumps(logs["wilddie"][audience]))
    assert lines[0]["type"] == "welcome"
    lines[0]["foundry"]["adapter"] = "0.9.0"
    status, report = _verified(tmp_path, lines, capsys)
    assert (status, report["problems"], report["complete"]) == (0, [], True), report
    assert "dialect_version" not in report["unresolved"]


def test_a_line_the_adapter_cannot_translate_is_a_mismatch_without_a_traceback(tmp_path):
    """A resolution whose dice no server sends (a group's dice a number) under a card:
    the adapter's translation fails (its ``foundry.error``, as a server would have sent
    it); the line's card is not that, ``wrong_dialect`` — and verify prints no
    traceback (the adapter logged the failure with one: a reader's crash)."""
    log = tmp_path / "log.jsonl"
    line = {"type": "event", "table": "t", "kind": "resolution", "epoch": 1, "seq": 1,
            "data": {"action": "x", "dice": [{"dice": 5}]}, "actors": [],
            "foundry": {"rolls": []}}  # fmt: skip
    log.write_text(json.dumps(line) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "rollbridge", "verify", str(log)],
        capture_output=True, text=True, timeout=60, env={**os.environ, "LC_ALL": "C"},
    )  # fmt: skip
    assert done.returncode == 1, done
    assert "seq 1: its foundry.error is not what the Foundry VTT adapter makes" in done.stdout
    assert done.stderr == ""


def _lacks(seq: int, part: str) -> str:
    return (
        f"seq {seq}: it lacks its {part}, which the Foundry VTT adapter gives every such "
        "line of a log its welcome says it wrote: the line was stripped of what that "
        "client shows"
    )


@pytest.mark.parametrize("audience", ["gm", "player"])
@pytest.mark.parametrize("ruleset", sorted(SESSIONS))
def test_a_line_stripped_of_all_its_foundry_fields_is_a_mismatch(
    logs, tmp_path, capsys, ruleset, audience
):
    """A Foundry log (its welcome names the adapter) whose resolution lost every Foundry
    field (its card's rolls and texts, each actor view's flags, a GM's players' copy):
    the server sent every such line through the adapter, so it was stripped —
    ``wrong_dialect``, exit 1. Before, the line was taken for a plain client's: exit 0.
    In a log whose welcome names another adapter version, counted apart (exit 3)."""
    lines = json.loads(json.dumps(logs[ruleset][audience]))
    assert lines[0]["type"] == "welcome" and lines[0]["foundry"]["adapter"] == __version__
    line = _first(lines, _with_rolls)
    stripped = outbound.plain(line)
    lines[lines.index(line)] = stripped
    status, report = _verified(tmp_path, lines, capsys)
    assert status == 1, report
    part = "actors.0.foundry" if stripped.get("actors") else "foundry"
    assert [(p["code"], p["seq"], p["message"]) for p in report["problems"]] == [
        ("wrong_dialect", line["seq"], _lacks(line["seq"], part))
    ]
    lines[0]["foundry"]["adapter"] = "0.9.0"
    status, report = _verified(tmp_path, lines, capsys)
    assert (status, report["problems"], report["unresolved"]["dialect_version"]) == (3, [], 1)


@pytest.mark.parametrize("ruleset", sorted(SESSIONS))
def test_a_gm_frame_without_its_players_copy_is_a_mismatch(logs, tmp_path, capsys, ruleset):
    """A GM's Foundry log whose public resolution, or snapshot welcome, lost its
    ``players`` copy alone (the card every player reads, the NPCs' flags): the server
    gives it every such GM frame, so it was taken off — ``wrong_dialect``, exit 1.
    Before, exit 0. A recovered resume's welcome carries none: not asked for."""
    honest = logs[ruleset]["gm"]
    public = _first(honest, lambda line: _with_rolls(line) and not line.get("gm_only"))
    assert "players" in public and "players" in honest[0]
    for seq in (public["seq"], None):
        lines = json.loads(json.dumps(honest))
        line = next(x for x in lines if (x.get("seq") == seq if seq else x["type"] == "welcome"))
        del line["players"]
        status, report = _verified(tmp_path, lines, capsys)
        assert status == 1, report
        problem = report["problems"][0]
        assert (len(report["problems"]), problem["code"]) == (1, "wrong_dialect"), report
        if seq is not None:
            assert (problem["seq"], problem["message"]) == (seq, _lacks(seq, "players"))
        else:
            assert "it lacks its players" in problem["message"], problem
    lines = json.loads(json.dumps(honest))
    del lines[0]["players"]
    lines[0]["resume"] = {"recovered": True, "missed": 0}
    status, report = _verified(tmp_path, lines, capsys)
    assert not [p for p in report["problems"] if "lacks" in p["message"]], report


@pytest.mark.parametrize("audience", ["gm", "player"])
@pytest.mark.parametrize("ruleset", sorted(SESSIONS))
def test_a_foundry_log_whose_welcome_was_stripped_is_a_mismatch(
    logs, tmp_path, capsys, ruleset, audience
):
    """The welcome stripped of its Foundry fields (its ``foundry.adapter``, a GM's
    ``players``), the log's other lines still the adapter's: the server sent the
    welcome through the adapter too, so it was stripped — ``wrong_dialect`` at the
    welcome, exit 1. Before, the log was then no Foundry log to the new rule, and a
    resolution stripped of all its Foundry fields beside it verified (exit 0)."""
    lines = json.loads(json.dumps(logs[ruleset][audience]))
    welcome = lines[0]
    assert welcome["type"] == "welcome" and welcome["foundry"]["adapter"] == __version__
    lines[0] = outbound.plain(welcome)
    line = _first(lines, _with_rolls)
    lines[lines.index(line)] = outbound.plain(line)
    status, report = _verified(tmp_path, lines, capsys)
    assert status == 1, report
    assert [(p["code"], p["position"], p["message"]) for p in report["problems"]] == [
        ("wrong_dialect", 1, _lacks(welcome["seq"], "foundry"))
    ]
    # a log stripped whole is a plain client's: it verifies (the plain frames do)
    status, report = _verified(tmp_path, [outbound.plain(x) for x in lines], capsys)
    assert (status, report["problems"]) == (0, []), report


#: A session's further changes, each a frame the rule reads: a GM's secret roll (GM-only,
#: no actor changed: no players' copy), a renamed NPC, undo and redo, an encounter, a
#: player's roll held for approval, an NPC removed and its removal undone.
MORE = [
    ("gm", {"type": "roll", "formula": "1d6", "secret": True}),
    ("gm", {"type": "roll", "formula": "1d6", "actor": "npc", "label": "<b>x</b>"}),
    ("gm", {"type": "actor.update", "actor": "npc", "name": "Renamed"}),
    ("gm", {"type": "undo"}), ("gm", {"type": "redo"}),
    ("gm", {"type": "encounter.start", "order": ["pc", "npc"]}),
    ("gm", {"type": "encounter.next"}), ("gm", {"type": "encounter.end"}),
    ("gm", {"type": "settings", "settings": {"approval": True}}),
    ("pat", {"type": "roll", "formula": "1d6", "actor": "pc"}),
    ("gm", {"type": "settings", "settings": {"approval": False}}),
    ("gm", {"type": "actor.remove", "actor": "npc"}), ("gm", {"type": "undo"}),
]  # fmt: skip


async def _reconnected(tmp_path: Path, ruleset: str) -> dict[str, list[dict[str, Any]]]:
    """Each Foundry client's log of :data:`MORE` on a real server, then of its
    reconnections: a resume the server recovers (its welcome has no ``players``) and
    one of an epoch it cannot (a snapshot welcome)."""
    path = tmp_path / f"{ruleset}-more.db"
    token = _table(path, ruleset, {})
    server, _ = await start(path, HOST)
    logs: dict[str, list[dict[str, Any]]] = {}
    try:
        watching = {who: await _peer(server, token[who], "foundry") for who in token}
        acting = {who: await _peer(server, token[who]) for who in token}
        for who, request in MORE:
            reply = await acting[who].request(request)
            if reply.get("status") == "pending":
                reply = await acting["gm"].request({"type": "approve", "request": reply["pending"]})
            assert reply.get("status") == "done", (request, reply)
        final = reply["seq"]
        for who, peer in watching.items():
            await peer.wait_for(lambda p: any(e["seq"] == final for e in p.events))
            last = peer.events[-1]
            await peer.close()
            lines = [json.loads(frame) for frame in peer.frames]
            for epoch in (last["epoch"], last["epoch"] + 5):
                again = Peer(await connect(server.url, max_size=2**22))
                hello = {"type": "hello", "table": "t", "token": token[who], "dialect": "foundry",
                         "resume": {"epoch": epoch, "seq": last["seq"]}}  # fmt: skip
                lines.append(await again.request(hello))
                await again.close()
            logs[who] = lines
        for peer in acting.values():
            await peer.close()
    finally:
        await server.stop()
    return logs


@pytest.mark.parametrize("ruleset", sorted(SESSIONS))
def test_honest_foundry_logs_of_undo_encounters_removals_and_reconnections_verify(
    tmp_path, capsys, ruleset
):
    """What the rule that a Foundry log's line lacks nothing must pass: every frame
    the real server sends its GM and player clients beside resolutions — a secret
    roll's, undo and redo, an encounter, an approval, a removal undone, a recovered
    resume's welcome (no ``players``) and a snapshot welcome (with it)."""
    import asyncio

    logs = asyncio.run(_reconnected(tmp_path, ruleset))
    gm = logs["gm"]
    assert all("players" in line for line in gm if line.get("kind") in ("undo", "redo"))
    recovered, snapshot = gm[-2:]
    assert recovered["resume"]["recovered"] is True and "players" not in recovered
    assert snapshot["resume"]["recovered"] is False and "players" in snapshot
    for audience, lines in logs.items():
        status, report = _verified(tmp_path, lines, capsys)
        assert (status, report["problems"]) == (0, []), (audience, report)
