"""A ``--db`` whose folder is a file (``--db rollbridge.db/new.db``, a path typed one
word too long): every command said "its folder … does not exist: make it (mkdir
-p)", which cannot be done, the file being there; ``backup`` onto such a path said
the same; and ``$ROLLBRIDGE_DB`` naming one ended ``serve`` and ``admin-token``
with Python's traceback (``FileExistsError`` making the folder). Each now names the
file standing in the way, and nothing is made."""

from __future__ import annotations

from pathlib import Path

import pytest

from rollbridge.stores.sqlite import SQLiteStore
from tests.cli.test_cli_db_path import EVERY, MAKERS
from tests.cli.test_cli_tables import run

pytestmark = pytest.mark.usefixtures("english_without_stores")


def _said(db: Path, file: Path) -> str:
    return (
        f"rollbridge: error: store_error: cannot open {db}: {file} is a file, not a folder:"
        " give --db (or $ROLLBRIDGE_DB) the path of a file in a folder\n"
    )


@pytest.mark.parametrize("deeper", [False, True], ids=["folder", "above"])
@pytest.mark.parametrize("command", MAKERS, ids=lambda c: c[0])
def test_a_file_given_as_the_folder_is_named(tmp_path: Path, capsys, command, deeper):
    file = tmp_path / "rollbridge.db"
    file.write_bytes(b"notes")
    db = file / "games" / "new.db" if deeper else file / "new.db"
    code, out, err = run(capsys, *command, "--db", str(db))
    assert (code, out) == (1, "") and err == _said(db, file)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rollbridge.db"]
    assert file.read_bytes() == b"notes"


@pytest.mark.parametrize("command", EVERY, ids=lambda c: " ".join(c[:2]))
def test_rollbridge_db_naming_one_is_said_too_not_a_traceback(
    tmp_path: Path, capsys, monkeypatch, command
):
    file = tmp_path / "rollbridge.db"
    file.write_bytes(b"notes")
    monkeypatch.setenv("ROLLBRIDGE_DB", str(file / "new.db"))
    code, out, err = run(capsys, *command)
    assert (code, out) == (1, "")
    assert f"{file} is a file, not a folder" in err or "no_database" in err, err
    assert err.count("\n") == 1 and "Traceback" not in err


def _backup_refused(tmp_path: Path, capsys, dest: Path) -> str:
    """``backup`` of a new database in ``tmp_path`` onto ``dest``, refused: its stderr."""
    db = tmp_path / "live.db"
    SQLiteStore(db).close()
    code, out, err = run(capsys, "backup", "--db", str(db), str(dest))
    assert (code, out) == (1, "")
    return err


def test_backup_onto_a_path_under_a_file_names_the_file(tmp_path: Path, capsys):
    in_the_way = tmp_path / "backups"
    in_the_way.write_text("not a folder")
    dest = in_the_way / "monday.db"
    assert _backup_refused(tmp_path, capsys, dest) == (
        f"rollbridge: error: store_error: cannot write the backup {dest}: {in_the_way} is a"
        " file, not a folder\n"
    )


def test_backup_under_a_symlink_to_a_folder_not_there_names_that_folder(tmp_path: Path, capsys):
    """``backups``, a symbolic link to a disk not mounted: ``backup`` onto a path in it
    said "backups is a file, not a folder" (a link that leads nowhere is no folder, so
    it was taken for a file); it names the folder the link leads to, missing, as the
    commands that open a database do."""
    target = tmp_path / "usb" / "rollbridge"
    link = tmp_path / "backups"
    link.symlink_to(target)
    dest = link / "monday.db"
    assert _backup_refused(tmp_path, capsys, dest) == (
        f"rollbridge: error: store_error: cannot write the backup {dest}: the folder {target}"
        " does not exist\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["backups", "live.db"]
