"""A player's GM roll held for the GM's approval, against a real ``rollbridge serve``
(docs/foundry.md, "The player's side of an approval"): tests/foundry/live/held.mjs runs
the module's client on the Foundry stand-in in Node, over real WebSockets (the ``ws``
package that ``npm ci`` in tests/foundry installs), while this test starts the server
with ``--retain 4``, a reply window of 40 seqs.

It checks the faults of a game night: the held roll survives a reload of the
player's page (its card posted from the server's reply), and a held roll whose reply
the server has forgotten (200 events after its approval, the connection away) is not
asked for again — the GM's table holds no second pending request, while the same id
asked by hand (the control) is held anew under another pending id. The gap the
module's own check of the log left is closed: a held roll whose client asks again
just as the table takes 200 events (a hook on the client's send) is asked only to
repeat, refused ``not_remembered``, and not held a second time. Nor is one asked
again after the page comes back with the player's new token (a revoked one replaced):
the server scopes ids by token, and the same id asked by hand with it is held anew.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.foundry.live_script import live_result, needs_node, run_live
from tests.foundry.test_foundry_browser import created_table, free_port, wait_for_port

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
NOT_ASKED = (
    "rollbridge: your request that waited for the GM's approval is no longer remembered by "
    "the server: too much has happened at the table since it was answered. It was asked only "
    "for its outcome, so nothing was rolled again. Ask the GM whether it was rolled."
)
OTHER_TOKEN = (
    "rollbridge: your request that waited for the GM's approval was sent with another join "
    "token: the server keeps its outcome for that token alone, and asking with this one could "
    "make it a second time, so it is not asked for. Ask the GM whether it was rolled."
)


def test_a_held_roll_survives_a_reload_and_is_not_made_twice_past_the_reply_window(tmp_path):
    node = needs_node()
    db = tmp_path / "held.db"
    cli = [sys.executable, "-m", "rollbridge"]
    table = created_table(db, "Held")
    # the player's token replaced (the old one revoked or not: ids are scoped by token)
    replaced = subprocess.run(
        [*cli, "table", "tokens", table["table"], "--new", "player", "--name", "player",
         "--db", str(db), "--json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )  # fmt: skip
    port = free_port()
    server = subprocess.Popen(
        [*cli, "serve", "--db", str(db), "--port", str(port), "--host", "127.0.0.1", "--no-demo",
         "--retain", "4", "--log-level", "WARNING"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        wait_for_port(port, server)
        tokens = {
            "gm": table["tokens"]["gm"],
            "player": table["tokens"]["player"],
            "replaced": json.loads(replaced.stdout)["new"]["token"],
        }
        env = {
            **os.environ,
            "RB_WS_URL": f"ws://127.0.0.1:{port}/tables/{table['table']}",
            "RB_TOKENS": json.dumps(tokens),
        }
        run = run_live(node, "held.mjs", env, timeout=180)
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
    output = run.stdout + run.stderr
    for token in tokens.values():
        assert token not in output, "a token reached the output"
    assert run.returncode == 0, output[-6000:]
    result = live_result(run)
    player = "standinPlr00001"
    assert result["firstHeld"] == "pending"
    assert result["reloaded"] == {
        "cards": 1,
        "whisper": [player],
        "rollMode": "gmroll",
        "stored": 0,
    }, "after the reload: its card, whispered to the roller, and nothing left stored"
    assert result["secondHeld"] == "pending"
    # the player told, no card, nothing stored, no second pending request
    not_asked = {"notices": [NOT_ASKED], "posted": 0, "stored": 0, "waiting": []}
    assert result["pastWindow"] == not_asked, "not asked again: no second pending request"
    assert result["control"] == {"status": "pending", "samePending": False, "waiting": 1}, (
        "the same id past the window is a new request at the server"
    )
    assert result["fourthHeld"] == "pending"
    assert result["gap"] == not_asked, "asked only to repeat: refused, not held a second time"
    assert result["thirdHeld"] == "pending"
    assert result["otherToken"] == {
        "notices": [OTHER_TOKEN],
        "stored": 0,
        "added": 0,
        "listed": 1,
    }, "not asked with the new token: the table lists the request once"
    assert result["otherTokenControl"] == {"status": "pending", "samePending": False, "added": 1}, (
        "the same id with another token is a new request at the server"
    )
