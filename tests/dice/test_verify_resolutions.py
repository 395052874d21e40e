"""``rollbridge verify`` resolves every resolution of a log again (docs/dice.md,
"Checking"): on the table the log shows before it (its ``welcome`` line on), with
its own dice, by the ruleset installed here, the table's settings and all; a result
other than the event as logged is ``wrong_resolution``. Before, verify checked only
that a resolution's dice were the seed's: a log whose total, damage or an actor's
state after had been changed verified. What a log cannot re-resolve — an NPC's
numbers withheld from a player's view, a secret, a ruleset not installed, a log
without its table — is counted apart by reason.

The logs are real: tables on SQLite played through the offline service, exported
with ``rollbridge table export --format jsonl``, and a GM's own client log from a
live server."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rollbridge.cli import main
from rollbridge.cli.offline import offline_host
from rollbridge.engine.model import Principal
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore
from tests.dice.counted import counting

GM = Principal("gm", "gm", "gm-token")
PAT = Principal("player", "pat", "pat-token")
HOST = offline_host()


def _actor(ruleset: str, name: str, actor_id: str, pc: bool) -> dict[str, Any]:
    sheet = dict(HOST.ruleset(ruleset).example_sheets[name])
    return {"id": actor_id, "name": name, "sheet": sheet, "controllers": ["pat"] if pc else []}


#: Each ruleset's session: its player character, its NPC, and the requests (who
#: asks each: ``gm`` or ``pat``) — attacks, moves, damage, healing.
Session = tuple[tuple[str, str], tuple[str, str], list[tuple[str, dict[str, Any]]]]
SESSIONS: dict[str, Session] = {
    "sr2": (("Tukan", "pc"), ("Guard A", "npc"), [
        ("gm", {"action": "attack", "actor": "npc", "targets": ["pc"],
                "params": {"code": "6M", "skill": 4, "range": "medium"},
                "dice": [2, 2, 3, 2]}),  # supplied (a miss): the log shows them as rolled
        ("pat", {"action": "attack", "actor": "pc", "targets": ["npc"],
                 "params": {"weapon": "Hackler", "skill": 5, "attacker_pool": 2, "rounds": 3,
                            "range": "short"}}),
        ("pat", {"action": "success_test", "actor": "pc", "params": {"dice": 5, "tn": 4}}),
        ("gm", {"action": "damage", "targets": ["pc"], "params": {"code": "8S",
                                                                   "attack_successes": 2}}),
        ("gm", {"action": "heal", "targets": ["npc"], "params": {"monitor": "physical",
                                                                  "boxes": 2}}),
        ("gm", {"action": "new_turn"}),
    ]),
    "bandits": (("Ana", "pc"), ("Guard", "npc"), [
        ("pat", {"action": "move", "actor": "pc", "params": {"move": "Go aggro", "stat": "hard"}}),
        ("pat", {"action": "move", "actor": "pc", "params": {"stat": "cool", "modifiers": [1]}}),
        ("gm", {"action": "harm", "actor": "npc", "targets": ["pc"],
                "params": {"direction": "taken"}, "dice": [6, 6]}),  # supplied
        ("pat", {"action": "harm", "actor": "pc", "targets": ["npc"],
                 "params": {"direction": "dealt"}}),
    ]),
    "techlevel": (("Ana", "pc"), ("Guard", "npc"), [
        ("pat", {"action": "hit", "actor": "pc", "targets": ["npc"],
                 "params": {"dice": "2d6", "tl": 3}}),
        ("gm", {"action": "hit", "actor": "npc", "targets": ["pc"],
                "params": {"dice": "1d6+1", "tl": 2}}),
        ("gm", {"action": "hit", "targets": ["npc"], "params": {"dice": "1d8", "tl": 4}}),
    ]),
    "wilddie": (("Ana", "pc"), ("Guard", "npc"), [
        ("pat", {"action": "trait", "actor": "pc", "params": {"trait": "notice"}}),
        ("pat", {"action": "chip", "actor": "pc", "params": {"die": "trait"}}),
        ("gm", {"action": "attack", "actor": "npc", "targets": ["pc"],
                "params": {"mode": "ranged", "range": "short"}}),
        ("pat", {"action": "attack", "actor": "pc", "targets": ["npc"],
                 "params": {"mode": "melee"}}),
        ("pat", {"action": "damage", "actor": "pc", "targets": ["npc"],
                 "params": {"dice": "2d6", "melee": True}}),
        ("gm", {"action": "heal", "targets": ["npc"], "params": {"wounds": 1}}),
    ]),
}  # fmt: skip


def play(path: Path, ruleset: str, settings: dict[str, Any] | None = None) -> int:
    """A verifiable table of ``ruleset`` on SQLite, its session played after a
    secret resolution of the GM's (the player's requests after the second need the
    GM's approval: a settings change), its segment revealed. Returns how many
    resolutions were made."""
    pc, npc, requests = SESSIONS[ruleset]
    with SQLiteStore(path) as store:
        service = TableService(store, HOST)
        service.create_table("t", ruleset, table_id="t",
                             settings={"verifiable": True, **(settings or {})})  # fmt: skip
        for index, ((name, actor_id), pc_) in enumerate(((pc, True), (npc, False))):
            actor = _actor(ruleset, name, actor_id, pc_)
            service.handle("t", {"type": "actor.create", "id": f"c{index}", "actor": actor}, GM)
        secret = {"type": "resolve", "id": "s", **requests[0][1], "secret": True}
        assert service.handle("t", secret, GM)["status"] == "done"  # the GM's secret
        for index, (who, request) in enumerate(requests):
            message = {"type": "resolve", "id": f"r{index}", **request}
            reply = service.handle("t", message, GM if who == "gm" else PAT)
            if reply["status"] == "pending":  # the GM approves: resolved now
                approve = {"type": "approve", "id": f"a{index}", "request": reply["pending"]}
                reply = service.handle("t", approve, GM)
            assert reply["status"] == "done", reply
            if index == 1:  # the table's settings change in the log
                change = {"type": "settings", "id": "set", "settings": {"approval": True}}
                service.handle("t", change, GM)
        service.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    return len(requests) + 1


def export(capsys, path: Path, audience: str) -> list[str]:
    code = main(["table", "export", "t", "--db", str(path), "--as", audience,
                 "--format", "jsonl"])  # fmt: skip
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    return out.splitlines()


def verify(capsys, tmp_path: Path, lines: list[str], *options: str) -> tuple[int, Any]:
    log = tmp_path / "log.jsonl"
    log.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    code = main(["verify", str(log), *options])
    out = capsys.readouterr().out
    return code, json.loads(out) if "--json" in options else out


def _codes(report: dict[str, Any]) -> list[tuple[str, int]]:
    return [(p["code"], p["seq"]) for p in report["problems"]]


@pytest.mark.parametrize("ruleset", sorted(SESSIONS))
def test_an_honest_gm_export_resolves_every_resolution_again(tmp_path, capsys, ruleset):
    made = play(tmp_path / "t.db", ruleset)
    lines = export(capsys, tmp_path / "t.db", "gm")
    assert json.loads(lines[0])["type"] == "welcome"  # the table the log starts from
    code, report = verify(capsys, tmp_path, lines, "--json")
    assert (code, report["problems"]) == (0, [])
    assert (report["resolved"], report["unresolved"]) == (made, {})
    drawn = [e for _, e in _resolutions(lines) if "draws" in e["data"]]
    assert report["verified_events"] == len(drawn)  # and their dice are the seed's
    requests = [request for _, request in SESSIONS[ruleset][2]]
    supplied = sum("dice" in request for request in [requests[0], *requests])  # the secret too
    assert report["supplied"] == supplied
    code, out = verify(capsys, tmp_path, lines)
    assert code == 0 and f"{made} resolutions resolved again" in out


def _resolutions(lines: list[str]) -> list[tuple[int, dict[str, Any]]]:
    entries = [(n, json.loads(line)) for n, line in enumerate(lines)]
    return [(n, e) for n, e in entries if e.get("kind") == "resolution"]


def _first_damage(lines: list[str]) -> tuple[int, dict[str, Any]]:
    """The first resolution that changes an actor's state (damage)."""
    for n, event in _resolutions(lines):
        if event["actors"]:
            return n, event
    raise AssertionError("no resolution changed an actor")


def _tampered(lines: list[str], how: str) -> tuple[list[str], int, int]:
    """The log with one resolution's outcome changed ``how``; the line (from 1) and
    seq of that event."""
    n, event = _first_damage(lines)
    event = copy.deepcopy(event)
    if how == "total":  # a dice group's result: the successes (sr2) or the total
        group = event["data"]["dice"][0]
        key = "successes" if "successes" in group else "total"
        group[key] = (group.get(key) or 0) + 1
    elif how == "damage":  # what the outcome says was dealt
        event["data"]["outcome"]["boxes"] += 1
    else:  # the state an actor was left in
        state = event["actors"][-1]["state"]
        state["physical"] = state["physical"] + 1
    changed = list(lines)
    changed[n] = json.dumps(event, separators=(",", ":"))
    return changed, n + 1, event["seq"]


@pytest.mark.parametrize("how", ["total", "damage", "state"])
def test_a_tampered_outcome_fails_with_wrong_resolution(tmp_path, capsys, how):
    play(tmp_path / "t.db", "sr2")
    lines = export(capsys, tmp_path / "t.db", "gm")
    changed, line, seq = _tampered(lines, how)
    code, report = verify(capsys, tmp_path, changed, "--json")
    assert code == 1
    assert _codes(report)[0] == ("wrong_resolution", seq)  # later ones may follow from it
    assert {code for code, _ in _codes(report)} == {"wrong_resolution"}
    assert report["problems"][0]["position"] == line
    code, out = verify(capsys, tmp_path, changed)
    assert code == 1 and f"MISMATCH at line {line}: seq {seq}: resolved again" in out


def test_a_tampered_state_of_another_ruleset_fails_too(tmp_path, capsys):
    play(tmp_path / "t.db", "wilddie")
    lines = export(capsys, tmp_path / "t.db", "gm")
    n, event = _first_damage(lines)
    event["actors"][-1]["state"]["wounds"] = event["actors"][-1]["state"].get("wounds", 0) + 1
    lines[n] = json.dumps(event)
    code, report = verify(capsys, tmp_path, lines, "--json")
    assert code == 1 and _codes(report)[0] == ("wrong_resolution", event["seq"])


@pytest.mark.parametrize("left_out", ["a state field", "the actors"])
def test_a_state_left_out_of_the_log_is_a_mismatch(tmp_path, capsys, left_out):
    """The state an event leaves is what the log carries on: an actor's view without
    its damage (sr2's ``physical``), or an event without its actors, is that actor
    undamaged. At the log's last resolution no later one would differ: before, such
    a log verified."""
    play(tmp_path / "t.db", "sr2")
    damage = {"type": "resolve", "id": "x", "action": "damage", "targets": ["npc"],
              "params": {"code": "8S", "attack_successes": 2}, "dice": [1, 1, 1, 1]}  # fmt: skip
    with SQLiteStore(tmp_path / "t.db") as store:  # the last resolution: Deadly
        assert TableService(store, HOST).handle("t", damage, GM)["status"] == "done"
    lines = export(capsys, tmp_path / "t.db", "gm")
    n, event = _resolutions(lines)[-1]
    if left_out == "the actors":
        del event["actors"]
    else:
        assert event["actors"][0]["state"].pop("physical") > 0
    lines[n] = json.dumps(event)
    code, report = verify(capsys, tmp_path, lines, "--json")
    assert code == 1 and _codes(report) == [("wrong_resolution", event["seq"])]
    assert "actors" in report["problems"][0]["message"]


def test_the_tables_settings_are_the_rules(tmp_path, capsys):
    """The table's settings decide the rules: a wilddie chip rerolls the whole roll
    under ``chip_reroll: whole_roll`` (WD-4). The honest log verifies; the same log
    whose settings say ``one_die`` (its welcome's, and the settings event's) does
    not, at the chip."""
    play(tmp_path / "t.db", "wilddie", {"ruleset": {"chip_reroll": "whole_roll"}})
    lines = export(capsys, tmp_path / "t.db", "gm")
    assert verify(capsys, tmp_path, lines)[0] == 0
    changed = []
    for line in lines:
        entry = json.loads(line)
        table = entry.get("table") if entry["type"] == "welcome" else entry.get("table_after")
        settings = (table or {}).get("settings")
        if settings:
            assert settings["ruleset"]["chip_reroll"] == "whole_roll"
            settings["ruleset"]["chip_reroll"] = "one_die"
        changed.append(json.dumps(entry))
    chip = next(e for _, e in _resolutions(lines) if e["data"]["action"] == "chip")
    code, report = verify(capsys, tmp_path, changed, "--json")
    assert code == 1 and _codes(report)[0] == ("wrong_resolution", chip["seq"])


@pytest.mark.parametrize("ruleset", sorted(SESSIONS))
def test_a_players_log_counts_what_it_cannot_resolve_again(tmp_path, capsys, ruleset):
    made = play(tmp_path / "t.db", ruleset)
    lines = export(capsys, tmp_path / "t.db", "player")
    code, report = verify(capsys, tmp_path, lines, "--json")
    assert (code, report["problems"]) == (0, [])
    unresolved = report["unresolved"]
    hidden = sum(json.loads(line).get("kind") == "hidden" for line in lines)
    approvals = hidden - 1  # the requests the GM approved, and the GM's secret
    assert unresolved["secret"] == hidden == 1 + approvals
    assert "withheld" in unresolved  # against the NPC, or the NPC's own
    assert report["resolved"] + unresolved["withheld"] + 1 == made
    code, out = verify(capsys, tmp_path, lines)
    assert f"{hidden} events for the GM only, hidden from this view, were not checked" in out
    assert "not resolved again: this view withholds an NPC's numbers" in out


def test_a_log_without_its_table_or_ruleset_is_counted_not_passed(tmp_path, capsys):
    made = play(tmp_path / "t.db", "bandits")
    lines = export(capsys, tmp_path / "t.db", "gm")
    code, report = verify(capsys, tmp_path, lines[1:], "--json")  # no welcome line
    assert (code, report["problems"]) == (0, [])  # its dice check out
    assert (report["resolved"], report["unresolved"]) == (0, {"no_table": made})
    welcome = json.loads(lines[0])
    welcome["table"]["ruleset"] = "nosuchruleset"
    code, report = verify(capsys, tmp_path, [json.dumps(welcome), *lines[1:]], "--json")
    # not checked by what is installed here: incomplete (3), neither verified nor forged
    assert (code, report["resolved"], report["unresolved"]) == (3, 0, {"ruleset": made})
    assert report["ok"] and not report["complete"]
    # an event missing from the log: the table after it is not known
    first = _resolutions(lines)[0][0]
    code, report = verify(capsys, tmp_path, lines[:first] + lines[first + 1 :], "--json")
    assert report["unresolved"]["no_table"] == made - 1 and report["resolved"] == 0


def test_a_log_the_engine_cannot_take_is_a_mismatch_not_a_traceback(tmp_path, capsys):
    """A state the ruleset cannot read (it fails on it) and an actor without a name
    in the welcome are this log's mismatches, each one line; nothing on stderr."""
    play(tmp_path / "t.db", "wilddie")
    lines = export(capsys, tmp_path / "t.db", "gm")
    first = _resolutions(lines)[0][1]["seq"]
    for change in ("state", "name"):
        welcome, *events = [json.loads(line) for line in lines]
        actors = [e for e in events if e["kind"] == "actor.created"]
        if change == "state":
            actors[0]["actors"][0]["state"] = {"wounds": "many"}
        else:
            del actors[0]["actors"][0]["name"]
        changed = [json.dumps(entry) for entry in (welcome, *events)]
        log = tmp_path / "log.jsonl"
        log.write_text("\n".join(changed) + "\n", encoding="utf-8")
        assert main(["verify", str(log), "--all"]) == 1
        out, err = capsys.readouterr()
        assert err == "" and "Traceback" not in out
        said = "ruleset 'wilddie' failed" if change == "state" else "is not well-formed"
        assert f"seq {first}: " in out and said in out, out


def test_approvals_supplied_dice_and_undo_are_resolved_as_the_server_did(tmp_path, capsys):
    """A table that is not verifiable (the dice are its resolutions' dice groups):
    a player's attack approved with the GM's dice (the GM's approve runs it again,
    the GM the asker), a player's test with their own dice approved as it was, an
    undone attack and the one after it. The GM's export resolves every one again;
    the player's log cannot tell whose the approved dice were and counts that apart."""
    attack = {"type": "resolve", "action": "attack", "actor": "pc", "targets": ["npc"],
              "params": {"weapon": "Hackler", "skill": 5, "attacker_pool": 2, "rounds": 1,
                         "range": "short"}}  # fmt: skip
    with SQLiteStore(tmp_path / "t.db") as store:
        service = TableService(store, HOST)
        service.create_table("t", "sr2", table_id="t",
                             settings={"approval": True, "player_dice": True})  # fmt: skip
        for index, (name, actor_id, pc) in enumerate(
            (("Tukan", "pc", True), ("Guard A", "npc", False))
        ):
            actor = _actor("sr2", name, actor_id, pc)
            service.handle("t", {"type": "actor.create", "id": f"c{index}", "actor": actor}, GM)
        waiting = service.handle("t", {**attack, "id": "a1"}, PAT)["pending"]
        approve = {"type": "approve", "id": "ok1", "request": waiting,
                   "dice": [5, 5, 4, 1, 2, 3, 2, 2, 2, 1, 3]}  # fmt: skip
        assert service.handle("t", approve, GM)["status"] == "done"
        test = {"type": "resolve", "id": "t1", "action": "success_test", "actor": "pc",
                "params": {"dice": 3, "tn": 4}, "dice": [5, 2, 4]}  # fmt: skip
        waiting = service.handle("t", test, PAT)["pending"]
        assert service.handle("t", {"type": "approve", "id": "ok2", "request": waiting},
                              GM)["status"] == "done"  # fmt: skip
        gm_attack = {**attack, "id": "g1", "actor": "npc", "targets": ["pc"],
                     "params": {"code": "6M", "skill": 4, "range": "short"}}  # fmt: skip
        assert service.handle("t", gm_attack, GM)["status"] == "done"
        service.handle("t", {"type": "undo", "id": "u1"}, GM)
        assert service.handle("t", {**gm_attack, "id": "g2"}, GM)["status"] == "done"
    lines = export(capsys, tmp_path / "t.db", "gm")
    kinds = [json.loads(line).get("kind") for line in lines]
    assert kinds.count("resolution") == 4 and "undo" in kinds
    code, report = verify(capsys, tmp_path, lines, "--json")
    assert (code, report["problems"]) == (0, [])
    assert (report["resolved"], report["unresolved"]) == (4, {})
    assert report["supplied"] == 2
    code, report = verify(capsys, tmp_path, export(capsys, tmp_path / "t.db", "player"), "--json")
    assert (code, report["problems"]) == (0, [])
    # the player's approved test with dice: its or the GM's? (the attacks: the NPC's)
    assert report["unresolved"] == {"no_table": 1, "withheld": 3, "secret": 2}
    # the approved attack's damage changed in the GM's log is caught
    n, event = _resolutions(lines)[0]
    event["actors"][-1]["state"]["physical"] += 1
    lines[n] = json.dumps(event)
    code, report = verify(capsys, tmp_path, lines, "--json")
    assert code == 1 and _codes(report)[0] == ("wrong_resolution", event["seq"])


@pytest.mark.parametrize("ruleset", ["sr2", "wilddie"])
def test_an_encounters_turn_hooks_are_resolved_again(tmp_path, capsys, ruleset):
    """The turn hooks an encounter runs (sr2's new combat turn, wilddie's start of
    turn) are resolutions too: ``encounter.start`` and
    ``encounter.next`` run again on the logged table (a new round's order given with
    the turn), their results and the actors they changed compared."""
    play(tmp_path / "t.db", ruleset)
    with SQLiteStore(tmp_path / "t.db") as store:
        service = TableService(store, HOST)
        if ruleset == "wilddie":  # WD-9's roll needs a Shaken NPC, whatever the dice did
            state = {**store.load("t")[0].actors["npc"].state}
            state.update(shaken=True, incapacitated=False)
            update = {"type": "actor.update", "id": "u0", "actor": "npc", "state": state}
            assert service.handle("t", update, GM)["status"] == "done"
        start = {"type": "encounter.start", "id": "e0", "order": ["pc", "npc"]}
        assert service.handle("t", start, GM)["status"] == "done"
        for turn in range(4):
            step: dict[str, Any] = {"type": "encounter.next", "id": f"e{turn + 1}"}
            if turn == 1:  # the turn that starts round 2, in a new order
                step["order"] = ["npc", "pc"]
            assert service.handle("t", step, GM)["status"] == "done"
        service.handle("t", {"type": "dice.reveal", "id": "v2"}, GM)
    lines = export(capsys, tmp_path / "t.db", "gm")
    events = [json.loads(line) for line in lines[1:]]
    hooked = [e for e in events if e["kind"].startswith("encounter.") and e["data"].get("hooks")]
    assert hooked  # the ruleset's hooks resolved something
    code, report = verify(capsys, tmp_path, lines, "--json")
    assert (code, report["problems"], report["unresolved"]) == (0, [], {})
    made = sum(e["kind"] == "resolution" for e in events)
    assert report["resolved"] == made + len(hooked)
    event = hooked[-1]
    at = lines.index(json.dumps(event, separators=(",", ":"), ensure_ascii=False))
    event["data"]["hooks"][-1]["narration"] += "!"
    lines[at] = json.dumps(event)
    code, report = verify(capsys, tmp_path, lines, "--json")
    assert code == 1 and _codes(report)[0] == ("wrong_resolution", event["seq"])
    assert report["problems"][0]["message"].startswith(f"seq {event['seq']}: resolved again")


def _large_log_checked(
    capsys, tmp_path: Path, npc: dict, welcome: dict, actors: int, updates: int
) -> int:
    """The calls ``rollbridge verify`` makes on a log of a table of ``actors`` NPCs
    and ``updates`` events each updating one of them (counted: the same on every
    machine, tests/dice/counted.py)."""
    welcome = {
        **welcome,
        "table": {**welcome["table"], "actors": [{**npc, "id": f"n{i}"} for i in range(actors)]},
    }
    lines, seq = [json.dumps(welcome)], welcome["table"]["seq"]
    for index in range(updates):
        view = {**npc, "id": f"n{index}", "name": f"Guard {index}"}
        lines.append(json.dumps({"type": "event", "table": "t", "kind": "actor.updated",
                                 "epoch": 1, "seq": seq + 1 + index, "by": "gm",
                                 "data": {"actor": view["id"]}, "actors": [view]}))  # fmt: skip
    with counting() as count:
        code, report = verify(capsys, tmp_path, lines, "--json")
    assert (code, report["problems"], report["events"]) == (0, [], updates)
    return count.calls


def test_a_log_of_a_large_table_is_checked_in_linear_time(tmp_path, capsys):
    """Each event takes its actors' views to the table in place: what an event costs
    to check does not grow with the table. Before, every event rebuilt the whole
    table (20,000 actors and 2,000 updates: about 75 s; a hostile 15 MB log of
    100,000 actors and as many events, hours). Counted, not timed: the calls 500
    more events make at 10,000 actors are exactly those at 1,000 (before: some
    20,000 more per event at 10,000 actors, one rebuild's — 10,114,500 against
    1,112,912). Equal within 1 %: the counts of one process move by a few hundred
    calls from run to run (113,246 to 113,752 for the same 500 events, whatever the
    hash seed; seen under xdist and with a low collector threshold), which is four
    orders of magnitude below the rebuild this guards against."""
    play(tmp_path / "t.db", "sr2")
    welcome, *events = [json.loads(line) for line in export(capsys, tmp_path / "t.db", "gm")]
    npc = next(a for e in events for a in e.get("actors") or [] if a["id"] == "npc")
    # a first check of the process loads what it needs once (the catalogues, modules)
    _large_log_checked(capsys, tmp_path, npc, welcome, 10, 10)
    more = {}
    for actors in (1_000, 10_000):
        fewer, most = (_large_log_checked(capsys, tmp_path, npc, welcome, actors, updates)
                       for updates in (500, 1_000))  # fmt: skip
        more[actors] = most - fewer
    assert abs(more[10_000] - more[1_000]) <= more[1_000] // 100, more


def test_an_event_of_a_kind_the_engine_does_not_make_loses_the_table(tmp_path, capsys):
    """A resolution renamed to a kind the engine does not make is no resolution to
    resolve again, and what it shows is no table to hold the resolutions after it
    to: they are counted apart (``unknown_kind``: a later version's kind, or a line
    altered) and the log is incomplete, exit 3 (tests/dice/test_verify_unknown_kinds.py;
    until 7 December 2026 ``no_table``, exit 0). Before that, its actors were taken as
    the table: a renamed attack with a changed state verified, and so did the
    resolutions after it, resolved on that state."""
    made = play(tmp_path / "t.db", "sr2")
    lines = export(capsys, tmp_path / "t.db", "gm")
    n, event = _first_damage(lines)
    event["kind"] = "attack.v2"
    event["actors"][-1]["state"]["physical"] = 0
    lines[n] = json.dumps(event)
    code, report = verify(capsys, tmp_path, lines, "--json")
    after = sum(e["seq"] > event["seq"] for _, e in _resolutions(lines))
    assert after and (code, report["problems"], report["complete"]) == (3, [], False)
    assert report["unresolved"] == {"unknown_kind": after}
    assert report["resolved"] == made - 1 - after
    event["kind"] = ["resolution"]  # no kind at all: the same, not a traceback
    lines[n] = json.dumps(event)
    code, report = verify(capsys, tmp_path, lines, "--json")
    assert (code, report["unresolved"]) == (3, {"unknown_kind": after})


@pytest.mark.parametrize("audience", ["gm", "player"])
@pytest.mark.parametrize("ruleset", sorted(SESSIONS))
def test_a_log_in_the_foundry_dialect_is_resolved_again_as_the_plain_one(
    tmp_path, capsys, ruleset, audience
):
    """Every line of an export (the session, an encounter's turn hooks) as the Foundry
    adapter translates it for its client (``foundry`` beside the event and in each
    actor view): verify takes the adapter's additions off (``plain``) and reports what
    it reports of the plain log — every resolution resolved again, nothing withheld
    but what the plain log withholds (docs/dice.md, "Checking"). Before 7 December
    2026 each was counted ``dialect``, not resolved again."""
    from rollbridge.adapters.foundry.adapter import FoundryAdapter

    play(tmp_path / "t.db", ruleset)
    with SQLiteStore(tmp_path / "t.db") as store:
        service = TableService(store, HOST)
        if ruleset == "wilddie":  # WD-9's roll needs a Shaken NPC, whatever the dice did
            state = {**store.load("t")[0].actors["npc"].state}
            state.update(shaken=True, incapacitated=False)
            update = {"type": "actor.update", "id": "u0", "actor": "npc", "state": state}
            assert service.handle("t", update, GM)["status"] == "done"
        start = {"type": "encounter.start", "id": "e0", "order": ["pc", "npc"]}
        assert service.handle("t", start, GM)["status"] == "done"
        assert service.handle("t", {"type": "encounter.next", "id": "e1"}, GM)["status"] == "done"
    lines = export(capsys, tmp_path / "t.db", audience)
    _, plain = verify(capsys, tmp_path, lines, "--json")
    adapter = FoundryAdapter()
    frames = [json.loads(line) for line in lines]
    if audience == "gm":  # the players' copy the server gives a Foundry GM's frames
        _with_players_copies(frames, export(capsys, tmp_path / "t.db", "player"))
    translated = [json.dumps(adapter.outbound(frame)) for frame in frames]
    assert translated != lines and "foundry" in json.loads(translated[0])
    code, report = verify(capsys, tmp_path, translated, "--json")
    assert (code, report["problems"]) == (0, [])
    assert (report["resolved"], report["unresolved"]) == (plain["resolved"], plain["unresolved"])
    assert report["resolved"] > 0 or audience == "player"  # (techlevel's withholds each)


def _with_players_copies(gm: list[dict[str, Any]], player_lines: list[str]) -> None:
    """The GM's export ``gm`` as the server frames it for a Foundry GM: beside each
    event the adapter's ``public_view`` asks for (core/protocol/members.py), the
    players' frame of it (the player's export's line of its seq, as the adapter
    translates it), and in the snapshot welcome the NPCs as players see them —
    what verify holds a Foundry GM's log to carry (adapters/foundry/checked.py)."""
    from rollbridge.adapters.foundry.adapter import PLAYERS_ALWAYS, FoundryAdapter

    adapter = FoundryAdapter()
    players = {line.get("seq"): line for line in map(json.loads, player_lines)}
    for frame in gm:
        seen = players.get(frame.get("seq"))
        if frame["type"] == "welcome":
            npcs = [a for a in seen["table"]["actors"] if not a.get("controllers")]
            frame["players"] = {"actors": npcs}
        elif frame["type"] == "event" and (
            frame.get("actors") if frame.get("gm_only") else frame["kind"] in PLAYERS_ALWAYS
        ):
            frame["players"] = adapter.outbound(seen)


@pytest.mark.parametrize("options", [(), ("--json",)])
def test_a_lone_surrogate_in_a_logs_field_is_reported_not_a_traceback(tmp_path, capsys, options):
    """A log's JSON may hold a lone surrogate as an escape (``"\\ud800x"``), which no
    UTF-8 output can write: a field of that name added to a resolution's data is
    named in the mismatch as its escape, as printed and with ``--json`` (which reads
    back as the same name). Before, both ended in a UnicodeEncodeError's traceback
    where stdout's errors were surrogateescape (fuzzed, ROLLBRIDGE_FUZZ_SEED=723119)."""
    play(tmp_path / "t.db", "bandits")
    lines = [json.loads(line) for line in export(capsys, tmp_path / "t.db", "gm")]
    resolution = next(line for line in lines if line.get("kind") == "resolution")
    resolution["data"]["\ud800x"] = None
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    # Python's UTF-8 mode (on by itself in the C locale: a container, cron) writes
    # stdout with surrogateescape, which no lone high surrogate passes
    env = {k: v for k, v in os.environ.items() if k != "PYTHONIOENCODING"}
    run = subprocess.run(
        [sys.executable, "-m", "rollbridge", "verify", str(log), *options],
        capture_output=True, check=False, env={**env, "PYTHONUTF8": "1"},
    )  # fmt: skip
    assert (run.returncode, run.stderr) == (1, b"")
    if options:
        problem = json.loads(run.stdout)["problems"][0]
        assert problem["code"] == "wrong_resolution"
        assert "data.\ud800x" in problem["message"]
    else:
        assert b"data.\\ud800x" in run.stdout
