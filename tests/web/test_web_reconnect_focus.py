"""Where the focus goes once *Reconnect now* is gone, in real headless Chromium against
a real server (browser/reconnect_focus.mjs): a Czech player's phone loses its network,
goes to *Reconnect now* by keyboard and presses it, and the network comes back. The
button, hidden once the page was connected again, took the focus with it to the page's
body: a keyboard or a screen reader started again from the top of the page. The focus
goes to the table's heading now, as after joining, and the live region says the line
is back."""

from __future__ import annotations

from tests.web.test_web_away import said
from tests.web.test_web_browser import CHROMIUM, pytestmark  # noqa: F401
from tests.web.test_web_phone import run_case


async def test_the_focus_stays_on_the_table_once_reconnect_is_gone(web_world):
    result = await run_case(web_world, "back", script="reconnect_focus.mjs")
    assert result["pressed"] == "reconnect", result
    assert result["back"] == {"focused": "title", "reconnectHidden": True}, result
    heard = [said("cs", "Connection.Offline"), said("cs", "Announce.Restored")]
    assert result["told"] == heard, result
