"""Verifiable dice (issue 18, items 4 and 6): seeds committed before use, dice derived
from them, and ``rollbridge verify`` catching a tampered die, a reordered event and
a wrong seed.

The derivation is checked against an independent implementation written here from
docs/dice.md ("Verifiable dice"), not from rollbridge's code.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
from collections import Counter
from typing import Any

import pytest

from rollbridge.cli import main
from rollbridge.cli.offline import offline_host
from rollbridge.contract import ActionSpec, CommonState, Resolution, Ruleset
from rollbridge.dice.records import DiceGroup, Die
from rollbridge.dice.verifiable import DiceKey, commitment, derive, next_die
from rollbridge.dice.verify import shown_dice, verify_events
from rollbridge.engine.model import Principal
from rollbridge.offline import TableService
from rollbridge.stores.memory import MemoryStore
from rollbridge.stores.sqlite import SQLiteStore

GM = Principal("gm", "gm", "gm-token")
PLAYER = Principal("player", "pat", "player-token")
HOST = offline_host()
KEY = DiceKey(bytes(range(32)))


def documented_die(
    seed: bytes, table: str, epoch: int, seq: int, faces: list[int], attempt: int = 0
) -> list[int]:
    """docs/dice.md's construction, written out: HMAC-SHA256 blocks of the event's
    place (``seq``, or ``seq.attempt`` after refused tries), little-endian 64-bit
    words, rejection above the largest multiple."""
    words: list[int] = []
    block = 0
    out = []
    place = f"{seq}.{attempt}" if attempt else f"{seq}"
    for f in faces:
        while True:
            if not words:
                message = f"rollbridge-dice/v1\0{table}\0{epoch}\0{place}\0{block}".encode()
                digest = hmac.new(seed, message, hashlib.sha256).digest()
                words = [int.from_bytes(digest[i : i + 8], "little") for i in range(0, 32, 8)]
                block += 1
            word = words.pop(0)
            if word < 2**64 - 2**64 % f:
                out.append(word % f + 1)
                break
    return out


def service(ruleset: str = "bandits", store=None, **settings: Any) -> TableService:
    svc = TableService(store or MemoryStore(), HOST, dice_key=KEY)
    svc.create_table("t", ruleset, table_id="t", settings={"verifiable": True, **settings})
    return svc


def log(svc: TableService, *, gm: bool = True) -> list[dict[str, Any]]:
    """The table's events as an audience received them (JSON round trip, as on the wire)."""
    table = svc.table("t")
    return [json.loads(json.dumps(table.view_event(e, gm=gm)))
            for e in svc.store.events_after("t", 0)]  # fmt: skip


def open_seed(svc: TableService, stream: str = "") -> bytes:
    """The open segment's seed (``stream="gm"``: its GM stream's), from the key."""
    state = svc.table("t").dice_segment
    name = state["segment"] if not stream else f"{state['segment']}:{stream}"
    return KEY.seed("t", 1, name, state["nonce"])


def roll(svc: TableService, formula: str, rid: str, who: Principal = GM, **fields) -> dict:
    return svc.handle("t", {"type": "roll", "id": rid, "formula": formula, **fields}, who)


# -- the construction ----------------------------------------------------------------


def test_rejection_sampling_throws_away_words_past_the_largest_multiple():
    # 2^64 mod 3 == 1: the top word is the one value no multiple of 3 covers
    assert next_die(iter([2**64 - 1, 5]), 3) == 3  # 2^64 - 1 thrown away, then 5 % 3 + 1
    assert next_die(iter([2**64 - 2, 5]), 3) == (2**64 - 2) % 3 + 1


@pytest.mark.parametrize("faces", [[6] * 40, [2, 3, 20, 100, 7, 1_000_000, 1], [12] * 9])
def test_dice_are_derived_exactly_as_documented(faces):
    seed = hashlib.sha256(b"a seed").digest()
    assert derive(seed, "t", 1, 7, faces) == documented_die(seed, "t", 1, 7, faces)
    assert derive(seed, "t", 1, 8, faces) != derive(seed, "t", 1, 7, faces)  # its place


def test_derived_dice_are_fair_on_a_large_sample():
    seed = b"\x01" * 32
    counts = Counter(derive(seed, "t", 1, 1, [6] * 60_000))
    chi2 = sum((c - 10_000) ** 2 / 10_000 for c in counts.values())
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    assert chi2 < 20.5  # p ≈ 0.001 at 5 degrees of freedom


def test_a_dice_key_file_is_made_once_private_and_reread(tmp_path):
    path = tmp_path / "db.sqlite.dice-key"
    first = DiceKey.load(path)
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert DiceKey.load(path).seed("t", 1, 1) == first.seed("t", 1, 1)
    assert "dice" not in repr(first).lower() or "…" in repr(first)
    assert path.read_text().strip() not in repr(first)


# -- the table -----------------------------------------------------------------------


def test_the_commitment_precedes_the_first_roll_of_its_segment():
    svc = service()
    roll(svc, "2d6", "r1")
    events = log(svc)
    committed = next(e for e in events if e["kind"] == "dice.committed")
    first_roll = next(e for e in events if e["kind"] == "roll")
    assert committed["seq"] < first_roll["seq"]
    assert committed["data"]["commitment"] == commitment(open_seed(svc))
    assert committed["data"]["gm_commitment"] == commitment(open_seed(svc, "gm"))
    assert first_roll["data"]["draws"]["segment"] == 1


def test_every_die_of_a_roll_is_its_segments_derived_die():
    svc = service()
    event = roll(svc, "5d6x + 2d10", "r1")["event"]
    draws = event["data"]["draws"]["dice"]
    faces = [f for f, _ in draws]
    expected = documented_die(open_seed(svc), "t", 1, event["seq"], faces)
    assert [v for _, v in draws] == expected
    assert Counter(shown_dice(event["data"])) == Counter(map(tuple, draws))


def test_the_seed_is_nowhere_before_its_reveal_then_it_is_published(caplog):
    caplog.set_level("DEBUG")
    svc = service()
    seed, gm_seed = open_seed(svc).hex(), open_seed(svc, "gm").hex()
    replies = [roll(svc, "3d6", "r1"), roll(svc, "1d20", "r2", PLAYER, secret=True)]
    seen = json.dumps([replies, log(svc, gm=True), log(svc, gm=False)])
    assert seed not in seen and seed not in caplog.text
    reveal = svc.handle("t", {"type": "dice.reveal", "id": "v1"}, GM)
    revealed = next(e for e in log(svc, gm=False) if e["kind"] == "dice.revealed")
    assert revealed["data"]["seed"] == seed
    assert reveal["event"]["kind"] == "dice.committed" and reveal["event"]["data"]["segment"] == 2
    next_seed = open_seed(svc).hex()
    assert next_seed not in json.dumps([reveal, log(svc, gm=True)])
    # the GM stream's seed: in the GM's log after the reveal, never in the players'
    assert gm_seed in json.dumps(log(svc, gm=True)) and gm_seed not in json.dumps(
        log(svc, gm=False)
    )


def test_a_reveal_never_lets_players_recompute_a_secret_roll_or_an_npcs_dice():
    """A secret roll and a roll involving an NPC draw from the segment's GM stream,
    whose seed only the GM's log gets: the public seed gives players other dice."""
    svc = service()
    sheets = HOST.ruleset("bandits").example_sheets
    svc.handle("t", {"type": "actor.create", "id": "c", "actor": {
        "id": "npc", "name": "Guard", "sheet": sheets["Guard"]}}, GM)  # fmt: skip
    secret = roll(svc, "10d20", "s", secret=True)
    npc = roll(svc, "10d20", "n", actor="npc")
    public = roll(svc, "10d20", "p")
    svc.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    gm_log = {e["seq"]: e for e in log(svc, gm=True)}
    assert gm_log[secret["seq"]]["data"]["draws"]["stream"] == "gm"
    assert gm_log[npc["seq"]]["data"]["draws"]["stream"] == "gm"
    assert gm_log[public["seq"]]["data"]["draws"]["stream"] == "public"
    revealed = next(e for e in log(svc, gm=False) if e["kind"] == "dice.revealed")
    seed = bytes.fromhex(revealed["data"]["seed"])
    for event in (gm_log[secret["seq"]], gm_log[npc["seq"]]):
        shown = [v for _, v in event["data"]["draws"]["dice"]]
        assert derive(seed, "t", 1, event["seq"], [20] * 10) != shown
    players = verify_events(log(svc, gm=False))
    assert players.ok and players.verified_events == 1 and players.gm_stream == 1
    gms = verify_events(log(svc, gm=True))
    assert gms.ok and gms.verified_events == 3 and gms.gm_stream == 0


def test_supplied_dice_are_not_the_servers_and_say_so():
    svc = service()
    event = roll(svc, "2d6", "r1", dice=[6, 6])["event"]
    assert event["data"]["supplied"] is True and "draws" not in event["data"]
    svc.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    report = verify_events(log(svc))
    assert report.ok and report.supplied == 1 and report.verified_events == 0


def test_turning_verifiable_off_reveals_and_on_again_commits_the_next_segment():
    svc = TableService(MemoryStore(), HOST, dice_key=KEY)
    svc.create_table("t", "bandits", table_id="t")
    roll(svc, "2d6", "r0")  # not verifiable: no draws
    svc.handle("t", {"type": "settings", "id": "s1", "settings": {"verifiable": True}}, GM)
    roll(svc, "2d6", "r1")
    svc.handle("t", {"type": "settings", "id": "s2", "settings": {"verifiable": False}}, GM)
    roll(svc, "2d6", "r2")
    svc.handle("t", {"type": "settings", "id": "s3", "settings": {"verifiable": True}}, GM)
    kinds = [(e["kind"], e["data"].get("segment")) for e in log(svc)]
    assert ("dice.committed", 1) in kinds and ("dice.revealed", 1) in kinds
    assert kinds[-1] == ("dice.committed", 2)
    rolls = [e for e in log(svc) if e["kind"] == "roll"]
    assert ["draws" in r["data"] for r in rolls] == [False, True, False]
    report = verify_events(log(svc))
    assert report.ok and report.verified_events == 1


def test_dice_reveal_without_verifiable_dice_is_a_typed_refusal():
    svc = TableService(MemoryStore(), HOST, dice_key=KEY)
    svc.create_table("t", "bandits", table_id="t")
    with pytest.raises(Exception) as caught:
        svc.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    assert caught.value.code == "not_verifiable"
    with pytest.raises(Exception) as refused:
        svc.handle("t", {"type": "dice.reveal", "id": "v2"}, PLAYER)
    assert refused.value.code == "forbidden"


def test_the_segment_survives_a_restart_with_the_key_beside_the_database(tmp_path):
    path = tmp_path / "tables.db"
    first = TableService(SQLiteStore(path), HOST)
    first.create_table("t", "bandits", table_id="t", settings={"verifiable": True})
    roll(first, "4d6", "r1")
    first.store.close()
    again = TableService(SQLiteStore(path), HOST)  # the same key, read from its file
    roll(again, "4d6", "r2")
    again.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    report = verify_events(log(again))
    assert report.ok and report.verified_events == 2
    assert (tmp_path / "tables.db.dice-key").exists()


def wilddie_table() -> TableService:
    """A verifiable wilddie table with its example actors (Ana, Guard, …)."""
    svc = service("wilddie")
    sheets = HOST.ruleset("wilddie").example_sheets
    for i, name in enumerate(sheets):
        svc.handle("t", {"type": "actor.create", "id": f"c{i}", "actor": {
            "id": name, "name": name, "sheet": sheets[name]}}, GM)  # fmt: skip
    return svc


def test_a_resolutions_dice_verify_too():
    svc = wilddie_table()
    for i in range(5):
        svc.handle("t", {"type": "resolve", "id": f"a{i}", "action": "attack", "actor": "Ana",
                         "targets": ["Guard"], "params": {"mode": "melee"}}, GM)  # fmt: skip
    svc.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    report = verify_events(log(svc))
    assert report.ok, report.problems
    assert report.verified_events == 5


# -- what rollbridge verify catches -----------------------------------------------------


def revealed_log() -> list[dict[str, Any]]:
    svc = service()
    for i in range(4):
        roll(svc, "3d6!! + 1d8", f"r{i}")
    svc.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    return log(svc)


def test_an_untouched_log_verifies():
    report = verify_events(revealed_log())
    assert report.ok and report.verified_events == 4 and report.segments == {
        1: "revealed", 2: "committed"}  # fmt: skip


def test_a_tampered_recorded_die_is_caught():
    events = revealed_log()
    target = [e for e in events if e["kind"] == "roll"][2]
    faces, value = target["data"]["draws"]["dice"][0]
    target["data"]["draws"]["dice"][0] = [faces, value % faces + 1]
    problems = verify_events(events).problems
    assert [p.code for p in problems] == ["wrong_die"] and problems[0].seq == target["seq"]


def test_a_tampered_shown_die_is_caught():
    events = revealed_log()
    target = [e for e in events if e["kind"] == "roll"][1]
    die = target["data"]["roll"]["groups"][1]["dice"][0]
    die["rolls"] = [die["rolls"][0] % 8 + 1]
    die["value"] = die["rolls"][0]
    problems = verify_events(events).problems
    assert problems and problems[0].seq == target["seq"]
    assert problems[0].code in ("wrong_die", "wrong_roll")


def test_a_tampered_total_is_caught():
    events = revealed_log()
    target = next(e for e in events if e["kind"] == "roll")
    target["data"]["total"] += 1
    problems = verify_events(events).problems
    assert [p.code for p in problems] == ["wrong_roll"]


def test_a_reordered_event_is_caught():
    events = revealed_log()
    rolls = [i for i, e in enumerate(events) if e["kind"] == "roll"]
    events[rolls[0]], events[rolls[1]] = events[rolls[1]], events[rolls[0]]
    assert "out_of_order" in {p.code for p in verify_events(events).problems}


def test_an_event_moved_to_another_seq_is_caught():
    events = revealed_log()
    rolls = [e for e in events if e["kind"] == "roll"]
    rolls[0]["data"], rolls[1]["data"] = rolls[1]["data"], rolls[0]["data"]  # dice swapped
    assert {p.code for p in verify_events(events).problems} == {"wrong_die"}


def test_a_wrong_seed_is_caught():
    events = revealed_log()
    reveal = next(e for e in events if e["kind"] == "dice.revealed")
    reveal["data"]["seed"] = "00" * 32
    report = verify_events(events)
    assert [p.code for p in report.problems] == ["wrong_seed"]
    assert report.verified_events == 0


def test_dice_before_their_commitment_are_caught():
    events = revealed_log()
    committed = next(i for i, e in enumerate(events) if e["kind"] == "dice.committed")
    moved = events.pop(committed)
    moved["seq"] = events[-1]["seq"] + 1
    events.append(moved)
    assert "uncommitted" in {p.code for p in verify_events(events).problems}


def test_a_players_view_withholds_the_dice_of_events_with_hidden_details():
    """An NPC's private numbers are hidden from players; its raw dice could tell them
    (how many it rolled), so players see that dice were drawn, not which."""
    svc = service("sr2")
    sheets = HOST.ruleset("sr2").example_sheets
    for i, (name, controllers) in enumerate([("Tukan", ["pat"]), ("Guard A", [])]):
        svc.handle("t", {"type": "actor.create", "id": f"c{i}", "actor": {
            "id": f"a{i}", "name": name, "sheet": dict(sheets[name]),
            "controllers": controllers}}, GM)  # fmt: skip
    action = HOST.ruleset("sr2").actions["attack"].example_in("en") or {}
    svc.handle("t", {"type": "resolve", "id": "x", "action": "attack", "actor": "a0",
                     "targets": ["a1"], "params": action}, GM)  # fmt: skip
    svc.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    players = verify_events(log(svc, gm=False))
    gms = verify_events(log(svc, gm=True))
    assert gms.ok and gms.verified_events == 1
    assert players.ok and players.withheld == 1 and players.verified_events == 0


def test_the_verify_command_reads_json_lines_and_exits_by_the_result(tmp_path, capsys):
    events = revealed_log()
    good = tmp_path / "good.jsonl"
    good.write_text("\n".join(json.dumps({"type": "event", "table": "t", **e}) for e in events))
    assert main(["verify", str(good)]) == 0
    out = capsys.readouterr().out
    assert "rolls verified: 4" in out and "every revealed server die checks out" in out
    target = [e for e in events if e["kind"] == "roll"][3]
    target["data"]["draws"]["dice"][1][1] = target["data"]["draws"]["dice"][1][1] % 6 + 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(json.dumps(e) for e in events))
    assert main(["verify", str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"seq {target['seq']}, die 2" in out and "MISMATCH at line" in out
    assert main(["verify", str(bad), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["problems"][0]["code"] == "wrong_die"
    junk = tmp_path / "junk.jsonl"
    junk.write_text("{not json\n")
    assert main(["verify", str(junk)]) == 2
    assert "line 1 is not JSON" in capsys.readouterr().err
    for missing, why in ((tmp_path / "none.jsonl", "No such file or directory"),
                         (tmp_path, "Is a directory")):  # fmt: skip
        assert main(["verify", str(missing)]) == 2
        said = capsys.readouterr().err  # before: "rollbridge: error: [Errno 2] No such file…"
        assert said == f"rollbridge: error: cannot read {missing}: {why}\n"
    assert main(["verify", str(junk), "--locale", "de"]) == 2  # the reader's words too
    assert capsys.readouterr().err.startswith(f"rollbridge: error: {junk}: Zeile 1 ist kein JSON")
    # the export's refusal saved as the log (curl … > log.jsonl with a revoked token
    # or without ?format=): before, "0 events … is the table's setting verifiable on?"
    refusal = tmp_path / "refused.jsonl"
    refusal.write_text(json.dumps({"code": "invalid_request", "message":
                                   "format: must be jsonl or markdown, not ''",
                                   "details": {"field": "format"}}) + "\n")  # fmt: skip
    assert main(["verify", str(refusal)]) == 2
    said = capsys.readouterr().err
    assert said.startswith(f"rollbridge: error: {refusal}: line 1 is the server's refusal, "
                           "not a log: invalid_request: format: must be"), said  # fmt: skip
    assert main(["verify", str(refusal), "--locale", "cs"]) == 2
    assert "je odmítnutí serveru, ne záznam" in capsys.readouterr().err
    binary = tmp_path / "log.gz"  # a compressed log, say: before, "'utf-8' codec can't…"
    binary.write_bytes(json.dumps(events[0]).encode() + b"\n\x1f\x8b\x08\xd6\xff\n")
    assert main(["verify", str(binary)]) == 2
    said = capsys.readouterr().err
    assert said == f"rollbridge: error: {binary}: line 2 is not UTF-8 text: not a log\n"


def test_undoing_the_setting_reveals_and_redoing_it_commits_again():
    svc = TableService(MemoryStore(), HOST, dice_key=KEY)
    svc.create_table("t", "bandits", table_id="t")
    svc.handle("t", {"type": "settings", "id": "s1", "settings": {"verifiable": True}}, GM)
    roll(svc, "2d6", "r1")
    svc.handle("t", {"type": "undo", "id": "u1"}, GM)  # the roll is not undoable: the setting
    assert svc.table("t").dice_segment["open"] is False
    assert roll(svc, "2d6", "r2")["event"]["data"].get("draws") is None
    svc.handle("t", {"type": "redo", "id": "d1"}, GM)
    assert svc.table("t").dice_segment == {**svc.table("t").dice_segment, "segment": 2,
                                           "open": True}  # fmt: skip
    report = verify_events(log(svc))
    assert report.ok and report.verified_events == 1 and report.segments[1] == "revealed"


def test_dice_drawn_for_a_clients_roll_are_logged_and_verify():
    """Issue 15 item 6: a Foundry client draws a term's dice from the server (``draw``);
    each draw is an event, verifiable like any roll; a retry returns the same dice."""
    svc = service()
    first = svc.handle("t", {"type": "draw", "id": "d1", "faces": 20, "number": 2,
                             "label": "1d20 + 5 attack"}, PLAYER)  # fmt: skip
    again = svc.handle("t", {"type": "draw", "id": "d1", "faces": 20, "number": 2}, PLAYER)
    assert again["results"] == first["results"] and again["seq"] == first["seq"]
    secret = svc.handle("t", {"type": "draw", "id": "d2", "faces": 6, "number": 3,
                              "secret": True}, PLAYER)  # fmt: skip
    assert secret["status"] == "secret" and len(secret["results"]) == 3
    event = first["event"]
    assert event["kind"] == "dice.drawn" and event["data"]["results"] == first["results"]
    svc.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    assert verify_events(log(svc)).verified_events == 2
    tampered = log(svc)
    drawn = next(e for e in tampered if e["kind"] == "dice.drawn")
    drawn["data"]["results"][0] = drawn["data"]["results"][0] % 20 + 1
    assert [p.code for p in verify_events(tampered).problems] == ["wrong_die"]


@pytest.mark.parametrize(
    "fields, code",
    [({"faces": 0, "number": 1}, "invalid_request"), ({"faces": 6, "number": 1000},
     "invalid_request"), ({"faces": 6}, "invalid_request"),
     ({"faces": 6, "number": 1, "actor": "nobody"}, "unknown_actor")],
)  # fmt: skip
def test_bad_draws_are_refused_with_typed_errors(fields, code):
    svc = service()
    with pytest.raises(Exception) as refused:
        svc.handle("t", {"type": "draw", "id": "x", **fields}, PLAYER)
    assert refused.value.code == code


def test_a_resolution_die_changed_to_another_drawn_value_is_caught():
    """The shown dice are the draws as a multiset: a die made equal to another of the
    same event's dice no longer hides among them."""
    svc = service("wilddie")
    sheets = HOST.ruleset("wilddie").example_sheets
    for i, name in enumerate(sheets):
        svc.handle("t", {"type": "actor.create", "id": f"c{i}", "actor": {
            "id": name, "name": name, "sheet": sheets[name],
            "controllers": ["pat"]}}, GM)  # fmt: skip
    for i in range(8):
        svc.handle("t", {"type": "resolve", "id": f"a{i}", "action": "trait", "actor": "Ana",
                         "params": {"trait": "notice"}}, GM)  # fmt: skip
    svc.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    events = log(svc)
    assert verify_events(events).ok
    for event in (e for e in events if e["kind"] == "resolution"):
        dice = event["data"]["dice"][0]["dice"]
        first, second = dice[0], dice[1]
        # copying a chain at least as long as the one it replaces shows a result more
        # often than it was drawn (a shorter one, [6, 4] -> [4], would only drop one)
        if (
            first["faces"] == second["faces"]
            and sorted(first["rolls"]) != sorted(second["rolls"])
            and len(second["rolls"]) >= len(first["rolls"])
        ):
            first["rolls"] = list(second["rolls"])
            break
    else:  # the trait die and the wild die differ in faces: copy within one die's rolls
        event = next(e for e in events if e["kind"] == "resolution")
        die = event["data"]["dice"][0]["dice"][0]
        die["rolls"] = die["rolls"] + die["rolls"][:1]
    assert "wrong_die" in {p.code for p in verify_events(events).problems}


def test_dice_claimed_for_a_segment_already_revealed_are_caught():
    events = revealed_log()
    reveal = next(i for i, e in enumerate(events) if e["kind"] == "dice.revealed")
    late = json.loads(json.dumps(next(e for e in events if e["kind"] == "roll")))
    late["seq"] = events[-1]["seq"] + 1
    events.append(late)
    assert reveal < len(events) - 1
    assert "after_reveal" in {p.code for p in verify_events(events).problems}


def test_a_malformed_commitment_is_a_problem_not_a_traceback():
    events = revealed_log()
    committed = next(e for e in events if e["kind"] == "dice.committed")
    committed["data"]["epoch"] = "x"
    committed["data"]["segment"] = True
    codes = {p.code for p in verify_events(events).problems}
    assert "bad_event" in codes


def test_the_verify_report_reads_in_the_readers_language(tmp_path, capsys):
    events = revealed_log()
    target = next(e for e in events if e["kind"] == "roll")
    target["data"]["draws"]["dice"][0][1] = target["data"]["draws"]["dice"][0][1] % 6 + 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(json.dumps(e) for e in events))
    assert main(["verify", str(bad), "--locale", "cs"]) == 1
    out = capsys.readouterr().out
    assert "NESHODA na řádku" in out and "záznam uvádí" in out and "the log says" not in out


# -- a refused request's dice (what its refusal told of them) are never rolled ---------


OVERFLOW = "100d6 * 1000000000 * 1000000000 * 1000000000"  # refused after its dice: dice_limit


def _refused(svc: TableService, rid: str, who: Principal = PLAYER) -> None:
    with pytest.raises(Exception) as refused:
        roll(svc, OVERFLOW, rid, who)
    assert refused.value.code == "dice_limit"


def test_a_request_refused_after_its_dice_leaves_the_next_one_other_dice():
    """A refusal can tell something of the dice it drew (here: whether a total passes
    64 bits; a division by zero likewise), so a player could learn the next dice by
    probing with requests refused or not by them. The next request at that seq rolls
    from another stream (``seq.attempt``), which the event's draws name."""
    svc = service(player_dice=False)
    seed = open_seed(svc)
    before = svc.table("t").info.seq
    _refused(svc, "probe-1")
    assert svc.table("t").info.seq == before, "the refusal changed nothing"
    event = roll(svc, "100d6", "r1", PLAYER)["event"]
    draws = event["data"]["draws"]
    assert event["seq"] == before + 1 and draws["attempt"] == 1
    values = [v for _, v in draws["dice"]]
    faces = [6] * 100
    assert values == documented_die(seed, "t", 1, event["seq"], faces, attempt=1)
    # what the probe drew (its seq's first stream) is not what the roll got
    assert values != documented_die(seed, "t", 1, event["seq"], faces)
    # three refusals at the next seq: the fourth try; a GM's refusal counts as well
    for n in range(3):
        _refused(svc, f"probe-{n + 2}", GM if n == 1 else PLAYER)
    later = roll(svc, "2d6", "r2", PLAYER)["event"]
    assert later["seq"] == event["seq"] + 1 and later["data"]["draws"]["attempt"] == 3
    # once a seq is taken, the next one starts from its first stream again
    third = roll(svc, "2d6", "r3", PLAYER)["event"]
    assert "attempt" not in third["data"]["draws"]
    svc.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    report = verify_events(log(svc, gm=False))
    assert report.ok, report.problems
    assert {event["seq"], later["seq"], third["seq"]} <= set(report.verified_seqs)
    assert report.retried == 2  # said apart: a server could choose among attempts


def test_a_refusal_before_any_die_changes_no_stream():
    svc = service()
    with pytest.raises(Exception) as refused:
        roll(svc, "2d6 +", "bad")
    assert refused.value.code == "invalid_notation"
    assert "attempt" not in roll(svc, "2d6", "r1")["event"]["data"]["draws"]


@pytest.mark.parametrize("attempt", [1, 7])
def test_a_changed_attempt_is_caught(attempt):
    svc = service()
    _refused(svc, "probe")
    roll(svc, "20d6", "r1", PLAYER)  # a wrong stream shows other dice: but 1 in 6**20
    svc.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    events = log(svc)
    target = next(e for e in events if e["kind"] == "roll")
    assert target["data"]["draws"]["attempt"] == 1
    if attempt == 1:
        del target["data"]["draws"]["attempt"]  # claimed as the seq's first stream
    else:
        target["data"]["draws"]["attempt"] = attempt
    problems = verify_events(events).problems
    assert [p.code for p in problems] == ["wrong_die"] and problems[0].seq == target["seq"]


# -- what `rollbridge verify` reads of a client's log ------------------------------------


def _joined_late(svc: TableService) -> list[dict[str, Any]]:
    """A player's log who joined after the commitment: its welcome, then the events
    from there, as received (JSON lines)."""
    table = svc.table("t")
    welcome = {"type": "welcome", "id": "h", "protocol": 1, "role": "player",
               "epoch": table.info.epoch, "seq": table.info.seq,
               "table": table.view(gm=False)}  # fmt: skip
    start = table.info.seq
    for n in range(3):
        roll(svc, "3d6", f"late-{n}", PLAYER)
    svc.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    later = [e for e in log(svc, gm=False) if e["seq"] > start]
    return json.loads(json.dumps([welcome, *({"type": "event", **e} for e in later)]))


def test_a_late_joiners_log_verifies_from_its_welcome(tmp_path, capsys):
    """The welcome's ``dice`` names the segment committed before the log begins: with
    it, the log of a player who joined mid-segment checks out (without it, its first
    roll looked rolled before any commitment)."""
    svc = service()
    roll(svc, "2d6", "early")
    entries = _joined_late(svc)
    report = verify_events(entries)
    assert report.ok, report.problems
    assert report.verified_events == 3 and report.segments[1] == "revealed"
    path = tmp_path / "late.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in entries))
    assert main(["verify", str(path)]) == 0
    assert "rolls verified: 3" in capsys.readouterr().out
    without = [p.code for p in verify_events(entries[1:]).problems]
    assert without[0] == "uncommitted" and "unknown_segment" in without


def test_dice_shown_in_an_open_segment_without_draws_are_caught():
    """A log whose event shows dice in an open segment but names no draws (and no
    supplied dice) would keep made-up dice from every check: it is a problem."""
    events = revealed_log()
    target = [e for e in events if e["kind"] == "roll"][1]
    del target["data"]["draws"]
    problems = verify_events(events).problems
    assert [p.code for p in problems] == ["no_draws"] and problems[0].seq == target["seq"]
    # supplied dice say so, and are counted apart
    supplied = service(player_dice=True)
    svc_event = supplied.handle("t", {"type": "roll", "id": "s", "formula": "2d6",
                                      "dice": [3, 4]}, PLAYER)["event"]  # fmt: skip
    assert svc_event["data"]["supplied"] is True
    report = verify_events(log(supplied))
    assert report.ok and report.supplied == 1


def test_the_verify_summary_says_how_many_rolled_on_the_gms_stream(tmp_path, capsys):
    svc = service()
    roll(svc, "2d6", "public", PLAYER)
    roll(svc, "2d6", "secret", GM, secret=True)
    roll(svc, "3d6", "hidden-from-none", GM, secret=True, requester_sees=True)
    svc.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    path = tmp_path / "gm-view.jsonl"
    relabelled = log(svc, gm=False)
    for event in relabelled:  # a log that says `gm` for a public roll keeps it unchecked
        if event.get("request") == "public":
            event["data"]["draws"]["stream"] = "gm"
    path.write_text("\n".join(json.dumps(e) for e in relabelled))
    # ... and is a mismatch: a roll for no NPC, not secret, belongs on the public
    # stream (public_on_gm, tests/dice/test_verify_players_dice.py); it exited 0
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert (
        "1 rolled on the GM's stream (secret, approved by the GM, or with NPCs): only the GM's "
        "log checks them"
    ) in out
    assert "was drawn on the GM's stream, whose seed players never see" in out


def test_a_lost_dice_key_refuses_the_segments_dice_and_its_reveal_abandons_it(tmp_path):
    """A server whose key file is gone makes a new key: the open segment's seed is then
    not the committed one. Rolling on would make dice no reveal can back, and the
    reveal would publish a seed that fails its commitment (an honest server looking
    like a cheat): its dice are refused (``dice_key_lost``) until the GM's reveal
    abandons the segment and opens a new one under the new key."""
    path = tmp_path / "tables.db"
    first = TableService(SQLiteStore(path), HOST)
    first.create_table("t", "bandits", table_id="t", settings={"verifiable": True})
    roll(first, "4d6", "r1")
    first.store.close()
    (tmp_path / "tables.db.dice-key").rename(tmp_path / "lost-key")
    again = TableService(SQLiteStore(path), HOST)  # a new key is made
    seq = again.table("t").info.seq
    with pytest.raises(Exception) as refused:
        roll(again, "4d6", "r2", PLAYER)
    assert refused.value.code == "dice_key_lost" and refused.value.details == {"segment": 1}
    assert "dice.reveal" in str(refused.value)
    assert again.table("t").info.seq == seq, "refused: nothing changed"
    again.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    events = log(again, gm=False)
    kinds = [e["kind"] for e in events]
    assert "dice.revealed" not in kinds, "no seed that fails its commitment is published"
    assert kinds[-2:] == ["dice.abandoned", "dice.committed"]
    assert events[-2]["data"] == {"segment": 1, "reason": "key_lost"}
    roll(again, "4d6", "r3", PLAYER)
    again.handle("t", {"type": "dice.reveal", "id": "v2"}, GM)
    report = verify_events(log(again, gm=False))
    assert report.ok, report.problems
    assert report.segments[1] == "abandoned" and report.segments[2] == "revealed"
    assert report.verified_events == 1 and report.unrevealed == 1  # r1: never checkable
    # the session report says so, in the reader's language
    from rollbridge.export import export_chunks, read_log

    session = read_log(again.store, "t", HOST.rulesets)
    english = "".join(export_chunks(session, "markdown", "player"))
    assert "verifiable dice: segment 1 abandoned (the server lost its dice key" in english
    czech = "".join(export_chunks(session, "markdown", "player", locale="cs"))
    assert "úsek 1 opuštěn" in czech


def test_the_verify_command_names_an_abandoned_segment(tmp_path, capsys):
    events = revealed_log()
    committed = next(e for e in events if e["kind"] == "dice.committed")
    reveal = next(e for e in events if e["kind"] == "dice.revealed")
    reveal.update(kind="dice.abandoned", data={"segment": committed["data"]["segment"],
                                                "reason": "key_lost"})  # fmt: skip
    path = tmp_path / "abandoned.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in events))
    assert main(["verify", str(path)]) == 0
    out = capsys.readouterr().out
    assert "segment 1: abandoned: the server lost its dice key" in out


def test_the_count_of_refused_draws_outlives_the_table_read_again(tmp_path):
    """A table is read again when its last client comes back (or after a failed
    commit): the refusals counted at its seq still stand, so a player alone at the
    table cannot probe, reconnect, and roll the probed dice."""
    path = tmp_path / "tables.db"
    first = TableService(SQLiteStore(path), HOST)
    first.create_table("t", "bandits", table_id="t", settings={"verifiable": True})
    _refused(first, "probe")
    first.store.close()
    again = TableService(SQLiteStore(path), HOST)  # the table read anew, same process
    assert roll(again, "2d6", "r1", PLAYER)["event"]["data"]["draws"]["attempt"] == 1


def test_a_chip_reroll_shows_the_replaced_die_and_still_verifies():
    """A wilddie chip shows the die it replaced (tagged ``rerolled``), which an
    earlier event drew: not a die the chip's event claims to have drawn."""
    svc = service("wilddie")
    sheets = HOST.ruleset("wilddie").example_sheets
    ana = {"id": "Ana", "name": "Ana", "sheet": sheets["Ana"], "controllers": ["pat"]}
    svc.handle("t", {"type": "actor.create", "id": "c", "actor": ana}, GM)
    chips = 0
    for n in range(20):
        svc.handle("t", {"type": "resolve", "id": f"t{n}", "action": "trait", "actor": "Ana",
                         "params": {"trait": "notice"}}, PLAYER)  # fmt: skip
        die = "wild" if n % 2 else "trait"
        chip = svc.handle("t", {"type": "resolve", "id": f"c{n}", "action": "chip", "actor": "Ana",
                                "params": {"die": die}}, PLAYER)["event"]  # fmt: skip
        assert any("rerolled" in d.get("tags", ()) for g in chip["data"]["dice"] for d in g["dice"])
        chips += 1
        svc.handle("t", {"type": "resolve", "id": f"w{n}", "action": "award_chips",
                         "targets": ["Ana"], "params": {"count": 1}}, GM)  # fmt: skip
    svc.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    for gm in (True, False):
        report = verify_events(log(svc, gm=gm))
        assert report.ok, report.problems
        assert report.verified_events == 2 * chips
        # the earlier roll's dice, shown again: matched to the roll of the event it names
        assert (report.carried, report.carried_matched) == (0, chips)


def test_the_gms_own_log_counts_an_unrevealed_secret_roll_as_not_revealed_yet():
    svc = service()
    roll(svc, "2d6", "public", PLAYER)
    svc.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    roll(svc, "2d6", "secret", GM, secret=True)  # in segment 2, revealed to no one yet
    gm = verify_events(log(svc))
    assert gm.ok and gm.unrevealed == 1 and gm.gm_stream == 0


def wilddie_after_a_trait_test() -> TableService:
    """A verifiable wilddie table where the player's Ana made one trait test."""
    svc = service("wilddie")
    ana = {"id": "Ana", "name": "Ana", "sheet": HOST.ruleset("wilddie").example_sheets["Ana"],
           "controllers": ["pat"]}  # fmt: skip
    svc.handle("t", {"type": "actor.create", "id": "c", "actor": ana}, GM)
    svc.handle("t", {"type": "resolve", "id": "t1", "action": "trait", "actor": "Ana",
                     "params": {"trait": "notice"}}, PLAYER)  # fmt: skip
    return svc


def test_a_chip_of_an_older_log_verifies_and_a_reroll_in_a_fresh_roll_is_checked_whole():
    """Logs written before chip groups were tagged ``reroll`` have the dice's tags
    alone: such a chip still verifies. A reroll within a fresh roll (``6d6r<3`` in a
    techlevel hit) drew every die it shows: a plain die changed there is caught."""
    svc = wilddie_after_a_trait_test()
    svc.handle("t", {"type": "resolve", "id": "c1", "action": "chip", "actor": "Ana",
                     "params": {"die": "trait"}}, PLAYER)  # fmt: skip
    svc.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    events = log(svc)
    for event in events:
        for group in (event.get("data") or {}).get("dice") or ():
            group.pop("tags", None)  # as written before 3 December 2026
    assert verify_events(events).ok

    tl = service("techlevel")
    guard = {
        "id": "guard",
        "name": "Guard",
        "sheet": HOST.ruleset("techlevel").example_sheets["Guard"],
    }
    tl.handle("t", {"type": "actor.create", "id": "g", "actor": guard}, GM)
    for n in range(6):
        tl.handle("t", {"type": "resolve", "id": f"h{n}", "action": "hit", "targets": ["guard"],
                        "params": {"dice": "6d6r<3", "tl": 1}}, GM)  # fmt: skip
    tl.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    events = log(tl)
    assert verify_events(events).ok
    forged = False
    for event in events:
        for group in (event.get("data") or {}).get("dice") or ():
            for die in group.get("dice") or ():
                if not forged and not die.get("tags") and die["rolls"] != [6]:
                    die["rolls"] = [6]
                    forged = True
    assert forged
    assert "wrong_die" in [p.code for p in verify_events(events).problems]


@pytest.mark.parametrize("dice", [5, True, 1.5, "x", {}, None])
def test_a_resolution_whose_dice_are_no_list_is_a_problem_not_a_traceback(dice):
    svc = wilddie_after_a_trait_test()
    svc.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    events = log(svc)
    next(e for e in events if e["kind"] == "resolution")["data"]["dice"] = dice
    verify_events(events)  # no exception: whatever it finds is a problem in the report


def test_verify_of_json_nested_too_deep_is_one_error_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LANGUAGE", "en")
    deep = tmp_path / "deep.jsonl"
    deep.write_text('{"type": "event"}\n' + "[" * 100_000 + "]" * 100_000 + "\n")
    assert main(["verify", str(deep)]) == 2
    _, err = capsys.readouterr()
    assert err == f"rollbridge: error: {deep}: line 2 is JSON nested too deep to check\n"


def test_verify_of_a_number_of_thousands_of_digits_names_its_line(tmp_path, capsys, monkeypatch):
    """Python reads no integer of more than 4300 digits; its ValueError was printed as
    the error, naming neither the file nor the line, with Python's advice to raise
    the limit (found by tests/hostile/test_fuzz_verify.py)."""
    monkeypatch.setenv("LANGUAGE", "en")
    big = tmp_path / "big.jsonl"
    big.write_text('{"type": "event"}\n{"type": "event", "seq": 1' + "0" * 5000 + "}\n")
    assert main(["verify", str(big)]) == 2
    _, err = capsys.readouterr()
    assert err == (f"rollbridge: error: {big}: line 2 is not JSON: Exceeds the limit (4300 "
                   "digits) for integer string conversion\n")  # fmt: skip


# -- a server choosing among dice it drew (audit of 3 December 2026) --------------------


def sr2_attack_log() -> list[dict[str, Any]]:
    """The GM's log of a verifiable sr2 table: a success test and an attack, revealed."""
    svc = service("sr2")
    sheets = HOST.ruleset("sr2").example_sheets
    for i, name in enumerate(("Tukan", "Guard A")):
        actor = {"id": f"a{i}", "name": name, "sheet": sheets[name]}
        svc.handle("t", {"type": "actor.create", "id": f"c{i}", "actor": actor}, GM)
    svc.handle("t", {"type": "resolve", "id": "s", "action": "success_test",
                     "params": {"dice": 5, "tn": 4}}, GM)  # fmt: skip
    svc.handle("t", {"type": "resolve", "id": "a", "action": "attack", "actor": "a0",
                     "targets": ["a1"], "params": {"code": "9M", "skill": 4,
                                                   "range": "short"}}, GM)  # fmt: skip
    svc.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    return log(svc)


def test_a_resolution_showing_the_best_of_more_dice_than_it_shows_is_caught():
    """Every die drawn was the seed's, but the success test drew ten and showed the
    best five: `verify` took that ("shown dice among the draws"); now a resolution's
    dice must be its draws, in the order drawn."""
    events = sr2_attack_log()
    assert verify_events(events).ok
    test = next(e for e in events if (e.get("data") or {}).get("action") == "success_test")
    seed = bytes.fromhex(next(e for e in events if e["kind"] == "dice.revealed")["data"]["seed"])
    ten = derive(seed, "t", 1, test["seq"], [6] * 10)
    test["data"]["draws"]["dice"] = [[6, v] for v in ten]
    best = sorted(ten, reverse=True)[:5]
    for die, value in zip(test["data"]["dice"][0]["dice"], best, strict=True):
        die["rolls"] = [value]
    problems = verify_events(events).problems
    assert [p.code for p in problems] == ["not_as_drawn"], problems
    assert "drew 10, shows 5" in problems[0].message


def test_dice_moved_between_a_resolutions_tests_are_caught():
    # each segment's seed has a random nonce: an attack that misses has no resistance
    # test, so take the first of a few tables whose attack hit
    # and two dice, one of each test, that differ (to swap)
    for _ in range(40):
        events = sr2_attack_log()
        attack = next(e for e in events if (e.get("data") or {}).get("action") == "attack")
        groups = attack["data"]["dice"]
        if len(groups) != 2:  # missed: no resistance test
            continue
        pairs = [(a, b) for a in groups[0]["dice"] for b in groups[1]["dice"]]
        differ = [(a, b) for a, b in pairs if a["rolls"] != b["rolls"]]
        if differ:
            break
    else:
        pytest.fail("no attack of 40 tables hit with two dice to swap")
    first, second = differ[0]
    first["rolls"], second["rolls"] = second["rolls"], first["rolls"]
    assert [p.code for p in verify_events(events).problems] == ["not_as_drawn"]


class _HidesADie(Ruleset):
    """A ruleset that rolls two dice and shows one (a hidden hit location, say)."""

    id = "hides-a-die"
    name = "Hides a die"
    version = "1.0.0"
    sheet_schema = {"type": "object"}
    actions = {"roll2": ActionSpec("roll2", "two dice", {"type": "object"}, actor="none",
                                   example={})}  # fmt: skip
    example_sheets = {"X": {}}

    def initial_state(self, sheet):
        return {}

    def common_state(self, actor):
        return CommonState()

    def resolve(self, context, dice):
        first, _hidden = dice.roll(6), dice.roll(6)
        group = DiceGroup("d6", (Die.single(6, first),))
        return Resolution("rolled", {"value": first}, dice=[group])


def test_a_ruleset_that_hides_a_die_it_drew_is_refused_where_dice_are_verifiable():
    """The contract: a resolution shows every die it rolls. At a verifiable table the
    engine refuses one that does not (its log would not verify), changing nothing;
    the conformance suite fails it too."""
    from rollbridge.exceptions import InternalError
    from rollbridge.testing import RulesetConformance, host_with

    svc = TableService(MemoryStore(), host_with(_HidesADie()), dice_key=KEY)
    svc.create_table("t", "hides-a-die", table_id="t", settings={"verifiable": True})
    seq = svc.table("t").info.seq
    with pytest.raises(InternalError, match="drew 2 dice but shows 1"):
        svc.handle("t", {"type": "resolve", "id": "r", "action": "roll2"}, GM)
    assert svc.table("t").info.seq == seq
    plain = TableService(MemoryStore(), host_with(_HidesADie()))
    plain.create_table("t", "hides-a-die", table_id="t")
    assert plain.handle("t", {"type": "resolve", "id": "r", "action": "roll2"}, GM)["seq"]
    suite = type("Suite", (RulesetConformance,), {"ruleset": _HidesADie()})()
    with pytest.raises(AssertionError, match=r"roll2: internal: .*drew 2 dice but shows 1"):
        suite.test_a_resolution_shows_every_die_it_rolls()


def test_a_rolls_line_that_its_dice_do_not_give_is_caught():
    """The web log shows a roll's `text`: a "= 47" over a real 21 is a mismatch."""
    events = revealed_log()
    first = next(e for e in events if e["kind"] == "roll")
    first["data"]["text"] = first["data"]["text"].rsplit("=", 1)[0] + "= 999"
    problems = verify_events(events).problems
    assert [p.code for p in problems] == ["wrong_roll"] and "999" in problems[0].message


def test_a_segment_committing_to_an_earlier_segments_seed_is_caught():
    events = revealed_log()
    commits = [e for e in events if e["kind"] == "dice.committed"]
    assert len(commits) == 2
    commits[1]["data"]["commitment"] = commits[0]["data"]["commitment"]
    problems = verify_events(events).problems
    assert [p.code for p in problems] == ["seed_reused"], problems


def test_a_log_with_nothing_revealed_says_nothing_was_checked(tmp_path, capsys):
    svc = service()
    roll(svc, "2d6", "r")
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in log(svc)) + "\n", encoding="utf-8")
    assert main(["verify", str(path)]) == 0
    out = capsys.readouterr().out
    assert "no die could be checked yet" in out and "checks out" not in out


# -- the review of that change: turn hooks, epochs, both streams' seeds -----------------


class _HookRolls(Ruleset):
    """A ruleset whose turn hook rolls two dice (and, ``hides``, shows only one)."""

    id = "hook-rolls"
    name = "Hook rolls"
    version = "1.0.0"
    sheet_schema = {"type": "object"}
    actions = {"noop": ActionSpec("noop", "nothing", actor="none", example={})}
    example_sheets = {"X": {}}
    hides = False

    def initial_state(self, sheet):
        return {}

    def common_state(self, actor):
        return CommonState()

    def resolve(self, context, dice):
        return Resolution("nothing")

    def on_turn_start(self, context, dice):
        first, second = dice.roll(6), dice.roll(6)
        shown = (
            (Die.single(6, first),) if self.hides else (Die.single(6, first), Die.single(6, second))
        )
        return Resolution("rolled", dice=[DiceGroup("2d6", shown)])


class _HookHides(_HookRolls):
    id = "hook-hides"
    name = "Hook hides"
    hides = True


def hook_table(ruleset: Ruleset) -> TableService:
    from rollbridge.testing import host_with

    svc = TableService(MemoryStore(), host_with(ruleset), dice_key=KEY)
    svc.create_table("t", ruleset.id, table_id="t", settings={"verifiable": True})
    svc.handle("t", {"type": "actor.create", "id": "c",
                     "actor": {"id": "x", "name": "X", "sheet": {}}}, GM)  # fmt: skip
    return svc


def test_a_turn_hooks_dice_must_be_its_draws_too():
    """A hook's dice were checked only as "among the draws" (as a set): six drawn and
    the best two shown, or one 6 shown twice, passed."""
    for _ in range(40):  # a segment's seed is the server's secret: draw until the two differ
        svc = hook_table(_HookRolls())
        svc.handle("t", {"type": "encounter.start", "id": "e", "order": ["x"]}, GM)
        svc.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
        events = log(svc)
        assert verify_events(events).ok
        started = next(e for e in events if e["kind"] == "encounter.started")
        group = started["data"]["hooks"][0]["dice"][0]
        if group["dice"][0]["rolls"] != group["dice"][1]["rolls"]:
            break
    twice = copy.deepcopy(events)
    hook = next(e for e in twice if e["kind"] == "encounter.started")["data"]["hooks"][0]
    hook["dice"][0]["dice"].append(dict(group["dice"][0]))  # a drawn die shown twice
    assert [p.code for p in verify_events(twice).problems] == ["wrong_die"]
    first, second = group["dice"]
    assert first["rolls"] != second["rolls"], "40 tables drew two alike dice"
    group["dice"] = [second, first]  # shown in another order than drawn
    assert [p.code for p in verify_events(events).problems] == ["not_as_drawn"]


def test_a_hook_that_hides_a_die_is_refused_at_a_verifiable_table_and_by_the_suite():
    from rollbridge.exceptions import InternalError
    from rollbridge.testing import RulesetConformance

    svc = hook_table(_HookHides())
    seq = svc.table("t").info.seq
    with pytest.raises(InternalError, match="drew 2 dice but shows 1"):
        svc.handle("t", {"type": "encounter.start", "id": "e", "order": ["x"]}, GM)
    assert svc.table("t").info.seq == seq and svc.table("t").encounter is None
    suite = type("Suite", (RulesetConformance,), {"ruleset": _HookHides()})()
    with pytest.raises(AssertionError, match=r"encounter\.start: internal"):
        suite.test_a_resolution_shows_every_die_it_rolls()


def test_supplied_dice_of_a_turn_hook_say_so_and_are_not_a_mismatch():
    svc = hook_table(_HookRolls())
    started = svc.handle("t", {"type": "encounter.start", "id": "e", "order": ["x"],
                               "dice": [3, 4]}, GM)["event"]  # fmt: skip
    assert started["data"]["supplied"] is True and "draws" not in started["data"]
    svc.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    report = verify_events(log(svc))
    assert report.ok and report.supplied == 1, report.problems


def test_an_event_that_moves_the_epoch_without_a_welcome_is_a_mismatch():
    """A made-up epoch on the events before a reveal made the verifier forget the open
    segment, and a roll shown with no draws then passed. An epoch changes only with a
    welcome (a client's resume after a restore or a fence)."""
    events = revealed_log()
    last_roll = max(i for i, e in enumerate(events) if e["kind"] == "roll")
    for event in events[last_roll:]:
        event["epoch"] = 2
    del events[last_roll]["data"]["draws"]
    problems = verify_events(events).problems
    assert problems and problems[0].code == "other_epoch", problems


def test_a_gm_stream_on_an_earlier_public_seed_is_caught():
    events = revealed_log()
    commits = [e for e in events if e["kind"] == "dice.committed"]
    commits[1]["data"]["gm_commitment"] = commits[0]["data"]["commitment"]
    assert "seed_reused" in [p.code for p in verify_events(events).problems]


def test_a_players_log_with_nothing_checkable_after_a_reveal_says_so(tmp_path, capsys):
    svc = service()
    roll(svc, "2d6", "s", secret=True)  # the GM's stream: a player cannot check it
    svc.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in log(svc, gm=False)) + "\n", encoding="utf-8")
    assert main(["verify", str(path)]) == 0
    out = capsys.readouterr().out
    assert "no die could be checked from this log" in out and "ask the GM" not in out


@pytest.mark.parametrize("junk", [1.5, "x", [], None])
def test_a_log_with_junk_data_or_dice_fields_is_checked_not_a_traceback(junk):
    events = revealed_log()
    events[2]["data"] = junk
    welcome = {"type": "welcome", "table": {"id": "t", "epoch": 1, "dice": junk}}
    verify_events([welcome, *events])  # whatever it finds is a problem in the report


@pytest.mark.parametrize("faces", [0, -6, 2**70, True, 1_000_001])
def test_draws_of_faces_no_die_has_are_a_problem_not_a_hang(faces):
    """A log's ``draws`` naming a die of 0 faces divided by zero, and one of more than
    2**64 faces never ended (rejection sampling found no word under a cutoff of 0):
    ``verify`` of a hostile log must answer (found by mutating real logs, 4 December)."""
    events = revealed_log()
    drawn = next(e for e in events if (e.get("data") or {}).get("draws"))
    drawn["data"]["draws"]["dice"][0][0] = faces
    report = verify_events(events)
    assert "bad_event" in [p.code for p in report.problems]


# -- a log exported before its segment's reveal ------------------------------------


def unrevealed_log() -> list[dict[str, Any]]:
    """Four rolls, a draw and a wilddie attack in a segment not revealed yet."""
    svc = wilddie_table()
    for i in range(4):
        roll(svc, "3d6!! + 1d8", f"r{i}")
    svc.handle("t", {"type": "draw", "id": "d1", "faces": 20, "number": 2}, PLAYER)
    svc.handle("t", {"type": "resolve", "id": "a", "action": "attack", "actor": "Ana",
                     "targets": ["Guard"], "params": {"mode": "melee"}}, GM)  # fmt: skip
    return log(svc)


def test_an_untouched_log_before_the_reveal_has_no_mismatch_and_says_why_nothing_verified():
    report = verify_events(unrevealed_log())
    assert report.ok and report.verified_events == 0 and report.unrevealed == 6
    assert report.segments == {1: "committed"}


def _edited(kind: str, edit) -> list[dict[str, Any]]:
    events = unrevealed_log()
    edit(next(e for e in events if e["kind"] == kind)["data"])
    return events


@pytest.mark.parametrize(
    ("kind", "edit", "code"),
    [
        ("roll", lambda d: d.update(total=d["total"] + 1), "wrong_roll"),
        ("roll", lambda d: d["draws"]["dice"].reverse(), "wrong_roll"),
        ("dice.drawn", lambda d: d["results"].__setitem__(0, d["results"][0] % 20 + 1),
         "wrong_die"),
        ("resolution", lambda d: d["draws"]["dice"].append([6, 6]), "not_as_drawn"),
    ],
    ids=["total", "dice-reordered", "drawn-result", "resolution-extra-draw"],
)  # fmt: skip
def test_what_the_draws_must_agree_with_is_checked_before_the_reveal(kind, edit, code):
    """An edited total (or a drawn result, or a resolution's dice) in a segment not
    revealed yet verified: only the reveal checked an event, so a log exported during
    the game showed no mismatch. What needs no seed is checked at once: the formula on
    the draws, the results shown, a resolution's dice as drawn."""
    events = _edited(kind, edit)
    report = verify_events(events)
    target = next(e for e in events if e["kind"] == kind)
    assert [(p.code, p.seq) for p in report.problems] == [(code, target["seq"])]
    assert report.unrevealed == 6  # still waiting for their seed


def test_an_edited_draw_is_named_by_the_seed_once_revealed():
    """A draw edited before the reveal is first a die the event does not show; once
    the seed is known the deeper fault replaces it (the die is not the seed's), said
    once."""
    svc = service()
    for i in range(2):
        roll(svc, "3d6", f"r{i}")
    events = log(svc)
    target = next(e for e in events if e["kind"] == "roll")
    faces, value = target["data"]["draws"]["dice"][0]
    target["data"]["draws"]["dice"][0] = [faces, value % faces + 1]
    before = verify_events(events).problems
    assert [(p.code, p.seq) for p in before] == [("wrong_die", target["seq"])]
    assert "did not draw" in before[0].message
    svc.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    after_log = log(svc)
    after_log[[e.get("seq") for e in after_log].index(target["seq"])] = target
    after = verify_events(after_log).problems
    assert [(p.code, p.seq) for p in after] == [("wrong_die", target["seq"])]
    assert "die 1" in after[0].message


def test_a_roll_whose_dice_groups_were_edited_but_not_its_total_is_named_so():
    """A roll whose ``data.roll`` shows another die dropped (its total the same) was
    said to be ``4d6kh3 on its dice totals 9, the log says 9``: a mismatch whose words
    named none. Now they say which part differs."""
    svc = service()
    roll(svc, "4d6kh3", "r0")
    events = log(svc)
    target = next(e for e in events if e["kind"] == "roll")
    dice = target["data"]["roll"]["groups"][0]["dice"]
    dropped = next(n for n, die in enumerate(dice) if die.get("kept") is False)
    other = (dropped + 1) % len(dice)
    dice[dropped], dice[other] = dice[other], dice[dropped]  # shown dropped elsewhere
    report = verify_events(events)
    assert [(p.code, p.seq) for p in report.problems] == [("wrong_roll", target["seq"])]
    message = report.problems[0].message
    assert "does not give the dice its data.roll shows" in message, message
    assert "totals" not in message


def test_a_logged_formula_is_quoted_in_a_mismatch():
    """A log's formula parses with a carriage return or a line separator in it (they
    are white space to dice notation) and was printed as it was: a forged ``2d6\\r…``
    overwrote the report's line on a terminal. It is quoted, as every formula a user is
    shown (its controls escaped)."""
    svc = service()
    roll(svc, "2d6+1", "r0")
    events = log(svc)
    target = next(e for e in events if e["kind"] == "roll")
    target["data"]["formula"] = "2d6\r\u2028+ 2"
    report = verify_events(events)
    assert [(p.code, p.seq) for p in report.problems] == [("wrong_roll", target["seq"])]
    message = report.problems[0].message
    assert "'2d6\\r\\u2028+ 2' on its dice totals" in message, message
    assert "\r" not in message and "\u2028" not in message


def test_a_logged_total_that_is_text_is_quoted_in_a_mismatch():
    """The log's total was printed as it was: a forged ``"7\\r…"`` total overwrote the
    report's line on a terminal, as the formula did. It is quoted when it is not a
    number (its controls escaped); a number reads as it did."""
    svc = service()
    roll(svc, "2d6+1", "r0")
    roll(svc, "2d6+1", "r1")
    events = log(svc)
    forged, other = [e for e in events if e["kind"] == "roll"]
    forged["data"]["total"] = "7\r\u2028seq 1: all good"
    other["data"]["total"] = other["data"]["total"] + 100
    report = verify_events(events)
    messages = [p.message for p in report.problems]
    assert [(p.code, p.seq) for p in report.problems] == [
        ("wrong_roll", forged["seq"]),
        ("wrong_roll", other["seq"]),
    ]
    assert messages[0].endswith("the log says '7\\r\\u2028seq 1: all good'"), messages[0]
    assert "\r" not in messages[0] and "\u2028" not in messages[0]
    assert messages[1].endswith(f"the log says {other['data']['total']}"), messages[1]
