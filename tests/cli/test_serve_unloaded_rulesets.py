"""``serve`` says at start which tables use a ruleset that is not loaded, and names
``$ROLLBRIDGE_PLUGINS`` when it is set: a name mistyped in it (``sr-2``) loaded no
ruleset, and ``serve`` said ``rollbridge serving 2 tables`` as ever while every player
of them was refused ``ruleset_unavailable``. Real ``table create`` and ``serve``
processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.cli.test_cli_reconnect import HANG_GUARD

ENV = {**os.environ, "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"}


def _made(db: Path, ruleset: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "rollbridge", "table", "create", "--ruleset", ruleset,
         "--name", ruleset, "--db", str(db)],
        check=True, capture_output=True, env=ENV, timeout=HANG_GUARD,
    )  # fmt: skip


def _start_lines(db: Path, locale: str, **env: str) -> list[str]:
    """What ``serve`` prints at start (its lines are written together, once it
    listens), then it is stopped; its last line, that it stopped, left out."""
    server = subprocess.Popen(
        [sys.executable, "-m", "rollbridge", "serve", "--db", str(db), "--port", "0",
         "--locale", locale],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env={**ENV, **env},
    )  # fmt: skip
    try:
        lines = [server.stdout.readline()]  # the serving line: the others came with it
    finally:
        server.terminate()
        rest, _ = server.communicate(timeout=HANG_GUARD)
    return lines + rest.splitlines(keepends=True)[:-1]


def test_tables_whose_ruleset_is_not_loaded_are_said_at_start(tmp_path: Path):
    db = tmp_path / "two.db"
    _made(db, "sr2")
    _made(db, "sr2")
    _made(db, "techlevel")
    lines = _start_lines(db, "en", ROLLBRIDGE_PLUGINS="sr-2,techlevel")
    assert lines[0].startswith("rollbridge serving 3 tables"), lines
    assert lines[-1] == (
        "  warning: 2 tables' rulesets are not loaded (sr2 (2)): their players are refused "
        "(ruleset_unavailable) until they are; rollbridge rulesets lists the loaded ones; "
        "ROLLBRIDGE_PLUGINS is 'sr-2,techlevel': only plugins of those names load\n"
    ), lines
    # in the operator's language, the variable, the code and the ids as they are
    german = _start_lines(db, "de", ROLLBRIDGE_PLUGINS="techlevel")[-1]
    assert "ruleset_unavailable" in german and "sr2 (2)" in german and "warning" not in german
    assert "ROLLBRIDGE_PLUGINS" in german, german


def test_no_warning_when_every_ruleset_is_loaded(tmp_path: Path):
    db = tmp_path / "one.db"
    _made(db, "sr2")
    lines = _start_lines(db, "en")
    assert not any("not loaded" in line for line in lines), lines
