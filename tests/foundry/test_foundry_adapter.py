"""The Foundry dialect (adapters/foundry): translation in both directions, and the
adapter at work on a real server over real WebSockets (issue 8, item 1)."""

from __future__ import annotations

import asyncio
import copy
import html
import json
import re
from typing import Any

import msgpack
import pytest
from websockets.asyncio.client import connect

from rollbridge.adapters.foundry import FoundryAdapter, outbound
from rollbridge.adapters.foundry.dice_in import formula_of, is_evaluated, results_of
from rollbridge.adapters.foundry.dice_out import (
    foundry_order,
    foundry_total,
    roll_from_group,
    roll_from_result,
)
from rollbridge.adapters.foundry.inbound import translate
from rollbridge.adapters.foundry.mappings import MAPPINGS, system_updates
from rollbridge.adapters.foundry.outbound import chat_html
from rollbridge.dice import ScriptedDice, SeededDice, roll_formula
from rollbridge.engine import Principal
from rollbridge.exceptions import InvalidRequest
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.server import Server
from rollbridge.server.limits import Limits
from rollbridge.stores import MemoryStore
from rollbridge.testing import RulesetHarness

HOST = PluginHost()


def die(result: int, **flags: Any) -> dict[str, Any]:
    return {"result": result, "active": True, **flags}


def foundry_roll(formula: str, *terms: dict[str, Any], total: int | None = None) -> dict:
    """A Roll as Foundry's Roll#toJSON writes it."""
    return {
        "class": "Roll",
        "options": {},
        "dice": [],
        "formula": formula,
        "terms": list(terms),
        "total": total,
        "evaluated": True,
    }


def d(number: int, faces: int, results: list[dict], modifiers: tuple[str, ...] = ()) -> dict:
    return {
        "class": "Die",
        "options": {},
        "evaluated": True,
        "number": number,
        "faces": faces,
        "modifiers": list(modifiers),
        "results": results,
    }


PLUS = {"class": "OperatorTerm", "options": {}, "evaluated": True, "operator": "+"}


def two(n: int) -> dict:
    return {"class": "NumericTerm", "options": {}, "evaluated": True, "number": n}


# -- inbound --------------------------------------------------------------------------


def test_an_unevaluated_roll_is_rolled_by_the_server():
    request = translate(
        {
            "type": "foundry.roll",
            "id": "r1",
            "roll": {"class": "Roll", "formula": "2d6 + 1", "terms": [], "evaluated": False},
            "speaker": {"actor": "ana", "token": "tok1", "scene": "sc1", "alias": "Ana"},
            "flavor": "Dodge",
        }
    )
    assert request == {
        "type": "roll",
        "id": "r1",
        "actor": "ana",
        "formula": "2d6 + 1",
        "label": "Dodge",
    }


def test_an_evaluated_roll_supplies_every_result_in_draw_order():
    roll = foundry_roll(
        "4d6kh3x + 2",
        d(
            4,
            6,
            [die(6, exploded=True), die(5), die(1, active=False, discarded=True), die(3), die(2)],
            ("kh3", "x"),
        ),
        PLUS,
        two(2),
    )
    assert is_evaluated(roll)
    request = translate({"type": "foundry.roll", "id": 7, "roll": roll})
    assert request == {"type": "roll", "id": 7, "formula": "4d6kh3x + 2", "dice": [6, 5, 1, 3, 2]}
    server = translate({"type": "foundry.roll", "id": 8, "roll": roll, "source": "server"})
    assert "dice" not in server


def test_flavor_text_is_dropped_and_roll_modes_map_to_secret():
    roll = {"formula": "2d6[fire] + 1d4[cold]", "evaluated": False, "terms": []}
    assert formula_of(roll) == "2d6 + 1d4"
    for mode, secret in [("publicroll", False), ("gmroll", True), ("blindroll", True)]:
        request = translate({"type": "foundry.roll", "id": "x", "roll": roll, "rollMode": mode})
        assert request.get("secret", False) is secret


def test_an_explicit_actor_wins_over_the_speaker_and_null_means_none():
    roll = {"formula": "1d6", "evaluated": False}
    base = {"type": "foundry.roll", "id": "x", "roll": roll, "speaker": {"actor": "fvtt1"}}
    assert translate({**base, "actor": "ana"})["actor"] == "ana"
    assert "actor" not in translate({**base, "actor": None})
    assert translate(base)["actor"] == "fvtt1"


def test_resolve_maps_speaker_and_targets():
    request = translate(
        {
            "type": "foundry.resolve",
            "id": "a1",
            "action": "attack",
            "speaker": {"actor": "tukan", "token": "t1", "scene": "s1"},
            "targets": ["guard-a", {"actor": "fvttB", "token": "tB"}, {"rollbridge": "guard-c"}],
            "params": {"weapon": "Hackler"},
            "rollMode": "gmroll",
        }
    )
    assert request == {
        "type": "resolve",
        "id": "a1",
        "actor": "tukan",
        "secret": True,
        "action": "attack",
        "targets": ["guard-a", "fvttB", "guard-c"],
        "params": {"weapon": "Hackler"},
    }


def test_resolve_takes_its_dice_from_a_foundry_roll():
    roll = foundry_roll("2d6", d(2, 6, [die(5), die(5)]))
    request = translate({"type": "foundry.resolve", "id": "m", "action": "move", "roll": roll})
    assert request["dice"] == [5, 5]


@pytest.mark.parametrize(
    ("message", "names"),
    [
        ({"type": "foundry.roll", "id": 1}, "foundry.roll.roll: is required"),
        ({"type": "foundry.roll", "id": 1, "roll": {"formula": ""}}, "roll.formula"),
        ({"type": "foundry.roll", "id": 1, "roll": {"formula": "1d6"}, "x": 1}, "foundry.roll.x"),
        ({"type": "foundry.resolve", "id": 1, "targets": []}, "foundry.resolve.action"),
        ({"type": "foundry.resolve", "id": 1, "action": "a", "targets": [{}]}, "targets[0]"),
        (
            {
                "type": "foundry.roll",
                "id": 1,
                "roll": {"formula": "(1d6)", "evaluated": True, "dice": [d(1, 6, [die(3)])]},
            },
            "roll.dice",
        ),
        (
            {
                "type": "foundry.roll",
                "id": 1,
                "roll": foundry_roll("1dc", {"class": "Coin", "results": [die(1)]}),
            },
            "Coin",
        ),
    ],
)
def test_bad_foundry_messages_are_refused_naming_the_field(message, names):
    with pytest.raises(InvalidRequest) as raised:
        translate(message)
    assert names in str(raised.value)


def test_other_messages_pass_through_unchanged():
    message = {"type": "adjust", "id": "j", "actor": "a", "track": "stun", "delta": 2}
    assert translate(message) == message


# -- outbound: dice ---------------------------------------------------------------------

FORMULAS = [
    "2d6 + 3",
    "4d6kh3",
    "3d6!!",
    "6d6!!>=5cs>=5",
    "2d6x",
    "1d10x>=9",
    "4d6r<3",
    "4d6rr",
    "6d6cs>=5",
    "6d6cf<3",
    "2d20kl + 1d4 - 2",
    "d%",
    "1d6!!r1",
    "5d6!!kh3",
    "4d6min3 + 4d6max4",
    "-1d4 + (2d6kh1) * 2",
    "floor((1d6 + 2) / 2) + ceil(1d8 / 3)",
    "3d10xcs>=8",
    "7 / 2 + 1d6",
    "0d6 + 1",
]


def chain_order(results: list[Any]) -> list[Any]:
    """The test's own inverse of dice_out's Foundry order for a compounding term:
    round-by-round results back into per-die chains (each ``exploded`` result is
    followed, one round later, by its explosion), die after die — the order the
    server drew a compounding (``!!``) term's dice in."""
    exploded = [bool(r.get("exploded")) for r in results]
    first = len(results) - sum(exploded)
    chains = [[i] for i in range(first)]
    frontier = [c for c in chains if exploded[c[-1]]]
    index = first
    while frontier:
        following = []
        for chain in frontier:
            chain.append(index)
            if exploded[index]:
                following.append(chain)
            index += 1
        frontier = following
    assert index == len(results)
    return [results[i] for chain in chains for i in chain]


def all_results(roll: dict, compound: bool = False) -> list[dict]:
    """Every result of every Die term, each term's in the order the server drew
    them: a compounding term's (``!!``, a ruleset's chains) die by die; an ``x``
    term's as given (the server explodes round by round, as Foundry does)."""
    out = []
    for term in roll["terms"]:
        if term["class"] == "Die":
            out += chain_order(term["results"]) if compound else term["results"]
        elif term["class"] == "ParentheticalTerm":
            out += all_results(term["roll"], compound)
        elif term["class"] == "FunctionTerm" or term["class"] == "PoolTerm":
            for inner in term["rolls"]:
                out += all_results(inner, compound)
    return out


@pytest.mark.parametrize("formula", FORMULAS)
@pytest.mark.parametrize("seed", range(12))
def test_a_formula_roll_rebuilds_with_the_servers_dice_and_total(formula, seed):
    result = roll_formula(formula, SeededDice(seed))
    roll = roll_from_result(result.to_dict())
    assert roll["class"] == "Roll" and roll["evaluated"] is True
    assert roll["total"] == result.total
    # Foundry's own arithmetic over the rebuilt terms gives the same total
    assert foundry_total(roll) == pytest.approx(result.total)
    # every roll of every die is there, in draw order once each term's Foundry order
    # (round by round) is undone (a compounding die as its chain)
    expected = [r for d_ in result.dice for r in (d_.rolls if len(d_.rolls) > 1 else (d_.value,))]
    assert [r["result"] for r in all_results(roll, "!!" in formula)] == expected
    # kept and dropped dice are active and inactive
    inactive = [r for r in all_results(roll) if not r["active"]]
    assert all(r.get("discarded") or r.get("rerolled") for r in inactive)


@pytest.mark.parametrize(
    "formula", [f for f in FORMULAS if "(" not in f and "min" not in f and "max" not in f]
)
def test_the_rebuilt_results_supplied_back_give_the_same_roll(formula):
    result = roll_formula(formula, SeededDice(99))
    roll = roll_from_result(result.to_dict())
    supplied = results_of(roll)
    if "!!" in formula:  # Foundry's order (round by round) is not how a compounding term draws
        supplied = [r["result"] for r in all_results(roll, compound=True)]
    again = roll_formula(formula, ScriptedDice(supplied))
    assert again.describe() == result.describe()


def test_a_compounding_die_is_one_chain_of_exploded_results():
    result = roll_formula("3d6!! + 2", ScriptedDice([6, 6, 3, 2, 5]))
    roll = roll_from_result(result.to_dict())
    (die_term, _, _) = roll["terms"]
    assert die_term["modifiers"] == ["x"] and die_term["number"] == 3
    # Foundry's order for x (issue 15, item 2): the three first rolls, then the first
    # die's explosion round by round — what Dice So Nice would throw
    assert die_term["results"] == [
        {"result": 6, "active": True, "exploded": True},
        {"result": 2, "active": True},
        {"result": 5, "active": True},
        {"result": 6, "active": True, "exploded": True},
        {"result": 3, "active": True},
    ]
    assert roll["formula"] == "3d6x + 2" and roll["total"] == 24
    # the test's inverse gives back the server's draw order, die by die
    assert [r["result"] for r in chain_order(die_term["results"])] == [6, 6, 3, 2, 5]


def test_foundry_order_is_round_by_round_and_chain_order_undoes_it():
    chains = [["a0", "a1", "a2"], ["b0"], ["c0", "c1"]]
    assert foundry_order(chains) == ["a0", "b0", "c0", "a1", "c1", "a2"]
    # a Foundry-evaluated 4d6x as DiceTerm#explode records it: 6, 3, 6, 1, then 6 and 2
    # (the explosions of the first and third dice), then 4 (the first die's second)
    foundry = [
        {"result": 6, "exploded": True}, {"result": 3}, {"result": 6, "exploded": True},
        {"result": 1}, {"result": 6, "exploded": True}, {"result": 2}, {"result": 4},
    ]  # fmt: skip
    assert [r["result"] for r in chain_order(foundry)] == [6, 6, 4, 3, 6, 2, 1]
    assert foundry_order([[6, 6, 4], [3], [6, 2], [1]]) == [r["result"] for r in foundry]


def ruleset_groups():
    """Every dice group the built-in rulesets produce for their examples, many seeds."""
    for ruleset_id in ("sr2", "wilddie", "bandits", "techlevel"):
        ruleset = HOST.rulesets[ruleset_id]
        for seed in range(15):
            harness = RulesetHarness(ruleset, seed=seed)
            ids = []
            for index, (name, sheet) in enumerate(ruleset.example_sheets.items()):
                ids.append(harness.add_actor(name, sheet, actor_id=f"a{index}", player=index == 0))
            for name, spec in ruleset.actions.items():
                kwargs: dict[str, Any] = {"params": spec.example_in("en")}
                if spec.actor != "none":
                    kwargs["actor"] = ids[0]
                if spec.max_targets and not spec.every_actor:
                    kwargs["targets"] = ids[1 : 1 + max(spec.min_targets, 1)]
                try:
                    event = harness.resolve(name, **kwargs)
                except Exception:
                    continue
                for group in event["data"]["dice"]:
                    yield ruleset_id, name, group


GROUPS = list(ruleset_groups())


def test_the_rulesets_produce_groups_to_check():
    kinds = {(r, n) for r, n, _ in GROUPS}
    assert {("sr2", "attack"), ("sr2", "success_test"), ("bandits", "move")} <= kinds
    assert {r for r, _ in kinds} >= {"sr2", "bandits", "wilddie"}


@pytest.mark.parametrize("index", range(len(GROUPS)))
def test_every_ruleset_dice_group_rebuilds_with_its_dice_and_result(index):
    ruleset_id, action, group = GROUPS[index]
    roll = roll_from_group(group)
    wanted = group.get("total", group.get("successes"))
    if wanted is not None:
        assert roll["total"] == wanted, (ruleset_id, action, group)
    assert foundry_total(roll) == roll["total"], (ruleset_id, action, group, roll)
    rolls = [
        r for d_ in group["dice"] for r in (d_["rolls"] if len(d_["rolls"]) > 1 else [d_["value"]])
    ]
    assert [r["result"] for r in all_results(roll, compound=True)] == rolls
    assert roll["options"]["flavor"] == group["label"]


def test_a_wild_die_group_is_a_pool_with_the_modifier_as_a_number():
    group = {
        "label": "Notice d6",
        "dice": [
            {"faces": 8, "rolls": [8, 2], "value": 10, "tags": ["compounded"]},
            {"faces": 6, "rolls": [3], "value": 3, "kept": False, "tags": ["wild", "dropped"]},
        ],
        "formula": "{1d8!!, 1d6!!}kh-2",
        "total": 8,
        "target": 4,
        "successes": 1,
    }
    roll = roll_from_group(group)
    pool, minus, number = roll["terms"]
    assert pool["class"] == "PoolTerm" and pool["terms"] == ["1d8x", "1d6x"]
    assert pool["modifiers"] == ["kh1"]
    assert pool["results"] == [
        {"result": 10, "active": True},
        {"result": 3, "active": False, "discarded": True},
    ]
    assert pool["rolls"][0]["terms"][0]["results"] == [
        {"result": 8, "active": True, "exploded": True},
        {"result": 2, "active": True},
    ]
    assert (minus["operator"], number["number"]) == ("-", 2)
    assert roll["formula"] == "{1d8x,1d6x}kh1 - 2" and roll["total"] == 8


# -- outbound: actors and mappings -------------------------------------------------------


def test_system_mappings_apply_by_the_tracks_an_actor_has():
    sr2 = {
        "status": "impaired",
        "tracks": [
            {"key": "stun", "value": 2, "max": 10},
            {"key": "physical", "value": 6, "max": 10},
            {"key": "overflow", "value": 0, "max": 4},
        ],
        "conditions": ["Physical: Serious"],
    }
    assert system_updates(sr2) == {
        "sr5": {
            "system.track.physical.value": 6,
            "system.track.stun.value": 2,
            "system.track.physical.overflow.value": 0,
        }
    }
    wilddie = {"tracks": [{"key": "wounds", "value": 1, "max": 3}], "conditions": ["Shaken"]}
    assert system_updates(wilddie) == {
        "swade": {
            "system.wounds.value": 1,
            "system.status.isShaken": True,
            "system.status.isIncapacitated": False,
        }
    }
    limited = {"status": "dying", "tracks": [], "conditions": ["Dying"]}
    assert system_updates(limited) == {}
    assert set(MAPPINGS) == {"sr5", "swade"}


def test_outbound_never_changes_the_message_it_is_given():
    adapter = FoundryAdapter()
    result = roll_formula("3d6!! + 1", SeededDice(3))
    event = {
        "type": "event",
        "table": "t",
        "epoch": 1,
        "seq": 4,
        "kind": "roll",
        "data": {"formula": result.formula, "actor": "a", "roll": result.to_dict(), "total": 1},
        "actors": [{"id": "a", "name": "A", "common": {"tracks": [], "status": "ok"}}],
    }
    before = copy.deepcopy(event)
    out = adapter.outbound(event)
    assert event == before
    assert out["foundry"]["rolls"][0]["total"] == result.total
    assert out["foundry"]["speaker"] == {"actor": "a", "alias": "A"}
    assert out["actors"][0]["foundry"]["flags"]["rollbridge"]["seq"] == 4
    # the epoch beside it: a seq says nothing of its order against another epoch's
    assert out["actors"][0]["foundry"]["flags"]["rollbridge"]["epoch"] == 1


def test_outbound_on_a_shape_it_does_not_know_sends_it_on_with_an_error_note(caplog):
    event = {"type": "event", "kind": "roll", "seq": 1, "data": {"roll": {"terms": [{}]}}}
    out = FoundryAdapter().outbound(event)
    assert out["kind"] == "roll" and "error" in out["foundry"]


# -- the adapter on a live server ----------------------------------------------------------


class Client:
    """A JSON client speaking the Foundry dialect."""

    def __init__(self, connection) -> None:
        self.connection = connection
        self.events: list[dict] = []
        self.replies: dict[Any, dict] = {}

    async def request(self, message: dict) -> dict:
        await self.connection.send(json.dumps(message))
        while True:
            frame = json.loads(await asyncio.wait_for(self.connection.recv(), 10))
            if frame["type"] == "event":
                self.events.append(frame)
            elif frame.get("id") == message.get("id"):
                return frame

    async def until_events(self, count: int) -> None:
        while len(self.events) < count:
            frame = json.loads(await asyncio.wait_for(self.connection.recv(), 10))
            if frame["type"] == "event":
                self.events.append(frame)


@pytest.fixture
async def live():
    store = MemoryStore()
    service = TableService(store, HOST)
    _, sr2_tokens = service.create_table("Friday", "sr2", table_id="friday")
    _, wild_tokens = service.create_table("Deadlands", "wilddie", table_id="deadlands")
    server = Server(store, HOST, port=0)
    await server.start()
    clients = []

    async def join(table: str, role: str, **hello: Any) -> tuple[Client, dict]:
        tokens = {"friday": sr2_tokens, "deadlands": wild_tokens}[table]
        client = Client(await connect(server.url))
        clients.append(client)
        welcome = await client.request(
            {"type": "hello", "id": "h", "table": table, "token": tokens[role],
             "dialect": "foundry", **hello}
        )  # fmt: skip
        assert welcome["type"] == "welcome", welcome
        return client, welcome

    yield join
    for client in clients:
        await client.connection.close()
    await server.stop()


async def add_sr2_actors(gm: Client) -> None:
    sheets = HOST.rulesets["sr2"].example_sheets
    for request_id, actor in [
        ("c1", {"id": "fvttTukan0000001", "name": "Tukan", "sheet": sheets["Tukan"],
                "controllers": ["player"]}),
        ("c2", {"id": "fvttGuard0000002", "name": "Guard", "sheet": sheets["Guard A"]}),
    ]:  # fmt: skip
        reply = await gm.request({"type": "actor.create", "id": request_id, "actor": actor})
        assert reply["status"] == "done", reply


async def test_welcome_lists_the_mappings_and_shapes_every_actor(live):
    gm, _ = await live("friday", "gm")
    await add_sr2_actors(gm)
    _, welcome = await live("friday", "observer")
    assert [m["id"] for m in welcome["foundry"]["mappings"]] == ["sr5", "swade"]
    guard = next(a for a in welcome["table"]["actors"] if a["id"] == "fvttGuard0000002")
    flags = guard["foundry"]["flags"]["rollbridge"]
    assert flags["actorId"] == "fvttGuard0000002" and flags["table"] == "friday"
    assert (flags["epoch"], flags["seq"]) == (welcome["epoch"], welcome["table"]["seq"])
    assert flags["limited"] is True and flags["common"]["status"] == "ok"


async def test_a_foundry_roll_comes_back_as_rolls_foundry_rebuilds(live):
    gm, _ = await live("friday", "gm")
    player, _ = await live("friday", "player")
    await add_sr2_actors(gm)
    reply = await player.request(
        {
            "type": "foundry.roll",
            "id": "roll-1",
            "roll": {"class": "Roll", "formula": "6d6!! + 1", "terms": [], "evaluated": False},
            "speaker": {"actor": "fvttTukan0000001", "token": "tok", "scene": "scn"},
            "flavor": "Quickness",
        }
    )
    assert reply["type"] == "result" and reply["status"] == "done"
    event = reply["event"]
    (roll,) = event["foundry"]["rolls"]
    assert roll["total"] == event["data"]["total"] == foundry_total(roll)
    assert event["foundry"]["speaker"]["actor"] == "fvttTukan0000001"
    assert event["foundry"]["flavor"] == "Quickness"
    await gm.until_events(3)
    assert gm.events[-1]["foundry"]["rolls"] == [roll]


async def test_supplied_foundry_results_are_the_gms_dice_not_a_players(live):
    gm, _ = await live("friday", "gm")
    player, _ = await live("friday", "player")
    roll = foundry_roll("2d6 + 1", d(2, 6, [die(6), die(4)]), PLUS, two(1), total=11)
    reply = await gm.request({"type": "foundry.roll", "id": "g1", "roll": roll})
    assert reply["event"]["data"]["total"] == 11 and reply["event"]["data"]["supplied"] is True
    refused = await player.request({"type": "foundry.roll", "id": "p1", "roll": roll})
    assert refused["type"] == "error" and refused["code"] == "forbidden"
    served = await player.request(
        {"type": "foundry.roll", "id": "p2", "roll": roll, "source": "server"}
    )
    assert served["status"] == "done" and served["event"]["data"]["supplied"] is False


async def test_an_attack_maps_the_target_state_onto_flags_and_sr5(live):
    gm, _ = await live("friday", "gm")
    await add_sr2_actors(gm)
    reply = await gm.request(
        {
            "type": "foundry.resolve",
            "id": "atk",
            "action": "attack",
            "speaker": {"actor": "fvttTukan0000001", "token": "t", "scene": "s"},
            "targets": [{"actor": "fvttGuard0000002", "token": "t2"}],
            "params": {"weapon": "Hackler", "rounds": 3, "range": "short"},
            "dice": [6, 1, 6, 1, 6, 1, 5, 5, 5, 1, 2, 3, 1],
        }
    )
    event = reply["event"]
    assert event["kind"] == "resolution", reply
    attack, resistance = event["foundry"]["rolls"]
    assert attack["total"] == 3 and resistance["total"] == 0
    assert attack["formula"] == "6d6xcs>=6"
    assert event["foundry"]["content"] == chat_html(event["data"]["narration"])
    (guard,) = [a for a in event["actors"] if a["id"] == "fvttGuard0000002"]
    flags = guard["foundry"]["flags"]["rollbridge"]
    physical = next(t for t in flags["common"]["tracks"] if t["key"] == "physical")
    assert guard["foundry"]["systems"]["sr5"]["system.track.physical.value"] == physical["value"]
    assert physical["value"] > 0 and flags["seq"] == event["seq"]


async def test_a_wilddie_table_maps_onto_swade(live):
    gm, _ = await live("deadlands", "gm")
    sheets = HOST.rulesets["wilddie"].example_sheets
    names = list(sheets)
    for index, name in enumerate(names[:2]):
        reply = await gm.request(
            {"type": "actor.create", "id": f"w{index}",
             "actor": {"id": f"w{index}", "name": name, "sheet": sheets[name]}}
        )  # fmt: skip
        assert reply["status"] == "done", reply
    reply = await gm.request({"type": "adjust", "id": "adj", "actor": "w1", "track": "wounds",
                              "delta": 1})  # fmt: skip
    (actor,) = reply["event"]["actors"]
    swade = actor["foundry"]["systems"]["swade"]
    assert swade["system.wounds.value"] == 1
    assert swade["system.status.isShaken"] is False


async def test_secret_roll_modes_reach_players_hidden_and_resume_carries_foundry_fields(live):
    gm, _ = await live("friday", "gm")
    player, welcome = await live("friday", "player")
    secret = await gm.request(
        {"type": "foundry.roll", "id": "s1", "rollMode": "blindroll",
         "roll": {"formula": "1d20", "evaluated": False}}
    )  # fmt: skip
    assert secret["event"]["foundry"]["rolls"][0]["total"] == secret["event"]["data"]["total"]
    await player.until_events(1)
    assert player.events[0]["kind"] == "hidden" and "foundry" not in player.events[0]
    await player.connection.close()
    await gm.request({"type": "foundry.roll", "id": "s2", "roll": {"formula": "2d6"}})
    again, welcome = await live(
        "friday", "player", resume={"epoch": welcome["epoch"], "seq": player.events[0]["seq"]}
    )
    assert welcome["resume"] == {"recovered": True, "missed": 1}
    await again.until_events(1)
    assert again.events[0]["foundry"]["rolls"][0]["formula"] == "2d6"


# -- the players' view in the GM's frames (the stored chat card) ------------------------------

#: An NPC whose hidden numbers are easy to find: Body 5, ballistic armour 8.
ODD_GUARD = {"body": 5, "combat_pool": 3, "armor": {"ballistic": 8, "impact": 6}}
#: What only the GM may read of an attack on it with ATTACK_DICE (docs/rulesets/sr2.md).
ODD_GUARD_DETAIL = ("ballistic armour 8", "Body 5", "TN 2", "Boxes crossed: physical 0")
ATTACK_DICE = [6, 3, 6, 4, 5, 6, 1, 2, 4, 5, 4, 1, 3, 1]


def attack(request_id: str, **extra: Any) -> dict:
    return {"type": "foundry.resolve", "id": request_id, "action": "attack",
            "speaker": {"actor": "fvttTukan0000001"}, "targets": ["fvttGuard0000002"],
            "params": {"weapon": "Hackler", "rounds": 3, "range": "short"},
            "dice": ATTACK_DICE, **extra}  # fmt: skip


async def test_a_foundry_gms_event_carries_what_each_player_receives_of_it(live):
    """FoundryAdapter.public_view: the GM's client posts a public card from
    ``players``, and writes each actor's flags (which Foundry hands to every client)
    from its view there: it must be exactly the frame a player (same locale, same
    dialect) is sent, and hold none of the NPC's hidden numbers."""
    gm, _ = await live("friday", "gm")
    gm_cs, _ = await live("friday", "gm", locale="cs")
    players = {loc: (await live("friday", "player", locale=loc))[0] for loc in ("en", "cs")}
    sheets = HOST.rulesets["sr2"].example_sheets
    for request_id, actor in [
        ("c1", {"id": "fvttTukan0000001", "name": "Tukan", "sheet": sheets["Tukan"],
                "controllers": ["player"]}),
        ("c2", {"id": "fvttGuard0000002", "name": "Guard", "sheet": ODD_GUARD}),
    ]:  # fmt: skip
        made = await gm.request({"type": "actor.create", "id": request_id, "actor": actor})
        assert made["status"] == "done", made
    reply = await gm.request(attack("atk"))
    seq = reply["seq"]
    assert "players" not in reply["event"], "results do not carry it: cards come from events"
    secret = await gm.request(attack("atk2", rollMode="blindroll"))
    adjust = {"type": "adjust", "id": "adj", "actor": "fvttGuard0000002", "track": "physical"}
    adjusted = await gm.request({**adjust, "delta": 2})
    assert adjusted["status"] == "done", adjusted
    await gm.until_events(5)
    await gm_cs.until_events(5)
    for player in players.values():
        await player.until_events(5)
    for gm_client, locale in ((gm, "en"), (gm_cs, "cs")):
        (event,) = [e for e in gm_client.events if e["seq"] == seq]
        (received,) = [e for e in players[locale].events if e["seq"] == seq]
        assert event["players"] == received, locale
        assert received["foundry"]["rolls"] and "players" not in received
        # the GM's view has the NPC's numbers; the players' view has none of them
        if locale == "en":
            gm_text = json.dumps(event["data"], ensure_ascii=False)
            seen = json.dumps(event["players"], ensure_ascii=False)
            for detail in ODD_GUARD_DETAIL:
                assert detail in gm_text and detail not in seen, detail
        (guard,) = event["players"]["actors"]
        assert guard["limited"] is True and guard["common"]["tracks"] == []
        resistance = event["players"]["foundry"]["rolls"][1]
        assert "target" not in resistance["options"]["rollbridge"]
        assert not any("cs" in m for t in resistance["terms"] for m in t.get("modifiers", ()))
        # the events that change actors carry it too (the module writes the actors'
        # flags from it); a GM-only one that changed actors, as the `hidden` event
        # players receive (their views of those actors), never its dice or texts
        for other in gm_client.events:
            if other["seq"] == seq:
                continue
            (received,) = [e for e in players[locale].events if e["seq"] == other["seq"]]
            assert other["players"] == received, other["kind"]
            if other.get("gm_only"):
                shown = {"type", "table", "kind", "epoch", "seq", "actors"}
                assert received["kind"] == "hidden" and set(received) == shown, received
                assert "rolls" not in received.get("foundry", {})
            else:
                assert other["kind"] in ("actor.created", "adjusted"), other["kind"]
            for gm_actor, seen in zip(other["actors"], received["actors"], strict=True):
                if gm_actor["id"] != "fvttGuard0000002":
                    assert seen["common"] == gm_actor["common"], "a player's character in full"
                    continue
                flags = seen["foundry"]["flags"]["rollbridge"]
                assert flags["limited"] is True and flags["common"]["tracks"] == []
                assert gm_actor["common"]["tracks"], "the GM's view has the boxes"
                assert seen["foundry"]["systems"] == {}, "no mapping applies to the players' view"
    assert secret["event"]["gm_only"] is True
    for player in players.values():
        (hidden,) = [e for e in player.events if e["seq"] == secret["seq"]]
        assert hidden["kind"] == "hidden"
    # the secret attack hit the guard: the GM's frame carries the guard as players see it
    (frame,) = [e for e in gm.events if e["seq"] == secret["seq"]]
    (guard,) = [a for a in frame["players"]["actors"] if a["id"] == "fvttGuard0000002"]
    assert guard["limited"] is True and guard["common"]["tracks"] == []
    assert guard["foundry"]["flags"]["rollbridge"]["seq"] == secret["seq"]
    assert guard["foundry"]["flags"]["rollbridge"]["epoch"] == frame["epoch"]


async def test_only_a_foundry_gm_is_sent_the_players_view(live):
    gm, _ = await live("friday", "gm")
    plain, _ = await live("friday", "gm", dialect="rollbridge")
    player, _ = await live("friday", "player")
    reply = await player.request({"type": "foundry.roll", "id": "r", "roll": {"formula": "2d6"}})
    await gm.until_events(1)
    await plain.until_events(1)
    assert gm.events[-1]["players"] == {**reply["event"], "type": "event", "table": "friday"}
    assert "players" not in plain.events[-1] and "players" not in player.events[-1]


async def test_a_foundry_gms_settings_change_carries_the_npcs_new_players_view(live):
    """A settings change that shows or hides an NPC's details (and its undo) changes no
    record, and the GM's own view of the NPC not at all: the GM's frame lists no actors,
    and carries as ``players`` the event players are sent, with the NPC's new players'
    view, whose flags the module writes. One that changes no players' view carries none."""
    gm, _ = await live("friday", "gm")
    player, _ = await live("friday", "player")
    await add_sr2_actors(gm)
    changes = [
        {"type": "settings", "id": "on", "settings": {"ruleset": {"show_npc_details": True}}},
        {"type": "settings", "id": "off", "settings": {"ruleset": {"show_npc_details": False}}},
        {"type": "undo", "id": "u"},
        {"type": "settings", "id": "one", "settings": {"ruleset": {"rule_of_one": False}}},
    ]
    for change in changes:
        assert (await gm.request(change))["status"] == "done", change
    await gm.until_events(6)
    await player.until_events(6)
    on, off, undo, other = gm.events[2:]
    for event, boxes in ((on, True), (off, False), (undo, True)):
        assert event["actors"] == []
        (received,) = [e for e in player.events if e["seq"] == event["seq"]]
        assert event["players"] == received, event["kind"]
        (guard,) = received["actors"]
        flags = guard["foundry"]["flags"]["rollbridge"]
        assert guard["id"] == flags["actorId"] == "fvttGuard0000002"
        assert (flags["seq"], flags["epoch"]) == (event["seq"], event["epoch"])
        assert flags["limited"] is True and bool(flags["common"]["tracks"]) is boxes
    assert "players" not in other and other["actors"] == []


#: The GM who sets up a table offline (TableService.handle).
GM_PRINCIPAL = Principal("gm", "gm", "setup")


async def test_a_foundry_gms_reread_settings_change_carries_every_npcs_players_view():
    """At a table whose NPCs' records pass the event size (``reread``), the stored
    change holds none of them and a player reads ``state`` again; a GM's ``state`` is
    the GM's view, so the GM's Foundry frame carries in ``players`` the players' views
    of every NPC as the table stands, beside the mark: the module writes their flags
    from them rather than withhold the NPCs until each one's next event."""
    store = MemoryStore()
    service = TableService(store, HOST)
    _, tokens = service.create_table("Large", "sr2", table_id="large")
    sheets = HOST.rulesets["sr2"].example_sheets
    cast = [("ana", "Ana", sheets["Tukan"], ["player"])]
    cast += [(f"g{n}", f"Guard {n}", ODD_GUARD, []) for n in range(40)]
    for actor_id, name, sheet, controllers in cast:
        actor = {"id": actor_id, "name": name, "sheet": sheet, "controllers": controllers}
        reply = service.handle(
            "large", {"type": "actor.create", "id": f"c-{actor_id}", "actor": actor}, GM_PRINCIPAL
        )
        assert reply["status"] == "done", reply
    server = Server(store, HOST, port=0, limits=Limits(max_event_bytes=4096))
    await server.start()
    clients = []
    try:
        for role, dialect in (("gm", "foundry"), ("gm", "rollbridge"), ("player", "foundry")):
            client = Client(await connect(server.url))
            clients.append(client)
            hello = {
                "type": "hello",
                "id": "h",
                "table": "large",
                "token": tokens[role],
                "dialect": dialect,
            }
            assert (await client.request(hello))["type"] == "welcome"
        gm, plain, player = clients
        for shown in (True, False):
            change = {
                "type": "settings",
                "id": f"s{shown}",
                "settings": {"ruleset": {"show_npc_details": shown}},
            }
            assert (await gm.request(change))["status"] == "done"
        for client in clients:
            await client.until_events(2)
        for event, boxes in zip(gm.events, (True, False), strict=True):
            (received,) = [e for e in player.events if e["seq"] == event["seq"]]
            assert received["reread"] is True and received["actors"] == [], (
                "players read state again"
            )
            copy_ = event["players"]
            assert copy_["reread"] is True and event["actors"] == []
            assert [a["id"] for a in copy_["actors"]] == [f"g{n}" for n in range(40)], (
                "every NPC, no PC"
            )
            for guard in copy_["actors"]:
                flags = guard["foundry"]["flags"]["rollbridge"]
                assert (flags["seq"], flags["epoch"]) == (event["seq"], event["epoch"])
                assert flags["limited"] is True and bool(flags["common"]["tracks"]) is boxes
            seen = json.dumps(copy_)
            assert "Body 5" not in seen and "ballistic armour 8" not in seen
        assert all("players" not in e for e in plain.events), "a plain GM's frame carries none"
    finally:
        for client in clients:
            await client.connection.close()
        await server.stop()


async def test_a_foundry_gms_welcome_carries_the_npcs_as_players_see_them(live):
    """A snapshot welcome holds the table in the GM's view only: the Foundry GM's
    welcome also carries ``players``, the NPCs as players see them, so the module
    writes their flags from it rather than withhold them (a first connection, a
    restored table). A player's and a plain GM's welcome carry none."""
    gm, _ = await live("friday", "gm")
    await add_sr2_actors(gm)
    adjust = {"type": "adjust", "id": "adj", "actor": "fvttGuard0000002", "track": "physical"}
    assert (await gm.request({**adjust, "delta": 3}))["status"] == "done"
    _, welcome = await live("friday", "gm")
    _, plain = await live("friday", "gm", dialect="rollbridge")
    _, player = await live("friday", "player")
    (guard,) = welcome["players"]["actors"]
    assert guard["id"] == "fvttGuard0000002" and guard["limited"] is True
    assert guard["common"]["tracks"] == [] and guard["common"]["status"] != "ok"
    flags = guard["foundry"]["flags"]["rollbridge"]
    assert (flags["epoch"], flags["seq"], flags["limited"]) == (
        welcome["epoch"],
        welcome["seq"],
        True,
    )
    assert guard["foundry"]["systems"] == {}
    (gm_guard,) = [a for a in welcome["table"]["actors"] if a["id"] == guard["id"]]
    assert gm_guard["common"]["tracks"], "the GM's own view keeps the boxes"
    assert "players" not in plain and "players" not in player


#: wilddie's guard whose chips (47) only the GM may read (WD-9's recovery roll shows them).
WILD_GUARD = {
    "kind": "npc",
    "attributes": {"strength": "d6", "coordination": "d6", "reaction": "d6",
                   "intuition": "d6", "vigor": "d12", "character": "d6"},
    "skills": {"fighting": "d12", "shooting": "d6", "notice": "d6"},
    "armor": 19,
    "chips": 47,
}  # fmt: skip


async def test_a_foundry_gms_encounter_event_carries_the_players_view_and_its_hooks_dice(live):
    """The module posts each turn hook's result as a card (public: from ``players``):
    the GM's ``encounter.turn`` carries exactly what a player is sent of it, and each
    hook's dice as Roll JSON (``foundry.hooks``), the NPC's hidden numbers in neither."""
    gm, _ = await live("deadlands", "gm")
    player, _ = await live("deadlands", "player")
    sheets = HOST.rulesets["wilddie"].example_sheets
    for request_id, actor in [
        ("c1", {"id": "ana", "name": "Ana", "sheet": next(iter(sheets.values())),
                "controllers": ["player"]}),
        ("c2", {"id": "guard", "name": "Guard", "sheet": WILD_GUARD}),
    ]:  # fmt: skip
        made = await gm.request({"type": "actor.create", "id": request_id, "actor": actor})
        assert made["status"] == "done", made
    # 29 against Toughness 27: the guard is Shaken (WD-9)
    shaken = await gm.request(
        {"type": "foundry.resolve", "id": "dmg", "action": "damage", "speaker": {"actor": "ana"},
         "targets": ["guard"], "params": {"dice": "d6+24"}, "dice": [5]}
    )  # fmt: skip
    assert shaken["status"] == "done", shaken
    started = await gm.request({"type": "encounter.start", "id": "s", "order": ["ana", "guard"]})
    # the guard's turn starts Shaken: its recovery roll (Character d6) fails with a 2
    turn = await gm.request({"type": "encounter.next", "id": "n", "dice": [2]})
    assert started["status"] == turn["status"] == "done", (started, turn)
    await player.until_events(5)
    for seq in (started["seq"], turn["seq"]):
        (event,) = [e for e in gm.events if e["seq"] == seq]
        (received,) = [e for e in player.events if e["seq"] == seq]
        assert event["players"] == received and "players" not in received
    (event,) = [e for e in gm.events if e["seq"] == turn["seq"]]
    (hook,) = event["data"]["hooks"]
    assert hook["hook"] == "on_turn_start" and hook["actor"] == "guard"
    (shown,) = event["foundry"]["hooks"]
    assert shown["speaker"] == {"actor": "guard", "alias": "Guard"}
    (roll,) = shown["rolls"]
    assert roll["total"] == 2 and roll["terms"][0]["results"][0]["result"] == 2
    assert event["players"]["foundry"]["hooks"][0]["rolls"] == [roll]
    # the GM's view has the guard's chips; the players' view (the stored card) does not
    assert hook["outcome"]["chips_left"] == 47
    seen = json.dumps([event["players"][k] for k in ("data", "actors", "foundry")])
    assert not re.search(r"\b47\b", seen), "no chip count reaches the players"
    assert re.search(r"\b47\b", json.dumps(event["data"])), "the check can fail"


# -- frames: JSON or msgpack ------------------------------------------------------------------


async def test_frame_sizes_behind_the_choice_of_json(live):
    """docs/foundry.md: msgpack would save about a fifth of each frame; the module
    sends JSON. This keeps the numbers quoted there honest."""
    gm, _ = await live("friday", "gm")
    await add_sr2_actors(gm)
    _, welcome = await live("friday", "gm")
    attack = await gm.request(
        {"type": "foundry.resolve", "id": "atk", "action": "attack",
         "speaker": {"actor": "fvttTukan0000001"}, "targets": ["fvttGuard0000002"],
         "params": {"weapon": "Hackler", "rounds": 3, "range": "short"}}
    )  # fmt: skip
    roll = await gm.request({"type": "foundry.roll", "id": "r", "roll": {"formula": "2d6 + 1"}})
    sizes = {}
    for name, message in [("welcome", welcome), ("attack", attack), ("roll", roll)]:
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode()
        packed = msgpack.packb(message, use_bin_type=True)
        sizes[name] = (len(text), len(packed))
    for name, (text, packed) in sizes.items():
        saving = 1 - packed / text
        print(f"{name}: JSON {text} B, msgpack {packed} B ({saving:.0%} smaller)")
        assert 0.05 < saving < 0.35, (name, text, packed)
    assert sizes["attack"][0] < 16_000 and sizes["roll"][0] < 4_000


# -- the plugin ---------------------------------------------------------------------------


def test_the_adapter_is_a_builtin_plugin_registered_through_the_hook():
    host = PluginHost(environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert isinstance(host.adapters["foundry"], FoundryAdapter)
    (info,) = [p for p in host.describe_plugins() if p["name"] == "foundry"]
    assert info["adapters"] == ["foundry"] and info["source"] == "builtin"
    blocked = PluginHost(environ={"ROLLBRIDGE_BLOCK_PLUGINS": "foundry"})
    assert "foundry" not in blocked.adapters


def test_the_adapter_imports_only_the_contract_and_the_protocol():
    """DESIGN.md: adapters import the contract and the protocol (and its plain-data and
    text helpers: the system's reasons as declared texts among them), never a store or
    the server."""
    import ast
    from pathlib import Path

    allowed = {"rollbridge", "rollbridge.adapter", "rollbridge.exceptions", "rollbridge.schema",
               "rollbridge.hookspecs", "rollbridge.plain", "rollbridge.text",
               "rollbridge.system_words"}  # fmt: skip
    import rollbridge.adapters.foundry as package

    files = sorted(Path(package.__file__).parent.glob("*.py"))
    assert len(files) >= 8
    for path in files:
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                if node.module.startswith("rollbridge"):
                    assert node.module in allowed, f"{path.name} imports {node.module}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    assert not alias.name.startswith("rollbridge"), f"{path.name}: {alias.name}"


def test_requester_sees_passes_through_with_a_secret_roll_mode_only():
    """Issue 15 item 3: the module asks for its own view of a GM roll; the dialect
    passes ``requester_sees`` on with ``secret``, and never makes a public roll secret."""
    roll = {"type": "foundry.roll", "id": "g", "roll": {"formula": "2d6"}}
    gm = translate({**roll, "rollMode": "gmroll", "requester_sees": True})
    assert gm["secret"] is True and gm["requester_sees"] is True
    public = translate({**roll, "rollMode": "publicroll", "requester_sees": True})
    assert "secret" not in public and "requester_sees" not in public
    with pytest.raises(InvalidRequest):
        translate({**roll, "rollMode": "gmroll", "requester_sees": "yes"})


def test_repeat_passes_through_to_the_core_request():
    """A held request asked again only to repeat (docs/protocol.md, ``"repeat"``): the
    dialect passes the field on as it is, for the core to check, and never drops it
    (dropped, the core would run an id it no longer remembers as a new roll)."""
    roll = {"type": "foundry.roll", "id": "g", "roll": {"formula": "2d6"}, "repeat": True}
    assert translate(roll)["repeat"] is True
    resolve = {"type": "foundry.resolve", "id": "r", "action": "attack", "repeat": True}
    assert translate(resolve)["repeat"] is True
    assert translate({**roll, "repeat": "yes"})["repeat"] == "yes"  # the core refuses it
    assert "repeat" not in translate({k: v for k, v in roll.items() if k != "repeat"})


def test_chat_fields_are_html_a_consumer_can_post_as_they_are():
    """``foundry.flavor`` and ``foundry.content`` are a ChatMessage's HTML: a player's
    label with markup, an inline roll or a macro link comes out escaped and cut where
    Foundry's enrichers would find a pattern, and reads as written."""

    payload = "Dodge <img src=x onerror=alert(1)> @UUID[Macro.AbCdEf0123456789]{Run} [[1d1+99]]"
    event = {"type": "event", "kind": "roll", "seq": 2, "epoch": 1, "actors": [],
             "data": {"formula": "1d20", "label": payload, "total": 7,
                      "text": f"{payload}: 1d20 [7] = 7", "roll": {"total": 7}}}  # fmt: skip
    foundry = outbound.translate(event)["foundry"]
    for field in ("flavor", "content"):
        value = foundry[field]
        assert "<img" not in value and "[[" not in value and "@UUID[" not in value
        assert not re.search(r"\[\[.*?]]|@\w+\[", html.unescape(value)), value
        assert payload in html.unescape(value.replace("<span></span>", ""))
    assert foundry["rolls"][0]["options"]["flavor"] == payload  # Roll flavor: text, not HTML


async def _hello(url: str, token: str, **hello: Any) -> tuple[dict, int, list[int]]:
    """A Foundry GM's hello: its welcome, the welcome frame's bytes and those of each
    missed event resent after it."""
    async with connect(url, max_size=None) as ws:
        request = {"type": "hello", "id": "h", "table": "big", "token": token, **hello}
        await ws.send(json.dumps({**request, "dialect": "foundry"}))
        frame = await asyncio.wait_for(ws.recv(), 10)
        welcome = json.loads(frame)
        assert welcome["type"] == "welcome", welcome
        missed = [len((await asyncio.wait_for(ws.recv(), 10)).encode())
                  for _ in range(welcome.get("resume", {}).get("missed", 0))]  # fmt: skip
        return welcome, len(frame.encode()), missed


async def test_a_foundry_gms_resume_carries_no_players_view_and_keeps_its_room_for_missed_events():
    """The players' view of every NPC in a Foundry GM's welcome is for a snapshot (the
    module takes no table from a recovered resume) and is as large again as the NPCs'
    part of the table. The welcome's bytes count against the room a resume's missed
    events have (half the server's ``buffer_limit``): sent on a resume too, it made a
    GM reloading at a large table fall too far behind (a snapshot: the missed events'
    cards never posted) where the same resume fitted before."""
    store = MemoryStore()
    service = TableService(store, HOST)
    _, tokens = service.create_table("Big", "sr2", table_id="big")
    sheets = HOST.rulesets["sr2"].example_sheets
    cast = [("ana", "Ana", sheets["Tukan"], ["player"])]
    long_name = "Nameless corporate security guard of the Renraku arcology, shift {:03d}"
    cast += [(f"g{n}", long_name.format(n), ODD_GUARD, []) for n in range(40)]
    for actor_id, name, sheet, controllers in cast:
        actor = {"id": actor_id, "name": name, "sheet": sheet, "controllers": controllers}
        reply = service.handle(
            "big", {"type": "actor.create", "id": f"c-{actor_id}", "actor": actor}, GM_PRINCIPAL
        )
        assert reply["status"] == "done", reply
    server = Server(store, HOST, port=0)
    await server.start()
    try:
        snapshot, whole, _ = await _hello(server.url, tokens["gm"])
        assert [a["id"] for a in snapshot["players"]["actors"]] == [f"g{n}" for n in range(40)]
        cursor = {"epoch": snapshot["epoch"], "seq": snapshot["seq"]}
        gm = Client(await connect(server.url))
        hello = {"type": "hello", "id": "h", "table": "big", "token": tokens["gm"]}
        assert (await gm.request({**hello, "dialect": "foundry"}))["type"] == "welcome"
        for n in range(3):
            adjust = {"type": "adjust", "id": f"a{n}", "actor": f"g{n}", "track": "stun"}
            adjust["delta"] = 1
            assert (await gm.request(adjust))["status"] == "done"
        await gm.connection.close()
        resumed, _, missed = await _hello(server.url, tokens["gm"], resume=cursor)
        assert resumed["resume"] == {"recovered": True, "missed": 3}
        assert "players" not in resumed, "a recovered resume takes no table: no players' view"
    finally:
        await server.stop()
    players = len(json.dumps(snapshot["players"], separators=(",", ":")).encode())
    # room for the welcome without the players' view and the missed events (half that
    # view to spare), not for the view besides
    room = whole - players + sum(missed) + players // 2
    server = Server(store, HOST, port=0, buffer_limit=2 * room)
    await server.start()
    try:
        resumed, _, again = await _hello(server.url, tokens["gm"], resume=cursor)
        assert resumed["resume"] == {"recovered": True, "missed": 3}, "the resume still fits"
        assert again == missed
    finally:
        await server.stop()
    # no room for the missed events: a snapshot, which carries the players' view
    server = Server(store, HOST, port=0, buffer_limit=2 * (whole - players + min(missed) // 2))
    await server.start()
    try:
        behind, _, _ = await _hello(server.url, tokens["gm"], resume=cursor)
        assert behind["resume"]["reason"] == "too_far_behind" and not behind["resume"]["recovered"]
        npcs = behind["players"]["actors"]
        assert [a["id"] for a in npcs] == [f"g{n}" for n in range(40)]
        assert {a["foundry"]["flags"]["rollbridge"]["seq"] for a in npcs} == {behind["seq"]}
    finally:
        await server.stop()
