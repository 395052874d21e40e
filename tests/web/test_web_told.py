"""What the web view tells a screen reader, and marks in its log, in real headless
Chromium against a real server (browser/told.mjs, one case per test).

- Another's secret event that came while the player's own request waited for its
  reply (a slow line) was told to a screen reader only once that reply came, after
  the events that came behind it — even at a table whose GM approves nothing first,
  where no reply can name a secret event as the player's. It is told at once there;
  where the GM approves players' requests first, the lines wait for the reply (the
  placeholder may be the request's own, which is not to be heard as a secret) and
  are told in the order their events came.

Needs what tests/web/test_web_browser.py needs; skipped without chromium.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.web.test_web_away import said
from tests.web.test_web_browser import CHROMIUM
from tests.web.test_web_phone import run_case

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM}")


def secret_line() -> str:
    """The line a screen reader is told of the GM's secret roll begins with: the
    placeholder's kind in Russian."""
    return said("ru", "Kind.Hidden")


async def test_a_secret_event_is_told_at_once_while_a_roll_waits_at_a_table_without_approval(
    web_world,
):
    result = await run_case(web_world, "noApproval", script="told.mjs")
    held = result["held"]
    assert len(held) == 2, result
    assert held[0].startswith(secret_line()), result
    assert "in the open" in held[1], result
    # the roll's own result after, once its reply came; the secret told once
    assert result["after"][:2] == held, result
    assert sum(line.startswith(secret_line()) for line in result["after"]) == 1, result


async def test_a_secret_event_while_a_roll_waits_for_approval_is_told_in_order_after_its_reply(
    web_world,
):
    result = await run_case(web_world, "approval", script="told.mjs")
    # the placeholder may be the roll's own until its reply names it: nothing yet
    assert result["held"] == [], result
    after = result["after"]
    # then both, in the order they came; the roll's own placeholder is not told
    assert len(after) == 2, result
    assert after[0].startswith(secret_line()), result
    assert "in the open" in after[1], result
