"""What a language's reload keeps, in real headless Chromium against a real server
(browser/language_keep.mjs, one case per test):

- the lines the page said beside its forms and on its message line — the GM
  approved a request (with its result), rejected another, one still waits, the
  server refused one — said again in the language chosen, from their message ids
  and the events they name, never in the old language's words; a request still
  waiting is followed to the GM's answer after the reload;
- a join token typed in and not accepted yet is kept for that one reload only:
  another reload before the server answers asks for it, the server accepting it
  keeps it as any token that joined, refusing it leaves nothing in the tab.

Needs what tests/web/test_web_browser.py needs; skipped without chromium.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.web.test_web_browser import CHROMIUM
from tests.web.test_web_i18n import catalog
from tests.web.test_web_phone import run_case

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM}")


def approved(lang: str, result: str) -> str:
    """The page's "the GM approved it: …" line in ``lang``."""
    return catalog(lang)["ROLLBRIDGE.Web.Message.Approved"].replace("{result}", result)


def assert_taken(result: dict, table: str) -> None:
    """What the page kept for a language's reload was taken by the page loaded anew:
    the tab holds the token and at most the new page's own lines and forms (a page
    keeps them as they are typed), none kept by the page that chose the language."""
    kept = dict(result["kept"])
    assert result["reloadKeeper"], result
    assert kept.pop(f"rollbridge.token.{table}") == "token", result["kept"]
    assert set(kept) <= {f"rollbridge.forms.{table}", f"rollbridge.lines.{table}"}, kept
    assert result["reloadKeeper"] not in kept.values(), kept


async def test_a_languages_reload_says_the_lines_again_in_the_language_chosen(web_world):
    """A player on a Czech phone read "the GM approved it: …" beside the success
    test and "the GM rejected it" beside the roll, chose Russian, and the reloaded
    page showed neither (review, 5 December). Now both come back in Russian, the
    approval's result the server's Russian narration; a roll still waiting says so
    in German after German is chosen, and the GM's approval after the reload is
    said beside it. A refusal in the server's words (German) comes back as the page's
    own line in English, saying it was refused."""
    result = await run_case(web_world, "lines", script="language_keep.mjs")
    cs, ru, de = catalog("cs"), catalog("ru"), catalog("de")
    czech = result["czech"]
    assert czech["action"] == approved("cs", czech["narration"]), czech
    assert czech["roll"] == cs["ROLLBRIDGE.Web.Message.Rejected"], czech
    russian = result["russian"]
    assert russian["lang"] == "ru" and russian["narration"] != czech["narration"], russian
    assert russian["action"] == approved("ru", russian["narration"]), russian
    assert russian["roll"] == ru["ROLLBRIDGE.Web.Message.Rejected"], russian
    # the message line said the approval last: in Russian too
    assert russian["message"] == russian["action"], russian
    pending = result["pending"]
    waiting_ru = ru["ROLLBRIDGE.Web.Message.Pending"].replace("{pending}", pending)
    assert result["waitingRu"]["roll"] == waiting_ru, result["waitingRu"]
    waiting_de = de["ROLLBRIDGE.Web.Message.Pending"].replace("{pending}", pending)
    assert result["waitingDe"]["roll"] == waiting_de, result["waitingDe"]
    assert result["waitingDe"]["message"] == waiting_de, result["waitingDe"]
    after = result["approvedDe"]
    assert after["roll"].startswith(approved("de", "later — ")), after
    assert after["message"] == after["roll"], after
    # a refusal in the server's German cannot be said again in English by the page:
    # it says that it was refused, in English, with the refusal's code kept
    refused = result["refusedEn"]
    assert result["refusedDe"]["roll"] and result["refusedDe"]["lang"] == "de", result["refusedDe"]
    assert refused["roll"] == catalog("en")["ROLLBRIDGE.Web.Message.RefusedEarlier"], refused
    assert refused["message"] == refused["roll"] and refused["code"] == "invalid_notation", refused
    # what was kept for the reload was taken by it: beside the token, the tab holds
    # only what the page loaded anew keeps of its own (as typed: web27)
    assert_taken(result, "approval")


async def test_the_language_list_has_the_focus_again_after_its_reload(web_world):
    """A keyboard (or screen reader) user chose a language in the list: the page
    loaded anew with the focus at its top, and they had to find the list again to go
    on from where they were. Now the list has the focus once the page is back in the
    new language; a reload that is no language's choice gives the table's heading the
    focus, as any join does."""
    result = await run_case(web_world, "focusBack", script="language_keep.mjs")
    assert result["keyboard"]["focus"] == "language", result
    assert result["keyboard"]["lang"] != "en", result
    assert result["plainReload"] == "title", result  # the table's heading, as after any join


async def test_a_language_chosen_with_the_mouse_leaves_the_list_without_the_focus(web_world):
    """A mouse user chose German in the list: the page loaded anew gave the list the
    focus as for a keyboard user (the focus was on it when the page reloaded), and
    the arrow key pressed to scroll the log chose another language, the page loading
    anew again. Now a list last used with a mouse gets no focus back: the table's
    heading takes it, as after any join."""
    result = await run_case(web_world, "mouseChoice", script="language_keep.mjs")
    assert result["clicked"] == "language", result  # the click gave the list the focus
    assert result["after"] == "title", result
    # a phone's list, tapped (as its screen reader does): the focus given back
    assert result["touch"] == "language", result


async def test_a_typed_token_not_accepted_yet_outlives_one_reload_only(web_world):
    """A token typed into the join form on a slow line, a language chosen before the
    server answered: the page kept it in the tab's sessionStorage as if it had
    joined, so it stayed there (a closed tab brought back holds it) whatever the
    server would say. Now it is kept for that one reload only."""
    result = await run_case(web_world, "typedToken", script="language_keep.mjs")
    # the reloaded page joins with it, and the tab holds it no more
    assert result["reloaded"] == {"heldHello": True, "tabHolds": False}, result["reloaded"]
    # a second reload before the server answered asks for a token, and tries nothing
    assert result["again"] == {"join": True, "tries": 0, "tabHolds": False}, result["again"]
    # accepted: the tab keeps it, as any token that joined
    assert result["accepted"] == {"tabHolds": True}, result["accepted"]
    # refused: nothing of it in the tab, and the next reload tries nothing
    assert result["refused"] == {"tabHolds": False, "kept": [], "tries": 0}, result["refused"]


async def test_a_new_link_opened_in_a_tab_that_joined_before_survives_a_languages_reload(web_world):
    """A tab that had joined as one token (kept in the tab) opened a new link with
    another — the GM gave the player a new token — and a language was chosen before
    the server answered: the reloaded page joined with the old token the tab kept, not
    the new link's (whose token had left the address bar). The token of the join
    under way is the newer one: the reloaded page joins with it."""
    result = await run_case(web_world, "newLink", script="language_keep.mjs")
    assert result["first"] == "player", result
    assert result["reloaded"] == "player", result
    # accepted, the new token is the one the tab keeps
    assert result["tabHolds"] == {"player": True, "observer": False}, result


@pytest.mark.parametrize("answer", ["approve", "reject"])
async def test_a_request_the_gm_answers_while_the_page_reloads_is_said_answered(web_world, answer):
    """A player's roll waited for the GM; the player chose German, and the GM approved
    it while the page loaded anew: the approval came in the log from before the page
    joined, which the page did not follow, so the roll's line went on saying it waited
    for the GM — in German — and never said the GM had approved it. Now the approval
    found in that log is said beside the form and on the message line; so is a
    rejection."""
    result = await run_case(
        web_world, "approvedMeanwhile", script="language_keep.mjs", extra={"RB_BUTTON": answer}
    )
    waits_cs, waits_de = (catalog(lang)["ROLLBRIDGE.Web.Message.Pending"] for lang in ("cs", "de"))
    assert result["waiting"]["roll"].startswith(waits_cs.split("{pending}")[0]), result
    after = result["after"]
    assert after["lang"] == "de", after
    if answer == "approve":
        assert after["roll"].startswith(approved("de", "meanwhile — ")), after
    else:
        assert after["roll"] == catalog("de")["ROLLBRIDGE.Web.Message.Rejected"], after
    assert after["message"] == after["roll"], after
    assert not after["roll"].startswith(waits_de.split("{pending}")[0]), after


async def test_a_line_of_an_action_not_chosen_first_comes_back_after_the_reload(web_world):
    """The docs said a line beside an action's form that is not the one the list
    chooses first comes back once that action is chosen again after a language's
    reload; it did not (the page left it out once the log from before was in, and
    choosing an action did not look for it). Now the action chosen is kept across the
    reload with what was typed, so the attack stays chosen, and its "waiting for the
    GM" comes back in Russian, in German after that (the second reload keeps it
    too), and in Russian again."""
    result = await run_case(web_world, "otherAction", script="language_keep.mjs")
    waits = {lang: catalog(lang)["ROLLBRIDGE.Web.Message.Pending"] for lang in ("cs", "de", "ru")}
    czech = result["czech"]
    assert czech["action"].startswith(waits["cs"].split("{pending}")[0]), czech
    pending = czech["action"].rsplit("(", 1)[1].rstrip(")")
    assert result["first"] == "attack", result  # kept chosen (it was the list's first again)
    german = result["german"]
    assert german["action"] == waits["de"].replace("{pending}", pending), german
    russian = result["russian"]
    assert russian["action"] == waits["ru"].replace("{pending}", pending), russian


async def test_what_is_typed_in_the_forms_and_the_odds_survive_a_languages_reload(web_world):
    """A Czech player had typed a roll and an attack (a folded parameter too) and
    asked the odds of both, then chose German: the page loaded anew with every form
    empty, the list on its first action and no odds (docs/web.md said they were not
    kept). Now what was typed comes back, the attack still chosen, and the odds are
    asked again and shown in German; the player's own token, pasted into the label,
    is never kept (in the tab's storage only under its own token key) and is not
    put back."""
    result = await run_case(web_world, "typed", script="language_keep.mjs")
    before, after = result["before"], result["after"]
    assert before["lang"] == "cs" and after["lang"] == "de", (before, after)
    typed = {"action": "attack", "formula": "3d6", "weapon": "Hackler", "skill": "5", "pool": "2",
             "rounds": "3", "modifier": "-1", "open": True, "target": "rook"}  # fmt: skip
    assert {key: before[key] for key in typed} == typed, before
    assert {key: after[key] for key in typed} == typed, after
    # the label held the token: left out, whatever field it was typed in
    assert before["label"] == "sneaky" and after["label"] == "", after
    # the odds asked again, in German
    de = catalog("de")
    assert sorted(result["oddsAsked"]) == ["3d6", "attack"], result["oddsAsked"]
    assert after["rollOdds"] == de["ROLLBRIDGE.Web.Odds.Total"], after
    assert after["attackOdds"] is not None and after["attackOdds"] != before["attackOdds"], after
    assert after["rollLine"].startswith(de["ROLLBRIDGE.Web.Odds.Mean"].split("{")[0]), after
    # kept for that reload only, and the token never but under the tab's token key
    assert result["tokenStored"] == ["rollbridge.token.web"], result["tokenStored"]
    assert_taken(result, "web")


async def test_the_odds_asked_again_leave_a_newer_line_beside_the_form(web_world):
    """A Czech player asked the odds of a roll, then rolled it; the roll waits for the
    GM, the odds still open under its line. After German was chosen the odds asked
    again answered over the line: the form said the odds, not that the roll waited,
    and after the GM rejected it with a reason and Russian was chosen, not the GM's
    reason. Now the odds come back under the form and the line stays the one the
    form said (in the language chosen)."""
    result = await run_case(web_world, "oddsUnderALine", script="language_keep.mjs")
    cs, de, ru = (catalog(lang) for lang in ("cs", "de", "ru"))
    czech, german = result["czech"], result["german"]
    waits = "ROLLBRIDGE.Web.Message.Pending"
    pending = czech["roll"].rsplit("(", 1)[-1].rstrip(")")
    assert czech["roll"] == cs[waits].replace("{pending}", pending), czech
    assert german["lang"] == "de" and german["odds"] == de["ROLLBRIDGE.Web.Odds.Total"], german
    assert german["roll"] == de[waits].replace("{pending}", pending), german
    reason = "ROLLBRIDGE.Web.Message.RejectedReason"
    rejected, russian = result["rejected"], result["russian"]
    assert rejected["roll"] == de[reason].replace("{reason}", "Not tonight"), rejected
    assert russian["lang"] == "ru" and russian["odds"] == ru["ROLLBRIDGE.Web.Odds.Total"], russian
    assert russian["roll"] == ru[reason].replace("{reason}", "Not tonight"), russian
    assert russian["message"] == russian["roll"], russian


async def test_odds_asked_and_not_answered_yet_are_asked_again_after_the_reload(web_world):
    """A Czech player asked the odds of a roll and chose German before the server
    answered (a slow line, or odds that take the server a while): the page kept only
    the odds it showed, so the page loaded anew had the formula back but no odds, and
    the player's question was lost. Now odds asked and not answered yet are asked
    again too, and shown in German."""
    result = await run_case(web_world, "oddsInFlight", script="language_keep.mjs")
    after = result["after"]
    assert after["formula"] == "3d6", after
    # asked before the reload (held, gone with its line), and again after it
    assert result["oddsAsked"] == ["3d6", "3d6"], result["oddsAsked"]
    assert after["odds"] == catalog("de")["ROLLBRIDGE.Web.Odds.Total"], after
