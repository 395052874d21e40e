"""Independent cases for the ``bandits`` ruleset, each computed by hand from the rules
file (docs/sources/rules/bandits.md, BD-1 to BD-11), not from the code: the bands'
edges, the ±4 clamp of the sum, advantage and disadvantage, the harm table's every
edge, the slots of BD-6, BD-7 and its variant, extras and every medpack case.
Every case runs on the real table engine (:class:`~rollbridge.testing.RulesetHarness`)
with supplied dice, and cites the rule it follows."""

from __future__ import annotations

from typing import Any

import pytest

from rollbridge.exceptions import RuleViolation
from rollbridge.plugins.bandits import BanditsRuleset
from rollbridge.testing import RulesetHarness

NAMES = {1: "lightly", 2: "seriously", 3: "heavily", 4: "dying"}


def table(**settings: Any) -> RulesetHarness:
    """A table running bandits with ``settings`` as its ruleset settings."""
    return RulesetHarness(BanditsRuleset(), settings={"ruleset": settings} if settings else None)


def bandit(t: RulesetHarness, slots: set[int] = frozenset(), **sheet: Any) -> str:
    """Add bandit ``b`` with ``slots`` marked and ``sheet``; its id."""
    state = {"slots": {NAMES[s]: True for s in slots}} if slots else None
    return t.add_actor("Bandit", {"kind": "bandit", **sheet}, actor_id="b", state=state)


def marked(t: RulesetHarness, actor: str = "b") -> set[int]:
    """The slots marked on ``actor``."""
    slots = t.state(actor)["slots"]
    return {n for n, name in NAMES.items() if slots[name]}


def move(t: RulesetHarness, dice: list[int], **params: Any) -> dict[str, Any]:
    """A move of ``b``; its outcome."""
    return t.resolve("move", actor="b", params=params, dice=dice)["data"]["outcome"]


def taken(t: RulesetHarness, dice: list[int], pierce: int = 0, **params: Any) -> dict[str, Any]:
    """``b`` takes harm from an enemy of Pierce ``pierce``; the outcome."""
    body = {"direction": "taken", "pierce": pierce, **params}
    return t.resolve("harm", targets=["b"], params=body, dice=dice)["data"]["outcome"]


def harm_by(t: RulesetHarness, attacker: str, dice: list[int], **params: Any) -> dict[str, Any]:
    """``attacker`` harms ``b`` with ``params`` (``direction`` among them); the outcome."""
    done = t.resolve("harm", actor=attacker, targets=["b"], params=params, dice=dice)
    return done["data"]["outcome"]


@pytest.mark.parametrize(
    ("dice", "band", "extra"),
    [
        ([3, 3], "miss", False),  # 6: "≤ 6 miss"
        ([3, 4], "partial", False),  # 7: "7–9 partial"
        ([4, 5], "partial", False),  # 9
        ([4, 6], "full", False),  # 10: "≥ 10 full success"
        ([5, 6], "full", False),  # 11
        ([6, 6], "full", True),  # 12: "12+ flagged as the extra"
    ],
)
def test_bd_1_band_edges(dice, band, extra):
    """BD-1: "≥ 10 full success (12+ flagged as the extra), 7–9 partial, ≤ 6 miss"."""
    t = table()
    bandit(t)
    out = move(t, dice)
    assert (out["total"], out["band"], out["extra_result"]) == (sum(dice), band, extra)


@pytest.mark.parametrize(
    ("stat", "modifiers", "modifier"),
    [
        (3, [3], 4),  # acceptance 5
        (2, [1, 1], 4),  # exactly +4: no clamp
        (-3, [-2], -4),  # −5 → −4
        (-4, [], -4),
        (5, [-3], 2),  # the SUM is clamped, not the bonus and the penalty apart
        (-6, [3], -3),
        (10, [-10], 0),
        (0, [], 0),
    ],
)
def test_bd_1_sum_of_modifiers_clamped(stat, modifiers, modifier):
    """BD-1: "the sum of all modifiers is clamped to [−4, +4]"."""
    t = table()
    bandit(t, stats={"cool": stat})
    out = move(t, [2, 2], stat="cool", modifiers=modifiers)
    assert out["modifier"] == modifier
    assert out["total"] == 4 + modifier


def test_bd_1_a_clamped_total_reaching_twelve_is_the_extra():
    """BD-1: 12+ is the total: dice 4 + 4 and +4 (clamped from +6) = 12."""
    t = table()
    bandit(t, stats={"hard": 6})
    out = move(t, [4, 4], stat="hard")
    assert (out["total"], out["extra_result"]) == (12, True)


@pytest.mark.parametrize(
    ("flags", "dice", "total"),
    [
        ({"advantage": True}, [1, 5, 6], 11),  # keeps the highest two
        ({"disadvantage": True}, [1, 5, 6], 6),  # keeps the lowest two
        ({"advantage": True}, [3, 3, 1], 6),  # a tie: drops the 1
        ({"advantage": True, "disadvantage": True}, [1, 6], 7),  # "both cancel to plain 2d6"
    ],
)
def test_bd_2_advantage(flags, dice, total):
    """BD-2: "3d6: advantage keeps the highest two, disadvantage the lowest two …
    both cancel to plain 2d6"."""
    t = table()
    bandit(t)
    out = move(t, dice, **flags)
    assert out["total"] == total


def test_bd_2_heavily_wounded_with_advantage_cancels():
    """BD-7: "(BD-2 still applies: with advantage they cancel)": slot 3 and an
    advantage roll plain 2d6 (two dice only)."""
    t = table()
    bandit(t, {3})
    out = move(t, [2, 6], advantage=True)
    assert out["dice_mode"] == "cancelled"
    assert out["total"] == 8


@pytest.mark.parametrize(
    ("dice", "total", "wounds"),
    [
        ([1, 2], 3, 0),
        ([2, 2], 4, 1),
        ([3, 3], 6, 1),
        ([3, 4], 7, 2),
        ([4, 5], 9, 2),
        ([4, 6], 10, 3),
        ([6, 6], 12, 3),
    ],
)
def test_bd_5_harm_table_low_bands(dice, total, wounds):
    """BD-5: "≤ 3 → 0 wounds …, 4–6 → 1, 7–9 → 2, 10–12 → 3"."""
    t = table()
    t.add_actor("Guard", {"kind": "extra"}, actor_id="g")
    out = t.resolve("harm", targets=["g"], params={"direction": "taken", "pierce": 0}, dice=dice)
    out = out["data"]["outcome"]
    assert (out["total"], out["table_wounds"]) == (total, wounds)


@pytest.mark.parametrize(
    ("pierce", "total", "wounds"),
    [(1, 13, 4), (3, 15, 4), (4, 16, 5), (6, 18, 5), (7, 19, 6), (9, 21, 6), (10, 22, 7)],
)
def test_bd_5_harm_table_high_bands_no_clamp(pierce, total, wounds):
    """BD-5 and BD-3: "the ±4 clamp of BD-1 does not apply to harm (the table runs to
    22+)": 6 + 6 + Pierce up to 10 (the sheet's maximum) reaches 22 → 7."""
    t = table()
    t.add_actor("Ganger", {"kind": "bandit", "pierce": pierce}, actor_id="a")
    t.add_actor("Guard", {"kind": "extra"}, actor_id="g")
    out = t.resolve("harm", actor="a", targets=["g"], params={"direction": "dealt"}, dice=[6, 6])
    out = out["data"]["outcome"]
    assert (out["total"], out["table_wounds"]) == (total, wounds)


def test_bd_3_taken_subtracts_steady_and_armour():
    """BD-3: "Taking harm: 2d6 − own Steady − own Armour + attacker's Pierce":
    5 + 5 − 2 − 3 + 1 = 6 → 1 wound."""
    t = table()
    bandit(t, stats={"steady": 2}, armour=3)
    out = taken(t, [5, 5], pierce=1)
    assert (out["total"], out["wounds"]) == (6, 1)


def test_bd_3_dealt_ignores_the_targets_steady():
    """BD-3: "Dealing harm: 2d6 − target's Armour + own Pierce": 5 + 5 − 3 + 1 = 8 → 2
    wounds, the target's Steady 2 not counted."""
    t = table()
    t.add_actor("Ganger", {"kind": "bandit", "pierce": 1}, actor_id="a")
    bandit(t, stats={"steady": 2}, armour=3)
    out = harm_by(t, "a", [5, 5], direction="dealt")
    assert (out["total"], out["wounds"]) == (8, 2)
    assert marked(t) == {2}


def test_bd_3_a_negative_harm_total_is_the_lowest_band():
    """BD-3/BD-5: 1 + 1 − Steady 3 − Armour 2 = −3 is "≤ 3": no wound, trouble."""
    t = table()
    bandit(t, stats={"steady": 3}, armour=2)
    out = taken(t, [1, 1])
    assert (out["total"], out["wounds"], out["trouble"]) == (-3, 0, True)
    assert marked(t) == set()


def test_bd_5_a_bandit_may_take_one_wound_instead_of_the_trouble():
    """BD-5: "≤ 3 → 0 wounds (trouble; a bandit may choose 1 wound instead)"."""
    t = table()
    bandit(t)
    out = taken(t, [1, 2], wound_instead_of_trouble=True)
    assert (out["wounds"], out["trouble"]) == (1, False)
    assert marked(t) == {1}


def test_bd_4_two_light_weapons_pierce_and_armour():
    """BD-4: "+1 Pierce or +1 Armour, chosen per turn": the attacker's +1 Pierce makes
    3 + 3 + 0 + 1 = 7 → 2 wounds; the target's +1 Armour makes 3 + 3 − 1 = 5 → 1 (one
    choice per actor per turn: a second actor takes the armour)."""
    t = table()
    t.add_actor("Ganger", {"kind": "bandit", "two_light_weapons": True}, actor_id="a")
    t.add_actor("Other", {"kind": "bandit", "two_light_weapons": True}, actor_id="o")
    bandit(t, two_light_weapons=True)
    up = harm_by(t, "a", [3, 3], direction="dealt", attacker_dual_wield="pierce")
    assert (up["total"], up["wounds"]) == (7, 2)
    # Other's choice for Bandit: Ganger's pierce is this turn's already
    down = harm_by(t, "o", [3, 3], direction="dealt", target_dual_wield="armour")
    assert (down["total"], down["wounds"]) == (5, 1)


@pytest.mark.parametrize(
    ("before", "dice", "after", "result"),
    [
        (set(), [2, 2], {1}, "marked"),  # 4: 1 wound, slot 1 free
        ({1}, [2, 2], {1, 2}, "marked"),  # slot 1 taken: the nearest free above
        ({2}, [3, 4], {2, 3}, "marked"),  # acceptance 1
        ({2, 3}, [3, 4], {2, 3, 4}, "dying"),  # 2 wounds: 2, 3 taken → 4
        ({1, 2, 3}, [2, 2], {1, 2, 3, 4}, "dying"),  # 1 wound → slot 4
        ({4}, [2, 2], {1, 4}, "marked"),  # slot 1 free below the dying one
        ({2, 3, 4}, [3, 4], None, "dead"),  # "no free slot from n to 4: dead"
        ({3, 4}, [5, 5], None, "dead"),  # acceptance 3
        (set(), [6, 6], {3}, "marked"),  # 12: 3 wounds
        (set(), [6, 6, 1], {4}, "dying"),  # 13 (Pierce 1): 4 wounds → slot 4
        (set(), [6, 6, 4], None, "dead"),  # 16 (Pierce 4): 5 wounds, "n ≥ 5 … dead"
    ],
)
def test_bd_6_slots(before, dice, after, result):
    """BD-6: "A hit of n wounds … marks slot n if free, else the nearest free slot
    above n. n ≥ 5, or no free slot from n to 4: dead." A third die is the enemy's
    Pierce here, not a die."""
    t = table()
    bandit(t, before)
    pierce = dice[2] if len(dice) == 3 else 0
    out = taken(t, dice[:2], pierce=pierce)
    assert out["result"] == result
    if after is None:
        assert t.state("b")["dead"] is True
    else:
        assert marked(t) == after
        assert t.state("b")["dead"] is False
        assert t.state("b")["dying"] is (4 in after)


def test_bd_6_reduction_comes_before_the_slot():
    """BD-6: "A hit of n wounds (after any reduction the GM grants)": 16 is 5 wounds,
    reduced by 1 to 4 → slot 4, dying, not dead."""
    t = table()
    bandit(t)
    out = taken(t, [6, 6], pierce=4, reduction=1)
    assert out["wounds"] == 4
    assert marked(t) == {4}
    assert t.state("b")["dead"] is False


def test_bd_7_medpack_clearing_slot_three_ends_the_disadvantage():
    """BD-7: "Decision for the default: the medpack that removes the status removes
    its effect too"."""
    t = table()
    bandit(t, {3})
    assert move(t, [1, 2, 6])["dice_mode"] == "disadvantage"
    t.resolve("medpack", targets=["b"], params={"n": 3})
    assert marked(t) == set()
    out = move(t, [1, 6])
    assert out["dice_mode"] == "normal"


def test_bd_7_variant_keeps_the_disadvantage_until_the_raid_ends():
    """BD-7's variant (``heavy_wound_lasts_the_raid``): "a bandit once heavily wounded
    keeps the disadvantage until the raid ends, even after a medpack clears slot 3"."""
    t = table(heavy_wound_lasts_the_raid=True)
    bandit(t)
    taken(t, [5, 5])  # 10 → 3 wounds → slot 3
    assert marked(t) == {3}
    t.resolve("medpack", targets=["b"], params={"n": 3})
    assert marked(t) == set()
    assert move(t, [1, 2, 6])["dice_mode"] == "disadvantage"
    t.resolve("end_of_raid", params={})
    assert move(t, [1, 6])["dice_mode"] == "normal"


def test_bd_7_variant_medpack_moving_slot_three_down_keeps_it():
    """BD-7's variant: slot 3 moved to 1 by a medpack-2 (BD-10) — still disadvantage;
    by default the move ends it (slot 3 is no longer marked)."""
    for lasts, mode in ((True, "disadvantage"), (False, "normal")):
        t = table(heavy_wound_lasts_the_raid=lasts)
        bandit(t)
        taken(t, [5, 5])
        t.resolve("medpack", targets=["b"], params={"n": 2})
        assert marked(t) == {1}
        dice = [1, 2, 6] if mode == "disadvantage" else [1, 6]
        assert move(t, dice)["dice_mode"] == mode


def test_bd_8_dying_dies_at_the_end_of_its_turn_unless_stabilised():
    """BD-8: "dead at the end of the next turn unless stabilised … stabilised means
    alive but unable to act". Without an encounter, ``end_of_turn`` is called when
    that next turn ends and kills at once (Decision D5, docs/rulesets/bandits.md)."""
    t = table()
    bandit(t, {4})
    t.resolve("end_of_turn", actor="b", params={})
    assert t.state("b")["dead"] is True

    t = table()
    bandit(t, {4})
    t.resolve("stabilise", targets=["b"], params={"means": "doc"})
    t.resolve("end_of_turn", actor="b", params={})
    assert t.state("b")["dead"] is False
    with pytest.raises(RuleViolation) as refused:
        move(t, [3, 3])
    assert refused.value.code == "cannot_act"


@pytest.mark.parametrize(
    ("before", "dice", "wounded", "out"),
    [
        (False, [1, 2], False, False),  # 0 wounds: not even wounded
        (False, [2, 2], True, False),  # 1 wound: wounded
        (True, [2, 2], True, True),  # 1 wound, already wounded: out
        (False, [3, 4], True, True),  # "Two or more in one hit: out"
    ],
)
def test_bd_9_extras(before, dice, wounded, out):
    """BD-9: "One wound: wounded, or out if already wounded. Two or more in one hit:
    out." """
    t = table()
    state = {"wounded": True} if before else None
    t.add_actor("Guard", {"kind": "extra"}, actor_id="g", state=state)
    t.resolve("harm", targets=["g"], params={"direction": "taken", "pierce": 0}, dice=dice)
    got = t.state("g")
    assert (got["wounded"], got["out"]) == (wounded, out)


@pytest.mark.parametrize(
    ("before", "n", "after"),
    [
        ({2, 3}, 1, {1, 3}),  # the seed's example
        ({2, 3}, 3, {2}),  # the seed's example
        ({1}, 1, set()),
        ({1, 2, 3}, 1, {2, 3}),  # slot 1 ≤ 1 is cleared, not slot 3 moved
        ({1, 3}, 2, {3}),  # the most serious slot ≤ 2 is 1: cleared
        ({3}, 2, {1}),  # none ≤ 2: 3 moves to 3 − 2 = 1
        ({3}, 1, {2}),
        ({2, 3}, 2, {3}),  # slot 2 ≤ 2 cleared
        ({3, 4}, 4, {4}),  # slot 4 is never cleared: slot 3 is
        ({2, 4}, 1, {1, 4}),  # slot 4 never moved: 2 → 1
        ({3, 4}, 10, {4}),
    ],
)
def test_bd_10_medpack(before, n, after):
    """BD-10: "If a marked slot ≤ N exists, clear the most serious such slot.
    Otherwise, if a marked slot s > N exists with slot s − N free, move the most
    serious such wound to s − N … a medpack never clears or moves slot 4"."""
    t = table()
    bandit(t, before)
    t.resolve("medpack", targets=["b"], params={"n": n})
    assert marked(t) == after


def test_bd_10_medpack_cannot_help_the_dying_slot_alone():
    """BD-10: "Otherwise the medpack cannot help: a clear error, nothing changes"."""
    t = table()
    bandit(t, {4})
    before = t.state("b")
    with pytest.raises(RuleViolation) as refused:
        t.resolve("medpack", targets=["b"], params={"n": 4})
    assert refused.value.code == "medpack_cannot_help"
    assert t.state("b") == before


def test_bd_11_end_of_raid_clears_all_but_the_kept_wound():
    """BD-11: "Clear every slot, except a wound the player keeps as a getaway
    trouble"."""
    t = table()
    bandit(t, {1, 3})
    t.resolve("end_of_raid", params={"kept_wounds": {"b": 3}})
    assert marked(t) == {3}


def test_bd_4_taking_harm_with_both_choices():
    """BD-3 with BD-4: taking harm, "2d6 − own Steady − own Armour + attacker's
    Pierce", the target's +1 Armour and the attacker's +1 Pierce: 4 + 4 − 1 − (1 + 1)
    + (2 + 1) = 8 → 2 wounds."""
    t = table()
    t.add_actor("Ganger", {"kind": "bandit", "pierce": 2, "two_light_weapons": True}, actor_id="a")
    bandit(t, stats={"steady": 1}, armour=1, two_light_weapons=True)
    out = harm_by(
        t, "a", [4, 4], direction="taken", attacker_dual_wield="pierce", target_dual_wield="armour"
    )
    assert (out["total"], out["wounds"]) == (8, 2)


def test_bd_7_heavily_wounded_and_disadvantage_is_one_disadvantage():
    """BD-2: "Any number of either counts as one": slot 3 plus a declared
    disadvantage still rolls 3d6 and keeps the lowest two."""
    t = table()
    bandit(t, {3})
    out = move(t, [1, 2, 3], disadvantage=True)
    assert (out["dice_mode"], out["total"]) == ("disadvantage", 3)


def test_bd_7_only_slot_three_gives_disadvantage():
    """BD-7: "While slot 3 is marked": a dying bandit with slot 4 alone rolls 2d6."""
    t = table()
    bandit(t, {4})
    assert move(t, [1, 2])["dice_mode"] == "normal"


def test_bd_8_dying_in_its_own_turn_lives_to_the_end_of_the_next():
    """BD-8: "dead at the end of the next turn unless stabilised", in an encounter
    of Ana then the bandit. Made dying in Ana's turn: dead when its own turn (the
    next) ends — the rules file's own answer. Made dying in its own turn, the rules
    file does not say whose "next turn" (Ana's, read literally, or its own): the
    second half checks the plugin's Decision D3 (docs/rulesets/bandits.md: the first
    of *its own* turns that begins after it started dying), not the rules file, so
    it survives Ana's turn and dies when its own following turn ends."""
    t = table()
    t.add_actor("Ana", {"kind": "bandit"}, actor_id="a")
    bandit(t)
    t.request({"type": "encounter.start", "order": ["a", "b"]})
    taken(t, [6, 6], pierce=1)  # Ana's turn: 13 → 4 wounds, dying
    t.request({"type": "encounter.next"})  # Ana's turn ends, the bandit's begins
    assert t.state("b")["dead"] is False
    t.request({"type": "encounter.next"})  # the bandit's turn ends
    assert t.state("b")["dead"] is True

    t = table()
    t.add_actor("Ana", {"kind": "bandit"}, actor_id="a")
    bandit(t)
    t.request({"type": "encounter.start", "order": ["a", "b"]})
    t.request({"type": "encounter.next"})  # the bandit's turn begins
    taken(t, [6, 6], pierce=1)  # in its own turn: dying
    t.request({"type": "encounter.next"})  # that turn ends: not yet
    assert (t.state("b")["dying"], t.state("b")["dead"]) == (True, False)
    t.request({"type": "encounter.next"})  # Ana's turn ends, the bandit's begins
    assert t.state("b")["dead"] is False
    t.request({"type": "encounter.next"})  # its next turn ends
    assert t.state("b")["dead"] is True


def test_bd_4_the_choice_is_per_turn():
    """BD-4: "+1 Pierce or +1 Armour, chosen per turn": in one turn the choice stands
    (Armour asked after Pierce is refused, ``dual_wield_locked``, nothing changes);
    once the chooser's next turn begins (``end_of_turn`` here) Armour may be chosen."""
    t = table()
    t.add_actor("Ganger", {"kind": "bandit", "two_light_weapons": True}, actor_id="a")
    bandit(t)
    harm_by(t, "a", [1, 1], direction="dealt", attacker_dual_wield="pierce")
    before = (t.state("a"), t.state("b"))
    with pytest.raises(RuleViolation) as refused:
        harm_by(t, "a", [1, 1], direction="dealt", attacker_dual_wield="armour")
    assert refused.value.code == "dual_wield_locked"
    assert (t.state("a"), t.state("b")) == before
    t.resolve("end_of_turn", actor="a", params={})
    assert t.state("a")["dual_wield"] is None
    # Ganger's new turn: the armour now; 2 + 2 − (0 + 1) + 0 = 3 → no wound
    out = t.resolve(
        "harm",
        actor="b",
        targets=["a"],
        params={"direction": "dealt", "target_dual_wield": "armour"},
        dice=[2, 2],
    )["data"]["outcome"]
    assert (out["total"], out["wounds"]) == (3, 0)


@pytest.mark.parametrize(
    ("pierce", "text"),
    [
        (0, "3−: trouble only"),  # 2 + 1
        (1, "4–6: 1 wound"),
        (4, "7–9: 2 wounds"),
        (7, "10–12: 3 wounds"),
        (10, "13–15: 4 wounds"),
    ],
)
def test_bd_5_the_tables_text_for_the_band(pierce, text):
    """BD-5: "Return the table's text for the band with the result": 2 + 1 + Pierce
    on an extra — the row's range and wounds as the rules file's table has them, and
    the extra's column ("killed or knocked out" for 7–9)."""
    t = table()
    t.add_actor("Ganger", {"kind": "bandit", "pierce": pierce}, actor_id="a")
    t.add_actor("Guard", {"kind": "extra"}, actor_id="g")
    out = t.resolve("harm", actor="a", targets=["g"], params={"direction": "dealt"}, dice=[2, 1])
    out = out["data"]["outcome"]
    assert out["total"] == 3 + pierce
    assert out["table_text"].startswith(text)
    if pierce == 4:
        assert "killed or knocked out" in out["table_text"]


def test_bd_10_a_medpack_on_no_wound_is_a_clear_error():
    """BD-10: "Otherwise the medpack cannot help: a clear error, nothing changes" —
    with nothing marked."""
    t = table()
    bandit(t)
    before = t.state("b")
    with pytest.raises(RuleViolation) as refused:
        t.resolve("medpack", targets=["b"], params={"n": 2})
    assert refused.value.code == "no_wounds"
    assert t.state("b") == before


def test_bd_11_the_dead_stay_dead_and_the_dying_must_be_settled():
    """BD-11: the end of a raid heals the living, not the dead ("or who is dying and
    not helped, dies"); a bandit still dying and not stabilised must be settled
    first (Decision D11: ``dying_not_resolved``, nothing changes)."""
    t = table()
    t.add_actor("Dead", {"kind": "bandit"}, actor_id="d", state={"dead": True})
    bandit(t, {4})
    before = (t.state("d"), t.state("b"))
    with pytest.raises(RuleViolation) as refused:
        t.resolve("end_of_raid", params={})
    assert refused.value.code == "dying_not_resolved"
    assert (t.state("d"), t.state("b")) == before
    t.resolve("stabilise", targets=["b"], params={"means": "item"})
    t.resolve("end_of_raid", params={})
    assert t.state("d")["dead"] is True
    assert marked(t) == set()
    assert (t.state("b")["dying"], t.state("b")["stabilised"]) == (False, False)


@pytest.mark.parametrize(("can_act", "refused"), [(True, False), (False, True)])
def test_bd_8_who_acts_while_dying(can_act, refused):
    """BD-8: "stabilised means alive but unable to act" — an unstabilised dying bandit
    still moves (Decision D4, default); the setting ``dying_can_act`` off bars it."""
    t = table(dying_can_act=can_act)
    bandit(t, {4})
    if refused:
        with pytest.raises(RuleViolation) as barred:
            move(t, [3, 3])
        assert barred.value.code == "cannot_act"
    else:
        assert move(t, [3, 3])["total"] == 6
