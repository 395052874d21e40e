"""An always-secret action (``ActionSpec(secret=True)``, tests/plugins/listener.py)
at a table two ``rollbridge serve --redis`` processes serve (review rev24p): the
player's request, made on the process that does not run the table, is forwarded to
the one that does, which takes it as secret — the player's reply a secret roll's,
players on either process the ``hidden`` placeholder, the GM the whole event. Real
redis-server, real processes, the ruleset installed as a plugin."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from tests.cli.test_cli_connect_secret_action import LISTENER
from tests.conftest import installed_plugin
from tests.plugins.listener import Listener
from tests.stores import cluster_harness
from tests.stores.cluster_harness import Player, Process, make_table

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
ROOT = Path(__file__).resolve().parents[2]


def test_a_listen_forwarded_to_the_owner_is_secret(redis_factory, tmp_path, monkeypatch):
    site = installed_plugin(tmp_path / "site", "listener", LISTENER)
    environ = {k: v for k, v in os.environ.items() if k != "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD"}
    environ["PYTHONPATH"] = os.pathsep.join([str(site), str(ROOT)])
    monkeypatch.setattr(cluster_harness, "ENV", environ)
    redis = redis_factory()
    made = make_table(redis.url, "listener", {"verifiable": True})
    table, tokens = made["table"], made["tokens"]
    processes = [Process(redis.url), Process(redis.url)]

    async def play() -> None:
        gm = Player(processes[0].port, table, tokens["gm"])
        await gm.join()
        hero = {"id": "hero", "name": "Hero", "controllers": ["player"],
                "sheet": dict(Listener.example_sheets["Hero"])}  # fmt: skip
        made = await gm.ask({"type": "actor.create", "id": "a", "actor": hero})
        assert made["type"] == "result", made
        assert processes[0].owns(table) and not processes[1].owns(table)
        far = Player(processes[1].port, table, tokens["player"])  # forwards
        near = Player(processes[0].port, table, tokens["player"])
        await far.join()
        await near.join()
        asked = {"type": "resolve", "id": "l1", "action": "listen", "actor": "hero"}
        reply = await far.ask_until_done(asked)
        assert reply["status"] == "secret" and "event" not in reply, reply
        seq = reply["seq"]
        for peer in (gm, far, near):
            await peer.until(lambda p=peer: p.seq >= seq, what=f"seq {seq}")
        whole = next(e for e in gm.events if e["seq"] == seq)
        assert whole["gm_only"] is True and whole["data"]["draws"]["stream"] == "gm", whole
        for peer in (far, near):
            seen = next(e for e in peer.events if e["seq"] == seq)
            assert seen["kind"] == "hidden" and "data" not in seen, seen
            assert "hears" not in json.dumps(peer.events)
        for peer in (gm, far, near):
            await peer.close()

    try:
        asyncio.run(play())
    finally:
        logs = [p.stop() for p in processes]
    assert "Traceback" not in "".join(logs), logs
