"""Ordering (issue 3, item 8): 50 concurrent damage requests from several clients
on one actor end at exactly the sum; every client sees the same events in the
same seq order; tables proceed independently."""

from __future__ import annotations

import asyncio


async def test_fifty_concurrent_hits_sum_exactly_and_everyone_agrees(tables):
    gm, _ = await tables.join("tally", "gm")
    assert (await gm.request({"type": "settings", "settings": {"player_dice": True}}))["seq"]
    senders = [gm, (await tables.join("tally", "gm"))[0]]
    senders += [(await tables.join("tally", "player"))[0] for _ in range(3)]
    watchers = [(await tables.join("tally", "observer"))[0] for _ in range(2)]
    start_seq = (await gm.request({"type": "state"}))["table"]["seq"]
    dice = [1 + (n % 2) for n in range(50)]

    async def hit(n: int) -> dict:
        peer = senders[n % len(senders)]
        message = {"type": "resolve", "action": "hit", "targets": ["guard"], "dice": [dice[n]]}
        if peer in senders[2:]:
            message["actor"] = "ana"
        return await peer.request(message)

    replies = await asyncio.gather(*(hit(n) for n in range(50)))
    assert all(r["status"] == "done" for r in replies), replies
    assert sorted(r["seq"] for r in replies) == list(range(start_seq + 1, start_seq + 51))
    state = await gm.request({"type": "state"})
    guard = next(a for a in state["table"]["actors"] if a["id"] == "guard")
    assert guard["state"]["damage"] == sum(dice) == 75

    everyone = [*senders, *watchers]
    for peer in everyone:
        await peer.wait_for(lambda p: sum(e["kind"] == "resolution" for e in p.events) == 50)
    orders = [[(e["seq"], e["request"]) for e in p.events if e["kind"] == "resolution"]
              for p in everyone]  # fmt: skip
    assert all(order == orders[0] for order in orders)
    assert [seq for seq, _ in orders[0]] == sorted(seq for seq, _ in orders[0])
    # each event's damage is the previous one plus its own die: applied one at a time
    running = 0
    for event in (e for e in gm.events if e["kind"] == "resolution"):
        running += event["data"]["dice"][0]["dice"][0]["value"]
        guard = next(a for a in event["actors"] if a["id"] == "guard")
        assert guard["state"]["damage"] == running


async def test_tables_are_independent(tables):
    sr2_gm, _ = await tables.join("sr2", "gm")
    tally_gm, _ = await tables.join("tally", "gm")
    tally_watch, _ = await tables.join("tally", "observer")
    before = (await tally_gm.request({"type": "state"}))["table"]["seq"]
    await asyncio.gather(*(sr2_gm.request({"type": "roll", "formula": "3d6"}) for _ in range(10)))
    assert (await tally_gm.request({"type": "state"}))["table"]["seq"] == before
    assert tally_watch.events == []
    assert len(sr2_gm.events) == 10
