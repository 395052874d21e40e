"""``rollbridge verify`` holds an approval in a player's log to what the log shows
of the request it names.

In a player's log a request held for the GM is a ``hidden`` stand-in, and an
approved event naming any stand-in not yet settled passed: the GM's seed of a
reveal, a secret resolution that changed actors, a secret roll made while the
table's setting ``approval`` was off, or a "request" of the GM's own. Each of these
the log shows is no request held for approval. And an approval whose request was
held before an export's first line was counted with the stand-ins, though the
log shows even less of it (docs/dice.md, "What it cannot check")."""

from __future__ import annotations

import json

import pytest

from rollbridge.cli.verify import render_report
from rollbridge.dice.verifiable import DiceKey
from rollbridge.dice.verify import Report
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore
from tests.dice.test_verify_players_dice import GM, PLAYER, _run, _verified, _views

pytestmark = pytest.mark.usefixtures("english_without_stores")


def _night(tmp_path) -> dict[str, list[dict]]:
    """A verifiable wilddie table (Ana, the player's; the guard, an NPC): the GM's
    secret roll while approval is off, then approval on, the GM's secret damage to
    Ana, two of the player's rolls held and approved, a reveal. The GM's and the
    player's exports, by view."""
    db = tmp_path / "n.db"
    with SQLiteStore(db) as store:
        host = PluginHost()
        service = TableService(store, host, dice_key=DiceKey.for_store(store))
        service.create_table("n", "wilddie", settings={"verifiable": True}, table_id="n")
        sheets = host.rulesets["wilddie"].example_sheets
        for actor_id, name, controllers in (("ana", "Ana", ["player"]), ("guard", "Guard", [])):
            actor = {"id": actor_id, "name": name, "sheet": dict(sheets[name]),
                     "controllers": controllers}  # fmt: skip
            service.handle("n", {"type": "actor.create", "id": actor_id, "actor": actor}, GM)
        for who, request in [
            (GM, {"type": "roll", "id": "secret", "formula": "1d20", "secret": True}),
            (GM, {"type": "settings", "id": "on", "settings": {"approval": True}}),
            (
                GM,
                {
                    "type": "resolve",
                    "id": "hurt",
                    "action": "award_chips",
                    "targets": ["ana"],
                    "params": {"count": 1},
                    "secret": True,
                },
            ),
        ]:
            service.handle("n", request, who)
        for n, formula in ((1, "1d6"), (2, "1d8")):
            held = service.handle("n", {"type": "roll", "id": f"r{n}", "formula": formula}, PLAYER)
            service.handle("n", {"type": "approve", "id": f"g{n}", "request": held["pending"]}, GM)
        service.handle("n", {"type": "dice.reveal", "id": "reveal"}, GM)
        held = service.handle("n", {"type": "roll", "id": "r3", "formula": "1d4"}, PLAYER)
        service.handle("n", {"type": "approve", "id": "g3", "request": held["pending"]}, GM)
    return _views(tmp_path, db, "n")


def _seq(lines: list[dict], request: str) -> int:
    return next(line["seq"] for line in lines if line.get("request") == request)


def _approved(lines: list[dict], request: str) -> dict:
    """The roll of the player's request ``request`` (r1, r2), approved."""
    return next(
        line for line in lines if line.get("request") == request and line.get("kind") == "roll"
    )


def _codes(report: dict) -> list[tuple[str, int]]:
    return [(p["code"], p["seq"]) for p in report["problems"]]


def test_the_night_is_as_the_tests_take_it(tmp_path):
    """The seqs the forgeries below name, and the honest logs' reports."""
    logs = _night(tmp_path)
    gm, player = logs["gm"], logs["player"]
    assert [_approved(gm, r)["data"]["approved"] for r in ("r1", "r2", "r3")] == [
        "p8",
        "p10",
        "p15",
    ]
    kinds = {line["seq"]: line["kind"] for line in player if "kind" in line}
    hurt = next(line for line in player if line.get("seq") == _seq(gm, "hurt"))
    assert (hurt["kind"], [a["id"] for a in hurt["actors"]]) == ("hidden", ["ana"])
    assert kinds[_seq(gm, "secret")] == kinds[8] == kinds[10] == kinds[12] == "hidden"
    assert kinds[13] == "dice.revealed"  # the GM's seed at 12, just before it
    status, report = _verified(tmp_path, gm)
    assert status == 0 and report["ok"], report["problems"]
    assert (report["approvals_held"], report["approvals_unseen"]) == (3, 0)
    status, report = _verified(tmp_path, player)
    assert status == 0 and report["ok"], report["problems"]
    assert (report["approvals_held"], report["approvals_unseen"]) == (0, 3)
    assert (report["hidden"], report["stand_in_seeds"], report["stand_in_requests"]) == (6, 1, 3)


@pytest.mark.parametrize(
    ("named", "says"),
    [
        ("secret", "the table's setting approval was off, so no request was held"),
        (
            "hurt",
            "is a hidden event that changed actors, which a request held for approval never does",
        ),
        (
            "seed",
            "is the GM's seed of the reveal at seq 13 (a reveal writes it just before "
            "its dice.revealed), not a request held for approval",
        ),
    ],
)
def test_an_approval_naming_a_stand_in_that_is_no_request_is_a_mismatch(tmp_path, named, says):
    """Before, each of these read as a request this log cannot show, exit 0."""
    logs = _night(tmp_path)
    at = 12 if named == "seed" else _seq(logs["gm"], named)
    roll = _approved(logs["player"], "r3")
    roll["data"]["approved"] = f"p{at}"
    status, report = _verified(tmp_path, logs["player"])
    assert status == 1 and _codes(report) == [("unheld_approval", roll["seq"])], report
    assert report["problems"][0]["message"].startswith(
        f"seq {roll['seq']}: the log says the GM approved request 'p{at}', but "
    )
    assert says in report["problems"][0]["message"]


def test_an_approval_of_a_request_no_player_made_is_a_mismatch(tmp_path):
    """Only a player's request is held: a roll by the GM said to be approved is no
    request's, where the log shows only a stand-in."""
    logs = _night(tmp_path)
    roll = _approved(logs["player"], "r3")
    roll["by"] = "gm"
    status, report = _verified(tmp_path, logs["player"])
    assert status == 1 and _codes(report) == [("other_request", roll["seq"])], report
    assert report["problems"][0]["message"] == (
        f"seq {roll['seq']}: the log says the GM approved request 'p15', but this event is by "
        "'gm', and only a player's requests are held for the GM's approval"
    )


def _since(tmp_path, who: str, since: int) -> list[dict]:
    log = tmp_path / f"{who}-since.jsonl"
    status, said = _run("table", "export", "n", "--db", str(tmp_path / "n.db"), "--as", who,
                        "--format", "jsonl", "--since", str(since), "--out", str(log))  # fmt: skip
    assert status == 0, said
    return [json.loads(line) for line in log.read_text().splitlines()]


@pytest.mark.parametrize("who", ["gm", "player"])
def test_an_export_that_begins_after_a_request_says_what_it_checks_of_it(tmp_path, who):
    """The export from seq 9 on: the request of r2 (seq 10) is in it, r1's (seq 8) is
    not. The approval of r1 is counted apart and the report says what was checked."""
    _night(tmp_path)
    lines = _since(tmp_path, who, 8)
    assert lines[0]["type"] == "welcome" and lines[1]["seq"] == 9
    status, report = _verified(tmp_path, lines)
    assert status == 0 and report["ok"], report["problems"]
    held = (2, 1, 1) if who == "gm" else (0, 3, 1)
    assert (report["approvals_held"], report["approvals_unseen"],
            report["approvals_before_log"]) == held  # fmt: skip
    log = tmp_path / "read.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    status, said = _run("verify", str(log))
    assert status == 0
    assert (
        "1 event approved by the GM names a request held before this log's first line: "
        "checked only that a player asked, that the request's seq is before the log and "
        "that the log settles it once; that a request was held at that seq, whose it was "
        "and what it asked is the server's word (the log's first line shows the table "
        "without its requests), and in a player's log its dice, on the GM's stream, only "
        "the GM's log checks"
    ) in said.splitlines()
    if who == "player":
        assert (
            "2 events approved by the GM name requests this log shows only as hidden "
            "stand-ins: checked that each stand-in comes before its approval, changed no "
            "actor, is not the GM's seed of a reveal, fell while the table held players' "
            "requests (its setting approval on, where the log shows it), that a player asked "
            "and that each request is settled once; what the requests were and whose is the "
            "server's word, and their dice, on the GM's stream, only the GM's log checks"
        ) in said.splitlines()


def test_an_approval_of_a_request_before_the_log_by_the_gm_is_a_mismatch(tmp_path):
    _night(tmp_path)
    lines = _since(tmp_path, "player", 8)
    roll = _approved(lines, "r1")
    roll["by"] = "gm"
    status, report = _verified(tmp_path, lines)
    assert status == 1 and _codes(report) == [("other_request", roll["seq"])], report


def test_the_report_tells_the_stand_ins_it_can(tmp_path):
    """Of the player's six stand-ins the log tells four: the GM's seed at the
    reveal and the three requests the approvals name. Before, all six were said to be
    indistinguishable from a player's roll hidden and rolled again."""
    _night(tmp_path)
    status, said = _run("verify", str(tmp_path / "player.jsonl"))
    assert status == 0
    lines = said.splitlines()
    assert (
        "4 hidden stand-ins are told by the events around them: the GM's seeds of reveals "
        "(each just before its dice.revealed): 1; requests held for the GM that an approval "
        "or a rejection names: 3"
    ) in lines
    assert any(
        line.startswith("2 hidden stand-ins cannot be told from a player's") for line in lines
    )


def test_the_told_stand_ins_line_counts_each_kind_in_plain_english():
    """It read "3 hidden stand-ins are told by the events around them: 2 the GM's
    seed of a reveal (…), 1 requests held for the GM …": the counts of each kind
    (not the line's own {count}) were written before words that agreed with none."""
    report = Report(hidden=3, stand_in_seeds=2, stand_in_requests=1)
    told = [line for line in render_report(report) if "are told by" in line]
    assert told == [
        "3 hidden stand-ins are told by the events around them: the GM's seeds of reveals "
        "(each just before its dice.revealed): 2; requests held for the GM that an approval "
        "or a rejection names: 1"
    ]


def test_an_approval_of_a_request_the_client_missed_is_not_said_to_be_a_stand_ins(tmp_path):
    """A player's client log that reconnected: its lines up to a second player's
    request, then the welcome of its new connection (the table at that request's
    seq, which the log does not hold) and what followed. The approval of the missed
    request was counted with those whose stand-in the log shows, and the report said
    it had checked that stand-in (before it, no actor changed, no GM's seed): there
    was none to check."""
    db = tmp_path / "away.db"
    with SQLiteStore(db) as store:
        service = TableService(store, PluginHost(), dice_key=DiceKey.for_store(store))
        settings = {"verifiable": True, "approval": True}
        service.create_table("away", "wilddie", settings=settings, table_id="away")
        for n in (1, 2):
            held = service.handle("away", {"type": "roll", "id": f"r{n}", "formula": "1d6"}, PLAYER)
            service.handle(
                "away", {"type": "approve", "id": f"g{n}", "request": held["pending"]}, GM
            )
        service.handle("away", {"type": "dice.reveal", "id": "reveal"}, GM)
    gm = _views(tmp_path, db, "away")["gm"]
    missed = int(_approved(gm, "r2")["data"]["approved"][1:])
    status, said = _run("table", "export", "away", "--db", str(db), "--as", "player",
                        "--format", "jsonl", "--since", str(missed))  # fmt: skip
    assert status == 0, said
    rejoined = [json.loads(line) for line in said.splitlines()]
    assert rejoined[0]["type"] == "welcome" and rejoined[0]["table"]["seq"] == missed
    player = _views(tmp_path, db, "away")["player"]
    log = [line for line in player if line.get("seq", 0) < missed] + rejoined
    (tmp_path / "client.jsonl").write_text("".join(json.dumps(line) + "\n" for line in log))
    status, said = _run("verify", str(tmp_path / "client.jsonl"))
    lines = said.splitlines()
    assert status == 0
    assert any(
        line.startswith(
            "1 event approved by the GM names a request this log shows only as a hidden "
            "stand-in: checked that the stand-in comes before it"
        )
        for line in lines
    ), lines
    assert any(
        line.startswith(
            "1 event approved by the GM names a request at a seq this log does not hold, "
            "after its first line (an event the client missed, before a later welcome line)"
        )
        for line in lines
    ), lines
    status, report = _verified(tmp_path, log)
    assert status == 0 and report["ok"], report["problems"]
    counts = ("approvals_unseen", "approvals_before_log", "approvals_missed", "stand_in_requests")
    assert [report[name] for name in counts] == [2, 0, 1, 1]
