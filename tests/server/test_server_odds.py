"""The ``odds`` request over a real socket (issue 18, items 1 and 6): exact odds of
notation, the hidden-values refusal without a hidden number on the wire, the
server's bounds and the request's cost in the connection's rate."""

from __future__ import annotations

import asyncio
from fractions import Fraction

from rollbridge.odds import distribution
from rollbridge.protocol.limits import ODDS_COST
from rollbridge.server.limits import Limits

from .test_server_visibility import wire_text


async def test_a_player_gets_the_exact_odds_of_a_formula(tables):
    player, _ = await tables.join("sr2", "player", binary=True)
    reply = await player.request({"type": "odds", "formula": "3d6kh2+1"})
    assert reply["type"] == "result"
    totals = reply["distribution"]
    assert totals == distribution("3d6kh2+1").to_dict()
    assert sum(Fraction(o["probability"]) for o in totals["outcomes"]) == 1


async def test_odds_against_an_npc_with_hidden_numbers_are_refused_and_leak_nothing(tables):
    gm, _ = await tables.join("sr2", "gm")
    player, _ = await tables.join("sr2", "player")
    guard = (await gm.request({"type": "state"}))["table"]["actors"]
    sheet = next(a for a in guard if a["id"] == "guard-a")["sheet"]
    reply = await player.request({"type": "odds", "action": "attack", "actor": "tukan",
                                  "targets": ["guard-a"], "params": {}})  # fmt: skip
    assert reply["type"] == "error" and reply["code"] == "odds_hidden"
    assert reply["details"] == {"actor": "guard-a", "part": "sheet"}
    text = wire_text(player)
    for key, value in sheet.items():
        if isinstance(value, int) and value > 9:  # a telling number
            assert f'"{key}": {value}' not in text


async def test_an_action_without_odds_is_refused_with_its_code(tables):
    gm, _ = await tables.join("tally", "gm")
    reply = await gm.request({"type": "odds", "action": "hit", "actor": "ana",
                              "targets": ["guard"], "params": {"bonus": 3}})  # fmt: skip
    assert reply["type"] == "error" and reply["code"] == "odds_unavailable"
    assert reply["details"] == {"action": "hit"}


async def test_a_formula_past_the_servers_bounds_is_refused_at_once(tables):
    player, _ = await tables.join("sr2", "player")
    reply = await player.request({"type": "odds", "formula": "999d20"})
    assert reply["code"] == "dice_limit"
    assert (await player.request({"type": "ping"}))["type"] == "pong"


async def test_an_odds_request_costs_more_of_the_connections_rate(make_tables):
    rate = 5.0  # a burst of 10 requests
    limits = Limits(rate_per_connection=rate, rate_per_table=None, per_token=None,
                    per_address=None)  # fmt: skip
    world = await make_tables(limits=limits)
    player, _ = await world.join("sr2", "player")
    replies = [await player.request({"type": "odds", "formula": "2d6"}) for _ in range(3)]
    answered = [r for r in replies if r["type"] == "result"]
    refused = [r for r in replies if r["type"] == "error"]
    # the hello took one of the burst; each odds request takes ODDS_COST
    assert len(answered) == int((2 * rate - 1) // ODDS_COST) == 1
    assert refused and refused[0]["code"] == "rate_limited"
    assert refused[0]["details"]["scope"] == "connection"
    # what is left (4 tokens, less than one odds request) still serves cheaper requests
    assert (await player.request({"type": "state"}))["type"] == "result"


async def test_an_odds_request_refused_for_the_rate_gets_in_after_its_retry_after(make_tables):
    """docs/protocol.md: "send it again after details.retry_after s". A refused odds
    request takes nothing (its frame's token goes back), so the wait told is the wait
    for its whole cost."""
    limits = Limits(rate_per_connection=5.0, rate_per_table=None, per_token=None,
                    per_address=None)  # fmt: skip
    world = await make_tables(limits=limits)
    player, _ = await world.join("sr2", "player")
    assert (await player.request({"type": "odds", "formula": "2d6"}))["type"] == "result"
    refused = await player.request({"type": "odds", "formula": "2d6"})
    assert refused["code"] == "rate_limited" and refused["details"]["scope"] == "connection"
    await asyncio.sleep(refused["details"]["retry_after"])
    assert (await player.request({"type": "odds", "formula": "2d6"}))["type"] == "result"


async def test_an_odds_request_refused_at_the_table_costs_the_connection_one(make_tables):
    """Refused for the table's rate, a costly request costs its connection what any
    refused request does (its frame), not its whole cost."""
    limits = Limits(rate_per_connection=20.0, rate_per_table=0.01, per_token=None,
                    per_address=None)  # fmt: skip
    world = await make_tables(limits=limits)
    player, _ = await world.join("sr2", "player")
    replies = [await player.request({"type": "odds", "formula": "2d6"}) for _ in range(12)]
    assert replies[0]["type"] == "result"  # the table's burst of one
    # 39 tokens after the hello: 11 refusals of one each leave plenty (of five: none)
    assert [r["details"]["scope"] for r in replies[1:]] == ["table"] * 11
