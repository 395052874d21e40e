"""What docs/dice.md lists as bound by no seed, held to what ``rollbridge verify`` does
with it, on a GM's export of a verifiable table on a real SQLite file.

- A roll copied into the open segment (its line again at the next seq, its draws and
  all) verifies while the segment is not revealed (its dice are counted "in segments
  not revealed yet"), and at the reveal its draws are held to its own seq, whose dice
  the seed gives: ``wrong_die``. Twenty d20s make the seed's dice at that seq the
  copied ones with a chance of 20^-20 (no honest server could make them so either).
- A roll's constant term changed with its total, text and roll made to agree
  (``2d6 + 1`` made ``2d6 + 4``): a number draws no die, so no seed binds it, and the
  log verifies; its total changed alone is ``wrong_roll``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore
from tests.dice.test_verify_resolutions import GM, HOST, export, verify

pytestmark = pytest.mark.usefixtures("english_without_stores")


def _rolled(tmp_path: Path, capsys) -> list[dict[str, Any]]:
    """The GM's export: two rolls of twenty d20s and one of ``2d6 + 1``, revealed."""
    path = tmp_path / "t.db"
    with SQLiteStore(path) as store:
        service = TableService(store, HOST)
        service.create_table("t", "sr2", table_id="t", settings={"verifiable": True})
        for request_id, formula in (("r1", "20d20"), ("r2", "20d20"), ("r3", "2d6 + 1")):
            roll = {"type": "roll", "id": request_id, "formula": formula}
            assert service.handle("t", roll, GM)["status"] == "done"
        service.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    return [json.loads(line) for line in export(capsys, path, "gm")]


def _roll(lines: list[dict[str, Any]], request: str) -> int:
    return next(
        n for n, e in enumerate(lines) if e.get("kind") == "roll" and e["request"] == request
    )


def _report(capsys, tmp_path: Path, lines: list[dict[str, Any]]) -> tuple[int, dict]:
    return verify(capsys, tmp_path, [json.dumps(line) for line in lines], "--json")


def test_a_roll_copied_into_the_open_segment_is_a_wrong_die_at_the_reveal(tmp_path, capsys):
    lines = _rolled(tmp_path, capsys)
    first, second = _roll(lines, "r1"), _roll(lines, "r2")
    copy = {**lines[first], "seq": lines[second]["seq"]}
    lines[second] = copy
    code, report = _report(capsys, tmp_path, lines)
    assert code == 1
    assert {(p["code"], p["seq"]) for p in report["problems"]} == {("wrong_die", copy["seq"])}
    revealed = next(n for n, e in enumerate(lines) if e.get("kind") == "dice.revealed")
    before = lines[:revealed]  # the log as it stood before the reveal
    code, report = _report(capsys, tmp_path, before)
    assert (code, report["problems"]) == (0, []), report["problems"]
    assert report["unrevealed"] == 3 and report["verified_events"] == 0


def test_a_rolls_constant_made_to_agree_is_bound_by_no_seed(tmp_path, capsys):
    lines = _rolled(tmp_path, capsys)
    at = _roll(lines, "r3")
    roll = lines[at]["data"]
    code, report = _report(capsys, tmp_path, lines)
    assert (code, report["problems"]) == (0, [])
    roll["roll"]["total"] += 3  # the total alone
    code, report = _report(capsys, tmp_path, lines)
    assert code == 1 and [p["code"] for p in report["problems"]] == ["wrong_roll"]
    dice = roll["roll"]["groups"][0]["total"]
    roll.update(formula="2d6 + 4", total=dice + 4, text=roll["text"].replace("+ 1 = ", "+ 4 = "))
    roll["text"] = roll["text"][: roll["text"].rindex("= ")] + f"= {dice + 4}"
    roll["roll"].update(formula="2d6 + 4", total=dice + 4)
    roll["roll"]["terms"][2]["value"] = 4
    code, report = _report(capsys, tmp_path, lines)
    assert (code, report["problems"]) == (0, []), report["problems"]
    assert report["verified_events"] == 3
