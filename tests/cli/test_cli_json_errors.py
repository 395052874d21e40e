"""With ``--json`` a command's error is JSON too (docs/operations.md, "Errors of the
command line"): ``{"code", "message", "details"?}`` on stdout, as the admin API and
the protocol send an error, in place of the answer, with the exit status the text
line has; nothing on stderr. Without ``--json`` the one text line on stderr stays.
(The table commands against a real server's admin API: test_cli_table_json.py.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from rollbridge.cli import main

pytestmark = pytest.mark.usefixtures("english_without_stores")


def run(argv: list[str]) -> int:
    """The exit status of the command (a usage error exits from the parser)."""
    try:
        return main(argv)
    except SystemExit as exit:
        return int(exit.code)


def refused(capsys, *argv: str) -> tuple[int, dict, str]:
    """The exit status, the JSON error and the text line of one refusal: the command run
    with ``--json`` and without; stdout is the error alone, stderr empty."""
    code = run([*argv, "--json"])
    out, err = capsys.readouterr()
    assert err == "", err
    error = json.loads(out)
    assert set(error) <= {"code", "message", "details"} and {"code", "message"} <= set(error)
    assert isinstance(error["code"], str) and isinstance(error["message"], str)
    text_code = run(list(argv))
    text_out, line = capsys.readouterr()
    assert text_out == "" and text_code == code and line.count("\n") == 1
    return code, error, line


def test_a_table_command_without_its_database(capsys, tmp_path):
    db = str(tmp_path / "none.db")
    for argv in (("table", "list"), ("table", "tokens", "t-1"), ("table", "delete", "t-1")):
        code, error, line = refused(capsys, *argv, "--db", db)
        assert code == 1 and error["code"] == "no_database"
        assert error["details"] == {"path": db}
        assert line == f"rollbridge: error: no_database: {error['message']}\n"


def test_table_create_of_a_ruleset_not_loaded(capsys, tmp_path):
    db = str(tmp_path / "t.db")
    code, error, line = refused(
        capsys, "table", "create", "--ruleset", "nope", "--name", "Friday", "--db", db
    )
    assert code == 1 and error["code"] == "unknown_ruleset"
    assert line == f"rollbridge: error: unknown_ruleset: {error['message']}\n"


def test_resolve_and_odds_keep_their_pointer_in_the_message(capsys):
    for argv in (("resolve", "sr2", "nope"), ("odds", "sr2", "attack", "--params", "{}")):
        code, error, line = refused(capsys, *argv, "--locale", "en")
        assert code == 1
        hint = " (the actions, parameters and examples of sr2: see rollbridge rulesets sr2)"
        assert error["message"].endswith(hint)
        assert line == f"rollbridge: error: {error['code']}: {error['message']}\n"


def test_the_message_is_in_the_commands_locale(capsys):
    code, error, _ = refused(capsys, "resolve", "nope", "x", "--locale", "cs")
    assert code == 1 and error["code"] == "unknown_ruleset"
    assert error["details"] == {"ruleset": "nope"}
    assert "nope" in error["message"] and "no ruleset" not in error["message"]


def test_roll_of_bad_notation(capsys):
    code, error, line = refused(capsys, "roll", "3d6+", "--locale", "en")
    assert code == 1 and error["code"] == "invalid_notation"
    assert line == f"rollbridge: error: invalid_notation: {error['message']}\n"


def test_verify_of_a_log_it_cannot_read_exits_2(capsys, tmp_path):
    missing = tmp_path / "missing.jsonl"
    code, error, line = refused(capsys, "verify", str(missing), "--locale", "en")
    assert code == 2 and error["code"] == "cannot_read"
    assert line == f"rollbridge: error: {error['message']}\n"  # (no code, as before)
    garbled = tmp_path / "garbled.jsonl"
    garbled.write_text('{"seq": 1}\nnot json\n', encoding="utf-8")
    code, error, line = refused(capsys, "verify", str(garbled), "--locale", "en")
    assert code == 2 and error["code"] == "undecodable"
    assert error["message"] == f"{garbled}: line 2 is not JSON: Expecting value"


def test_a_usage_error_with_json_is_json_too(capsys):
    code, error, line = refused(capsys, "table", "list", "--nope")
    assert code == 2 and error["code"] == "invalid_request"
    assert error["message"] == "unrecognized arguments: --nope (see rollbridge --help)"
    assert line == f"rollbridge: error: {error['message']}\n"


def test_json_after_a_double_dash_is_an_argument_not_the_option(capsys):
    # the formula is "--json" (after --); the usage error (--nope) is the text line
    code = run(["roll", "--nope", "--", "--json"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith("rollbridge: error: unrecognized arguments: --nope")


@pytest.mark.parametrize("given", ["--js", "--jso", "--json=yes"])
def test_json_abbreviated_or_with_a_value_is_asked_too(capsys, given):
    # argparse takes --js for --json, and refuses --json=yes: a usage error in JSON
    code = run(["roll", given, "--seed"])
    out, err = capsys.readouterr()
    assert code == 2 and err == ""
    assert json.loads(out)["code"] == "invalid_request"


@pytest.mark.parametrize(
    ("argv", "status"),
    [
        (["roll", "3d6+", "--json"], 1),  # the command's error
        (["roll", "--json"], 2),  # a usage error
        (["verify", "missing.jsonl", "--json"], 2),  # verify's unreadable log
    ],
)
def test_an_error_nobody_reads_keeps_its_status_without_a_traceback(tmp_path, argv, status):
    """``rollbridge … --json | head -c0``: standard output closed before the error is
    written; no traceback, and the exit status is the error's (not 0)."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run(
            [sys.executable, "-c", "from rollbridge.cli import main; raise SystemExit(main())",
             *argv],
            stdout=write, stderr=subprocess.PIPE, cwd=tmp_path, timeout=60,
            env={**os.environ, "LANGUAGE": "en", "PYTHONDONTWRITEBYTECODE": "1"},
        )  # fmt: skip
    finally:
        os.close(write)
    assert done.stderr.decode() == ""
    assert done.returncode == status


@pytest.mark.parametrize(
    ("line", "option"),
    [
        ("do attack x=" + "[" * 100_000, "x"),
        ("json " + "[" * 100_000, "json"),
        ("do attack x=1" + "0" * 5000, "x"),
        ('json {"type": "roll", "n": 1' + "0" * 5000 + "}", "json"),
        ("odds attack assume=" + "[" * 100_000, "assume"),
    ],
)
def test_a_typed_line_nested_too_deep_or_with_a_number_too_long_is_refused(line, option):
    """``rollbridge connect``'s typed JSON (``json …``, a ``key=value``): nested too
    deep it raised RecursionError, which the terminal's loop does not catch (the
    session ended with a traceback); a number of more than 4300 digits printed
    Python's advice to call sys.set_int_max_str_digits (review of the fuzzers, 5
    December). Now the line is refused as the offline commands' JSON options are."""
    from rollbridge.cli import terminal
    from rollbridge.exceptions import InvalidRequest

    with pytest.raises(InvalidRequest) as refused:
        terminal.parse_command(line, "r1")
    assert refused.value.message == (
        f"{option}: not accepted as JSON: it nests too deep or a number in it is too long"
    )
