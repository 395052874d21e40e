"""``rollbridge serve``'s own options as an operator types them (docs/operations.md):
a log level it does not know is refused before anything is made, never taken as
INFO."""

from __future__ import annotations

from pathlib import Path

import pytest

from rollbridge.cli import build_parser, main


@pytest.mark.parametrize("given", ["verbose", "warn", "trace", ""])
def test_an_unknown_log_level_is_refused(capsys, given):
    """``--log-level verbose`` once served at INFO without a word (a typo in a unit
    file went unseen); now it is a usage error naming the levels, exit status 2,
    before anything is opened or made (the parser refuses it)."""
    with pytest.raises(SystemExit) as stopped:
        build_parser().parse_args(["serve", "--port", "0", "--log-level", given])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "--log-level" in err and repr(given) in err
    assert "DEBUG, INFO, WARNING, ERROR" in err


def test_main_refuses_an_unknown_log_level_with_nothing_made(tmp_path: Path, capsys):
    db = tmp_path / "rollbridge.db"
    with pytest.raises(SystemExit) as stopped:
        main(["serve", "--db", str(db), "--port", "0", "--log-level", "verbose"])
    assert stopped.value.code == 2
    assert list(tmp_path.iterdir()) == []  # no database, key or lock made


@pytest.mark.parametrize(
    ("given", "level"),
    [("debug", "DEBUG"), ("INFO", "INFO"), ("Warning", "WARNING"), ("error", "ERROR")],
)
def test_a_log_level_is_taken_in_any_case(given, level):
    """docs/operations.md writes ``--log-level debug`` as well as ``INFO``."""
    args = build_parser().parse_args(["serve", "--log-level", given])
    assert args.log_level == level
