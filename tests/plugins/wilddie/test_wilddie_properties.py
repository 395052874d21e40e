"""Property tests (hypothesis) of aces, trait tests, wounds and chips."""

from __future__ import annotations

import copy
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from rollbridge import ActionContext, Actor
from rollbridge.dice import ScriptedDice, SeededDice
from rollbridge.exceptions import InvalidParams, RuleViolation, UnknownRequest
from rollbridge.plugins.wilddie import WildDieRuleset
from rollbridge.plugins.wilddie.rolling import roll_ace
from rollbridge.plugins.wilddie.sheet import SHEET_SCHEMA
from rollbridge.plugins.wilddie.state import MAX_CHIPS, ROLL_MEMORY, max_wounds
from rollbridge.schema import validate

RULESET = WildDieRuleset()
FACES = st.sampled_from([4, 6, 8, 10, 12])
DICE = st.sampled_from(["d4", "d6", "d8", "d10", "d12"])
ATTRS = SHEET_SCHEMA["properties"]["attributes"]["required"]


@st.composite
def ace_script(draw):
    """A die's faces and a script for it: some maxima, then one non-maximum."""
    faces = draw(FACES)
    aces = draw(st.integers(0, 6))
    last = draw(st.integers(1, faces - 1))
    return faces, [faces] * aces + [last]


@given(ace_script())
def test_WD2_acing_total_is_never_a_multiple_of_the_faces(case):
    faces, script = case
    dice = ScriptedDice(script)
    die = roll_ace(dice, faces)
    dice.finish()
    assert die.value == sum(script)
    assert die.value % faces != 0
    assert list(die.rolls) == script


@given(FACES, st.integers(0, 2**32))
def test_WD2_acing_total_from_seeded_dice_is_never_a_multiple(faces, seed):
    die = roll_ace(SeededDice(seed), faces)
    assert die.value % faces != 0
    assert all(r == faces for r in die.rolls[:-1]) and die.rolls[-1] < faces


@st.composite
def sheets(draw, kind=None):
    sheet = {
        "kind": kind or draw(st.sampled_from(["pc", "npc"])),
        "attributes": {a: draw(DICE) for a in ATTRS},
        "skills": draw(st.dictionaries(st.sampled_from(["fighting", "shooting", "notice"]), DICE)),
        "armor": draw(st.integers(0, 4)),
    }
    return RULESET.validate_sheet(sheet)


@given(sheets(), st.integers(0, 2**32), st.integers(-6, 6), st.integers(-2, 12))
def test_WD3_result_is_better_die_plus_modifiers(sheet, seed, modifier, difficulty):
    actor = Actor("a", "A", sheet, RULESET.initial_state(sheet))
    params = validate(
        RULESET.actions["trait"].params,
        {"trait": "notice", "difficulty": difficulty, "modifiers": [{"value": modifier}]},
    )
    res = RULESET.resolve(ActionContext("trait", params, actor=actor), SeededDice(seed))
    out = res.outcome
    untrained = "notice" not in sheet["skills"]
    mods = modifier - (2 if untrained else 0)
    best = out["trait_die"]["value"]
    if sheet["kind"] == "pc":
        assert out["wild_die"] is not None
        best = max(best, out["wild_die"]["value"])
    else:
        assert out["wild_die"] is None
    assert out["total"] == best + mods
    assert out["success"] is (out["total"] >= difficulty)
    assert out["raises"] == (max(0, out["total"] - difficulty) // 4 if out["success"] else 0)


OPS = st.one_of(
    st.tuples(st.just("damage"), st.integers(1, 40)),
    st.tuples(st.just("heal"), st.integers(0, 4), st.booleans()),
    st.tuples(st.just("award"), st.integers(1, 10)),
    st.tuples(st.just("trait"), st.integers(0, 2**16)),
    st.tuples(st.just("chip"), st.sampled_from(["trait", "wild"]), st.integers(0, 2**16)),
    st.tuples(st.just("recover"), st.integers(0, 2**16)),
    st.tuples(st.just("adjust"), st.integers(-5, 5)),
)


def _run(op, actor, setting):
    name = op[0]
    if name == "adjust":
        return RULESET.adjust(actor, "wounds", op[1])
    if name == "damage":
        action, params, ctx_actor, targets = "damage", {"dice": "d100"}, None, (actor,)
        dice = ScriptedDice([min(op[1], 99)])
    elif name == "heal":
        action, params, ctx_actor, targets = (
            "heal",
            {"wounds": op[1], "unshake": op[2]},
            None,
            (actor,),
        )
        dice = ScriptedDice([])
    elif name == "award":
        action, params, ctx_actor, targets = "award_chips", {"count": op[1]}, None, (actor,)
        dice = ScriptedDice([])
    elif name == "trait":
        action, params, ctx_actor, targets = "trait", {"trait": "vigor"}, actor, ()
        dice = SeededDice(op[1])
    elif name == "chip":
        action, params, ctx_actor, targets = "chip", {"die": op[1]}, actor, ()
        dice = SeededDice(op[2])
    else:
        action, params, ctx_actor, targets = "recover", {}, actor, ()
        dice = SeededDice(op[1])
    params = validate(RULESET.actions[action].params, params)
    settings_ = validate(RULESET.settings_schema, setting)
    ctx = ActionContext(action, params, actor=ctx_actor, targets=targets, settings=settings_)
    return RULESET.resolve(ctx, dice).states[actor.id]


@settings(max_examples=150, deadline=None)
@given(
    sheets(),
    st.lists(OPS, max_size=25),
    st.sampled_from(["one_die", "whole_roll"]),
    st.sampled_from(["one", "per_raise"]),
)
def test_WD4_WD8_wounds_and_chips_stay_within_bounds(sheet, ops, chip_reroll, per_hit):
    pc = sheet["kind"] == "pc"
    actor = Actor("a", "A", sheet, RULESET.initial_state(sheet))
    setting = {"chip_reroll": chip_reroll, "wounds_per_hit": per_hit}
    for op in ops:
        before = copy.deepcopy(dict(actor.state))
        try:
            state = _run(op, actor, setting)
        except (RuleViolation, UnknownRequest, InvalidParams):
            assert dict(actor.state) == before  # a refusal changes nothing
            continue
        assert dict(actor.state) == before  # the input is never mutated
        assert json.loads(json.dumps(state)) == state
        assert 0 <= state["wounds"] <= max_wounds(pc)
        assert 0 <= state["chips"] <= MAX_CHIPS
        assert len(state["rolls"]) <= ROLL_MEMORY
        if state["incapacitated"]:
            assert state["wounds"] == max_wounds(pc)
        common = RULESET.common_state(Actor("a", "A", sheet, state))
        assert -3 <= common.modifier <= 0
        assert common.tracks[0].value == state["wounds"] <= common.tracks[0].max
        if op[0] == "chip":
            assert state["chips"] == before["chips"] - 1
        actor = Actor("a", "A", sheet, state)
