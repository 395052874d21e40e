"""Tests of the example ruleset, written with rollbridge's own pytest harness."""

import pytest
from rollbridge_hitpoints.ruleset import HitPoints, lost_schema

from rollbridge.exceptions import Forbidden, OddsHidden, RuleViolation
from rollbridge.testing import PLAYER, RulesetConformance


class TestHitPointsConforms(RulesetConformance):
    """The conformance suite every ruleset must pass (in every language it ships:
    ``locales = ("cs", "de", "ru")`` would require these ones)."""

    ruleset = HitPoints()
    #: only a hurt actor is healed: the Fighter, whom the example heals, has lost 3
    #: hit points just before it (he starts unhurt, and would never be healed)
    action_states = {"heal": {"Fighter": {"lost": 3}}}


@pytest.fixture
def table(ruleset_harness):
    harness = ruleset_harness(HitPoints())
    harness.add_actor("Fighter", HitPoints.example_sheets["Fighter"], actor_id="f", player=True)
    harness.add_actor("Goblin", HitPoints.example_sheets["Goblin"], actor_id="g")
    return harness


def test_a_hit_rolls_damage_and_takes_hit_points(table):
    # d20 = 9, +5 = 14 >= AC 13: a hit; damage 1d8+3 with a 4 = 7
    event = table.resolve("attack", actor="f", targets=["g"], dice=[9, 4])
    assert event["data"]["outcome"]["hit"] is True
    assert table.state("g")["lost"] == 7
    assert table.actor("g")["common"]["status"] == "down"


def test_a_miss_changes_nothing(table):
    event = table.resolve("attack", actor="f", targets=["g"], dice=[7])  # 12 < 13
    assert event["data"]["outcome"]["hit"] is False
    assert table.state("g")["lost"] == 0


def test_a_natural_20_doubles_the_damage_dice(table):
    table.resolve("attack", actor="g", targets=["f"], dice=[20, 1, 2])  # 1 + 2 + 2 = 5
    assert table.state("f")["lost"] == 5


@pytest.mark.parametrize(
    ("damage", "dice", "lost"),
    [
        ("1d8-1", [5, 3], 7),  # two d8, one -1: 5 + 3 - 1 (the penalty was doubled: 6)
        ("2d6+1d4+3", [1, 2, 3, 4, 5, 2], 20),  # four d6 and two d4, one +3
        ("(1d6+1)*2", [2, 3], 12),  # the factor scales both rolls: (2 + 1) * 2 + 3 * 2
        ("4", [], 4),  # no dice to double
        ("1d8*(2+1)", [5, 3], 24),  # a factor of numbers scales both rolls: 5 * 3 + 3 * 3
    ],
)
def test_a_critical_hit_rolls_the_dice_twice_and_adds_the_modifiers_once(
    ruleset_harness, damage, dice, lost
):
    """A critical hit rolled ``(1d8-1)+(1d8-1)``: the formula's part before its first
    ``+`` again, so a penalty counted twice, and of ``2d6+1d4+3`` only the 2d6 were
    rolled again. The README says a natural 20 doubles the damage dice."""
    harness = ruleset_harness(HitPoints())
    harness.add_actor("Duelist", {"hp": 30, "attack_bonus": 0, "damage": damage}, actor_id="d")
    harness.add_actor("Ogre", {"hp": 40, "ac": 30}, actor_id="o")
    event = harness.resolve("attack", actor="d", targets=["o"], dice=[20, *dice])
    assert event["data"]["outcome"]["critical"] is True
    assert harness.state("o")["lost"] == lost


def test_healing_is_for_the_gm(table):
    table.resolve("attack", actor="f", targets=["g"], dice=[15, 1])
    with pytest.raises(Forbidden):
        table.resolve("heal", targets=["g"], params={"amount": 2}, who=PLAYER)
    table.resolve("heal", targets=["g"], params={"amount": 2})
    assert table.state("g")["lost"] == 2
    table.resolve("heal", targets=["g"], params={"amount": 9})
    with pytest.raises(RuleViolation, match="lost no hit points"):
        table.resolve("heal", targets=["g"], params={"amount": 1})


def test_players_see_the_dice_but_not_an_npc_armour_class(table):
    table.resolve("attack", actor="f", targets=["g"], dice=[9, 4])  # 14 against AC 13
    gm, player = table.views()
    assert gm["data"]["steps"][0] == "attack 9 +5 = 14 against AC 13"
    assert gm["data"]["dice"][0]["target"] == 13 and gm["data"]["outcome"]["lost"] == 7
    assert player["data"]["steps"][0] == "attack 9 +5 = 14 against AC (hidden)"
    assert "target" not in player["data"]["dice"][0] and "lost" not in player["data"]["outcome"]
    assert player["data"]["narration"] == gm["data"]["narration"] == "Fighter hits Goblin for 7"
    # the fighter is a player's: the goblin's attack on him shows his AC to everyone
    table.resolve("attack", actor="g", targets=["f"], dice=[2])
    assert table.views()[1]["data"]["steps"][0] == "attack 2 +4 = 6 against AC 16"


def test_players_see_an_npcs_status_but_not_its_hit_points(table):
    """The goblin's hit points are Private in results, so its view leaves its track
    out too (the default ``player_view`` showed it in ``actors[].common.tracks``)."""
    table.resolve("attack", actor="f", targets=["g"], dice=[9, 1])  # 1d8+3 = 4 of 7
    gm, player = table.views()
    [goblin] = [a for a in player["actors"] if a["id"] == "g"]
    assert goblin["common"]["status"] == "impaired" and goblin["common"]["tracks"] == []
    [seen] = [a for a in gm["actors"] if a["id"] == "g"]
    assert [(t["value"], t["max"]) for t in seen["common"]["tracks"]] == [(4, 7)]
    assert table.actor("f", gm=False)["common"]["tracks"]  # a player's own actor: shown


def test_its_actions_have_words_for_forms_in_each_language():
    """Labels and hints are texts of the plugin's catalogue: each reader's language."""
    assert HitPoints().describe("en")["actions"]["attack"]["label"] == "Attack"
    attack = HitPoints().describe("de")["actions"]["attack"]
    assert attack["label"] == "Angriff"
    assert attack["labels"] == {"modifier": "Modifikator"}
    assert set(attack["hints"]) == {"modifier"}
    assert attack["summary"].startswith("1W20 + ")


def test_its_dice_are_written_as_each_language_writes_them():
    """German wrote W20, Czech and Russian kept the English d20: dice read as the
    built-in rulesets' do in each language (2W6, 2k6, 2к6)."""
    for locale, die in (("cs", "k20"), ("de", "W20"), ("ru", "к20")):
        attack = HitPoints().describe(locale)["actions"]["attack"]
        assert attack["summary"].startswith(f"1{die} + "), (locale, attack["summary"])
        assert f" {die}" in attack["hints"]["modifier"], (locale, attack["hints"])


def test_it_reads_in_czech(table):
    """Narration, steps and refusals come from the catalogues it ships (locale/)."""
    table.resolve("attack", actor="f", targets=["g"], dice=[9, 4])  # 14 against AC 13
    gm, player = table.views(locale="cs")
    # The name stands after "cíl" (target), which declines for it: "zasáhne Goblin"
    # read as if Goblin, an animate noun, were left in the nominative.
    assert gm["data"]["narration"] == "Fighter zasahuje cíl Goblin: zranění 7"
    assert player["data"]["steps"][0] == "útok 9 +5 = 14 proti OČ (skryto)"
    with pytest.raises(RuleViolation) as refused:
        table.resolve("heal", targets=["f"], params={"amount": 1})
    # Whoever the actor is: "nepřišel" said a man, a past tense agrees with gender.
    assert refused.value.render("cs") == "Fighter nemá žádné ztracené životy"
    assert refused.value.render("ru") == "у цели Fighter нет потерянных хитов"
    assert refused.value.render("de") == "Fighter hat keine Trefferpunkte verloren"


def _odds(table, **fields):
    request = {"type": "odds", "action": "attack", "actor": "f", "targets": ["g"], "params": {}}
    reply = table.request({**request, **fields.pop("extra", {})}, **fields)
    return {o["outcome"]: o["probability"] for o in reply["odds"]["outcomes"]}


def test_the_odds_of_an_attack_follow_the_rules_resolve_applies(table):
    """1d20 + 5 against AC 13: faces 8 to 19 hit, a 20 is a critical hit, a 1 misses."""
    assert _odds(table) == {"critical hit": "1/20", "hit": "3/5", "miss": "7/20"}


def test_a_player_states_the_armour_class_they_cannot_see(table):
    """The Goblin's sheet is the GM's: a player's odds come from the AC they assume
    (its view hides sheet and state, so both are stated)."""
    with pytest.raises(OddsHidden):
        _odds(table, who=PLAYER)
    assume = {"g": {"sheet": {"hp": 7, "ac": 15}, "state": {}}}
    assert _odds(table, who=PLAYER, extra={"assume": assume}) == {
        "critical hit": "1/20", "hit": "1/2", "miss": "9/20"}  # fmt: skip


def test_the_state_schemas_kept_are_bounded():
    """One schema per hit-point total, which is a GM's choice: a server running for
    months with ever more distinct totals keeps at most 1,024 of them."""
    for hp in range(1, 3_000):
        assert lost_schema(hp)["properties"]["lost"]["maximum"] == hp
    assert lost_schema.cache_info().currsize <= 1_024
