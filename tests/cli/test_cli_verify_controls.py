"""What a log holds reaches the terminal of whoever checks it as text, never as
control (a red-team pass after :mod:`tests.cli.test_cli_connect_controls`).

``rollbridge verify`` checks a log anyone may have written or edited (a player's
own, an export passed around), and quoted its values as they were: a welcome
line's commitment with ESC sequences cleared the screen and retitled the window of
the GM who checked it, and a line break printed a line of the file's making; a
refusal line's message did so on stderr. Now each line it prints shows every
control character as its escape, and ``--json`` writes DEL and the C1 controls as
JSON escapes (the C0 controls always were), so the data reads back the same.
"""

from __future__ import annotations

import json

from rollbridge.cli import main
from tests.cli.test_cli_connect_controls import HOSTILE, SHOWN


def _is_control(char: str) -> bool:
    return (ord(char) < 0x20 and char != "\n") or 0x7F <= ord(char) <= 0x9F


def _welcome(tmp_path, commitment: str):
    dice = {"open": True, "segment": 1, "commitment": commitment}
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps({"type": "welcome", "table": {"id": "t", "epoch": 1, "dice": dice}}))
    return path


def test_a_logs_commitment_does_not_control_the_terminal(tmp_path, capsys):
    assert main(["verify", str(_welcome(tmp_path, HOSTILE)), "--locale", "en"]) == 0
    out = capsys.readouterr().out
    assert SHOWN in out, out
    assert not any(_is_control(c) for c in out), repr(out)
    assert not any(line.startswith("#99") for line in out.splitlines()), out


def test_a_refusal_line_s_message_does_not_control_the_terminal(tmp_path, capsys):
    path = tmp_path / "refused.jsonl"
    path.write_text(json.dumps({"code": "unauthorized", "message": HOSTILE}) + "\n")
    assert main(["verify", str(path), "--locale", "en"]) == 2
    err = capsys.readouterr().err
    assert SHOWN in err, err
    assert not any(_is_control(c) for c in err), repr(err)


def test_json_output_escapes_del_and_c1_controls_and_reads_back_the_same(tmp_path, capsys):
    assert main(["verify", str(_welcome(tmp_path, HOSTILE)), "--json"]) == 0
    out = capsys.readouterr().out
    assert not any(_is_control(c) for c in out), repr(out)
    assert "\\u009b" in out and "\\u007f" in out, out
    assert HOSTILE in json.loads(out)["welcomed"].values()
