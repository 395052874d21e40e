"""The web view and the stream overlay when a player at the table is hostile, in
real headless Chromium against a real server: browser/hostile.mjs has the player
send, over the protocol, rolls whose labels are HTML and script, 200 letters
without a space, zero-width characters, right-to-left text and a letter under a
pile of combining marks, and rolls of 999 dice and of compounding chains; the GM's
page on a laptop, an observer's on a 360×740 phone and the overlay are read. No
label runs as HTML, none makes another page throw or scroll sideways.

Needs what tests/web/test_web_browser.py needs; skipped without chromium.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.web.test_web_browser import CHROMIUM
from tests.web.test_web_phone import run_case

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM}")

#: What a hostile player labels rolls with (each at most 200 characters, as the
#: protocol takes: a longer one, or one with a bidirectional control, is refused).
SCRIPT = "<script>alert(1)</script><img src=x onerror=alert(2)>"
LONG = "W" * 200
ZERO_WIDTH = "\u200b".join("Zero") * 40
RIGHT_TO_LEFT = "\u0645\u0631\u062d\u0628\u0627 123"
STACKED = "Z" + "\u0336\u0301\u0300\u0302\u0303\u0304\u0305\u0306\u0307\u0308" * 19
#: One letter under 150 enclosing marks (U+0489, each drawn around it, wider):
#: one grapheme, which no line can break.
ENCLOSED = "e" + "\u0489" * 150
LABELS = [SCRIPT, LONG, ZERO_WIDTH[:200], RIGHT_TO_LEFT, STACKED, ENCLOSED]


async def test_a_hostile_players_labels_are_text_and_break_no_ones_page(web_world):
    """One letter under 150 enclosing marks, a grapheme no line can break, was drawn
    400 px out of its log line: over the forms' column of the GM's page, which
    scrolled sideways. It is cut at the line's box."""
    result = await run_case(
        web_world, "table", "hostile.mjs", extra={"RB_LABELS": json.dumps(LABELS)}
    )
    assert result["replies"] == ["done"] * (len(LABELS) + 3), result["replies"]
    for name in ("gm", "phone"):
        page = result[name]
        assert page["parsed"] == 0, (name, page)  # no label became an element
        assert page["page"] <= page["screen"] and page["sideways"] == [], (name, page)
        assert page["spills"] == [], (name, page)
        assert page["entries"] == len(LABELS) + 3, (name, page)
        # 1d1000!!>1: one die compounding 504 times, "730+254+…", 1,957 characters
        # without a break: it wraps in its box, not drawn out of it (nor cut)
        assert page["dice"] == [], (name, page["dice"])
        assert any(SCRIPT in text for text in page["texts"]), (name, page["texts"])
        # a right-to-left label is isolated from the roll's numbers beside it
        assert any(f"\u2068{RIGHT_TO_LEFT}\u2069" in text for text in page["texts"]), name


async def test_a_hostile_players_requests_wait_for_the_gm_as_text(web_world):
    """At a table whose players' requests wait for the GM, each label is in the GM's
    list as text, on a laptop and on a phone: nothing wider than the screen, nothing
    drawn out of its panel."""
    result = await run_case(
        web_world, "pending", "hostile.mjs", extra={"RB_LABELS": json.dumps(LABELS)}
    )
    assert result["replies"] == ["pending"] * len(LABELS), result["replies"]
    for name in ("gm", "phone"):
        page = result[name]
        assert page["parsed"] == 0 and page["page"] <= page["screen"], (name, page)
        assert page["sideways"] == [] and page["spills"] == [], (name, page)
        assert any(SCRIPT in line for line in page["asked"]), (name, page["asked"])


async def test_a_hostile_players_label_stays_on_the_streams_scene(web_world):
    """A label of 200 letters without a space ran 2,200 px past the right edge of a
    1280 px overlay (the page 3,495 px wide): the overlay set no word breaking. A
    name of 200 letters widened the actors' corner past the scene's left edge."""
    result = await run_case(
        web_world, "overlay", "hostile.mjs", extra={"RB_LABELS": json.dumps(LABELS)}
    )
    for label, page in result["shown"].items():
        assert page["parsed"] == 0, (label, page)
        assert page["page"] <= page["screen"], (label, page)
        assert page["dice"] == [], (label, page["dice"])
    # the overlay's line joins the roller's name and the label: a right-to-left label
    # is isolated, so it cannot reorder the name before it
    (line,) = result["shown"][RIGHT_TO_LEFT[:20]]["texts"]
    assert line.endswith(f" — \u2068{RIGHT_TO_LEFT}\u2069"), line
    # the actors' corner stays a corner: on the scene, at most a third of it
    corner = result["corner"]
    assert corner["left"] >= 0 and corner["width"] <= corner["screen"] / 3, corner
