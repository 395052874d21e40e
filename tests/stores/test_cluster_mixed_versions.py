"""A cluster of two releases while it is upgraded (rollbridge.server.cluster_versions):
a real ``serve --redis`` of the release of 4 December (``git archive 1bc325f9``, laid
out as tests/fixtures/upgrade/make_fixture.py lays an old version out) owns a table,
a process of this tree forwards a change to it — answered, as before — and says once,
as a WARNING naming it, that an older process shares its Redis.

The older process's ``TAKE`` reads no ``let_go`` note, and it gives its tables up
when Redis fails for a lease: nothing said so, and an operator reading
``taken_over`` during an upgrade read the old process's behaviour as the new one's.
"""

from __future__ import annotations

import asyncio
import os
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.stores.cluster_harness import ENV, LEASE_MS, Player, Process, free_port, make_table
from tests.stores.cluster_harness import wait_listening as listening

ROOT = Path(__file__).resolve().parents[2]
#: The release of 4 December: before the let_go note and the settings' claims.
OLD = "1bc325f9"


def old_tree(folder: Path) -> dict[str, str]:
    """``OLD`` exported into ``folder``, importable as ``rollbridge``: the environment
    that runs it."""
    if shutil.which("git") is None:
        pytest.skip("git is needed")
    source, package = folder / "src", folder / "pkg"
    source.mkdir(parents=True)
    package.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", OLD], capture_output=True)
    if archive.returncode != 0:
        pytest.skip(f"{OLD} is not in this checkout's history")
    subprocess.run(["tar", "-x", "-C", str(source)], input=archive.stdout, check=True)
    (package / "rollbridge").symlink_to(source / "core")
    (source / "core" / "plugins").symlink_to(source / "plugins")
    (source / "core" / "adapters").symlink_to(source / "adapters")
    return {**ENV, "PYTHONPATH": str(package)}


def _until_line(process: subprocess.Popen, words: str, timeout: float = 30) -> str:
    """The first line of ``process``'s stderr holding ``words`` (a bound, not an
    assertion: "" when none came within ``timeout``)."""
    assert process.stderr is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stderr], [], [], 0.2)
        if ready:
            line = process.stderr.readline()
            if words in line:
                return line
            if not line:
                return ""
    return ""


def test_a_newer_process_says_it_shares_redis_with_an_older_one(redis_factory: Any, tmp_path: Path):
    redis = redis_factory()
    env = old_tree(tmp_path / "old")
    table = make_table(redis.url)
    port = free_port()
    old = subprocess.Popen(
        [sys.executable, "-m", "rollbridge", "serve", "--port", str(port), "--redis",
         redis.url, "--no-demo", "--lease-ms", str(LEASE_MS), "--log-level", "INFO"],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True, env=env,
    )  # fmt: skip
    new: Process | None = None
    try:
        listening(old, port)
        new = Process(redis.url)

        async def play() -> None:
            there = Player(port, table["table"], table["tokens"]["gm"])
            here = Player(new.port, table["table"], table["tokens"]["gm"])
            await there.join()
            await here.join()
            reply = await there.ask_until_done({"type": "roll", "id": "o", "formula": "1d6"})
            assert reply["type"] == "result", reply  # the old process owns the table
            reply = await here.ask_until_done({"type": "roll", "id": "n", "formula": "1d6"})
            assert reply["type"] == "result", reply  # forwarded to it, answered
            await there.close()
            await here.close()

        asyncio.run(play())
        assert new.process is not None
        line = _until_line(new.process, "runs an older rollbridge")
        assert f"(pid {old.pid} on " in line, line
        assert "restart it with this release" in line, line
    finally:
        old.terminate()
        old.wait(timeout=30)
        said = new.stop() if new is not None else ""
    assert said.count("runs an older rollbridge") == 0, said  # said once (read above)
    assert "Traceback" not in said, said
    assert os.path.isdir(tmp_path / "old" / "src" / "core")
