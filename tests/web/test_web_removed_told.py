"""An actor added and one removed on its turn, told to a screen reader, in real
headless Chromium against a real server (browser/removed_told.mjs): at the sr2 table a
Russian GM's phone starts the encounter and passes the turn to Rook, then removes Rook
and adds Scout over the protocol (as Foundry does). The live regions of the GM's, a
Czech player's, a German observer's and an English player's pages told nothing of
either — the card came or went in silence — and the removal passed the turn to Guard A
unheard. Each is told now, the removal with whose turn it is now, in each page's
language."""

from __future__ import annotations

import json

from rollbridge.host import PluginHost
from tests.web.test_web_away import said
from tests.web.test_web_browser import CHROMIUM, pytestmark  # noqa: F401
from tests.web.test_web_phone import run_case


async def test_an_actor_added_and_one_removed_on_its_turn_are_told(web_world):
    sheet = PluginHost().rulesets["sr2"].example_sheets["Guard A"]
    extra = {"RB_SHEET": json.dumps(sheet)}
    result = await run_case(web_world, "removed", script="removed_told.mjs", extra=extra)
    for lang in ("ru", "cs", "de", "en"):
        shown = result[lang]
        assert shown["current"] == "guard-a", (lang, shown)
        turn = said(lang, "Log.Turn", round="1", actor="Guard A")
        removed = f"{said(lang, 'Kind.ActorRemoved')}: Rook — {turn}"
        added = f"{said(lang, 'Kind.ActorCreated')}: Scout"
        assert shown["told"].count(removed) == 1, (lang, shown)
        assert shown["told"].count(added) == 1, (lang, shown)
