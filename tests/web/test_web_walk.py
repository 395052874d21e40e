"""An evening of wilddie in the browser, walked as its players would: a Czech GM on a
laptop who asks players' requests first, a Russian player on a 360×740 touch phone
(browser/walk.mjs, one case per test; real headless Chromium against a real server).

- The GM undid the player's approved trait test: the line beside the player's form
  and the message line went on saying *мастер одобрил: …* with the result, which no
  longer stood (the log's undo named only the event's number). They now say the GM
  undid it, and no more once it is redone.
- An action pressed with no target sent the request, and the page showed the server's
  refusal in the wire's words; the page now says which to choose and sends nothing.
- A player whose character the GM took back pressed an action that needs one: the
  server's refusal in the wire's words; the page now says it in its own.
- An action on every actor (sr2's *new turn*) offered every actor to tick as its
  targets, and one ticked was refused in the wire's words; it offers none now.
- The top bar said the viewer's name where it is the role's wire word: a German
  observer read *Beobachter (observer)*, a Russian player *игрок (player)*, a Czech
  GM *PJ (gm)*. It names the role in the page's words alone then, as the log says
  who made an event.
- The request waiting named its parameters in the wire's English keys (*trait=notice*)
  in the Czech GM's list and in the player's own log entry, where the form said
  *Vlastnost: Všímavost* and *Параметр: Внимание*. They are in the ruleset's words now.

Needs what tests/web/test_web_browser.py needs; skipped without chromium.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.web.test_web_away import said
from tests.web.test_web_browser import CHROMIUM
from tests.web.test_web_i18n import catalog
from tests.web.test_web_phone import run_case

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM}")


async def test_a_result_the_gm_undid_is_said_undone_beside_the_players_form(web_world):
    result = await run_case(web_world, "undone", script="walk.mjs")
    # the request waiting, in the ruleset's words: the GM's Czech list, the player's
    # own Russian log entry
    assert "Vlastnost: Všímavost" in result["gmList"], result["gmList"]
    assert "Параметр: Внимание" in (result["mine"] or ""), result["mine"]
    assert "trait" not in result["gmList"] + (result["mine"] or ""), result
    approved = said("ru", "Message.Approved", result="")
    assert result["approved"]["action"].startswith(approved), result["approved"]
    assert result["approved"]["message"] == result["approved"]["action"], result["approved"]
    # undone: both lines say so, after what they said
    undone = said("ru", "Message.Undone", line=result["approved"]["action"])
    assert result["undone"] == {"action": undone, "message": undone}, result["undone"]
    # redone: the result stands again
    assert result["redone"] == result["approved"], result["redone"]


async def test_an_action_pressed_without_its_target_says_so_and_sends_nothing(web_world):
    """wilddie's attack takes one target; pressed with none chosen, the page sent it
    and showed the server's refusal, which names the wire's field and the action's
    key (*targets: действие 'attack' принимает 1 цель, получено 0*). The page says
    in its own words what to do now, and sends nothing; with the target chosen it
    sends the attack. The GM's award of chips (one target at least) the same, in
    Czech."""
    result = await run_case(web_world, "noTarget", script="walk.mjs")
    assert result["player"] == {
        "text": said("ru", "Field.ChooseTarget"),
        "kind": "error",
        "sent": 0,
    }
    least = said("cs", "Field.ChooseTargets.one", count="1")
    assert result["gm"] == {"text": least, "kind": "error", "sent": 0}, result["gm"]
    waiting = re.escape(said("ru", "Message.Pending", pending="PN")).replace("PN", r"p\d+")
    assert re.fullmatch(waiting, result["sent"]), result["sent"]


async def test_a_player_without_a_character_pressing_an_action_is_told_in_the_pages_words(
    web_world,
):
    """The GM took Ana back: the player's trait test has an empty character list, and
    pressed, the page sent it and showed the server's refusal in the wire's words
    (*actor: действию 'trait' нужен действующий персонаж*). It now says that the
    player plays no character that could, and to ask the GM; nothing is sent."""
    result = await run_case(web_world, "noActor", script="walk.mjs")
    assert result["player"] == {"text": said("ru", "Field.NoActor"), "kind": "error", "sent": 0}


async def test_an_undo_or_redo_while_the_tab_was_discarded_is_said_after_its_reload(web_world):
    """The GM undid the player's approved trait test while the player's phone had the
    tab discarded: loaded anew, the lines said the approval's result as the page had
    kept them, though the log from before held the undo; later the GM redid it while
    the tab was discarded again, and the lines went on saying it was undone. They say
    what the log says now."""
    result = await run_case(web_world, "undoneAway", script="walk.mjs")
    approved = result["approved"]
    assert approved["action"].startswith(said("ru", "Message.Approved", result="")), approved
    undone = said("ru", "Message.Undone", line=approved["action"])
    assert result["undoneAway"] == {"action": undone, "message": undone}, result["undoneAway"]
    assert result["redone"] == approved, result["redone"]
    assert result["undone"] == {"action": undone, "message": undone}, result["undone"]
    assert result["redoneAway"] == approved, result["redoneAway"]


async def test_an_action_on_every_actor_offers_no_targets_and_is_done(web_world):
    """sr2's *new turn* refills every actor's pools: the server takes every actor and
    refuses a request that names one. Its form offered every actor to tick as its
    targets, and a German GM who ticked one read the server's refusal in the wire's
    words (*targets: …*, code ``invalid_request``). The form offers none now, and the
    turn is done."""
    result = await run_case(web_world, "everyActor", script="walk.mjs")
    assert result["offered"] == 0, result
    assert result["line"]["kind"] != "error" and result["code"] in ("", None), result
    assert result["logged"] is True, result


async def test_the_top_bar_names_the_role_without_its_wire_word(web_world):
    result = await run_case(web_world, "topBar", script="walk.mjs")
    assert result["roles"] == {
        "observer": catalog("de")["ROLLBRIDGE.Role.observer"],
        "player": catalog("ru")["ROLLBRIDGE.Role.player"],
        "gm": catalog("cs")["ROLLBRIDGE.Role.gm"],
    }, result["roles"]
