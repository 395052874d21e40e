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
from tests.web.conftest import WebWorld, add_cast, host_of, serving
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
