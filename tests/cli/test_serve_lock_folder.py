"""``serve`` with its ``--db`` in a folder the user it runs as may not write (a
service's user and a folder left to root, docs/operations.md, "Running as a
service"): it said only ``cannot open the lock file …: Permission denied``, which
names neither the folder nor what to do. Now the error names the folder, says what
the server keeps there and how to mend it, and nothing is made."""

from __future__ import annotations

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
