"""A first ``serve`` of a database not there yet, refused before it listens for a
reason other than the port, leaves no file behind. A full disk left an empty database
file (SQLite made it and could write no schema): the next start, the disk freed, found
a database there, took it as no first start, and made no demo table, with no word on
why. The full disk is a stand-in: the ``serve`` process's file size limit (``ulimit
-f 0``, ``RLIMIT_FSIZE``), which fails every write past 0 bytes as a full disk fails
them, since a test may not mount a small file system; the real ``serve`` process and
SQLite do the rest."""

from __future__ import annotations

import json
import os
import resource
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.cli.test_cli_reconnect import HANG_GUARD
from tests.conftest import installed_plugin

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


def _serving(server: subprocess.Popen[str]) -> list[str]:
    """What ``server`` prints up to its serving line."""
    said = []
    for line in server.stdout or ():
        said.append(line)
        if "rollbridge serving" in line:
            break
    return said


def test_a_first_start_through_a_symlink_to_a_file_not_there_makes_the_demo(tmp_path: Path):
    """A ``--db`` that is a symbolic link to a database not made yet (a data disk's
    file linked into place) is a first start: it was taken for a database there, and
    the server made its file but no demo table, with no word on why."""
    (tmp_path / "rollbridge.db").symlink_to("data.db")
    server = subprocess.Popen(
        [sys.executable, "-m", "rollbridge", "serve", "--db", "rollbridge.db", "--port", "0"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=ENV,
    )  # fmt: skip
    try:
        said = _serving(server)
        assert "rollbridge serving 1 table" in said[-1], "".join(said)
        assert any("demo" in line.lower() for line in said[:-1]), "".join(said)
    finally:
        server.terminate()
        server.wait(HANG_GUARD)
    assert (tmp_path / "rollbridge.db").is_symlink()


def test_a_first_start_through_a_symlink_refused_leaves_only_the_link(tmp_path: Path):
    """Refused (the port another program's), a first start through a symbolic link to
    a file not there yet removes what it made beside the link's target — and not the
    link, which it did not make. It left the database, its key and its lock there,
    and the next start, taking them for a database served before, made no demo."""
    (tmp_path / "rollbridge.db").symlink_to("data.db")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        refused = subprocess.run(
            [sys.executable, "-m", "rollbridge", "serve", "--db", "rollbridge.db", "--port", port],
            cwd=tmp_path, capture_output=True, text=True, env=ENV, timeout=HANG_GUARD,
        )  # fmt: skip
    assert refused.returncode == 1, refused.stderr
    assert "cannot_listen" in refused.stderr
    assert sorted(os.listdir(tmp_path)) == ["rollbridge.db"]
    assert os.readlink(tmp_path / "rollbridge.db") == "data.db"


SLOW_PLUGIN = """
    import os, pathlib, time

    pathlib.Path(os.environ["RB_TEST_LOADING"]).write_text("loading")
    while not pathlib.Path(os.environ["RB_TEST_GO"]).exists():  # the test says when
        time.sleep(0.05)
    raise RuntimeError("this plugin fails to load")
"""


def test_an_admin_token_made_meanwhile_keeps_the_database_of_a_refused_first_start(
    tmp_path: Path,
):
    """``rollbridge admin-token`` takes no serve lock, as ``table create`` takes none:
    run while a first start loads its plugins, it writes its token into the database
    that start made. The start then refused (a plugin that fails to load), its clean-up
    looked for tables only, and removed the file with the token the operator had just
    been shown. A real plugin installed as a package (its ``dist-info`` on the path)
    that fails once the test has made the token; files say when each step is done."""
    site = installed_plugin(tmp_path / "site", "slow", SLOW_PLUGIN)
    loading, go = tmp_path / "loading", tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(site), "RB_TEST_LOADING": str(loading),
           "RB_TEST_GO": str(go)}  # fmt: skip
    db = tmp_path / "data" / "first.db"
    db.parent.mkdir()
    server = subprocess.Popen(
        [sys.executable, "-m", "rollbridge", "serve", "--db", str(db), "--port", "0"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    try:
        while not loading.exists():  # the store is open, its schema written
            assert server.poll() is None, server.stderr.read() if server.stderr else ""
            time.sleep(0.05)
        made = subprocess.run(
            [sys.executable, "-m", "rollbridge", "admin-token", "--db", str(db), "--json"],
            capture_output=True, text=True, env=ENV, timeout=HANG_GUARD, check=True,
        )  # fmt: skip
        go.write_text("go")
        _out, err = server.communicate(timeout=HANG_GUARD)
    finally:
        go.write_text("go")
        if server.poll() is None:
            server.kill()
            server.wait(HANG_GUARD)
    assert server.returncode == 1 and "this plugin fails to load" in err, err
    listed = subprocess.run(
        [sys.executable, "-m", "rollbridge", "admin-token", "--db", str(db), "--list", "--json"],
        capture_output=True, text=True, env=ENV, timeout=HANG_GUARD, check=True,
    )  # fmt: skip
    token_id = json.loads(made.stdout)["id"]
    listed_ids = [token["id"] for token in json.loads(listed.stdout)["admin_tokens"]]
    assert listed_ids == [token_id], listed.stdout
