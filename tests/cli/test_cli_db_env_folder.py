"""A ``$ROLLBRIDGE_DB`` in a folder that is not there, given to a command that only
reads or changes a database (``table list``, ``table tokens``, ``admin-token
--list``, ``backup``): each said ``no database file …`` as docs/operations.md
promises, but had first made the missing folders (a mistyped variable left a tree of
empty folders behind). Only the commands that make a database make its folder; these
make nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.test_cli_tables import run

pytestmark = pytest.mark.usefixtures("english_without_stores")

READERS = [
    ("table", "list"),
    ("table", "tokens", "friday"),
    ("admin-token", "--list"),
    ("backup", "OUT"),
]


@pytest.mark.parametrize("command", READERS, ids=lambda c: " ".join(c[:2]))
def test_a_missing_folder_of_rollbridge_db_is_not_made_by_a_reader(
    tmp_path: Path, capsys, monkeypatch, command
):
    db = tmp_path / "tpyo" / "deeper" / "rollbridge.db"
    monkeypatch.setenv("ROLLBRIDGE_DB", str(db))
    argv = [str(tmp_path / "out.db") if word == "OUT" else word for word in command]
    code, out, err = run(capsys, *argv)
    assert (code, out) == (1, "")
    assert err.startswith(f"rollbridge: error: no_database: no database file {db}: "), err
    assert list(tmp_path.iterdir()) == []  # no folder made, no backup


def test_a_command_that_makes_the_database_still_makes_its_folder(
    tmp_path: Path, capsys, monkeypatch
):
    db = tmp_path / "games" / "rollbridge.db"
    monkeypatch.setenv("ROLLBRIDGE_DB", str(db))
    code, _out, err = run(capsys, "table", "create", "--ruleset", "sr2", "--name", "Friday")
    assert code == 0, err
    assert db.is_file()
