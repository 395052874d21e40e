"""An event removed from an export is a mismatch (``missing``) naming its seq.

A player who suspects the GM of rerolling a bad roll and deleting the first one
checks the export with ``rollbridge verify``. Before, a log with an event taken out
passed ("every revealed server die checks out", exit 0): every other die is still
the seed's, and the report only counted a resolution after the gap as not resolved
again. An export, and a client's log, hold every seq after their ``welcome``'s (a
player's view sends a GM-only event as a ``hidden`` stand-in), so a seq no line
holds was left out (docs/dice.md, "What it cannot check")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rollbridge.cli import main
from rollbridge.cli.offline import offline_host
from rollbridge.dice.verify import verify_events
from rollbridge.engine.model import Principal
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore

GM = Principal("gm", "gm", "gm-token")
PLAYER = Principal("player", "pat", "player-token")


def play(path: Path) -> dict[str, int]:
    """A verifiable bandits table on SQLite: rolls, a GM's secret roll, a reveal, a
    roll in the next segment. Returns the seqs by name."""
    seqs: dict[str, int] = {}
    with SQLiteStore(path) as store:
        service = TableService(store, offline_host())
        service.create_table("t", "bandits", table_id="t", settings={"verifiable": True})
        for n in range(3):
            message = {"type": "roll", "id": f"r{n}", "formula": "2d6x + 1d8!!"}
            seqs[f"r{n}"] = service.handle("t", message, PLAYER)["seq"]
        secret = {"type": "roll", "id": "s", "formula": "1d20", "secret": True}
        seqs["secret"] = service.handle("t", secret, GM)["seq"]
        seqs["commit2"] = service.handle("t", {"type": "dice.reveal", "id": "v"}, GM)["seq"]
        late = {"type": "roll", "id": "late", "formula": "1d20"}
        seqs["late"] = service.handle("t", late, PLAYER)["seq"]
    return seqs


def export(capsys, path: Path, *options: str) -> list[dict[str, Any]]:
    code = main(["table", "export", "t", "--db", str(path), "--as", "player",
                 "--format", "jsonl", *options])  # fmt: skip
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    return [json.loads(line) for line in out.splitlines()]


def verify(capsys, tmp_path: Path, lines: list[dict[str, Any]], *options: str):
    log = tmp_path / "export.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    code = main(["verify", str(log), *options])
    return code, capsys.readouterr().out


@pytest.fixture
def night(tmp_path) -> tuple[Path, dict[str, int]]:
    path = tmp_path / "v.db"
    return path, play(path)


def test_an_honest_export_has_no_gap(night, capsys, tmp_path):
    path, seqs = night
    for since in ((), ("--since", str(seqs["r1"]))):
        code, out = verify(capsys, tmp_path, export(capsys, path, *since), "--json")
        assert code == 0 and json.loads(out)["problems"] == [], out


@pytest.mark.parametrize("removed", ["r1", "secret"])
def test_an_event_removed_is_named(night, capsys, tmp_path, removed):
    """A roll removed, or the GM's secret event's stand-in: the seq is named."""
    path, seqs = night
    lines = [e for e in export(capsys, path) if e.get("seq") != seqs[removed]]
    code, out = verify(capsys, tmp_path, lines)
    gone = seqs[removed]
    assert code == 1
    assert out.splitlines()[-1] == (
        f"MISMATCH at line {gone + 1}: seq {gone} is not in the log (seq {gone + 1} follows "
        f"seq {gone - 1}): an event was removed or the log was not saved whole, and what "
        "it showed cannot be checked"
    )


def test_events_removed_are_named_as_a_run(night, capsys, tmp_path):
    path, seqs = night
    gone = {seqs["r1"], seqs["r2"]}
    lines = [e for e in export(capsys, path) if e.get("seq") not in gone]
    code, out = verify(capsys, tmp_path, lines, "--json")
    problems = json.loads(out)["problems"]
    assert code == 1 and [(p["code"], p["seq"]) for p in problems] == [("missing", seqs["secret"])]
    assert problems[0]["message"].startswith(f"seqs {seqs['r1']} to {seqs['r2']} are not in")


def test_the_first_event_after_the_welcome_removed_is_named(night, capsys, tmp_path):
    """The welcome's table seq is the one before the export's first event."""
    path, seqs = night
    lines = export(capsys, path, "--since", str(seqs["r0"]))
    assert lines[1]["seq"] == seqs["r1"]
    code, out = verify(capsys, tmp_path, [lines[0], *lines[2:]], "--json")
    problems = json.loads(out)["problems"]
    assert code == 1 and [(p["code"], p["seq"]) for p in problems] == [("missing", seqs["r2"])]


def test_events_moved_are_out_of_order_not_missing(night, capsys, tmp_path):
    path, seqs = night
    lines = export(capsys, path)
    place = {e.get("seq"): index for index, e in enumerate(lines)}
    one, two = place[seqs["r1"]], place[seqs["r2"]]
    lines[one], lines[two] = lines[two], lines[one]
    report = verify_events(lines)
    assert [p.code for p in report.problems] == ["out_of_order"]


def test_a_resume_that_recovered_continues_the_count(night, capsys, tmp_path):
    """A client's log: its welcome, events, a resume's welcome (recovered), the
    missed events after it: no gap. A resume too far behind (not recovered) starts
    the count again at its table's seq."""
    path, _ = night
    lines = export(capsys, path)
    welcome, events = lines[0], lines[1:]
    cut = 3
    resumed = json.loads(json.dumps(welcome))
    resumed["table"]["seq"] = events[-1]["seq"]
    resumed["resume"] = {"recovered": True, "missed": len(events) - cut}
    assert verify_events([welcome, *events[:cut], resumed, *events[cut:]]).ok
    fresh = json.loads(json.dumps(resumed))
    fresh["resume"] = {"recovered": False, "missed": 0, "reason": "too_far_behind"}
    fresh["table"]["seq"] = events[cut + 1]["seq"] - 1
    report = verify_events([welcome, *events[:cut], fresh, *events[cut + 1 :]])
    assert "missing" not in [p.code for p in report.problems]


def test_a_reveal_before_its_segments_commitment_says_so(night, capsys, tmp_path):
    """The reveal of segment 1 renamed to segment 2, whose commitment is the next
    line: the log holds that commitment, only not before the reveal. Before, the
    message said it was not in the log."""
    path, _ = night
    lines = export(capsys, path)
    reveal = next(e for e in lines if e.get("kind") == "dice.revealed")
    reveal["data"]["segment"] = 2
    assert any(e.get("kind") == "dice.committed" and e["data"]["segment"] == 2 for e in lines)
    problems = verify_events(lines).problems
    assert [(p.code, p.message) for p in problems][:1] == [("unknown_segment", (
        f"seq {reveal['seq']} reveals segment 2, whose commitment the log does not hold "
        "before it"))]  # fmt: skip


def _verified_bounded(tmp_path: Path, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The problems ``rollbridge verify --json`` finds in ``lines``, run as a command
    whose memory is bounded at 2 GiB (a list past it fails with MemoryError); it must
    exit 1."""
    import resource
    import subprocess
    import sys

    log = tmp_path / "bounded.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")

    def bounded() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    done = subprocess.run([sys.executable, "-m", "rollbridge", "verify", str(log), "--json"],
                          capture_output=True, text=True, preexec_fn=bounded,
                          timeout=600)  # fmt: skip
    assert done.returncode == 1, done.stderr
    return json.loads(done.stdout)["problems"]


def test_a_gap_up_to_the_largest_seq_is_named_without_counting_through_it(night, capsys, tmp_path):
    """Fuzzer seed 40961: the last line's seq made 9223372036854775807 (a field a
    hostile export may hold) had ``verify`` count through the gap seq by seq, a list
    growing until the machine's memory ran out. The run is named from the seqs the
    log holds: the command, its memory bounded at 2 GiB (the old code's list failed
    there with MemoryError), names it and exits 1."""
    path, _ = night
    lines = export(capsys, path)
    last = lines[-1]["seq"]
    lines[-1]["seq"] = 2**63 - 1
    missing = [p for p in _verified_bounded(tmp_path, lines) if p["code"] == "missing"]
    assert [p["seq"] for p in missing] == [2**63 - 1]
    assert missing[0]["message"].startswith(f"seqs {last} to {2**63 - 2} are not in"), missing


@pytest.mark.parametrize(
    ("low", "high", "present", "runs"),
    [(1, 5, [], [(1, 5)]), (1, 5, [1, 5], [(2, 4)]), (1, 5, [2, 4], [(1, 1), (3, 3), (5, 5)]),
     (1, 3, [1, 2, 3], []), (7, 6, [], [])],
)  # fmt: skip
def test_the_runs_absent_between_two_seqs(low, high, present, runs):
    from rollbridge.dice.verify import _absent_runs

    assert list(_absent_runs(low, high, present)) == runs


def _going_back(pairs: int) -> list[dict]:
    """A hostile log: ``pairs`` times a welcome at seq 0, then an event far ahead
    (each two seqs after the last): every gap spans all the earlier ones."""
    welcome = {"type": "welcome", "table": {"id": "t", "epoch": 1, "seq": 0}}
    return [
        line
        for n in range(pairs)
        for line in (welcome, {"type": "event", "table": "t", "epoch": 1,
                               "seq": 10**12 + 2 * n, "kind": "settings", "data": {}})
    ]  # fmt: skip


def test_a_seq_missing_under_many_gaps_is_named_once():
    """Gaps overlap after a welcome that goes back. Before, each gap named every run
    it spanned again: this log's 3 gaps made 6 problems, 3000 of them 4.5 million
    (10 GB of memory, 82 seconds, for a file of 300 kB)."""
    from rollbridge.dice.verify import verify_events

    report = verify_events(_going_back(3))
    assert [(p.code, p.seq, p.message) for p in report.problems] == [
        ("missing", 10**12, "seqs 1 to 999999999999 are not in the log (seq 1000000000000 "
         "follows seq 0): events were removed or the log was not saved whole, and what "
         "they showed cannot be checked"),
        ("missing", 10**12 + 2, "seq 1000000000001 is not in the log (seq 1000000000002 "
         "follows seq 0): an event was removed or the log was not saved whole, and what "
         "it showed cannot be checked"),
        ("missing", 10**12 + 4, "seq 1000000000003 is not in the log (seq 1000000000004 "
         "follows seq 0): an event was removed or the log was not saved whole, and what "
         "it showed cannot be checked"),
    ]  # fmt: skip


def test_a_log_of_many_gaps_going_back_is_read_in_bounded_memory(tmp_path):
    """3000 such gaps: the command, its memory bounded at 2 GiB, names each missing
    run once and exits 1."""
    problems = _verified_bounded(tmp_path, _going_back(3000))
    assert [p["code"] for p in problems] == ["missing"] * 3000
