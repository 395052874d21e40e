"""An event of a kind this version of rollbridge does not know leaves the resolutions
after it unchecked, and ``rollbridge verify`` says so: exit 3, incomplete (docs/dice.md,
"Checking"; ``unresolved`` ``unknown_kind``).

After such an event (a later version's, or a line altered) the table the log shows is
not known (rollbridge.engine.recheck), so no resolution after it is resolved again
until a new ``welcome``. Before, those were counted with a log that lacks its table
(``no_table``: the log's view, exit 0), so changing one line's kind to a made-up one
let every resolution after it be forged: an sr2 GM export whose settings event was
renamed and whose new turn's pools were raised verified, exit 0, "every revealed
server die checks out". A log without its table (no ``welcome``) stays ``no_table``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.dice.test_verify_resolutions import export, play, verify


def _renamed(lines: list[str], *, forged: bool) -> tuple[list[str], int]:
    """The GM export with its ``settings`` event's kind one no version makes (and,
    ``forged``, the new turn's pools after it raised); the resolutions after it."""
    events = [json.loads(line) for line in lines]
    at = next(n for n, e in enumerate(events) if e.get("kind") == "settings")
    events[at]["kind"] = "settings.future"
    after = [e for e in events[at:] if e.get("kind") == "resolution"]
    if forged:
        turn = next(e for e in after if e["data"]["action"] == "new_turn")
        turn["data"]["steps"] = ["New combat turn (SR-14): Tukan 60, Guard A 90"]
    return [json.dumps(e) for e in events], len(after)


@pytest.mark.parametrize("forged", [False, True])
def test_resolutions_after_an_unknown_kind_are_incomplete(tmp_path, capsys, forged):
    play(tmp_path / "t.db", "sr2")
    lines, after = _renamed(export(capsys, tmp_path / "t.db", "gm"), forged=forged)
    assert after >= 2
    code, report = verify(capsys, tmp_path, lines, "--json")
    assert (code, report["problems"], report["complete"]) == (3, [], False)
    assert report["unresolved"] == {"unknown_kind": after}
    code, text = verify(capsys, tmp_path, lines)
    assert code == 3
    assert (
        f"{after} resolutions not resolved again: an event before them is of a kind this "
        "version of rollbridge does not know (a newer version wrote the log, or it was "
        "altered), so the table they ran on is not known here; check the log with the "
        "rollbridge that wrote it"
    ) in text
    assert text.rstrip().splitlines()[-1].startswith("INCOMPLETE: no mismatch found")


def test_a_log_without_its_table_stays_the_logs_view(tmp_path, capsys):
    """No ``welcome`` line: the resolutions are ``no_table``, the exit status 0 (what no
    verifier could check from that log, not this one's lack)."""
    play(tmp_path / "t.db", "sr2")
    lines = export(capsys, tmp_path / "t.db", "gm")[1:]
    code, report = verify(capsys, tmp_path, lines, "--json")
    unresolved: dict[str, Any] = report["unresolved"]
    assert (code, report["complete"], list(unresolved)) == (0, True, ["no_table"])


def test_a_renamed_kind_is_not_taken_for_a_newer_ruleset(tmp_path, capsys):
    """The log's words are known (words the installed sr2 writes): the kind renamed is
    rollbridge's, and the last line says to run verify with the rollbridge that wrote
    the log or to take the line for altered — never to install a ruleset's version.
    Before, every reason for INCOMPLETE ended "install the ruleset's version that
    wrote it", which no ruleset can help with here."""
    play(tmp_path / "t.db", "sr2")
    lines, after = _renamed(export(capsys, tmp_path / "t.db", "gm"), forged=True)
    code, text = verify(capsys, tmp_path, lines)
    assert code == 3
    assert text.rstrip().splitlines()[-1] == (
        f"INCOMPLETE: no mismatch found, but {after} resolutions could not be checked here "
        "(above): the log is not verified; an event's kind is rollbridge's, not a "
        "ruleset's, so no ruleset installed makes it known: run verify with the newer "
        "rollbridge that wrote the log; if this version wrote it, the kind was renamed and "
        "the line altered (compare it with an export of the table) (exit status 3)"
    )
    assert "install the ruleset" not in text.rstrip().splitlines()[-1]


@pytest.mark.parametrize("locale", ["cs", "de", "ru"])
def test_each_reasons_advice_is_its_own_in_every_language(tmp_path, capsys, locale):
    """A renamed kind and newer words in one log: the last line gives both reasons'
    advice, each translated, and they differ (the renamed kind's names no ruleset)."""
    from rollbridge.cli.verify import INCOMPLETE_ADVICE

    play(tmp_path / "t.db", "sr2")
    lines = export(capsys, tmp_path / "t.db", "gm")
    events = [json.loads(line) for line in lines]
    at = next(n for n, e in enumerate(events) if e.get("kind") == "resolution")
    events[at]["data"]["words"] = 99
    later = next(e for e in events[at:] if e.get("kind") not in (None, "resolution"))
    later["kind"] = "renamed.kind"
    lines = [json.dumps(e) for e in events]
    code, text = verify(capsys, tmp_path, lines, "--locale", locale)
    assert code == 3
    last = text.rstrip().splitlines()[-1]
    kind = INCOMPLETE_ADVICE["unknown_kind"]().render(locale)
    words = INCOMPLETE_ADVICE["words"]().render(locale)
    assert f"{kind}; {words} (" in last
    assert kind != INCOMPLETE_ADVICE["unknown_kind"]().render("en")
    assert len({INCOMPLETE_ADVICE[r]().render(locale) for r in INCOMPLETE_ADVICE}) == len(
        INCOMPLETE_ADVICE
    )
