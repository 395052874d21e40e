"""The shared client's undo tracker (adapters/client/undo.mjs, run by Node) against
a real server: a GM's page that follows the events after its welcome knows, at
every step, exactly the undo and redo stacks the server has — retained-log trims
(``retain``) included — so the seq its Undo button names is the one the server
takes (docs/engine.md, "Undo and redo")."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TRACKER = ROOT / "adapters" / "client" / "undo.mjs"

#: Feeds a welcome's stacks and the events after it to the tracker, and checks the
#: stacks at every checkpoint (the GM's ``state`` after a request): prints a
#: failure as JSON, or {"checked": N}.
REPLAY = """
import { UndoTracker } from %s;
let input = "";
for await (const chunk of process.stdin) input += chunk;
const { welcome, events, checkpoints } = JSON.parse(input);
const tracker = new UndoTracker();
tracker.reset(welcome);
let next = 0;
let checked = 0;
for (const point of checkpoints) {
  while (next < events.length && events[next].seq <= point.seq) tracker.see(events[next++]);
  const got = { undo: tracker.undo, redo: tracker.redo, known: tracker.known };
  const same = JSON.stringify([got.undo, got.redo]) === JSON.stringify([point.undo, point.redo]);
  if (!same || !got.known) {
    console.log(JSON.stringify({ at: point.seq, server: point, tracker: got }));
    process.exit(1);
  }
  checked += 1;
}
console.log(JSON.stringify({ checked }));
"""

HIT = {"type": "adjust", "actor": "guard-a", "track": "stun", "delta": 1}
HEAL = {"type": "adjust", "actor": "guard-a", "track": "stun", "delta": -1}
MISS = {"type": "resolve", "action": "attack", "actor": "tukan", "targets": ["guard-a"],
        "params": {"weapon": "Hackler", "range": "short"}, "dice": [1] * 6}  # fmt: skip


def _request(rng: random.Random, step: int) -> dict:
    choice = rng.choice(["hit", "heal", "miss", "roll", "undo", "undo", "redo", "create",
                         "settings"])  # fmt: skip
    if choice == "create":
        return {"type": "actor.create", "actor": {"name": f"Extra {step}", "sheet": {"body": 3}}}
    if choice == "settings":
        return {"type": "settings", "settings": {"approval": rng.random() < 0.5}}
    if choice == "roll":
        return {"type": "roll", "formula": "1d6"}
    return {"hit": HIT, "heal": HEAL, "miss": MISS, "undo": {"type": "undo"},
            "redo": {"type": "redo"}}[choice]  # fmt: skip


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_a_gm_page_knows_the_servers_undo_and_redo(make_tables, seed):
    node = shutil.which("node")
    if node is None:
        pytest.fail("this test runs the shared client under Node.js 20 (node on the PATH)")
    world = await make_tables(retain=5)
    rng = random.Random(seed)
    actor, _ = await world.join("sr2", "gm")
    for step in range(15):  # a history before the page joins
        await actor.request(_request(rng, step))
    page, welcome = await world.join("sr2", "gm")
    checkpoints = []
    for step in range(15, 90):
        await actor.request(_request(rng, step))
        state = (await page.request({"type": "state"}))["table"]
        checkpoints.append(state["undo_redo"])
    last = checkpoints[-1]["seq"]
    await page.wait_for(lambda p: p.events and p.events[-1]["seq"] >= last)
    assert any(c["redo"] for c in checkpoints) and any(len(c["undo"]) < 3 for c in checkpoints)

    script = REPLAY % json.dumps(TRACKER.as_uri())
    seen = {"welcome": welcome["table"]["undo_redo"], "events": page.events}
    run = subprocess.run(
        [node, "--input-type=module", "-e", script],
        input=json.dumps({**seen, "checkpoints": checkpoints}),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert json.loads(run.stdout) == {"checked": len(checkpoints)}
