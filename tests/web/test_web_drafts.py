"""What was typed in the forms, kept for the tab's next load, in real headless
Chromium against a real server (browser/drafts.mjs, one case per test):

- a ruleset of 60 actions (:class:`ManyActions`), each visited on a phone: the tab
  kept the first 50 forms' drafts, the latest last and the shown form last of all,
  so the shown action's draft (and the roll form's) was what went at a reload;
- a tab killed while visible (its renderer crashed: nothing on the way out, no
  ``pagehide``) lost what was typed since it was last hidden: the drafts are kept as
  they are typed, and the tab loaded anew has them;
- each action merely looked at was a draft, and past 50 of them the drafts typed
  before were gone: a form as it was built holds none; a tab's storage full raises
  nothing.

Needs what tests/web/test_web_browser.py needs; skipped without chromium.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from rollbridge import ActionSpec
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore
from tests.plugins.rollunder import RollUnder
from tests.web.conftest import GM, WebWorld, add_cast, host_of, serving
from tests.web.test_web_away import said
from tests.web.test_web_browser import CHROMIUM
from tests.web.test_web_phone import run_case

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM}")

#: How many actions :class:`ManyActions` has: more than the 50 forms' drafts a tab
#: keeps (kept.mjs, ``MAX_LINES``).
ACTIONS = 60


class ManyActions(RollUnder):
    """RollUnder's ``test`` under :data:`ACTIONS` names (``act00`` …), each with a
    free-text ``note``: a ruleset with a long list of actions."""

    id = "many"
    name = "Many actions (test fixture)"
    actions = {
        f"act{index:02}": ActionSpec(
            f"act{index:02}", "Roll a d10 under skill minus the target's guard.",
            params={"type": "object", "properties": {"note": {"type": "string", "maxLength": 200}}},
            min_targets=1, max_targets=1, example={},
        )
        for index in range(ACTIONS)
    }  # fmt: skip


#: How many free-text notes :class:`LongNotes`'s ``plan`` has, and how long the test
#: types each: more than the 20,000 characters a tab keeps for its forms (kept.mjs,
#: ``MAX_KEPT``) in the one form shown.
NOTES, NOTE_LENGTH = 12, 1_900


class LongNotes(RollUnder):
    """RollUnder's ``test`` as ``plan``, with :data:`NOTES` free-text notes (``note00``
    …), and as ``other`` with one: a form that holds more than a tab keeps."""

    id = "notes"
    name = "Long notes (test fixture)"

    @staticmethod
    def _spec(name: str, notes: int) -> ActionSpec:
        properties = {f"note{index:02}": {"type": "string"} for index in range(notes)}
        return ActionSpec(name, "Roll a d10 under skill minus the target's guard.",
                          params={"type": "object", "properties": properties},
                          min_targets=1, max_targets=1, example={})  # fmt: skip

    actions = {"plan": _spec("plan", NOTES), "other": _spec("other", 1)}


@pytest.fixture
async def notes_world(tmp_path) -> AsyncIterator[WebWorld]:
    """A server over the table ``notes`` of :class:`LongNotes`, whose GM approves
    players' requests first: the player's Hero and the NPC Bandit."""
    path = tmp_path / "web.db"
    host = host_of("notes", LongNotes())
    with SQLiteStore(path) as seed:
        service = TableService(seed, host)
        _, tokens = service.create_table("Long notes", "notes", table_id="notes")
        approval = {"type": "settings", "id": "approval-on", "settings": {"approval": True}}
        service.handle("notes", approval, GM)
        cast = [("hero", "Hero", "Hero", ["player"]), ("bandit", "Bandit", "Bandit", [])]
        add_cast(service, "notes", cast, LongNotes.example_sheets)
    async with serving(path, host, {"notes": tokens}) as world:
        yield world


@pytest.fixture
async def many_world(tmp_path) -> AsyncIterator[WebWorld]:
    """A server over the table ``many`` of :class:`ManyActions`: the player's Hero and
    the NPC Bandit."""
    path = tmp_path / "web.db"
    host = host_of("many", ManyActions())
    with SQLiteStore(path) as seed:
        service = TableService(seed, host)
        _, tokens = service.create_table("Many actions", "many", table_id="many")
        cast = [("hero", "Hero", "Hero", ["player"]), ("bandit", "Bandit", "Bandit", [])]
        add_cast(service, "many", cast, ManyActions.example_sheets)
    async with serving(path, host, {"many": tokens}) as world:
        yield world


async def test_the_shown_forms_draft_survives_a_reload_past_fifty_actions(many_world):
    """A player on a phone looks through all 60 actions, types a note into the 59th
    and the 60th (shown) and a formula into the roll form, and reloads: the 60th is
    chosen with its note, the roll form and the 59th's note are back (the first 50
    forms were kept, so the shown one and the roll form were left out)."""
    extra = {"RB_ACTIONS": str(ACTIONS)}
    result = await run_case(many_world, "many", script="drafts.mjs", extra=extra)
    assert result["visited"] == ACTIONS, result
    assert result["reloaded"] == {
        "action": f"act{ACTIONS - 1:02}",
        "note": "behind the crates",
        "formula": "3d6",
        "previous": "from the roof",
    }, result["reloaded"]


async def test_what_was_typed_survives_a_tab_killed_while_shown(many_world):
    """A player on a phone types a note into an action and a formula into the roll
    form, the page shown all along, and the page's renderer crashes (nothing on its way
    out: no ``pagehide``, no ``visibilitychange``): the tab loaded anew has the action
    chosen with its note and the formula (the page kept them only when hidden or
    left, and they were gone)."""
    result = await run_case(many_world, "killed", script="drafts.mjs")
    assert result["visible"] == "visible", result
    assert result["kept"] is True, result
    typed = {"action": "act03", "note": "half a plan", "formula": "2d6+1"}
    assert result["reloaded"] == typed, result


async def test_typed_drafts_outlast_fifty_actions_looked_at(many_world):
    """A player on a phone types notes into two actions, looks through the 58 others
    and chooses the two again: both notes are there (each action looked at was kept
    as a draft, typed in or not, and the 50 latest pushed the typed ones out). The tab's
    storage then full (``QuotaExceeded``), typing on and the page frozen keep nothing
    and raise nothing: no page error, no console error (run_case)."""
    extra = {"RB_ACTIONS": str(ACTIONS)}
    result = await run_case(many_world, "early", script="drafts.mjs", extra=extra)
    assert result["again"] == {"act00": "first plan", "act07": "second plan"}, result
    assert result["full"] == "QuotaExceededError", result
    assert result["typed"] == {"action": "act07", "note": "third plan", "formula": "4d6"}, result


async def test_what_fits_is_kept_when_the_shown_form_and_reasons_pass_the_tabs_share(notes_world):
    """A German GM on a phone types a formula into the roll form, a note into the
    action ``other``, then chooses ``plan`` and types its 12 notes of 1,900 letters, and
    writes a reason of 500 letters for each of three players' rolls waiting: more than
    the 20,000 characters the tab keeps for a reload. Past that nothing was kept: the
    tab held what it last kept while all still fit (a few notes), and the reasons
    written after were lost, unsaid. Now the page loaded anew has ``plan``
    chosen, the formula, the three reasons open with their text, the first notes as
    typed (as many as fit; none cut in the middle) and ``other``'s short note (it fits
    the room the next note did not), and says on its message line that not all was
    kept."""
    extra = {"RB_NOTES": str(NOTES), "RB_NOTE_LENGTH": str(NOTE_LENGTH)}
    result = await run_case(notes_world, "cut", script="drafts.mjs", extra=extra)
    typed = result["typed"]
    assert len(typed["reasons"]) == 3, typed
    back = result["reloaded"]
    assert back["action"] == "plan", back
    assert back["formula"] == "3d6", back
    assert back["reasons"] == typed["reasons"], back
    notes = back["notes"]
    kept = [note for note in notes if note]
    assert 0 < len(kept) < NOTES, notes
    assert notes == typed["notes"][: len(kept)] + [""] * (NOTES - len(kept)), notes
    assert back["other"] == "the oldest draft", back
    assert back["message"] == said("de", "Message.DraftsCut"), back


async def test_a_draft_the_full_storage_refuses_is_said_and_kept_smaller(many_world):
    """A German player's phone types a note into an action (kept as typed), its tab's
    storage is filled to the quota, and the note is typed anew, 1,900 letters long:
    the quota refused that draft, and left the one kept before in place, unsaid — the
    page loaded anew put back *first plan*. The page now says on its message line, in
    German, that the tab's storage is full, and keeps what fits a smaller share: after
    the reload the action is chosen, its note empty (not the older one), and the page
    says that not all that was typed was kept."""
    extra = {"RB_NOTE_LENGTH": str(NOTE_LENGTH)}
    result = await run_case(many_world, "quota", script="drafts.mjs", extra=extra)
    assert result["kept"] is True and result["full"] == "QuotaExceededError", result
    notice = {"text": said("de", "Message.StorageFull"), "kind": "error", "visible": True}
    assert result["notice"] == notice, result
    reloaded = {"action": "act03", "note": "", "message": said("de", "Message.DraftsCut")}
    assert result["reloaded"] == reloaded, result


async def test_the_storage_full_notice_goes_once_the_draft_is_kept_again(many_world):
    """The German phone's tab storage full, its message line says so; the storage freed
    and the note typed anew, kept whole: the notice stayed on the message line, saying
    the storage was full when it no longer was (the page stopped saying it, and never
    took it back). It goes once a keep fits again."""
    extra = {"RB_NOTE_LENGTH": str(NOTE_LENGTH)}
    result = await run_case(many_world, "freed", script="drafts.mjs", extra=extra)
    assert result["kept"] is True and result["full"] == "QuotaExceededError", result
    assert result["notice"] == said("de", "Message.StorageFull"), result
    assert result["keptAgain"] is True, result
    assert result["after"] == {"text": "", "kind": "info"}, result
