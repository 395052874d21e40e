"""A second game night's log, read in a Russian and a Czech phone's page and the
German overlay. Who did each thing, the track the GM adjusted and what an undo took
were English or codes in every language (``player``, ``physical``, ``undo of #5
(adjusted)``, ``undo of #7 (encounter.turn)``; a rejected request ``player:alice —
resolve``; the GM's line of a waiting request named the action ``success_test``); a
player's line of an NPC's adjustment, whose numbers its event leaves out, read
``Guard A: undefined undefined``; the statistics' span said ``seq 1–9``; a turn
hook's dice (wilddie's recovery from Shaken, WD-9) were not drawn; verifiable dice's
lines said no commitment or seed.
They read in the page's and the ruleset's words now, as the top bar, the actor
cards and the list of waiting requests already did."""

from __future__ import annotations

import json
import re

from tests.web.test_web_browser import CHROMIUM, pytestmark, run_script  # noqa: F401


async def test_a_game_nights_log_in_the_pages_and_the_rulesets_words(web_world):
    env = {"RB_BASE": web_world.base, "RB_TOKENS": json.dumps(web_world.tokens),
           "RB_CHROMIUM": CHROMIUM}  # fmt: skip
    secrets = [t for r in web_world.tokens.values() for t in r.values()]
    result = await run_script("gamenight.mjs", env, secrets)
    assert result["trouble"] == {"errors": [], "dialogs": []}
    words = {
        "ru": {"player": "игрок", "track": "Физический урон", "adjusted": "изменено",
               "turn": "следующий ход", "gm": "мастер"},
        "cs": {"player": "hráč", "track": "Zranění", "adjusted": "upraveno",
               "turn": "další tah", "gm": "PJ"},
    }  # fmt: skip
    # the statistics' span by the log's numbers, not the wire's English "seq"
    assert re.fullmatch(r"\d+ событи[ейя]+, #1–#\d+", result["span"]["ru"]), result["span"]
    assert re.fullmatch(r"\d+ událost[íi]?, #1–#\d+", result["span"]["cs"]), result["span"]
    for lang, want in words.items():
        log = result[lang]
        assert result["tracks"][lang] == want["track"], result["tracks"]
        roll = next(e for e in log if e["kind"] == "kind-roll")
        assert roll["by"] == want["player"], roll  # not "player"
        adjusted, npc = [e for e in log if e["kind"] == "kind-adjusted"]
        assert npc["summary"] == "Guard A", npc  # not "Guard A: undefined undefined"
        assert adjusted["by"] == want["gm"], adjusted  # not "gm"
        assert adjusted["summary"] == f"Rook: {want['track']} +2", adjusted  # not "physical"
        undos = [e for e in log if e["kind"] in ("kind-undo", "kind-redo")]
        assert len(undos) == 3, log
        assert all(want["adjusted"] in undo["summary"] for undo in undos[:2]), undos
        assert want["turn"] in undos[2]["summary"], undos
        codes = ("player", "adjusted", "physical", "encounter.", "gm")
        for entry in log:
            for text in (entry["by"], entry["summary"]):
                assert not any(code in (text or "") for code in codes), entry
    # a page that joins later reads the same lines from the session log's export
    late = result["late"]
    assert [e["summary"] for e in late] == [e["summary"] for e in result["ru"]], late
    gm = result["gm"]
    assert next(e for e in gm if e["kind"] == "kind-roll")["by"] == "player", gm
    adjusted = [e["summary"] for e in gm if e["kind"] == "kind-adjusted"]
    assert adjusted == ["Rook: Physical +2", "Guard A: Stun +1"], gm
    assert result["overlay"] == "Spielleiter — Würfel zwei", result["overlay"]

    # approval: the GM's line names the action as the pending list does; the
    # rejection reads in the player's words
    asked = next(e for e in result["asked"] if e["kind"] == "kind-approval-requested")
    # its parameters in the ruleset's words, as the form says them (they read dice=3, tn=4)
    assert "Success test: Tukan (Dice: 3, Target number: 4)" in asked["summary"], asked
    assert "success_test" not in asked["summary"], asked
    ru = next(e for e in result["rejected"]["ru"] if e["kind"] == "kind-approval-rejected")
    assert ru["summary"] == f"{asked['summary'].split(':')[0]}: игрок — действие", ru
    gm = next(e for e in result["rejected"]["gm"] if e["kind"] == "kind-approval-rejected")
    assert gm["summary"].endswith(": player — action"), gm
    # wilddie: the turn hook's recovery roll (WD-9) shows its dice: Character d6 and
    # the wild die, the lower dropped
    assert result["shaken"]["status"] == "done", result["shaken"]
    recovery = result["recovery"]
    assert any(line.startswith("Ana") for line in recovery["narration"]), recovery
    assert len(recovery["heads"]) == 1 and "{1d6!!, 1d6!!}kh" in recovery["heads"][0], recovery
    assert len(recovery["dice"]) == 2, recovery
    assert any("wild" in die["classes"] for die in recovery["dice"]), recovery
    # verifiable dice: the log says a segment's commitment (what a player notes
    # before its rolls; the newest, segment 2, after the reveal) and, revealed, its
    # seed; the line wraps on a phone
    verifiable = result["verifiable"]
    assert (verifiable["reply"], verifiable["reveal"]) == ("done", "done"), verifiable
    assert re.fullmatch(r"úsek 2: SHA-256 [0-9a-f]{64}", verifiable["committed"]), verifiable
    assert re.fullmatch(r"úsek 1: semínko [0-9a-f]{64}", verifiable["revealed"]), verifiable
    assert verifiable["wide"] is False, verifiable
