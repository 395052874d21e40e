"""``rollbridge verify`` and a ``welcome`` that says its resume recovered.

A resume the server recovered answers ``resume: {"recovered": true, "missed": N}``:
``missed`` always, and the N missed events follow the welcome, up to its seq; it
carries no ``players`` copy (a Foundry GM's snapshot does) and its table is the one
after the missed events. Before, any welcome saying ``recovered`` was taken for one:
a Foundry GM's snapshot welcome rewritten so, its ``players`` copy dropped, verified
(exit 0), with or without a count, whatever followed it. Now a ``recovered`` without
a count the server sends is the snapshot it is (``wrong_dialect``: it lacks its
``players``), and the missed events a log that opens at one counts must follow it
(``missing``). A snapshot rewritten with ``missed: 0`` is what the log alone cannot
tell from a real recovered resume: every field the server always sends in one is
there, and what would tell them apart — the client's cursor before the connection —
is not in the log (docs/dice.md, "Checking")."""

from __future__ import annotations

import json

import pytest

from rollbridge.adapters.foundry.adapter import FoundryAdapter
from tests.dice.test_verify_players_dice import GM, PLAYER, _ana_and_guard, _verified
from tests.dice.test_verify_resolutions import _with_players_copies

pytestmark = pytest.mark.usefixtures("english_without_stores")


@pytest.fixture
def lines(tmp_path) -> list[dict]:
    """A verifiable wilddie table where the player tests a trait and attacks the NPC and
    the GM's NPC attacks back, then a reveal: the GM's log as the Foundry module writes
    it, every line the adapter's, its frames with the players' copies the server gives
    a GM (as tests/dice/test_verify_resolution_stream.py makes it)."""
    requests = [
        (PLAYER, {"id": "trait", "actor": "ana", "action": "trait", "params": {"trait": "notice"}}),
        (PLAYER, {"id": "hit", "actor": "ana", "action": "attack", "targets": ["guard"],
                  "params": {"mode": "melee"}}),
        (GM, {"id": "back", "actor": "guard", "action": "attack", "targets": ["ana"],
              "params": {"mode": "melee"}}),
    ]  # fmt: skip
    exports = _ana_and_guard(
        tmp_path, "check", [(w, {"type": "resolve", **r}) for w, r in requests]
    )
    gm = exports["gm"]
    _with_players_copies(gm, [json.dumps(line) for line in exports["player"]])
    return [FoundryAdapter().outbound(line) for line in gm]


def _as_recovered(lines: list[dict], resume: dict, cut: int = 0) -> list[dict]:
    """The log from its welcome and its events after the first ``cut``, its welcome a
    snapshot at the last cut event's seq rewritten as a recovered resume ``resume``,
    without the ``players`` copy (a recovered resume's carries none)."""
    welcome, events = dict(lines[0]), lines[1:]
    assert "players" in welcome and welcome.get("resume") is None
    del welcome["players"]
    if cut:
        seq = events[cut - 1]["seq"]
        welcome["seq"] = seq
        welcome["table"] = {**welcome["table"], "seq": seq}
    welcome["resume"] = resume
    return [welcome, *events[cut:]]


def test_a_snapshot_said_recovered_without_a_count_is_a_stripped_snapshot(tmp_path, lines):
    status, report = _verified(tmp_path, lines)
    assert status == 0 and report["ok"], report["problems"]
    for resume in (
        {"recovered": True},
        {"recovered": True, "missed": "0"},
        {"recovered": True, "missed": -1},
    ):
        status, report = _verified(tmp_path, _as_recovered(lines, resume))
        assert status == 1, (resume, report)
        assert [(p["code"], p["seq"]) for p in report["problems"]] == [
            ("wrong_dialect", lines[0]["seq"])
        ], report
        assert "it lacks its players" in report["problems"][0]["message"]


def test_a_log_opening_at_a_recovered_resume_holds_the_events_it_says_were_missed(tmp_path, lines):
    seqs = [line["seq"] for line in lines[1:]]
    # a snapshot at the third event's seq, said to have missed the two before it: they
    # are not in the log
    status, report = _verified(
        tmp_path, _as_recovered(lines, {"recovered": True, "missed": 2}, cut=3)
    )
    assert status == 1, report
    (missing,) = [p for p in report["problems"] if p["code"] == "missing"]
    assert missing["message"].startswith(f"seqs {seqs[1]} to {seqs[2]} are not in the log"), missing
    # (honest recovered resumes, their missed events after them, verify: the resumed
    # logs of test_verify_missing.py, test_verify_players_dice.py, test_verify_resume_reveal.py)


def test_a_snapshot_said_recovered_with_nothing_missed_is_what_the_log_cannot_tell(tmp_path, lines):
    """Documented, not a check: every field a recovered resume's welcome always has is
    there, and the welcome's table is the one its next event follows either way."""
    status, report = _verified(tmp_path, _as_recovered(lines, {"recovered": True, "missed": 0}))
    assert status == 0 and report["ok"], report["problems"]


def test_a_resume_that_missed_nothing_shows_the_table_its_next_event_follows(tmp_path, lines):
    """Its table is taken as a snapshot's is (its settings the rules of what follows):
    a snapshot rewritten as one hides nothing of the table from the checks. Before, a
    recovered resume's table was never taken, so in a log that opens at one after the
    table's settings change, the player's dice the table did not let them supply
    (``players_dice``) passed unseen."""
    (trait,) = [line for line in lines if line.get("request") == "trait"]
    trait["data"]["supplied"] = True  # the table (player_dice off) did not let them
    cut = [line.get("seq") for line in lines[1:]].index(trait["seq"])  # from the trait test on
    settings = lines[1]["table_after"]["settings"]  # the table's own (seq 1's change)
    assert settings["player_dice"] is False
    for resume in (None, {"recovered": True, "missed": 0}):
        opened = _as_recovered(lines, resume, cut=cut)
        opened[0]["table"] = {**opened[0]["table"], "settings": settings}
        if resume is None:  # the snapshot it was
            opened[0]["players"] = lines[0]["players"]
            del opened[0]["resume"]
        status, report = _verified(tmp_path, opened)
        assert status == 1, report
        codes = [(p["code"], p["seq"]) for p in report["problems"]]
        assert ("players_dice", trait["seq"]) in codes, (resume, codes)
