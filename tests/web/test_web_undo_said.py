"""What an undo is told to a screen reader: what it took, as the listener's own log
line of that event says it (it said *undo of #5 (adjusted)*, the number and the
kind's word alone, which a listener cannot hold against a log they do not see). A
player's page says an NPC's adjustment undone by the NPC's name alone, as its log
line and its event do: the track's label (techlevel's names the NPC's armour, which
players are not shown) and the numbers are neither on the player's wire nor in
their live region. At a table of each ruleset (sr2, techlevel, bandits, wilddie),
a real server and Chromium (browser/undo_said.mjs)."""

from __future__ import annotations

import json

from tests.web.test_web_browser import CHROMIUM, pytestmark  # noqa: F401
from tests.web.test_web_phone import run_case

#: The track of the NPC Guard the GM adjusts, and its label on the GM's card.
TRACKS = {
    "sr2": ("physical", "Physical"),
    "techlevel": ("armour", "Armour: Kevlar vest"),
    "bandits": ("wounds", "Wounds (extra)"),
    "wilddie": ("wounds", "Wounds"),
}


def _tables(world) -> dict:
    """A table of each ruleset: the player's actor and the NPC Guard (no controller)."""
    from rollbridge.engine import Principal
    from rollbridge.host import PluginHost
    from rollbridge.offline import TableService

    host, gm = PluginHost(), Principal("gm", "gm", "setup")
    service = TableService(world.store, host)
    tables = {}
    for ruleset, (track, _) in TRACKS.items():
        sheets = host.rulesets[ruleset].example_sheets
        table = f"said-{ruleset}"
        _, tokens = service.create_table(f"Undone ({ruleset})", ruleset, table_id=table)
        npc = next(name for name in sheets if name.startswith("Guard"))
        for index, (actor, sheet, controllers) in enumerate(
            [("pc", next(iter(sheets)), ["player"]), ("guard", npc, [])]
        ):
            name = "Guard" if actor == "guard" else sheet
            request = {"type": "actor.create", "id": f"a{index}",
                       "actor": {"id": actor, "name": name, "sheet": dict(sheets[sheet]),
                                 "controllers": controllers}}  # fmt: skip
            service.handle(table, request, gm)
        tables[ruleset] = {"table": table, "track": track, "gm": tokens["gm"],
                           "player": tokens["player"]}  # fmt: skip
    world.tokens.update(
        {t["table"]: {"gm": t["gm"], "player": t["player"]} for t in tables.values()}
    )
    return tables


async def test_an_undo_says_what_it_took_as_the_listeners_log_does(web_world):
    tables = _tables(web_world)
    result = await run_case(web_world, "said", "undo_said.mjs", {"RB_UNDO": json.dumps(tables)})
    for ruleset, (_track, label) in TRACKS.items():
        got = result[ruleset]
        said = (ruleset, {k: v for k, v in got.items() if k != "frames"})
        undo, adjusted = got["undo"], got["adjusted"]
        # the GM hears the track and the change, as the GM's log line says them
        assert got["gm"]["line"] == f"Guard: {label} +1", said
        assert got["gm"]["told"][-1] == f"undo of #{adjusted} (adjusted): Guard: {label} +1", said
        # the player the NPC's name alone, as the player's log line says it
        assert got["player"]["line"] == "Guard", said
        assert got["player"]["told"][-1] == f"undo of #{adjusted} (adjusted): Guard", said
        # nothing of the NPC's track on the player's wire or in their live region
        told = " ".join(got["player"]["told"])
        assert "+1" not in told and label not in told, said
        events = [f for f in got["frames"] if f.get("type") == "event"]
        for event in events:
            if event["kind"] in ("adjusted", "undo") and event["data"].get("actor") == "guard":
                assert "track" not in event["data"] and "delta" not in event["data"], (
                    ruleset,
                    event,
                )
        wire = json.dumps(got["frames"], ensure_ascii=False)
        if ruleset == "techlevel":
            assert "Kevlar" not in wire, ruleset  # the NPC's armour, which players are not shown
        assert any(e["seq"] == undo and e["kind"] == "undo" for e in events), ruleset


#: An undo's and a redo's words, and a secret's placeholder, in each language.
WORDS = {
    "cs": ("vzetí zpět #{} (upraveno)", "znovu provedení #{} (upraveno)", "Zranění +1",
           "tajné (jen PJ)"),
    "de": ("Rückgängig von #{} (angepasst)", "Wiederholung von #{} (angepasst)", "Körperlich +1",
           "geheim (nur Spielleiter)"),
    "ru": ("отмена #{} (изменено)", "возврат #{} (изменено)", "Физический урон +1",
           "тайно (только мастер)"),
    "en": ("undo of #{} (adjusted)", "redo of #{} (adjusted)", "Physical +1", "secret (GM only)"),
}  # fmt: skip


async def test_the_gms_undo_and_redo_buttons_in_four_languages_and_a_secret_undone(web_world):
    """The GM's own Undo and Redo pressed on the GM's page (sr2), a player's page beside
    it, in Czech, German, Russian and English: each told with what it took as the
    listener's log says it (the GM the track and the change, the player the NPC's name
    alone). Then the GM's secret attack on the NPC undone and redone: the player's live
    region says a secret three times and nothing more, and the player's wire holds
    placeholders alone — no undo's or redo's seq, kind or data (an undo of a secret
    stays secret, core/engine/history.py)."""
    tables = _tables(web_world)
    result = await run_case(web_world, "own", "undo_said.mjs", {"RB_UNDO": json.dumps(tables)})
    for lang, (undo, redo, change, secret) in WORDS.items():
        got = result[lang]
        said, seq = (lang, got), got["adjusted"]
        assert got["undoGm"]["told"][-1] == f"{undo.format(seq)}: Guard: {change}", said
        assert got["undoPlayer"]["told"][-1] == f"{undo.format(seq)}: Guard", said
        assert got["redoGm"]["told"][-1] == f"{redo.format(seq)}: Guard: {change}", said
        assert got["redoPlayer"]["told"][-1] == f"{redo.format(seq)}: Guard", said
        hidden = got["secret"]
        assert hidden["player"]["told"][-3:] == [secret] * 3, said
        frames = hidden["frames"]
        assert [(f["seq"], f["kind"]) for f in frames] == [
            (hidden["seq"], "hidden"),
            (hidden["undo"], "hidden"),
            (hidden["redo"], "hidden"),
        ], said
        assert all("data" not in f and "request" not in f for f in frames), said
