"""A ruleset's refusal with a code clients act on — rollbridge's own (``busy``: the
browser client sends the request again; ``internal``) or one the browser client gives
a request it could not send (``stopped``: the Foundry module holds it again) — is the
ruleset's failure at a table, not a refusal every client misreads (author27: the
conformance suite caught only the refusals its examples meet, and one for other
parameters reached the client as ``busy``). docs/plugins.md, "Errors"."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from websockets.asyncio.client import connect

from rollbridge.dice.sources import ScriptedDice
from rollbridge.engine.model import Principal
from rollbridge.exceptions import InternalError, RuleViolation
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore
from rollbridge.testing import PLAYER, RulesetHarness
from tests.server.conftest import Boom, Peer, start

from .rollunder import RollUnder

GM = Principal("gm", "gm", "tok-gm")


class RefusesAs(RollUnder):
    """Refuses a test against a guard of 9 (no example sheet has one) with ``code``."""

    def __init__(self, code: str) -> None:
        self.code = code

    def resolve(self, context: Any, dice: Any) -> Any:
        if context.targets[0].sheet["guard"] == 9:
            raise RuleViolation("the guard is too high", code=self.code)
        return super().resolve(context, dice)


def _table(code: str, settings: dict | None = None) -> RulesetHarness:
    table = RulesetHarness(RefusesAs(code), settings=settings)
    table.add_actor("Hero", {"skill": 7}, actor_id="h", player=True)
    table.add_actor("Wall", {"skill": 1, "guard": 9}, actor_id="w")
    return table


@pytest.mark.parametrize(
    ("code", "whose"),
    [
        ("busy", "one of rollbridge's own"),
        ("internal", "one of rollbridge's own"),
        ("forbidden", "one of rollbridge's own"),
        ("stopped", "one the browser client gives"),
    ],
)
@pytest.mark.parametrize("approval", [False, True])
def test_a_refusal_with_a_code_clients_act_on_is_the_rulesets_failure(
    caplog, code: str, whose: str, approval: bool
) -> None:
    table = _table(code, {"approval": True} if approval else None)
    seq = table.events()[-1].seq
    request = {"type": "resolve", "id": "r1", "action": "test", "actor": "h", "targets": ["w"]}
    with caplog.at_level(logging.ERROR, "rollbridge.engine"), pytest.raises(InternalError) as e:
        table.service.handle(table.table_id, request, PLAYER, ScriptedDice([1]))
    assert e.value.code == "internal" and str(e.value) == "ruleset 'rollunder' failed"
    [said] = [r.getMessage() for r in caplog.records if r.name == "rollbridge.engine"]
    assert f"ruleset 'rollunder' refused with the code {code!r}" in said and whose in said
    assert table.events()[-1].seq == seq  # nothing changed


@pytest.mark.parametrize("code", ["too_high", "rule_violation"])
def test_a_code_of_the_rulesets_own_reaches_the_client(code: str) -> None:
    with pytest.raises(RuleViolation) as e:
        _table(code).resolve("test", actor="h", targets=["w"], dice=[1], who=PLAYER)
    assert e.value.code == code


def test_the_harness_raises_the_refusal_so_a_test_names_its_code() -> None:
    """The conformance suite reads refusals through the harness: it names the code
    ("the refusal's code 'busy' is one of rollbridge's own …"), not "internal"."""
    with pytest.raises(RuleViolation) as e:
        _table("busy").resolve("test", actor="h", targets=["w"], dice=[1], who=PLAYER)
    assert e.value.code == "busy"


async def test_a_player_over_a_real_server_reads_internal_and_the_table_goes_on(tmp_path):
    """Over a real port and a SQLite file: the player's request refused ``busy`` by the
    ruleset is answered ``internal`` (the browser client sent a ``busy`` request again),
    and the next request is answered as ever."""
    host = PluginHost({"rollunder": Boom(RefusesAs("busy"))},
                      environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})  # fmt: skip
    path = tmp_path / "codes.db"
    seed = SQLiteStore(path)
    service = TableService(seed, host)
    _, tokens = service.create_table("Codes", "rollunder", table_id="codes")
    for index, (name, sheet, controllers) in enumerate(
        [("Hero", {"skill": 7}, ["player"]), ("Wall", {"skill": 1, "guard": 9}, []),
         ("Bandit", {"skill": 5, "guard": 2}, [])]
    ):  # fmt: skip
        actor = {"id": name.lower(), "name": name, "controllers": controllers, "sheet": sheet}
        service.handle("codes", {"type": "actor.create", "id": f"a{index}", "actor": actor}, GM)
    seed.close()
    server, store = await start(path, host)
    try:
        peer = Peer(await connect(server.url))
        await peer.request({"type": "hello", "table": "codes", "token": tokens["player"]})
        wall = {"type": "resolve", "action": "test", "actor": "hero", "targets": ["wall"]}
        reply = await peer.request(wall)
        assert reply["type"] == "error" and reply["code"] == "internal", reply
        assert reply["message"] == "ruleset 'rollunder' failed", reply
        bandit = {**wall, "targets": ["bandit"]}
        assert (await peer.request(bandit))["status"] == "done"
        await peer.close()
    finally:
        await server.stop()
        store.close()
