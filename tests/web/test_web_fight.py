"""A techlevel fight in the browser (browser/fight.mjs): a Czech GM on a 1366×768
laptop asks players' requests first; a Russian player on a 360×740 touch phone, a
German one on a 768×1024 tablet and an English screen-reader user with the keyboard
alone each play a character against an NPC guard — an approval by mouse and one by
keyboard, an undo, the tablet's line lost and back, the GM's reload. Real Chromium
against a real server over a real SQLite file."""

from __future__ import annotations

import json
import os

from tests.web.test_web_browser import CHROMIUM, pytestmark  # noqa: F401
from tests.web.test_web_i18n import catalog
from tests.web.test_web_phone import run_case


def fight_table(world) -> dict:
    """The table ``fight`` (techlevel, approval on): Ana (anya's), Knight (bernd's),
    Sentinel (sam's) and the NPC Guard; the GM's token and each player's."""
    from rollbridge.engine import Principal
    from rollbridge.host import PluginHost
    from rollbridge.offline import TableService
    from rollbridge.tokens import new_token

    host, gm = PluginHost(), Principal("gm", "gm", "setup")
    service = TableService(world.store, host)
    _, tokens = service.create_table("Bitva u brány", "techlevel", table_id="fight")
    service.handle("fight", {"type": "settings", "id": "s", "settings": {"approval": True}}, gm)
    found = {"table": "fight", "gm": tokens["gm"]}
    sheets = host.rulesets["techlevel"].example_sheets
    for index, (actor, sheet, player) in enumerate(
        [("ana", "Ana", "anya"), ("knight", "Knight", "bernd"), ("sentinel", "Sentinel", "sam"),
         ("guard", "Guard", None)]
    ):  # fmt: skip
        controllers = [player] if player else []
        request = {"type": "actor.create", "id": f"a{index}",
                   "actor": {"id": actor, "name": sheet, "sheet": dict(sheets[sheet]),
                             "controllers": controllers}}  # fmt: skip
        service.handle("fight", request, gm)
    for where, player in (("phone", "anya"), ("tablet", "bernd"), ("reader", "sam")):
        secret, record = new_token("fight", "player", name=player)
        world.store.add_token(record)
        found[where] = secret
    world.tokens["fight"] = {k: v for k, v in found.items() if k != "table"}
    return found


def _words(lang: str, key: str, **fill: object) -> str:
    """The web view's text of ``key`` in ``lang``, filled."""
    return str(catalog(lang)[key]).format(**fill)


async def test_a_techlevel_fight_for_three_players(web_world):
    """What each of them would call wrong, found on this walk, fixed: a screen reader
    heard each next turn but never that the fight began, nor whose turn came first
    (nor, later, that it was over): the start is told with the first turn, as a turn
    is (*encounter started: round 1: Ana*), in each page's language. And the walk
    itself: the approvals by mouse and keyboard reach their players, the undo is said
    with what it took, the tablet's line comes back with the GM's roll it missed, the
    GM's reload shows the request still waiting."""
    fight = fight_table(web_world)
    extra = {"RB_FIGHT": json.dumps(fight), "RB_SHOTS": os.environ.get("RB_SHOTS", "")}
    result = await run_case(web_world, "fight", "fight.mjs", extra)
    for page, lang in (("gm", "cs"), ("phone", "ru"), ("tablet", "de"), ("reader", "en")):
        started = _words(lang, "ROLLBRIDGE.Web.Kind.EncounterStarted")
        turn = _words(lang, "ROLLBRIDGE.Web.Log.Turn", round=1, actor="Ana")
        assert result["start"][page]["told"] == [f"{started}: {turn}"], (
            page,
            result["start"][page],
        )
        assert not result["start"][page]["wide"], page
    # the phone's roll approved with the mouse: its line and message say the result
    phone = result["approved"]["phone"]
    assert "2d6 [1, 6] = 7" in phone["message"] and phone["forms"] == [phone["message"]], phone
    # the reader's by the keyboard alone, both sides; their focus stayed in the form
    assert result["readerReached"] and result["gmReached"], result
    reader = result["readerApproved"]["reader"]
    assert "search the corridor" in reader["message"] and reader["focus"] == "INPUT.label", reader
    # the undo said with what it took, as each one's log says the adjustment
    undone = result["undone"]
    assert undone["gm"]["told"][-1].endswith("): Guard: Tělo (KSK) +2"), undone["gm"]
    for page in ("phone", "tablet", "reader"):
        assert undone[page]["told"][-1].endswith("): Guard"), (page, undone[page])
    # the tablet back: told so, and the GM's roll it missed is in its log and told
    back = result["back"]
    assert back["status"] == "connected" and "Wache greift an" in back["log"][0], back
    restored = _words("de", "ROLLBRIDGE.Web.Announce.Restored")
    assert restored in back["told"] and "Wache greift an" in back["told"][-1], back
    # the GM's reload: the phone's second roll still waits in the list
    reloaded = result["reloaded"]
    assert len(reloaded["pending"]) == 1 and "ещё раз" in reloaded["pending"][0], reloaded
    # the fight's end told to each, in each one's language (the GM's page reloaded)
    for page, lang in (("gm", "cs"), ("phone", "ru"), ("tablet", "de"), ("reader", "en")):
        ended = _words(lang, "ROLLBRIDGE.Web.Kind.EncounterEnded")
        told = result["ended"][page]["told"]
        assert told[-1].startswith(f"{ended}: "), (page, told)  # *…: after 1 round*
    if extra["RB_SHOTS"]:
        with open(os.path.join(extra["RB_SHOTS"], "result.json"), "w", encoding="utf-8") as out:
            json.dump(result, out, ensure_ascii=False, indent=1)
