"""A game night as a GM runs it in the Foundry stand-in, against a real
``rollbridge serve`` over a real SQLite file: tests/foundry/live/gamenight.mjs runs
the module's client as the active GM's page (30 goblins, 20 of them unlinked tokens;
three players' characters; Shadowrun 5e, so ``auto`` maps onto its monitors), three
players as protocol clients, a combat run by Foundry's tracker, sr2's
``show_npc_details`` turned on and off mid-fight, a player's and the GM's reload, a
second GM joining and leaving, an undo and a redo, and the table restored from a
``rollbridge backup`` (the server stopped, the file put back, the server started
again: a new epoch). Dice are supplied.

What a GM or a player met before 6 December 2026 and this checks: the goblins'
boxes, written into the system's monitors while shown, stayed readable there after
the setting was off; after the restore every goblin was withheld (a player without
a connection saw none of them until its next event); the second GM's panel said it
had no GM's view "yet". Never a card twice, nor a GM's number in the flags while the
details are off.
"""

from __future__ import annotations

from tests.foundry.live_script import walk


def test_a_game_night_in_the_standin_leaves_nothing_stale_leaked_or_doubled(tmp_path):
    steps = walk("gamenight.mjs", tmp_path)
    for name, step in steps.items():
        assert step["duplicates"] == [], f"{name}: a card posted twice"
        assert not [n for n in step["notices"] if n.startswith("error")], (name, step["notices"])
        assert step["withheld"] == 0, f"{name}: goblins withheld from the players"
    assert steps["combat"]["encounter"] == 1
    shown = steps["details on"]
    assert shown["tracksInFlags"] == 30 and any(shown["systemPhysical"]), "shown: boxes written"
    hidden = steps["details off"]
    assert hidden["tracksInFlags"] == 0, "hidden: no boxes left in the flags"
    assert not any(hidden["systemPhysical"]), "hidden: no boxes left in the system's monitors"
    assert steps["player reload"]["resume"]["recovered"] is True
    assert steps["gm reload"]["resume"]["recovered"] is True
    panel = steps["second gm"]["panel"]
    assert "only the active GM&#39;s client (Second GM)" in panel and "yet" not in panel, panel
    # the attack made after the backup is gone with the restore: the goblin it hit is
    # drawn as the backup holds it
    assert steps["restored"]["goblin10"] == "ok"
    # the fight goes on in the restore's epoch: the same attack again is a new card
    assert steps["after restore"]["cardsAdded"] == 1
    assert steps["after restore"]["goblin10"] == "impaired"
