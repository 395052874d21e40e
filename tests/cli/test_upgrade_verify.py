"""``rollbridge verify`` of the exports of every old file (``tests/upgrade_files.py``),
not only of those with verifiable dice: verify resolves every resolution again at
any table, so an honest old table must not be called a mismatch.

Before, ``rollbridge table export old-bandits-bbe44a7f --db 74f6d37.db --as gm``
then ``rollbridge verify`` said ``wrong_resolution`` at seq 7 ("its actors differs"):
the rollbridge of 74f6d37 and before listed a resolution's target it left unchanged,
which this version does not, and verify compared the lists. And every wilddie table
of 9e19e5f to 7848585 was refused at its chip (seq 9: "supplied die #1 is 7, which a
d6 cannot show"): those versions did not tag a chip's dice group ``reroll``, so
verify gave the ruleset the carried trait die as the chip's new wild die.

What is left is the words: the two oldest versions (9e19e5f wrote English texts into
its events; 279420a's wilddie texts were worded otherwise — the ids renamed since,
which read ``[wilddie.roll.kept] die=trait, total=13`` until wilddie declared them
renamed, now read as today's messages) show other steps and narrations than
this version writes, and verify says so (docs/dice.md, "Resolutions, resolved
again"); a test below pins that nothing else differs there."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout

import pytest

from rollbridge.cli import main
from tests.upgrade_files import VERSIONS, old_file

#: The versions whose words are today's: every export verifies.
TODAYS_WORDS = [commit for commit in VERSIONS if commit not in ("9e19e5f", "279420a")]


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


def _exports(commit: str, folder) -> dict[tuple[str, str], object]:
    """Each table's export as the GM and as the player, by (ruleset, view)."""
    old = old_file(commit, folder)
    logs = {}
    for ruleset, meta in old.tables.items():
        for who in ("gm", "player"):
            log = folder / f"{ruleset}-{who}.jsonl"
            status, _, err = _run("table", "export", meta["table"], "--db", str(old.path),
                                  "--as", who, "--format", "jsonl", "--out", str(log))  # fmt: skip
            assert status == 0, err
            logs[ruleset, who] = log
    return logs


def _verified(log) -> dict:
    status, out, err = _run("verify", str(log), "--json")
    report = json.loads(out)
    assert status == (0 if report["ok"] else 1), err
    return report


@pytest.mark.parametrize("commit", TODAYS_WORDS)
def test_every_old_export_verifies(commit, tmp_path):
    for (ruleset, who), log in _exports(commit, tmp_path).items():
        report = _verified(log)
        assert report["ok"], (ruleset, who, report["problems"])
        assert report["resolved"] > 0, (ruleset, who)


@pytest.mark.parametrize("commit", ["9e19e5f", "279420a"])
def test_the_oldest_exports_differ_only_in_their_words(commit, tmp_path):
    differing = set()
    for (ruleset, who), log in _exports(commit, tmp_path).items():
        for problem in _verified(log)["problems"]:
            assert problem["code"] == "wrong_resolution", (ruleset, who, problem)
            assert (
                "its data.steps[" in problem["message"]
                or "its data.narration differs" in problem["message"]
            ), (ruleset, who, problem)
            differing.add(ruleset)
    assert differing  # the words do differ: the test would see anything else


def _lines(log) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def _write(log, lines) -> None:
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_an_unchanged_target_tampered_with_is_still_a_mismatch(tmp_path):
    """The target an old event lists unchanged is left out of the comparison only
    while it is unchanged: its state altered there is still a mismatch. (The log
    untouched verifies first: the rollbridge before this one called seq 7 a mismatch
    untouched too, so the mismatch alone told nothing.)"""
    log = _exports("74f6d37", tmp_path)["bandits", "gm"]
    assert _verified(log)["ok"]
    lines = _lines(log)
    harm = next(line for line in lines if line.get("seq") == 7)
    assert harm["data"]["action"] == "harm" and [a["id"] for a in harm["actors"]] == ["a1"]
    harm["actors"][0]["state"]["slots"]["lightly"] = True
    _write(log, lines)
    report = _verified(log)
    assert not report["ok"]
    assert report["problems"][0]["seq"] == 7
    assert report["problems"][0]["code"] == "wrong_resolution"


def test_an_old_chips_new_die_tampered_with_is_still_a_mismatch(tmp_path):
    """The chip's dice read as a chip's are held to every value the event shows."""
    log = _exports("7848585", tmp_path)["wilddie", "gm"]
    lines = _lines(log)
    chip = next(line for line in lines if line.get("seq") == 9)
    assert chip["data"]["action"] == "chip"
    new = [d for d in chip["data"]["dice"][0]["dice"] if "reroll" in d.get("tags", ())]
    assert len(new) == 1 and new[0]["rolls"] == [1]
    new[0]["rolls"], new[0]["value"] = [2], 2
    _write(log, lines)
    report = _verified(log)
    assert not report["ok"]
    assert [p["seq"] for p in report["problems"]] == [9]
