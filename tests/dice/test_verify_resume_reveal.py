"""A client's log that resumed across a reveal verifies.

A resume that recovered sends a ``welcome`` whose table is the one after the missed
events, which follow it in the log. Its ``dice`` field names the segment open after
them; where the GM revealed and a new segment was committed among them, verify took
that segment from the welcome as committed before the log ("welcomed") and then met
its ``dice.committed`` among the missed events: ``committed_twice``, a mismatch in an
honest log (exit 1). The welcome's segment is taken only where it was committed
before the missed events (its ``since``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rollbridge.dice.verify import verify_events
from tests.dice.test_verify_missing import export, play

pytestmark = pytest.mark.usefixtures("english_without_stores")


@pytest.fixture
def logs(tmp_path, capsys) -> tuple[list[dict], dict]:
    """The player's export, and the welcome a client resuming just before the
    ``dice.committed`` of segment 2 would have been sent (the table after the
    missed events: segment 2 open)."""
    path = tmp_path / "v.db"
    seqs = play(Path(path))
    lines = export(capsys, path)
    late = export(capsys, path, "--since", str(seqs["commit2"]))[0]
    dice = late["table"]["dice"]
    assert dice["segment"] == 2 and dice["since"] == seqs["commit2"]
    return lines, late


def _resumed(late: dict, last_seq: int, missed: int) -> dict:
    resumed = json.loads(json.dumps(late))
    resumed["table"]["seq"] = last_seq
    resumed["resume"] = {"recovered": True, "missed": missed}
    return resumed


@pytest.mark.parametrize("cut", [3, 5, 7])  # before the secret roll, the hidden, the reveal
def test_a_resume_across_a_reveal_verifies(logs, cut):
    lines, late = logs
    welcome, events = lines[0], lines[1:]
    assert [e["kind"] for e in events[cut:]].count("dice.committed") == 1
    resumed = _resumed(late, events[-1]["seq"], len(events) - cut)
    report = verify_events([welcome, *events[:cut], resumed, *events[cut:]])
    assert report.ok, [(p.code, p.message) for p in report.problems]
    assert report.welcomed == {}  # every commitment is the log's own
    assert report.segments == {1: "revealed", 2: "committed"}


def test_a_resume_within_a_segment_still_takes_its_commitment_from_the_welcome(logs):
    """A log that starts with a resume's welcome, its segment committed before the
    missed events: the welcome's word, listed as such (``welcomed``)."""
    lines, late = logs
    last = next(i for i, e in enumerate(lines) if e.get("kind") == "dice.committed"
                and e["data"]["segment"] == 2)  # fmt: skip
    resumed = _resumed(late, lines[-1]["seq"], len(lines) - last - 1)
    report = verify_events([resumed, *lines[last + 1 :]])
    assert report.ok, [(p.code, p.message) for p in report.problems]
    assert list(report.welcomed) == [2]
