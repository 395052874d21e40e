"""``serve`` with its ``--db`` in a folder the user it runs as may not write (a
service's user and a folder left to root, docs/operations.md, "Running as a
service"): it said only ``cannot open the lock file …: Permission denied``, which
names neither the folder nor what to do. Now the error names the folder, says what
the server keeps there and how to mend it, and nothing is made."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rollbridge.stores.sqlite import SQLiteStore

ENV = {**os.environ, "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1", "LANGUAGE": "en"}


def _serve_unprivileged(db: Path, *more: str) -> subprocess.CompletedProcess[str]:
    """``rollbridge serve --db DB`` in a process that file permissions hold to: as root
    (the tests' user), without its right to write any file (``setpriv`` drops it). It
    is expected to stop at once; the timeout is only a guard."""
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("root, and no setpriv to give up its right to write any file")
        prefix = [setpriv, "--bounding-set=-dac_override,-dac_read_search"]
    argv = ["serve", "--db", str(db), "--port", "0", "--no-demo", *more]
    return subprocess.run([*prefix, sys.executable, "-m", "rollbridge", *argv], env=ENV,
                          capture_output=True, text=True, timeout=60)  # fmt: skip


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
        done = _serve_unprivileged(db)
    finally:
        folder.chmod(0o755)
    assert done.returncode == 1, done
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    line = lines[0]
    assert line.startswith("rollbridge: error: store_error: cannot open the lock file "), line
    assert f"{db}.lock: Permission denied" in line, line
    assert f"in the folder {folder}: let the user it runs as write there" in line, line
    assert "or give another --db (or $ROLLBRIDGE_DB)" in line, line
    assert "Traceback" not in done.stderr
    assert sorted(p.name for p in folder.iterdir()) == before
    assert done.stdout == ""
