"""``serve`` with its ``--db`` in a folder the user it runs as may not write (a
service's user and a folder left to root, docs/operations.md, "Running as a
service"): it said only ``cannot open the lock file …: Permission denied``, which
names neither the folder nor what to do. Now the error names the folder, says what
the server keeps there and how to mend it, and nothing is made."""

from __future__ import annotations

import os

import pytest

from rollbridge.stores.sqlite import SQLiteStore
from tests.cli.test_cli_read_only import _unprivileged


@pytest.mark.parametrize("existing", [False, True])
def test_serve_in_a_folder_it_may_not_write_names_the_folder_and_the_fix(tmp_path, existing):
    folder = tmp_path / "data"
    folder.mkdir()
    db = folder / "rollbridge.db"
    if existing:  # a database made by another user (root), served by this one
        SQLiteStore(db).close()
    before = sorted(p.name for p in folder.iterdir())
    folder.chmod(0o555)
    try:
        # as root (the tests' user) without its right to write any file; it stops at once
        status, out, err = _unprivileged("serve", "--db", str(db), "--port", "0", "--no-demo")
    finally:
        folder.chmod(0o755)
    assert status == 1, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    line = lines[0]
    assert line.startswith("rollbridge: error: store_error: cannot open the lock file "), line
    assert f"{db}.lock: Permission denied" in line, line
    assert f"in the folder {folder}: let the user it runs as write there" in line, line
    assert "or give another --db (or $ROLLBRIDGE_DB)" in line, line
    assert "Traceback" not in err
    assert sorted(p.name for p in folder.iterdir()) == before
    assert out == ""


def test_a_lock_file_of_another_user_in_a_folder_it_may_write_names_the_file(tmp_path):
    """A folder the server's user may write, holding a lock file another user left (a
    ``serve`` once run as root, then the service as its own user): the error said to
    let the user write the folder, which it could; it names the lock file's owner
    now, and the two ways out. Nothing is changed: the lock file stays as it was."""
    if os.geteuid() != 0:
        pytest.skip("giving the lock file to another user needs root")
    folder = tmp_path / "data"
    folder.mkdir()
    db = folder / "rollbridge.db"
    SQLiteStore(db).close()
    lock = folder / "rollbridge.db.lock"
    lock.touch(mode=0o600)
    os.chown(lock, 65534, 65534)  # nobody's: the tests run as root, dropping its rights
    lock.chmod(0o600)
    before = sorted(p.name for p in folder.iterdir())
    status, out, err = _unprivileged("serve", "--db", str(db), "--port", "0", "--no-demo")
    assert status == 1, err
    assert err == (
        f"rollbridge: error: store_error: cannot open the lock file {lock}: Permission "
        "denied: the file belongs to another user (a serve once run as root?), not to the "
        "user this one runs as: give it to that user (chown), or remove it while no "
        "rollbridge serve or migrate runs on the database\n"
    )
    assert out == ""
    assert sorted(p.name for p in folder.iterdir()) == before
    assert (lock.stat().st_uid, lock.stat().st_size) == (65534, 0)
