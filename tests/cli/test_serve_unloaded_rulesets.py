"""``serve`` says at start which tables use a ruleset that is not loaded, and names
``$ROLLBRIDGE_PLUGINS`` when it is set: a name mistyped in it (``sr-2``) loaded no
ruleset, and ``serve`` said ``rollbridge serving 2 tables`` as ever while every player
of them was refused ``ruleset_unavailable``. It names ``$ROLLBRIDGE_BLOCK_PLUGINS``
and ``$ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD`` too where they keep plugins out: a service's
environment is not the operator's shell, where ``rollbridge rulesets`` listed the
ruleset as loaded. Real ``table create`` and ``serve`` processes, and a plugin installed
as a package (its ``dist-info`` on the path, as pip leaves it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.cli.test_cli_reconnect import HANG_GUARD
from tests.conftest import installed_plugin

ENV = {**os.environ, "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"}


def _made(db: Path, ruleset: str, env: dict[str, str] = ENV) -> None:
    subprocess.run(
        [sys.executable, "-m", "rollbridge", "table", "create", "--ruleset", ruleset,
         "--name", ruleset, "--db", str(db)],
        check=True, capture_output=True, env=env, timeout=HANG_GUARD,
    )  # fmt: skip


def _start_lines(db: Path, locale: str, **env: str) -> list[str]:
    """What ``serve`` prints at start (its lines are written together, once it
    listens), then it is stopped; its last line, that it stopped, left out. The rest
    is read from the file object the first line was read from: ``communicate`` with a
    timeout reads the pipe itself, and what ``readline`` had read ahead was lost (the
    web view and warning lines, now and then)."""
    server = subprocess.Popen(
        [sys.executable, "-m", "rollbridge", "serve", "--db", str(db), "--port", "0",
         "--locale", locale],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env={**ENV, **env},
    )  # fmt: skip
    try:
        lines = [server.stdout.readline()]  # the serving line: the others came with it
    finally:
        server.terminate()
        server.wait(HANG_GUARD)  # its few lines fit in the pipe
    return lines + server.stdout.read().splitlines(keepends=True)[:-1]


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


def test_a_blocked_plugin_is_named_and_a_blank_allow_list_is_not(tmp_path: Path):
    db = tmp_path / "blocked.db"
    _made(db, "sr2")
    lines = _start_lines(db, "en", ROLLBRIDGE_BLOCK_PLUGINS="sr2", ROLLBRIDGE_PLUGINS=" ")
    assert lines[-1] == (
        "  warning: 1 table's ruleset is not loaded (sr2 (1)): its players are refused "
        "(ruleset_unavailable) until it is; rollbridge rulesets lists the loaded ones; "
        "ROLLBRIDGE_BLOCK_PLUGINS is 'sr2': plugins of those names never load\n"
    ), lines
    russian = _start_lines(db, "ru", ROLLBRIDGE_BLOCK_PLUGINS="sr2")[-1]
    assert "ROLLBRIDGE_BLOCK_PLUGINS" in russian and "'sr2'" in russian, russian


PLUGIN = """
    import rollbridge
    from rollbridge import ActionSpec, CommonState, Resolution, Ruleset

    class Pipped(Ruleset):
        id = "pipped"
        name = "Pipped"
        version = "1.0.0"
        actions = {"act": ActionSpec("act", "Act.", params={"type": "object"}, example={})}
        def initial_state(self, sheet): return {}
        def resolve(self, context, dice): return Resolution("done")
        def common_state(self, actor): return CommonState()

    @rollbridge.hookimpl
    def register_rulesets(register):
        register(Pipped())
"""


def test_a_package_plugin_kept_out_by_disabled_autoload_is_named(tmp_path: Path):
    site = installed_plugin(tmp_path / "site", "pipped", PLUGIN)
    installed = {**ENV, "PYTHONPATH": str(site)}
    installed.pop("ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD")
    db = tmp_path / "pipped.db"
    _made(db, "pipped", installed)
    lines = _start_lines(db, "en", PYTHONPATH=str(site), ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD="1")
    assert lines[-1] == (
        "  warning: 1 table's ruleset is not loaded (pipped (1)): its players are refused "
        "(ruleset_unavailable) until it is; rollbridge rulesets lists the loaded ones; "
        "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD is '1': the plugins installed as packages "
        "(pipped) do not load\n"
    ), lines
    # loaded as the package it is, nothing is said
    served = _start_lines(db, "en", PYTHONPATH=str(site), ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD="")
    assert not any("not loaded" in line for line in served), served
