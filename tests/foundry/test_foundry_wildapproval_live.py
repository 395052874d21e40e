"""A wilddie game night at an approval table in the Foundry stand-in, against a real
``rollbridge serve`` over a real SQLite file: tests/foundry/live/wildapproval.mjs runs
the module's client as the active GM's page of a SWADE world (a second GM logged in,
not the active GM), two players as protocol clients of the Foundry dialect. Alice's
trait test with her own dice held and approved; bob's damage roll for no character
refused by the ruleset (WD-10); bob's attack held while the GM's page is reloaded, then
approved; alice's roll held across a restart of the server on the same file; the GM's
page loaded again in German, a request held and approved there.

What a GM meets, checked at each step: one card per event and approval, no error
notice, each resume recovered, each approval card settled as approved, every approval
card of the night titled in German by the German page. What the night found: wilddie
refuses a player's damage roll for no character with ``forbidden`` — rollbridge's own
code, which the module keys on (a draw sent again without its actor) — and until 7
December 2026, late night, it reached clients unmarked, as the server's own; it now
carries ``details.origin: "ruleset"`` (docs/protocol.md, "Error codes")."""

from __future__ import annotations

from tests.foundry.live_script import clean_walk


def test_a_wilddie_approval_night_through_a_reload_a_restart_and_german(tmp_path):
    steps = clean_walk("wildapproval.mjs", tmp_path)
    assert steps["cast"]["activeGM"] == "standinGM000001", "the first GM writes"
    trait = steps["trait approved"]
    assert (trait["approvedBy"], trait["outcome"], trait["cards"]) == ("gm", "approved", 2), trait
    refused = steps["ruleset refusal"]["reply"]
    assert (refused["type"], refused["code"]) == ("error", "forbidden"), refused
    assert refused["details"] == {"field": "actor", "origin": "ruleset"}, refused
    assert steps["ruleset refusal"]["cards"] == 2, "a refusal posts no card"
    reload = steps["gm reload mid-roll"]
    assert reload["resume"]["recovered"] is True
    assert (reload["waitingAfterReload"], reload["outcome"]) == ("waiting", "approved"), reload
    assert reload["cards"] == 4, "the attack's approval card and its resolution, each once"
    restart = steps["server restart"]
    assert restart["resume"]["recovered"] is True
    assert all(r["recovered"] is True for r in restart["resumes"]), restart["resumes"]
    assert (restart["waitingAfterRestart"], restart["outcome"]) == ("waiting", "approved")
    assert restart["total"] == 5, "the player's own die, kept across the restart"
    german = steps["german"]
    assert german["welcomeLocale"] == "de" and german["outcome"] == "approved", german
    assert german["traitLabel"] and german["traitLabel"] != "trait", german
    assert len(german["rendered"]) == 4, german["rendered"]
    assert all(" bittet um " in title for title in german["rendered"]), german["rendered"]
    assert any(german["traitLabel"] in title for title in german["rendered"]), german["rendered"]
