"""A phone's on-screen keyboard while the page redraws, in real headless Chromium
against a real server (browser/keyboard_redraw.mjs): a player types in the roll
form, the caret inside the text and a word being composed (as an Android keyboard
composes every word), when another roll arrives and the GM adds an actor (the forms
are built anew). The focused field, its caret and its value stay, and the word the
keyboard was composing is committed where it was being typed.

Needs what tests/web/test_web_browser.py needs; skipped without chromium.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.web.test_web_browser import CHROMIUM
from tests.web.test_web_phone import run_case

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM}")


async def test_a_redraw_keeps_the_field_a_player_is_composing_in(web_world):
    """The forms built anew while an Android keyboard was composing a word replaced
    the field: the letters were carried over but the word being composed was not, so
    the keyboard wrote it again ("Tukan dodges fas fast bullets"). Now the form waits
    for the word: the field is the same element until it is in, then the form is
    built anew with the focus, the caret and the value."""
    result = await run_case(web_world, "compose", script="keyboard_redraw.mjs")
    composing = {"form": "roll", "name": "label", "value": "Tukan dodges fas bullets"}
    composing |= {"caret": 16, "end": 16, "same": True}
    assert result["composing"] == composing, result["composing"]
    # another roll arrives: nothing of the form changes
    assert result["afterRoll"] == composing, result["afterRoll"]
    # the GM adds an actor while the word is composed: the field is left as it is
    assert result["afterRedraw"] == composing, result["afterRedraw"]
    # the word committed once, where it was typed; then the form was built anew
    # around the same focus, caret and value
    committed = {"form": "roll", "name": "label", "value": "Tukan dodges fast bullets"}
    committed |= {"caret": 17, "end": 17}
    assert {k: result["committed"][k] for k in committed} == committed, result["committed"]
    assert result["rebuilt"] is True, result
    assert {k: result["afterCommit"][k] for k in committed} == committed, result["afterCommit"]


@pytest.mark.parametrize("how", ["tap", "click"])
async def test_a_tap_on_roll_that_ends_a_composed_word_sends_the_roll(web_world, how):
    """A form built anew while a word was composed waited for the word to be done,
    then was put in at once — and a tap on *Roll* is what ends the word on a phone
    (the field is left between the button's press and its click): the form built
    anew in between took the pressed button away, and the roll was never sent. Now
    the form waits for the click, which sends the roll (once, with the word); built
    anew while the roll waits for the line, its button still says so."""
    result = await run_case(
        web_world, "tapRoll", script="keyboard_redraw.mjs", extra={"RB_HOW": how}
    )
    assert result["deferred"] is True, result
    assert result["sent"] is True, result
    assert result["label"] == "Tukan dodges", result
    # waiting: aria-disabled (focusable, read as unavailable), never truly disabled
    waiting = {"unavailable": True, "disabled": False, "waiting": "sending"}
    assert result["waiting"] == waiting, result
    after = {"unavailable": False, "disabled": False, "waiting": None, "rolls": 1}
    assert result["after"] == after, result
