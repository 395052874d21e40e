"""``rollbridge verify``: dice a server kept from the players' check are mismatches.

A player's roll the log says was supplied, at a table that did not let players supply
their own dice, is ``players_dice``. Before, a server that wanted a player's roll
kept from the seed's check had only to log it as ``"supplied": true`` without its
draws: verify counted it "with supplied dice (not the server's)" and said every
revealed die checks out (exit 0), though the table's ``player_dice`` was off and the
player could not have supplied any. (A resolution so marked was already refused when
resolved again; a plain roll is not resolved again.) The table's setting is read
from the welcome and each event's ``table_after``, so a player who really supplied
dice while it was on still verifies.

A roll that is not secret and for no NPC, drawn on the GM's stream, is
``public_on_gm``: that stream's seed is revealed to the GM alone, so the same server
had only to say ``"stream": "gm"``.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout

from rollbridge.cli import main
from rollbridge.dice.verifiable import DiceKey
from rollbridge.engine.model import Principal
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore

GM = Principal("gm", "gm", "test-gm")
PLAYER = Principal("player", "player", "test-player")


def _run(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue() + err.getvalue()


def _played(tmp_path, *, player_dice_first: bool) -> list[dict]:
    """A verifiable table where the player rolls twice (the first with their own dice
    when ``player_dice_first``, the setting then turned off) and the GM reveals; the
    player's export, as lines."""
    db = tmp_path / "game.db"
    with SQLiteStore(db) as store:
        host = PluginHost()
        service = TableService(store, host, dice_key=DiceKey.for_store(store))
        settings = {"verifiable": True, "player_dice": player_dice_first}
        service.create_table("Check", "wilddie", settings=settings, table_id="check")
        sheet = dict(host.rulesets["wilddie"].example_sheets["Ana"])
        actor = {"id": "ana", "name": "Ana", "sheet": sheet, "controllers": ["player"]}
        service.handle("check", {"type": "actor.create", "id": "a", "actor": actor}, GM)
        first = {"type": "roll", "id": "r1", "formula": "2d6", "actor": "ana"}
        if player_dice_first:
            first["dice"] = [3, 4]
        service.handle("check", first, PLAYER)
        if player_dice_first:
            off = {"type": "settings", "id": "off", "settings": {"player_dice": False}}
            service.handle("check", off, GM)
        second = {"type": "roll", "id": "r2", "formula": "1d20", "actor": "ana"}
        service.handle("check", second, PLAYER)
        service.handle("check", {"type": "dice.reveal", "id": "reveal"}, GM)
    log = tmp_path / "player.jsonl"
    status, said = _run("table", "export", "check", "--db", str(db), "--as", "player",
                        "--format", "jsonl", "--out", str(log))  # fmt: skip
    assert status == 0, said
    return [json.loads(line) for line in log.read_text().splitlines()]


def _verified(tmp_path, lines: list[dict]) -> tuple[int, dict]:
    log = tmp_path / "checked.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    status, said = _run("verify", str(log), "--json")
    return status, json.loads(said)


def _ana_and_guard(tmp_path, table: str, requests: list) -> dict[str, list[dict]]:
    """A verifiable wilddie table ``table`` with Ana, the player's, and the guard, an
    NPC, where each of ``requests`` (who, request) is made, then the GM reveals: the
    GM's and the player's exports, as lines, by view."""
    db = tmp_path / f"{table}.db"
    with SQLiteStore(db) as store:
        host = PluginHost()
        service = TableService(store, host, dice_key=DiceKey.for_store(store))
        service.create_table(table, "wilddie", settings={"verifiable": True}, table_id=table)
        sheets = host.rulesets["wilddie"].example_sheets
        for actor_id, name, controllers in (("ana", "Ana", ["player"]), ("guard", "Guard", [])):
            actor = {"id": actor_id, "name": name, "sheet": dict(sheets[name]),
                     "controllers": controllers}  # fmt: skip
            service.handle(table, {"type": "actor.create", "id": actor_id, "actor": actor}, GM)
        for who, request in [*requests, (GM, {"type": "dice.reveal", "id": "reveal"})]:
            service.handle(table, request, who)
    return _views(tmp_path, db, table)


def _views(tmp_path, db, table: str) -> dict[str, list[dict]]:
    """Table ``table``'s GM's and player's exports from ``db``, as lines, by view."""
    logs = {}
    for who in ("gm", "player"):
        log = tmp_path / f"{who}.jsonl"
        status, said = _run("table", "export", table, "--db", str(db), "--as", who,
                            "--format", "jsonl", "--out", str(log))  # fmt: skip
        assert status == 0, said
        logs[who] = [json.loads(line) for line in log.read_text().splitlines()]
    return logs


def _moved_to_gm(tmp_path, lines: list[dict], request: str) -> tuple[int, list, dict]:
    """The event of ``request`` said to be drawn on the GM's stream (its dice are then
    the GM's seed's, which players never see): verify's exit status, each problem's
    (code, seq), and the report."""
    _roll(lines, request)["data"]["draws"]["stream"] = "gm"
    status, report = _verified(tmp_path, lines)
    return status, [(p["code"], p["seq"]) for p in report["problems"]], report


def _roll(lines: list[dict], request: str) -> dict:
    return next(line for line in lines if line.get("request") == request)


def test_a_players_roll_passed_off_as_supplied_is_a_mismatch(tmp_path):
    lines = _played(tmp_path, player_dice_first=False)
    status, report = _verified(tmp_path, lines)
    assert status == 0 and report["ok"] and report["verified_events"] == 2, report
    for request in ("r1", "r2"):
        roll = _roll(lines, request)
        del roll["data"]["draws"]
        roll["data"]["supplied"] = True
    status, report = _verified(tmp_path, lines)
    assert status == 1
    seqs = [_roll(lines, "r1")["seq"], _roll(lines, "r2")["seq"]]
    assert [(p["code"], p["seq"]) for p in report["problems"]] == [
        ("players_dice", seq) for seq in seqs
    ]
    assert report["problems"][0]["message"] == (
        f"seq {seqs[0]}: the log says a player supplied its dice, but the table did not let "
        "players supply their own dice then (setting player_dice): they were the server's, and "
        "not drawn from the seed"
    )


def test_a_player_who_supplied_dice_while_the_table_let_them_verifies(tmp_path):
    lines = _played(tmp_path, player_dice_first=True)
    assert _roll(lines, "r1")["data"]["supplied"] is True
    status, report = _verified(tmp_path, lines)
    assert status == 0 and report["ok"], report
    assert report["supplied"] == 1 and report["verified_events"] == 1, report
    # after the GM turned the setting off, the same claim is a mismatch
    second = _roll(lines, "r2")
    del second["data"]["draws"]
    second["data"]["supplied"] = True
    status, report = _verified(tmp_path, lines)
    assert status == 1
    assert [(p["code"], p["seq"]) for p in report["problems"]] == [("players_dice", second["seq"])]


def test_a_players_roll_moved_to_the_gms_stream_is_a_mismatch(tmp_path):
    """A roll for a player's actor, not secret, on the GM's stream: its seed is never
    revealed to players, so the roll would escape their check; verify exited 0 and
    counted it as the GM's business."""
    lines = _played(tmp_path, player_dice_first=False)
    roll = _roll(lines, "r2")
    assert roll["data"]["draws"]["stream"] == "public" and roll["data"]["actor"] == "ana"
    roll["data"]["draws"]["stream"] = "gm"
    status, report = _verified(tmp_path, lines)
    assert status == 1
    assert [(p["code"], p["seq"]) for p in report["problems"]] == [("public_on_gm", roll["seq"])]
    assert report["gm_stream"] == 1, report


def test_an_npcs_roll_on_the_gms_stream_verifies(tmp_path):
    """The GM's roll for an NPC is drawn on the GM's stream, rightly."""
    db = tmp_path / "npc.db"
    with SQLiteStore(db) as store:
        host = PluginHost()
        service = TableService(store, host, dice_key=DiceKey.for_store(store))
        service.create_table("NPC", "wilddie", settings={"verifiable": True}, table_id="npc")
        sheet = dict(host.rulesets["wilddie"].example_sheets["Guard"])
        actor = {"id": "guard", "name": "Guard", "sheet": sheet}
        service.handle("npc", {"type": "actor.create", "id": "a", "actor": actor}, GM)
        service.handle("npc", {"type": "roll", "id": "r", "formula": "2d6", "actor": "guard"}, GM)
        service.handle("npc", {"type": "dice.reveal", "id": "reveal"}, GM)
    log = tmp_path / "gm.jsonl"
    status, said = _run("table", "export", "npc", "--db", str(db), "--as", "gm",
                        "--format", "jsonl", "--out", str(log))  # fmt: skip
    assert status == 0, said
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert _roll(lines, "r")["data"]["draws"]["stream"] == "gm"
    status, report = _verified(tmp_path, lines)
    assert status == 0 and report["ok"] and report["verified_events"] == 1, report


def _wilddie(store: SQLiteStore, table: str, settings: dict) -> tuple[TableService, dict]:
    """A verifiable wilddie table ``table`` in ``store``: its service and the ruleset's
    example sheets."""
    host = PluginHost()
    service = TableService(store, host, dice_key=DiceKey.for_store(store))
    settings = {"verifiable": True, **settings}
    service.create_table(table, "wilddie", settings=settings, table_id=table)
    return service, host.rulesets["wilddie"].example_sheets


def _export(db, *options: str) -> list[dict]:
    status, said = _run("table", "export", "t", "--db", str(db), "--as", "player",
                        "--format", "jsonl", *options)  # fmt: skip
    assert status == 0, said
    return [json.loads(line) for line in said.splitlines()]


def test_a_resume_that_recovered_judges_the_missed_events_by_the_table_then(tmp_path):
    """A client's log with a resume that recovered: the welcome shows the table after
    the missed events, which follow it (rollbridge.protocol.table sends the table at
    its last durable seq, then the missed events). While the player was away they
    supplied dice and the GM rolled for an NPC, then the GM turned player_dice off and
    gave the NPC to the player. Before, verify took the welcome's table for the
    missed events' and called both honest rolls mismatches (players_dice,
    public_on_gm): an honest log failed. A supplied claim after the setting went off
    is still caught."""
    db = tmp_path / "resume.db"
    with SQLiteStore(db) as store:
        service, sheets = _wilddie(store, "t", {"player_dice": True})
        ana = {"id": "ana", "name": "Ana", "sheet": dict(sheets["Ana"]), "controllers": ["player"]}
        bo = {"id": "bo", "name": "Bo", "sheet": dict(sheets["Guard"])}
        for made in (ana, bo):
            service.handle("t", {"type": "actor.create", "id": made["id"], "actor": made}, GM)
        supplied = {"type": "roll", "id": "r1", "formula": "2d6", "actor": "ana", "dice": [3, 4]}
        played = [
            (PLAYER, {"type": "roll", "id": "r0", "formula": "2d6", "actor": "ana"}),
            (PLAYER, supplied),
            (GM, {"type": "roll", "id": "g1", "formula": "2d6", "actor": "bo"}),
            (GM, {"type": "settings", "id": "off", "settings": {"player_dice": False}}),
            (GM, {"type": "actor.update", "id": "give", "actor": "bo", "controllers": ["player"]}),
            (PLAYER, {"type": "roll", "id": "r2", "formula": "2d6", "actor": "ana"}),
            (GM, {"type": "dice.reveal", "id": "reveal"}),
        ]
        seqs = {message["id"]: service.handle("t", message, who)["seq"] for who, message in played}
    lines = _export(db)
    resumed = _export(db, "--since", str(seqs["r2"]))[0]  # the table at r2's seq
    assert resumed["type"] == "welcome" and resumed["table"]["seq"] == seqs["r2"]
    assert resumed["table"]["settings"]["player_dice"] is False
    resumed["resume"] = {"recovered": True, "missed": seqs["r2"] - seqs["r0"]}
    before = [line for line in lines if line.get("seq", 0) <= seqs["r0"]]
    missed = [line for line in lines if line.get("seq", 0) > seqs["r0"]]
    assert _roll(missed, "g1")["data"]["draws"]["stream"] == "gm"
    status, report = _verified(tmp_path, [*before, resumed, *missed])
    assert status == 0 and report["ok"], report
    assert report["supplied"] == 1, report
    late = _roll(missed, "r2")
    del late["data"]["draws"]
    late["data"]["supplied"] = True
    status, report = _verified(tmp_path, [*before, resumed, *missed])
    assert status == 1
    assert [(p["code"], p["seq"]) for p in report["problems"]] == [("players_dice", late["seq"])]
