"""No number of an NPC's sheet or hidden state reaches players unless the table
reveals it: every action (and the round-start hook) with NPC participants, through
the real engine, the players' whole view searched for distinctive numbers; with the
revealing setting on, the resolution shows them. Also: the texts are data, every
message declared once and called with its declared arguments, and players never
see a placeholder or an undeclared message."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import pytest

from rollbridge.contract import Ruleset, TurnContext
from rollbridge.dice import SeededDice
from rollbridge.plugins.sr2 import SR2Ruleset
from rollbridge.plugins.sr2 import messages as sr2_messages
from rollbridge.plugins.sr2.privacy import ASPECTS, DETAILS, POOL, SHEET
from rollbridge.testing import RulesetHarness, all_keys
from rollbridge.text import Message, Private, Text, message

#: A player's character: small, ordinary numbers.
TUKAN = {
    "body": 5,
    "combat_pool": 6,
    "weapons": [{"name": "Hackler", "code": "7M", "skill": 7, "recoil_compensation": 3}],
}
#: The NPC: numbers no other value of these resolutions takes.
GUARD = {
    "body": 47,
    "combat_pool": 71,
    "armor": {"ballistic": 83, "impact": 91},
    "weapons": [{"name": "Rifle", "code": "9M", "skill": 59, "recoil_compensation": 67}],
}
#: The guard's sheet numbers, and the resistance TNs built from them: power 10 or 7
#: − armour 83 = −73 or −76.
SHEET_NUMBERS = {47, 71, 83, 91, 59, 67, 73, 76}
#: The guard's hidden state: 64 pool dice left; when dying, overflow 37 (38 after a bleed).
FIT = {"stun": 0, "physical": 0, "overflow": 0, "pool": 64, "stabilised": False}
DYING = {**FIT, "physical": 10, "overflow": 37}
STATE_NUMBERS = {64, 37, 38}
#: The Body and armour the GM gives for the guard in one damage (TN 10 − 89 = −79).
GIVEN_NUMBERS = {43, 89, 79}
SECRET = SHEET_NUMBERS | STATE_NUMBERS | GIVEN_NUMBERS
BOTH_ON = {"show_npc_sheet": True, "show_npc_details": True}


def table(settings: dict[str, Any], guard_state: dict[str, Any]) -> RulesetHarness:
    harness = RulesetHarness(SR2Ruleset(), settings={"ruleset": settings})
    harness.add_actor("Tukan", TUKAN, actor_id="tukan", player=True)
    harness.add_actor("Guard", GUARD, actor_id="guard", state=guard_state)
    return harness


def numbers(value: Any) -> set[int]:
    """Every whole number written anywhere in ``value``'s JSON (signs dropped)."""
    return {int(n) for n in re.findall(r"\d+", json.dumps(value))}


# -- the actions, each with the guard (an NPC) taking part ----------------------------


def attack_on_the_guard(harness: RulesetHarness) -> None:
    """Tukan's short-range shot: 7 dice at TN 4, 7 successes; the guard resists with
    Body 47 + pool 2 = 49 dice at TN 2 (7 − 83, floored), 49 successes: no damage."""
    params = {"weapon": "Hackler", "range": "short", "defender_pool": 2}
    harness.resolve("attack", actor="tukan", targets=["guard"], params=params, dice=[5] * 56)


def burst_by_the_guard(harness: RulesetHarness) -> None:
    """The guard's 3-round burst (12S; recoil 3 − 67 → 0): 59 + 2 = 61 dice at TN 4;
    Tukan resists with 5 dice at TN 12."""
    params = {"weapon": "Rifle", "rounds": 3, "range": "short", "attacker_pool": 2}
    harness.resolve("attack", actor="guard", targets=["tukan"], params=params, dice=[4] * 66)


def shot_by_the_guard(harness: RulesetHarness) -> None:
    """One round, the GM's skill 2 + pool 1: a miss. The TN (short range 4) shows,
    the compensation does not."""
    params = {"weapon": "Rifle", "range": "short", "attacker_pool": 1, "skill": 2}
    harness.resolve("attack", actor="guard", targets=["tukan"], params=params, dice=[1, 2, 3])


def guard_shoots_itself(harness: RulesetHarness) -> None:
    """1 die at TN 3 hits; Body 47 + pool 2 = 49 dice at TN 6 − 83 → 2 resist."""
    params = {"code": "6L", "skill": 1, "tn": 3, "defender_pool": 2}
    harness.resolve("attack", actor="guard", targets=["guard"], params=params, dice=[3] + [2] * 49)


def damage_to_the_guard(harness: RulesetHarness) -> None:
    """10S against 7 successes; 48 dice at TN 10 − 83 → 2, all 1s: Deadly + 2 overflow."""
    params = {"code": "10S", "attack_successes": 7, "defender_pool": 1}
    harness.resolve("damage", targets=["guard"], params=params, dice=[1] * 48)


def damage_with_given_body_and_armour(harness: RulesetHarness) -> None:
    """The GM's Body 43 (+ pool 1: 44 dice) and armour 89 (TN 10 − 89 → 2), all 1s."""
    params = {"code": "10S", "attack_successes": 3, "body": 43, "armor": 89, "defender_pool": 1}
    harness.resolve("damage", targets=["guard"], params=params, dice=[1] * 44)


def success_test_by_the_guard(harness: RulesetHarness) -> None:
    params = {"dice": 3, "tn": 5, "pool": 1, "wound_modifier": True, "label": "Perception"}
    harness.resolve("success_test", actor="guard", params=params, dice=[5, 2, 4, 5])


def heal_the_guard(harness: RulesetHarness) -> None:
    """Overflow 37 and 3 of the 10 Physical boxes go (SR-15)."""
    harness.resolve("heal", targets=["guard"], params={"monitor": "physical", "boxes": 40})


def bleed_the_guard(harness: RulesetHarness) -> None:
    harness.resolve("bleed", targets=["guard"], params={"boxes": 1})


def stabilise_the_guard(harness: RulesetHarness) -> None:
    harness.resolve("stabilise", targets=["guard"])


def new_turn(harness: RulesetHarness) -> None:
    harness.resolve("new_turn")


def round_start(harness: RulesetHarness) -> None:
    harness.request({"type": "encounter.start", "order": ["guard", "tukan"]})


#: Each action: the guard's state, and the numbers each revealing setting makes the
#: resolution itself (not the actor records) show.
CASES = {
    "attack on an NPC": (attack_on_the_guard, FIT, {"show_npc_sheet": {47, 83, 76}}),
    "an NPC's burst": (burst_by_the_guard, FIT, {"show_npc_sheet": {59, 67}}),
    "an NPC's single shot": (shot_by_the_guard, FIT, {"show_npc_sheet": {67}}),
    "an NPC attacking itself": (guard_shoots_itself, FIT, {"show_npc_sheet": {47, 83}}),
    "damage": (damage_to_the_guard, FIT, {"show_npc_sheet": {47, 83, 73}}),
    "damage, Body and armour given": (
        damage_with_given_body_and_armour,
        FIT,
        {"show_npc_sheet": GIVEN_NUMBERS},
    ),
    "success test": (success_test_by_the_guard, FIT, {}),
    "heal": (heal_the_guard, DYING, {"show_npc_details": {37}}),
    "bleed": (bleed_the_guard, DYING, {"show_npc_details": {37, 38}, "show_npc_sheet": set()}),
    "stabilise": (stabilise_the_guard, DYING, {}),
    "new turn": (new_turn, DYING, {"show_npc_sheet": {71}, "show_npc_details": {71}}),
    "round start": (round_start, FIT, {"show_npc_sheet": {71}, "show_npc_details": {71}}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_no_npc_number_reaches_players_by_default(name: str):
    act, state, _ = CASES[name]
    harness = table({}, state)
    act(harness)
    gm, player = harness.views()
    assert not numbers(player) & SECRET, f"{name}: {sorted(numbers(player) & SECRET)}"
    data = player["data"]
    if "guard" in data.get("targets", ()):  # the guard's boxes, Body, armour and pool split
        hidden = {"crossed", "removed", "healed", "body", "armor", "defender_pool", "overflow"}
        assert not all_keys(data) & hidden, sorted(all_keys(data) & hidden)
    if name not in ("success test", "stabilise"):  # nothing of the guard's in those two
        assert numbers(gm["data"]) & SECRET, f"{name}: the check could not fail"


@pytest.mark.parametrize("name", list(CASES))
def test_the_revealing_settings_show_them(name: str):
    act, state, revealed = CASES[name]
    harness = table(BOTH_ON, state)
    act(harness)
    gm, player = harness.views()
    assert player["data"] == gm["data"], name
    for setting, shown in revealed.items():
        one = table({setting: True}, state)
        act(one)
        seen = numbers(one.views()[1]["data"])
        assert shown <= seen, f"{name} with {setting}: {sorted(shown - seen)} missing"
        assert not seen & (SECRET - shown), f"{name} with {setting}: {sorted(seen & SECRET)}"


def test_bleeding_shows_the_body_only_with_both_settings():
    harness = table(BOTH_ON, DYING)
    bleed_the_guard(harness)
    assert harness.views()[1]["data"]["narration"] == "Guard bleeds: overflow 38/47, dying."
    details = table({"show_npc_details": True}, DYING)
    bleed_the_guard(details)
    assert details.views()[1]["data"]["narration"] == "Guard bleeds: overflow 38, dying."


def test_a_players_own_actor_shows_its_numbers():
    """Details are hidden for NPCs only: the guard controlled by a player is seen whole."""
    harness = RulesetHarness(SR2Ruleset())
    harness.add_actor("Tukan", TUKAN, actor_id="tukan", player=True)
    harness.add_actor("Guard", GUARD, actor_id="guard", player=True, state=FIT)
    attack_on_the_guard(harness)
    gm, player = harness.views()
    assert player["data"] == gm["data"]
    assert {47, 83, 76} <= numbers(player["data"])


def test_exact_lines_players_read():
    """The lines with hidden parts, word for word (the GM's alongside)."""
    harness = table({}, FIT)
    burst_by_the_guard(harness)
    gm, player = harness.views()
    rolled = ", ".join(["4"] * 61)
    assert gm["data"]["steps"][1:3] == [
        "Attack TN 4 = short range 4 + recoil (3 rounds, compensation 67) 0 "
        "+ wound modifier 0 + situational 0 (SR-7, SR-8)",
        f"Attack: skill 59 + pool 2 = 61 dice vs TN 4: [{rolled}] -> 61 successes",
    ]
    assert player["data"]["steps"][1:3] == [
        "Attack TN hidden: it depends on the attacker's recoil (SR-7, SR-8)",
        f"Attack: 61 dice vs a hidden TN: [{rolled}] -> 61 successes",
    ]
    assert player["data"]["dice"][0]["label"] == "Attack test (Guard)"
    assert "note" not in player["data"]["dice"][0] and "target" not in player["data"]["dice"][0]

    harness = table({}, DYING)
    bleed_the_guard(harness)
    gm, player = harness.views()
    assert gm["data"]["narration"] == "Guard bleeds: overflow 38/47, dying."
    assert gm["data"]["steps"] == [
        "Bleeding (SR-13): overflow 37 -> 38 (Body 47; above Body is dead); status dying"
    ]
    assert player["data"]["narration"] == "Guard bleeds: dying."
    assert player["data"]["steps"] == ["Bleeding (SR-13): status dying"]

    harness = table({}, DYING)
    heal_the_guard(harness)
    gm, player = harness.views()
    assert gm["data"]["narration"] == "Guard heals 40 physical boxes: impaired."
    assert gm["data"]["steps"] == ["Heal 40 physical boxes (SR-15): physical -3, overflow -37"]
    assert player["data"]["narration"] == "Guard is healed (physical): impaired."
    assert player["data"]["steps"] == ["Heal 40 physical boxes (SR-15)"]


# -- the marking, at the ruleset ------------------------------------------------------


def test_reveals_follows_the_settings():
    sr2 = SR2Ruleset()
    assert type(sr2).player_resolution is Ruleset.player_resolution
    for aspect in (SHEET, DETAILS, POOL):
        assert sr2.reveals(aspect, {}) is False
    assert sr2.reveals(SHEET, {"show_npc_sheet": True})
    assert not sr2.reveals(SHEET, {"show_npc_details": True})
    assert sr2.reveals(DETAILS, {"show_npc_details": True})
    assert not sr2.reveals(DETAILS, {"show_npc_sheet": True})
    assert sr2.reveals(POOL, {"show_npc_sheet": True})
    assert sr2.reveals(POOL, {"show_npc_details": True})
    assert not sr2.reveals("something else", BOTH_ON)
    assert set(ASPECTS) == {SHEET, DETAILS, POOL}


def test_kit_players_view_of_a_resolution(kit):
    """Through the ruleset alone: with every actor an NPC, the private values of an
    attack are gone and the lines read as players read them."""
    tukan = kit.actor("tukan", TUKAN)
    guard = kit.actor("guard", GUARD, **FIT)
    params = {"weapon": "Hackler", "range": "short", "defender_pool": 2}
    result = kit.resolve("attack", params, tukan, [guard], dice=[5] * 56)
    seen = result.view(hidden=["guard"])
    assert not numbers(seen) & SHEET_NUMBERS
    assert seen["steps"][3] == (
        "Resistance TN hidden: power 7 - ballistic armour (hidden) + wound modifier 0 (SR-9)"
    )
    assert seen["steps"][4] == (
        "Resistance: 49 dice vs a hidden TN: [" + ", ".join(["5"] * 49) + "] -> 49 successes"
    )
    assert result.steps[3] == (
        "Resistance TN -76 = power 7 - ballistic armour 83 + wound modifier 0 "
        "(floored to 2, SR-2) (SR-9)"
    )
    assert seen["params"] == {k: v for k, v in result.params.items() if k != "defender_pool"}
    everyone = result.view(hidden=["guard", "tukan"])
    assert "skill 7 + pool 0" not in json.dumps(everyone)
    assert "Attack: 7 dice vs TN 4" in everyone["steps"][2]


# -- texts are data -------------------------------------------------------------------


def _texts(value: Any) -> list[Text]:
    """Every text in ``value``, nested ones and those given as ``instead`` included."""
    if isinstance(value, Text):
        return [value, *(t for arg in value.args.values() for t in _texts(arg))]
    if isinstance(value, Private):
        return _texts(value.value) + _texts(value.instead)
    if isinstance(value, Mapping):
        return [t for item in value.values() for t in _texts(item)]
    if isinstance(value, list | tuple):
        return [t for item in value for t in _texts(item)]
    return []


def _declared() -> set[str]:
    found = set()
    for value in vars(sr2_messages).values():
        for one in value.values() if isinstance(value, dict) else (value,):
            if isinstance(one, Message):
                found.add(one.id)
    return found


def _said(kit) -> list[Any]:
    """Resolutions that between them take every branch of what sr2 says."""
    shooter = kit.actor("s", {"body": 4, "weapons": [{"name": "Pistol", "code": "9M", "skill": 4}]})
    target = kit.actor("t", {"body": 4, "armor": {"ballistic": 2, "impact": 1}})
    stunned = kit.actor("u", {"body": 4}, stun=10)
    dying = kit.actor("d", {"body": 4}, physical=10, overflow=1)
    dead = kit.actor("x", {"body": 4}, physical=10, overflow=1)
    pooled = kit.actor("p", {"body": 4, "combat_pool": 3})
    attack = [
        ({"weapon": "Pistol", "range": "medium"}, [1] * 4),  # a botch
        # two hits at TN 6 (6+2), no resistance successes against the given impact armour
        (
            {"code": "6M", "skill": 2, "range": "long", "armor_type": "impact", "armor": 2},
            [6, 2, 6, 2] + [2] * 4,
        ),
        # 13 against TN 11 (9 + recoil 2), the sheet's impact armour; net 1: a spare success
        (
            {"code": "6M", "skill": 1, "range": "extreme", "armor_type": "impact", "rounds": 2},
            [6, 6, 1] + [2] * 4,
        ),
        ({"weapon": "Pistol", "range": "short", "armor": 3}, [1, 2, 3, 4] + [2] * 4),
        ({"weapon": "Pistol", "tn": 5}, [4] * 4),  # a miss against a given TN
    ]
    damage = [
        ({"code": "6M", "attack_successes": 0, "rounds": 3}, target, [2] * 4, {}),
        ({"code": "4L", "attack_successes": 0}, target, [1, 1, 1, 2], {}),  # net -1: Light
        ({"code": "4L", "damage_type": "stun", "attack_successes": 2}, target, [2] * 4, {}),
        # stun past 10 lost: no box crossed
        (
            {"code": "4M", "damage_type": "stun", "attack_successes": 0},
            stunned,
            [2] * 4,
            {"stun_carry": False},
        ),
        ({"code": "9D", "attack_successes": 6}, dead, [1] * 4, {}),  # D + 3 overflow: dead
    ]
    out = [kit.resolve("attack", params, shooter, [target], dice=dice) for params, dice in attack]
    out += [
        kit.resolve("damage", params, targets=[who], dice=dice, settings=settings)
        for params, who, dice, settings in damage
    ]
    out += [
        kit.resolve("heal", {"monitor": "physical"}, targets=[target]),  # nothing to heal
        kit.resolve("heal", {"monitor": "stun", "boxes": 2}, targets=[stunned]),
        kit.resolve("success_test", {"dice": 2, "tn": -1}, dice=[1, 1]),
        kit.resolve("success_test", {"dice": 1, "tn": 4, "wound_modifier": True}, dying, dice=[4]),
        kit.resolve("success_test", {"dice": 1, "tn": 4, "pool": 2}, pooled, dice=[4, 4, 4]),
        kit.resolve("bleed", {}, targets=[dying]),
        kit.resolve("stabilise", {}, targets=[dying]),
        kit.resolve("new_turn", {}),
        kit.resolve("new_turn", {}, targets=[shooter, target]),
    ]
    hook = kit.rs.on_round_start(TurnContext(2, None, (shooter, dying)), SeededDice(0))
    return [r.resolution for r in out] + [hook]


def test_every_message_is_said_with_its_arguments(kit):
    """Each message of messages.py is said by some resolution, and every text the
    ruleset builds (memoised ones included) names a declared message and gives
    exactly its arguments."""
    seen = set()
    for resolution in _said(kit):
        for text in _texts(resolution.to_dict()):
            declared = message(text.id)
            assert declared is not None and text.id.startswith("sr2."), text.id
            assert set(text.args) == declared.names, text.id
            seen.add(text.id)
    assert seen == _declared(), sorted(_declared() ^ seen)


def test_every_text_of_the_engine_cases_is_declared():
    """The same check on the resolutions and the turn hook the privacy cases build."""
    for settings in ({}, BOTH_ON):
        for act, state, _ in CASES.values():
            harness = table(settings, state)
            built: list[Any] = []
            for name in ("resolve", "on_round_start"):
                original = getattr(harness.ruleset, name)

                def spy(context, dice, original=original, built=built):
                    resolution = original(context, dice)
                    built.append(resolution.to_dict())
                    return resolution

                setattr(harness.ruleset, name, spy)
            act(harness)
            assert built
            for text in _texts(built):
                assert set(text.args) == message(text.id).names, text.id


def test_players_never_read_a_placeholder_or_an_undeclared_message():
    for act, state, _ in CASES.values():
        harness = table({}, state)
        act(harness)
        player = harness.views()[1]["data"]
        hooks = player.get("hooks", [player])
        for entry in hooks:
            for line in [entry["narration"], *entry["steps"]]:
                assert isinstance(line, str) and line and "{" not in line, line
                assert not line.startswith("[sr2."), line
            for group in entry.get("dice", ()):
                assert isinstance(group["label"], str)
                assert isinstance(group.get("note", ""), str)
