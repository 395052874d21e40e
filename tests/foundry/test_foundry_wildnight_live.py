"""A wilddie game night in the Foundry stand-in, against a real ``rollbridge serve``
over a real SQLite file, with a server restart (not a restore) in the middle of a
fight: tests/foundry/live/wildnight.mjs runs the module's client as the active GM's
page (a SWADE world, so ``auto`` maps wounds and Shaken), a second GM as a protocol
client of the GM's token, a player with two browser windows (two connections of one
token) and another player, and a combat run by Foundry's tracker, which the GM moves
on while the server is down.

What it checks, as a GM would: never a card twice nor an error shown; the restart
keeps the epoch, every client resumes (``recovered``), and the turn the GM moved to
while the server was down is the server's once it is back; both of the player's
windows are sent the same events, before and after the restart; a roll from either
window is a new event (the walk's own players once sent the same request id from
both windows, which the server rightly answered as a repeat: ids are scoped by
token); the fight goes on after the restart with one new card per request.
"""

from __future__ import annotations

from tests.foundry.live_script import clean_walk


def test_a_wilddie_night_through_a_server_restart_in_the_standin(tmp_path):
    steps = clean_walk("wildnight.mjs", tmp_path)
    fight = steps["fight"]
    assert fight["encounter"]["turn"] == fight["tracker"]["turn"] == 1
    assert fight["encounter"]["current"] == fight["tracker"]["actor"]
    first, second = fight["windows"]
    assert first == second and first, "both of alice's windows were sent the same events"
    assert (
        fight["thug0"]["wounds"] == 1 and "Incapacitated" in fight["thug0"]["flags"]["conditions"]
    )
    restarted = steps["restarted"]
    assert restarted["epoch"] == steps["cast"]["epoch"], "a restart is no restore: the same epoch"
    assert all(r["recovered"] is True for r in restarted["resumes"]), restarted["resumes"]
    # the turn the GM moved to while the server was down: sent once it was back
    assert restarted["tracker"]["turn"] == 2 and restarted["server"]["turn"] == 2
    assert restarted["server"]["current"] == restarted["tracker"]["actor"]
    assert restarted["cards"] == fight["cards"], "no card posted again after the restart"
    after = steps["after restart"]
    assert after["encounter"]["turn"] == after["tracker"]["turn"] == 3
    assert after["cardsAdded"] == 2, "the thug's attack and alice's roll, each once"
    assert after["rolled"]["status"] == "done"
    first, second = after["lastEvents"]
    assert first == second and first[-1].endswith(":roll"), after["lastEvents"]
    assert steps["combat over"]["encounter"] is None
