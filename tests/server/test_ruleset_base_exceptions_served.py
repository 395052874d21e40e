"""A ruleset's exception derived from ``BaseException`` only (``GeneratorExit``, a
class of its own) where the engine's guard of a ruleset's call does not stand, on a
real ``rollbridge serve`` (its plugin installed as a package, its own log format),
over real WebSockets:

- an exception whose ``__str__`` raises one: the engine's guard took it, but the
  server's log line of it failed (the text log's reading of what an exception says
  caught ``Exception`` only), the line was lost and the player's connection closed
  with 1011, its request unanswered;
- a refusal holding a ``Private`` whose ``instead`` raises one as it is read: it is
  read for a player alone, after the ruleset returned, where the refusal is answered
  (which caught ``Exception`` only): the same 1011.

Each is answered ``internal`` now, logged with its traceback, and the connection goes
on; the GM, who reads the value and never the ``instead``, still reads the refusal.
``KeyboardInterrupt`` there stays the operator's: the server stops, as on Ctrl-C."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect

from tests.conftest import created_table, installed_plugin, stop_process
from tests.hostile.conftest import _free_port

PLUGIN = """
    import rollbridge
    from rollbridge import ActionSpec, CommonState, PlayerView, Resolution, Ruleset
    from rollbridge.exceptions import RuleViolation
    from rollbridge.text import Messages, Private

    say = Messages("rb_stopping")
    TOUGH = say("tough", "too tough: armour {armor}")

    class Stopped(BaseException):
        "A BaseException of the ruleset's own."

    RAISED = {"GeneratorExit": GeneratorExit, "own": Stopped,
              "KeyboardInterrupt": KeyboardInterrupt}

    class Words(ValueError):
        "An exception whose words raise."
        def __init__(self, by):
            self.by = by
        def __str__(self):
            raise RAISED[self.by]("armour 17")

    class Unreadable:
        "What players read instead of the armour: it raises as it is read."
        def __init__(self, by):
            self.by = by
        def __str__(self):
            raise RAISED[self.by]("armour 17")
        __repr__ = __str__
        def __format__(self, spec):
            raise RAISED[self.by]("armour 17")

    PARAMS = {"type": "object", "properties": {"by": {"type": "string"}}}

    class Stopping(Ruleset):
        id = "stopping"
        name = "Stopping"
        version = "1.0.0"
        actions = {
            "words": ActionSpec("words", "Raise Words.", params=PARAMS, max_targets=1),
            "instead": ActionSpec("instead", "Refuse.", params=PARAMS, max_targets=1),
        }
        def validate_sheet(self, sheet): return dict(sheet)
        def initial_state(self, sheet): return {}
        def common_state(self, actor): return CommonState("ok")
        def player_view(self, actor, settings): return PlayerView(CommonState("ok"))
        def resolve(self, context, dice):
            by, target = context.params["by"], context.targets[0]
            if context.action == "words":
                raise Words(by)
            armor = Private(target.sheet["ac"], of=target.id, aspect="sheet",
                            instead=Unreadable(by))
            raise RuleViolation(TOUGH(armor=armor), code="too_tough")

    @rollbridge.hookimpl
    def register_rulesets(register):
        register(Stopping())
"""


class Served:
    """``rollbridge serve`` on a table of the ruleset above, its log in a file."""

    def __init__(self, root: Path) -> None:
        site = installed_plugin(root / "site", "stopping", PLUGIN)
        env = {k: v for k, v in os.environ.items() if not k.startswith("ROLLBRIDGE_")}
        env["PYTHONPATH"] = str(site)
        db = root / "stopping.db"
        created = created_table(db, "stopping", "Stopping", env)
        self.table, self.tokens = created["table"], created["tokens"]
        self.port = _free_port()
        self.log = root / "serve.log"
        with self.log.open("w") as sink:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "rollbridge", "serve", "--port", str(self.port),
                 "--db", str(db), "--no-demo"],
                stdout=sink, stderr=subprocess.STDOUT, env=env,
            )  # fmt: skip
        deadline = time.monotonic() + 30
        while "listening on" not in self.log_text():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("server did not start:\n" + self.log_text())
            time.sleep(0.05)

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    async def join(self, role: str) -> ClientConnection:
        ws = await connect(f"ws://127.0.0.1:{self.port}/")
        hello = {"type": "hello", "table": self.table, "token": self.tokens[role]}
        welcome = await request(ws, hello)
        assert welcome["type"] == "welcome", welcome
        return ws


_ids = iter(range(1, 10**6))


async def request(ws: ClientConnection, message: dict[str, Any]) -> dict[str, Any]:
    """Send ``message`` and read up to its reply (the frames between skipped)."""
    rid = f"q{next(_ids)}"
    await ws.send(json.dumps({**message, "id": rid}))

    async def reply() -> dict[str, Any]:
        while True:
            frame = json.loads(await ws.recv())
            if frame.get("id") == rid:
                return frame

    return await asyncio.wait_for(reply(), 30)


def resolve(action: str, by: str) -> dict[str, Any]:
    return {"type": "resolve", "action": action, "actor": "hero", "targets": ["orc"],
            "params": {"by": by}}  # fmt: skip


@pytest.fixture
def served(tmp_path: Path):
    server = Served(tmp_path)
    yield server
    stop_process(server.process)


async def _seat(gm: ClientConnection) -> None:
    for actor in (
        {"id": "hero", "name": "Hero", "sheet": {"ac": 12}, "controllers": ["player"]},
        {"id": "orc", "name": "Orc", "sheet": {"ac": 17}, "controllers": []},
    ):
        made = await request(gm, {"type": "actor.create", "actor": actor})
        assert made["type"] == "result", made


async def test_a_base_exception_read_after_the_ruleset_returned_is_answered_internal(served):
    gm = await served.join("gm")
    await _seat(gm)
    player = await served.join("player")
    for by in ("GeneratorExit", "own"):
        for action in ("words", "instead"):
            reply = await request(player, resolve(action, by))
            assert (reply["type"], reply["code"]) == ("error", "internal"), (action, by, reply)
            assert "17" not in json.dumps(reply), reply
            # the same connection goes on
            rolled = await request(player, {"type": "roll", "formula": "1d6"})
            assert rolled["status"] == "done", rolled
        told = await request(gm, resolve("instead", by))  # the GM reads no instead
        assert (told["code"], told["message"]) == ("too_tough", "too tough: armour 17"), told
    await player.close()
    await gm.close()
    assert stop_process(served.process) == 0
    log = served.log_text()
    assert log.count("ruleset 'stopping' failed at table") == 2, log
    assert log.count("the refusal of request") == 2, log
    assert "Task exception was never retrieved" not in log, log
    assert "Exception in default exception handler" not in log, log


async def test_a_keyboard_interrupt_read_there_still_stops_the_server(served):
    gm = await served.join("gm")
    await _seat(gm)
    player = await served.join("player")
    await player.send(json.dumps({**resolve("instead", "KeyboardInterrupt"), "id": "stop"}))
    await asyncio.get_running_loop().run_in_executor(None, served.process.wait, 60)
    assert served.process.poll() is not None
    assert "KeyboardInterrupt" in served.log_text()
