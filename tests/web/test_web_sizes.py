"""The web view at the sizes people read it at, in real headless Chromium against a
real server: browser/sizes.mjs runs one case per test (RB_CASE) and this judges
how the pages were laid out.

- the browser's font size (a phone's large text, a reader's setting) sets the
  page's: it was fixed at 15 px, so doubling it changed nothing but the statistics'
  columns, which then made a 360 px phone scroll sideways;
- a phone zoomed in to 200 % (180 CSS px) does not scroll sideways;
- a desktop window of 920 px did (the three columns need 979 px): two there (the
  table across the top, the log and the forms under it side by side).

Needs what tests/web/test_web_browser.py needs; skipped without chromium.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from rollbridge.offline import TableService
from tests.web.test_web_browser import CHROMIUM
from tests.web.test_web_phone import run_case

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM}")


def fits(shown: dict) -> None:
    """Nothing of the page past the screen's right edge, no text over a control."""
    assert shown["page"] <= shown["screen"] and shown["wider"] == [], shown
    assert shown["overlaps"] == [], shown["overlaps"]


async def test_large_text_is_large_and_fits_a_phone(web_world):
    result = await run_case(web_world, "large", "sizes.mjs")
    for table in ("web", "wild"):
        normal, large, sideways = (result[table][k] for k in ("normal", "large", "sideways"))
        assert normal["screen"] == 360 and normal["font"] == 15, normal
        fits(normal)
        # the text doubled with the browser's font size; the screen is still 360 px
        assert large["font"] == 30 and large["screen"] == 360, large
        fits(large)
        assert sideways["screen"] == 740, sideways
        fits(sideways)
    assert result["join"]["font"] == 30 and result["join"]["screen"] == 360, result["join"]
    fits(result["join"])


async def test_a_phone_zoomed_in_does_not_scroll_sideways(web_world):
    result = await run_case(web_world, "zoomed", "sizes.mjs")
    zoomed = result["zoomed"]
    assert zoomed["screen"] == 180, zoomed
    fits(zoomed)


async def test_a_narrow_desktop_window_does_not_scroll_sideways(web_world):
    result = await run_case(web_world, "window", "sizes.mjs")
    fits(result["narrow"])
    fits(result["wide"])
    assert result["columns"] == 3  # a laptop's full window: three columns still


#: A table's name of one word, longer than a phone's screen is wide.
LONG_NAME = "Donaudampfschifffahrtsgesellschaftskapitänsmützenrunde"


async def test_a_tables_long_name_does_not_widen_a_phone(web_world):
    """A table named with one long word (a German compound) widened a 360 px phone's
    page to 605 px: the top bar's heading kept the whole word on its line, and the
    phone zoomed out to show it (the page scrolled sideways once zoomed in). The
    heading now breaks it."""
    service = TableService(web_world.server.store, web_world.server.host)
    _, tokens = service.create_table(LONG_NAME, "sr2", table_id="long")
    world = replace(web_world, tokens={**web_world.tokens, "long": tokens})
    result = await run_case(world, "longName", "sizes.mjs")
    assert result["longName"]["screen"] == 360, result["longName"]
    fits(result["longName"])
