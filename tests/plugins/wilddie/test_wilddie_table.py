"""wilddie on the real table engine (rollbridge.testing's harness): WD-10 who
rolls, supplied dice, chips named by request id, visibility, the WD-9 turn hook."""

from __future__ import annotations

import pytest

from rollbridge.dice import ScriptedDice
from rollbridge.exceptions import Forbidden
from rollbridge.plugins.wilddie import WildDieRuleset
from rollbridge.testing import GM, PLAYER, RulesetHarness

ATTRS = {
    a: "d6" for a in ("strength", "vigor", "coordination", "reaction", "intuition", "character")
}
ANA = {"kind": "pc", "attributes": {**ATTRS, "vigor": "d8"}, "skills": {"notice": "d8"}}
GUARD = {"kind": "npc", "attributes": ATTRS, "skills": {"fighting": "d6"}, "chips": 2}


def _table(**settings):
    harness = RulesetHarness(WildDieRuleset(), settings=settings or None)
    harness.add_actor("Ana", ANA, actor_id="ana", player=True)
    harness.add_actor("Guard", GUARD, actor_id="guard")
    return harness


def _unchanged(harness, call):
    """``call`` is refused with Forbidden and changes no state and no seq."""
    states = {a: harness.state(a) for a in ("ana", "guard")}
    seq = harness.table.info.seq
    with pytest.raises(Forbidden) as err:
        call()
    assert err.value.code == "forbidden"
    assert {a: harness.state(a) for a in ("ana", "guard")} == states
    assert harness.table.info.seq == seq
    return err.value


def test_WD10_player_rolls_only_for_the_characters_it_controls():
    table = _table()
    event = table.resolve("trait", actor="ana", params={"trait": "notice"}, dice=[5, 1], who=PLAYER)
    assert event["data"]["outcome"]["total"] == 5
    _unchanged(
        table,
        lambda: table.resolve(
            "trait", actor="guard", params={"trait": "vigor"}, dice=[5], who=PLAYER
        ),
    )
    # the GM rolls for anyone
    event = table.resolve("trait", actor="guard", params={"trait": "vigor"}, dice=[5], who=GM)
    assert event["data"]["outcome"]["success"] is True


def test_WD10_supplied_dice_only_from_the_controlling_player():
    table = _table(player_dice=True)
    reply = table.request(
        {
            "type": "resolve",
            "action": "trait",
            "actor": "ana",
            "params": {"trait": "notice"},
            "dice": [2, 6, 3],
        },
        who=PLAYER,
    )
    data = reply["event"]["data"]
    assert data["supplied"] is True
    assert data["outcome"]["total"] == 9 and data["outcome"]["raises"] == 1  # example 3
    _unchanged(
        table,
        lambda: table.request(
            {
                "type": "resolve",
                "action": "trait",
                "actor": "guard",
                "params": {"trait": "vigor"},
                "dice": [6, 1],
            },
            who=PLAYER,
        ),
    )


@pytest.mark.parametrize("player_dice", [False, True])
def test_WD10_a_players_damage_roll_names_a_character_it_controls(player_dice):
    """WD-10: "A player may roll only for the characters that player controls; the GM
    for any." A damage roll for no character, or for one another controls, is the
    GM's; with supplied dice too ("accepted only from such a player")."""
    table = _table(player_dice=player_dice)
    dice = [10, 1] if player_dice else None
    for actor in (None, "guard"):
        request = {"type": "resolve", "action": "damage", "targets": ["guard"],
                   "params": {"dice": "d10"}}  # fmt: skip
        if actor is not None:
            request["actor"] = actor
        if dice is not None:
            request["dice"] = dice
        error = _unchanged(table, lambda request=request: table.request(request, who=PLAYER))
        # no actor named: the ruleset's refusal, marked so by the table (docs/protocol.md,
        # "Error codes"); an actor not the player's: the server's own, unmarked
        ruleset = {"field": "actor", "origin": "ruleset"}
        assert error.details == (ruleset if actor is None else {"actor": "guard"})
    # nor are the odds of such a roll the player's to ask
    odds = {"type": "odds", "action": "damage", "targets": ["ana"], "params": {"dice": "d10"}}
    _unchanged(table, lambda: table.request(odds, who=PLAYER))
    assert table.request(odds, who=GM)["odds"]["outcomes"]
    # the player's own attacker: allowed; the GM rolls damage for no one (a trap)
    own = table.resolve("damage", actor="ana", targets=["guard"], params={"dice": "d10"},
                        dice=[10, 1], who=PLAYER)  # fmt: skip
    assert own["data"]["outcome"]["total"] == 11
    trap = table.resolve("damage", targets=["ana"], params={"dice": "d6"}, dice=[3], who=GM)
    assert trap["data"]["outcome"]["total"] == 3


def test_WD10_the_refusal_of_a_players_damage_roll_reads_in_every_locale():
    table = _table()
    error = _unchanged(
        table,
        lambda: table.resolve("damage", targets=["guard"], params={"dice": "d6"}, who=PLAYER),
    )
    english = str(error)
    assert "name the attacker" in english
    for locale in ("cs", "de", "ru"):
        assert error.render(locale) != english, locale


def test_WD4_chip_names_the_engine_request_and_only_for_own_character():
    table = _table()
    table.request(
        {
            "type": "resolve",
            "id": "look-1",
            "action": "trait",
            "actor": "ana",
            "params": {"trait": "notice"},
        },
        who=PLAYER,
        dice=ScriptedDice([1, 2]),
    )
    table.request(
        {
            "type": "resolve",
            "id": "g-1",
            "action": "trait",
            "actor": "guard",
            "params": {"trait": "vigor"},
        },
        who=GM,
        dice=ScriptedDice([1]),
    )
    _unchanged(
        table,
        lambda: table.resolve("chip", actor="guard", params={"roll": "g-1"}, dice=[4], who=PLAYER),
    )
    event = table.resolve("chip", actor="ana", params={"roll": "look-1"}, dice=[7], who=PLAYER)
    assert event["data"]["outcome"]["roll"] == "look-1"
    assert event["data"]["outcome"]["total"] == 7
    assert table.state("ana")["chips"] == 2


def test_WD4_awarding_chips_is_for_the_gm():
    table = _table()
    _unchanged(table, lambda: table.resolve("award_chips", targets=["ana"], who=PLAYER))
    table.resolve("award_chips", targets=["ana"], params={"count": 2}, who=GM)
    assert table.state("ana")["chips"] == 5


def test_players_see_an_npcs_shaken_and_wounds_not_its_sheet():
    table = _table()
    table.resolve("damage", actor="ana", targets=["guard"], params={"dice": "d10"}, dice=[6])
    seen = table.actor("guard", gm=False)
    assert seen["sheet"] is None
    assert seen["state"] == {"shaken": True, "wounds": 0, "incapacitated": False}
    assert seen["common"]["conditions"] == ["Shaken"]
    assert seen["common"]["tracks"][0]["max"] == 1
    assert "chips" not in seen["state"]
    # the GM sees everything; a player sees its own character fully
    assert table.actor("guard")["sheet"]["skills"] == {"fighting": "d6"}
    assert table.actor("ana", gm=False)["state"]["chips"] == 3


def test_setting_show_npc_details_shows_the_sheet():
    table = _table(ruleset={"show_npc_details": True})
    seen = table.actor("guard", gm=False)
    assert seen["sheet"]["attributes"]["vigor"] == "d6"
    assert seen["state"]["chips"] == 2


def test_WD9_shaken_character_recovers_at_the_start_of_its_turn():
    table = _table()
    table.resolve("damage", targets=["guard"], params={"dice": "d10"}, dice=[5])  # T5: Shaken
    assert table.state("guard")["shaken"] is True
    reply = table.request(
        {"type": "encounter.start", "order": ["guard", "ana"]}, dice=ScriptedDice([4])
    )
    hooks = reply["event"]["data"]["hooks"]
    recovery = [h for h in hooks if h["hook"] == "on_turn_start"]
    assert recovery and recovery[0]["outcome"]["recovered"] is True
    assert table.state("guard")["shaken"] is False


def test_WD9_the_player_may_supply_the_recoveryScriptedDice():
    """Ana alone in the encounter: her player ends her turn and supplies the dice of
    her next turn's recovery roll (the engine lets a player end only its own turn)."""
    table = _table(player_dice=True)
    table.request({"type": "encounter.start", "order": ["ana"]}, dice=ScriptedDice([]))
    table.resolve("damage", targets=["ana"], params={"dice": "d12"}, dice=[6])  # T6: Shaken
    reply = table.request({"type": "encounter.next", "dice": [1, 4]}, who=PLAYER)
    hooks = [h for h in reply["event"]["data"]["hooks"] if h["hook"] == "on_turn_start"]
    outcome = hooks[0]["outcome"]
    assert outcome["dice_supplied"] is True
    assert outcome["round"] == 2
    assert outcome["kept"] == "wild" and outcome["recovered"] is True
    assert table.state("ana")["shaken"] is False


def test_WD9_another_player_may_not_supply_the_recoveryScriptedDice():
    table = _table(player_dice=True)
    table.resolve("damage", targets=["guard"], params={"dice": "d10"}, dice=[5])
    # the guard's turn starts: only the GM may supply its dice
    _unchanged(
        table,
        lambda: table.request(
            {"type": "encounter.start", "order": ["guard", "ana"], "dice": [4]}, who=PLAYER
        ),
    )


def _recovered_once():
    """Ana, Shaken, recovers (remembered roll); returns the table and that roll's id."""
    table = RulesetHarness(WildDieRuleset())
    table.add_actor("Ana", ANA, actor_id="ana", player=True, state={"shaken": True})
    table.add_actor("Guard", GUARD, actor_id="guard")
    event = table.resolve("recover", actor="ana", dice=[5, 1], who=PLAYER)
    assert event["data"]["outcome"]["recovered"] is True
    assert table.state("ana")["shaken_ended_by"] == event["data"]["outcome"]["roll"]
    return table, event["data"]["outcome"]["roll"]


def _shaken_by_damage(table):
    table.resolve("damage", targets=["ana"], params={"dice": "d10"}, dice=[7], who=GM)
    assert table.state("ana")["shaken"] is True and "shaken_ended_by" not in table.state("ana")


def _ended_by_the_gm(table):
    _shaken_by_damage(table)
    table.resolve("heal", targets=["ana"], params={"wounds": 0, "unshake": True}, who=GM)


def _ended_by_a_secret_recovery(table):
    _shaken_by_damage(table)
    reply = table.request({"type": "resolve", "action": "recover", "actor": "ana", "params": {},
                           "secret": True}, who=GM, dice=ScriptedDice([5, 1]))  # fmt: skip
    assert reply["event"]["gm_only"] is True
    assert len(table.state("ana")["rolls"]) == 1, "a secret roll is not remembered"


@pytest.mark.parametrize("since", [_ended_by_the_gm, _ended_by_a_secret_recovery])
def test_WD9_a_chip_failing_a_recovery_whose_shaken_ended_otherwise_since_changes_nothing(since):
    """WD-4 with WD-9: a chip undoes a recovery's ending of Shaken only while that
    ending stands: after damage Shaken again and the GM's unshake, or a secret
    recovery (not remembered), the old roll ended nothing that is still so."""
    table, roll = _recovered_once()
    since(table)
    assert table.state("ana")["shaken"] is False
    chip = table.resolve("chip", actor="ana", params={"roll": roll, "die": "trait"}, dice=[1],
                         who=PLAYER)  # fmt: skip
    assert chip["data"]["outcome"]["success"] is False
    assert table.state("ana")["shaken"] is False


def test_WD9_a_chip_failing_the_recovery_brings_shaken_back_through_the_engine():
    table, roll = _recovered_once()
    # the GM's adjust of wounds leaves Shaken as it is: the recovery still ended it
    table.request({"type": "adjust", "actor": "ana", "track": "wounds", "delta": 1})
    chip = table.resolve("chip", actor="ana", params={"roll": roll, "die": "trait"}, dice=[1],
                         who=PLAYER)  # fmt: skip
    assert chip["data"]["outcome"]["recovered"] is False
    assert table.state("ana")["shaken"] is True and "shaken_ended_by" not in table.state("ana")
    again = table.resolve("recover", actor="ana", dice=[6, 3, 1], who=PLAYER)
    assert again["data"]["outcome"]["recovered"] is True and table.state("ana")["shaken"] is False
