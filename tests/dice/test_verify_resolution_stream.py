"""``rollbridge verify`` judges the stream of a resolution as it does a roll's.

A resolution that is not secret, not approved, and names no NPC (its actor and
targets all actors a player controls) is drawn on the public stream, whose seed
players see at the reveal; drawn on the GM's stream, it escapes the players' check.
Before, verify judged only ``roll`` events so ("which of their actors make them NPC
business depends on the ruleset's action", docs/dice.md): a player's trait test the
log said was drawn on the GM's stream was counted as the GM's business and the
player's export verified (exit 0). The log's table (each actor's controllers) and the
ruleset's spec (an action on every actor) say which actors a resolution names, as
they do when it is resolved again.
"""

from __future__ import annotations

import json

import pytest

from rollbridge.adapters.foundry.adapter import FoundryAdapter
from tests.dice.test_verify_players_dice import GM, PLAYER, _ana_and_guard, _moved_to_gm, _verified
from tests.dice.test_verify_players_dice import _roll as _event
from tests.dice.test_verify_resolutions import _with_players_copies

pytestmark = pytest.mark.usefixtures("english_without_stores")


@pytest.fixture
def exports(tmp_path) -> dict[str, list[dict]]:
    """A verifiable wilddie table: the player's trait test (public stream), the
    player's attack on the NPC and the GM's attack of the NPC on Ana (GM's stream),
    a reveal; the GM's and the player's exports, as lines."""
    requests = [
        (PLAYER, {"id": "trait", "actor": "ana", "action": "trait",
                  "params": {"trait": "notice"}}),
        (PLAYER, {"id": "hit", "actor": "ana", "action": "attack", "targets": ["guard"],
                  "params": {"mode": "melee"}}),
        (GM, {"id": "back", "actor": "guard", "action": "attack", "targets": ["ana"],
              "params": {"mode": "melee"}}),
    ]  # fmt: skip
    return _ana_and_guard(tmp_path, "check", [(w, {"type": "resolve", **r}) for w, r in requests])


@pytest.mark.parametrize("who", ["gm", "player"])
def test_the_honest_logs_verify(tmp_path, exports, who):
    lines = exports[who]
    draws = {r: _event(lines, r)["data"]["draws"] for r in ("trait", "hit", "back")}
    assert draws["trait"]["stream"] == "public"
    for npcs in ("hit", "back"):  # a player's view withholds the draws of an NPC's event
        assert draws[npcs].get("stream") == ("gm" if who == "gm" else None), draws
    status, report = _verified(tmp_path, lines)
    assert status == 0 and report["ok"], report


def test_a_players_resolution_moved_to_the_gms_stream_is_a_mismatch(tmp_path, exports):
    trait = _event(exports["player"], "trait")
    status, problems, report = _moved_to_gm(tmp_path, exports["player"], "trait")
    assert (status, problems) == (1, [("public_on_gm", trait["seq"])])
    assert report["problems"][0]["message"] == (
        f"seq {trait['seq']}: a resolution that is not secret, not approved and names no "
        "NPC was drawn on the GM's stream, whose seed players never see: its dice belonged "
        "on the public stream"
    )


def test_a_resolution_naming_an_npc_is_the_gms_business(tmp_path, exports):
    """The attacks name the guard, an NPC: the GM's stream is theirs. Were the guard
    a player's (as the log shows it), they would belong on the public stream."""
    lines = exports["gm"]
    attacks = [_event(lines, "hit"), _event(lines, "back")]
    assert all(a["data"]["draws"]["stream"] == "gm" for a in attacks)
    created = next(e for e in lines if e.get("kind") == "actor.created"
                   and e["actors"][0]["id"] == "guard")  # fmt: skip
    created["actors"][0]["controllers"] = ["player"]
    status, report = _verified(tmp_path, lines)
    assert status == 1
    # (the guard's own attack, resolved again for a player's guard, differs too)
    judged = [(p["code"], p["seq"]) for p in report["problems"] if p["code"] == "public_on_gm"]
    assert judged == [("public_on_gm", attack["seq"]) for attack in attacks]


def test_a_field_added_to_the_frame_does_not_keep_the_stream_from_the_check(tmp_path, exports):
    """A frame with the Foundry module's ``foundry`` field: resolved again without it
    (since 7 December 2026; before, counted ``dialect``, not resolved again). Before, its stream
    was not judged either: a server had only to add such a field to a player's trait
    test drawn on the GM's stream for the player's export to verify (exit 0)."""
    lines = exports["player"]
    trait = _event(lines, "trait")
    trait["data"]["draws"]["stream"] = "gm"
    # the frame as the Foundry adapter translates it (docs/dice.md, "A dialect's own
    # fields": a made-up field of its would be wrong_dialect too)
    lines[:] = [FoundryAdapter().outbound(line) for line in lines]  # the module's log
    trait = _event(lines, "trait")
    status, report = _verified(tmp_path, lines)
    assert status == 1
    assert [(p["code"], p["seq"]) for p in report["problems"]] == [("public_on_gm", trait["seq"])]


@pytest.mark.parametrize("who", ["gm", "player"])
def test_an_honest_log_in_the_foundry_dialect_still_verifies(tmp_path, exports, who):
    """Every event as the Foundry adapter translates it (its ``foundry`` fields beside
    its data, draws and actors as they were): the NPC's attacks on the GM's stream are
    the GM's business there too, and nothing is a mismatch: the adapter's fields taken
    off, every resolution the plain log resolves again is resolved again."""
    lines = exports[who]
    status, plain = _verified(tmp_path, lines)
    if who == "gm":  # the players' copy the server gives a Foundry GM's frames
        _with_players_copies(lines, [json.dumps(line) for line in exports["player"]])
    # the whole log as the module writes it, its welcome too (a welcome without the
    # adapter's fields beside lines that carry them is a stripped one: wrong_dialect)
    lines[:] = [FoundryAdapter().outbound(line) for line in lines]
    assert all("foundry" in line for line in lines if line.get("kind") == "resolution")
    status, report = _verified(tmp_path, lines)
    assert status == 0 and report["ok"], report["problems"]
    assert (report["resolved"], report["unresolved"]) == (plain["resolved"], plain["unresolved"])
    assert report["resolved"] > 0
