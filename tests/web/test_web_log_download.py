"""A player on the web page gets the table's log to verify, in real headless
Chromium against a real server (browser/log_download.mjs).

The page showed the log but had no way to take it home: the export needs the token
in the Authorization header, so a plain link cannot fetch it, and a player without
``rollbridge connect`` had no file for ``rollbridge verify``. The log panel now has a
*Download the log* button and a line saying how to check the file, in the page's
language. Needs what tests/web/test_web_browser.py needs; skipped without chromium.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from rollbridge.cli import main
from tests.web.test_web_browser import CHROMIUM
from tests.web.test_web_i18n import catalog
from tests.web.test_web_phone import run_case

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM}")

FILE = "web-player.jsonl"


def _line(lang: str, key: str = "ROLLBRIDGE.Web.Log.Verify") -> dict:
    texts = catalog(lang)
    return {
        "hidden": False,
        "button": texts["ROLLBRIDGE.Web.Log.Download"],
        "hint": texts[key].replace("{file}", FILE),
    }


async def test_a_player_downloads_the_log_and_rollbridge_verify_checks_it(web_world, tmp_path):
    """On a Czech phone, after a roll at a table with verifiable dice and the GM's
    reveal: the button saves the export as web-player.jsonl, the line beside it says
    to run rollbridge verify on that file, and it verifies, the roll's dice too."""
    saved = tmp_path / "saved.jsonl"
    result = await run_case(web_world, "download", "log_download.mjs", {"RB_SAVE": str(saved)})
    assert "failed" not in result, result["failed"]
    # before the GM turned verifiable dice on, the line promised the dice a check no
    # reveal would ever come for (verify says "no verifiable dice in this log")
    assert result["unverifiable"] == _line("cs", "ROLLBRIDGE.Web.Log.VerifyActions"), result
    assert result["verifiable"]["type"] == "result", result["verifiable"]
    assert result["revealed"]["type"] == "result", result["revealed"]
    assert result["before"] == _line("cs") == result["after"], result
    assert result["name"] == FILE
    assert result["fetched"] and all("token" not in url for url in result["fetched"])
    welcome, *events = [json.loads(line) for line in saved.read_text().splitlines()]
    assert welcome["type"] == "welcome" and welcome["role"] == "player"
    kinds = [event["kind"] for event in events]
    assert "roll" in kinds and "dice.revealed" in kinds, kinds
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["verify", str(saved), "--json"])
    report = json.loads(out.getvalue())
    assert status == 0 and report["ok"], (report, err.getvalue())
    assert report["verified_events"] >= 1 and report["verified_dice"] >= 4, report  # the roll
    # the keyboard alone, the export held: the button keeps the focus while it waits,
    # aria-disabled (read as unavailable), never disabled (which dropped the focus to
    # the page's body); Enter again fetched nothing more; then the button is free
    keyboard = result["keyboard"]
    waiting = {"unavailable": True, "disabled": False, "focused": True}
    assert keyboard["waiting"] == waiting == keyboard["again"], keyboard
    assert keyboard["held"] == keyboard["fetched"] == 1, keyboard
    assert keyboard["after"] == {"unavailable": False, "disabled": False, "focused": True}, keyboard
    for lang in ("en", "de", "ru"):  # the line as pages in the other languages show it
        assert result["languages"][lang] == _line(lang), (lang, result["languages"][lang])
