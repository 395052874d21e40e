"""A table played on phones over a slow line, with a screen reader's eye, in real
headless Chromium against a real server over a real SQLite file
(browser/slow_table.mjs): at a table of each ruleset whose GM approves players'
requests first, a German GM's phone, a Czech player's phone on a slow 3G line (the
DevTools protocol's ``Network.emulateNetworkConditions``) and a Russian player's
phone; the Czech player's action approved, its line lost while the GM undoes it, the
Russian phone reloaded and turned English, the server restarted (same file, same
port), the Czech phone reloaded on its slow line.

The German GM's list of requests waiting, the log's line of the request and what its
live region was told named the player by the token's name alone — *p4: player —
Aktion …*, *p4: player bittet um …*, the wire's word, where the log's rejection of it
says *Spieler*. They name the requester as the log names who made an event now.

Needs what tests/web/test_web_browser.py needs; skipped without chromium.
"""

from __future__ import annotations

import pytest

from tests.web.test_web_away import said
from tests.web.test_web_browser import CHROMIUM, pytestmark  # noqa: F401
from tests.web.test_web_i18n import catalog
from tests.web.test_web_phone_night import looks_right, walk

#: Each page's language: the GM's, the slow Czech phone's, the other player's.
LANGS = {"gm": "de", "slow": "cs", "other": "ru"}


def role(lang: str, name: str) -> str:
    """The role ``name`` in ``lang``'s words (``ROLLBRIDGE.Role.*``)."""
    return str(catalog(lang)[f"ROLLBRIDGE.Role.{name}"])


def connection(lang: str, state: str) -> str:
    """The connection's state ``state`` in ``lang``'s words (``ROLLBRIDGE.Connection.*``)."""
    return str(catalog(lang)[f"ROLLBRIDGE.Connection.{state}"])


@pytest.mark.parametrize("ruleset", ["sr2", "techlevel", "bandits", "wilddie"])
async def test_a_table_on_phones_over_a_slow_line(tmp_path, ruleset):
    result = await walk(tmp_path, "slow", {"RB_TABLE": ruleset}, script="slow_table.mjs")
    # every control has a name, nothing past the screen's edge, no machinery
    for who, reader in result["joined"]["reader"].items():
        assert reader["unnamed"] == [] and reader["status"] == "connected", (who, reader)
    for step in ("joined", "approved", "lost", "back"):
        for looks in result[step]["looks"].values():
            looks_right(looks)
    # the Tab key goes through seen controls only, and more than a handful of them
    tab = result["tab"]
    assert len(tab) > 5 and all(at["seen"] for at in tab), tab
    # the GM's list, log and live region name the requester in German (said *player*)
    asked = result["asked"]
    pending, player = asked["pending"], role("de", "player")
    assert asked["item"].startswith(f"{pending}: {player} — "), asked
    assert asked["entry"].startswith(f"{pending}: {player} "), asked
    assert any(line.endswith(asked["entry"]) for line in asked["told"]), asked
    # the Czech phone's own result on its message line; the other phone told it in Russian
    approved, action = result["approved"], said("ru", "Kind.Resolution")
    yours = said("cs", "Message.Approved", result="")
    assert approved["reader"]["message"].startswith(yours), approved
    assert [line for line in approved["told"]["other"] if line.startswith(f"{action}: ")], approved
    # the line lost and back: told so in Czech, and the GM's undo heard once it was back
    lost = result["lost"]
    offline, restored = said("cs", "Connection.Offline"), said("cs", "Announce.Restored")
    assert lost["told"][0] == offline and lost["told"].count(restored) == 1, lost
    undo = said("cs", "Log.Undo", seq="", kind="").split("#")[0]
    assert [line for line in lost["told"] if line.startswith(undo)], lost
    assert lost["reader"]["status"] == "connected", lost
    # reloaded, and in English: joined, named, nothing odd
    for step in ("reloaded", "english", "slowReload"):
        assert result[step]["reader"]["status"] == "connected", (step, result[step])
        assert result[step]["reader"]["unnamed"] == [], (step, result[step])
        looks_right(result[step]["looks"])
    # the restart: each page told once that the line broke and once that it is back,
    # each in its own language (the other phone's now English)
    assert result["restarted"] is True, result
    langs = {**LANGS, "other": "en"}
    for who, told in result["back"]["told"].items():
        lang = langs[who]
        waiting, back = connection(lang, "waiting"), said(lang, "Announce.Restored")
        assert told.count(waiting) == 1 and told.count(back) == 1, (who, told)
