"""A `hello` the server refuses ends `rollbridge connect` with the server's code.

Before, the client wrapped the server's refusal in an error of its own:
``rollbridge: error: invalid_request: unauthorized: this token does not open that
table`` — a script (or an operator) reading the code read ``invalid_request``, as if
the command line had been wrong, where the token was.
"""

from __future__ import annotations

from dataclasses import replace

from rollbridge.cli.terminal import refusal_of
from tests.cli.test_cli_reconnect import Terminal
from tests.server.conftest import TEST_LIMITS, make_tables  # noqa: F401  (a fixture)


async def test_a_wrong_token_ends_the_session_with_the_servers_code(make_tables):  # noqa: F811
    world = await make_tables()
    terminal = await Terminal.start(f"{world.server.url}tables/tally", "rbt_wrong")
    try:
        status, out = await terminal.end()
    finally:
        await terminal.stop()
    assert status == 1, out
    assert "error: unauthorized: " in out, out
    assert "invalid_request" not in out, out


async def test_a_token_at_its_connection_limit_ends_with_that_code(make_tables):  # noqa: F811
    world = await make_tables(limits=replace(TEST_LIMITS, per_token=1))
    token = world.tokens["tally"]["player"]
    first = await Terminal.start(f"{world.server.url}tables/tally", token)
    try:
        await first.until("type help")
        second = await Terminal.start(f"{world.server.url}tables/tally", token)
        try:
            status, out = await second.end()
        finally:
            await second.stop()
    finally:
        await first.stop()
    assert status == 1, out
    assert "error: too_many_connections: " in out, out


def test_what_a_server_sends_is_taken_as_data_only():
    """A server's frame is untrusted: a code that is not text, or a message that is
    not, still makes an error the command can print."""
    odd = refusal_of({"type": "error", "code": 7, "message": ["x"], "details": "y"})
    assert odd.code == "error" and odd.render() == "['x']" and odd.details == {}
    plain = refusal_of({"type": "error", "code": "unauthorized", "message": "no"})
    assert (plain.code, plain.render()) == ("unauthorized", "no")
