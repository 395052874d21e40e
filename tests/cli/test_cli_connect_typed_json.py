"""``rollbridge connect`` reads a ``key=value``'s value as JSON where it is JSON
(its help: ``assume=JSON``, parameters "JSON or text"), but it read each word as a
shell does, which takes double quotes off: ``assume={"guard":{"sheet":{"hp":9}}}``
reached the server as the text ``{guard:{sheet:{hp:9}}}``, and a player following
the server's own word (``odds_hidden``: "state it in assume.guard.sheet") was told
``odds.assume: must be of type object, not string`` (the walk of a sixth ruleset
from docs/plugins.md). A map or a list typed as JSON is sent as it was typed now (with
spaces in it too, as ``json.dumps`` writes it: one value, where they split it into
words not key=value before); one quoted whole (``assume='{"guard": {}}'``) as
before; a word that is no JSON stays text."""

from __future__ import annotations

import pytest

from rollbridge.cli.terminal import parse_command
from tests.cli.test_cli_reconnect import Terminal
from tests.server.conftest import make_tables  # noqa: F401  (a fixture)

ASSUMED = {"guard": {"sheet": {"hp": 9}, "state": {}}}


@pytest.mark.parametrize(
    ("line", "field", "value"),
    [
        ('odds hit actor=ana target=guard assume={"guard":{"sheet":{"hp":9},"state":{}}}',
         "assume", ASSUMED),
        ("odds hit actor=ana assume='{\"guard\": {\"sheet\": {\"hp\": 9}, \"state\": {}}}'",
         "assume", ASSUMED),
        ('do move modifiers=[{"label":"cover","value":1}] x=1', "modifiers",
         [{"label": "cover", "value": 1}]),
        ('do move a={"n":1} b={"n":2}', "b", {"n": 2}),
        # typed with spaces, as json.dumps writes it: one value, not the words the
        # spaces split it into (refused "'{sheet:' is not key=value" before)
        ('odds hit actor=ana target=guard assume={"guard": {"sheet": {"hp": 9}, "state": {}}}',
         "assume", ASSUMED),
        ('do move a=[1, 2] b={"n": "x y", "m": [3, 4]} c=5', "b", {"n": "x y", "m": [3, 4]}),
        ('do move a=[1, 2] b={"n": "x y", "m": [3, 4]} c=5', "c", 5),
        ("do move label=[draft]", "label", "[draft]"),
        ("do move note={x}", "note", "{x}"),
    ],
)  # fmt: skip
def test_a_value_typed_as_json_is_sent_as_json(line, field, value):
    message = parse_command(line, "r1")
    sent = message["assume"] if field == "assume" else message["params"][field]
    assert sent == value, message


async def test_a_players_assumption_reaches_the_server_as_a_map(make_tables):  # noqa: F811
    world = await make_tables()
    terminal = await Terminal.player(world, "--locale", "en")
    try:
        await terminal.until("type help")
        await terminal.type(
            'odds hit actor=ana target=guard assume={"guard":{"sheet":{"hp":9},"state":{}}}'
        )
        line = await terminal.until("!")  # tally gives no odds: refused, but not the type
        await terminal.type(
            'odds hit actor=ana target=guard assume={"guard": {"sheet": {"hp": 9}, "state": {}}}'
        )
        spaced = await terminal.until("!")
        await terminal.type("quit")
        await terminal.end()
    finally:
        await terminal.stop()
    assert "not string" not in line and "odds.assume" not in line, line
    assert spaced == line, (spaced, line)  # not "'{sheet:' is not key=value"
