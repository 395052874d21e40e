"""What `rollbridge connect` prints for a reply that holds no event — a secret result
or a request waiting for the GM's approval — in the terminal's language. A real
`rollbridge connect` process against the tests' in-process server."""

from __future__ import annotations

import re

import pytest

from tests.cli.test_cli_reconnect import _SECRET, Terminal
from tests.server.conftest import make_tables  # noqa: F401  (a fixture)

#: Each language's lines for the secret roll and the request held for approval.
LINES = {
    "en": (
        "= again: secret: sent to the GM only",
        "= held: pending p{seq}: waiting for the GM's approval (table setting approval)",
    ),
    "de": (
        "= again: secret: nur an den Spielleiter gesendet",
        "= held: pending p{seq}: wartet auf die Freigabe des Spielleiters (Tischeinstellung "
        "approval)",
    ),
    "cs": (
        "= again: secret: posláno jen PJ",
        "= held: pending p{seq}: čeká na schválení PJ (nastavení stolu approval)",
    ),
}


@pytest.mark.parametrize("locale", sorted(LINES))
async def test_a_reply_without_an_event_says_what_it_means(make_tables, locale):  # noqa: F811
    """A German player's terminal printed "= held: pending p4" and nothing more: an
    English status word, where `resolve` says "pending: wartet auf die Freigabe des
    Spielleiters …". The status code stays as it is (scripts read it); the line goes on
    with what it means in the terminal's language."""
    world = await make_tables()
    gm = await Terminal.start(
        f"{world.server.url}tables/tally", world.tokens["tally"]["gm"], "--locale", locale
    )
    player = await Terminal.player(world, "--locale", locale)
    try:
        await player.until("help")
        await player.type(_SECRET)
        secret = await player.until("= again:")
        await gm.until(" gm")
        await gm.type('json {"type": "settings", "id": "on", "settings": {"approval": true}}')
        await gm.until("#4 ")  # the settings' event (after the secret roll's): approval is on
        await player.type('json {"type": "roll", "id": "held", "formula": "1d6"}')
        held = await player.until("= held:")
    finally:
        await gm.stop()
        await player.stop()
    said, waiting = LINES[locale]
    assert secret.rstrip("\n") == said, secret
    seq = re.search(r"pending p(\d+):", held)
    assert seq is not None and held.rstrip("\n") == waiting.format(seq=seq[1]), held
