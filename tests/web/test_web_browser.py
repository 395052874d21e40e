"""The web view and the overlay in real headless Chromium against a real server
(issue 17, item 6): browser/web.mjs drives a GM's page, a player's phone page, an
observer's overlay and a table whose actor's name is HTML; this test starts the
server (seeded dice, a SQLite file in tmp), runs the script, and judges what the
pages showed and received.

Needs Debian's ``chromium``, node and ``playwright-core`` (``npm ci`` in
tests/foundry); skipped when chromium is missing.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tests.web.conftest import XSS_NAME

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
FOUNDRY = ROOT / "tests" / "foundry"
CHROMIUM = os.environ.get("ROLLBRIDGE_CHROMIUM", "/usr/bin/chromium")
#: Where the screenshots the docs show are kept (docs/web.md): written there only when
#: ``ROLLBRIDGE_UPDATE_SHOTS=1`` asks, so that a test run leaves the checkout as it was.
IMAGES = ROOT / "docs" / "images"
SHOTS = ("web-gm.png", "web-player-phone.png", "web-overlay.png", "web-stats.png")

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM}")


def requirements() -> list[str]:
    """What the test needs besides chromium, and is missing."""
    missing = []
    if shutil.which("node") is None:
        missing.append("node (Node.js 20)")
    if not (FOUNDRY / "node_modules" / "playwright-core").is_dir():
        missing.append("playwright-core (npm ci --prefix tests/foundry)")
    return missing


async def run_script(script: str, env: dict[str, str], secrets: list[str]) -> dict:
    """Run a browser script under node;
    its ``RESULT`` line, parsed; tokens are blanked out of what a failure shows."""
    process = await asyncio.create_subprocess_exec(
        "node",
        str(HERE / "browser" / script),
        cwd=HERE,
        env={**os.environ, **env},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 300)
    output = (out + err).decode("utf-8", "replace")
    for secret in secrets:
        output = output.replace(secret, "[token]")
    assert process.returncode == 0, output[-8000:]
    (line,) = [x for x in out.decode().splitlines() if x.startswith("RESULT ")]
    return json.loads(line[len("RESULT ") :])


def faces_drawn(summary: dict) -> dict[str, list[list[int]]]:
    """What a statistics chart should draw of a summary: per die size, each face
    with its count, in face order."""
    return {
        faces: sorted([int(face), count] for face, count in die["faces"].items())
        for faces, die in summary["dice"].items()
    }


def die_text(die: dict) -> str:
    """How a die reads on the page: its value, or the chain of an exploding die."""
    rolls = die.get("rolls") or []
    return "+".join(map(str, rolls)) if len(rolls) > 1 else str(die["value"])


async def test_the_web_view_in_chromium(web_world, debug_log, tmp_path):
    missing = requirements()
    if missing:
        pytest.fail("the web view's browser test needs: " + "; ".join(missing))
    secrets = [token for table in web_world.tokens.values() for token in table.values()]
    shots = IMAGES if os.environ.get("ROLLBRIDGE_UPDATE_SHOTS") == "1" else tmp_path
    shots.mkdir(parents=True, exist_ok=True)
    env = {
        "RB_BASE": web_world.base,
        "RB_TOKENS": json.dumps(web_world.tokens),
        "RB_CHROMIUM": CHROMIUM,
        "RB_SHOTS": str(shots),
    }
    result = await run_script("web.mjs", env, secrets)
    tokens = web_world.tokens["web"]

    # joining: the fragment's token left the address bar; roles as the tokens say
    assert result["join"]["gmAddress"] == f"{web_world.base}/tables/web"
    assert result["join"]["gmRole"].startswith("GM") and "hráč" in result["join"]["playerRole"]

    # each page in its browser's language: the Czech phone's words are Czech (from
    # lang/cs.json, before joining too), the GM's English
    words = result["words"]
    assert words["joinButton"] == "Připojit se" and words["joinLabel"] == "Token ke stolu"
    assert words["lang"] == "cs" and words["status"] == "připojeno"
    # in the markup's order, which is a phone's (the log before the forms)
    assert words["headings"] == ["Postavy", "Střetnutí", "Záznam", "Hod", "Akce", "Statistiky"]
    assert words["gmLang"] == "en"
    english = ["Actors", "Encounter", "Log", "Roll", "Action", "GM", "Statistics"]
    assert words["gmHeadings"] == english
    assert "attack" in result["join"]["playerActions"]
    # only the actor the player controls (or nobody: the first action's actor is optional)
    assert [actor for actor in result["join"]["playerActors"] if actor] == ["tukan"]

    # a wrong token: refused with the server's reason, the join form shown again
    refused = result["refused"]
    assert refused["joinShown"] and refused["tableHidden"] and refused["message"]

    # the phone-sized page has nothing wider than the screen
    assert result["phoneWidth"][0] <= result["phoneWidth"][1] == 390

    # a roll in one page appears in the other, every die as the server sent it
    roll = result["roll"]
    sent = [die for group in roll["frame"] for die in group["dice"]]
    assert [d["text"] for d in roll["player"]] == [die_text(d) for d in sent]
    assert roll["player"] == roll["gm"]
    exploded = [i for i, d in enumerate(sent) if "exploded" in d.get("tags", [])]
    assert exploded, "the seeded 4d6x should explode (tests/web/conftest.py SEED)"
    assert all("die-exploded" in roll["player"][i]["classes"] for i in exploded)

    # its time: the frame's `at` in the player's time zone (Europe/Prague), the
    # instant in `datetime`, the full date in the title
    at = roll["frameAt"]
    assert isinstance(at, (int, float)) and at > 0
    shown = datetime.fromisoformat(roll["time"]["datetime"].replace("Z", "+00:00"))
    assert shown.tzinfo is not None and abs(shown.timestamp() - at) < 0.001
    prague = datetime.fromtimestamp(at, ZoneInfo("Europe/Prague"))
    assert roll["time"]["text"] == prague.strftime("%H:%M")
    title = roll["time"]["title"]  # e.g. "středa 2. prosince 2026 v 23:10:15 SEČ"
    assert str(prague.year) in title and prague.strftime(":%M:%S") in title

    # the player's form resolved the attack: Rook's track changed in both pages
    attack = result["attack"]
    assert attack["before"]["gm"] == attack["before"]["player"] == "0/10"
    rook = next(t for t in attack["frameRook"]["tracks"] if t["key"] == "physical")
    assert rook["value"] > 0, "the seeded attack should hit Rook (tests/web/conftest.py SEED)"
    assert attack["after"]["gm"] == attack["after"]["player"] == f"{rook['value']}/{rook['max']}"
    # each in its own language: the Czech player's narration as the server sent it
    assert attack["narration"]["player"] == attack["frameNarration"]
    assert attack["narration"]["gm"] and attack["narration"]["gm"] != attack["frameNarration"]
    assert set(attack["frameNarration"]) & set("áčďéěíňóřšťúůýž"), attack["frameNarration"]
    assert attack["stepsOpen"] is False and attack["steps"] > 0 and attack["diceShown"] > 0

    # undo in the GM's page reverted it in the player's
    assert result["undo"]["seq"] > attack["seq"]
    assert result["undo"]["player"] == result["undo"]["gm"] == "0/10"
    # the GM's buttons named what they take: the attack, then (undone) its redo
    buttons = result["undo"]["buttons"]
    assert buttons["before"]["undo"] == {
        "text": f"Undo #{attack['seq']} (action)",
        "seq": str(attack["seq"]),
        "disabled": False,
    }
    assert buttons["before"]["redo"] == {"text": "Redo", "seq": None, "disabled": True}
    assert buttons["after"]["redo"] == {
        "text": f"Redo #{attack['seq']} (action)",
        "seq": str(attack["seq"]),
        "disabled": False,
    }
    assert buttons["after"]["undo"]["seq"] != str(attack["seq"])

    # the GM's secret roll: the GM reads it; the player has a placeholder only
    secret = result["secret"]
    assert "48611" in secret["gmText"] and "ambush check" in secret["gmText"]
    assert "kind-hidden" in secret["playerClass"]
    assert secret["playerFrame"]["kind"] == "hidden" and "data" not in secret["playerFrame"]
    assert secret["playerFrames"] == 0 and secret["playerHas"] is False
    # a placeholder carries no time; the GM's line has one
    assert secret["playerTimes"] == 0 and secret["gmTime"]

    # the drop: resumed with exactly the missed events, no line lost or doubled
    resume = result["resume"]
    assert resume["player"] == sorted(set(resume["player"]))
    assert resume["player"] == resume["gm"]
    assert set(resume["away"]) <= set(resume["player"])
    assert len(resume["welcomes"]) == 2 and resume["welcomes"][0]["resume"] is None
    assert resume["welcomes"][1]["resume"] == {"recovered": True, "missed": 2}
    assert resume["gaps"] == 0
    assert [w["locale"] for w in resume["welcomes"]] == ["cs", "cs"]  # the browser's language
    assert "while away one" in resume["awayTexts"][0] and "while away two" in resume["awayTexts"][1]

    # an event skipped for the player: the next one showed a gap, the page dropped the
    # line and resumed from before it, and got both, once each, in order
    gap = result["gap"]
    first, second = gap["skipped"]
    assert gap["swallowed"] == [first] and second == first + 1
    assert gap["events"] == [second, first, second]  # the one after the gap, then the resume's
    assert gap["welcomes"] == [{"seq": second, "resume": {"recovered": True, "missed": 2}}]
    assert gap["player"] == gap["gm"] == sorted(set(gap["gm"])) and second in gap["player"]
    assert "skipped once" in gap["texts"][0] and "after the gap" in gap["texts"][1]

    # the statistics panels drew the reply each page received, bar for bar: the
    # session and every actor, each die size's faces with their counts
    stats = result["stats"]
    assert stats["seq"] == stats["playerSeq"] >= gap["skipped"][1]
    for who in ("gm", "player"):
        page = stats[who]
        assert page["replies"] == 1 and page["reply"]["audience"] == who
        summaries = {"session": page["reply"]["session"], **page["reply"]["actors"]}
        assert page["drawn"] == {key: faces_drawn(s) for key, s in summaries.items()}, who
        assert page["drawn"]["session"]["6"], who  # the night's d6 are drawn
        drawn_d6 = sum(count for _, count in page["drawn"]["session"]["6"])
        assert drawn_d6 == page["reply"]["session"]["dice"]["6"]["count"], who
    # counted in each page's language, the Czech with its plural forms
    session = {who: stats[who]["reply"]["session"] for who in ("gm", "player")}
    assert stats["gmLine"].startswith(f"{session['gm']['rolls']} rolls · ")
    czech_rolls = {1: "hod", 2: "hody", 3: "hody", 4: "hody"}.get(session["player"]["rolls"])
    czech_rolls = czech_rolls or "hodů"
    assert stats["playerLine"].startswith(f"{session['player']['rolls']} {czech_rolls} · ")
    # "the last hour" asks by the server's event times: the whole night is in it
    hour = stats["gmHour"]["reply"]
    assert set(hour["scope"]) == {"from_time"} and stats["gm"]["reply"]["scope"] == {}
    assert hour["session"] == stats["gm"]["reply"]["session"]
    # the player's statistics leave out exactly the GM's secret roll's dice
    secret_dice = stats["secretDice"]
    assert secret_dice == [6] * len(secret_dice) and len(secret_dice) >= 17
    gm_d6 = stats["gm"]["reply"]["session"]["dice"]["6"]["count"]
    player_d6 = stats["player"]["reply"]["session"]["dice"]["6"]["count"]
    assert gm_d6 - player_d6 == len(secret_dice)

    # a player joining late reads the log from before (the export, as a player):
    # every seq the GM's page shows, once each, the secret roll as a placeholder
    late = result["late"]
    assert late["seqs"] == late["gm"] and late["history"] == len(late["gm"])
    assert late["seqs"][0] == 1
    assert "kind-hidden" in late["secretClass"] and late["hasSecret"] is False
    assert late["rollTime"] == roll["time"]["datetime"]  # the export's events carry their time
    assert [u for u in late["requests"] if "/export?" in u] == [
        f"{web_world.base}/tables/web/export?format=jsonl&since=0&locale=en"
    ]

    # the overlay: transparent, the latest roll with its dice, no controls
    overlay = result["overlay"]
    assert overlay["address"] == f"{web_world.base}/tables/web/overlay"
    assert overlay["background"] == [["rgba(0, 0, 0, 0)", "none"]] * 2
    assert overlay["controls"] == 0
    assert overlay["dice"] == overlay["gmDice"] and overlay["dice"]
    assert overlay["actors"] == ["tukan", "rook", "guard-a"]

    # approvals: the player's roll waited; approved, both pages show it; rejected,
    # it was never rolled; the GM's adjustment reached the player; a player has no
    # GM controls
    approval = result["approval"]
    assert approval["gmPanelHidden"] == {"player": True, "gm": False}
    assert approval["approvedSeq"] > 0 and approval["pendingAfterApprove"] == 0
    assert approval["rejectedRolls"] == 0
    assert approval["adjusted"] == {"player": "3/10", "gm": "3/10"}
    assert approval["redone"] == "3/10"  # undone (0/10 seen), then redone

    # the encounter's order and whose turn it is, in both pages
    encounter = result["encounter"]
    assert encounter["order"] == ["tukan", "guard-a"] and encounter["playerButtons"] == ["next"]
    # "this encounter" asks from the seq of its encounter.started: no roll since
    counted = encounter["stats"]["reply"]
    assert set(counted["scope"]) == {"encounter"} and counted["session"]["rolls"] == 0
    assert counted["first_seq"] == counted["scope"]["encounter"]
    assert encounter["afterNext"] == {"gm": "guard-a", "player": "guard-a"}
    # the player ends only Tukan's turn: on the guard's, no Next for them
    assert encounter["buttonsOnGuardsTurn"] == {"player": [], "gm": ["next", "end"]}

    # a name made of HTML is text everywhere: no img element, no dialog
    for name, page in result["xss"].items():
        assert page["images"] == 0, name
        assert page["names"] == [XSS_NAME], name
        assert XSS_NAME in page["text"], name
    assert "<img src=x onerror=alert(2)>" in result["xss"]["gm"]["text"]
    # the policy is in force: a string cannot become HTML or script, inline style is ignored
    policy = result["policy"]
    assert policy["innerHTML"] == policy["inlineScript"] == "TypeError"
    assert policy["ranInline"] is False and policy["inlineStyle"] != "rgb(255, 0, 0)"
    assert result["trouble"]["dialogs"] == []
    assert result["trouble"]["errors"] == []  # no script error, no CSP violation

    # no token in any request's URL, nor in the server's log
    assert result["requests"] and not [u for u in result["requests"] if "token" in u or "rbt_" in u]
    log = debug_log.getvalue()
    assert "GET /tables/web HTTP/1.1" in log or "/tables/web" in log
    for token in secrets:
        assert token not in log and token[4:20] not in log
    for shot in SHOTS:
        data = (shots / shot).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 1000
    del tokens
