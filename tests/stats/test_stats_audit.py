"""Statistics found wrong by an audit against counts made by hand from the event log
(docs/statistics.md): rerolled dice, turn hooks, hits by no one, whose dice a harm
roll is, undone encounter ends, undo in a time span, a pruned log."""

from __future__ import annotations

from typing import Any

import pytest

from rollbridge.dice.sources import ScriptedDice, SeededDice
from rollbridge.engine import Principal
from rollbridge.exceptions import InvalidRequest
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores.memory import MemoryStore
from rollbridge.stores.sqlite import SQLiteStore

GM = Principal("gm", "gm", "gm-key")
PLAYER = Principal("player", "player", "player-key")
HOST = PluginHost()


class Ticking:
    """A clock 600 s apart per reading (one event per reading)."""

    def __init__(self) -> None:
        self.now = 1_796_238_000.0

    def __call__(self) -> float:
        self.now += 600
        return self.now


class Table:
    """One table of a ruleset, driven by requests with supplied dice."""

    def __init__(self, ruleset: str, store: Any = None, **options: Any) -> None:
        self.store = store or MemoryStore()
        self.service = TableService(self.store, HOST, dice=lambda: SeededDice(3), **options)
        self.service.create_table("t", ruleset, table_id="t")
        self.sheets = HOST.rulesets[ruleset].example_sheets
        self.count = 0

    def request(self, message: dict, who: Principal = GM, dice: list[int] | None = None) -> dict:
        self.count += 1
        source = ScriptedDice(dice) if dice is not None else None
        return self.service.handle("t", {"id": f"q{self.count}", **message}, who, source)

    def actor(self, actor_id: str, sheet: str, player: bool = False, state: dict | None = None):
        actor: dict[str, Any] = {"id": actor_id, "name": sheet, "sheet": dict(self.sheets[sheet]),
                                 "controllers": ["player"] if player else []}  # fmt: skip
        if state is not None:
            actor["state"] = state
        self.request({"type": "actor.create", "actor": actor})

    def resolve(self, action: str, who: Principal = GM, dice=None, **fields: Any) -> dict:
        message = {"type": "resolve", "action": action, "params": {}, **fields}
        return self.request(message, who, dice)

    def stats(self, who: Principal = GM, **scope: Any) -> dict:
        return self.request({"type": "stats", **scope}, who)["stats"]


def d6(summary: dict) -> tuple[int, int, int]:
    die = summary["dice"].get("6", {"count": 0, "sum": 0, "explosions": 0})
    return die["count"], die["sum"], die["explosions"]


def counts(summary: dict) -> dict[str, int]:
    """The ruleset's counts that are not 0."""
    return {entry["key"]: entry["value"] for entry in summary["ruleset"] if entry["value"]}


@pytest.mark.parametrize("who", [GM, PLAYER])
def test_a_chip_counts_the_dice_it_rolled_and_changes_its_tests_result(who):
    """WD-4: a chip rerolls one die of an earlier test. The dice rolled were 6+3
    (the trait die, one ace) and 2 (the wild die), then 5: four faces, not the
    chip's whole shown roll again; one test, counted as it first came out."""
    table = Table("wilddie")
    table.actor("ana", "Ana", player=True)
    test = table.resolve("trait", PLAYER, [6, 3, 2], actor="ana", params={"trait": "notice"})
    assert test["event"]["data"]["outcome"]["raises"] == 1
    chip = table.resolve("chip", PLAYER, [5], actor="ana", params={"die": "trait"})
    assert chip["event"]["data"]["dice"][0]["tags"] == ["reroll"]
    assert chip["event"]["data"]["outcome"]["raises"] == 0
    stats = table.stats(who)
    for summary in (stats["session"], stats["actors"]["ana"]):
        assert d6(summary) == (4, 16, 1)
        assert counts(summary) == {"tests": 1, "raises": 1, "chips_spent": 1}
        assert summary["successes"] == 1  # the test's, counted once
    # a session that holds the chip alone counts its die and itself, nothing below 0
    alone = table.stats(who, since=chip["seq"])["session"]
    assert d6(alone) == (1, 5, 0) and counts(alone) == {"chips_spent": 1}


def test_a_chip_that_lets_the_trait_die_beat_the_wild_die_counts_the_test_once():
    """Trait 2, wild 5: the wild die kept (used). The chip rerolls the trait die to
    6+1 = 7, which now beats it: one test, counted as it first came out."""
    table = Table("wilddie")
    table.actor("ana", "Ana", player=True)
    table.resolve("trait", PLAYER, [2, 5], actor="ana", params={"trait": "notice"})
    assert counts(table.stats()["session"])["wild_die_used"] == 1
    chip = table.resolve("chip", PLAYER, [6, 1], actor="ana", params={"die": "trait"})
    assert chip["event"]["data"]["outcome"]["kept"] == "trait"
    session = table.stats()["session"]
    assert counts(session) == {"tests": 1, "wild_die_used": 1, "chips_spent": 1}
    assert d6(session) == (4, 14, 1)  # 2, 5, then 6+1


def test_a_turn_hooks_recovery_roll_is_a_trait_test():
    """WD-9: the recovery at the start of a Shaken character's turn is the same roll
    as ``recover``: a test, its wild die used."""
    table = Table("wilddie")
    table.actor("ana", "Ana", player=True, state={"shaken": True})
    table.request({"type": "encounter.start", "order": ["ana"]}, dice=[3, 4])
    by_hook = counts(table.stats()["actors"]["ana"])
    other = Table("wilddie")
    other.actor("ana", "Ana", player=True, state={"shaken": True})
    other.resolve("recover", PLAYER, [3, 4], actor="ana")
    assert by_hook == counts(other.stats()["actors"]["ana"]) == {"tests": 1, "wild_die_used": 1}


def test_a_techlevel_hit_by_no_one_counts_for_the_session():
    table = Table("techlevel")
    table.actor("guard", "Guard")
    table.resolve("hit", GM, [6, 5], targets=["guard"], params={"dice": "2d6", "tl": 5})
    session = counts(table.stats()["session"])
    assert session["hits"] == 1 and session["boxes_taken"] > 0
    assert "boxes_dealt" not in session  # nobody dealt them


def test_harm_taken_is_the_targets_roll():
    """BD-3: harm taken is rolled by the bandit taking it; its dice are that bandit's."""
    table = Table("bandits")
    table.actor("boris", "Boris", player=True)
    table.actor("guard", "Guard")
    event = table.resolve("harm", GM, [6, 6], actor="guard", targets=["boris"],
                          params={"direction": "taken"})["event"]  # fmt: skip
    assert event["data"]["outcome"]["roller"] == "boris"
    actors = table.stats()["actors"]
    assert d6(actors["boris"]) == (2, 12, 0) and actors["boris"]["rolls"] == 1
    assert "guard" not in actors or d6(actors["guard"]) == (0, 0, 0)


def test_an_undone_encounter_end_does_not_end_it_and_an_undone_start_is_none():
    table = Table("sr2")
    table.actor("tukan", "Tukan", player=True)
    start = table.request({"type": "encounter.start", "order": ["tukan"]})["seq"]
    table.request({"type": "roll", "formula": "1d6"}, dice=[6])
    table.request({"type": "encounter.end"})
    table.request({"type": "undo"})  # the encounter goes on
    table.request({"type": "roll", "formula": "1d6"}, dice=[3])
    table.request({"type": "roll", "formula": "1d6"}, dice=[2])
    end = table.request({"type": "encounter.end"})["seq"]
    stats = table.stats(encounter=start)
    assert (stats["first_seq"], stats["last_seq"]) == (start, end)
    assert d6(stats["session"]) == (3, 11, 0)
    again = table.request({"type": "encounter.start", "order": ["tukan"]})["seq"]
    table.request({"type": "undo"})
    with pytest.raises(InvalidRequest) as refused:
        table.stats(encounter=again)
    assert refused.value.details == {"field": "encounter"}


def test_an_undo_after_a_time_span_does_not_undo_within_it():
    """A seq span and a time span over the same events count the same: an undo
    after the span's end is not applied inside it."""
    table = Table("sr2", clock=Ticking())
    table.actor("guard", "Guard A")
    adjusted = table.request({"type": "adjust", "actor": "guard", "track": "physical", "delta": 3})
    rolled = table.request({"type": "roll", "formula": "1d6"}, dice=[4])
    table.request({"type": "undo"})
    events = {e.seq: e for e in table.store.events_after("t", 0)}
    by_seq = table.stats(since=adjusted["seq"], until=rolled["seq"])
    by_time = table.stats(from_time=events[adjusted["seq"]].at, to_time=events[rolled["seq"]].at)
    assert by_seq["session"] == by_time["session"]
    assert counts(by_time["session"]).get("boxes_taken") == 3
    assert counts(table.stats()["session"]).get("boxes_taken") is None  # undone since


def test_a_pruned_log_says_where_it_starts_and_refuses_a_span_before_it(tmp_path):
    table = Table("sr2", SQLiteStore(tmp_path / "t.db", retain=20))
    for _ in range(40):
        table.request({"type": "roll", "formula": "1d6"}, dice=[1])
    stats = table.stats()
    first = stats["log_from"]
    assert first > 1 and stats["first_seq"] == first
    with pytest.raises(InvalidRequest) as refused:
        table.stats(since=1, until=first - 1)
    assert refused.value.details == {"field": "until"}
    assert str(first) in str(refused.value)
    assert table.stats(since=1, until=first)["events"] == 1
