"""The sans-I/O table engine through the synchronous service (issue 2, item 5)."""

from __future__ import annotations

import copy
import logging

import pytest

from rollbridge.dice import ScriptedDice, SeededDice
from rollbridge.engine import Principal
from rollbridge.exceptions import (
    DiceScriptError,
    DiceScriptExhausted,
    DiceScriptUnused,
    EncounterState,
    Forbidden,
    InternalError,
    InvalidParams,
    InvalidRequest,
    InvalidSettings,
    NothingToRedo,
    NothingToUndo,
    RulesetUnavailable,
    RuleViolation,
    UnknownAction,
    UnknownActor,
    UnknownMessageType,
)
from rollbridge.offline import TableService
from rollbridge.stores import MemoryStore
from rollbridge.testing import host_with

GM = Principal("gm", "gm", "tok-gm")
ALICE = Principal("player", "alice", "tok-alice")
BOB = Principal("player", "bob", "tok-bob")
WATCHER = Principal("observer", "observer", "tok-obs")


def hit(service, rid, target="guard", *, who=GM, actor=None, dice=(4,), bonus=0, **extra):
    message = {
        "type": "resolve",
        "id": rid,
        "action": "hit",
        "targets": [target],
        "params": {"bonus": bonus},
        **extra,
    }
    if actor:
        message["actor"] = actor
    return service.handle("t", message, who, ScriptedDice(list(dice)))


def damage(service, actor_id):
    return service.table("t").actors[actor_id].state["damage"]


def frozen(service):
    """Everything that must not change when a request is refused."""
    table = service.table("t")
    return copy.deepcopy(
        (
            table.info.to_dict(),
            {a: r.to_dict() for a, r in table.actors.items()},
            table.undo_stack,
            table.redo_stack,
            table.pending,
        )
    )


class TestSequence:
    def test_every_event_gets_the_next_seq_and_the_epoch(self, seated):
        before = seated.table("t").info.seq
        reply = hit(seated, "r1")
        reply2 = hit(seated, "r2")
        assert reply["seq"] == before + 1
        assert reply2["seq"] == before + 2
        assert reply["event"]["epoch"] == seated.table("t").info.epoch == 1

    def test_actor_creation_is_an_event(self, seated):
        # three actors were created: seq 1..3
        events = seated.store.events_after("t", 0)
        assert [e.seq for e in events] == [1, 2, 3]
        assert [e.kind for e in events] == ["actor.created"] * 3


class TestIdempotency:
    def test_same_request_id_returns_the_first_reply_and_applies_once(self, seated):
        first = hit(seated, "r1", dice=[5])
        again = hit(seated, "r1", dice=[2])  # a retry; other dice must not be used
        assert again == first
        assert damage(seated, "guard") == 5
        assert seated.table("t").info.seq == first["seq"]

    def test_ids_are_scoped_by_token(self, seated):
        hit(seated, "same", dice=[5])
        hit(seated, "same", who=ALICE, actor="ana", dice=[1])
        assert damage(seated, "guard") == 6

    def test_repeat_after_reload_from_the_store(self, seated, tally):
        first = hit(seated, "r1", dice=[3])
        reborn = TableService(seated.store, host_with(tally))
        again = reborn.handle(
            "t",
            {"type": "resolve", "id": "r1", "action": "hit", "targets": ["guard"]},
            GM,
            ScriptedDice([6]),
        )
        assert again == first
        assert reborn.table("t").actors["guard"].state["damage"] == 3


class TestBadInput:
    @pytest.mark.parametrize(
        ("message", "error"),
        [
            ({"type": "resolve", "action": "fly", "targets": ["guard"]}, UnknownAction),
            ({"type": "resolve", "action": "hit", "targets": ["nobody"]}, UnknownActor),
            (
                {"type": "resolve", "action": "hit", "targets": ["guard"], "params": {"bonus": -1}},
                InvalidParams,
            ),
            (
                {"type": "resolve", "action": "hit", "targets": ["guard"], "params": {"bonsu": 1}},
                InvalidParams,
            ),
            ({"type": "resolve", "action": "hit", "targets": []}, InvalidRequest),
            ({"type": "resolve", "action": "hit", "targets": ["guard", "ana"]}, InvalidRequest),
            (
                {
                    "type": "resolve",
                    "action": "heal",
                    "targets": ["guard"],
                    "params": {"amount": 1},
                },
                RuleViolation,
            ),
            ({"type": "resolve", "targets": ["guard"]}, InvalidRequest),
            ({"type": "teleport"}, UnknownMessageType),
            ({"type": "roll", "formula": "3d"}, InvalidRequest),
            ({"type": "adjust", "actor": "guard", "track": "mana", "delta": 1}, RuleViolation),
        ],
    )
    def test_refused_with_a_typed_error_and_nothing_changes(self, seated, message, error):
        before = frozen(seated)
        with pytest.raises(error) as caught:
            seated.handle("t", {"id": "bad", **message}, GM, ScriptedDice([3]))
        assert caught.value.code and caught.value.message
        assert frozen(seated) == before

    def test_missing_request_id(self, seated):
        with pytest.raises(InvalidRequest, match="id"):
            seated.handle("t", {"type": "roll", "formula": "1d6"}, GM)

    @pytest.mark.parametrize(
        ("dice", "error"),
        [([7], DiceScriptError), ([], DiceScriptExhausted), ([3, 4], DiceScriptUnused)],
    )
    def test_scripted_dice_that_do_not_fit(self, seated, dice, error):
        before = frozen(seated)
        with pytest.raises(error):
            seated.handle(
                "t",
                {"type": "resolve", "id": "x", "action": "hit", "targets": ["guard"], "dice": dice},
                GM,
            )
        assert frozen(seated) == before

    def test_a_failing_ruleset_is_an_internal_error_and_changes_nothing(self, seated, caplog):
        """The error names the ruleset only; what the exception said (a hidden value,
        a server path) goes to the engine's log with its traceback (audit finding 2)."""
        before = frozen(seated)
        with (
            caplog.at_level(logging.ERROR, logger="rollbridge.engine"),
            pytest.raises(InternalError) as raised,
        ):
            seated.handle("t", {"type": "resolve", "id": "x", "action": "boom"}, GM)
        assert str(raised.value) == "ruleset 'tally' failed"
        assert raised.value.to_dict()["message"] == "ruleset 'tally' failed"
        [record] = [r for r in caplog.records if r.name == "rollbridge.engine"]
        assert record.levelno == logging.ERROR
        assert "'tally'" in record.getMessage() and "'t'" in record.getMessage()
        assert "the ruleset broke" in caplog.text and "Traceback" in caplog.text
        assert frozen(seated) == before
        hit(seated, "after", dice=[2])  # and the table goes on
        assert damage(seated, "guard") == 2


class TestRoles:
    def test_player_acts_only_for_own_actors(self, seated):
        hit(seated, "a1", who=ALICE, actor="ana", dice=[2])
        before = frozen(seated)
        with pytest.raises(Forbidden, match="do not control"):
            hit(seated, "a2", who=ALICE, actor="bo")
        with pytest.raises(Forbidden, match="do not control"):
            seated.handle(
                "t", {"type": "roll", "id": "a3", "formula": "1d6", "actor": "guard"}, ALICE
            )
        assert frozen(seated) == before

    def test_gm_only_actions_and_requests(self, seated):
        before = frozen(seated)
        with pytest.raises(Forbidden):
            seated.handle(
                "t",
                {
                    "type": "resolve",
                    "id": "h",
                    "action": "heal",
                    "targets": ["ana"],
                    "params": {"amount": 1},
                },
                ALICE,
            )
        for kind in ("undo", "redo", "encounter.end"):
            with pytest.raises(Forbidden):
                seated.handle("t", {"type": kind, "id": kind}, ALICE)
        with pytest.raises(Forbidden):
            seated.handle(
                "t",
                {"type": "adjust", "id": "adj", "actor": "ana", "track": "damage", "delta": -1},
                ALICE,
            )
        assert frozen(seated) == before

    def test_observer_only_reads(self, seated):
        state = seated.handle("t", {"type": "state", "id": "s"}, WATCHER)
        assert {a["id"] for a in state["table"]["actors"]} == {"ana", "bo", "guard"}
        with pytest.raises(Forbidden):
            seated.handle("t", {"type": "roll", "id": "r", "formula": "1d6"}, WATCHER)

    def test_player_supplied_dice_need_the_setting(self, seated):
        with pytest.raises(Forbidden, match="player_dice"):
            seated.handle(
                "t",
                {
                    "type": "resolve",
                    "id": "p1",
                    "action": "hit",
                    "actor": "ana",
                    "targets": ["guard"],
                    "dice": [6],
                },
                ALICE,
            )
        seated.handle("t", {"type": "settings", "id": "s", "settings": {"player_dice": True}}, GM)
        seated.handle(
            "t",
            {
                "type": "resolve",
                "id": "p1",
                "action": "hit",
                "actor": "ana",
                "targets": ["guard"],
                "dice": [6],
            },
            ALICE,
        )
        assert damage(seated, "guard") == 6


class TestVisibility:
    def test_npc_state_is_redacted_for_players(self, seated):
        reply = hit(seated, "r", dice=[4], who=ALICE, actor="ana")
        guard = next(a for a in reply["event"]["actors"] if a["id"] == "guard")
        assert guard["limited"] is True
        assert guard["state"] is None and guard["sheet"] is None
        assert guard["common"]["status"] == "impaired"
        assert guard["common"]["tracks"] == []
        gm_view = seated.table("t").view_event(seated.store.events_after("t", 3)[0], gm=True)
        assert gm_view["actors"][0]["state"]["damage"] == 4

    def test_the_ruleset_redacts_what_a_resolution_reveals_about_npcs(self, seated):
        reply = hit(seated, "r", dice=[4], who=ALICE, actor="ana")
        assert reply["event"]["data"]["outcome"] == {}
        assert reply["event"]["data"]["narration"] == "someone is hit"
        assert reply["event"]["data"]["dice"][0]["dice"][0]["value"] == 4  # dice stay public
        event = seated.store.events_after("t", reply["seq"] - 1)[0]
        assert seated.table("t").view_event(event, gm=True)["data"]["outcome"] == {"amount": 4}
        on_pc = hit(seated, "r2", "bo", dice=[2], who=ALICE, actor="ana")
        assert on_pc["event"]["data"]["outcome"] == {"amount": 2}

    def test_a_table_setting_lets_the_ruleset_show_more(self, seated):
        seated.handle(
            "t", {"type": "settings", "id": "s", "settings": {"ruleset": {"show_damage": True}}}, GM
        )
        hit(seated, "r", dice=[4])
        view = seated.table("t").view_actor("guard", gm=False)
        assert view["state"] == {"damage": 4}

    def test_player_characters_are_shown_in_full(self, seated):
        hit(seated, "r", "bo", dice=[3])
        view = seated.table("t").view_actor("bo", gm=False)
        assert view["state"]["damage"] == 3 and view["sheet"] == {"hp": 8}

    def test_secret_roll_reaches_only_the_gm(self, seated):
        reply = seated.handle(
            "t",
            {"type": "roll", "id": "s", "formula": "1d20", "secret": True},
            ALICE,
            SeededDice(1),
        )
        assert reply["status"] == "secret" and "event" not in reply
        event = seated.store.events_after("t", reply["seq"] - 1)[0]
        table = seated.table("t")
        assert table.view_event(event, gm=False) == {
            "kind": "hidden",
            "epoch": 1,
            "seq": reply["seq"],
        }
        assert table.view_event(event, gm=True)["data"]["total"] == event.data["total"]


class TestUndoRedo:
    def test_undo_restores_every_touched_actor_and_redo_reapplies(self, seated):
        hit(seated, "r1", dice=[2])
        hit(seated, "r2", dice=[3])
        assert damage(seated, "guard") == 5
        undo = seated.handle("t", {"type": "undo", "id": "u1"}, GM)
        assert undo["event"]["kind"] == "undo"
        assert damage(seated, "guard") == 2
        seated.handle("t", {"type": "undo", "id": "u2"}, GM)
        assert damage(seated, "guard") == 0
        seated.handle("t", {"type": "redo", "id": "d1"}, GM)
        assert damage(seated, "guard") == 2
        seated.handle("t", {"type": "redo", "id": "d2"}, GM)
        assert damage(seated, "guard") == 5
        with pytest.raises(NothingToRedo):
            seated.handle("t", {"type": "redo", "id": "d3"}, GM)

    def test_a_new_change_clears_redo(self, seated):
        hit(seated, "r1", dice=[2])
        seated.handle("t", {"type": "undo", "id": "u1"}, GM)
        hit(seated, "r2", dice=[1])
        with pytest.raises(NothingToRedo):
            seated.handle("t", {"type": "redo", "id": "d1"}, GM)

    def test_undo_an_actor_removal_brings_it_back(self, seated):
        seated.handle("t", {"type": "actor.remove", "id": "rm", "actor": "guard"}, GM)
        assert "guard" not in seated.table("t").actors
        seated.handle("t", {"type": "undo", "id": "u"}, GM)
        assert seated.table("t").actors["guard"].sheet == {"hp": 6}

    def test_undo_survives_reload(self, seated, tally):
        hit(seated, "r1", dice=[6])
        reborn = TableService(seated.store, host_with(tally))
        reborn.handle("t", {"type": "undo", "id": "u"}, GM)
        assert reborn.table("t").actors["guard"].state["damage"] == 0

    def test_nothing_to_undo(self, service):
        with pytest.raises(NothingToUndo):
            service.handle("t", {"type": "undo", "id": "u"}, GM)


class TestSnapshots:
    def test_state_at_any_earlier_seq(self, seated):
        hit(seated, "r1", dice=[2])  # seq 4
        hit(seated, "r2", dice=[3])  # seq 5
        seated.handle("t", {"type": "actor.remove", "id": "rm", "actor": "bo"}, GM)  # seq 6
        at4 = seated.handle("t", {"type": "state", "id": "s", "at": 4}, GM)["table"]
        assert at4["seq"] == 4
        actors = {a["id"]: a for a in at4["actors"]}
        assert actors["guard"]["state"]["damage"] == 2 and "bo" in actors
        at2 = seated.handle("t", {"type": "state", "id": "s2", "at": 2}, GM)["table"]
        assert {a["id"] for a in at2["actors"]} == {"ana", "bo"}
        now = seated.handle("t", {"type": "state", "id": "s3"}, GM)["table"]
        assert {a["id"] for a in now["actors"]} == {"ana", "guard"}

    def test_state_before_the_retained_log_is_refused(self, tally):
        svc = TableService(MemoryStore(retain=3), host_with(tally))
        svc.create_table("small", "tally", table_id="t")
        for i in range(5):
            svc.handle("t", {"type": "roll", "id": f"r{i}", "formula": "1d6"}, GM)
        with pytest.raises(InvalidRequest, match="retained"):
            svc.handle("t", {"type": "state", "id": "s", "at": 1}, GM)


class TestEncounter:
    def test_start_next_end_call_the_turn_hooks(self, seated):
        start = seated.handle(
            "t",
            {"type": "encounter.start", "id": "e1", "order": ["ana", "guard"]},
            GM,
            SeededDice(1),
        )
        hooks = [h["hook"] for h in start["event"]["data"]["hooks"]]
        assert hooks == ["on_round_start", "on_turn_start"]
        table = seated.table("t")
        assert table.actors["ana"].state["rounds"] == 1 and table.actors["ana"].state["turns"] == 1
        assert table.actors["bo"].state["rounds"] == 0  # not a participant
        seated.handle("t", {"type": "encounter.next", "id": "e2"}, ALICE, SeededDice(2))
        assert table.encounter.current == "guard" and table.encounter.round == 1
        wrap = seated.handle("t", {"type": "encounter.next", "id": "e3"}, GM, SeededDice(3))
        assert wrap["event"]["data"]["round"] == 2
        assert [h["hook"] for h in wrap["event"]["data"]["hooks"]] == [
            "on_round_start",
            "on_turn_start",
        ]
        assert table.actors["guard"].state["rounds"] == 2
        assert table.actors["ana"].state["turns"] == 2
        seated.handle("t", {"type": "encounter.end", "id": "e4"}, GM)
        assert table.encounter is None
        with pytest.raises(EncounterState):
            seated.handle("t", {"type": "encounter.next", "id": "e5"}, GM)

    def test_only_the_current_actors_player_may_end_a_turn(self, seated):
        seated.handle(
            "t", {"type": "encounter.start", "id": "e1", "order": ["ana", "bo"]}, GM, SeededDice(1)
        )
        before = frozen(seated)
        with pytest.raises(Forbidden):
            seated.handle("t", {"type": "encounter.next", "id": "e2"}, BOB, SeededDice(1))
        assert frozen(seated) == before

    def test_supplied_dice_feed_the_turn_hooks(self, seated):
        seated.handle(
            "t", {"type": "encounter.start", "id": "e1", "order": ["ana", "bo"], "dice": [5]}, GM
        )
        event = seated.store.events_after("t", 3)[0]
        assert event.data["hooks"][1]["dice"][0]["dice"][0]["value"] == 5

    def test_reorder_keeps_the_current_actors_turn_runs_no_hook_and_undoes(self, seated):
        seated.handle(
            "t", {"type": "encounter.start", "id": "e1", "order": ["ana", "bo"]}, GM, SeededDice(1)
        )
        seated.handle("t", {"type": "encounter.next", "id": "e2"}, GM, SeededDice(2))  # bo
        table = seated.table("t")
        actors = {a: r.to_dict() for a, r in table.actors.items()}
        reply = seated.handle(
            "t", {"type": "encounter.reorder", "id": "o1", "order": ["bo", "guard", "ana"]}, GM
        )
        event = reply["event"]
        assert event["kind"] == "encounter.reordered"
        assert event["data"] == {
            "order": ["bo", "guard", "ana"],
            "round": 1,
            "turn": 0,
            "actor": "bo",
        }
        assert event["table_after"]["encounter"] == {
            "order": ["bo", "guard", "ana"],
            "round": 1,
            "turn": 0,
            "current": "bo",
        }
        assert {a: r.to_dict() for a, r in table.actors.items()} == actors, "no hook ran"
        nxt = seated.handle("t", {"type": "encounter.next", "id": "e3"}, GM, SeededDice(3))
        assert nxt["event"]["data"]["actor"] == "guard" and nxt["event"]["data"]["round"] == 1
        seated.handle("t", {"type": "undo", "id": "u1"}, GM)  # the turn
        seated.handle("t", {"type": "undo", "id": "u2"}, GM)  # the new order
        assert table.encounter.order == ["ana", "bo"] and table.encounter.current == "bo"
        seated.handle("t", {"type": "redo", "id": "r1"}, GM)
        assert table.encounter.order == ["bo", "guard", "ana"] and table.encounter.turn == 0

    @pytest.mark.parametrize(
        ("order", "error", "words"),
        [
            (["ana", "ana", "bo"], InvalidRequest, "named twice"),
            (["ana", "nobody"], UnknownActor, "nobody"),
            (["ana", "guard"], InvalidRequest, "'bo', whose turn it is, is not in it"),
            (["ana", "bo"], InvalidRequest, "the encounter's order already"),
        ],
    )
    def test_reorder_refused(self, seated, order, error, words):
        seated.handle(
            "t", {"type": "encounter.start", "id": "e1", "order": ["ana", "bo"]}, GM, SeededDice(1)
        )
        seated.handle("t", {"type": "encounter.next", "id": "e2"}, GM, SeededDice(2))  # bo
        before = frozen(seated)
        with pytest.raises(error, match=words):
            seated.handle("t", {"type": "encounter.reorder", "id": "o", "order": order}, GM)
        assert frozen(seated) == before

    def test_reorder_without_an_encounter_or_by_a_player_is_refused(self, seated):
        message = {"type": "encounter.reorder", "id": "o", "order": ["ana"]}
        with pytest.raises(EncounterState, match="no encounter"):
            seated.handle("t", message, GM)
        seated.handle("t", {"type": "encounter.start", "id": "e1", "order": ["ana"]}, GM)
        with pytest.raises(Forbidden):
            seated.handle("t", {**message, "order": ["ana", "bo"]}, ALICE)

    def test_reorder_refusal_is_translated(self, seated):
        seated.handle("t", {"type": "encounter.start", "id": "e1", "order": ["ana", "bo"]}, GM)
        with pytest.raises(InvalidRequest) as caught:
            seated.handle("t", {"type": "encounter.reorder", "id": "o", "order": ["bo"]}, GM)
        assert caught.value.render("de") == "order: die Figur am Zug ('ana') fehlt darin"

    def test_next_with_the_new_rounds_order(self, seated):
        seated.handle(
            "t", {"type": "encounter.start", "id": "e1", "order": ["ana", "bo"]}, GM, SeededDice(1)
        )
        with pytest.raises(InvalidRequest, match="only for the turn that begins a new round"):
            seated.handle("t", {"type": "encounter.next", "id": "x", "order": ["bo", "ana"]}, GM)
        seated.handle("t", {"type": "encounter.next", "id": "e2"}, GM, SeededDice(2))  # bo
        with pytest.raises(Forbidden):
            seated.handle("t", {"type": "encounter.next", "id": "x2", "order": ["bo", "ana"]}, BOB)
        wrap = seated.handle(
            "t",
            {"type": "encounter.next", "id": "e3", "order": ["guard", "bo", "ana"]},
            GM,
            SeededDice(3),
        )
        data = wrap["event"]["data"]
        assert (data["round"], data["turn"], data["actor"]) == (2, 0, "guard")
        assert [(h["hook"], h["actor"]) for h in data["hooks"]][-1] == ("on_turn_start", "guard")
        table = seated.table("t")
        assert table.actors["guard"].state["rounds"] == 1, "a participant from round 2 on"
        seated.handle("t", {"type": "undo", "id": "u"}, GM)
        assert table.encounter.order == ["ana", "bo"] and table.encounter.current == "bo"


class TestApproval:
    def test_player_request_waits_for_the_gm(self, seated):
        seated.handle("t", {"type": "settings", "id": "s", "settings": {"approval": True}}, GM)
        reply = hit(seated, "p1", who=ALICE, actor="ana", dice=[])
        assert reply["status"] == "pending"
        assert damage(seated, "guard") == 0
        pending = reply["pending"]
        approved = seated.handle(
            "t", {"type": "approve", "id": "a", "request": pending}, GM, ScriptedDice([4])
        )
        assert approved["event"]["data"]["approved"] == pending
        assert damage(seated, "guard") == 4
        # the player's retry now answers with the applied result
        retry = hit(seated, "p1", who=ALICE, actor="ana", dice=[])
        assert retry["status"] == "done" and retry["seq"] == approved["seq"]

    def test_rejected_request_applies_nothing(self, seated):
        seated.handle("t", {"type": "settings", "id": "s", "settings": {"approval": True}}, GM)
        pending = hit(seated, "p1", who=ALICE, actor="ana", dice=[])["pending"]
        seated.handle("t", {"type": "reject", "id": "r", "request": pending, "reason": "no"}, GM)
        assert damage(seated, "guard") == 0
        assert seated.table("t").pending == {}
        assert hit(seated, "p1", who=ALICE, actor="ana", dice=[])["status"] == "rejected"

    @pytest.mark.parametrize(
        ("written", "kept"),
        [
            ("\u200b\u200b", ""),  # zero-width spaces: players read empty quotes
            (" \u2060\ufeff\u3164 ", ""),  # a word joiner, a BOM, a Hangul filler
            ("\u2800", ""),  # the blank Braille pattern
            ("", ""),
            ("not \u200bnow", "not \u200bnow"),  # words: kept as written
            ("\u200d\U0001f480", "\u200d\U0001f480"),  # an emoji after a joiner shows
            # format characters the blanks' list lacks, among spaces: nothing still
            ("\ufff9 \ufffb", ""),
            ("\u0600", "\u0600"),  # the Arabic number sign is drawn (a format character)
        ],
    )
    def test_a_reason_that_shows_nothing_is_no_reason(self, seated, written, kept):
        seated.handle("t", {"type": "settings", "id": "s", "settings": {"approval": True}}, GM)
        pending = hit(seated, "p1", who=ALICE, actor="ana", dice=[])["pending"]
        answer = seated.handle(
            "t", {"type": "reject", "id": "r", "request": pending, "reason": written}, GM
        )
        assert answer["event"]["data"]["reason"] == kept
        retry = hit(seated, "p1", who=ALICE, actor="ana", dice=[])
        assert (retry["status"], retry["reason"]) == ("rejected", kept)


class TestRulesetAvailability:
    def test_missing_ruleset_is_reported_and_the_table_untouched(self, seated):
        stored = copy.deepcopy(seated.store._tables["t"])
        bare = TableService(seated.store, host_with())
        with pytest.raises(RulesetUnavailable, match="not installed"):
            bare.table("t")
        assert seated.store._tables["t"] == stored

    def test_incompatible_major_version(self, seated, tally):
        class TallyTwo(type(tally)):
            version = "2.0.0"

        with pytest.raises(RulesetUnavailable, match="another major version"):
            TableService(seated.store, host_with(TallyTwo())).table("t")

    def test_compatible_minor_version_opens(self, seated, tally):
        class TallyMinor(type(tally)):
            version = "1.9.3"

        assert TableService(seated.store, host_with(TallyMinor())).table("t").info.seq == 3


class TestReviewFindings:
    def test_pending_requests_are_capped_per_player(self, seated):
        from rollbridge.engine.pending import MAX_PENDING_PER_PLAYER
        from rollbridge.exceptions import Conflict

        seated.handle("t", {"type": "settings", "id": "s", "settings": {"approval": True}}, GM)
        for n in range(MAX_PENDING_PER_PLAYER):
            assert hit(seated, f"p{n}", who=ALICE, actor="ana", dice=[])["status"] == "pending"
        before = frozen(seated)
        with pytest.raises(Conflict) as caught:
            hit(seated, "one-too-many", who=ALICE, actor="ana", dice=[])
        assert caught.value.code == "too_many_pending"
        assert frozen(seated) == before
        assert hit(seated, "bob-1", who=BOB, actor="bo", dice=[])["status"] == "pending"

    def test_events_do_not_carry_the_whole_pending_list(self, seated):
        seated.handle("t", {"type": "settings", "id": "s", "settings": {"approval": True}}, GM)
        for n in range(3):
            hit(seated, f"p{n}", who=ALICE, actor="ana", dice=[])
        last = seated.store.events_after("t", seated.table("t").info.seq - 1)[0]
        assert last.kind == "approval.requested" and last.table_change is None
        assert len(seated.table("t").pending) == 3

    def test_undoing_a_secret_resolution_stays_secret(self, seated):
        seated.handle("t", {"type": "resolve", "id": "s", "action": "hit", "targets": ["guard"],
                            "secret": True}, GM, ScriptedDice([3]))  # fmt: skip
        undo = seated.handle("t", {"type": "undo", "id": "u"}, GM)
        event = seated.store.events_after("t", undo["seq"] - 1)[0]
        assert event.gm_only is True
        assert seated.table("t").view_event(event, gm=False)["kind"] == "hidden"

    def test_a_secret_change_shows_players_the_actors_it_left_not_how(self, seated):
        """protocol.md "Visibility": a GM's secret hit on a player's own actor reaches
        players as a hidden event carrying the actor's new view (what `state` shows
        from that seq on), and nothing of the roll."""
        secret_hit = {"type": "resolve", "id": "s", "action": "hit", "targets": ["ana"],
                      "secret": True}  # fmt: skip
        reply = seated.handle("t", secret_hit, GM, ScriptedDice([4]))
        event = seated.store.events_after("t", reply["seq"] - 1)[0]
        table = seated.table("t")
        seen = table.view_event(event, gm=False)
        assert set(seen) == {"kind", "epoch", "seq", "actors"} and seen["kind"] == "hidden"
        (ana,) = seen["actors"]
        assert ana == table.view_actor("ana", gm=False)
        assert ana["state"]["damage"] == 4
        # a secret roll changes no actor: the placeholder stays bare
        roll = seated.handle("t", {"type": "roll", "id": "r", "formula": "1d6", "secret": True},
                             GM, SeededDice(1))  # fmt: skip
        bare = seated.store.events_after("t", roll["seq"] - 1)[0]
        assert table.view_event(bare, gm=False) == {"kind": "hidden", "epoch": 1,
                                                     "seq": roll["seq"]}  # fmt: skip

    def test_an_events_table_field_never_changes_meaning(self, seated):
        """The changed settings travel as `table_after`; the frame's `table` stays the
        table's id (issue 16, item 7)."""
        reply = seated.handle("t", {"type": "settings", "id": "set",
                                    "settings": {"approval": True}}, GM)  # fmt: skip
        event = seated.store.events_after("t", reply["seq"] - 1)[0]
        view = seated.table("t").view_event(event, gm=True)
        assert "table" not in view
        assert view["table_after"]["settings"]["approval"] is True

    @pytest.mark.parametrize(
        "change",
        [{}, {"ruleset": {}}, {"approval": False}, {"ruleset": {"show_damage": False}}],
        ids=["empty", "empty-ruleset", "core-same", "ruleset-same"],
    )
    def test_a_settings_change_that_changes_nothing_is_refused(self, seated, change):
        """`{"settings": {}}` committed an event saying "changed" that changed
        nothing (and an undo step taking nothing back)."""
        before = frozen(seated)
        seq = seated.table("t").info.seq
        with pytest.raises(InvalidSettings, match="nothing would change"):
            seated.handle("t", {"type": "settings", "id": "same", "settings": change}, GM)
        assert frozen(seated) == before and seated.table("t").info.seq == seq
        reply = seated.handle("t", {"type": "settings", "id": "set",
                                    "settings": {"approval": True}}, GM)  # fmt: skip
        assert reply["seq"] == seq + 1

    def test_undo_deeper_than_the_events_kept_in_memory_reads_the_log(self, seated):
        from rollbridge.engine.table import HISTORY_IN_MEMORY

        hits = HISTORY_IN_MEMORY + 2  # Ana has 10 hit points
        for n in range(hits):
            hit(seated, f"h{n}", "ana", dice=[1])
        assert damage(seated, "ana") == hits
        assert len(seated.table("t")._history) <= HISTORY_IN_MEMORY
        for n in range(hits):
            seated.handle("t", {"type": "undo", "id": f"u{n}"}, GM)
        assert damage(seated, "ana") == 0


def parse(kind: str, **fields):
    from rollbridge.engine import parse_request

    return parse_request({"type": kind, "id": f"one-view-{kind}-{len(fields)}", **fields})


class TestOneViewWhenAllSeeAlike:
    """Serialise once (Core issue, item 4): an event players see exactly as the GM
    does is shown and packed once for both."""

    def test_a_public_roll_has_one_view_for_everyone(self):
        from rollbridge.engine.views import GM as GM_VIEW
        from rollbridge.engine.views import PLAYERS
        from rollbridge.plugins.sr2 import SR2Ruleset
        from rollbridge.testing import RulesetHarness

        table = RulesetHarness(SR2Ruleset()).table  # a ruleset that marks what it hides
        outcome = table.execute(parse("roll", formula="2d6"), GM, SeededDice(1))
        (event,) = outcome.events
        assert event.views[PLAYERS] is event.views[GM_VIEW]
        assert event.views[PLAYERS, "msgpack"] is event.views[GM_VIEW, "msgpack"]

    def test_a_ruleset_that_still_redacts_by_itself_gets_its_own_view(self, seated):
        from rollbridge.engine.views import GM as GM_VIEW
        from rollbridge.engine.views import PLAYERS

        outcome = seated.table("t").execute(parse("roll", formula="2d6"), GM, SeededDice(1))
        assert outcome.events[0].views[PLAYERS] is not outcome.events[0].views[GM_VIEW]

    def test_an_npc_or_a_secret_gets_a_view_of_its_own(self, seated):
        from rollbridge.engine.views import GM as GM_VIEW
        from rollbridge.engine.views import PLAYERS

        table = seated.table("t")
        hit = table.execute(
            parse("resolve", action="hit", targets=["guard"], dice=[3]), GM, SeededDice(1)
        )
        secret = table.execute(parse("roll", formula="1d6", secret=True), GM, SeededDice(2))
        for outcome in (hit, secret):
            (event,) = outcome.events
            assert event.views[PLAYERS] is not event.views[GM_VIEW]
        assert secret.events[0].views[PLAYERS]["kind"] == "hidden"
