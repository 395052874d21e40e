"""A GM's sr2 night through a restore in the Foundry stand-in, against a real
``rollbridge serve`` over a real SQLite file: tests/foundry/live/restorenight.mjs runs
the module's client as the active GM's page (two linked and two unlinked goblins, a
runner), a player as a protocol client; a new combat turn, a combat from Foundry's
tracker, attacks, a ``rollbridge backup``, an attack after it, the GM's page closed,
the backup restored, the player reconnecting and rolling alone, the GM's page back.

What a GM met before this version and this checks: the players' card of a new combat
turn named each goblin by its Foundry id (``Scene.sceneCave0000001.Token.tokGoblinU0…
(hidden)``); and the card of the attack made after the backup stayed unmarked when
the restored table went on while no GM's client posted cards (the module guessed
where the new epoch began from the welcome's seq), and the player's roll made then
never got a card; and every resolution's card was titled by its action's id
(``new_turn``, ``attack``), not its label.
"""

from __future__ import annotations

from tests.foundry.live_script import walk


def test_a_restore_night_names_the_goblins_and_marks_what_the_restore_undid(tmp_path):
    steps = walk("restorenight.mjs", tmp_path)
    for name, step in steps.items():
        assert not [n for n in step["notices"] if n.startswith("error")], (name, step["notices"])
        assert step["withheld"] == 0, f"{name}: goblins withheld"
        keys = [(c["epoch"], c["seq"], c["kind"], c["hook"], c["view"]) for c in step["cards"]]
        assert len(keys) == len(set(keys)), f"{name}: a card posted twice"

    (turn,) = [c for c in steps["new turn"]["cards"] if "New combat turn (SR-14)" in c["text"]]
    assert "Runner Alice 6, Goblin 0 (hidden), Goblin 1 (hidden), Goblin U0 (hidden), " \
        "Goblin U1 (hidden)" in turn["text"]  # fmt: skip
    assert turn["title"] == "New combat turn"  # the action's label, not its id (new_turn)
    resolutions = [c for c in steps["gm back"]["cards"] if c["kind"] == "resolution"]
    assert {c["title"] for c in resolutions} == {"New combat turn", "Attack"}
    (round_,) = [c for c in steps["combat"]["cards"] if "Combat turn 1 (SR-14)" in c["text"]]
    assert "Runner Alice 6, Goblin 0 (hidden)" in round_["text"]
    for card in steps["gm back"]["cards"]:
        assert "Scene." not in card["text"] and "fvtt" not in card["text"], card["text"]

    backed_up = steps["before restore"]["backedUp"]
    alone = steps["player alone"]
    assert alone["resume"]["recovered"] is False and alone["rolled"] == "done"
    back = steps["gm back"]
    (first, restored) = back["epochs"]
    assert first == {"epoch": 1, "from": 0} and restored["from"] == backed_up
    assert back["welcomeSeq"] > backed_up  # the table went on with no GM's card
    marks = {(c["epoch"], c["seq"]): c["undoneBy"] for c in back["cards"] if c["epoch"] == 1}
    assert marks == {
        **{(1, seq): None for seq in range(1, backed_up + 1) if (1, seq) in marks},
        **{(1, seq): restored["epoch"] for seq in range(backed_up + 1, back["welcomeSeq"] + 1)},
    }
    assert back["goblinU0"] == "ok", "the attack the restore undid is gone from the goblin"
    # the player's roll while the GM was away has its card, posted when the GM came back
    (roll,) = [c for c in back["cards"] if c["epoch"] == restored["epoch"]]
    assert (roll["seq"], roll["kind"], roll["title"]) == (back["welcomeSeq"], "roll", "2d6")
    assert not [c for c in steps["player alone"]["cards"] if c["epoch"] == restored["epoch"]]
