"""A ruleset changes what its texts say without failing older logs (docs/plugins.md,
"Changing what your texts say"; docs/dice.md, "Resolutions, resolved again").

sr2's words 2 name each actor by its name in the new combat turn's line (SR-14:
``New combat turn (SR-14): Tukan 6, Guard 3``); words 1 named it by its id, and every
older sr2 log holds that. Each event records the words it was written in
(``data.words``, left out at 1) and ``rollbridge verify`` resolves it again in those
words, comparing every word: an older event verifies, and a result forged under
either words is still a mismatch, as is an event whose recorded words are not the
ones its texts are in.

Before, the line named actors by their ids (a Foundry player read
``Scene.sceneCave….Token.tokGoblinU… (hidden)``), and naming them by name failed the
verify of every older sr2 log (tests/cli/test_upgrade_verify.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rollbridge.engine.model import Principal
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore
from tests.dice.test_verify_resolutions import HOST, _actor, export, play, verify

GM = Principal("gm", "gm", "gm-token")


def _new_turn(lines: list[str]) -> tuple[int, dict[str, Any]]:
    """The line and event of the log's ``new_turn`` resolution."""
    for n, line in enumerate(lines):
        event = json.loads(line)
        if event.get("kind") == "resolution" and event["data"]["action"] == "new_turn":
            return n, event
    raise AssertionError("no new_turn in the log")


def _with(lines: list[str], n: int, event: dict[str, Any]) -> list[str]:
    changed = list(lines)
    changed[n] = json.dumps(event)
    return changed


def _problems(report: dict[str, Any]) -> list[tuple[str, int]]:
    return [(p["code"], p["seq"]) for p in report["problems"]]


def _as_words_one(event: dict[str, Any]) -> dict[str, Any]:
    """The event as sr2's words 1 wrote it: no ``words``, actors named by their ids."""
    data = event["data"]
    assert data.pop("words") == 2
    data["steps"] = [
        step.replace("Tukan", "pc").replace("Guard A", "npc") for step in data["steps"]
    ]
    return event


@pytest.mark.parametrize("audience", ["gm", "player"])
def test_the_new_turn_names_actors_and_its_log_verifies(tmp_path, capsys, audience):
    """SR-14's line names each actor by its name, and records the words it is in."""
    play(tmp_path / "t.db", "sr2")
    lines = export(capsys, tmp_path / "t.db", audience)
    _, event = _new_turn(lines)
    pool = "3" if audience == "gm" else "(hidden)"  # Guard A is an NPC
    assert event["data"]["steps"] == [f"New combat turn (SR-14): Tukan 6, Guard A {pool}"]
    assert event["data"]["words"] == 2
    code, report = verify(capsys, tmp_path, lines, "--json")
    assert (code, report["problems"]) == (0, [])


def test_an_event_of_the_older_words_verifies_in_them(tmp_path, capsys):
    """An older sr2's event (ids, no ``words``) is resolved again in words 1."""
    play(tmp_path / "t.db", "sr2")
    lines = export(capsys, tmp_path / "t.db", "gm")
    n, event = _new_turn(lines)
    older = _with(lines, n, _as_words_one(event))
    assert "New combat turn (SR-14): pc 6, npc 3" in older[n]
    code, report = verify(capsys, tmp_path, older, "--json")
    assert (code, report["problems"]) == (0, [])
    assert report["unresolved"] == {}


@pytest.mark.parametrize("forged", ["the older words' pool", "the newer words' pool"])
def test_a_forged_result_is_a_mismatch_in_either_words(tmp_path, capsys, forged):
    play(tmp_path / "t.db", "sr2")
    lines = export(capsys, tmp_path / "t.db", "gm")
    n, event = _new_turn(lines)
    if forged == "the older words' pool":
        event = _as_words_one(event)
        event["data"]["steps"] = ["New combat turn (SR-14): pc 6, npc 9"]
    else:
        event["data"]["steps"] = ["New combat turn (SR-14): Tukan 6, Guard A 9"]
    code, report = verify(capsys, tmp_path, _with(lines, n, event), "--json")
    assert code == 1 and _problems(report) == [("wrong_resolution", event["seq"])]
    assert "data.steps[0]" in report["problems"][0]["message"]


@pytest.mark.parametrize("words", [1, None])
def test_words_that_are_not_the_texts_are_a_mismatch(tmp_path, capsys, words):
    """The newer texts under words 1 (or no words): not what either version wrote."""
    play(tmp_path / "t.db", "sr2")
    lines = export(capsys, tmp_path / "t.db", "gm")
    n, event = _new_turn(lines)
    if words is None:
        del event["data"]["words"]
    else:
        event["data"]["words"] = words
    code, report = verify(capsys, tmp_path, _with(lines, n, event), "--json")
    assert code == 1 and _problems(report) == [("wrong_resolution", event["seq"])]


@pytest.mark.parametrize("words", [0, -2, "2", 2.0, True, None])
def test_words_no_server_writes_are_a_malformed_event(tmp_path, capsys, words):
    play(tmp_path / "t.db", "sr2")
    lines = export(capsys, tmp_path / "t.db", "gm")
    n, event = _new_turn(lines)
    event["data"]["words"] = words
    code, report = verify(capsys, tmp_path, _with(lines, n, event), "--json")
    assert code == 1 and _problems(report) == [("wrong_resolution", event["seq"])]
    assert "Traceback" not in json.dumps(report)


@pytest.mark.parametrize("words", [3, 10**30])
@pytest.mark.parametrize("forged", [False, True])
def test_words_newer_than_the_installed_ruleset_are_counted_apart(tmp_path, capsys, words, forged):
    """A log a newer sr2 wrote is not resolved again here, never passed and never
    called a mismatch: counted as ``words``, and said so — not as ``ruleset`` (the
    table's ruleset not installed, or at another major version), which sr2 here is
    not, and which hid that the event claims words no installed version writes (a
    forged result under ``words: 3`` read as an uninstalled ruleset's). Nor is it
    verified: the exit status is 3, incomplete (before, 0: a script reading only the
    status took a forged result under newer words for a verified log), and the report
    ends saying so."""
    play(tmp_path / "t.db", "sr2")
    lines = export(capsys, tmp_path / "t.db", "gm")
    n, event = _new_turn(lines)
    event["data"]["words"] = words
    if forged:
        event["data"]["steps"] = ["New combat turn (SR-14): Tukan 60, Guard A 90"]
    changed = _with(lines, n, event)
    code, report = verify(capsys, tmp_path, changed, "--json")
    assert (code, report["problems"], report["complete"]) == (3, [], False)
    assert report["unresolved"] == {"words": 1}
    code, text = verify(capsys, tmp_path, changed)
    assert code == 3
    assert text.rstrip().splitlines()[-1] == (
        "INCOMPLETE: no mismatch found, but 1 resolution could not be checked here "
        "(above): the log is not verified; install the ruleset's newer version that wrote "
        "what data.words records and run verify again (exit status 3)"
    )
    assert "every revealed server die checks out" not in text
    assert (
        "1 resolution not resolved again: it records newer words than the installed "
        "ruleset writes (data.words) — a newer version of the ruleset wrote it, or the "
        "log was altered; install the newer version to check it"
    ) in text
    assert "is not installed here" not in text


def _encounter(path: Path) -> None:
    """An sr2 table whose encounter starts and goes into its second round: each
    round's start refills the pools (SR-14's turn hook)."""
    with SQLiteStore(path) as store:
        service = TableService(store, HOST)
        service.create_table("t", "sr2", table_id="t", settings={"verifiable": True})
        for index, (name, actor_id, pc) in enumerate((("Tukan", "pc", True),
                                                      ("Guard A", "npc", False))):  # fmt: skip
            actor = _actor("sr2", name, actor_id, pc)
            service.handle("t", {"type": "actor.create", "id": f"c{index}", "actor": actor}, GM)
        start = {"type": "encounter.start", "id": "e", "order": ["pc", "npc"]}
        assert service.handle("t", start, GM)["status"] == "done"
        for turn in range(2):
            next_ = {"type": "encounter.next", "id": f"n{turn}"}
            assert service.handle("t", next_, GM)["status"] == "done"
        service.handle("t", {"type": "dice.reveal", "id": "v"}, GM)


def _hook_events(lines: list[str]) -> list[tuple[int, dict[str, Any]]]:
    entries = [(n, json.loads(line)) for n, line in enumerate(lines)]
    return [(n, e) for n, e in entries if (e.get("data") or {}).get("hooks")]


def test_a_round_starts_hook_records_its_words_and_older_hooks_verify(tmp_path, capsys):
    _encounter(tmp_path / "t.db")
    lines = export(capsys, tmp_path / "t.db", "gm")
    hooked = _hook_events(lines)
    assert [e["kind"] for _, e in hooked] == ["encounter.started", "encounter.turn"]
    for _, event in hooked:
        (hook,) = event["data"]["hooks"]
        assert hook["words"] == 2 and "Tukan 6, Guard A 3" in hook["steps"][0]
    code, report = verify(capsys, tmp_path, lines, "--json")
    assert (code, report["problems"], report["resolved"]) == (0, [], 2)
    older = list(lines)
    for n, event in hooked:  # as words 1 wrote them
        (hook,) = event["data"]["hooks"]
        del hook["words"]
        hook["steps"] = [s.replace("Tukan", "pc").replace("Guard A", "npc") for s in hook["steps"]]
        older[n] = json.dumps(event)
    code, report = verify(capsys, tmp_path, older, "--json")
    assert (code, report["problems"], report["resolved"]) == (0, [], 2)
    n, event = hooked[-1]  # words 1, but the newer texts
    (hook,) = event["data"]["hooks"]
    hook["words"] = 1
    code, report = verify(capsys, tmp_path, _with(lines, n, event), "--json")
    assert code == 1 and _problems(report) == [("wrong_resolution", event["seq"])]
