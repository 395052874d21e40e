"""What the web view tells a screen reader, and marks in its log, in real headless
Chromium against a real server (browser/told.mjs, one case per test).

- Another's secret event that came while the player's own request waited for its
  reply (a slow line) was told to a screen reader only once that reply came, after
  the events that came behind it — even at a table whose GM approves nothing first,
  where no reply can name a secret event as the player's. It is told at once there.
  Where the GM approves players' requests first, the placeholder may be the
  request's own, or another player's request waiting (neither a secret): the lines
  wait for the reply and are told in the order their events came, the placeholder as
  what it may be (a secret, or a request waiting for the GM), the request's own not
  at all.
- The line beside a player's form said the result of an event the GM undid while the
  page was away — loaded anew past the 200 events it reads, or back from a resume the
  server could not recover — as it was when the page last saw it. The page now asks
  the server (``state``'s ``undone``) and says the GM undid it.

Needs what tests/web/test_web_browser.py needs; skipped without chromium.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.web.conftest import WebWorld, served_world
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
    assert_told_as_either_after_the_reply(await run_case(web_world, "approval", script="told.mjs"))


def assert_told_as_either_after_the_reply(result: dict) -> None:
    """At a table whose GM approves players' requests first, a player's page cannot
    tell the GM's secret roll from another player's request waiting for the GM (the
    server sends both as the same placeholder), and may not tell it from the roll's
    own until its reply: nothing told while the roll waits; then the placeholder, as
    its entry says it — *secret, or a request waiting for the GM* (a request is no
    secret) — and the open roll, in the order they came, and the roll's own
    placeholder not at all (web21's order; web25 told the placeholder never, so the
    GM's secret roll, in every page's log, was never heard there: rev25w)."""
    assert result["held"] == [], result
    after = result["after"]
    assert len(after) == 2, result
    assert after[0] == said("ru", "Log.HiddenOrAsked"), result
    assert "in the open" in after[1], result
    assert not [line for line in after if line.startswith(secret_line())], result
    assert said("ru", "Log.HiddenOrAsked") in result["hidden"], result


async def test_another_players_request_waiting_is_told_as_either_after_the_reply(web_world):
    """Two players' pages at once at a table with approval: the other's roll, waiting
    for the GM, reaches this phone as the placeholder while its own roll waits: told
    after the reply as what it may be, a secret or a request (it was told as a secret,
    then not at all), then the GM's open roll behind it; the phone's own never."""
    assert_told_as_either_after_the_reply(
        await run_case(web_world, "anotherPlayer", script="told.mjs")
    )


@pytest.fixture
async def narrow_world(tmp_path) -> AsyncIterator[WebWorld]:
    """As ``web_world``, with 128 KiB unsent a client (``buffer_limit``): a resume whose
    missed events pass half of it is answered with the table as it is now."""
    async with served_world(tmp_path, server_options={"buffer_limit": 128 * 1024}) as world:
        yield world


def assert_said_undone(result: dict) -> None:
    """Both lines of the attack, as the page says them now, say the GM undid it (they
    said its result)."""
    assert result["undo"]["status"] == "done", result["undo"]
    assert result["attack"]["action"], result
    undone = re.escape(said("ru", "Message.Undone", line="LINE")).replace("LINE", ".+")
    assert re.fullmatch(undone, result["after"]["action"], re.S), result
    assert result["answered"] is True, result
    if result["attack"]["message"]:  # the message line says a done action's result not
        assert re.fullmatch(undone, result["after"]["message"], re.S), result


async def test_an_undo_older_than_the_log_a_reloaded_page_reads_is_said(web_world):
    result = await run_case(web_world, "reloadPast", script="told.mjs")
    assert result["history"] == 200, result
    assert_said_undone(result)


async def test_an_undo_missed_by_a_resume_the_server_could_not_recover_is_said(narrow_world):
    result = await run_case(narrow_world, "resumedPast", script="told.mjs")
    assert result["welcomes"][-1] == {"recovered": False, "missed": 0, "reason": "too_far_behind"}
    assert_said_undone(result)


async def test_a_resume_the_server_recovered_asks_nothing_of_state(web_world):
    """The events missed are resent, the undo among them: the page says it from them
    and asks nothing of ``state`` (a read of the log for each page back, all of them
    at once after a server's restart), as docs/web.md says: it asks after a resume
    the server could not recover alone."""
    result = await run_case(web_world, "resumedRecovered", script="told.mjs")
    assert result["welcomes"][-1]["recovered"] is True, result["welcomes"]
    assert result["asked"] == 0, result
    result["answered"] = True  # nothing asked: the resent undo says it
    assert_said_undone(result)
