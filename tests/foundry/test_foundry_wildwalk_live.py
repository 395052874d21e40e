"""A wilddie scene through the module's own GM page in the Foundry stand-in, against a
real ``rollbridge serve`` over a real SQLite file (tests/foundry/live/wildwalk.mjs):
the hero's trait test with the wild die (WD-3), a chip spent on it (WD-4), a melee
attack (WD-6) and its damage (WD-7, WD-8: an NPC is out at its first wound) on a thug
the GM mapped by hand to an NPC made on the server, another NPC Shaken on the server
before the GM maps it by hand (its state shown at once), the damage undone, the
player's reconnect. Checked as a GM would: one card per event, no error shown, each card's
rolls as the rules roll them, the thug's system data, statuses and flags following
the damage and its undo, the player's resume recovered.

What the walk found: players were told of an undo by nothing on the undone card (its
*Redo* is the GM's), now flagged for every client (foundry/undone.mjs). Walked again
later on 7 December 2026: a hand-mapped NPC's state shows at once, and the chip card
names the roll it rerolls by its label. Its player is a protocol client (the Node
stand-in runs one world per process); the walk with a real player's page in Chromium
is tests/foundry/test_foundry_playerpage_live.py."""

from __future__ import annotations

from tests.foundry.live_script import walk


def test_a_wilddie_scene_through_the_gms_module_page(tmp_path):
    steps = walk("wildwalk.mjs", tmp_path)
    for name, step in steps.items():
        assert not [n for n in step["notices"] if n.startswith("error")], (name, step["notices"])
        seqs = [card["seq"] for card in step["cards"]]
        assert len(seqs) == len(set(seqs)), f"{name}: a card posted twice"

    # an NPC Shaken on the server before the GM mapped it by hand (linkActor): its state
    # shows at once — Shaken in the system's status, its flags the players' view — not
    # at its next change (before 7 December 2026: its flags held only the link)
    mapped = steps["mapped"]
    assert mapped["unmapped"]["statuses"] == []
    assert mapped["lookout"]["statuses"] == ["shaken"]  # WD-7: 6 against Toughness 5
    assert mapped["lookout"]["system"]["wounds"]["value"] == 0
    flags = mapped["lookout"]["flags"]
    assert flags["actorId"] == "lookout-1" and flags["view"] == "players"
    assert flags["limited"] is True and "withheld" not in flags
    assert flags["common"]["status"] == "impaired", flags  # Shaken
    assert flags["common"]["conditions"], flags

    trait = steps["trait"]
    assert trait["event"]["outcome"]["wild_die"]["faces"] == 6  # WD-3: a PC rolls the wild d6
    assert trait["cards"][-1]["rolls"] == [{"formula": "2d6xkh1", "total": 5}]
    chip = steps["chip"]
    assert chip["event"]["outcome"]["rerolled"] == ["trait"]  # WD-4: one die, the player's pick
    assert chip["cards"][-1]["rolls"] == [{"formula": "2d6xkh1", "total": 1}]  # 5 → 1, wild 1
    assert len(chip["cards"]) == len(trait["cards"]) + 1
    # its How names the roll it rerolls by the roll's label, not its request id (the
    # step's words stay the ruleset's: older logs verify against them)
    assert chip["event"]["outcome"]["roll"] in chip["event"]["steps"][0]
    assert "chip spent on roll “Notice d6” (trait)" in chip["cards"][-1]["content"]
    assert "standinGM000001-" not in chip["cards"][-1]["content"]

    attack = steps["attack"]
    assert attack["event"]["targets"] == ["thug-1"], "the hand-mapped NPC is the target"
    assert attack["cards"][-1]["rolls"] == [{"formula": "{1d8x,1d6x}kh1", "total": 7}]
    assert attack["thug"]["system"]["wounds"]["value"] == 0

    damage = steps["damage"]  # 12 against Toughness 5: a wound, and an NPC is out
    assert [r["formula"] for r in damage["cards"][-1]["rolls"]] == ["1d6x", "2d6x"]  # no wild die
    assert damage["thug"]["system"]["wounds"]["value"] == 1
    assert set(damage["thug"]["statuses"]) == {"shaken", "incapacitated"}
    assert damage["thug"]["flags"]["common"]["status"] == "down"
    assert damage["thug"]["flags"]["limited"] is True  # the players' view, never the GM's

    undone = steps["undo"]
    assert undone["thug"]["system"]["wounds"]["value"] == 0 and undone["thug"]["statuses"] == []
    assert undone["thug"]["flags"]["common"]["status"] == "ok"
    assert undone["thug"]["flags"]["seq"] > damage["thug"]["flags"]["seq"]
    # the damage's card is flagged undone for every client (foundry/undone.mjs): before,
    # nothing on it told players, who read "out of the fight" with the thug standing
    cards = {card["seq"]: card for card in undone["cards"]}
    assert cards[damage["cards"][-1]["seq"]]["undoneAt"] == undone["thug"]["flags"]["seq"]
    assert [c["seq"] for c in undone["cards"] if c["undoneAt"] is not None] == [
        damage["cards"][-1]["seq"]
    ]

    # her window dropped with the damage its last event: the undo is resent, once
    assert steps["reconnect"]["resume"] == {"recovered": True, "missed": 1}
    assert steps["reconnect"]["resent"] == ["undo"]
