"""Each rule BD-1..BD-11 by number (the harm table's bands are in test_bandits_table.py)."""

from __future__ import annotations

from itertools import product

import pytest

from rollbridge.dice import SeededDice
from rollbridge.exceptions import InvalidParams, RuleViolation

# -- BD-1 move roll ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("dice", "band", "extra"),
    [
        ([1, 5], "miss", False),  # 6
        ([1, 6], "partial", False),  # 7
        ([4, 5], "partial", False),  # 9
        ([4, 6], "full", False),  # 10
        ([5, 6], "full", False),  # 11
        ([6, 6], "full", True),  # 12
    ],
)
def test_BD1_bands_at_their_edges(kit, dice, band, extra):
    ana = kit.bandit("ana")
    move = kit.run("move", {}, dice=dice, actor=ana)
    assert move.outcome["total"] == sum(dice)
    assert move.outcome["band"] == band
    assert move.outcome["extra_result"] is extra


def test_BD1_extra_result_counts_the_modifier(kit):
    """12+ is on the total: 5 + 5 + 2 = 12."""
    ana = kit.bandit("ana", stats={"cool": 2})
    move = kit.run("move", {"stat": "cool"}, dice=[5, 5], actor=ana)
    assert move.outcome["total"] == 12 and move.outcome["extra_result"] is True


def test_BD1_penalties_clamp_at_minus_4(kit):
    ana = kit.bandit("ana", stats={"hard": -3})
    move = kit.run(
        "move",
        {"stat": "hard", "modifiers": [{"label": "wounded arm", "value": -2}, -1]},
        dice=[6, 6],
        actor=ana,
    )
    assert move.outcome["modifier_raw"] == -6
    assert move.outcome["modifier"] == -4
    assert move.outcome["total"] == 8
    labels = [t["label"] for t in move.outcome["terms"]]
    assert labels == ["stat hard", "wounded arm", "modifier 2"]
    assert "clamped to −4" in move.steps[0]


def test_BD1_modifiers_within_range_are_not_clamped(kit):
    ana = kit.bandit("ana", stats={"cool": 2})
    move = kit.run("move", {"stat": "cool", "modifiers": [1]}, dice=[3, 3], actor=ana)
    assert move.outcome["modifier"] == 3 and move.outcome["clamped"] is False
    assert move.dice[0].formula == "2d6+3"
    assert move.dice[0].total == 9


def test_BD1_stat_names_are_case_insensitive_and_unknown_ones_refused(kit):
    ana = kit.bandit("ana", stats={"Cool": 1})
    move = kit.run("move", {"stat": "cool"}, dice=[3, 3], actor=ana)
    assert move.outcome["modifier"] == 1
    with pytest.raises(InvalidParams, match=r"params\.stat"):
        kit.run("move", {"stat": "charm"}, dice=[3, 3], actor=ana)


# -- BD-2 advantage ---------------------------------------------------------------


def test_BD2_advantage_rolls_3_and_drops_the_lowest(kit):
    ana = kit.bandit("ana")
    move = kit.run("move", {"advantage": True}, dice=[1, 5, 6], actor=ana)
    assert move.outcome["dice_mode"] == "advantage"
    assert move.outcome["dice"] == [1, 5, 6]
    assert move.outcome["kept"] == [5, 6] and move.outcome["dropped"] == 1
    assert move.outcome["total"] == 11
    dice = move.dice[0].dice
    assert len(dice) == 3
    assert not dice[0].kept and "dropped" in dice[0].tags
    assert dice[1].kept and dice[2].kept
    assert move.dice[0].formula == "3d6kh2"


def test_BD2_disadvantage_rolls_3_and_drops_the_highest(kit):
    ana = kit.bandit("ana")
    move = kit.run("move", {"disadvantage": True}, dice=[4, 6, 2], actor=ana)
    assert move.outcome["kept"] == [4, 2] and move.outcome["dropped"] == 6
    assert move.outcome["total"] == 6
    assert not move.dice[0].dice[1].kept


def test_BD2_advantage_and_disadvantage_cancel_to_2d6(kit):
    ana = kit.bandit("ana")
    # Only two dice are supplied: ScriptedDice would fail if a third were rolled.
    move = kit.run("move", {"advantage": True, "disadvantage": True}, dice=[2, 3], actor=ana)
    assert move.outcome["dice_mode"] == "cancelled"
    assert move.outcome["dice"] == [2, 3] and move.outcome["dropped"] is None


def test_BD2_advantage_odds_match_the_exact_distribution_seeded(kit):
    """Seeded: the share of 10+ on 3d6-keep-2 vs its exact probability, within 5 sigma."""
    exact = sum(1 for d in product(range(1, 7), repeat=3) if sum(sorted(d)[1:]) >= 10) / 216
    ana = kit.bandit("ana")
    source = SeededDice(2024, limit=10**6)
    trials = 4000
    hits = sum(
        kit.resolve(kit.context("move", {"advantage": True}, actor=ana), source).outcome["total"]
        >= 10
        for _ in range(trials)
    )
    sigma = (exact * (1 - exact) / trials) ** 0.5
    assert abs(hits / trials - exact) < 5 * sigma
    assert exact > 1 / 6  # and advantage beats plain 2d6 (6/36)


# -- BD-3 harm roll ---------------------------------------------------------------


def test_BD3_taking_harm_subtracts_steady_and_armour_adds_attacker_pierce(kit):
    boris = kit.bandit("boris", stats={"steady": 2}, armour=1)
    thug = kit.bandit("thug", pierce=3)
    hit = kit.run("harm", {"direction": "taken"}, dice=[4, 4], actor=thug, targets=[boris])
    assert hit.outcome["total"] == 8 - 2 - 1 + 3
    assert hit.outcome["roller"] == "boris"
    assert [t["value"] for t in hit.outcome["terms"]] == [8, -2, -1, 3]
    assert hit.dice[0].formula == "2d6-2-1+3"


def test_BD3_dealing_harm_ignores_the_targets_steady(kit):
    ana = kit.bandit("ana", pierce=2)
    boris = kit.bandit("boris", stats={"steady": 3}, armour=3)
    hit = kit.run("harm", {"direction": "dealt"}, dice=[5, 5], actor=ana, targets=[boris])
    assert hit.outcome["total"] == 10 - 3 + 2
    assert hit.outcome["roller"] == "ana"


def test_BD3_harm_is_not_clamped(kit):
    """Decision: no ±4 clamp on harm; Pierce 10 on 6 + 6 reaches 22."""
    ana = kit.bandit("ana", pierce=10)
    guard = kit.extra("guard")
    hit = kit.run("harm", {"direction": "dealt"}, dice=[6, 6], actor=ana, targets=[guard])
    assert hit.outcome["total"] == 22
    assert hit.outcome["table_wounds"] == 7


def test_BD3_pierce_param_overrides_the_sheet_and_stands_in_for_a_missing_attacker(kit):
    ana = kit.bandit("ana", pierce=1)
    boris = kit.bandit("boris")
    hit = kit.run(
        "harm", {"direction": "dealt", "pierce": 4}, dice=[1, 1], actor=ana, targets=[boris]
    )
    assert hit.outcome["total"] == 6 and hit.outcome["pierce_from"] == "given"
    alone = kit.run("harm", {"direction": "taken", "pierce": 4}, dice=[1, 1], targets=[boris])
    assert alone.outcome["total"] == 6 and alone.outcome["attacker"] is None
    with pytest.raises(InvalidParams, match=r"params\.pierce"):
        kit.run("harm", {"direction": "taken"}, dice=[1, 1], targets=[boris])


def test_BD3_an_actor_cannot_harm_itself(kit):
    ana = kit.bandit("ana")
    with pytest.raises(InvalidParams, match="targets"):
        kit.run("harm", {"direction": "dealt"}, dice=[1, 1], actor=ana, targets=[ana])


# -- BD-4 two light weapons -----------------------------------------------------------


def test_BD4_pierce_choice_adds_1_and_is_kept_for_the_turn(kit):
    ana = kit.bandit("ana", pierce=1, two_light_weapons=True)
    guard = kit.extra("guard")
    hit = kit.run(
        "harm",
        {"direction": "dealt", "attacker_dual_wield": "pierce"},
        dice=[2, 2],
        actor=ana,
        targets=[guard],
    )
    assert hit.outcome["total"] == 4 + 1 + 1
    assert hit.states["ana"]["dual_wield"] == "pierce"
    ana = kit.apply(ana, hit)
    # Omitted: this turn's choice applies again.
    again = kit.run("harm", {"direction": "dealt"}, dice=[2, 2], actor=ana, targets=[guard])
    assert again.outcome["total"] == 6
    assert again.outcome["dual_wield"]["attacker"] == "pierce"
    assert "ana" not in again.states  # nothing new to record


def test_BD4_armour_choice_protects_the_target(kit):
    boris = kit.bandit("boris", armour=1, two_light_weapons=True)
    hit = kit.run(
        "harm",
        {"direction": "taken", "pierce": 2, "target_dual_wield": "armour"},
        dice=[4, 4],
        targets=[boris],
    )
    assert hit.outcome["total"] == 8 - 1 - 1 + 2
    assert hit.states["boris"]["dual_wield"] == "armour"


def test_BD4_an_armour_choice_adds_nothing_to_the_attackers_pierce(kit):
    ana = kit.bandit("ana", pierce=1, two_light_weapons=True)
    guard = kit.extra("guard")
    hit = kit.run(
        "harm",
        {"direction": "dealt", "attacker_dual_wield": "armour"},
        dice=[2, 2],
        actor=ana,
        targets=[guard],
    )
    assert hit.outcome["total"] == 5


def test_BD4_needs_two_light_weapons(kit):
    ana = kit.bandit("ana")
    guard = kit.extra("guard")
    with pytest.raises(RuleViolation) as err:
        kit.run(
            "harm",
            {"direction": "dealt", "attacker_dual_wield": "pierce"},
            dice=[2, 2],
            actor=ana,
            targets=[guard],
        )
    assert err.value.code == "no_two_light_weapons"


def test_BD4_the_choice_cannot_change_within_a_turn_but_can_next_turn(kit):
    ana = kit.bandit("ana", two_light_weapons=True, dual_wield="pierce")
    guard = kit.extra("guard")
    params = {"direction": "dealt", "attacker_dual_wield": "armour"}
    with pytest.raises(RuleViolation) as err:
        kit.run("harm", params, dice=[2, 2], actor=ana, targets=[guard])
    assert err.value.code == "dual_wield_locked"
    started = kit.ruleset.on_turn_start(kit.turn(ana), SeededDice(1))
    ana = kit.apply(ana, started)
    assert ana.state["dual_wield"] is None
    hit = kit.run("harm", params, dice=[2, 2], actor=ana, targets=[guard])
    assert hit.states["ana"]["dual_wield"] == "armour"


def test_BD4_the_end_of_turn_action_releases_the_choice(kit):
    ana = kit.bandit("ana", two_light_weapons=True, dual_wield="armour")
    ended = kit.run("end_of_turn", actor=ana)
    assert ended.states["ana"]["dual_wield"] is None


# -- BD-5 trouble, reduction (bands: test_bandits_table.py) ---------------------------------


def test_BD5_3_or_less_is_trouble_for_whoever_rolled(kit):
    boris = kit.bandit("boris", armour=2)
    taken = kit.run("harm", {"direction": "taken", "pierce": 0}, dice=[2, 3], targets=[boris])
    assert taken.outcome["total"] == 3 and taken.outcome["wounds"] == 0
    assert taken.outcome["trouble"] is True and taken.outcome["trouble_for"] == "boris"
    assert kit.slots(taken.states["boris"]) == set()
    ana = kit.bandit("ana")
    dealt = kit.run("harm", {"direction": "dealt"}, dice=[1, 2], actor=ana, targets=[boris])
    assert dealt.outcome["trouble_for"] == "ana"


def test_BD5_a_bandit_may_take_1_wound_instead_of_the_trouble(kit):
    boris = kit.bandit("boris")
    hit = kit.run(
        "harm",
        {"direction": "taken", "pierce": 0, "wound_instead_of_trouble": True},
        dice=[1, 2],
        targets=[boris],
    )
    assert hit.outcome["wounds"] == 1 and hit.outcome["trouble"] is False
    assert kit.slots(hit.states["boris"]) == {1}


def test_BD5_wound_instead_of_trouble_is_ignored_above_3(kit):
    boris = kit.bandit("boris")
    hit = kit.run(
        "harm",
        {"direction": "taken", "pierce": 0, "wound_instead_of_trouble": True},
        dice=[4, 4],
        targets=[boris],
    )
    assert hit.outcome["wounds"] == 2 and hit.outcome["wound_instead_of_trouble"] is False


def test_BD5_only_a_bandit_taking_harm_may_swap_trouble_for_a_wound(kit):
    ana, guard = kit.bandit("ana"), kit.extra("guard")
    with pytest.raises(InvalidParams, match="wound_instead_of_trouble"):
        kit.run(
            "harm",
            {"direction": "dealt", "wound_instead_of_trouble": True},
            dice=[1, 1],
            actor=ana,
            targets=[guard],
        )


def test_BD5_the_gm_may_reduce_the_wounds(kit):
    boris = kit.bandit("boris")
    hit = kit.run(
        "harm", {"direction": "taken", "pierce": 0, "reduction": 1}, dice=[5, 5], targets=[boris]
    )
    assert hit.outcome["table_wounds"] == 3 and hit.outcome["wounds"] == 2
    assert hit.outcome["slot"] == 2
    with pytest.raises(RuleViolation) as err:
        kit.run(
            "harm",
            {"direction": "taken", "pierce": 0, "reduction": 1},
            dice=[5, 5],
            targets=[boris],
            by_gm=False,
        )
    assert err.value.code == "reduction_needs_gm"


# -- BD-6 statuses of a bandit ---------------------------------------------------------


def _hit(kit, bandit, total):
    """A taking-harm roll of exactly ``total`` (2..12) with Pierce 0."""
    first = min(6, total - 1)
    result = kit.run(
        "harm", {"direction": "taken", "pierce": 0}, dice=[first, total - first], targets=[bandit]
    )
    return result, kit.apply(bandit, result)


@pytest.mark.parametrize(
    ("before", "total", "after", "slot"),
    [
        (set(), 5, {1}, 1),  # 1 wound, slot 1 free
        (set(), 11, {3}, 3),  # 3 wounds mark slot 3, never a lighter one
        ({1}, 5, {1, 2}, 2),  # slot 1 taken: nearest free above
        ({2, 3}, 8, {2, 3, 4}, 4),  # 2 wounds, 2 and 3 taken: slot 4, dying
        ({1, 3}, 8, {1, 2, 3}, 2),
        ({4}, 5, {1, 4}, 1),  # a dying bandit can still mark a free lighter slot
    ],
)
def test_BD6_marks_slot_n_or_the_nearest_free_above(kit, before, total, after, slot):
    bandit = kit.bandit("boris", slots=before)
    result, bandit = _hit(kit, bandit, total)
    assert kit.slots(bandit) == after
    assert result.outcome["slot"] == slot
    assert bandit.state["dead"] is False


def test_BD6_five_or_more_wounds_is_death(kit):
    boris = kit.bandit("boris")
    hit = kit.run("harm", {"direction": "taken", "pierce": 4}, dice=[6, 6], targets=[boris])
    assert hit.outcome["wounds"] == 5
    assert hit.states["boris"]["dead"] is True
    assert hit.outcome["slot"] is None and "more than 4" in hit.outcome["reason"]


def test_BD6_no_free_slot_up_to_4_is_death(kit):
    result, boris = _hit(kit, kit.bandit("boris", slots={2, 3, 4}), 8)
    assert boris.state["dead"] is True
    assert result.outcome["result"] == "dead"
    assert kit.slots(boris) == {2, 3, 4}  # nothing was unmarked


def test_BD6_gm_reduction_applies_before_marking(kit):
    boris = kit.bandit("boris")
    hit = kit.run(
        "harm", {"direction": "taken", "pierce": 4, "reduction": 2}, dice=[6, 6], targets=[boris]
    )  # 16 → 5 wounds − 2 = 3
    assert hit.outcome["wounds"] == 3 and hit.outcome["slot"] == 3


# -- BD-7 heavily wounded -----------------------------------------------------------


def test_BD7_heavily_wounded_moves_have_disadvantage(kit):
    boris = kit.bandit("boris", slots={3})
    move = kit.run("move", {}, dice=[6, 6, 1], actor=boris)
    assert move.outcome["disadvantage_from"] == ["heavily wounded (BD-7)"]
    assert move.outcome["total"] == 7
    common = kit.ruleset.common_state(boris)
    assert common.status == "impaired"
    assert "Heavily wounded" in common.to_dict()["conditions"]
    assert "disadvantage" in common.to_dict()["modifier_note"]


def test_BD7_advantage_cancels_the_heavy_wound_disadvantage(kit):
    boris = kit.bandit("boris", slots={3})
    move = kit.run("move", {"advantage": True}, dice=[6, 6], actor=boris)
    assert move.outcome["dice_mode"] == "cancelled" and move.outcome["total"] == 12


def test_BD7_disadvantage_ends_when_slot_3_is_cleared(kit):
    boris = kit.bandit("boris", slots={3})
    healed = kit.apply(boris, kit.run("medpack", {"n": 3}, targets=[boris]))
    move = kit.run("move", {}, dice=[6, 6], actor=healed)
    assert move.outcome["disadvantage"] is False


def test_BD7_harm_rolls_are_not_affected(kit):
    boris = kit.bandit("boris", slots={3})
    guard = kit.extra("guard")
    hit = kit.run("harm", {"direction": "dealt"}, dice=[6, 6], actor=boris, targets=[guard])
    assert hit.outcome["dice"] == [6, 6]


# -- BD-8 dying ---------------------------------------------------------------------


def test_BD8_dying_dies_at_the_end_of_its_next_own_turn(kit):
    """Started dying outside its turn: its next turn begins (countdown armed), ends: dead."""
    ana = kit.bandit("ana", slots={4})
    started = kit.ruleset.on_turn_start(kit.turn(ana), SeededDice(1))
    assert started is not None and started.outcome["dying_countdown"] is True
    ana = kit.apply(ana, started)
    ended = kit.ruleset.on_turn_end(kit.turn(ana), SeededDice(1))
    assert ended is not None
    ana = kit.apply(ana, ended)
    assert ana.state["dead"] is True and ana.state["dying"] is False


def test_BD8_starting_to_die_during_its_own_turn_leaves_one_more_turn(kit):
    ana = kit.bandit("ana")
    ana = kit.apply(ana, kit.ruleset.on_turn_start(kit.turn(ana), SeededDice(1)))
    hit = kit.run("harm", {"direction": "taken", "pierce": 2}, dice=[6, 6], targets=[ana])
    ana = kit.apply(ana, hit)
    assert ana.state["dying"] is True
    assert kit.ruleset.on_turn_end(kit.turn(ana), SeededDice(1)) is None  # survives this end
    ana = kit.apply(ana, kit.ruleset.on_turn_start(kit.turn(ana), SeededDice(1)))
    ana = kit.apply(ana, kit.ruleset.on_turn_end(kit.turn(ana), SeededDice(1)))
    assert ana.state["dead"] is True


def test_BD8_stabilised_in_time_survives_but_cannot_act(kit):
    ana = kit.bandit("ana", slots={4}, dying_turn_started=True)
    doc = kit.bandit("doc")
    saved = kit.run("stabilise", {"means": "doc"}, actor=doc, targets=[ana])
    ana = kit.apply(ana, saved)
    assert ana.state["stabilised"] is True and ana.state["dying"] is True
    assert kit.ruleset.on_turn_end(kit.turn(ana), SeededDice(1)) is None
    assert kit.ruleset.common_state(ana).status == "down"
    with pytest.raises(RuleViolation) as err:
        kit.run("move", {}, dice=[3, 3], actor=ana)
    assert err.value.code == "cannot_act"


def test_BD8_end_of_turn_action_kills_an_unstabilised_dying_bandit(kit):
    ana = kit.bandit("ana", slots={2, 4})
    ended = kit.run("end_of_turn", actor=ana)
    assert ended.states["ana"]["dead"] is True
    calm = kit.run("end_of_turn", actor=kit.bandit("boris", slots={2}))
    assert calm.states == {}


def test_BD8_a_dying_bandit_acts_unless_the_table_bars_it(kit):
    """BD-8 bars only the stabilised ("stabilised means alive but unable to act"):
    an unstabilised dying bandit still moves and deals harm, unless the table turns
    `dying_can_act` off (Decision D4)."""
    ana = kit.bandit("ana", slots={4}, stats={"cool": 1})
    move = kit.run("move", {"stat": "cool"}, dice=[3, 4], actor=ana)
    assert move.outcome["total"] == 8 and move.outcome["band"] == "partial"
    harm = kit.run("harm", {"direction": "dealt"}, dice=[3, 3], actor=ana,
                   targets=[kit.extra("guard")])  # fmt: skip
    assert harm.outcome["wounds"] == 1
    with pytest.raises(RuleViolation) as err:
        kit.run("move", {}, dice=[3, 3], actor=ana, settings={"dying_can_act": False})
    assert err.value.code == "cannot_act"


def test_BD8_stabilise_refusals(kit):
    for actor, code in [
        (kit.bandit("ana"), "not_dying"),
        (kit.bandit("ana", slots={4}, stabilised=True), "already_stabilised"),
        (kit.bandit("ana", dead=True), "target_dead"),
        (kit.extra("guard"), "not_a_bandit"),
    ]:
        with pytest.raises(RuleViolation) as err:
            kit.run("stabilise", {}, targets=[actor])
        assert err.value.code == code


def test_BD8_through_the_engine_nobody_has_to_remember(ruleset_harness, kit):
    """A real table and encounter: the dying bandit dies when its next turn ends."""
    table = ruleset_harness(kit.ruleset)
    ana = table.add_actor("Ana", {"kind": "bandit"}, actor_id="ana", player=True)
    guard = table.add_actor("Guard", {"kind": "extra", "pierce": 2}, actor_id="guard")
    table.request({"type": "encounter.start", "order": [ana, guard]})
    table.request({"type": "encounter.next"})  # Ana's turn ends, the guard's begins
    # During the guard's turn Ana takes 14: 4 wounds, dying.
    table.resolve("harm", actor=guard, targets=[ana], params={"direction": "taken"}, dice=[6, 6])
    assert table.state(ana)["dying"] is True
    table.request({"type": "encounter.next"})  # the guard's turn ends, Ana's begins
    assert table.state(ana)["dying_turn_started"] is True
    assert table.state(ana)["dead"] is False
    table.request({"type": "encounter.next"})  # Ana's turn ends: BD-8
    assert table.state(ana)["dead"] is True
    assert table.actor(ana)["common"]["status"] == "dead"


# -- BD-9 extras ----------------------------------------------------------------------


def test_BD9_two_wounds_in_one_hit_take_an_extra_out(kit):
    ana, guard = kit.bandit("ana"), kit.extra("guard")
    hit = kit.run("harm", {"direction": "dealt"}, dice=[4, 4], actor=ana, targets=[guard])
    assert hit.outcome["wounds"] == 2 and hit.outcome["result"] == "out"
    assert hit.states["guard"]["out"] is True


def test_BD9_hits_apply_in_order_across_attackers(kit):
    ana, boris, guard = kit.bandit("ana"), kit.bandit("boris"), kit.extra("guard")
    miss = kit.run("harm", {"direction": "dealt"}, dice=[1, 1], actor=ana, targets=[guard])
    guard = kit.apply(guard, miss)
    assert guard.state == {"kind": "extra", "wounded": False, "out": False, "dual_wield": None}
    first = kit.run("harm", {"direction": "dealt"}, dice=[2, 2], actor=ana, targets=[guard])
    guard = kit.apply(guard, first)
    assert guard.state["wounded"] and not guard.state["out"]
    second = kit.run("harm", {"direction": "dealt"}, dice=[2, 2], actor=boris, targets=[guard])
    assert kit.apply(guard, second).state["out"] is True


def test_BD9_an_extra_that_is_out_cannot_be_hit_or_act(kit):
    ana, guard = kit.bandit("ana"), kit.extra("guard", wounded=True, out=True)
    with pytest.raises(RuleViolation) as err:
        kit.run("harm", {"direction": "dealt"}, dice=[2, 2], actor=ana, targets=[guard])
    assert err.value.code == "target_out"
    with pytest.raises(RuleViolation) as err:
        kit.run("harm", {"direction": "taken"}, dice=[2, 2], actor=guard, targets=[ana])
    assert err.value.code == "cannot_act"


# -- BD-10 medpacks -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "n", "after"),
    [
        ({2, 3}, 1, {1, 3}),  # the seed's example
        ({2, 3}, 3, {2}),  # the seed's example
        ({1, 3}, 2, {3}),  # the most serious slot ≤ 2 is 1: cleared
        ({3}, 1, {2}),  # reduced by 1
        ({3}, 2, {1}),  # reduced by 2
        ({2, 4}, 1, {1, 4}),  # slot 4 is never touched
        ({1, 2, 3}, 2, {1, 3}),
    ],
)
def test_BD10_medpack(kit, before, n, after):
    bandit = kit.bandit("ana", slots=before)
    healed = kit.run("medpack", {"n": n}, actor=kit.bandit("doc"), targets=[bandit])
    assert kit.slots(healed.states["ana"]) == after


def test_BD10_medpack_never_clears_dying(kit):
    ana = kit.bandit("ana", slots={4})
    with pytest.raises(RuleViolation) as err:
        kit.run("medpack", {"n": 3}, targets=[ana])
    assert err.value.code == "medpack_cannot_help"


# -- BD-11 end of raid ----------------------------------------------------------------


def test_BD11_end_of_raid_heals_everyone_except_a_kept_wound(kit):
    ana = kit.bandit("ana", slots={1, 3})
    boris = kit.bandit("boris", slots={2, 4}, stabilised=True)
    dead = kit.bandit("cid", slots={1, 2, 3, 4}, dead=True)
    guard = kit.extra("guard", wounded=True)
    done = kit.run("end_of_raid", {"kept_wounds": {"ana": 3}}, targets=[ana, boris, dead, guard])
    assert kit.slots(done.states["ana"]) == {3}
    assert kit.slots(done.states["boris"]) == set()
    assert done.states["boris"]["stabilised"] is False and done.states["boris"]["dying"] is False
    assert done.states["cid"]["dead"] is True
    assert "guard" not in done.states
    assert done.outcome["bandits"]["ana"]["kept"] == 3


def test_BD11_the_kept_wound_must_be_marked(kit):
    ana = kit.bandit("ana", slots={1})
    with pytest.raises(RuleViolation) as err:
        kit.run("end_of_raid", {"kept_wounds": {"ana": 2}}, targets=[ana])
    assert err.value.code == "kept_wound_not_marked"


def test_BD11_refuses_while_someone_is_dying_unstabilised(kit):
    ana = kit.bandit("ana", slots={4})
    with pytest.raises(RuleViolation) as err:
        kit.run("end_of_raid", {}, targets=[ana, kit.bandit("boris", slots={1})])
    assert err.value.code == "dying_not_resolved"


def test_BD11_kept_wounds_name_bandits_of_the_table(kit):
    ana, guard = kit.bandit("ana", slots={1}), kit.extra("guard", wounded=True)
    with pytest.raises(InvalidParams, match=r"kept_wounds\.nobody"):
        kit.run("end_of_raid", {"kept_wounds": {"nobody": 1}}, targets=[ana, guard])
    with pytest.raises(RuleViolation) as err:
        kit.run("end_of_raid", {"kept_wounds": {"guard": 1}}, targets=[ana, guard])
    assert err.value.code == "not_a_bandit"


# -- BD-7's variant as a table setting (Core issue, item 7) --------------------------


def _heavily_wounded_then_healed(lasting: bool):
    from rollbridge.plugins.bandits import BanditsRuleset
    from rollbridge.testing import RulesetHarness

    table = RulesetHarness(
        BanditsRuleset(), settings={"ruleset": {"heavy_wound_lasts_the_raid": lasting}}
    )
    sheets = BanditsRuleset.example_sheets
    table.add_actor("Boris", sheets["Boris"], actor_id="boris", player=True)
    table.add_actor("Guard", sheets["Guard"], actor_id="guard")
    # 6 + 5 = 11 against Boris: 3 wounds (BD-5), slot 3 marked (BD-6)
    table.resolve("harm", actor="guard", targets=["boris"], params={"direction": "dealt"},
                  dice=[6, 5])  # fmt: skip
    assert table.state("boris")["slots"]["heavily"] is True
    table.resolve("medpack", targets=["boris"], params={"n": 3})  # BD-10 clears slot 3
    assert table.state("boris")["slots"]["heavily"] is False
    return table


def test_bd7_by_default_the_medpack_that_clears_slot_3_clears_the_disadvantage():
    table = _heavily_wounded_then_healed(lasting=False)
    move = table.resolve("move", actor="boris", params={"stat": "cool"}, dice=[3, 4])
    assert move["data"]["outcome"]["dice_mode"] == "normal"
    assert "Disadvantage on moves" not in table.actor("boris")["common"]["conditions"]


def test_bd7_variant_keeps_the_disadvantage_until_the_raid_ends():
    table = _heavily_wounded_then_healed(lasting=True)
    assert table.state("boris")["heavy_this_raid"] is True
    move = table.resolve("move", actor="boris", params={"stat": "cool"}, dice=[3, 4, 5])
    outcome = move["data"]["outcome"]
    assert outcome["dice_mode"] == "disadvantage" and outcome["dice"] == [3, 4, 5]
    assert outcome["disadvantage_from"] == ["heavily wounded (BD-7)"]
    assert "Disadvantage on moves" in table.actor("boris")["common"]["conditions"]
    table.resolve("end_of_raid", params={"kept_wounds": {}})  # BD-11
    assert table.state("boris")["heavy_this_raid"] is False
    after = table.resolve("move", actor="boris", params={"stat": "cool"}, dice=[3, 4])
    assert after["data"]["outcome"]["dice_mode"] == "normal"


def _bandit_table(lasting: bool, boris_state: dict | None = None):
    """A table with Boris (a bandit, in ``boris_state`` if given) and a guard."""
    from rollbridge.plugins.bandits import BanditsRuleset
    from rollbridge.testing import RulesetHarness

    table = RulesetHarness(
        BanditsRuleset(), settings={"ruleset": {"heavy_wound_lasts_the_raid": lasting}}
    )
    sheets = BanditsRuleset.example_sheets
    table.add_actor("Boris", sheets["Boris"], actor_id="boris", player=True, state=boris_state)
    table.add_actor("Guard", sheets["Guard"], actor_id="guard")
    return table


def _slot_3_kept_from_the_last_raid(table):
    table.resolve("harm", actor="guard", targets=["boris"], params={"direction": "dealt"},
                  dice=[6, 5])  # fmt: skip
    table.resolve("end_of_raid", params={"kept_wounds": {"boris": 3}})  # BD-11


def _slot_3_marked_by_the_gm(table):
    # BD-6: a hit of 3 wounds, by the GM's hand
    table.request({"type": "adjust", "actor": "boris", "track": "wounds", "delta": 3})


WAYS_TO_SLOT_3 = {
    "a wound kept from the last raid": _slot_3_kept_from_the_last_raid,
    "the GM's adjust": _slot_3_marked_by_the_gm,
    "a bandit joining heavily wounded": None,
}


@pytest.mark.parametrize("way", WAYS_TO_SLOT_3)
@pytest.mark.parametrize("lasting", [True, False])
def test_bd7_variant_a_heavy_wound_from_anywhere_lasts_once_a_medpack_clears_it(way, lasting):
    """BD-7's variant: "a bandit once heavily wounded keeps the disadvantage until the
    raid ends, even after a medpack clears slot 3" — whether a harm roll of this raid
    marked slot 3 or not; by default the medpack removes the effect with the status."""
    joining = {"slots": {"heavily": True}} if WAYS_TO_SLOT_3[way] is None else None
    table = _bandit_table(lasting, joining)
    if WAYS_TO_SLOT_3[way] is not None:
        WAYS_TO_SLOT_3[way](table)
    assert table.state("boris")["slots"]["heavily"] is True
    table.resolve("medpack", targets=["boris"], params={"n": 3})  # BD-10 clears slot 3
    assert table.state("boris")["slots"]["heavily"] is False
    assert table.state("boris")["heavy_this_raid"] is lasting
    dice = [1, 5, 6] if lasting else [1, 5]
    move = table.resolve("move", actor="boris", params={"stat": "cool"}, dice=dice)
    outcome = move["data"]["outcome"]
    assert outcome["dice_mode"] == ("disadvantage" if lasting else "normal")
    assert outcome["dice"] == dice
    table.resolve("end_of_raid", params={"kept_wounds": {}})
    after = table.resolve("move", actor="boris", params={"stat": "cool"}, dice=[1, 5])
    assert after["data"]["outcome"]["dice_mode"] == "normal"


@pytest.mark.parametrize("lasting", [True, False])
def test_bd7_variant_a_medpack_moving_slot_3_down_keeps_the_disadvantage(lasting):
    table = _bandit_table(lasting, {"slots": {"heavily": True}})
    table.resolve("medpack", targets=["boris"], params={"n": 1})  # slot 3 → slot 2
    slots = table.state("boris")["slots"]
    assert slots["heavily"] is False and slots["seriously"] is True
    move = table.resolve("move", actor="boris", params={"stat": "cool"},
                         dice=[1, 5, 6] if lasting else [1, 5])  # fmt: skip
    assert move["data"]["outcome"]["dice_mode"] == ("disadvantage" if lasting else "normal")


def test_bd7_variant_a_medpack_on_a_lighter_wound_sets_nothing():
    table = _bandit_table(True, {"slots": {"lightly": True}})
    table.resolve("medpack", targets=["boris"], params={"n": 1})
    assert table.state("boris")["heavy_this_raid"] is False
    move = table.resolve("move", actor="boris", params={"stat": "cool"}, dice=[1, 5])
    assert move["data"]["outcome"]["dice_mode"] == "normal"
