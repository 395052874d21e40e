"""sr2's common state (SR-11 to SR-13: the boxes, status, conditions and wound
modifier every client draws) is made once per state and shared by the views that show
an actor in it (issue 12 item 6, docs/performance.md "An attack's execute and stage,
7 December (late)"): the views of a table's event (the GM's and the players') and the
later events that bring an actor back to a state it had. Each test counts what is made,
or holds a kept state to the one made anew."""

from __future__ import annotations

import dataclasses
import itertools
import sys
import threading
from unittest import mock

import msgpack
import pytest

from rollbridge.contract import Actor
from rollbridge.engine.views import actor_view
from rollbridge.plugins.sr2 import SR2Ruleset, monitor

RULESET = SR2Ruleset()


@pytest.fixture
def made(monkeypatch):
    """Counts the common states made from a state (each reads its status: SR-13)."""
    status = mock.Mock(wraps=monitor.status)
    monkeypatch.setattr(monitor, "status", status)
    monkeypatch.setattr(monitor, "_COMMON", {}, raising=False)
    return status


def _guard(state: dict) -> Actor:
    return Actor("guard", "Guard A", {"body": 4, "quickness": 4}, state)


def test_the_views_of_one_state_share_one_common_state(made):
    """An event shows its NPC to the GM (the boxes) and to players (status and wound
    levels, SR-12): each view's common state is made once, and equal states of other
    records (a later event's, a new dict) take the one made."""
    state = {"stun": 2, "physical": 3, "overflow": 0, "pool": 1, "stabilised": False}
    gm = actor_view(
        {"id": "guard", "name": "Guard A", "sheet": _guard(state).sheet, "state": state},
        gm=True,
        ruleset=RULESET,
        settings={},
    )
    again = RULESET.common_state(_guard(dict(state, pool=0)))  # the pool is no box
    assert made.call_count == 1
    players = RULESET.player_view(_guard(dict(state)), {})
    assert made.call_count == 2  # the players' own (no boxes: SR-11's tracks are the GM's)
    assert RULESET.player_view(_guard(dict(state)), {}).common is players.common
    assert made.call_count == 2
    assert again is RULESET.common_state(_guard(state))
    assert gm["common"]["status"] == "impaired"
    assert gm["common"]["modifier"] == 3  # SR-12: Light stun +1, Moderate physical +2
    assert [t["value"] for t in gm["common"]["tracks"]] == [2, 3, 0]
    assert players.common.tracks == ()


@pytest.mark.parametrize("body", [1, 4])
def test_a_kept_common_state_is_the_one_made_anew(body):
    """Every state of the monitors (SR-11: 0-10 boxes each, overflow to Body + 1,
    stabilised or not), with and without boxes: the kept common state equals the one
    made from the state itself, and is kept apart from every other state's."""
    seen = {}
    for stun, physical, overflow, stabilised, boxes in itertools.product(
        range(11), range(11), range(body + 2), (False, True), (False, True)
    ):
        state = {"stun": stun, "physical": physical, "overflow": overflow}
        if stabilised:
            state["stabilised"] = True
        kept = monitor.common_state(state, body, boxes=boxes)
        assert kept == monitor._common_state(dict(state), body, boxes)
        assert monitor.common_state(dict(state), body, boxes=boxes) is kept
        seen[stun, physical, overflow, stabilised, boxes] = kept
    assert seen[0, 10, 0, False, True].status == "dying"  # SR-13
    assert seen[0, 10, 0, True, True].status == "down"
    assert seen[0, 0, body + 1, False, True].status == "dead"
    assert seen[10, 0, 0, False, False].status == "down"


def test_another_body_is_another_common_state():
    """Overflow is drawn to Body boxes and is dead past Body (SR-11, SR-13): the same
    boxes on actors of another Body are not one common state."""
    state = {"stun": 0, "physical": 10, "overflow": 3}
    assert monitor.common_state(state, 2).status == "dead"
    assert monitor.common_state(state, 4).status == "dying"
    assert monitor.common_state(state, 4).tracks[2].max == 4
    assert monitor.common_state(state, 6).tracks[2].max == 6


def test_a_state_of_other_types_is_not_kept(made):
    """A state the schema would refuse (a store's written outside the protocol: the
    schema refuses a bool box and reads 1.0 as 1): a bool box is read as the integer
    it counts as (author28: it was drawn ``true``, every client's track a bool), so
    it is the integer state's, kept and served as that; a flag of another type is read
    as it is, each time, never kept (SR-11, SR-13)."""
    odd = monitor.common_state({"stun": True, "physical": 3, "overflow": 0}, 4)
    assert odd.tracks[0].value == 1 and odd.tracks[0].value.__class__ is int
    ones = monitor.common_state({"stun": 1, "physical": 3, "overflow": 0}, 4)
    assert ones is odd
    calls = made.call_count
    state = {"physical": 10, "stabilised": 1}  # 1 == True, but not the schema's bool
    first = monitor.common_state(state, 4)
    second = monitor.common_state(state, 4)
    assert made.call_count == calls + 2
    assert first == second and first is not second
    assert first.status == "down"  # SR-13: Physical 10, stabilised
    assert monitor.common_state({"physical": 10, "stabilised": True}, 4) is not first


def test_the_kept_states_are_bounded(made, monkeypatch):
    """A bound, not a policy: past it the kept states are dropped and made again."""
    monkeypatch.setattr(monitor, "MAX_COMMON", 3)
    for stun in range(5):
        monitor.common_state({"stun": stun}, 4)
    assert len(monitor._COMMON) <= 3
    assert made.call_count == 5
    monitor.common_state({"stun": 4}, 4)
    assert made.call_count == 5


def test_boxes_is_read_as_its_truth_and_kept_as_that_bool(made):
    """``boxes`` is read as its truth, as it was before states were kept: a value that
    cannot key a dict (a list) is no TypeError, and one of its truth takes the state
    kept for True or for False rather than keying another."""
    state = {"stun": 2, "physical": 3, "overflow": 0}
    hidden = monitor.common_state(state, 4, boxes=[])
    assert hidden is monitor.common_state(state, 4, boxes=False)
    assert hidden.tracks == ()  # SR-11's boxes left out, as players see an NPC
    shown = monitor.common_state(state, 4, boxes=["yes"])
    assert shown is monitor.common_state(state, 4, boxes=True)
    assert [track.value for track in shown.tracks] == [2, 3, 0]
    assert made.call_count == 2


def test_what_a_caller_reaches_cannot_change_a_kept_state():
    """A kept common state is shared by every view of its state: nothing a caller
    reaches of it — its fields, its tracks, its conditions, the data a view is made
    of — changes what the next view of that state shows (SR-11 to SR-13)."""
    state = {"stun": 3, "physical": 10, "overflow": 1, "pool": 0, "stabilised": False}
    kept = RULESET.common_state(_guard(state))
    before = monitor._common_state(dict(state), 4, True).to_dict("en")
    with pytest.raises(dataclasses.FrozenInstanceError):
        kept.status = "ok"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        kept.tracks[1].value = 0  # type: ignore[misc]
    with pytest.raises(TypeError):
        kept.conditions[0] = "Fine"  # type: ignore[index]
    assert kept.tracks.__class__ is tuple and kept.conditions.__class__ is tuple
    shown = kept.to_dict("en")
    shown["status"] = "ok"
    shown["tracks"][1]["value"] = 0
    shown["tracks"].pop()
    shown["conditions"].clear()
    record = {"id": "guard", "name": "Guard A", "sheet": {"body": 4}, "state": state}
    view = actor_view(record, gm=True, ruleset=RULESET, settings={})
    view["common"]["tracks"].clear()
    view["common"]["conditions"].append("Stabilised")
    assert dataclasses.replace(kept, status="ok") is not kept
    again = RULESET.common_state(_guard(dict(state)))
    assert again is kept
    assert again.to_dict("en") == before
    assert actor_view(record, gm=True, ruleset=RULESET, settings={})["common"] == before
    assert before["status"] == "dying"  # SR-13: overflow, not past Body, not stabilised


def test_tables_of_other_settings_and_languages_are_shown_their_own():
    """Two tables in one process, one showing players an NPC's boxes
    (``show_npc_details``) and one not, each in other languages: every audience of
    each gets what its table shows it, whichever view made the kept state first."""
    state = {"stun": 10, "physical": 4, "overflow": 0, "pool": 0, "stabilised": False}
    record = {"id": "guard", "name": "Guard A", "sheet": {"body": 4}, "state": state}
    details = {"show_npc_details": True}
    for _ in range(2):  # made, then kept
        for locale in ("en", "de", "cs", "ru"):
            gm = actor_view(record, gm=True, ruleset=RULESET, settings={}, locale=locale)
            open_ = actor_view(record, gm=False, ruleset=RULESET, settings=details, locale=locale)
            closed = actor_view(record, gm=False, ruleset=RULESET, settings={}, locale=locale)
            made = monitor._common_state(dict(state), 4, True)
            assert gm["common"] == made.to_dict(locale)
            assert open_["common"] == made.to_dict(locale)
            assert open_["state"] == state
            assert closed["common"]["tracks"] == []  # SR-11's boxes are the GM's here
            assert closed["state"] is None
            assert closed["common"]["conditions"] == gm["common"]["conditions"]
            assert closed["common"]["status"] == "down"  # SR-13: Stun 10
    german = actor_view(record, gm=True, ruleset=RULESET, settings={}, locale="de")
    english = actor_view(record, gm=True, ruleset=RULESET, settings={}, locale="en")
    assert german["common"]["conditions"] != english["common"]["conditions"]


@pytest.mark.parametrize("odd", [True, 1.0])
@pytest.mark.parametrize("box", ["stun", "physical", "overflow"])
def test_a_value_equal_to_a_kept_ones_is_not_served_it(box, odd):
    """``True == 1 == 1.0`` and they hash alike, but pack apart: a bool box is read as
    the integer it counts as, served the integer state's kept one; a float is refused
    with a TypeError (no index of the wound levels), never served it; and the integer
    state's kept one is left as it was (its frames' bytes unchanged)."""
    ones = {"stun": 0, "physical": 0, "overflow": 0, box: 1}
    kept = monitor.common_state(ones, 4)
    packed = msgpack.packb(kept.to_dict("en"))
    if odd is True:  # read as the integer it counts as: the integer state's own
        assert monitor.common_state({**ones, box: odd}, 4) is kept
    else:
        with pytest.raises(TypeError):
            monitor.common_state({**ones, box: odd}, 4)
    assert monitor.common_state(dict(ones), 4) is kept
    assert msgpack.packb(kept.to_dict("en")) == packed
    assert {track.key: track.value for track in kept.tracks}[box].__class__ is int


def test_threads_share_the_kept_states_rightly(monkeypatch):
    """The server's reader threads may show actors while the loop does: with the
    bound small enough that the kept states are dropped again and again, every
    thread is given the common state of the state it asked for."""
    monkeypatch.setattr(monitor, "_COMMON", {})
    monkeypatch.setattr(monitor, "MAX_COMMON", 5)
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    states = [
        ({"stun": stun, "physical": physical, "overflow": 0}, body, boxes)
        for stun, physical, body, boxes in itertools.product(
            range(0, 11, 2), range(0, 11, 3), (1, 4), (False, True)
        )
    ]
    expected = [monitor._common_state(s, body, boxes) for s, body, boxes in states]
    wrong: list[tuple] = []
    start = threading.Barrier(4)

    def show(turn: int) -> None:
        start.wait()
        for _ in range(20):
            for index in range(len(states))[turn::2] if turn % 2 else range(len(states)):
                state, body, boxes = states[index]
                if monitor.common_state(dict(state), body, boxes=boxes) != expected[index]:
                    wrong.append(states[index])

    try:
        threads = [threading.Thread(target=show, args=(turn,)) for turn in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(switch)
    assert wrong == []
    assert len(monitor._COMMON) <= 5


@pytest.mark.parametrize("box", ["stun", "physical", "overflow"])
def test_a_stored_bool_box_is_drawn_as_its_integer(box):
    """A stored record whose box is ``true`` (a store written outside the protocol:
    ``actor.create`` and ``actor.update`` refuse it) was drawn ``"value": true`` in the
    GM's view, which every client draws as a count of boxes (SR-11): now ``1``, the
    view the same as the integer state's, byte for byte."""
    state = {"stun": 0, "physical": 0, "overflow": 0, "pool": 0, "stabilised": False}
    sheet = {"body": 4, "quickness": 4}

    def shown(value):
        record = {"id": "g", "name": "Guard", "sheet": sheet, "state": {**state, box: value}}
        return actor_view(record, gm=True, ruleset=RULESET, settings={})["common"]

    drawn = shown(True)
    assert {t["key"]: t["value"] for t in drawn["tracks"]}[box].__class__ is int
    assert msgpack.packb(drawn) == msgpack.packb(shown(1))
