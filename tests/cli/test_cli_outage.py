"""`rollbridge connect` during an outage — from a close it comes back from, or a gap,
until a new connection joins: it reads its input meanwhile, so `quit` ends the session
at once (and the input ending, with nothing unanswered); and the attempts of one
outage count on across the gaps a new connection meets before it proved good, so a
server that shows each new connection a gap is not tried for ever (docs/protocol.md,
"rollbridge connect after a close"). A real `rollbridge connect` process against the
tests' in-process server."""

from __future__ import annotations

import json

import pytest

from tests.cli.test_cli_reconnect import Terminal, _client, _secret_held
from tests.server.conftest import make_tables  # noqa: F401  (a fixture)

#: The first attempt waits between 30 and 60 s: the outage lasts past anything the
#: test does in it (nothing is timed: the session, read at once, ends long before).
LONG_OUTAGE = {"ROLLBRIDGE_RECONNECT_DELAY": "60"}


async def _away(world) -> Terminal:
    """A player's terminal that joined, whose server then stopped (1001): it is
    reconnecting, its first attempt far off."""
    terminal = await Terminal.player(world, **LONG_OUTAGE)
    await terminal.until("type help")
    await world.server.stop()
    await terminal.until("connection closed (1001")
    return terminal


async def test_quit_while_reconnecting_ends_the_session_at_once(make_tables):  # noqa: F811
    """A command typed while the server is away waits to be sent; `quit` then ends the
    session at once, saying the command was not answered (status 1). Before, `quit`
    was read only once the outage's attempts had all failed (here minutes)."""
    world = await make_tables()
    terminal = await _away(world)
    try:
        await terminal.type("1d1+10")
        await terminal.type("quit")
        status, out = await terminal.end()
    finally:
        await terminal.stop()
    assert out.rstrip().endswith("1 request was not answered; the session ends"), out
    assert "attempt 1" not in out and "Traceback" not in out, out
    assert status == 1, out


async def test_the_input_ending_while_reconnecting_ends_the_session_at_once(make_tables):  # noqa: F811
    """The input is read while the server is away (`help` prints at once); its end,
    nothing being unanswered, ends the session at once with status 0."""
    world = await make_tables()
    terminal = await _away(world)
    try:
        await terminal.type("help")
        await terminal.until("help | quit")
        await terminal.end_input()
        status, out = await terminal.end()
    finally:
        await terminal.stop()
    assert "attempt 1" not in out and "not answered" not in out, out
    assert status == 0, out


async def test_the_input_ending_while_reconnecting_still_collects_the_answers(
    make_tables,  # noqa: F811
):
    """A script's pipe ends while the server is away and a request is unanswered (the
    end read after the close: the order a loaded machine gave the 1013 test): it is no
    `quit`, so the session reconnects, prints the answer and ends with status 0. For a
    while it ended at once, saying the request was not answered (status 1)."""
    world = await make_tables()
    terminal = await Terminal.player(world, ROLLBRIDGE_RECONNECT_DELAY="2")
    try:
        await terminal.until("type help")
        async with _secret_held(world, terminal):
            _client(world, "player").disconnect(1013, "resync")
            await terminal.until("connection closed (1013")
            await terminal.end_input()
        status, out = await terminal.end()
    finally:
        await terminal.stop()
    assert "not answered" not in out, out
    assert out.count("= again: secret") == 1 and "resumed after" in out, out
    assert status == 0, out


def _gap_on_every_connection(monkeypatch) -> list[int]:
    """The server does not send a player's connection the first event it would send
    it (a bug met as it was delivered), whichever connection: after a resume, that is
    one of the events it missed, which come before anything can prove the connection
    good. The list it returns gets the seq of each event dropped."""
    from rollbridge.server.client import Client

    enqueue, dropped, met = Client.enqueue, [], []

    def skipping(self, frame, **options):
        message = json.loads(frame)
        first = not any(client is self for client in met)
        if message.get("type") == "event" and self.principal.role == "player" and first:
            met.append(self)
            dropped.append(message["seq"])
            return None
        return enqueue(self, frame, **options)

    monkeypatch.setattr(Client, "enqueue", skipping)
    return dropped


async def test_gaps_before_a_connection_proved_good_count_as_one_outage(
    make_tables,  # noqa: F811
    monkeypatch,
):
    """Every new connection misses an event of those it is sent on resuming: each
    attempt joins, meets a gap and reconnects. The gaps count as one outage — at most
    3 attempts — and the session ends after the third, status 1. Before, each gap
    started the attempts over, and the session reconnected for ever."""
    dropped = _gap_on_every_connection(monkeypatch)
    world = await make_tables()
    gm, _ = await world.join("tally", "gm")
    terminal = await Terminal.player(
        world, "--reconnect-attempts", "3", ROLLBRIDGE_RECONNECT_DELAY="0"
    )
    try:
        joined = await terminal.until("type help")
        missed = await gm.request({"type": "roll", "formula": "1d1+10"})  # dropped
        await gm.request({"type": "roll", "formula": "1d1+20"})  # shows the gap
        status, out = await terminal.end()  # its input left open
    finally:
        await terminal.stop()
    seen = int(out.split("; seq ")[1].split()[0])  # the seq the first welcome said
    assert joined and missed["seq"] == seen + 1, out
    gap = f"1 event did not come (#{missed['seq']})"
    assert out.count(f"{gap}: resuming after #{seen}") == 3, out
    assert out.count("joined Tally") == 4 and out.count(f"resumed after #{seen}") == 3, out
    assert out.rstrip().endswith(f"{gap}\ncould not reconnect in 3 attempts; the session ends")
    assert dropped == [missed["seq"]] * 4, out
    assert status == 1, out


@pytest.mark.parametrize(
    ("locale", "count", "said"),
    [
        ("en", 1, "1 event did not come (#5)"),
        ("en", 2, "2 events did not come (#5-#6)"),
        ("cs", 1, "1 událost nepřišla (#5)"),
        ("cs", 3, "3 události nepřišly (#5-#7)"),
        ("cs", 5, "5 událostí nepřišlo (#5-#9)"),
        ("de", 2, "2 Ereignisse kamen nicht an (#5-#6)"),
        ("ru", 1, "1 событие не пришло (#5)"),
        ("ru", 3, "3 события не пришли (#5-#7)"),
        ("ru", 5, "5 событий не пришло (#5-#9)"),
    ],
)
def test_the_last_gap_reads_in_each_language_with_its_plural(locale, count, said):
    """The line of a gap where no attempt is left (the next says so)."""
    from rollbridge.cli.reconnect import gap_text

    assert gap_text((1, 4), (1, 5 + count), locale, then="last") == said
