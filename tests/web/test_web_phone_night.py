"""A whole evening on phones, in real headless Chromium against a real server
(browser/phone_night.mjs): at a table of each ruleset — sr2's attack, techlevel's
hit, bandits' move, wilddie's trait test with its wild die — whose GM approves
players' requests first, a player's 390×844 touch phone asks the action, the GM's
phone approves it by touch and undoes it; the server restarts over the same SQLite
file and both pages come back; the player asks again, the GM approves, and the
player's page is read in cs, de and ru.

Needs what tests/web/test_web_browser.py needs; skipped without chromium.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from rollbridge.dice.sources import SeededDice
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.server import Server
from rollbridge.stores.sqlite import SQLiteStore
from tests.server.conftest import TEST_LIMITS
from tests.web.conftest import GM, SEED, add_cast
from tests.web.test_web_away import said
from tests.web.test_web_browser import CHROMIUM, HERE, requirements

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM}")

#: Each ruleset's player character and NPC, by their example sheets.
CASTS = {"sr2": ("Tukan", "Guard A"), "techlevel": ("Ana", "Guard"),
         "bandits": ("Ana", "Guard"), "wilddie": ("Ana", "Guard")}  # fmt: skip


def seed_night(path: Path, host: PluginHost) -> dict[str, dict[str, str]]:
    """A table of each ruleset of :data:`CASTS` (named after it), whose GM approves
    players' requests first: the player's ``hero`` and the NPC ``guard``; its tokens."""
    tokens: dict[str, dict[str, str]] = {}
    with SQLiteStore(path) as seed:
        service = TableService(seed, host)
        for ruleset, (hero, guard) in CASTS.items():
            name = f"Night of {ruleset}"
            _, tokens[ruleset] = service.create_table(name, ruleset, table_id=ruleset)
            approval = {"type": "settings", "id": "approval-on", "settings": {"approval": True}}
            service.handle(ruleset, approval, GM)
            cast = [("hero", hero, hero, ["player"]), ("guard", guard, guard, [])]
            add_cast(service, ruleset, cast, host.rulesets[ruleset].example_sheets)
    return tokens


async def walk(
    tmp_path: Path,
    case: str = "night",
    extra: dict[str, str] | None = None,
    script: str = "phone_night.mjs",
) -> dict:
    """Run ``case`` of browser/phone_night.mjs (or ``script``), with ``extra`` in its environment,
    against a server over the tables of :func:`seed_night`, restarting the server (same
    file, same port) each time the script asks; its result."""
    missing = requirements()
    if missing:
        pytest.fail("the web view's browser tests need: " + "; ".join(missing))
    path, signal = tmp_path / "night.db", tmp_path / "restarted"
    host = PluginHost()
    tokens = seed_night(path, host)

    async def serve(port: int = 0) -> tuple[Server, SQLiteStore]:
        store = SQLiteStore(path)
        server = Server(store, host, port=port, limits=TEST_LIMITS, dice=lambda: SeededDice(SEED))
        await server.start()
        return server, store

    server, store = await serve()
    base = f"http://{server.address}:{server.port}"
    env = {**os.environ, "RB_BASE": base, "RB_TOKENS": json.dumps(tokens), "RB_CHROMIUM": CHROMIUM,
           "RB_CASE": case, "RB_SIGNAL": str(signal), **(extra or {})}  # fmt: skip
    process = await asyncio.create_subprocess_exec(
        "node", str(HERE / "browser" / script), cwd=HERE, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    lines: list[str] = []
    try:
        assert process.stdout is not None and process.stderr is not None
        errors = asyncio.ensure_future(process.stderr.read())
        async with asyncio.timeout(300):
            while line := (await process.stdout.readline()).decode():
                lines.append(line)
                if line.strip() == "RB_RESTART":
                    port = server.port
                    await server.stop()
                    store.close()
                    server, store = await serve(port)
                    signal.write_text("1")
            await process.wait()
        err = (await errors).decode("utf-8", "replace")
    finally:
        await server.stop()
        store.close()
    output = "".join(lines) + err
    for table in tokens.values():
        for token in table.values():
            output = output.replace(token, "[token]")
    assert process.returncode == 0, output[-8000:]
    (result,) = [json.loads(x[len("RESULT ") :]) for x in lines if x.startswith("RESULT ")]
    assert result["trouble"] == {"errors": [], "dialogs": []}, result["trouble"]
    return result


def looks_right(looks: dict) -> None:
    """Nothing past the phone's right edge, and no text of the page's machinery (a
    message id, ``undefined``, a placeholder left in)."""
    assert looks == {"odd": [], "wide": [], "scroll": 0}, looks


async def test_a_whole_evening_on_phones(tmp_path):
    """What each page showed, step by step. The GM's *Undo* named the event it takes by
    its number alone: after techlevel's hit that crossed no box and bandits' move (a
    roll: nothing changed, nothing to undo), it said *Undo #3*, and the GM who pressed
    it to take back the player's action took back the NPC Guard, added before. It says
    *Undo #3 (actor added)* now, as the log's undo line names what it took."""
    result = await walk(tmp_path)
    approved = said("en", "Message.Approved", result="")
    for ruleset, seen in result["tables"].items():
        pending = "p4"  # the table's seq: settings, two actors, the request's event
        waiting = said("en", "Message.Pending", pending=pending)
        assert seen["asked"]["status"] == waiting, (ruleset, seen)
        assert seen["gmList"]["item"].startswith(f"{pending}: "), (ruleset, seen["gmList"])
        assert seen["approved"]["status"].startswith(approved), seen
        for step in ("asked", "gmList", "approved"):
            looks_right(seen[step]["looks"])
        looks_right(seen["undone"]["looks"])
        looks_right(seen["undone"]["gmLooks"])
        # what undo takes, said on its button: the action where it changed an actor
        # (sr2's attack wounds the guard; wilddie's trait test with its wild die sets
        # the bennies' state), else the NPC added before it
        changed = ruleset in ("sr2", "wilddie")
        kind = said("en", "Kind.Resolution" if changed else "Kind.ActorCreated")
        seq = "5" if changed else "3"
        assert seen["undoButton"] == said("en", "Button.UndoSeqKind", seq=seq, kind=kind), seen
        assert seen["undone"]["newest"].endswith(said("en", "Log.Undo", seq=seq, kind=kind)), seen
        if changed:
            undone = said("en", "Message.Undone", line=seen["approved"]["status"])
            assert seen["undone"]["status"] == undone, seen
    # the server restarted over the same file: both pages back at the table, the GM's
    # redo naming what it brings back
    assert result["restarted"] is True, result
    for who in ("player", "gm"):
        back = result["back"][who]
        statuses = result["back"]["statuses"]
        assert back["status"] == "connected", (who, back, statuses, result["restartMs"],
                                               result["back"].get("tap"))  # fmt: skip
        looks_right(back["looks"])
    redo = said("en", "Button.RedoSeqKind", seq="5", kind=said("en", "Kind.Resolution"))
    assert result["back"]["gm"]["redo"] == redo, result["back"]["gm"]
    assert result["afterRestart"]["status"].startswith(approved), result
    for lang, shown in result["languages"].items():
        assert shown["action"] == "trait", (lang, shown)
        assert shown["status"].startswith(said(lang, "Message.Approved", result="")), (lang, shown)
        looks_right(shown["looks"])
    # the GM's page in each language: its Undo names the trait test approved after the
    # restart (#8) in that language's words
    for lang, shown in result["gmLanguages"].items():
        undo = said(lang, "Button.UndoSeqKind", seq="8", kind=said(lang, "Kind.Resolution"))
        assert shown["undo"] == undo, (lang, shown)
        looks_right(shown["looks"])


async def test_both_phones_come_back_after_each_of_five_restarts_in_a_row(tmp_path):
    """The server restarted five times in a row over the same file and port, the GM's
    and the player's phones at the table all along: after each restart both pages are
    connected again (within a bound of 60 s from the server serving again: a bound for
    a page that never comes back, not a time measured), saying nothing of the page's
    machinery and nothing past the screen's edge. With ``RB_TAP=1`` in the environment
    the pages go through the tests' tap (pages.mjs's ``tapWebSocket``), which once left
    a page waiting at a restart under load (docs/web.md, "The restart through the
    tests' tap")."""
    result = await walk(tmp_path, "restarts", {"RB_RESTARTS": "5"})
    assert len(result["rounds"]) == 5, result
    for round_ in result["rounds"]:
        assert round_["restarted"] is True, round_
        for who in ("gm", "player"):
            assert round_[who]["ok"] is True and round_[who]["status"] == "connected", (who, round_)
            looks_right(round_[who]["looks"])
