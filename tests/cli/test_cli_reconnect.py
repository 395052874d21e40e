"""`rollbridge connect` when the server closes its connection: after a close the
server, or the network, may come back from — 1013 (try again later, resync), 1001
(the server stopping), 1011, 1012, or the connection lost without a close (1006) — it
reconnects, resumes from the last event it showed — the events it missed shown once,
a request left unanswered sent again and done once — and takes commands on the new
connection; so it does at a gap in the events' seq, and when the input has ended with
requests unanswered. A hello refused then ends the session, and so does any other
close (1008, a revoked token; 1000; 4000), and so do attempts that all fail (status 1,
said in the user's language). A real `rollbridge connect` process against the tests'
in-process server on a real port, whose side of the connection the test closes as
the server itself does (docs/protocol.md, "rollbridge connect after a close")."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from tests.server.conftest import make_tables  # noqa: F401  (a fixture)

#: Only a guard against a hang: nothing here is timed.
HANG_GUARD = 60


class Terminal:
    """`rollbridge connect` in a subprocess: its output read line by line."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []

    @classmethod
    async def start(cls, url: str, token: str, *args: str, **env: str) -> Terminal:
        """``args`` after the URL; ``env`` beside the environment (the token's)."""
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "rollbridge", "connect", url, *args,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, "ROLLBRIDGE_TOKEN": token,
                 "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1", **env},
        )  # fmt: skip
        return cls(process)

    @classmethod
    async def player(cls, world, *args: str, **env: str) -> Terminal:
        """The player's, at the tests' table tally of ``world`` (as :meth:`start`)."""
        url = f"{world.server.url}tables/tally"
        return await cls.start(url, world.tokens["tally"]["player"], *args, **env)

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

    async def end_input(self) -> None:
        """Close its input, as a script piping commands does at its end."""
        self.process.stdin.close()
        await self.process.stdin.wait_closed()

    async def stop(self) -> None:
        """Kill it if it still runs (a failed test)."""
        if self.process.returncode is None:
            self.process.kill()
            await self.process.wait()

    async def end(self) -> tuple[int, str]:
        """Wait for the process to end (its input left open): its status and output.

        Not ``communicate()``: from Python 3.13 on it closes the input even when given
        none, and the command, its input ended, ends its session once nothing it sent
        is unanswered — each test of an outage ended at status 0 before its first
        attempt (``test_cli_connect_waits.py``, ``test_cli_outage.py`` under 3.13.0)."""

        async def drained() -> tuple[bytes, bytes, int]:
            out, err = await asyncio.gather(self.process.stdout.read(), self.process.stderr.read())
            return out, err, await self.process.wait()

        rest, errors, _ = await asyncio.wait_for(drained(), HANG_GUARD)
        self.lines.append(rest.decode())
        return self.process.returncode, "".join(self.lines) + errors.decode()


#: A player's secret roll: its event is the GM's only, its reply the one line the
#: player's terminal prints for it.
_SECRET = 'json {"type": "roll", "id": "again", "formula": "1d1+40", "secret": true}'


@contextlib.asynccontextmanager
async def _held_commit(world) -> AsyncIterator[Callable[[], Awaitable[None]]]:
    """The next commit waits for the disk until the block ends: a request made in the
    block, then its connection ended (once ``await began()`` says the commit began), is
    done, but its reply reaches nobody."""
    entered, opened = threading.Event(), threading.Event()
    commit = world.store.commit_many

    def held(items):
        entered.set()
        opened.wait(HANG_GUARD)
        return commit(items)

    async def began() -> None:
        assert await asyncio.to_thread(entered.wait, HANG_GUARD)

    world.store.commit_many = held
    try:
        yield began
    finally:
        world.store.commit_many = commit
        opened.set()


@contextlib.asynccontextmanager
async def _secret_held(world, terminal: Terminal) -> AsyncIterator[None]:
    """The terminal's player asks for a secret roll (:data:`_SECRET`), whose commit
    waits for the disk until the block ends (:func:`_held_commit`): in the block the
    request is made, and unanswered."""
    async with _held_commit(world) as began:
        await terminal.type(_SECRET)
        await began()
        yield


def _client(world, role: str):
    """The server's side of the one connection joined as ``role`` (not closing)."""
    return next(c for c in world.server.clients if c.principal.role == role and not c.closing)


#: How the server's side of the connection ends, each a close ``connect`` comes back
#: from, and the line it prints for it.
ENDINGS = {
    "1013": "connection closed (1013: resync); the server asks to reconnect: "
    "reconnecting (for up to 300 s)",
    "1001": "connection closed (1001: restarting); reconnecting (for up to 300 s)",
    "1011": "connection closed (1011: failed); reconnecting (for up to 300 s)",
    "1012": "connection closed (1012: restarting); reconnecting (for up to 300 s)",
    # no close frame: the connection's socket dropped, as when the server's process
    # is killed or the network goes (tests/cli/test_cli_server_killed.py kills one)
    "lost": "connection lost (1006: no close from the server: it stopped, or the network "
    "failed); reconnecting (for up to 300 s)",
}


def _skip_event(client, seq: int) -> list[int]:
    """The server does not send ``client`` the event ``seq`` (a bug met as it was
    delivered); the list it returns gets that seq once it was skipped."""
    enqueue, dropped = client.enqueue, []

    def skipping(frame, **options):
        message = json.loads(frame)
        if message.get("type") == "event" and message["seq"] == seq:
            dropped.append(seq)  # this client alone misses it
            return None
        return enqueue(frame, **options)

    client.enqueue = skipping
    return dropped


async def _gap(world, gm, terminal: Terminal) -> tuple[dict, dict, dict]:
    """The GM rolls three times once the player's terminal has joined; the player's
    connection misses the second roll's event (:func:`_skip_event`): the three
    replies, the first once the terminal has shown it."""
    await terminal.until("type help")
    seen = await gm.request({"type": "roll", "formula": "1d1+10"})
    await terminal.until(f"#{seen['seq']} roll")
    dropped = _skip_event(_client(world, "player"), seen["seq"] + 1)
    skipped = await gm.request({"type": "roll", "formula": "1d1+20"})
    after = await gm.request({"type": "roll", "formula": "1d1+30"})
    assert dropped == [skipped["seq"]]
    return seen, skipped, after


def _end(client, how: str) -> None:
    """End the server's side of ``client``'s connection as ``how`` names."""
    if how == "lost":
        client.connection.transport.abort()
    else:
        reason = {"1013": "resync", "1011": "failed"}.get(how, "restarting")
        client.disconnect(int(how), reason)


@pytest.mark.parametrize("how", list(ENDINGS))
async def test_a_close_the_server_comes_back_from_reconnects_and_resumes(
    make_tables,  # noqa: F811
    how,
):
    """Before, only 1013 was: a connection lost without a close (1006), 1001, 1011 and
    1012 ended the session, 1001 with status 0."""
    world = await make_tables()
    gm, _ = await world.join("tally", "gm")
    terminal = await Terminal.player(world)
    try:
        await terminal.until("type help")
        seen = await gm.request({"type": "roll", "formula": "1d1+10"})
        await terminal.until(f"#{seen['seq']} roll")
        # the server cuts the player off its table (as a resync does), the table goes
        # on without it, then its connection ends
        on_server = _client(world, "player")
        on_server.session.leave(on_server.protocol.member)
        missed = await gm.request({"type": "roll", "formula": "1d1+20"})
        # a request of the player's waits for the disk when the connection ends: it
        # is done, but its reply reaches nobody
        async with _secret_held(world, terminal):
            _end(on_server, how)
        await gm.wait_for(lambda peer: any(e.get("request") == "again" for e in peer.events))
        closed = await terminal.until("connection ")
        assert ENDINGS[how] in closed
        await terminal.until(f"resumed after #{seen['seq']}")
        await terminal.until(f"#{missed['seq']} roll")  # the missed event
        # the unanswered request is sent again, the same id: answered, not done twice
        await terminal.until("= again: secret")
        await terminal.type("1d1+30")  # a command on the new connection is answered
        await terminal.until(f"#{missed['seq'] + 2} roll by player")
        await terminal.type("quit")
        status, out = await terminal.end()
    finally:
        await terminal.stop()
    assert status == 0, out
    assert out.count(f"#{seen['seq']} roll") == 1, out
    assert out.count(f"#{missed['seq']} roll") == 1, out
    assert out.count("joined Tally") == 2, out
    # answered once, after the reconnect (the resend), and done once
    assert out.count("= again: secret") == 1, out
    assert out.index("= again: secret") > out.index("resumed after"), out
    assert [e["seq"] for e in gm.events if e.get("request") == "again"] == [missed["seq"] + 1]


async def test_a_gap_in_seq_resumes_from_the_last_event_shown(make_tables):  # noqa: F811
    """The server does not send the player one event (the bug of a ruleset or an
    adapter, met as the event was delivered: docs/protocol.md, "Flow control"): the
    next one does not follow the last shown. It is not shown; the terminal closes the
    connection and resumes from the last event it showed, which brings both, each
    once, in order. Before, the missed one never came, and nothing said so."""
    world = await make_tables()
    gm, _ = await world.join("tally", "gm")
    terminal = await Terminal.player(world)
    try:
        seen, skipped, after = await _gap(world, gm, terminal)
        gap = await terminal.until("did not come")
        assert f"1 event did not come (#{skipped['seq']}): resuming after #{seen['seq']}" in gap
        await terminal.until(f"resumed after #{seen['seq']}")
        await terminal.until(f"#{after['seq']} roll")
        await terminal.type("quit")
        status, out = await terminal.end()
    finally:
        await terminal.stop()
    assert status == 0, out
    shown = [line.split()[0] for line in out.splitlines() if line.startswith("#")]
    assert shown == [f"#{seen['seq']}", f"#{skipped['seq']}", f"#{after['seq']}"], out
    assert out.count("joined Tally") == 2 and "could not resume" not in out, out


async def test_a_1013_after_the_input_ended_collects_the_answers(make_tables):  # noqa: F811
    """A script pipes commands and its input ends while one is unanswered; then the
    server closes with 1013. The terminal reconnects, sends it again, prints its
    answer, and ends with status 0. Before, the session ended at the close, status 0,
    without the answer."""
    world = await make_tables()
    terminal = await Terminal.player(world)
    try:
        await terminal.until("type help")
        async with _secret_held(world, terminal):
            await terminal.end_input()
            _client(world, "player").disconnect(1013, "resync")
        status, out = await terminal.end()
    finally:
        await terminal.stop()
    assert "connection closed (1013: resync); the server asks to reconnect" in out, out
    assert out.count("= again: secret") == 1, out
    assert out.index("= again: secret") > out.index("resumed after"), out
    assert status == 0, out


async def test_an_answer_that_never_comes_ends_the_session_with_status_1(
    make_tables,  # noqa: F811
    monkeypatch,
):
    """The input ends with a request whose answer never comes (the server loses it:
    here, it is not sent): after the wait for answers (5 s) the session says so and
    ends with status 1. Before, it ended with status 0, as if all was answered."""
    from rollbridge.server.client import Client

    enqueue = Client.enqueue

    def no_results(self, frame, **options):
        if json.loads(frame).get("type") == "result":
            return None
        return enqueue(self, frame, **options)

    monkeypatch.setattr(Client, "enqueue", no_results)
    world = await make_tables()
    terminal = await Terminal.player(world)
    try:
        await terminal.until("type help")
        await terminal.type("1d1+10")
        await terminal.end_input()
        status, out = await terminal.end()
    finally:
        await terminal.stop()
    assert "roll by player" in out, out  # done: its event came, its answer did not
    assert out.rstrip().endswith("1 request was not answered; the session ends"), out
    assert status == 1, out


async def test_attempts_that_all_fail_end_the_session_saying_why(make_tables):  # noqa: F811
    """The server stops (1001) and is not back: two attempts (``--reconnect-attempts
    2``, the first at once: ``ROLLBRIDGE_RECONNECT_DELAY=0``) each fail, saying why,
    then the session ends with status 1, saying so, in the user's language."""
    world = await make_tables()
    url = f"{world.server.url}tables/tally"  # its port: the server's, until it stops
    terminal = await Terminal.start(
        url, world.tokens["tally"]["player"], "--reconnect-attempts", "2", "--locale", "de",
        ROLLBRIDGE_RECONNECT_DELAY="0",
    )  # fmt: skip
    try:
        await terminal.until("help")
        await world.server.stop()
        status, out = await terminal.end()
    finally:
        await terminal.stop()
    assert "Verbindung geschlossen (1001); verbinde neu (höchstens 2 Versuche)" in out, out
    for attempt in (1, 2):
        assert f"neue Verbindung, Versuch {attempt}: keine Verbindung zu {url}: " in out, out
    assert "Versuch 3" not in out, out
    assert out.rstrip().endswith("keine neue Verbindung in 2 Versuchen; die Sitzung endet"), out
    assert status == 1, out


async def test_reconnects_that_never_prove_good_are_not_made_for_ever(
    make_tables,  # noqa: F811
    monkeypatch,
):
    """A server that takes each new connection and closes it (1011) before it proved
    good (it answers no ping here): the attempts count on across the closes — at most
    3, 2, then 1 left — and the session ends after the third, status 1, where it would
    otherwise reconnect for ever."""
    from rollbridge.server.client import Client

    enqueue = Client.enqueue

    def no_pongs(self, frame, **options):
        if json.loads(frame).get("type") == "pong":
            return None
        return enqueue(self, frame, **options)

    monkeypatch.setattr(Client, "enqueue", no_pongs)
    world = await make_tables()
    terminal = await Terminal.player(
        world, "--reconnect-attempts", "3", ROLLBRIDGE_RECONNECT_DELAY="0"
    )
    try:
        await terminal.until("type help")
        for left in (3, 2, 1):
            _client(world, "player").disconnect(1011, "failed")
            closed = await terminal.until("connection closed (1011: failed)")
            assert f"reconnecting (at most {left} attempt" in closed, closed
            await terminal.until("resumed after")
        _client(world, "player").disconnect(1011, "failed")
        status, out = await terminal.end()
    finally:
        await terminal.stop()
    assert out.rstrip().endswith(
        "connection closed (1011: failed)\ncould not reconnect in 3 attempts; the session ends"
    ), out
    assert out.count("joined Tally") == 4, out
    assert status == 1, out


def test_the_schedule_of_attempts_is_checked_before_connecting(capsys, monkeypatch):
    """``--reconnect-attempts`` is a whole number from 0 to 100 (else a usage error,
    status 2), ``ROLLBRIDGE_RECONNECT_DELAY`` seconds from 0 to 60 (else
    ``invalid_request`` naming it, status 1): nothing is connected to."""
    from rollbridge.cli import main

    monkeypatch.setenv("ROLLBRIDGE_TOKEN", "t")
    url = "ws://127.0.0.1:1/tables/t"  # nothing listens there: never reached
    for given in ("-1", "101", "five"):
        with pytest.raises(SystemExit) as usage:
            main(["connect", url, "--reconnect-attempts", given])
        assert usage.value.code == 2
        err = capsys.readouterr().err
        assert f"--reconnect-attempts: give a whole number from 0 to 100, not '{given}'" in err
    for given in ("-0.5", "61", "nan", "soon"):
        monkeypatch.setenv("ROLLBRIDGE_RECONNECT_DELAY", given)
        assert main(["connect", url, "--locale", "en"]) == 1
        assert capsys.readouterr().err == (
            "rollbridge: error: invalid_request: ROLLBRIDGE_RECONNECT_DELAY takes the first "
            f"reconnect's wait in seconds, from 0 to 60, not '{given}'\n"
        )


@pytest.mark.parametrize(
    ("code", "reason", "status"),
    [(1008, "token revoked", 1), (1009, "too big", 1), (4000, "no pong", 1), (1000, "done", 0)],
)
async def test_a_close_that_is_the_end_ends_the_session(make_tables, code, reason, status):  # noqa: F811
    """1008 (the token refused or revoked: reconnecting would be refused), 1009 (a
    frame too large, which would be sent again), a code ``rollbridge serve`` never
    sends (4000): status 1; a normal close (1000): status 0. None reconnects."""
    world = await make_tables()
    terminal = await Terminal.player(world)
    try:
        await terminal.until("type help")
        _client(world, "player").disconnect(code, reason)
        ended, out = await terminal.end()  # stdin stays open: only the close ends it
    finally:
        await terminal.stop()
    assert f"connection closed ({code}: {reason})" in out, out
    assert "reconnect" not in out, out
    assert ended == status, out


async def test_a_refused_reconnect_ends_the_session(make_tables):  # noqa: F811
    """The token was revoked while the session was away: the hello that would resume
    it is refused, and the session ends (status 1) saying so, trying no more."""
    world = await make_tables(token_check_interval=None)
    terminal = await Terminal.player(world)
    try:
        await terminal.until("type help")
        player = next(t for t in world.store.list_tokens("tally") if t.role == "player")
        assert world.store.revoke_token("tally", player.id)
        _client(world, "player").disconnect(1013, "resync")
        status, out = await terminal.end()
    finally:
        await terminal.stop()
    assert "the server asks to reconnect" in out, out
    assert "\nunauthorized: " in out, out
    assert "attempt 2" not in out and out.count("joined Tally") == 1, out
    assert status == 1, out


def test_connect_reconnects_after_the_close_and_the_refusals_the_other_clients_do():
    """``connect`` keeps its own copies (it does not load the server's protocol to
    start): the protocol's 1013 and 1008, and the browser client's codes a hello is
    retried after (adapters/client/connection.mjs); like that client, it reconnects
    after 1013 and a lost connection, and stops at 1008 (the token refused)."""
    import re
    from pathlib import Path

    from rollbridge.cli import reconnect
    from rollbridge.protocol.connection import CLOSE_AUTH
    from rollbridge.protocol.table import CLOSE_TRY_LATER

    assert reconnect.CLOSE_TRY_LATER == CLOSE_TRY_LATER
    assert {CLOSE_TRY_LATER, reconnect.CLOSE_LOST} <= reconnect.RECONNECT_AFTER
    assert reconnect.close_status(CLOSE_AUTH) == 1
    script = (Path(__file__).parents[2] / "adapters/client/connection.mjs").read_text()
    assert f"const CLOSE_TRY_LATER = {CLOSE_TRY_LATER};" in script
    assert f"const CLOSE_AUTH = {CLOSE_AUTH};" in script
    listed = re.search(r"const TRANSIENT_HELLO = new Set\(\[(.*?)\]\)", script, re.S)
    assert listed is not None
    assert set(re.findall(r'"(\w+)"', listed.group(1))) == reconnect.TRY_LATER


@pytest.mark.parametrize(
    ("locale", "count", "said"),
    [
        ("cs", 1, "znovu se připojit nepodařilo ani po 1 pokusu; relace končí"),
        ("cs", 3, "znovu se připojit nepodařilo ani po 3 pokusech; relace končí"),
        ("cs", 5, "znovu se připojit nepodařilo ani po 5 pokusech; relace končí"),
        ("de", 5, "keine neue Verbindung in 5 Versuchen; die Sitzung endet"),
        ("ru", 1, "не удалось переподключиться за 1 попытку; сеанс завершён"),
        ("ru", 3, "не удалось переподключиться за 3 попытки; сеанс завершён"),
        ("ru", 5, "не удалось переподключиться за 5 попыток; сеанс завершён"),
    ],
)
def test_giving_up_reads_in_each_language_with_its_plural(locale, count, said):
    """The line that ends a session whose attempts all failed, in each plural form.
    The Czech one read "znovu se připojit se nepodařilo" (the reflexive "se" twice,
    which Czech writes once) "ani na 5 pokusů"."""
    from rollbridge.cli.reconnect import GAVE_UP

    assert GAVE_UP(count=count).render(locale) == said


@pytest.mark.parametrize("given", ["[1]", '{"a": 1}', "1.5", "true", '""', '"' + "x" * 65 + '"'])
async def test_a_raw_request_whose_id_is_none_is_refused_before_it_is_sent(make_tables, given):  # noqa: F811
    """``json {...}`` with an id the protocol has no answer for (the server answers
    such a request with ``"id": null``): a list or a map ended the session with a
    traceback (the session keeps what it awaits by id); any other was awaited in
    vain, and the session ended saying "1 request was not answered", status 1. It is
    refused as the server would refuse it, nothing is sent, and the session goes on."""
    world = await make_tables()
    terminal = await Terminal.player(world)
    try:
        await terminal.until("type help")
        await terminal.type(f'json {{"type": "roll", "formula": "1d1+50", "id": {given}}}')
        await terminal.type("1d1+60")
        await terminal.end_input()
        status, out = await terminal.end()
    finally:
        await terminal.stop()
    assert "! id: every request needs an id, a string of 1-64 characters without control" in out
    assert "Traceback" not in out and "not answered" not in out, out
    assert "= 51" not in out and "[1] + 60 = 61" in out, out
    assert status == 0, out


async def test_a_first_connection_closed_before_its_welcome_ends_with_an_error(make_tables):  # noqa: F811
    """The server closes a new connection at once (1013: too many connections from
    this address) before the hello is read: the session ended with a traceback
    (websockets' ConnectionClosedError). It ends as when nothing listens: "cannot
    connect to URL:" and the close, status 1."""
    import dataclasses

    from tests.server.conftest import TEST_LIMITS

    world = await make_tables(limits=dataclasses.replace(TEST_LIMITS, per_address=1))
    url = f"{world.server.url}tables/tally"
    holder = await Terminal.start(url, world.tokens["tally"]["gm"])
    try:
        await holder.until("type help")  # joined: the address's one connection
        second = await Terminal.start(url, world.tokens["tally"]["player"])
        try:
            status, out = await second.end()
        finally:
            await second.stop()
    finally:
        await holder.stop()
    assert out.startswith(
        f"rollbridge: error: invalid_request: cannot connect to {url}: connection closed "
        "(1013: too many connections from this address)"
    ), out
    assert "Traceback" not in out, out
    assert status == 1, out


async def test_a_gap_without_attempts_ends_the_session_saying_so(make_tables):  # noqa: F811
    """``--reconnect-attempts 0``: a gap ends the session (status 1) as a close it
    would come back from does. It said "1 event did not come (#2): resuming after #1"
    and then "could not reconnect in 0 attempts; the session ends"."""
    world = await make_tables()
    gm, _ = await world.join("tally", "gm")
    terminal = await Terminal.player(world, "--reconnect-attempts", "0")
    try:
        _, skipped, _ = await _gap(world, gm, terminal)
        status, out = await terminal.end()  # its input left open: the gap ends it
    finally:
        await terminal.stop()
    assert out.rstrip().endswith(f"1 event did not come (#{skipped['seq']}); the session ends"), out
    assert "resuming" not in out and "reconnect" not in out, out
    assert status == 1, out


@pytest.mark.parametrize(
    ("attempts", "said"),
    [("0", "connection closed (1011: failed)"),
     ("1", "could not reconnect in 1 attempt; the session ends")],
)  # fmt: skip
async def test_giving_up_with_a_request_out_says_it_was_not_answered(
    make_tables,  # noqa: F811
    monkeypatch,
    attempts,
    said,
):
    """A close it does not come back from — no attempts allowed, or none left — with
    a request unanswered ended with status 1 and no word of the request (a close that
    is the end already said it). Now the last line counts it."""
    from rollbridge.server.client import Client

    world = await make_tables()
    terminal = await Terminal.player(
        world, "--reconnect-attempts", attempts, ROLLBRIDGE_RECONNECT_DELAY="0"
    )
    try:
        await terminal.until("type help")
        async with _secret_held(world, terminal):
            if attempts == "1":  # every new connection is refused: the one attempt fails
                monkeypatch.setattr(Client, "run", _refusing_run)
            _client(world, "player").disconnect(1011, "failed")
            status, out = await terminal.end()
    finally:
        await terminal.stop()
    lines = out.rstrip().splitlines()
    assert lines[-2:] == [said, "1 request was not answered; the session ends"], out
    assert status == 1, out


async def _refusing_run(self) -> None:
    """A server's side of a connection that closes at once (1011), never welcoming."""
    await self.connection.close(1011, "failed")
