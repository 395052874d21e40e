"""How long `rollbridge connect` waits, and what it says when a wait ends: the
answers to what it sent once its input ended (`--answer-timeout`, default 5 s), and
each connection's welcome (`ROLLBRIDGE_WELCOME_TIMEOUT`, default 25 s); and a close
that ends the session while a request is unanswered (docs/protocol.md, "rollbridge
connect after a close"). A real `rollbridge connect` process against the tests'
in-process server, or a WebSocket server of the test's that says nothing."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable

import pytest
from websockets.asyncio.client import connect
from websockets.asyncio.server import Server, ServerConnection, serve

from tests.cli.test_cli_reconnect import Terminal, _client, _secret_held
from tests.server.conftest import make_tables  # noqa: F401  (a fixture)

#: Nothing listens there: a refusal before connecting never reaches it.
NOWHERE = "ws://127.0.0.1:1/tables/t"


def test_the_answer_timeout_is_checked_before_connecting(capsys, monkeypatch):
    """``--answer-timeout`` is seconds from 0 to 3600: anything else (nan, inf) is a
    usage error naming the option (status 2), and nothing is connected to."""
    from rollbridge.cli import main

    monkeypatch.setenv("ROLLBRIDGE_TOKEN", "t")
    for given in ("-1", "3601", "nan", "inf", "soon"):
        with pytest.raises(SystemExit) as usage:
            main(["connect", NOWHERE, "--answer-timeout", given])
        assert usage.value.code == 2
        err = capsys.readouterr().err
        assert (
            f"argument --answer-timeout: give a number of seconds from 0 to 3600, not '{given}'"
        ) in err, err


def test_the_welcome_timeout_is_checked_before_connecting(capsys, monkeypatch):
    """``ROLLBRIDGE_WELCOME_TIMEOUT`` is seconds, more than 0 and at most 600: anything
    else is ``invalid_request`` naming it (status 1), and nothing is connected to."""
    from rollbridge.cli import main

    monkeypatch.setenv("ROLLBRIDGE_TOKEN", "t")
    for given in ("0", "-1", "601", "nan", "inf", "later"):
        monkeypatch.setenv("ROLLBRIDGE_WELCOME_TIMEOUT", given)
        assert main(["connect", NOWHERE, "--locale", "en"]) == 1
        assert capsys.readouterr().err == (
            "rollbridge: error: invalid_request: ROLLBRIDGE_WELCOME_TIMEOUT takes the wait "
            f"for the server's welcome in seconds, more than 0 and at most 600, not '{given}'\n"
        )


@pytest.mark.parametrize(("seconds", "status"), [("0", 1), ("3600", 0)])
async def test_the_answer_timeout_is_how_long_answers_are_awaited(
    make_tables,  # noqa: F811
    seconds,
    status,
):
    """The input ends while a request waits for the disk. ``--answer-timeout 0``: its
    answer counts as unanswered at once (status 1, saying so); ``3600``: the answer,
    once the disk is let go, is collected (status 0). Before, the wait was 5 s, with
    no option to set it."""
    world = await make_tables()
    terminal = await Terminal.player(world, "--answer-timeout", seconds)
    try:
        await terminal.until("type help")
        async with _secret_held(world, terminal):
            await terminal.end_input()
            if status:  # it ends while the commit is held
                ended, out = await terminal.end()
        if not status:
            ended, out = await terminal.end()
    finally:
        await terminal.stop()
    if status:
        assert out.rstrip().endswith("1 request was not answered; the session ends"), out
        assert "= again" not in out, out
    else:
        assert "= again: secret" in out and "not answered" not in out, out
    assert ended == status, out


async def test_a_normal_close_with_a_request_unanswered_ends_with_status_1(make_tables):  # noqa: F811
    """The server closes with 1000 while a request of the terminal's waits for the
    disk: the session ends (1000 is the end) with status 1, saying the request was
    not answered. Before, it ended with status 1 without saying why."""
    world = await make_tables()
    terminal = await Terminal.player(world)
    try:
        await terminal.until("type help")
        async with _secret_held(world, terminal):
            _client(world, "player").disconnect(1000, "done")
            status, out = await terminal.end()  # its input left open: the close ends it
    finally:
        await terminal.stop()
    assert out.rstrip().endswith(
        "connection closed (1000: done)\n1 request was not answered; the session ends"
    ), out
    assert "reconnect" not in out and "= again" not in out, out
    assert status == 1, out


Handler = Callable[[ServerConnection], Awaitable[None]]


def _silent(hellos: list[dict]) -> Handler:
    """A WebSocket server's handler that takes the connection and its hello (kept in
    ``hellos``) and never answers."""

    async def handler(connection: ServerConnection) -> None:
        hellos.append(json.loads(await connection.recv()))
        await connection.wait_closed()

    return handler


def _url(server: Server) -> str:
    return f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}/tables/tally"


async def test_a_first_connection_without_a_welcome_ends_saying_so():
    """A server that takes the connection and never answers its hello: after
    ``ROLLBRIDGE_WELCOME_TIMEOUT`` (here 0.5 s) the session ends as when nothing
    listens, status 1. Before, it waited 25 s whatever was set."""
    hellos: list[dict] = []
    async with serve(_silent(hellos), "127.0.0.1", 0) as server:
        url = _url(server)
        terminal = await Terminal.start(url, "t", ROLLBRIDGE_WELCOME_TIMEOUT="0.5")
        try:
            status, out = await terminal.end()
        finally:
            await terminal.stop()
    assert out == (
        f"rollbridge: error: invalid_request: cannot connect to {url}: no welcome within 0.5 s\n"
    ), out
    assert [hello["type"] for hello in hellos] == ["hello"]
    assert status == 1, out


async def test_attempts_without_a_welcome_fail_and_the_session_ends(make_tables):  # noqa: F811
    """The terminal's server (the test's, relaying its first connection to the real
    one) closes with 1001 and comes back taking connections but answering no hello:
    each attempt fails after ``ROLLBRIDGE_WELCOME_TIMEOUT`` (3 s), saying so, and the
    session ends after the last, status 1. Before, the wait was 25 s, not settable."""
    world = await make_tables()
    upstream = f"{world.server.url}tables/tally"
    cut, hellos, relayed = asyncio.Event(), [], []
    silent = _silent(hellos)

    async def relay(connection: ServerConnection) -> None:
        """The first connection to the real server until ``cut``; the next ones silent."""
        if relayed:
            await silent(connection)
            return
        relayed.append(connection)
        async with connect(upstream) as server_side:

            async def pump(source, sink) -> None:
                async for frame in source:
                    await sink.send(frame)

            pumps = [
                asyncio.ensure_future(pump(connection, server_side)),
                asyncio.ensure_future(pump(server_side, connection)),
            ]
            await cut.wait()
            for task in pumps:
                task.cancel()
            await connection.close(1001, "restarting")

    async with serve(relay, "127.0.0.1", 0) as server:
        terminal = await Terminal.start(
            _url(server), world.tokens["tally"]["player"], "--reconnect-attempts", "2",
            ROLLBRIDGE_RECONNECT_DELAY="0", ROLLBRIDGE_WELCOME_TIMEOUT="3",
        )  # fmt: skip
        try:
            await terminal.until("type help")
            cut.set()
            status, out = await terminal.end()  # its input left open
        finally:
            await terminal.stop()
    assert "connection closed (1001: restarting); reconnecting (at most 2 attempts)" in out, out
    for attempt in (1, 2):
        assert f"reconnecting, attempt {attempt}: no welcome within 3 s\n" in out, out
    assert out.rstrip().endswith("could not reconnect in 2 attempts; the session ends"), out
    seq = int(out.split("; seq ")[1].split()[0])  # the one the welcome said
    assert [hello.get("resume") for hello in hellos] == [{"epoch": 1, "seq": seq}] * 2, hellos
    assert status == 1, out
