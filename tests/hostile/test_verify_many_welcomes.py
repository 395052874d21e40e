"""A log of many ``welcome`` lines and many approvals is read once, not once per
approval, by ``rollbridge verify``'s approvals check.

Before, each approval read every welcome's list of waiting requests
(:meth:`ApprovalCheck._unlisted`) and every change of the setting ``approval``
(:meth:`ApprovalCheck._approval_at`) noted so far: a GM's log of 8,000 welcomes
and 8,000 approvals (1.5 MB) took a minute, and one twice that four times as long.
They are kept in seq order now, each approval looking up its request's seq.

The work is counted, not timed: the lines of rollbridge.dice.approvals_check that
run while a log is checked (a Python trace), for a log and one twice as long."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from rollbridge.cli import main
from rollbridge.dice import approvals_check

pytestmark = pytest.mark.usefixtures("english_without_stores")


def _log(path: Path, count: int) -> Path:
    """A GM's log: ``count`` welcomes at seq 1 listing no request (approval on), then
    ``count`` approvals, each of a request held after them (which the welcomes do not
    list, rightly: no request of a later seq is in them) that the log does not hold."""
    table = {"id": "t", "epoch": 1, "seq": 1, "pending": [], "settings": {"approval": True}}
    welcome = {"type": "welcome", "role": "gm", "name": "gm", "epoch": 1, "seq": 1,
               "table": table}  # fmt: skip
    lines = [welcome] * count
    for n in range(count):
        at = 10 + 2 * n
        data = {"formula": "1d6", "total": 1, "approved": f"p{at}", "approved_by": "gm"}
        lines.append({"type": "event", "table": "t", "kind": "roll", "epoch": 1,
                      "seq": at + 1, "by": "player", "request": f"r{n}", "data": data})  # fmt: skip
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _lines_run(log: Path, capsys) -> int:
    """How many lines of the approvals check ran while ``log`` was verified (its
    report: the seqs between the approvals missing, each approval's request one the
    log cannot show)."""
    counted = 0
    source = approvals_check.__file__

    def trace(frame, event, arg):
        nonlocal counted
        if frame.f_code.co_filename != source:
            return None
        if event == "line":
            counted += 1
        return trace

    capsys.readouterr()
    sys.settrace(trace)
    try:
        status = main(["verify", str(log), "--json"])
    finally:
        sys.settrace(None)
    report = json.loads(capsys.readouterr().out)
    assert status == 1 and {p["code"] for p in report["problems"]} == {"missing"}
    assert report["approvals_unseen"] == report["approvals_missed"] > 0, report
    return counted


def test_twice_the_welcomes_and_approvals_are_about_twice_the_work(tmp_path, capsys):
    once = _lines_run(_log(tmp_path / "once.jsonl", 200), capsys)
    twice = _lines_run(_log(tmp_path / "twice.jsonl", 400), capsys)
    assert twice < 2.5 * once, (once, twice)
