"""``rollbridge connect`` marks the GM's own view of a secret event (review
plugins-22's closing note): the GM's line of a secret roll read as any public roll's,
so a GM could not tell what players saw of it (only ``#N hidden``). The GM's view
carries ``"gm_only": true`` (docs/protocol.md, "Visibility"), and the terminal says
under the event's line that it is secret, in the terminal's language; a public
roll gets no such line. A real server, a real ``rollbridge connect`` process."""

from __future__ import annotations

import pytest

from tests.cli.test_cli_reconnect import Terminal
from tests.server.conftest import make_tables  # noqa: F401  (a fixture)

SAID = {
    "en": "(secret: players see only that something happened)",
    "de": "(geheim: Spieler sehen nur, dass etwas geschehen ist)",
    "cs": "(tajné: hráči vidí jen, že se něco stalo)",
    "ru": "(секретно: игроки видят лишь, что что-то произошло)",
}


@pytest.mark.parametrize("locale", sorted(SAID))
async def test_the_gms_line_of_a_secret_roll_says_it_is_secret(make_tables, locale):  # noqa: F811
    world = await make_tables()
    url = f"{world.server.url}tables/tally"
    gm = await Terminal.start(url, world.tokens["tally"]["gm"], "--locale", locale)
    try:
        await gm.until("help")
        await gm.type('json {"type": "roll", "id": "open", "formula": "1d6+100"}')
        await gm.type('json {"type": "roll", "id": "hid", "formula": "1d6+200", "secret": true}')
        await gm.type('json {"type": "roll", "id": "last", "formula": "1d6+300"}')
        await gm.until("30")  # the last roll's line (its total, 301 to 306)
    finally:
        await gm.stop()
    lines = [line.rstrip("\n") for line in gm.lines]
    public = next(i for i, line in enumerate(lines) if "1d6" in line and "+ 100" in line)
    secret = next(i for i, line in enumerate(lines) if "1d6" in line and "+ 200" in line)
    assert lines[secret + 1] == "  " + SAID[locale], "\n".join(lines)
    assert lines.count("  " + SAID[locale]) == 1, "\n".join(lines)
    assert SAID[locale] not in lines[public + 1], "\n".join(lines)
