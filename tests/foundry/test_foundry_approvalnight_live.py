"""A Foundry GM's game night at an approval table, in the Foundry stand-in, against a
real ``rollbridge serve`` over a real SQLite file: tests/foundry/live/approvalnight.mjs
runs the module's client as the active GM's page (a second GM logged in, not the
active GM), two players as protocol clients of the Foundry dialect. A player's attack
with her own dice on an unlinked goblin's token held and approved with the GM's dice
(*Approve with my dice…*), the GM's undo of it, a roll held across the GM's world
reload, the server stopped and started again on the same file, a second unlinked
token hit, and the GM's page loaded again in cs, de, ru and en (Foundry reloads on a
language change), a request held and approved in each.

What a GM meets, checked at each step: one card per event and approval, no error
notice, the undone card marked, each resume recovered, each unlinked token's own
state in its token (never its base actor's), the approval card and the connection
notice in the page's language — and every approval card of the night, those posted
under an earlier language too, titled in the page's language by its render hook.
"""

from __future__ import annotations

from tests.foundry.live_script import clean_walk

TITLES = {
    "cs": "bob žádá: 1d6",
    "de": "bob bittet um 1d6",
    "ru": "bob просит: 1d6",
    "en": "bob asks for 1d6",
}
CONNECTED = {
    "cs": "připojeno ke stolu",
    "de": "verbunden als Spielleiter",
    "ru": "подключено к столу",
    "en": "connected to table",
}


def test_an_approval_night_holds_no_double_card_stale_state_or_wrong_language(tmp_path):
    steps = clean_walk("approvalnight.mjs", tmp_path)
    cast = steps["cast"]
    assert (cast["activeGM"], cast["writer"]) == ("standinGM000001", True), "the first GM writes"
    link = steps["link one of 200"]
    assert link["actors"] == 200
    assert link["framesSent"] == [], "linking one actor sends nothing: no state read of 200"
    assert link["thug"] == {"actorId": "npc-150", "status": "ok", "withheld": None}, link["thug"]
    approved = steps["approved with my dice"]
    assert approved["approvedBy"] == "gm" and approved["goblin"] == "impaired", approved
    kinds = [c["kind"] for c in approved["cards"]]
    assert kinds == ["approval.requested", "resolution"], kinds
    undone = steps["undo"]
    assert undone["goblin"] == "ok", "the undo took the goblin's wound back in its token"
    marked = [c["undone"] for c in undone["cards"]]
    assert marked == [False, True], "the attack's card marked undone"
    reload = steps["gm reload"]
    assert reload["resume"]["recovered"] is True
    assert len(reload["pendingCard"]) == 1, "the waiting request's card once after the reload"
    assert steps["approved after reload"]["cards"][-1]["kind"] == "roll"
    restart = steps["server restart"]
    assert restart["resume"]["recovered"] is True
    assert restart["aliceResume"]["recovered"] is True
    # a roll held across the restart still waits, and is approved with the player's die
    assert (restart["waitingAfter"], restart["settledAfter"]) == ("waiting", "approved")
    assert restart["bobTotal"] == 5
    token = steps["unlinked token"]
    assert token["other"] == "impaired", "the token's own state"
    assert token["base"] is None, "nothing in its base actor's flags"
    for lang, title in TITLES.items():
        step = steps[f"language {lang}"]
        assert step["welcomeLocale"] == lang
        assert [title in text for text in step["approvalText"]] == [True], (
            lang,
            step["approvalText"],
        )
        assert any(CONNECTED[lang] in n for n in step["notices"]), (lang, step["notices"])
        # an action's approval card names it by its label in the GM's language, as its
        # resolution's card does (before: its id, "alice asks for attack" in every language)
        label = step["attackLabel"]
        assert label and (lang == "en" or label != "attack"), (lang, label)
        # every approval card of the night, those posted under an earlier language too,
        # titled in this page's language (before: as the active GM posted it)
        rendered = step["rendered"]
        verb = TITLES[lang].removeprefix("bob ").removesuffix(" 1d6")
        assert len(rendered) >= 8, (lang, rendered)  # the night's cards, every language's
        assert all(t.split(" ", 1)[1].startswith(verb + " ") for t in rendered), (lang, rendered)
        assert f"alice {verb} {label}" in rendered, (lang, rendered)
        [attack] = step["attackText"]
        assert f">alice {TITLES[lang].split()[1]}" in attack, (lang, attack)
        assert f" {label}</span>" in attack, (lang, attack)
