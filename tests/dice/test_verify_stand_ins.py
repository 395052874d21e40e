"""``rollbridge verify`` says what a player's log cannot show of its hidden stand-ins.

A server could turn a player's roll into a secret event, sent to players as a
``hidden`` stand-in, and roll the request again; the stand-in does not say whose
request it was. Before, the report counted such events only as secret, "only the
GM's log checks them", and said every revealed die checks out: nothing told the
player that a roll of theirs hidden and rolled again would read the same. The report
now says so beside the count (docs/dice.md, "What it cannot check")."""

from __future__ import annotations

from pathlib import Path

import pytest

from rollbridge.cli import main
from tests.dice.test_verify_missing import export, play

pytestmark = pytest.mark.usefixtures("english_without_stores")


def test_a_players_log_says_its_stand_ins_cannot_be_told_apart(tmp_path, capsys):
    path = tmp_path / "v.db"
    play(Path(path))
    lines = export(capsys, path)
    hidden = [line for line in lines if line.get("kind") == "hidden"]
    assert len(hidden) == 2  # the GM's secret roll, and the GM's seed at the reveal
    log = tmp_path / "player.jsonl"
    export(capsys, path, "--out", str(log))
    assert main(["verify", str(log)]) == 0
    said = capsys.readouterr().out.splitlines()
    # the GM's seed at the reveal is told by the dice.revealed after it
    # (tests/dice/test_verify_stand_in_requests.py); the secret roll is not
    assert (
        "1 hidden stand-in cannot be told from a player's roll the server hid and rolled "
        "again: the log does not say what each player asked for, so a player who misses a "
        "roll of theirs, or finds it rolled twice, can check it only in the GM's log"
    ) in said
    assert (
        "1 hidden stand-in is told by the events around it: the GM's seeds of reveals (each "
        "just before its dice.revealed): 1; requests held for the GM that an approval or a "
        "rejection names: 0"
    ) in said


def test_the_gms_log_has_none(tmp_path, capsys):
    path = tmp_path / "v.db"
    play(Path(path))
    log = tmp_path / "gm.jsonl"
    assert main(["table", "export", "t", "--db", str(path), "--as", "gm", "--format",
                 "jsonl", "--out", str(log)]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["verify", str(log)]) == 0
    assert "stand-in" not in capsys.readouterr().out


def test_the_czech_report_says_it_in_one_sentence(tmp_path, capsys):
    """Its relative clauses in Czech: "hráč, kterému chybí … nebo který ho najde"
    (before, "nebo ho najde" went on with the dative "kterému")."""
    path = tmp_path / "v.db"
    play(Path(path))
    log = tmp_path / "player.jsonl"
    export(capsys, path, "--out", str(log))
    assert main(["verify", str(log), "--locale", "cs"]) == 0
    assert (
        "1 skrytou náhradu nelze odlišit od hodu hráče, který server skryl a hodil znovu: "
        "záznam neříká, o co který hráč žádal, takže hráč, kterému chybí jeho hod nebo "
        "který ho najde hozený dvakrát, to může ověřit jen v záznamu PJ"
    ) in capsys.readouterr().out.splitlines()
