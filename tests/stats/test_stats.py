"""Roll statistics (issue 17, item 3; docs/statistics.md): dice per size, what each
ruleset's results meant, and the role filter — a player's statistics are counted
from the player's views, so GM-only events change the GM's and never a player's."""

from __future__ import annotations

import json

import pytest

from rollbridge.dice.sources import SeededDice
from rollbridge.exceptions import InvalidRequest, LimitExceeded
from rollbridge.export import read_log
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stats import check_scope, table_stats
from rollbridge.stores.sqlite import SQLiteStore
from tests.export.conftest import ATTACK, GM, SECRET_ROLL, play_night


def stats_of(path, host, audience: str, **scope) -> dict:
    with SQLiteStore(path) as store:
        log = read_log(store, "sr2", host.rulesets)
    return table_stats(log.table, log.events, audience=audience, scope=check_scope(scope))["stats"]


def night_on(path, *, secret: bool) -> PluginHost:
    """The export tests' night, with or without the GM's secret roll."""
    host = PluginHost()
    with SQLiteStore(path) as store:
        service = TableService(store, host, dice=lambda: SeededDice(2026))
        service.create_table("Friday night", "sr2", table_id="sr2")
        if secret:
            play_night(service)
        else:
            original = service.handle

            def without_secret(table, message, who, dice=None):
                if message.get("label") == SECRET_ROLL["label"]:
                    return {"seq": None}
                return original(table, message, who, dice)

            service.handle = without_secret  # type: ignore[method-assign]
            play_night(service)
    return host


@pytest.fixture
def nights(tmp_path):
    with_secret, without = tmp_path / "secret.db", tmp_path / "plain.db"
    return (
        (with_secret, night_on(with_secret, secret=True)),
        (without, night_on(without, secret=False)),
    )


def test_the_dice_of_a_supplied_roll_are_counted_per_size(tmp_path):
    host = PluginHost()
    path = tmp_path / "t.db"
    with SQLiteStore(path) as store:
        service = TableService(store, host, dice=lambda: SeededDice(1))
        service.create_table("t", "sr2", table_id="sr2")
        dice = [6, 4, 2, 6, 1]  # 6 explodes into 6, which explodes into 1
        service.handle("sr2", {"type": "roll", "id": "r", "formula": "3d6x+2", "dice": dice}, GM)
        service.handle("sr2", {"type": "roll", "id": "s", "formula": "2d8", "dice": [8, 3]}, GM)
    stats = stats_of(path, host, "gm")
    six, eight = stats["session"]["dice"]["6"], stats["session"]["dice"]["8"]
    assert stats["session"]["rolls"] == 2
    assert six["count"] == len(dice) and six["sum"] == sum(dice)
    assert six["mean"] == pytest.approx(sum(dice) / len(dice)) and six["expected"] == 3.5
    assert six["faces"] == {str(f): dice.count(f) for f in range(1, 7)}
    assert six["explosions"] == 2 and stats["session"]["explosions"] == 2
    assert eight["faces"]["8"] == 1 and eight["faces"]["3"] == 1 and eight["count"] == 2
    assert eight["explosions"] == 0 and eight["expected"] == 4.5


def test_a_player_never_learns_from_statistics_what_gm_only_events_hid(nights):
    (secret_path, secret_host), (plain_path, plain_host) = nights
    gm_with = stats_of(secret_path, secret_host, "gm")
    gm_without = stats_of(plain_path, plain_host, "gm")
    # the check can fail: the secret roll's 17 dice are in the GM's statistics
    sixes = gm_with["session"]["dice"]["6"]["count"]
    assert sixes >= gm_without["session"]["dice"]["6"]["count"] + 17
    for audience in ("player", "observer"):
        seen_with = stats_of(secret_path, secret_host, audience)
        seen_without = stats_of(plain_path, plain_host, audience)
        assert seen_with["audience"] == audience
        assert seen_with["session"] == seen_without["session"]
        assert seen_with["actors"] == seen_without["actors"]
        assert "48611" not in json.dumps(seen_with)


def test_sr2_counts_the_attack_as_its_event_shows_it(nights):
    (path, host), _ = nights
    with SQLiteStore(path) as store:
        log = read_log(store, "sr2", host.rulesets)
    attack = next(e for e in log.events if e.kind == "resolution")
    outcome = attack.data["outcome"]
    stats = stats_of(path, host, "gm")
    tukan = {r["key"]: r["value"] for r in stats["actors"]["tukan"]["ruleset"]}
    guard = {r["key"]: r["value"] for r in stats["actors"]["guard-a"]["ruleset"]}
    assert tukan["attacks"] == 1
    assert tukan["hits"] == (1 if outcome["hit"] else 0)  # SR-8
    boxes = outcome.get("boxes") or 0
    assert tukan["boxes_dealt"] == boxes
    # the GM's adjust of 4 Physical boxes (undone, then redone: it counts once)
    assert guard["boxes_taken"] == boxes + 4
    assert [r["label"] for r in stats["session"]["ruleset"]][:2] == ["Attacks", "Hits"]


def test_an_actor_and_a_seq_span_narrow_the_session(nights):
    (path, host), _ = nights
    whole = stats_of(path, host, "gm")
    tukan = stats_of(path, host, "gm", actor="tukan")
    assert list(tukan["actors"]) == ["tukan"]
    assert tukan["session"] == {k: v for k, v in whole["actors"]["tukan"].items() if k != "name"}
    first = stats_of(path, host, "gm", since=whole["first_seq"], until=whole["first_seq"])
    assert first["events"] == 1 and first["scope"] == {"since": whole["first_seq"],
                                                       "until": whole["first_seq"]}  # fmt: skip


@pytest.mark.parametrize(
    ("scope", "field"),
    [({"since": -1}, "since"), ({"until": "3"}, "until"), ({"since": 5, "until": 2}, "since"),
     ({"actor": 7}, "actor")],
)  # fmt: skip
def test_a_bad_scope_is_refused_naming_its_field(scope, field):
    with pytest.raises(InvalidRequest) as refused:
        check_scope(scope)
    assert refused.value.details["field"] == field


def test_an_encounter_not_in_the_log_is_refused(nights):
    (path, host), _ = nights
    with pytest.raises(InvalidRequest):
        stats_of(path, host, "gm", encounter=2)


async def test_the_stats_request_over_a_real_socket_is_role_filtered(make_tables):
    tables = await make_tables(dice=lambda: SeededDice(17))
    gm, _ = await tables.join("sr2", "gm")
    player, _ = await tables.join("sr2", "player")
    assert (await gm.request(SECRET_ROLL))["type"] == "result"
    attack = {"type": "resolve", "action": "attack", "actor": "tukan",
              "targets": ["guard-a"], "params": ATTACK}  # fmt: skip
    assert (await player.request(attack))["type"] == "result"
    gm_stats = (await gm.request({"type": "stats"}))["stats"]
    player_stats = (await player.request({"type": "stats"}))["stats"]
    assert gm_stats["audience"] == "gm" and player_stats["audience"] == "player"
    sixes = gm_stats["session"]["dice"]["6"]["count"]
    assert sixes >= player_stats["session"]["dice"]["6"]["count"] + 17
    first_count = player_stats["actors"]["tukan"]["ruleset"][0]
    assert first_count == {"key": "attacks", "label": "Attacks", "value": 1}
    refused = await player.request({"type": "stats", "since": 9, "until": 1})
    assert refused["type"] == "error" and refused["code"] == "invalid_request"
    unknown = await player.request({"type": "stats", "colour": "red"})
    assert unknown["type"] == "error" and unknown["code"] == "invalid_request"


def test_the_cli_prints_the_same_statistics(nights, capsys):
    from rollbridge.cli import main

    (path, host), _ = nights
    assert main(["table", "stats", "sr2", "--db", str(path), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == {"stats": stats_of(path, host, "gm")} or printed == stats_of(path, host, "gm")
    assert main(["table", "stats", "sr2", "--db", str(path)]) == 0
    text = capsys.readouterr().out
    assert "Attacks" in text and "Tukan" in text


def test_statistics_larger_than_a_reply_may_carry_are_refused(nights):
    (path, host), _ = nights
    with SQLiteStore(path) as store:
        log = read_log(store, "sr2", host.rulesets)
    log.table.max_event_bytes = 400
    with pytest.raises(LimitExceeded) as refused:
        table_stats(log.table, log.events, audience="gm", scope=check_scope({}))
    assert refused.value.details["limit"] == 400 and refused.value.details["size"] > 400


def test_the_defenders_resistance_dice_count_for_the_defender(nights):
    """SR-9: the guard rolls its resistance test; statistics count those dice for
    the guard, the attack test's for Tukan (each group names who rolled it)."""
    (path, host), _ = nights
    with SQLiteStore(path) as store:
        log = read_log(store, "sr2", host.rulesets)
    attack = next(e for e in log.events if e.kind == "resolution")
    groups = attack.data["dice"]
    assert len(groups) == 2, "the attack must hit for its resistance test to be rolled"
    shown = [sum(len(d["rolls"]) for d in g["dice"]) for g in groups]
    stats = stats_of(path, host, "gm", since=attack.seq, until=attack.seq)
    assert stats["actors"]["tukan"]["dice"]["6"]["count"] == shown[0]
    assert stats["actors"]["guard-a"]["dice"]["6"]["count"] == shown[1]
    assert stats["actors"]["guard-a"]["rolls"] == 1
    assert stats["session"]["dice"]["6"]["count"] == shown[0] + shown[1]
