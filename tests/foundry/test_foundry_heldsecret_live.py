"""The module's *Approve with my dice…* against a real server on a real port, on a
real SQLite file (docs/foundry.md, "Approve / reject (GM)"): a player's request with
their own die, held for approval while an upgrade made its action always secret
(tests/plugins/test_secret_action_upgrade.py). tests/foundry/live/heldsecret.mjs runs
the GM's module client on the Foundry stand-in in Node over real WebSockets: its
*Approve* is refused ``held_dice_secret`` (the GM told why), its *Approve with my
dice…* with 9 resolves the request with the GM's die, secret. Before, the module's
Approve sent no dice and it had nothing else: its GM could only reject."""

from __future__ import annotations

import asyncio
import json
import os

from tests.foundry.live_script import HERE, ROOT, needs_node
from tests.plugins.test_secret_action_upgrade import held_before_upgrade, upgraded

REFUSED = (
    "request {pending} gives the player's own dice for action 'listen', which is always "
    "secret now (it was not when they asked): dice they chose would tell them how it went."
)


async def test_the_module_approves_a_held_secret_request_with_the_gms_dice(tmp_path):
    node = needs_node()
    path = tmp_path / "night.db"
    tokens, pending = held_before_upgrade(path)
    async with upgraded(path) as (server, store):
        url = f"{server.url}tables/night".replace("http://", "ws://")
        layout = str((HERE / "js" / "release-layout.mjs").relative_to(ROOT))
        env = {**os.environ, "RB_WS_URL": url, "RB_TOKENS": json.dumps({"gm": tokens["gm"]})}
        run = await asyncio.create_subprocess_exec(
            node, "--import", f"./{layout}", str(HERE / "live" / "heldsecret.mjs"),
            cwd=ROOT, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        out, err = await asyncio.wait_for(run.communicate(), timeout=120)
        output = (out + err).decode()
        assert tokens["gm"] not in output, "a token reached the output"
        assert run.returncode == 0, output[-6000:]
        table, events = store.load("night")[0], store.events_after("night", 0) or []
    (line,) = [x for x in out.decode().splitlines() if x.startswith("RESULT ")]
    result = json.loads(line.removeprefix("RESULT "))
    assert result["pending"] == pending
    assert result["approve"] is None and result["state"] == "waiting", result
    (notice,) = result["notices"]
    assert REFUSED.format(pending=pending) in notice, notice
    assert result["dialog"] == "Approve with your own dice"
    assert result["reply"] == {"status": "done", "approved": pending, "gmOnly": True,
                               "outcome": {"heard": False}}, result  # fmt: skip  # the GM's 9
    assert (result["after"], result["noticesAfter"]) == ("approved", 1)
    assert pending not in table.pending
    (event,) = [e for e in events if e.data.get("approved") == pending]
    assert event.gm_only and event.data["outcome"] == {"heard": False}, event
