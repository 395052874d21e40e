"""Independent cases for the ``wilddie`` ruleset, each computed by hand from the rules
file (docs/sources/rules/wilddie.md, WD-1 to WD-10), not from the code: aces of every
die size, the wild die, ties at the difficulty, raises, untrained, derived values,
range and size, every damage threshold and both wound settings, the wound track, chips
and recovery. Every case runs on the real table engine
(:class:`~rollbridge.testing.RulesetHarness`) with supplied dice, and cites the rule
it follows."""

from __future__ import annotations

from typing import Any

import pytest

from rollbridge.dice import ScriptedDice
from rollbridge.exceptions import RollbridgeError, RuleViolation
from rollbridge.plugins.wilddie import WildDieRuleset
from rollbridge.testing import PLAYER, RulesetHarness

ATTRIBUTES = ("strength", "vigor", "coordination", "reaction", "intuition", "character")


def sheet(
    kind: str = "pc", skills: dict[str, str] | None = None, **attributes: str
) -> dict[str, Any]:
    """A sheet of ``kind`` with every attribute d6 unless given, and ``skills``."""
    attrs = {name: attributes.pop(name, "d6") for name in ATTRIBUTES}
    return {"kind": kind, "attributes": attrs, "skills": skills or {}, **attributes}


def table(**settings: Any) -> RulesetHarness:
    """A table running wilddie with ``settings`` as its ruleset settings."""
    return RulesetHarness(WildDieRuleset(), settings={"ruleset": settings} if settings else None)


def trait(t: RulesetHarness, dice: list[int], actor: str = "a", **params: Any) -> dict[str, Any]:
    """A trait test of ``actor``; its outcome."""
    return t.resolve("trait", actor=actor, params=params, dice=dice)["data"]["outcome"]


def damage(t: RulesetHarness, rolls: list[int], target: str = "v", **params: Any) -> dict[str, Any]:
    """The GM's damage roll on ``target`` with the supplied ``rolls``; its outcome."""
    return t.resolve("damage", targets=[target], params=params, dice=rolls)["data"]["outcome"]


@pytest.mark.parametrize(
    ("die", "rolls", "value"),
    [
        ("d4", [4, 4, 1], 9),
        ("d6", [6, 6, 2], 14),
        ("d8", [8, 1], 9),
        ("d12", [12, 3], 15),
        ("d10", [9], 9),
    ],
)
def test_wd_2_trait_die_aces(die, rolls, value):
    """WD-2: "on its maximum it is rolled again and added, as long as it keeps hitting
    the maximum (d6: 6 + 6 + 2 = 14)" — an NPC, so the trait die alone."""
    t = table()
    t.add_actor("Npc", sheet("npc", character=die), actor_id="a")
    out = trait(t, rolls, trait="character")
    assert out["trait_die"]["value"] == value
    assert out["total"] == value


def test_wd_2_the_wild_die_aces_too():
    """WD-3: "the wild d6 (which aces too)" — acceptance 3: d8 shows 2, the wild die
    6 then 3 = 9: kept, success against 4 with one raise (9 − 4 = 5: one full 4)."""
    t = table()
    t.add_actor("Ana", sheet(skills={"fighting": "d8"}), actor_id="a")
    out = trait(t, [2, 6, 3], trait="fighting")
    assert (out["kept"], out["total"], out["success"], out["raises"]) == ("wild", 9, True, 1)


@pytest.mark.parametrize(
    ("roll", "difficulty", "success", "raises"),
    [
        (3, 4, False, 0),  # below
        (4, 4, True, 0),  # "success when ≥": exactly the difficulty
        (7, 4, True, 0),  # 3 above: not a full 4
        (8, 4, True, 1),  # "each full 4 above the difficulty"
        (11, 4, True, 1),
        (10, 2, True, 2),  # 8 above: two raises
        (10, 6, True, 1),
        (9, 6, True, 0),
    ],
)
def test_wd_3_success_and_raises(roll, difficulty, success, raises):
    """WD-3: "success when ≥ … Report raises: each full 4 above the difficulty". An NPC
    with a d12 (no wild die, no ace below 12)."""
    t = table()
    t.add_actor("Npc", sheet("npc", character="d12"), actor_id="a")
    out = trait(t, [roll], trait="character", difficulty=difficulty)
    assert (out["total"], out["success"], out["raises"]) == (roll, success, raises)


def test_wd_3_npc_has_no_wild_die():
    """WD-3 and acceptance 4: "NPCs never do": an NPC's d6 showing 3 against 4 fails,
    and one die only is rolled."""
    t = table()
    t.add_actor("Npc", sheet("npc"), actor_id="a")
    out = trait(t, [3], trait="vigor")
    assert out["success"] is False
    assert out["wild_die"] is None


def test_wd_3_modifiers_apply_to_both_dice():
    """WD-3: the wild die rolls "with the same modifiers and keeps the better": d6 2
    and wild 5, −2 → 0 and 3: kept 3, a failure against 4."""
    t = table()
    t.add_actor("Ana", sheet(), actor_id="a")
    out = trait(t, [2, 5], trait="intuition", modifiers=[{"value": -2, "note": "dark"}])
    assert (out["kept"], out["total"], out["success"]) == ("wild", 3, False)


def test_wd_1_untrained_rolls_d4_minus_two():
    """WD-1: "An untrained skill rolls d4 − 2": an NPC with no Stealth rolls a d4; 4
    aces (4 + 2 = 6), − 2 = 4: a success against 4."""
    t = table()
    t.add_actor("Npc", sheet("npc"), actor_id="a")
    out = trait(t, [4, 2], trait="stealth")
    assert out["trait_die"]["faces"] == 4
    assert (out["total"], out["success"]) == (4, True)


@pytest.mark.parametrize(
    ("fighting", "defense"), [("d4", 4), ("d6", 5), ("d8", 6), ("d10", 7), ("d12", 8), (None, 2)]
)
def test_wd_5_defense(fighting, defense):
    """WD-5: "Defense = 2 + half the Fighting die (untrained: 2)": a melee attack's
    difficulty. The attacker is an NPC whose Fighting d12 shows 1."""
    t = table()
    t.add_actor("Npc", sheet("npc", skills={"fighting": "d12"}), actor_id="a")
    skills = {"fighting": fighting} if fighting else {}
    t.add_actor("Victim", sheet("npc", skills=skills), actor_id="v")
    out = t.resolve("attack", actor="a", targets=["v"], params={"mode": "melee"}, dice=[1])
    assert out["data"]["outcome"]["difficulty"] == defense


@pytest.mark.parametrize(
    ("vigor", "armor", "toughness"), [("d4", 0, 4), ("d8", 0, 6), ("d12", 0, 8), ("d6", 2, 7)]
)
def test_wd_5_toughness(vigor, armor, toughness):
    """WD-5: "Toughness = 2 + half the Vigor die, plus worn armour"."""
    t = table()
    t.add_actor("Victim", sheet("npc", vigor=vigor, armor=armor), actor_id="v")
    out = damage(t, [1], dice="d6")
    assert out["toughness"] == toughness


@pytest.mark.parametrize(
    ("range_", "size", "difficulty"),
    [
        ("short", "normal", 4),
        ("medium", "normal", 6),
        ("long", "normal", 8),
        ("medium", "large", 4),
    ],
)
def test_wd_6_ranged_difficulty(range_, size, difficulty):
    """WD-6: "Ranged: Shooting against 4 / 6 / 8 for short / medium / long range,
    adjusted for target size"."""
    t = table()
    t.add_actor("Npc", sheet("npc", skills={"shooting": "d8"}), actor_id="a")
    t.add_actor("Victim", sheet("npc"), actor_id="v")
    out = t.resolve(
        "attack",
        actor="a",
        targets=["v"],
        params={"mode": "ranged", "range": range_, "size": size},
        dice=[1],
    )
    assert out["data"]["outcome"]["difficulty"] == difficulty


@pytest.mark.parametrize(
    ("total", "shaken_before", "result", "wounds", "shaken"),
    [
        (5, False, "none", 0, False),  # total < T
        (6, False, "shaken", 0, True),  # exactly T
        (9, False, "shaken", 0, True),  # T + 3
        (10, False, "wound", 1, True),  # exactly T + 4; "a wounded character is also Shaken"
        (6, True, "wound", 1, True),  # T while Shaken → a wound
        (5, True, "none", 0, True),  # below T while Shaken: nothing, still Shaken
        (14, False, "wound", 1, True),  # T + 8: still one wound (setting "one")
    ],
)
def test_wd_7_damage_thresholds(total, shaken_before, result, wounds, shaken):
    """WD-7 and acceptance 2: Toughness 6 (Vigor d8). "total ≥ T + 4 → a wound; T ≤
    total < T + 4 → Shaken, or a wound if the target is already Shaken; total < T →
    nothing." A d20 weapon (no ace below 20) gives the exact total."""
    t = table()
    state = {"shaken": True} if shaken_before else None
    t.add_actor("Victim", sheet(vigor="d8"), actor_id="v", state=state)
    out = damage(t, [total], dice="d20")
    assert (out["result"], out["wounds_inflicted"]) == (result, wounds)
    got = t.state("v")
    assert (got["wounds"], got["shaken"]) == (wounds, shaken)


@pytest.mark.parametrize(("total", "wounds"), [(10, 1), (13, 1), (14, 2), (17, 2), (18, 3)])
def test_wd_7_per_raise_setting(total, wounds):
    """WD-7's setting ``per_raise``: "one more wound per further raise" — T 6: 10 is
    one raise, 14 two, 18 three."""
    t = table(wounds_per_hit="per_raise")
    t.add_actor("Victim", sheet(vigor="d8"), actor_id="v")
    out = damage(t, [total], dice="d20")
    assert out["wounds_inflicted"] == wounds
    assert t.state("v")["wounds"] == wounds


def test_wd_7_damage_never_gets_the_wild_die_and_melee_adds_strength():
    """WD-7: "Damage dice ace, no wild die; melee damage includes the Strength die":
    Strength d6 6 + 2 = 8 (an ace) and d8 shows 3: 11 against T 5 → a wound; three
    dice only are drawn."""
    t = table()
    t.add_actor("Ana", sheet(strength="d6"), actor_id="a")
    t.add_actor("Victim", sheet("npc", vigor="d6"), actor_id="v")
    out = t.resolve(
        "damage", actor="a", targets=["v"], params={"dice": "d8", "melee": True}, dice=[6, 2, 3]
    )
    out = out["data"]["outcome"]
    assert out["total"] == 11
    assert out["result"] == "wound"


def test_wd_8_npc_is_out_at_its_first_wound():
    """WD-8: "An NPC is out at its first wound"."""
    t = table()
    t.add_actor("Victim", sheet("npc", vigor="d8"), actor_id="v")
    damage(t, [10], dice="d20")
    got = t.state("v")
    assert got["incapacitated"] is True
    assert t.actor("v")["common"]["status"] == "down"


@pytest.mark.parametrize(("wounds", "modifier"), [(1, -1), (2, -2), (3, -3)])
def test_wd_8_wound_modifier(wounds, modifier):
    """WD-8: "each −1 to trait rolls (at most −3)": a PC's d6 5 and wild 1, minus
    the wounds."""
    t = table()
    t.add_actor("Ana", sheet(), actor_id="a", state={"wounds": wounds})
    out = trait(t, [5, 1], trait="vigor")
    assert out["total"] == 5 + modifier


def test_wd_8_fourth_wound_incapacitates():
    """WD-8: "a fourth wound leaves the character incapacitated": a PC on 3 wounds
    wounded again; the track stays at 3."""
    t = table()
    t.add_actor("Ana", sheet(vigor="d8"), actor_id="a", state={"wounds": 3})
    damage(t, [10], target="a", dice="d20")
    got = t.state("a")
    assert (got["wounds"], got["incapacitated"]) == (3, True)


def test_wd_8_two_wounds_per_raise_on_two_wounds_incapacitate():
    """WD-8 with WD-7's ``per_raise``: 2 wounds + 2 more (T + 8) is a fourth: out."""
    t = table(wounds_per_hit="per_raise")
    t.add_actor("Ana", sheet(vigor="d8"), actor_id="a", state={"wounds": 2})
    damage(t, [14], target="a", dice="d20")
    assert t.state("a")["incapacitated"] is True


def test_wd_4_chip_rerolls_one_die_once():
    """WD-4 and acceptance 5: "Spending one rerolls one die of a roll … at most one
    chip per roll": the trait die 1 rerolled to 5 (wild 2 stays); a second chip on
    the same roll is refused and changes nothing."""
    t = table()
    t.add_actor("Ana", sheet(), actor_id="a")
    first = trait(t, [1, 2], trait="vigor")
    roll = first["roll"]
    chip = t.resolve("chip", actor="a", params={"roll": roll, "die": "trait"}, dice=[5])
    out = chip["data"]["outcome"]
    assert (out["total"], out["success"], out["chips_left"]) == (5, True, 2)
    before = t.state("a")
    with pytest.raises(RuleViolation) as refused:
        t.resolve("chip", actor="a", params={"roll": roll, "die": "wild"}, dice=[6, 1])
    assert refused.value.code == "chip_already_spent"
    assert t.state("a") == before


def test_wd_4_no_chip_left_is_an_error():
    """WD-4: "Spending a chip one does not have is a clear error"."""
    t = table()
    t.add_actor("Ana", {**sheet(), "chips": 0}, actor_id="a")
    trait(t, [1, 2], trait="vigor")
    before = t.state("a")
    with pytest.raises(RollbridgeError) as refused:
        t.resolve("chip", actor="a", params={"die": "trait"}, dice=[5])
    assert refused.value.code == "no_chips"
    assert t.state("a") == before


def test_wd_4_whole_roll_setting_rerolls_both():
    """WD-4's setting ``whole_roll``: both dice are rolled again."""
    t = table(chip_reroll="whole_roll")
    t.add_actor("Ana", sheet(), actor_id="a")
    trait(t, [1, 2], trait="vigor")
    out = t.resolve("chip", actor="a", params={}, dice=[3, 4])["data"]["outcome"]
    assert out["total"] == 4


def test_wd_9_recovery_ends_shaken_on_four():
    """WD-9: "a Shaken character rolls Character … against 4; success ends Shaken":
    an NPC's d6 showing 4 exactly."""
    t = table()
    t.add_actor("Npc", sheet("npc"), actor_id="a", state={"shaken": True})
    t.resolve("recover", actor="a", params={}, dice=[4])
    assert t.state("a")["shaken"] is False


def test_wd_9_recovery_fails_below_four():
    """WD-9: a 3 stays Shaken."""
    t = table()
    t.add_actor("Npc", sheet("npc"), actor_id="a", state={"shaken": True})
    t.resolve("recover", actor="a", params={}, dice=[3])
    assert t.state("a")["shaken"] is True


def test_wd_8_wounds_do_not_lower_damage():
    """WD-8: the wound penalty is "−1 to trait rolls"; damage is not a trait roll
    (WD-7): a PC on 2 wounds deals Strength d6 3 + d8 4 = 7 against T 8 → nothing."""
    t = table()
    t.add_actor("Ana", sheet(), actor_id="a", state={"wounds": 2})
    t.add_actor("Victim", sheet("npc", vigor="d12"), actor_id="v")
    out = t.resolve(
        "damage", actor="a", targets=["v"], params={"dice": "d8", "melee": True}, dice=[3, 4]
    )
    out = out["data"]["outcome"]
    assert (out["total"], out["result"]) == (7, "none")


def test_wd_1_untrained_pc_keeps_the_better_die():
    """WD-1 with WD-3: untrained d4 − 2 for a PC, who also rolls the wild d6 "with the
    same modifiers": d4 1, wild 5, − 2 → −1 and 3: kept 3, a failure."""
    t = table()
    t.add_actor("Ana", sheet(), actor_id="a")
    out = trait(t, [1, 5], trait="stealth")
    assert (out["kept"], out["total"], out["success"]) == ("wild", 3, False)


def test_wd_10_a_player_rolls_only_for_its_own_character():
    """WD-10: "A player may roll only for the characters that player controls": the
    player's roll for the GM's NPC is refused as ``forbidden`` and changes nothing;
    for its own character it is accepted."""
    t = table()
    t.add_actor("Ana", sheet(), actor_id="a", player=True)
    t.add_actor("Npc", sheet("npc"), actor_id="n")
    before = t.state("n")
    with pytest.raises(RollbridgeError) as refused:
        t.resolve("trait", actor="n", params={"trait": "vigor"}, dice=[4], who=PLAYER)
    assert refused.value.code == "forbidden"
    assert t.state("n") == before
    mine = t.resolve("trait", actor="a", params={"trait": "vigor"}, dice=[4, 1], who=PLAYER)
    assert mine["data"]["outcome"]["success"] is True


@pytest.mark.parametrize(("die", "shaken"), [(4, False), (3, True)])
def test_wd_9_recovery_at_the_start_of_its_turn(die, shaken):
    """WD-9: "At the start of its turn a Shaken character rolls Character … against 4;
    success ends Shaken" — the encounter's first turn is the Shaken NPC's."""
    t = table()
    t.add_actor("Npc", sheet("npc"), actor_id="n", state={"shaken": True})
    t.request({"type": "encounter.start", "order": ["n"]}, dice=ScriptedDice([die]))
    assert t.state("n")["shaken"] is shaken


def test_wd_4_the_player_picks_the_wild_die():
    """WD-4: "the trait die or the wild die, the player's pick": d6 3 and wild 1
    (a failure against 4); the chip rerolls the wild die to 6 + 2 = 8 (it aces):
    kept 8, one raise; the trait die 3 stays."""
    t = table()
    t.add_actor("Ana", sheet(), actor_id="a")
    trait(t, [3, 1], trait="vigor")
    out = t.resolve("chip", actor="a", params={"die": "wild"}, dice=[6, 2])["data"]["outcome"]
    assert (out["kept"], out["total"], out["raises"]) == ("wild", 8, 1)
    assert out["trait_die"]["value"] == 3


def test_wd_4_the_gm_awards_chips_back():
    """WD-4: "Each player character starts with 3 … The GM awards chips back": 3,
    one spent (2), one awarded (3 again)."""
    t = table()
    t.add_actor("Ana", sheet(), actor_id="a")
    assert t.state("a")["chips"] == 3
    trait(t, [1, 2], trait="vigor")
    t.resolve("chip", actor="a", params={"die": "trait"}, dice=[5])
    assert t.state("a")["chips"] == 2
    t.resolve("award_chips", targets=["a"], params={"count": 1})
    assert t.state("a")["chips"] == 3


@pytest.mark.parametrize(
    ("wounds", "dice", "shaken"), [(0, [2, 4], False), (1, [2, 4], True), (1, [2, 5], False)]
)
def test_wd_9_a_pc_recovers_with_the_wild_die(wounds, dice, shaken):
    """WD-9: "rolls Character (with the wild die if a player character) against 4" —
    the Character d6 shows 2, the wild die 4 or 5: kept; WD-8's "−1 to trait rolls"
    per wound applies to this trait roll too: 4 − 1 = 3 fails, 5 − 1 = 4 succeeds."""
    t = table()
    t.add_actor("Ana", sheet(), actor_id="a", state={"shaken": True, "wounds": wounds})
    out = t.resolve("recover", actor="a", params={}, dice=dice)["data"]["outcome"]
    assert (out["kept"], out["total"]) == ("wild", dice[1] - wounds)
    assert t.state("a")["shaken"] is shaken
