"""An export cut off in its last line (a download that stopped early) is said to be
cut off, in the reader's language, with what to do.

Before, ``rollbridge verify`` quoted the JSON parser's English words without their
position: "line 16 is not JSON: Unterminated string starting at", which reads as if
the message itself were cut short and says nothing of the fix."""

from __future__ import annotations

import json

import pytest

from rollbridge.cli import main
from tests.dice.test_verify_missing import export, play


@pytest.fixture
def text(tmp_path, capsys) -> str:
    path = tmp_path / "v.db"
    play(path)
    return "".join(json.dumps(line) + "\n" for line in export(capsys, path))


@pytest.mark.parametrize("where", ["in a string", "after a value", "after a key"])
def test_a_log_cut_off_in_its_last_line_is_named_so(text, tmp_path, capsys, where):
    last = text.rstrip("\n").rsplit("\n", 1)[1]
    cut = {"in a string": last.index('"kind": "') + 11, "after a value": last.index(', "epoch"'),
           "after a key": last.index(':', last.index('"kind"'))}[where]  # fmt: skip
    log = tmp_path / "cut.jsonl"
    log.write_text(text[: len(text) - len(last) - 1 + cut], encoding="utf-8")
    lines = len(text.splitlines())
    assert main(["verify", str(log)]) == 2
    assert capsys.readouterr().err == (
        f"rollbridge: error: {log}: line {lines} is cut off: the file ends before its "
        "JSON does (a download that stopped early?); export the log again\n"
    )
    assert main(["verify", str(log), "--json", "--locale", "de"]) == 2
    error = json.loads(capsys.readouterr().out)
    assert error["code"] == "undecodable"
    assert error["message"].startswith(f"{log}: Zeile {lines} ist abgeschnitten")


def test_a_bad_line_that_is_not_cut_off_is_not_json_as_before(text, tmp_path, capsys):
    """Not the last line, or a last line with its line break: the parser's words."""
    lines = text.splitlines()
    for name, body in (("middle", [*lines[:2], '{"seq": nope}', *lines[2:]]),
                       ("ended", [*lines, '{"seq": 3, "kind": "roll'])):  # fmt: skip
        log = tmp_path / f"{name}.jsonl"
        log.write_text("\n".join(body) + "\n", encoding="utf-8")
        assert main(["verify", str(log)]) == 2
        assert "is not JSON: " in capsys.readouterr().err


def _said_cut_off(tmp_path, capsys, body: bytes, name: str) -> str:
    log = tmp_path / f"{name}.jsonl"
    log.write_bytes(body)
    assert main(["verify", str(log)]) == 2
    return capsys.readouterr().err


def test_a_download_cut_inside_a_letter_of_its_text_is_cut_off(tmp_path, capsys):
    """A Russian player's export holds its words as UTF-8 (an action's label "Урон"):
    a download that stopped between the two bytes of a letter was "not UTF-8 text:
    not a log", as if the player had picked the wrong file."""
    path = tmp_path / "v.db"
    play(path)
    code = main(["table", "export", "t", "--db", str(path), "--as", "player",
                 "--format", "jsonl", "--locale", "ru"])  # fmt: skip
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    data = out.encode("utf-8")
    letter = data.index("Урон".encode())  # the welcome's action labels, on line 1
    lines = data[:letter].count(b"\n") + 1
    err = _said_cut_off(tmp_path, capsys, data[: letter + 1], "letter")
    assert f"line {lines} is cut off: the file ends before its JSON does" in err


@pytest.mark.parametrize("word", ["false", "true", "null"])
def test_a_download_cut_inside_a_literal_is_cut_off(text, tmp_path, capsys, word):
    """A cut inside ``false``, ``true`` or ``null`` (``"verifiable":fa``): the parser
    says "Expecting value" where the word starts, not at the end of the text."""
    at = text.index(f": {word}")
    lines = text[:at].count("\n") + 1
    err = _said_cut_off(tmp_path, capsys, text[: at + 4].encode(), word)
    assert f"line {lines} is cut off" in err, err


def test_a_download_cut_inside_an_escape_is_cut_off(tmp_path, capsys):
    """A cut inside a ``\\uXXXX`` escape (a log saved with escaped letters): the
    parser says "Invalid \\uXXXX escape"."""
    at = len('{"type": "event", "seq": 1, "kind": "roll", "label": "\\u04')
    body = '{"type": "event", "seq": 1, "kind": "roll", "label": "\\u0423"}'[:at]
    err = _said_cut_off(tmp_path, capsys, body.encode(), "escape")
    assert "line 1 is cut off" in err, err
