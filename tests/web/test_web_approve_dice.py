"""The GM approves a request with the GM's own dice on the web view, in real headless
Chromium against a real server over a real SQLite file (browser/approve_dice.mjs).

A player's request with their own dice, held for the GM's approval while an upgrade
made its action always secret, is refused at an approval without the GM's dice
(``held_dice_secret``: docs/protocol.md, ``dice``); ``rollbridge connect`` could send
them (``approve p12 supply=…``), the web view's *Approve* could not, so its GM could
only reject it. The GM's card has *With my dice…*: a field for the die results in
order, and its own button (or Enter) approves with them.

Needs what tests/web/test_web_browser.py needs; skipped without chromium.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.plugins.listener import Listener
from tests.plugins.test_secret_action_upgrade import held_before_upgrade
from tests.plugins.test_secret_actions import listener_host
from tests.web.conftest import serving
from tests.web.test_web_away import said
from tests.web.test_web_browser import CHROMIUM
from tests.web.test_web_phone import run_case

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM}")


async def test_the_gm_approves_a_held_request_with_their_own_dice(tmp_path):
    path = tmp_path / "night.db"
    tokens, pending = held_before_upgrade(path)
    async with serving(path, listener_host(Listener()), {"night": tokens}) as world:
        result = await run_case(world, "dice", script="approve_dice.mjs",
                                extra={"RB_PENDING": pending})  # fmt: skip
        table = world.store.load("night")[0]
    # closed until asked for
    assert result["before"] == {"open": "false", "hidden": True}, result["before"]
    # Approve without dice: refused, said in the GM's language (German) on the message
    # line and beside the request, whose dice field opened; the request still waits
    refused = result["refused"]
    words = said("de", "Message.HeldDice", pending=pending)
    assert refused["message"] == words and refused["beside"] == words, refused
    assert refused["code"] == "held_dice_secret", refused
    assert refused["open"] == "true" and refused["still"] == 1, refused
    assert refused["label"] == said("de", "Field.GmDice"), refused
    assert refused["sent"] == [{"request": pending}], refused
    # a word that is no die, 1,001 dice and nothing: each said in the page's words,
    # naming what is wrong (each said *whole numbers from 1 up*), nothing sent; the
    # 1,001 dice pasted whole (the field cut them at 4,000 characters: 667 dice, and
    # those were sent)
    no_die = said("de", "Field.NotADie", word="neun")
    assert result["notDice"] == {"beside": no_die, "sent": 1}, result
    many = said("de", "Field.TooManyDice", max="1000")
    assert result["tooMany"] == {"beside": many, "sent": 1, "kept": 1_001 * 6 - 2}, result
    assert result["nothing"] == {"beside": said("de", "Field.NotDice"), "sent": 1}, result
    # the die 9 with Enter: approved with it, the GM's secret result in the log
    approved = result["approved"]
    assert approved["sent"][1:] == [{"request": pending, "dice": [9]}], approved
    assert approved["code"] == "" and approved["secret"] is True, approved
    assert pending not in table.pending
