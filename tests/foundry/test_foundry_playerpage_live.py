"""A walk with a real GM's page and a real player's page in Chromium
(tests/foundry/browser/playerpage.mjs): two pages of the Foundry stand-in's one world,
each with the module's own client and connection, on a real ``rollbridge serve``
over SQLite. The player's page asks for an attack (dice that hit, supplied: an attack that
changes nothing is no change an undo takes back) and reads its own request's result
on the card the GM's page posts; the GM undoes it and the player's page draws that
card faded with the note, then unfaded at the redo. With the GM's approval on, the
player's attack with too few of his own dice waits, and the GM's plain Approve of it
is refused with a notice that says whose dice they are and what to do. Before, the
walks' player was a protocol client (tests/foundry/live/: the Node stand-in runs one
world per process); the browser's pages share one (a BroadcastChannel carries the chat as Foundry's
server does)."""

from __future__ import annotations

import pytest

from tests.foundry.test_foundry_browser import run_with_tukan_and_guard


@pytest.mark.parametrize("generation", [12, 13])
def test_the_players_page_reads_its_result_and_the_gms_undo(tmp_path, generation):
    result = run_with_tukan_and_guard(
        tmp_path, "playerpage.mjs", "Pages", generation, players=("ivan",)
    )
    assert result["asked"]["author"] == "standinGM000001"
    assert result["asked"]["title"] == "Attack"
    assert result["undo"]["undoneAt"] == result["undo"]["seq"] > result["asked"]["seq"]
    assert result["undo"]["note"]
    assert result["redo"] == {"seq": result["undo"]["seq"] + 1, "faded": False}
    # at an approval table Ivan's attack with too few of his own dice waits (its card
    # titled by the action's label); the GM's plain Approve is refused, and the notice
    # says the dice are the player's and what the GM can do (before: the server's words
    # alone); the card keeps its buttons
    own = result["ownDice"]
    assert own["title"] == "ivan asks for Attack", own
    assert own["refused"].startswith("rollbridge: the roll needs more dice than the 3 supplied"), (
        own
    )
    assert own["refused"].endswith(
        "nothing was rolled and it still waits. Approve it with your dice (Approve with my "
        "dice…) or reject it."
    ), own
