"""A first ``serve`` of a database not there yet, refused before it listens for a
reason other than the port, leaves no file behind. A full disk left an empty database
file (SQLite made it and could write no schema): the next start, the disk freed, found
a database there, took it as no first start, and made no demo table, with no word on
why. The full disk is a stand-in: the ``serve`` process's file size limit (``ulimit
-f 0``, ``RLIMIT_FSIZE``), which fails every write past 0 bytes as a full disk fails
them, since a test may not mount a small file system; the real ``serve`` process and
SQLite do the rest."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

from tests.cli.test_cli_reconnect import HANG_GUARD

ENV = {**os.environ, "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"}


def _disk_full() -> None:
    """In the child, before ``serve`` runs: no file may grow (the write fails, EFBIG,
    rather than the process being stopped by SIGXFSZ)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))


def test_a_first_start_refused_by_a_full_disk_leaves_no_file_and_the_next_makes_the_demo(
    tmp_path: Path,
):
    db = tmp_path / "first.db"
    refused = subprocess.run(
        [sys.executable, "-m", "rollbridge", "serve", "--db", str(db), "--port", "0"],
        preexec_fn=_disk_full, capture_output=True, text=True, env=ENV, timeout=HANG_GUARD,
    )  # fmt: skip
    assert refused.returncode == 1, refused.stderr
    assert f"store_error: cannot open {db}: writing to the disk failed" in refused.stderr
    assert sorted(os.listdir(tmp_path)) == []  # no empty database, key or lock
    # the disk freed: this is the first start, and it makes the demo table
    server = subprocess.Popen(
        [sys.executable, "-m", "rollbridge", "serve", "--db", str(db), "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=ENV,
    )  # fmt: skip
    try:
        said = []
        for line in server.stdout:
            said.append(line)
            if "rollbridge serving" in line:
                break
        assert "rollbridge serving 1 table" in said[-1], "".join(said)
        assert any("demo" in line.lower() for line in said[:-1]), "".join(said)
    finally:
        server.terminate()
        server.wait(HANG_GUARD)
