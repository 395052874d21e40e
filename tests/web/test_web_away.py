"""A player away and back, a revoked link, a duplicated tab, and a log too large to
download whole, on the web view in real headless Chromium against a real server
(browser/away.mjs, one case per test).

- A roll waiting for the GM, answered while the phone was away longer than the
  server keeps what it would resend: the page came back to the table as it is now
  and its roll form still said the roll waited; it now asks the server
  (``repeat``) and says the GM's answer.
- A link whose token the GM revoked: the page said the server's English-only
  refusal and went on keeping what it showed for that identity whenever hidden; it
  now says, in the page's language, that the link no longer works and what to do,
  and keeps nothing.
- A duplicated tab: it took what the tab had kept when last hidden (a half-typed
  roll, the line of a roll waiting, the GM's reason) as its own; now what a page
  keeps is removed when it is shown again.
- *Download the log* refused for its size (413) said to ask with ``since``, which the
  page cannot: it now says what the viewer can do and saves the log's latest part.

Needs what tests/web/test_web_browser.py needs; skipped without chromium.
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import urllib.request
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

from rollbridge.cli import main
from rollbridge.server import export_http
from rollbridge.tokens import new_admin_token
from tests.server.conftest import TEST_LIMITS
from tests.web.conftest import WebWorld, served_world
from tests.web.test_web_browser import CHROMIUM
from tests.web.test_web_i18n import catalog
from tests.web.test_web_phone import run_case

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM}")


def said(lang: str, key: str, **data: str) -> str:
    """The page's words ``ROLLBRIDGE.Web.KEY`` in ``lang``, with ``data`` put in."""
    text = catalog(lang)[f"ROLLBRIDGE.Web.{key}"]
    for name, value in data.items():
        text = text.replace("{" + name + "}", value)
    return text


@pytest.fixture
async def short_world(tmp_path) -> Any:
    """As ``web_world``, over a store that keeps three events to resend (``retain``):
    a phone away for more misses what the server can resend."""
    async with served_world(tmp_path, retain=3) as world:
        yield world


@pytest.fixture
async def hasty_world(tmp_path) -> Any:
    """As ``web_world``, with a hello timeout of one second (``--hello-timeout``): a
    connection whose hello has not come by then is closed (1008)."""
    async with served_world(tmp_path, dataclasses.replace(TEST_LIMITS, hello_timeout=1.0)) as world:
        yield world


@pytest.mark.parametrize("case", ["approvedAway", "rejectedAway"])
async def test_an_answer_given_while_the_phone_was_away_is_said(short_world, case):
    """The GM answered the player's roll while the phone's line was down, and the
    table went on past what the server keeps to resend: the page came back to the
    table as it is now (``recovered: false``), and its roll form and message line
    still said the roll waited for the GM. The page now asks the server what became
    of it and says the GM's answer; a language's reload then says no wait either."""
    result = await run_case(short_world, case, script="away.mjs")
    pending = result["pending"]
    assert f"({pending})" in result["waiting"]["roll"], result["waiting"]
    assert result["answer"]["type"] == "result", result["answer"]
    resumed = [welcome["recovered"] for welcome in result["welcomes"][1:]]
    assert resumed == [False], result["welcomes"]
    assert result["left"] is True, result["lines"]
    lines = result["lines"]
    if case == "rejectedAway":
        expected = said("cs", "Message.RejectedReason", reason="Ne dnes")
        assert lines["roll"] == lines["message"] == expected, lines
        german = said("de", "Message.RejectedReason", reason="Ne dnes")
        assert result["german"]["roll"] == german, result["german"]
    else:
        # the event left what the server keeps: the reply from its memory names its seq
        seq = str(result["answer"]["seq"])
        czech, german = (said(lang, "Message.ApprovedAway", seq=seq) for lang in ("cs", "de"))
        assert lines["roll"] == lines["message"] == czech, lines
        assert result["german"]["roll"] == german, result["german"]
    assert result["repeats"] == 1, result


async def test_an_answer_given_while_the_tab_was_discarded_is_said(short_world):
    """The player's roll waited for the GM; the phone discarded the hidden tab (it had
    kept the roll waiting, with its pending id) while the GM approved it and the table
    went on past what the server keeps. Loaded anew, the page's log from before had
    lost the approval too, and its roll form and message line said the roll still
    waited: the page asked the server again only after a reconnect, not after a load,
    though it had kept the request to ask (docs/web.md said a page loaded anew asks
    too). It now asks and says the GM's answer."""
    result = await run_case(short_world, "reloadedAway", script="away.mjs")
    pending = result["pending"]
    assert f"({pending})" in result["waiting"]["roll"], result["waiting"]
    assert result["answer"]["type"] == "result", result["answer"]
    assert result["left"] is True, result["lines"]
    seq = str(result["answer"]["seq"])
    czech = said("cs", "Message.ApprovedAway", seq=seq)
    assert result["lines"]["roll"] == result["lines"]["message"] == czech, result["lines"]
    assert result["repeats"] == 1, result


async def test_a_revoked_link_says_so_and_keeps_nothing(web_world):
    """The GM revoked a player's token while the player's page was open: the page
    showed the server's refusal and went on keeping, whenever hidden, what it showed
    for that identity (its lines and typed roll stayed in the tab). It now says in
    the page's language that the link no longer works and to ask the GM for a new
    one, clears the log, and keeps nothing of it."""
    secret, record = new_admin_token("web-test")
    web_world.store.add_admin_token(record)
    result = await run_case(web_world, "revoked", script="away.mjs", extra={"RB_ADMIN": secret})
    before = result["keptBefore"]
    assert before["token"] and before["lines"] and before["forms"], "the hidden page kept its lines"
    assert result["revoke"] == 200, result
    refused = result["refused"]
    assert refused["message"] == said("cs", "Message.Revoked"), refused
    assert refused["code"] == "unauthorized", refused
    assert result["log"] == 0, result
    nothing = {"token": None, "lines": None, "forms": None}
    assert result["keptRefused"] == nothing, result["keptRefused"]
    assert result["keptAfter"] == nothing, result["keptAfter"]


async def test_a_hello_the_server_did_not_read_in_time_is_no_revoked_link(hasty_world):
    """The phone's line stalled as it reconnected: the server had not read its hello
    within the hello timeout and closed the connection with 1008, the code it also
    closes a revoked token's connection with. The page took that for a revoked link:
    it said the link no longer works and to ask the GM for a new one, cleared the log,
    forgot the token and the roll being typed. The server never read the token: the
    page tries again, and when the line flows it is back at the table, its log and
    draft as they were and its token kept."""
    result = await run_case(hasty_world, "helloUnread", script="away.mjs")
    assert result["logBefore"] > 0, result
    assert result["status"] != "refused", result
    assert result["after"] == "connected", result
    assert result["lines"]["message"] != said("cs", "Message.Revoked"), result["lines"]
    assert result["lines"]["label"] == "rozepsáno", result["lines"]
    assert result["log"] >= result["logBefore"], result
    assert result["kept"]["token"] is not None, result["kept"]
    assert result["joinShown"] is False, result


async def test_a_tab_duplicated_in_the_background_takes_nothing_it_kept(web_world):
    """A tab duplicated while it is in the background (hidden: what the page kept for
    a reload is still in the tab's storage) gave the copy the original's draft, the
    line of its roll waiting, and then the GM's approval of it, as its own. Now the
    copy sees that the page that kept them lives (its Web Lock) and takes none of
    it: it joins as the same Russian player with empty forms; the original, shown
    again, still has its draft and follows its roll alone."""
    result = await run_case(web_world, "hiddenDuplicate", script="away.mjs")
    pending = result["pending"]
    assert result["keptBefore"] is True, result
    assert result["copy"]["roll"] == "" and result["copy"]["label"] == "", result["copy"]
    assert pending not in result["copy"]["message"], result["copy"]
    assert f"({pending})" in result["original"]["roll"], result["original"]
    assert result["original"]["label"] == "недописанный бросок", result["original"]
    approved = said("ru", "Message.Approved", result="")
    assert result["originalAfter"]["roll"].startswith(approved), result["originalAfter"]
    assert result["copyAfter"]["roll"] == "", result["copyAfter"]
    assert not result["copyAfter"]["message"].startswith(approved), result["copyAfter"]


async def test_a_tab_loaded_after_its_page_crashed_takes_what_the_page_kept(web_world):
    """A page whose renderer crashes lets its Web Lock go with it (the browser does):
    a tab holding what the page had kept when hidden, loaded after the crash, is no
    copy of a page still alive, and takes the roll typed and the roll waiting, and
    says the GM's approval. (Untested before: the DevTools protocol's ``Page.crash``
    seemed to hang; its reply never comes, the page's crash event does.)"""
    result = await run_case(web_world, "crashed", script="away.mjs")
    pending = result["pending"]
    assert result["keptBefore"] is True, result
    assert f"({pending})" in result["next"]["roll"], result["next"]
    assert result["next"]["label"] == "недописанный бросок", result["next"]
    approved = said("ru", "Message.Approved", result="")
    assert result["nextAfter"]["roll"].startswith(approved), result["nextAfter"]


async def test_of_a_discarded_tab_and_its_copy_only_the_first_loaded_takes_what_was_kept(
    web_world,
):
    """The phone discarded the tab (its page ended with no pagehide, as a crash ends
    it), and the tab was duplicated: the copy and the tab loaded anew both hold what
    the page had kept when hidden, and no page held its lock, so both took it — the
    same draft in two tabs, the same roll followed in both, the GM's approval said
    twice. The first to load takes it now, holding the gone page's lock; the second
    joins as the same player with empty forms, as a copy of a live tab does, and says
    nothing when the GM approves the roll."""
    result = await run_case(web_world, "discardedDuplicate", script="away.mjs")
    pending = result["pending"]
    assert result["keptBefore"] is True, result
    assert f"({pending})" in result["first"]["roll"], result["first"]
    assert result["first"]["label"] == "недописанный бросок", result["first"]
    assert result["second"]["roll"] == "" and result["second"]["label"] == "", result["second"]
    assert pending not in result["second"]["message"], result["second"]
    approved = said("ru", "Message.Approved", result="")
    assert result["originalAfter"]["roll"].startswith(approved), result["originalAfter"]
    assert result["copyAfter"]["roll"] == "", result["copyAfter"]
    assert not result["copyAfter"]["message"].startswith(approved), result["copyAfter"]


async def test_a_players_own_request_waiting_shows_in_their_log_as_theirs(web_world):
    """A player's request waiting for the GM reached their own log as the secret
    placeholder every player gets of a GM-only event (*тайно (только мастер)*), and
    was told to a screen reader so: the player who sent it could not find it in the
    log. Their page now shows it as their own request — what they asked, as the page
    sent it, and that it waits for the GM — and nothing the server keeps from players
    (no dice, no time); an observer's page still shows the placeholder (saying it
    may be a request waiting as well as a secret). The tab
    loaded anew shows it so too (from the log from before), and once the GM approves
    it the entry says it waits no more — also in the tab loaded anew after that: it
    showed the placeholder again there, the page followed only requests still waiting."""
    result = await run_case(web_world, "mine", script="away.mjs")
    pending = result["pending"]
    ru = catalog("ru")
    waits = ru["ROLLBRIDGE.Web.Kind.ApprovalRequested"]
    secret = ru["ROLLBRIDGE.Web.Kind.Hidden"]
    roll = ru["ROLLBRIDGE.Web.Kind.Roll"]
    mine = said("ru", "Log.Mine", pending=pending, type=roll, what="2d6 за углом")
    for when in ("live", "reloaded"):
        entry = result[when]
        assert entry["kind"] == waits and mine in entry["text"], (when, entry)
        assert secret not in entry["text"] and "mine-waits" in entry["classes"], (when, entry)
    # the observer's: a placeholder at a table whose GM approves requests first, which
    # may be a request waiting as well as a secret (web25)
    assert result["observer"]["kind"] == ru["ROLLBRIDGE.Web.Log.HiddenOrAsked"], result["observer"]
    assert secret not in result["announced"], (result["announced"], result["eventFirst"])
    assert result["answered"]["kind"] == ru["ROLLBRIDGE.Web.Log.MineDone"], result["answered"]
    assert mine in result["answered"]["text"], result["answered"]
    assert "mine-waits" not in result["answered"]["classes"], result["answered"]
    again = result["answeredReloaded"]
    assert again["kind"] == result["answered"]["kind"] and mine in again["text"], again
    assert secret not in again["text"], again


async def test_a_page_without_web_locks_takes_what_it_kept_as_before(web_world):
    """Plain HTTP at a LAN address is no secure context: the page has no Web Locks
    there (nor crypto.randomUUID, for its id). It throws nothing, and the tab hidden
    and loaded anew still takes its draft and its roll waiting."""
    result = await run_case(web_world, "lan", script="away.mjs")
    assert result["context"] == {"secure": False, "locks": False}, result
    assert f"({result['pending']})" in result["reloaded"]["roll"], result["reloaded"]
    assert result["reloaded"]["label"] == "недописанный бросок", result["reloaded"]


async def test_a_duplicated_tab_takes_nothing_the_tab_kept(web_world):
    """A duplicated tab gets a copy of the tab's storage, and with it what the page
    had kept the last time it was hidden: the copy showed the original's roll
    waiting (and then its approval) beside its own form, and the roll typed then —
    an older draft than the one on screen. Now a page shown again removes what it
    kept: the copy joins as the same player with empty forms, and the original's
    roll is followed in the original only."""
    result = await run_case(web_world, "duplicate", script="away.mjs")
    pending = result["pending"]
    assert f"({pending})" in result["original"]["roll"], result["original"]
    assert result["original"]["label"] == "rozepsaný hod dopsaný", result["original"]
    assert result["copy"]["roll"] == "" and result["copy"]["label"] == "", result["copy"]
    approved = said("cs", "Message.Approved", result="")
    assert result["originalAfter"]["roll"].startswith(approved), result["originalAfter"]
    assert result["copyAfter"]["roll"] == "", result["copyAfter"]


async def test_a_duplicated_gm_tab_opens_no_reason_of_the_other(web_world):
    """The GM's reason, written in one tab, came back open in its duplicate (kept
    when the tab was last hidden): a reason the GM was writing in one tab, to send
    from it, sat in the other too. The duplicate's field is closed and empty."""
    result = await run_case(web_world, "gmDuplicate", script="away.mjs")
    assert result["originalField"] == "Nicht jetzt", result
    assert result["copyField"] == {"hidden": True, "value": ""}, result


async def gm_rolls(world: WebWorld, count: int, table: str = "web") -> None:
    """``count`` rolls by the GM of ``table`` over the protocol."""
    address = f"ws://{world.server.address}:{world.server.port}/tables/{table}"
    async with connect(address) as socket:
        hello = {"type": "hello", "id": "gm", "table": table, "token": world.tokens[table]["gm"]}
        await socket.send(json.dumps(hello))
        while json.loads(await socket.recv()).get("id") != "gm":
            pass
        for index in range(count):
            roll = {"type": "roll", "id": f"evening-{index}", "formula": "4d6", "label": "late"}
            await socket.send(json.dumps(roll))
            while json.loads(await socket.recv()).get("id") != roll["id"]:
                pass


def _export_size(world: WebWorld, since: int) -> tuple[int, int]:
    """The player's Czech export of ``web`` after ``since``: its size in bytes and the
    last event's seq."""
    request = urllib.request.Request(
        f"{world.base}/tables/web/export?format=jsonl&locale=cs&since={since}",
        headers={"Authorization": f"Bearer {world.tokens['web']['player']}"},
    )
    with urllib.request.urlopen(request) as answer:
        body = answer.read()
    return len(body), json.loads(body.splitlines()[-1])["seq"]


async def test_a_log_too_large_to_download_whole_is_saved_in_its_latest_part(
    web_world, tmp_path, monkeypatch
):
    """A long evening's log larger than the server sends at once (the bound lowered
    from 32 MiB for the test, between the sizes of the latest half and the whole):
    the page said the server's "ask for fewer events with since", which a player on
    the page cannot. It now says, in the page's language, what the player can do,
    and its button then saves the log's latest part, which rollbridge verify checks."""
    await gm_rolls(web_world, 60)
    whole, latest = await asyncio.to_thread(_export_size, web_world, 0)
    half, _ = await asyncio.to_thread(_export_size, web_world, latest // 2)
    assert half < whole
    monkeypatch.setattr(export_http, "MAX_EXPORT_BYTES", (half + whole) // 2)
    saved = tmp_path / "part.jsonl"
    result = await run_case(web_world, "tooLarge", script="away.mjs", extra={"RB_SAVE": str(saved)})
    assert result["seq"] == latest, result
    assert result["refused"] == {
        "button": said("cs", "Log.DownloadPart"),
        "hint": said("cs", "Log.TooLarge"),
    }, result["refused"]
    since = latest // 2
    hint = said("cs", "Log.PartSaved", **{"from": str(since + 1)})
    assert result["saved"]["hint"].startswith(hint), result["saved"]
    # the log from before on joining, the whole log (refused: Chromium's console notes
    # it), then its latest part
    whole_asked, part_asked = result["fetched"][-2:]
    assert "since" not in whole_asked and result["refusals"] >= 1, result
    assert part_asked.endswith(f"since={since}&locale=cs"), result["fetched"]
    welcome, *events = [json.loads(line) for line in saved.read_text().splitlines()]
    assert welcome["type"] == "welcome" and events[0]["seq"] == since + 1, events[0]
    assert events[-1]["seq"] == latest
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["verify", str(saved), "--json"])
    report = json.loads(out.getvalue())
    assert status == 0 and report["ok"], (report, err.getvalue())
