"""The GM's reason for a rejection on the web view, in real headless Chromium
against a real server (browser/reject_reason.mjs, one case per test).

The protocol's ``reject`` takes a ``reason`` and the ``approval.rejected`` event
carries it, but the GM's page had no way to give one, and a player's page said
only "the GM rejected it" even when the GM (from Foundry) wrote one. Now the GM's
page has *Reject with a reason…* beside *Reject* (which still rejects at once), and
a player's page says the reason beside the form, on the message line and in the
log line, as text, in the GM's own words with the page's words around them.

Needs what tests/web/test_web_browser.py needs; skipped without chromium.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rollbridge.host import PluginHost
from rollbridge.server import Server
from rollbridge.stores.backup import backup
from rollbridge.stores.sqlite import SQLiteStore
from tests.server.conftest import TEST_LIMITS
from tests.web.test_web_browser import CHROMIUM
from tests.web.test_web_i18n import catalog
from tests.web.test_web_phone import run_case

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM}")

#: What the GM types: HTML that would run if parsed, as the player reads it.
TYPED = "Not tonight, <b>Tukan</b>"
#: Hostile reasons, each within the protocol's 500 characters (a reason is at most
#: that long: the GM's field takes no more, and the server refuses a longer one).
HOSTILE = [
    "<img src=x onerror=alert(1)><script>alert(2)</script>",
    "W" * 500,
    "\u200b".join("Zero" * 25)[:500],
    "\u0645\u0631\u062d\u0628\u0627 123",
    "e" + "\u0489" * 150,
]
RTL_MARKS = ("\u2068", "\u2069")


def said(lang: str, key: str, reason: str) -> str:
    """The page's line ``key`` in ``lang`` with ``reason`` in it."""
    return catalog(lang)[f"ROLLBRIDGE.Web.{key}"].replace("{reason}", reason)


async def test_the_gms_reason_reaches_the_players_page(web_world):
    """*Reject* rejects at once, as before; *Reject with a reason…* opens a labelled
    field by keyboard, kept with its caret while another request comes in, and Enter
    rejects with what was written. The player's Czech phone says it beside the form,
    on the message line and in the log line (as text), and again in Russian after
    the language's reload. It said "PJ to zamítl" alone."""
    result = await run_case(web_world, "reason", script="reject_reason.mjs")
    cs = catalog("cs")
    plain = result["plain"]
    assert plain["roll"] == cs["ROLLBRIDGE.Web.Message.Rejected"], plain
    assert plain["message"] == plain["roll"], plain
    opened = result["opened"]
    assert opened["focus"] == "reason" and opened["expanded"] == "true", opened
    assert opened["label"] == catalog("en")["ROLLBRIDGE.Web.Field.Reason"], opened
    typed = "Not tonight, "
    kept = {"focus": "reason", "value": typed, "caret": len(typed)}
    assert result["whileAnother"] == kept, result
    reasoned = result["reasoned"]
    assert reasoned["roll"] == said("cs", "Message.RejectedReason", TYPED), reasoned
    assert reasoned["message"] == reasoned["roll"], reasoned
    assert reasoned["log"].endswith(" — " + said("cs", "Log.Reason", TYPED)), reasoned
    assert result["gmLog"].endswith(" — " + said("en", "Log.Reason", TYPED)), result["gmLog"]
    assert len(result["left"]) == 1, result["left"]  # the other request still waits
    russian = result["russian"]
    assert russian["lang"] == "ru", russian
    assert russian["roll"] == said("ru", "Message.RejectedReason", TYPED), russian
    assert russian["log"].endswith(" — " + said("ru", "Log.Reason", TYPED)), russian


async def test_reject_sends_the_reason_written_for_its_request(web_world):
    """The GM opened *Reject with a reason…*, wrote one, and pressed *Reject* (the
    button beside *Approve*, not the field's own): the request was rejected without
    the reason, which the GM had written for the player, and the player read only
    "PJ to zamítl". Now *Reject* takes the reason written in its request's field."""
    result = await run_case(web_world, "rejectButton", script="reject_reason.mjs")
    rejected = result["rejected"]
    assert rejected["roll"] == said("cs", "Message.RejectedReason", "Not in the dark"), rejected
    assert rejected["log"].endswith(" — " + said("cs", "Log.Reason", "Not in the dark")), rejected


async def test_a_reason_half_written_survives_the_gms_language_reload(web_world):
    """The GM had written half a reason when choosing German: the reloaded page drew
    the request with its field shut and empty, the words lost. Now each open field
    comes back open with what was written in it (an empty one open and empty), and
    its Enter sends the reason finished after the reload."""
    result = await run_case(web_world, "gmLanguage", script="reject_reason.mjs")
    fields = {field["pending"]: field for field in result["fields"]}
    written = fields[result["pending"]]
    assert (written["expanded"], written["hidden"], written["value"]) == (
        "true",
        False,
        "Not before the ",
    ), fields
    empty = fields[result["opened"]]
    assert (empty["expanded"], empty["hidden"], empty["value"]) == ("true", False, ""), fields
    rejected = result["rejected"]
    assert rejected["roll"] == said("cs", "Message.RejectedReason", "Not before the dawn"), rejected


async def test_hostile_reasons_are_text_and_break_no_phone(web_world):
    """Reasons of HTML, 500 letters without a space, zero-width characters,
    right-to-left text and one letter under 150 enclosing marks, sent as Foundry's
    GM would: on a 360×740 phone each is text, beside the form and in the log, and
    nothing is wider than the screen; the GM's page on that phone with the field
    open holds the longest the same way, its controls 44 px tall."""
    result = await run_case(
        web_world, "hostile", script="reject_reason.mjs", extra={"RB_REASONS": json.dumps(HOSTILE)}
    )
    # 2,000 letters cannot reach a page: the server refuses the reason, nothing changed
    assert result["tooLong"] == {"code": "invalid_request", "waiting": True}, result["tooLong"]
    assert len(result["reasons"]) == len(HOSTILE), result
    for reason, shown in zip(HOSTILE, result["reasons"], strict=True):
        assert shown["reply"] == "done", shown
        right_to_left = reason.startswith("\u0645")
        text = f"{RTL_MARKS[0]}{reason}{RTL_MARKS[1]}" if right_to_left else reason
        where = (reason[:20], shown["roll"][:80], shown["log"][:80])
        assert shown["roll"] == said("cs", "Message.RejectedReason", text), where
        assert shown["log"].endswith(said("cs", "Log.Reason", text)), where
        layout = shown["layout"]
        assert layout["parsed"] == 0, layout
        # the phone's screen stays 360 px wide (a wider line widened it to 966 px)
        assert layout["screen"] == 360 and layout["page"] <= 360, (reason[:20], layout)
        assert layout["sideways"] == [], (reason[:20], layout)
        assert layout["spills"] == [] and layout["past"] == [], (reason[:20], layout)
    phone = result["gmPhone"]
    assert phone["maxLength"] == 500, phone
    layout = phone["layout"]
    assert layout["screen"] == 360 and layout["page"] <= 360 and layout["sideways"] == [], layout
    assert layout["spills"] == [] and layout["past"] == [], layout
    assert phone["heights"] and min(phone["heights"]) >= 44, phone


async def test_a_reason_being_composed_is_left_as_it_is_until_the_word_is_in(web_world):
    """The list of waiting requests is drawn anew at each change of the table; a
    field replaced while a phone's keyboard composes a word keeps the letters but not
    the word being composed, which the keyboard then writes a second time. The GM's
    reason is left as it is until the word is in, and the list drawn anew after it
    keeps the reason (once) and the focus."""
    result = await run_case(web_world, "compose", script="reject_reason.mjs")
    composing = result["composing"]
    assert composing["same"] is True and composing["items"] == 1, composing
    after = result["after"]
    assert after["items"] == 2 and after["name"] == "reason", after
    assert after["value"] == "Not tonight", after


async def run_restored(web_world, tmp_path: Path, case: str) -> dict:
    """Run the case ``case`` with a second server (RB_RESTORED) on a backup of the
    first's database taken before any request of the test, restored as
    `rollbridge serve` restores one: a new epoch, whose pending ids are counted again
    from the backup's seq."""
    restored = tmp_path / "restored.db"
    backup(tmp_path / "web.db", restored)
    store = SQLiteStore(restored)
    store.finish_restore()  # as `rollbridge serve` does first: a new epoch
    server = Server(store, PluginHost(), port=0, limits=TEST_LIMITS)
    await server.start()
    try:
        base = f"http://{server.address}:{server.port}"
        return await run_case(
            web_world, case, script="reject_reason.mjs", extra={"RB_RESTORED": base}
        )
    finally:
        await server.stop()
        store.close()


async def test_a_reason_stays_with_its_request_across_a_restore(web_world, tmp_path):
    """A reason was kept by its request's pending id alone, which a restored backup
    counts again in its new epoch: the GM's reason for a roll came back open beside
    another roll with the same id on the restored table, and *Reject* sent it with
    that one. Now it is kept by the epoch too: the other roll's field is closed and
    empty, and *Reject* sends no reason."""
    result = await run_restored(web_world, tmp_path, "restored")
    assert result["before"] == result["after"], result  # the same pending id, two requests
    closed = {"pending": result["after"], "expanded": "false", "hidden": True, "value": ""}
    assert result["field"] == closed, result
    assert [reject.get("reason") for reject in result["rejects"]] == [None], result["rejects"]


@pytest.mark.parametrize("case", ["askedRestored", "askedRestoredLive"])
async def test_a_players_request_is_not_followed_into_another_epoch(web_world, tmp_path, case):
    """A player's roll waits for the GM; the table is restored from a backup taken
    before it, and there another roll waits under the same pending id, which the GM
    approves. The player's page (loaded anew, as a phone loads a discarded tab, with
    what it kept when it was hidden; or loaded throughout) took that approval for its
    own roll's: its roll form said the GM approved it, with the other roll's result.
    A request waits in the epoch it was made in: the other roll's approval is in the
    log only. And the page asks the restored server what became of its roll (sent
    again with ``repeat``): the backup was taken before it, so the server does not
    know it, and the roll form and message line say so — they said it waited (the
    page loaded throughout) or nothing (loaded anew)."""
    result = await run_restored(web_world, tmp_path, case)
    assert result["before"] == result["after"], result  # the same pending id, two requests
    assert f"({result['before']})" in result["waiting"]["roll"], result["waiting"]
    assert result["logged"] >= 1, result  # the other roll's approval did reach the page
    lines = result["lines"]
    approved = catalog("cs")["ROLLBRIDGE.Web.Message.Approved"].split("{")[0]
    assert approved not in (lines["roll"] or ""), lines
    assert approved not in lines["message"], lines
    not_known = catalog("cs")["ROLLBRIDGE.Web.Message.NotKnown"]
    assert lines["roll"] == lines["message"] == not_known, lines


async def test_a_page_loaded_through_a_restore_shows_the_restored_tables_log(web_world, tmp_path):
    """The table was restored from a backup while a player's page stayed loaded: the
    restored table counts seqs again from the backup's, and the page left every event
    out of its log whose seq its log held already, of the table before — the GM's
    roll there was nowhere in the log (and the next ones, up to the seq the page had
    seen). The page now shows the restored table's log as a page loaded anew does,
    under the line that says the connection came back to the table as it is now;
    the player's roll made before the restore, which the restored table never had,
    is no longer in it."""
    result = await run_restored(web_world, tmp_path, "restoredLog")
    assert result["rolled"] == int(result["before"][1:]), result  # the seq the roll had
    assert result["after"] == 1, result
    assert result["gone"] == 0, result
    assert result["gaps"] == 1, result


async def test_a_line_kept_through_a_restore_is_not_taken_for_the_restored_tables_event(
    web_world, tmp_path
):
    """A player's roll form says its result (the line names the roll's seq); the table
    is restored from a backup taken before it, the page loaded throughout, and there
    the GM changes an actor at that seq and undoes the change. The page followed its
    lines by seq alone: the player's line said the GM had undone the player's roll
    (*(PJ to vzal zpět)*), which the restored table never had. A line of the epoch
    before names an event of that epoch: it stays as it was. (The GM undid a roll
    here before, which no undo takes back: the undo took back the last actor made,
    another seq, and the test passed on the page that followed lines by seq.)"""
    result = await run_restored(web_world, tmp_path, "restoredUndo")
    assert result["gmRolled"] == result["rolled"], result  # the same seq, two events
    assert result["undo"] == result["rolled"] + 1, result
    assert result["undoReply"]["event"]["data"]["undoes"] == result["rolled"], result
    before, after = result["before"], result["after"]
    assert before["roll"], before
    undone = catalog("cs")["ROLLBRIDGE.Web.Message.Undone"].split("}")[-1]
    assert undone not in after["roll"], after
    assert after["roll"] == before["roll"], (before, after)


async def test_an_approval_said_before_a_restore_is_not_taken_for_the_restored_tables_event(
    web_world, tmp_path
):
    """The same with the GM's approval of the player's roll on the message line (*PJ
    to schválil: …*, naming the roll's seq): on the restored table the GM rolls up to
    that seq, changes an actor at it and undoes that; the player's message line stays
    as it was."""
    result = await run_restored(web_world, tmp_path, "restoredUndoApproved")
    assert result["gmRolled"] == result["rolled"], result  # the same seq, two events
    assert result["undo"] == result["rolled"] + 1, result
    assert result["undoReply"]["event"]["data"]["undoes"] == result["rolled"], result
    before, after = result["before"], result["after"]
    approved = catalog("cs")["ROLLBRIDGE.Web.Message.Approved"].split("{")[0]
    assert before["message"].startswith(approved), before
    assert after["message"] == before["message"], (before, after)
