"""`rollbridge connect` when the server closes its connection: with 1013 (try again
later, resync) it reconnects, resumes from the last event it showed — the events it
missed shown once, a request left unanswered sent again and done once — and takes
commands on the new connection; a hello refused then ends the session, and so does
any other close (1008, a revoked token). A real `rollbridge connect` process against
the tests' in-process server on a real port, whose side of the connection the test
closes as the server itself does (docs/protocol.md, "Close codes")."""

from __future__ import annotations

import asyncio
import os
import sys
import threading

from tests.server.conftest import make_tables  # noqa: F401  (a fixture)

#: Only a guard against a hang: nothing here is timed.
HANG_GUARD = 60


class Terminal:
    """`rollbridge connect` in a subprocess: its output read line by line."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []

    @classmethod
    async def start(cls, url: str, token: str) -> Terminal:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "rollbridge", "connect", url,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, "ROLLBRIDGE_TOKEN": token,
                 "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"},
        )  # fmt: skip
        return cls(process)

    async def until(self, text: str) -> str:
        """Read lines up to the first (after those read) that holds ``text``."""
        while True:
            try:
                line = await asyncio.wait_for(self.process.stdout.readline(), HANG_GUARD)
            except TimeoutError:
                line = b""
            if not line:
                raise AssertionError(f"no {text!r} in:\n" + "".join(self.lines))
            self.lines.append(line.decode())
            if text in self.lines[-1]:
                return self.lines[-1]

    async def type(self, line: str) -> None:
        self.process.stdin.write(line.encode() + b"\n")
        await self.process.stdin.drain()

    async def end(self) -> tuple[int, str]:
        """Wait for the process to end (its input left open): its status and output."""
        rest, errors = await asyncio.wait_for(self.process.communicate(), HANG_GUARD)
        self.lines.append(rest.decode())
        return self.process.returncode, "".join(self.lines) + errors.decode()


#: A player's secret roll: its event is the GM's only, its reply the one line the
#: player's terminal prints for it.
_SECRET = 'json {"type": "roll", "id": "again", "formula": "1d1+40", "secret": true}'


def _client(world, role: str):
    """The server's side of the one connection joined as ``role``."""
    return next(c for c in world.server.clients if c.principal.role == role)


async def test_a_1013_close_reconnects_and_resumes(make_tables):  # noqa: F811
    world = await make_tables()
    gm, _ = await world.join("tally", "gm")
    terminal = await Terminal.start(
        f"{world.server.url}tables/tally", world.tokens["tally"]["player"]
    )
    try:
        await terminal.until("type help")
        seen = await gm.request({"type": "roll", "formula": "1d1+10"})
        await terminal.until(f"#{seen['seq']} roll")
        # the server cuts the player off its table (as a resync does), the table goes
        # on without it, then closes the connection with 1013
        on_server = _client(world, "player")
        on_server.session.leave(on_server.protocol.member)
        missed = await gm.request({"type": "roll", "formula": "1d1+20"})
        # a request of the player's waits for the disk when the connection closes: it
        # is done, but its reply reaches nobody
        entered, opened = threading.Event(), threading.Event()
        commit = world.store.commit_many

        def held(items):
            entered.set()
            opened.wait(HANG_GUARD)
            return commit(items)

        world.store.commit_many = held
        await terminal.type(_SECRET)
        assert await asyncio.to_thread(entered.wait, HANG_GUARD)
        on_server.disconnect(1013, "resync")
        world.store.commit_many = commit
        opened.set()
        await gm.wait_for(lambda peer: any(e.get("request") == "again" for e in peer.events))
        closed = await terminal.until("connection closed")
        assert "connection closed (1013: resync); the server asks to reconnect" in closed
        await terminal.until(f"resumed after #{seen['seq']}")
        await terminal.until(f"#{missed['seq']} roll")  # the missed event
        # the unanswered request is sent again, the same id: answered, not done twice
        await terminal.until("= again: secret")
        await terminal.type("1d1+30")  # a command on the new connection is answered
        await terminal.until(f"#{missed['seq'] + 2} roll by player")
        await terminal.type("quit")
        status, out = await terminal.end()
    finally:
        if terminal.process.returncode is None:
            terminal.process.kill()
            await terminal.process.wait()
    assert status == 0, out
    assert out.count(f"#{seen['seq']} roll") == 1, out
    assert out.count(f"#{missed['seq']} roll") == 1, out
    assert out.count("joined Tally") == 2, out
    # answered once, after the reconnect (the resend), and done once
    assert out.count("= again: secret") == 1, out
    assert out.index("= again: secret") > out.index("resumed after"), out
    assert [e["seq"] for e in gm.events if e.get("request") == "again"] == [missed["seq"] + 1]


async def test_a_1008_close_still_ends_the_session(make_tables):  # noqa: F811
    world = await make_tables()
    terminal = await Terminal.start(
        f"{world.server.url}tables/tally", world.tokens["tally"]["player"]
    )
    try:
        await terminal.until("type help")
        _client(world, "player").disconnect(1008, "token revoked")
        status, out = await terminal.end()  # stdin stays open: only the close ends it
    finally:
        if terminal.process.returncode is None:
            terminal.process.kill()
            await terminal.process.wait()
    assert "connection closed (1008: token revoked)" in out, out
    assert "reconnect" not in out, out
    assert status == 1, out


async def test_a_refused_reconnect_ends_the_session(make_tables):  # noqa: F811
    """The token was revoked while the session was away: the hello that would resume
    it is refused, and the session ends (status 1) saying so, trying no more."""
    world = await make_tables(token_check_interval=None)
    terminal = await Terminal.start(
        f"{world.server.url}tables/tally", world.tokens["tally"]["player"]
    )
    try:
        await terminal.until("type help")
        player = next(t for t in world.store.list_tokens("tally") if t.role == "player")
        assert world.store.revoke_token("tally", player.id)
        _client(world, "player").disconnect(1013, "resync")
        status, out = await terminal.end()
    finally:
        if terminal.process.returncode is None:
            terminal.process.kill()
            await terminal.process.wait()
    assert "the server asks to reconnect" in out, out
    assert "\nunauthorized: " in out, out
    assert "attempt 2" not in out and out.count("joined Tally") == 1, out
    assert status == 1, out


def test_connect_reconnects_after_the_close_and_the_refusals_the_other_clients_do():
    """``connect`` keeps its own copies (it does not load the server's protocol to
    start): the protocol's 1013, and the browser client's codes a hello is retried
    after (adapters/client/connection.mjs)."""
    import re
    from pathlib import Path

    from rollbridge.cli import terminal
    from rollbridge.protocol.table import CLOSE_TRY_LATER

    assert terminal.CLOSE_TRY_LATER == CLOSE_TRY_LATER
    script = (Path(__file__).parents[2] / "adapters/client/connection.mjs").read_text()
    assert f"const CLOSE_TRY_LATER = {CLOSE_TRY_LATER};" in script
    listed = re.search(r"const TRANSIENT_HELLO = new Set\(\[(.*?)\]\)", script, re.S)
    assert listed is not None
    assert set(re.findall(r'"(\w+)"', listed.group(1))) == terminal.TRY_LATER
