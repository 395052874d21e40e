"""Whose a refusal is, across two ``serve --redis`` processes: a client of process B
asks for a change at a table process A owns; A runs it, its ruleset refuses, and the
refusal is forwarded to B, which answers the client. The mark ``details.origin:
"ruleset"`` (docs/protocol.md, "Error codes") is set on A, where the ruleset ran, and
must reach B's client as it left A — until 7 December 2026, late night, this was read
from code alone (core/server/cluster.py forwards the reply as packed), never tested.
A real redis-server, two real ``rollbridge serve`` processes on free ports, the
Foundry dialect and the plain one."""

from __future__ import annotations

import shutil

import pytest

from tests.stores.cluster_harness import Player, durable_redis, run_by_a_seen_from_b

pytestmark = pytest.mark.skipif(
    shutil.which("redis-server") is None, reason="redis-server is not installed"
)

#: A bandit who carries a medpack and an extra it cannot be used on (BD-10).
ACTORS = [
    {"id": "doc", "name": "Doc", "controllers": [], "sheet": {}},
    {"id": "guard", "name": "Guard", "controllers": [], "sheet": {"kind": "extra"}},
]
MEDPACK = {"type": "resolve", "id": "m1", "action": "medpack", "actor": "doc",
           "targets": ["guard"], "params": {"n": 1}}  # fmt: skip


def test_a_rulesets_refusal_run_on_the_owner_reaches_the_other_process_marked() -> None:
    seen: dict[str, dict] = {}

    async def play(a, b, on_a, on_b, made) -> None:
        for index, actor in enumerate(ACTORS):
            created = await on_a.ask_until_done(
                {"type": "actor.create", "id": f"c{index}", "actor": actor}
            )
            assert created["type"] == "result", created
        foundry = Player(b.port, made["table"], made["tokens"]["gm"])
        await foundry.join(dialect="foundry")
        try:
            seen["plain"] = await on_b.ask_until_done(MEDPACK)
            seen["foundry"] = await foundry.ask_until_done(
                {**MEDPACK, "type": "foundry.resolve", "id": "m2"}
            )
            # the server's own refusal of the same change, forwarded alike: unmarked
            ghost = {**MEDPACK, "id": "m3", "targets": ["ghost"]}
            seen["server"] = await on_b.ask_until_done(ghost)
            # the server's own refusal of supplied dice, raised as the ruleset's resolve
            # draws them on A (a d6 cannot show 99): unmarked there, and so at B
            move = {"type": "resolve", "id": "m4", "action": "move", "actor": "doc"}
            seen["dice"] = await on_b.ask_until_done({**move, "dice": [99]})
        finally:
            await foundry.close()
        assert a.owns(made["table"]) and not b.owns(made["table"])

    with durable_redis("rb-origin-") as url:
        run_by_a_seen_from_b(url, play)
    for name in ("plain", "foundry"):
        refused = seen[name]
        assert (refused["type"], refused["code"]) == ("error", "not_a_bandit"), refused
        assert refused["details"] == {"actor": "guard", "origin": "ruleset"}, refused
    server = seen["server"]
    assert (server["type"], server["code"]) == ("error", "unknown_actor"), server
    assert "origin" not in (server.get("details") or {}), server
    dice = seen["dice"]
    assert (dice["type"], dice["code"]) == ("error", "dice_mismatch"), dice
    assert dice["details"] == {"index": 0, "value": 99, "faces": 6}, dice
