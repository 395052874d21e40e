"""A GM's ``rollbridge connect`` said what a player's request waiting for approval
asks, and its name for ``approve`` (``p12``), only in the event a GM connected then
was sent: a GM who joined afterwards — or typed ``state`` — read the table's actors
and nothing of the request, though the welcome and the state's table list it
(``pending``, the GM's), and could not name it (the walk of a sixth ruleset from
docs/plugins.md, "Trying it live": a player's request at a table with approval,
the GM's terminal opened after it). It prints each one now, who asked and what, with
its name; a player's terminal prints none (its table holds none). A real server,
real ``rollbridge connect`` processes."""

from __future__ import annotations

from tests.cli.test_cli_reconnect import Terminal
from tests.server.conftest import make_tables  # noqa: F401  (a fixture)


async def test_a_gm_joining_after_a_players_request_reads_it_and_its_name(make_tables):  # noqa: F811
    world = await make_tables()
    gm, _ = await world.join("tally", "gm")
    done = await gm.request({"type": "settings", "settings": {"approval": True}})
    assert done["type"] == "result", done
    player, _ = await world.join("tally", "player")
    held = await player.request(
        {"type": "resolve", "action": "hit", "actor": "ana", "targets": ["guard"]}
    )
    assert held["status"] == "pending", held
    name = held["pending"]
    url = f"{world.server.url}tables/tally"
    terminal = await Terminal.start(url, world.tokens["tally"]["gm"], "--locale", "en")
    try:
        waits = await terminal.until("waiting for the GM's approval")
        asks = await terminal.until("asks for")
        await terminal.until("type help")
        await terminal.type("state")
        again = await terminal.until("waiting for the GM's approval")
        await terminal.type(f"approve {name}")
        await terminal.until("resolution by player")
        await terminal.type("quit")
        await terminal.end()
    finally:
        await terminal.stop()
    said = f"waiting for the GM's approval: {name}, asked by player"
    assert waits.strip() == again.strip() == said
    assert asks.strip() == (
        f"asks for resolve hit (Ana) → Guard: approve {name}, or reject {name} with a reason"
    )
    mine = await Terminal.player(world, "--locale", "en")
    try:
        await mine.until("type help")
        await mine.type("quit")
        _status, out = await mine.end()
    finally:
        await mine.stop()
    assert "waiting for the GM" not in out and "asks for" not in out, out
