"""``rollbridge verify`` holds a rejection, as it holds an approval, to what the log
shows of the request it names; and a GM's ``welcome`` to the requests it lists.

A rejection (``approval.rejected``, in every view) names its request, ``p`` and the
request's seq. In a player's log that request is a ``hidden`` stand-in, and the
report counts each stand-in a rejection names as a request held for the GM. Before,
a rejection naming a stand-in the log shows is no request — one that changed actors,
the GM's seed of a reveal, one made while the setting ``approval`` was off — or an
event of another kind passed, exit 0: a GM's secret event passed off as a player's
request the GM turned down.

A ``welcome`` that does not recover (a client's new connection) starts the log again
at its table's seq: the seqs between the log's last line and it are events the client
missed, and an approval naming a request there was counted as one the log cannot
show. So a ``welcome`` put into a GM's log, the lines under it taken out, made any
approval naming a seq there pass. A GM's welcome lists the requests waiting then
(``table.pending``): a request held at or before its seq and settled after it waited
then, so one it does not list is no request (docs/dice.md, ``unheld_approval``,
``unheld_rejection``)."""

from __future__ import annotations

import json

import pytest

from rollbridge.cli.verify import render_report
from rollbridge.dice.verifiable import DiceKey
from rollbridge.dice.verify import verify_events
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore
from tests.dice.test_verify_players_dice import GM, PLAYER, _run, _verified, _views
from tests.dice.test_verify_stand_in_requests import _night, _seq

pytestmark = pytest.mark.usefixtures("english_without_stores")


def _rejection(lines: list[dict]) -> dict:
    """A rejection of the night's (a real one made into the player's log: the night
    has none): the approved roll of r3, made an ``approval.rejected`` of its request,
    with the fields a server writes of it (whose request, of what type)."""
    line = next(line for line in lines if line.get("request") == "r3" and "kind" in line)
    data = {"pending": line["data"]["approved"], "request": "r3", "type": "roll",
            "requested_by": line["by"], "reason": ""}  # fmt: skip
    line.update(kind="approval.rejected", data=data, by="gm")
    return line


def _codes(report: dict) -> list[tuple[str, int]]:
    return [(p["code"], p["seq"]) for p in report["problems"]]


def test_an_honest_rejection_names_its_request(tmp_path):
    """The rejection made above names the request it settles: it verifies, and the
    stand-in it names is told as a request."""
    logs = _night(tmp_path)
    _rejection(logs["player"])
    status, report = _verified(tmp_path, logs["player"])
    assert status == 0 and report["ok"], report["problems"]
    assert report["stand_in_requests"] == 3


@pytest.mark.parametrize(
    ("named", "says"),
    [
        ("secret", "the table's setting approval was off, so no request was held for the GM"),
        ("hurt", "is a hidden event that changed actors, which a request held for approval"),
        ("seed", "is the GM's seed of the reveal at seq 13 (a reveal writes it just before"),
        ("reveal", "is a 'dice.revealed' event, not a request held for approval"),
        ("x1", "but that names no request held before it"),
    ],
)
def test_a_rejection_naming_what_is_no_request_is_a_mismatch(tmp_path, named, says):
    """Before, each passed (exit 0), and the stand-in was told as a request."""
    logs = _night(tmp_path)
    rejected = _rejection(logs["player"])
    fixed = {"seed": "p12", "reveal": "p13", "x1": "x1"}
    rejected["data"]["pending"] = fixed.get(named) or f"p{_seq(logs['gm'], named)}"
    status, report = _verified(tmp_path, logs["player"])
    assert status == 1 and _codes(report) == [("unheld_rejection", rejected["seq"])], report
    said = report["problems"][0]["message"]
    assert said.startswith(f"seq {rejected['seq']}: the log says the GM rejected request "), said
    assert says in said
    assert report["stand_in_requests"] == 2  # the approvals' two, not this one


def _gm_client_log(tmp_path) -> tuple[list[dict], dict[str, int]]:
    """A GM's client log that reconnected: a verifiable wilddie table with approval on;
    the player's request r1 held, the GM's secret roll, then the GM's client away (its
    new connection's welcome at the seq then, listing r1's request as waiting, as a
    GM's welcome does); r1 approved, r2 held and rejected, approval off, the player's
    roll r3, a reveal. The log: the GM's export up to before r1, that welcome, the
    events after it. And the seqs of the requests by id."""
    db = tmp_path / "w.db"
    with SQLiteStore(db) as store:
        service = TableService(store, PluginHost(), dice_key=DiceKey.for_store(store))
        settings = {"verifiable": True, "approval": True}
        service.create_table("W", "wilddie", settings=settings, table_id="w")
        r1 = service.handle("w", {"type": "roll", "id": "r1", "formula": "1d6"}, PLAYER)
        service.handle("w", {"type": "roll", "id": "s", "formula": "1d20", "secret": True}, GM)
        table = service.handle("w", {"type": "state", "id": "t"}, GM)["table"]
        service.handle("w", {"type": "approve", "id": "g1", "request": r1["pending"]}, GM)
        r2 = service.handle("w", {"type": "roll", "id": "r2", "formula": "1d8"}, PLAYER)
        service.handle("w", {"type": "reject", "id": "n2", "request": r2["pending"]}, GM)
        service.handle("w", {"type": "settings", "id": "off", "settings": {"approval": False}}, GM)
        service.handle("w", {"type": "roll", "id": "r3", "formula": "1d4"}, PLAYER)
        service.handle("w", {"type": "dice.reveal", "id": "v"}, GM)
    whole = _views(tmp_path, db, "w")["gm"]
    status, said = _run("table", "export", "w", "--db", str(db), "--as", "gm",
                        "--format", "jsonl", "--since", str(table["seq"]))  # fmt: skip
    assert status == 0, said
    later = [json.loads(line) for line in said.splitlines()]
    welcome = later[0]
    assert welcome["type"] == "welcome" and welcome["table"]["seq"] == table["seq"]
    welcome["table"]["pending"] = table["pending"]  # a GM's live welcome lists them
    held = int(r1["pending"][1:])
    log = [line for line in whole if line.get("seq", -1) < held] + later
    seqs = {"r1": held, "s": _seq(whole, "s"), "r2": int(r2["pending"][1:])}
    return log, seqs


def test_a_gm_client_log_that_reconnected_verifies(tmp_path):
    """The honest log: r1's approval held to the request its welcome lists."""
    log, seqs = _gm_client_log(tmp_path)
    welcome = next(line for line in log[1:] if line.get("type") == "welcome")
    assert seqs["r1"] < seqs["s"] <= welcome["table"]["seq"] < seqs["r2"]
    status, report = _verified(tmp_path, log)
    assert status == 0 and report["ok"], report["problems"]
    assert (report["approvals_held"], report["approvals_unseen"]) == (1, 0)


def test_an_approval_naming_a_seq_under_a_gms_welcome_it_does_not_list_is_a_mismatch(
    tmp_path,
):
    """The GM's secret roll, in the seqs the welcome put the client away for, named by
    an approval written into the player's roll r3: before, counted as an approval of a
    request the client missed (approvals_missed), exit 0."""
    log, seqs = _gm_client_log(tmp_path)
    roll = next(line for line in log if line.get("request") == "r3")
    roll["data"].update(approved_by="gm", approved=f"p{seqs['s']}")
    status, report = _verified(tmp_path, log)
    welcome = next(line for line in log[1:] if line.get("type") == "welcome")["table"]["seq"]
    assert status == 1 and ("unheld_approval", roll["seq"]) in _codes(report), report
    said = {p["code"]: p["message"] for p in report["problems"]}
    assert said["unheld_approval"] == (
        f"seq {roll['seq']}: the log says the GM approved request 'p{seqs['s']}', held at seq "
        f"{seqs['s']}, but the GM's welcome line at seq {welcome} (its pending: the requests "
        "waiting then) does not list it: it was no request waiting for the GM, and an "
        "approved event's dice are on the GM's stream, where players cannot check them"
    )
    assert report["approvals_missed"] == 0


def test_a_rejection_naming_a_seq_under_a_gms_welcome_it_does_not_list_is_a_mismatch(
    tmp_path,
):
    log, seqs = _gm_client_log(tmp_path)
    rejected = next(line for line in log if line.get("kind") == "approval.rejected")
    rejected["data"]["pending"] = f"p{seqs['s']}"
    status, report = _verified(tmp_path, log)
    assert status == 1 and _codes(report) == [("unheld_rejection", rejected["seq"])], report
    assert "but the GM's welcome line at seq" in report["problems"][0]["message"]


def test_a_players_welcome_lists_no_requests_and_holds_none(tmp_path):
    """A player's welcome has no ``pending``: an approval of a request at a seq it put
    the client away for is still counted as one the log cannot show, and the report
    says so."""
    log, _ = _gm_client_log(tmp_path)
    for line in log:
        if line.get("type") == "welcome":
            line["table"].pop("pending", None)
    report = verify_events(log)
    assert report.ok and report.approvals_missed == 1, report.problems
    assert any(line.startswith("1 event approved by the GM names a request at a seq this "
                               "log does not hold") for line in render_report(report))  # fmt: skip


def test_the_report_names_the_seqs_a_welcome_skipped(tmp_path):
    """A player's own log cannot hold a welcome to the requests it lists: the seqs a
    welcome skipped are said, with whose word it is that the client was away. Before,
    the report named none (only an approval naming one was counted)."""
    log, seqs = _gm_client_log(tmp_path)
    welcome = next(line for line in log[1:] if line.get("type") == "welcome")["table"]["seq"]
    status, report = _verified(tmp_path, log)
    run = {"epoch": 1, "first": seqs["r1"], "last": welcome}
    assert status == 0 and report["unreceived"] == [run], report
    said = [line for line in render_report(verify_events(log)) if "skipped at" in line]
    assert said == [
        f"{welcome - seqs['r1'] + 1} events after this log's first line are in none of its "
        "lines, skipped at later welcome lines (new connections, which did not get the "
        f"events they missed): seqs {seqs['r1']}–{welcome}; that the client was away then "
        "is those welcomes' word, and what the events were only the GM's log shows"
    ]
