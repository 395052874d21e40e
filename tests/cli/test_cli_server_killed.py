"""`rollbridge connect` when its server's process is killed (SIGKILL: the connection
ends without a close frame, websockets' 1006) and started again on the same port: it
reconnects and resumes from the last event it showed, sends a command typed while the
server was down once it is back, and takes commands on the new connection. Before,
the session ended at the kill ("connection closed (1006)", status 1). A real
`rollbridge serve` process, killed and started again, and a real `rollbridge
connect` process."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys

from tests.cli.test_cli_reconnect import HANG_GUARD, Terminal


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def _serve(db, port: int) -> asyncio.subprocess.Process:
    """`rollbridge serve` on ``port``, once it says it serves."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "rollbridge", "serve", "--port", str(port), "--db", str(db),
        "--no-demo",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        env={**os.environ, "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"},
    )  # fmt: skip
    said = []
    while True:
        line = await asyncio.wait_for(process.stdout.readline(), HANG_GUARD)
        if not line:
            raise AssertionError("serve did not start: " + b"".join(said).decode())
        said.append(line)
        if b"rollbridge serving" in line:
            return process


async def serving_a_table(db, name: str) -> tuple[dict, int, asyncio.subprocess.Process, str]:
    """A table ``name`` made in ``db`` (``table create --json``'s answer), served by
    ``rollbridge serve`` on a free port: the answer, the port, the server and the
    table's URL."""
    made = json.loads(
        subprocess.run(
            [sys.executable, "-m", "rollbridge", "table", "create", "--ruleset", "sr2",
             "--name", name, "--json", "--db", str(db)],
            capture_output=True, text=True, check=True, timeout=HANG_GUARD,
        ).stdout
    )  # fmt: skip
    port = _free_port()
    server = await _serve(db, port)
    return made, port, server, f"ws://127.0.0.1:{port}/tables/{made['table']}"


async def quit_and_stop(terminal: Terminal, server: asyncio.subprocess.Process) -> tuple[int, str]:
    """``quit`` typed at ``terminal`` (its status and output), then the terminal and
    ``server`` stopped, whatever happened."""
    try:
        await terminal.type("quit")
        return await terminal.end()
    finally:
        await terminal.stop()
        if server.returncode is None:
            server.terminate()
            await server.wait()


async def test_connect_comes_back_when_the_server_is_killed_and_started_again(tmp_path):
    db = tmp_path / "killed.db"
    made, port, server, url = await serving_a_table(db, "Killed")
    # attempts enough for a server started again on a loaded machine (none is timed)
    terminal = await Terminal.start(url, made["tokens"]["gm"], "--reconnect-attempts", "10")
    try:
        await terminal.until("type help")
        await terminal.type("1d1+10")
        await terminal.until("#1 roll by gm")
        server.kill()  # SIGKILL: no close frame
        await server.wait()
        lost = await terminal.until("connection ")
        assert lost.startswith("connection lost (1006: no close from the server"), lost
        assert "reconnecting (at most 10 attempts)" in lost, lost
        await terminal.type("1d1+20")  # typed while the server is down: sent once it is back
        server = await _serve(db, port)
        await terminal.until("resumed after #1")
        await terminal.until("#2 roll by gm")
        await terminal.type("1d1+30")
        await terminal.until("#3 roll by gm")
    finally:
        status, out = await quit_and_stop(terminal, server)
    assert status == 0, out
    assert out.count("joined Killed") == 2, out
    for seq in (1, 2, 3):
        assert out.count(f"#{seq} roll by gm") == 1, out
