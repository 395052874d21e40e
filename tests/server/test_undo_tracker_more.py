"""The shared client's undo tracker against a real server over more kinds of
event than tests/server/test_undo_tracker_wire.py: secret resolutions,
approvals, encounters and their hooks, actor removal and updates, settings, a
second GM, a small undo depth."""

from __future__ import annotations

import json
import random
import shutil
import subprocess

import pytest

from tests.server.test_undo_tracker_wire import REPLAY, TRACKER


def _gm_request(rng: random.Random, step: int, state: dict) -> dict | None:
    actors = [a["id"] for a in state["actors"]]
    encounter = state.get("encounter")
    choice = rng.choice(["hit", "secret", "heal", "adjust", "undo", "undo", "redo", "redo",
                         "create", "remove", "update", "settings", "approval", "encounter",
                         "approve", "reject", "roll"])  # fmt: skip
    target = rng.choice(actors) if actors else None
    if choice in ("hit", "secret") and target:
        req = {"type": "resolve", "action": "hit", "targets": [target], "params": {"bonus": 1}}
        if choice == "secret":
            req["secret"] = True
        return req
    if choice == "heal" and target:
        return {"type": "resolve", "action": "heal", "targets": [target], "params": {"amount": 1}}
    if choice == "adjust" and target:
        return {"type": "adjust", "actor": target, "track": "damage", "delta": rng.choice([1, -1])}
    if choice in ("undo", "redo"):
        return {"type": choice}
    if choice == "create":
        return {"type": "actor.create", "actor": {"name": f"X{step}", "sheet": {"hp": 20}}}
    if choice == "remove" and len(actors) > 2 and not encounter:
        return {"type": "actor.remove", "actor": rng.choice(actors[2:])}
    if choice == "update" and target:
        return {"type": "actor.update", "actor": target, "name": f"N{step}"}
    if choice == "settings":
        return {"type": "settings", "settings": {"show_damage": rng.random() < 0.5}}
    if choice == "approval":
        return {"type": "settings", "settings": {"approval": rng.random() < 0.5}}
    if choice == "encounter":
        if encounter is None:
            return {"type": "encounter.start", "order": actors[:3]}
        kind = rng.choice(["next", "next", "end", "reorder"])
        if kind == "reorder":
            order = list(encounter["order"])
            if len(order) < 2:
                return None
            order.reverse()
            return {"type": "encounter.reorder", "order": order}
        return {"type": f"encounter.{kind}"}
    if choice in ("approve", "reject") and state.get("pending"):
        return {"type": choice, "request": state["pending"][0]["pending"]}
    if choice == "roll":
        return {"type": "roll", "formula": "1d6"}
    return None


async def _run(make_tables, seed: int, steps: int, retain: int) -> None:
    node = shutil.which("node")
    assert node is not None
    world = await make_tables(retain=retain)
    rng = random.Random(seed)
    gm, _ = await world.join("tally", "gm")
    other, _ = await world.join("tally", "gm")
    player, _ = await world.join("tally", "player")
    state = (await gm.request({"type": "state"}))["table"]
    for step in range(10):
        req = _gm_request(rng, step, state)
        if req:
            await gm.request(req)
        state = (await gm.request({"type": "state"}))["table"]
    page, welcome = await world.join("tally", "gm")
    checkpoints = []
    for step in range(10, steps):
        who = rng.choice([gm, other, player])
        if who is player:
            req = {"type": "resolve", "action": "hit", "actor": "ana", "targets": ["guard"],
                   "params": {"bonus": 0}}  # fmt: skip
        else:
            req = _gm_request(rng, step, state)
        if req:
            await who.request(req)
        state = (await page.request({"type": "state"}))["table"]
        checkpoints.append(state["undo_redo"])
    last = checkpoints[-1]["seq"]
    await page.wait_for(lambda p: p.events and p.events[-1]["seq"] >= last)
    kinds = {e["kind"] for e in page.events}
    script = REPLAY % json.dumps(TRACKER.as_uri())
    seen = {"welcome": welcome["table"]["undo_redo"], "events": page.events}
    run = subprocess.run(
        [node, "--input-type=module", "-e", script],
        input=json.dumps({**seen, "checkpoints": checkpoints}),
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert run.returncode == 0, (sorted(kinds), run.stdout + run.stderr)


@pytest.mark.parametrize("seed", range(6))
async def test_more_kinds(make_tables, seed):
    await _run(make_tables, seed, 120, retain=12)


@pytest.mark.parametrize("seed", range(2))
async def test_small_depth(make_tables, seed, monkeypatch):
    import rollbridge.engine.table as table_module

    monkeypatch.setattr(table_module, "UNDO_DEPTH", 3)
    await _run(make_tables, seed, 80, retain=1000)
