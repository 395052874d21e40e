"""Statistics over a time span (issue 17, item 3: "a time span"; docs/statistics.md):
each event records when it was executed (``at``, from the clock its driver gives
the table), and ``from_time``/``to_time`` pick the events of a span."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

import pytest

from rollbridge.dice.sources import SeededDice
from rollbridge.exceptions import InvalidRequest
from rollbridge.export import read_log
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stats import check_scope, table_stats
from rollbridge.stores.sqlite import SQLiteStore
from tests.export.conftest import GM, NIGHT_START, NIGHT_TICK, Clock


def rolls_at_known_times(path) -> tuple[PluginHost, list[float]]:
    """Five GM rolls of 1d6 with supplied dice 1..5, one clock tick apart."""
    host = PluginHost()
    with SQLiteStore(path) as store:
        service = TableService(store, host, dice=lambda: SeededDice(1), clock=Clock())
        service.create_table("t", "sr2", table_id="sr2")
        for face in range(1, 6):
            roll = {"type": "roll", "id": f"r{face}", "formula": "1d6", "dice": [face]}
            service.handle("sr2", roll, GM)
        log = read_log(store, "sr2", host.rulesets)
    return host, [event.at for event in log.events]


def stats_of(path, host, **scope) -> dict:
    with SQLiteStore(path) as store:
        log = read_log(store, "sr2", host.rulesets)
    return table_stats(log.table, log.events, audience="gm", scope=check_scope(scope))["stats"]


def test_each_event_records_when_it_was_executed(tmp_path):
    _, times = rolls_at_known_times(tmp_path / "t.db")
    assert times == [NIGHT_START + NIGHT_TICK * i for i in range(5)]


def test_a_time_span_counts_only_the_events_inside_it(tmp_path):
    path = tmp_path / "t.db"
    host, times = rolls_at_known_times(path)
    # the second to the fourth roll: faces 2, 3 and 4
    span = stats_of(path, host, from_time=times[1], to_time=times[3])
    six = span["session"]["dice"]["6"]
    assert span["events"] == 3 and six["count"] == 3 and six["sum"] == 2 + 3 + 4
    assert span["scope"] == {"from_time": times[1], "to_time": times[3]}
    later = stats_of(path, host, from_time=times[3] + 1)
    assert later["events"] == 1 and later["session"]["dice"]["6"]["sum"] == 5
    # a seq span narrows a time span further
    both = stats_of(path, host, from_time=times[0], since=4)
    assert both["events"] == 2 and both["first_seq"] == 4


def test_events_without_a_time_are_outside_every_time_span(tmp_path):
    host = PluginHost()
    path = tmp_path / "t.db"
    with SQLiteStore(path) as store:
        service = TableService(store, host, dice=lambda: SeededDice(1), clock=None)
        service.create_table("t", "sr2", table_id="sr2")
        service.handle("sr2", {"type": "roll", "id": "r", "formula": "1d6", "dice": [3]}, GM)
        assert all(e.at is None for e in read_log(store, "sr2", host.rulesets).events)
    assert stats_of(path, host)["events"] == 1
    assert stats_of(path, host, from_time=0)["events"] == 0


@pytest.mark.parametrize(
    ("scope", "field"),
    [({"from_time": -1}, "from_time"), ({"to_time": "noon"}, "to_time"),
     ({"from_time": float("nan")}, "from_time"), ({"to_time": True}, "to_time"),
     ({"from_time": 10, "to_time": 5}, "from_time")],
)  # fmt: skip
def test_a_bad_time_span_is_refused_naming_its_field(scope, field):
    with pytest.raises(InvalidRequest) as refused:
        check_scope(scope)
    assert refused.value.details["field"] == field


def test_the_cli_takes_a_time_span_as_iso_8601_or_seconds(tmp_path, capsys):
    from rollbridge.cli import main

    path = tmp_path / "t.db"
    _, times = rolls_at_known_times(path)
    iso = datetime.fromtimestamp(times[2], UTC).isoformat()  # with its +00:00 offset
    assert main(["table", "stats", "sr2", "--db", str(path), "--json", "--from", iso,
                 "--to", str(times[3])]) == 0  # fmt: skip
    printed = json.loads(capsys.readouterr().out)["stats"]
    assert printed["events"] == 2 and printed["session"]["dice"]["6"]["sum"] == 3 + 4
    assert main(["table", "stats", "sr2", "--db", str(path), "--from", "yesterday"]) != 0
    err = capsys.readouterr().err
    assert "--from" in err and "yesterday" in err and "Traceback" not in err


async def test_events_on_the_wire_carry_the_servers_time(make_tables):
    tables = await make_tables(dice=lambda: SeededDice(17))
    gm, _ = await tables.join("sr2", "gm")
    before = time.time()
    reply = await gm.request({"type": "roll", "id": "t1", "formula": "2d6"})
    after = time.time()
    assert reply["type"] == "result"
    await gm.wait_for(lambda peer: any(e.get("seq") == reply["seq"] for e in peer.events))
    event = next(e for e in gm.events if e.get("seq") == reply["seq"])
    assert before - 0.01 <= event["at"] <= after + 0.01
    since = await gm.request({"type": "stats", "from_time": after + 3600})
    assert since["stats"]["events"] == 0
    # the table's setup (its actors) came before the roll: a span from the roll on
    # holds the roll alone, one up to it holds the setup too
    span = await gm.request({"type": "stats", "from_time": event["at"]})
    assert span["stats"]["events"] == 1 and span["stats"]["first_seq"] == reply["seq"]
    upto = await gm.request({"type": "stats", "to_time": event["at"]})
    assert upto["stats"]["events"] == reply["seq"]
