"""Property tests (hypothesis): boxes never exceed capacity; nothing ever
passes to an inner layer except GSK excess (TL-5, TL-8); refusals change nothing."""

from __future__ import annotations

import copy
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from rollbridge import Actor
from rollbridge.exceptions import RuleViolation

TYPES = ["kinetic", "fire", "energy", "shock", "mental"]
immunities = st.lists(st.sampled_from(TYPES), max_size=2, unique=True)
tls = st.integers(1, 5)


@st.composite
def items(draw, kind):
    boxes = draw(st.sampled_from([10, 20])) if kind == "armour" else draw(st.integers(1, 30))
    return {
        "name": f"{kind}-{draw(st.integers(0, 99))}",
        "kind": kind,
        "boxes": boxes,
        "tl": draw(tls),
        "crossed": draw(st.integers(0, boxes)),
        "magical": draw(st.booleans()),
        "immune": draw(immunities),
    }


@st.composite
def vehicles(draw):
    count = draw(st.integers(1, 3))
    worn = [draw(items(k)) for k in ("shield", "armour") if draw(st.booleans())]
    return {
        "name": "Ride",
        "kind": draw(st.sampled_from(["vehicle", "mount"])),
        "tl": draw(tls),
        "immune": draw(immunities),
        "sections": [{"name": f"s{i}", "crossed": draw(st.integers(0, 20))} for i in range(count)],
        "worn": worn,
    }


@st.composite
def actors(draw, tl_driver):
    fields = {
        "body_tl": draw(tls),
        "immune": draw(immunities),
        "worn": [draw(items(k)) for k in ("shield", "armour") if draw(st.booleans())],
    }
    if draw(st.booleans()):
        fields["vehicles"] = [draw(vehicles())]
        fields["mounted"] = "Ride"
    fresh = tl_driver.actor(**fields)
    lethal = draw(st.integers(0, 10))
    shock = draw(st.integers(0, 10 - lethal))
    state = {
        **fresh.state,
        "ksk": {"lethal": lethal, "shock": shock},
        "gsk": draw(st.integers(0, 10)),
    }
    return Actor(fresh.id, fresh.name, fresh.sheet, state)


hits = st.fixed_dictionaries(
    {"roll": st.integers(0, 40), "tl": tls, "type": st.sampled_from(TYPES)},
    optional={"section": st.sampled_from(["s0", "s1", "s2"])},
)


def _capacity_ok(state):
    things = [state["shield"], state["armour"]]
    vehicle = state["vehicle"]
    if vehicle is not None:
        things += [vehicle["shield"], vehicle["armour"], *vehicle["sections"]]
        assert vehicle["destroyed"] == all(s["destroyed"] for s in vehicle["sections"])
    for thing in things:
        if thing is not None:
            assert 0 <= thing["crossed"] <= thing["boxes"]
            assert thing["destroyed"] == (thing["crossed"] == thing["boxes"])
    ksk = state["ksk"]
    assert ksk["lethal"] >= 0 and ksk["shock"] >= 0
    assert ksk["lethal"] + ksk["shock"] <= 10
    assert 0 <= state["gsk"] <= 10


def _layers(state):
    """Every damage-bearing part of a state, by name."""
    parts = {"shield": state["shield"], "armour": state["armour"], "body": state["ksk"],
             "mind": state["gsk"]}  # fmt: skip
    vehicle = state["vehicle"]
    if vehicle is not None:
        parts["vehicle_shield"] = vehicle["shield"]
        parts["vehicle_armour"] = vehicle["armour"]
        for section in vehicle["sections"]:
            parts[f"vehicle:{section['name']}"] = section
    return parts


def _valid_section(actor, hit):
    vehicle = actor.state["vehicle"]
    names = [s["name"] for s in vehicle["sections"]] if vehicle else []
    if hit.get("section") not in names:
        hit = {k: v for k, v in hit.items() if k != "section"}
    return hit


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_boxes_never_exceed_capacity_and_nothing_passes_inward(tl, data):
    actor = data.draw(actors(tl))
    _capacity_ok(actor.state)
    for _ in range(data.draw(st.integers(1, 6))):
        hit = _valid_section(actor, data.draw(hits))
        before = copy.deepcopy(actor.state)
        result = tl.run("hit", {"dice": "1d6", **hit}, targets=[actor])
        after = result.states[actor.id]
        out = result.outcome
        _capacity_ok(after)
        old, new = _layers(before), _layers(after)
        changed = {key for key in old if old[key] != new[key]}
        if hit["type"] == "mental":
            # TL-8: only the mind, and the body only through GSK excess
            assert changed <= {"mind", "body"}
            if "body" in changed:
                assert after["gsk"] == 10
                assert out["mind"]["excess"] > 0
                gained = after["ksk"]["lethal"] - before["ksk"]["lethal"]
                assert gained <= out["mind"]["excess"]
            assert out["mind"]["crossed"] + out["mind"]["excess"] == out["boxes"]
        else:
            # TL-3/TL-5: only the layer hit changes; the excess is lost, never passed on
            hit_key = out["layer"]
            if hit_key == "vehicle":
                hit_key = f"vehicle:{out['section']}"
            assert changed <= {hit_key}
            assert out["crossed"] + out["converted"] + out["lost"] == out["boxes"]
            if out["immune"]:
                assert changed == set() and out["boxes"] == 0
        actor = Actor(actor.id, actor.name, actor.sheet, after)
    assert json.loads(json.dumps(actor.state)) == actor.state


@settings(max_examples=150, deadline=None)
@given(data=st.data(), kind=st.sampled_from(["shield", "armour"]))
def test_refused_don_changes_nothing(tl, data, kind):
    """TL-9: donning onto an occupied layer is always refused, state intact."""
    actor = data.draw(actors(tl))
    if actor.state[kind] is None:
        return
    item = data.draw(items(kind))
    before = copy.deepcopy(actor.state)
    try:
        tl.run("don", {"item": item}, actor=actor)
    except RuleViolation as exc:
        expected = (
            "magical_armour_present"
            if actor.state[kind]["magical"] and not actor.state[kind]["destroyed"]
            else "layer_occupied"
        )
        assert exc.code == expected
    else:  # pragma: no cover - a failure
        raise AssertionError("an occupied layer accepted a second item")
    assert actor.state == before


@settings(max_examples=150, deadline=None)
@given(data=st.data(), delta=st.integers(-40, 40))
def test_adjust_keeps_every_track_within_bounds(tl, data, delta):
    actor = data.draw(actors(tl))
    for track in tl.rs.common_state(actor).tracks:
        state = tl.rs.adjust(actor, track.key, delta)
        _capacity_ok(state)
        moved = Actor(actor.id, actor.name, actor.sheet, state)
        for row in tl.rs.common_state(moved).tracks:
            assert 0 <= row.value <= row.max


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_load_state_leaves_a_written_state_unchanged(tl, data):
    from rollbridge.plugins.techlevel.state import load_state

    actor = data.draw(actors(tl))
    hit = _valid_section(actor, data.draw(hits))
    after = tl.run("hit", {"dice": "1d6", **hit}, targets=[actor]).states[actor.id]
    assert load_state(actor.state) == actor.state
    assert load_state(after) == after
