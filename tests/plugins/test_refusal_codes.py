"""A ruleset's refusal with a code clients act on — rollbridge's own (``busy``: the
browser client sends the request again; ``internal``) or one the browser client gives
a request it could not send (``stopped``: the Foundry module holds it again) — is the
ruleset's failure at a table, not a refusal every client misreads (author27: the
conformance suite caught only the refusals its examples meet, and one for other
parameters reached the client as ``busy``). docs/plugins.md, "Errors"."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

from rollbridge.contract import Actor, CommonState
from rollbridge.contract_codes import ACTED_ON
from rollbridge.dice.sources import ScriptedDice
from rollbridge.engine.model import Principal
from rollbridge.exceptions import (
    Busy,
    InternalError,
    InvalidParams,
    InvalidRequest,
    RollbridgeError,
    RuleViolation,
)
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore
from rollbridge.testing import PLAYER, RulesetHarness
from tests.server.conftest import Boom, Peer, start

from .rollunder import RollUnder

GM = Principal("gm", "gm", "tok-gm")


class RefusesAs(RollUnder):
    """Refuses a test against a guard of 9 (no example sheet has one) with ``code``
    (a ``RuleViolation``), or raises ``refusal`` so."""

    def __init__(self, code: str, refusal: RollbridgeError | None = None) -> None:
        self.code = code
        self.refusal = refusal

    def resolve(self, context: Any, dice: Any) -> Any:
        if context.targets[0].sheet["guard"] == 9:
            raise self.refusal or RuleViolation("the guard is too high", code=self.code)
        return super().resolve(context, dice)


class NoAmmo(RuleViolation):
    """A refusal class of a ruleset's own that keeps RuleViolation's code."""


def _table(
    code: str, settings: dict | None = None, refusal: RollbridgeError | None = None
) -> RulesetHarness:
    table = RulesetHarness(RefusesAs(code, refusal), settings=settings)
    table.add_actor("Hero", {"skill": 7}, actor_id="h", player=True)
    table.add_actor("Wall", {"skill": 1, "guard": 9}, actor_id="w")
    return table


def _failed_logged(caplog: Any, table: RulesetHarness, target: str) -> str:
    """The player's test against ``target`` answered ``internal``, "ruleset 'rollunder'
    failed", the table unchanged: what the engine's log said of it."""
    seq = table.events()[-1].seq
    request = {"type": "resolve", "id": "r1", "action": "test", "actor": "h", "targets": [target]}
    with caplog.at_level(logging.ERROR, "rollbridge.engine"), pytest.raises(InternalError) as e:
        table.service.handle(table.table_id, request, PLAYER, ScriptedDice([1]))
    assert e.value.code == "internal" and str(e.value) == "ruleset 'rollunder' failed"
    assert table.events()[-1].seq == seq  # nothing changed
    [said] = [r.getMessage() for r in caplog.records if r.name == "rollbridge.engine"]
    return said


@pytest.mark.parametrize(
    ("code", "whose"),
    [
        ("busy", "every client sends the request again"),
        ("internal", "the Foundry module holds"),
        ("stopped", "the Foundry module holds"),
        # acted on in a reply, though no class of rollbridge's has them (rev27a): the
        # web view asks the GM's dice for an approval refused so, the Foundry module
        # marks the approval settled while the request still waits
        ("held_dice_secret", "the web view asks for the GM's dice"),
        ("not_pending", "the Foundry module marks the approval settled"),
        ("unauthorized", "the token refused"),
        ("odds_hidden", "the NPC's odds hidden"),
    ],
)
@pytest.mark.parametrize("approval", [False, True])
def test_a_refusal_with_a_code_clients_act_on_is_the_rulesets_failure(
    caplog, code: str, whose: str, approval: bool
) -> None:
    said = _failed_logged(caplog, _table(code, {"approval": True} if approval else None), "w")
    assert f"ruleset 'rollunder' refused with the code {code!r}" in said and whose in said


@pytest.mark.parametrize(
    ("code", "refusal"),
    [
        ("too_high", None),
        ("rule_violation", None),
        # a refusal class of the ruleset's own that keeps RuleViolation's code: the
        # table read it as the ruleset's failure (rev27a), as it did a code no client
        # acts on that happens to be the name of one of rollbridge's classes'
        ("rule_violation", NoAmmo("no ammunition left")),
        ("encounter_state", None),
        ("not_found", None),
    ],
)
def test_a_refusal_no_client_acts_on_reaches_the_client(
    code: str, refusal: RuleViolation | None
) -> None:
    """At the table itself (the harness raises the refusal as the ruleset did)."""
    table = _table(code, refusal=refusal)
    request = {"type": "resolve", "id": "r1", "action": "test", "actor": "h", "targets": ["w"]}
    with pytest.raises(RuleViolation) as e:
        table.service.handle(table.table_id, request, PLAYER, ScriptedDice([1]))
    assert e.value.code == code


class Opaque(str):
    """A code of a ruleset's own str class that compares with no plain string (its
    hash and equality its own): the wire sends the string it holds all the same."""

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)


@pytest.mark.parametrize(
    "refusal",
    [
        Busy("the rules are busy"),
        InvalidParams("guard", code="rate_limited"),
        # until 7 December 2026, late, read by its own equality: not `busy`, passed
        RuleViolation("opaque", code=Opaque("busy")),
    ],
)
def test_any_typed_refusal_with_a_code_clients_act_on_is_the_rulesets_failure(
    caplog, refusal: RollbridgeError
) -> None:
    """Not a ``RuleViolation`` alone (rev27a): rollbridge's own ``Busy`` raised by the
    ruleset, or ``InvalidParams`` given the code ``rate_limited``, reached the client as
    they were, which sent the request again and again."""
    said = _failed_logged(caplog, _table("", refusal=refusal), "w")
    assert f"refused with the code {refusal.code!r}" in said


class RefusesInItsViews(RollUnder):
    """Refuses ``busy`` as it makes a wounded actor's common state: met as the table
    stages the event's views, not in a call of :meth:`Table.call_ruleset`."""

    def common_state(self, actor: Actor) -> CommonState:
        if actor.state["wounds"]:
            raise RuleViolation("no state now", code="busy")
        return super().common_state(actor)


def test_a_refusal_with_a_code_clients_act_on_in_a_view_is_the_rulesets_failure(caplog) -> None:
    """Before (rev27a), ``busy`` from ``common_state`` as the views were made reached
    the client as it was: the browser client sent the request again and again."""
    table = RulesetHarness(RefusesInItsViews())
    table.add_actor("Hero", {"skill": 7}, actor_id="h", player=True)
    table.add_actor("Bandit", {"skill": 5, "guard": 2}, actor_id="b")
    assert "refused with the code 'busy'" in _failed_logged(caplog, table, "b")


def test_the_harness_raises_the_refusal_so_a_test_names_its_code() -> None:
    """The conformance suite reads refusals through the harness: it names the code
    ("the refusal's code 'busy' is one of rollbridge's own …"), not "internal"."""
    with pytest.raises(RuleViolation) as e:
        _table("busy").resolve("test", actor="h", targets=["w"], dice=[1], who=PLAYER)
    assert e.value.code == "busy"


def _stored_table(
    tmp_path: Path, code: str, refusal: RollbridgeError | None = None
) -> tuple[PluginHost, Path, dict[str, str]]:
    """A SQLite file holding the table ``codes`` of :class:`RefusesAs` ``code`` (or
    ``refusal``), with
    the player's Hero, the NPCs Wall (guard 9: refused) and Bandit; its host and tokens."""
    host = PluginHost({"rollunder": Boom(RefusesAs(code, refusal))},
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
    return host, path, tokens


@pytest.mark.parametrize(
    ("code", "logged"), [("busy", "code 'busy'"), ("No Skill", "malformed code 'No Skill'")]
)
async def test_a_player_over_a_real_server_reads_internal_and_the_table_goes_on(
    tmp_path, caplog, code: str, logged: str
):
    """Over a real port and a SQLite file: the player's request refused ``busy`` by the
    ruleset is answered ``internal`` (the browser client sent a ``busy`` request again),
    and the next request is answered as ever. So is one refused "No Skill", which no
    client could key on (a code is snake case: docs/protocol.md, "Error codes") and
    reached the player as the reply's code (author28); the server's log names the
    ruleset, the code and the table."""
    host, path, tokens = _stored_table(tmp_path, code)
    server, store = await start(path, host)
    try:
        peer = Peer(await connect(server.url))
        await peer.request({"type": "hello", "table": "codes", "token": tokens["player"]})
        wall = {"type": "resolve", "action": "test", "actor": "hero", "targets": ["wall"]}
        with caplog.at_level(logging.ERROR, "rollbridge.engine"):
            reply = await peer.request(wall)
        assert reply["type"] == "error" and reply["code"] == "internal", reply
        assert reply["message"] == "ruleset 'rollunder' failed", reply
        said = [r.getMessage() for r in caplog.records if r.name == "rollbridge.engine"]
        assert any(f"ruleset 'rollunder' refused with the {logged} at table 'codes'" in line
                   for line in said), said  # fmt: skip
        bandit = {**wall, "targets": ["bandit"]}
        assert (await peer.request(bandit))["status"] == "done"
        await peer.close()
    finally:
        await server.stop()
        store.close()


@pytest.mark.parametrize("code", ["No Skill", "", "_hidden", "42", "x" * 65])
def test_a_malformed_code_is_the_rulesets_failure(caplog, code: str) -> None:
    """At the table (the conformance suite failed it; the server sent it on)."""
    said = _failed_logged(caplog, _table(code), "w")
    assert f"ruleset 'rollunder' refused with the malformed code {code!r}" in said


#: The clients' sets of codes a reply is acted on by (file, constant).
CLIENT_SETS = [
    ("adapters/client/connection.mjs", "RETRIED"),
    ("adapters/client/connection.mjs", "TRANSIENT_HELLO"),
    ("core/server/webui/table.mjs", "FOR_NOW"),
    ("adapters/foundry/module/scripts/core/held.mjs", "FOR_NOW"),
    ("adapters/foundry/module/scripts/foundry/client.mjs", "READ_AGAIN"),
]


@pytest.mark.parametrize(("path", "name"), CLIENT_SETS)
def test_every_code_a_client_set_acts_on_is_one_a_table_keeps_from_rulesets(
    path: str, name: str
) -> None:
    """A code added to a client's set of codes it acts on is added to
    :data:`~rollbridge.contract_codes.ACTED_ON` too (rev27a: ``held_dice_secret`` and
    ``not_pending`` were acted on and reached clients from a ruleset)."""
    source = (Path(__file__).parents[2] / path).read_text(encoding="utf-8")
    found = re.search(rf"const {name} = new Set\(\[(.*?)\]\)", source, re.DOTALL)
    assert found is not None, f"{path}: no {name}"
    codes = re.findall(r'"([a-z_]+)"', found[1])
    assert codes and not set(codes) - set(ACTED_ON), (path, name, codes)


def test_every_hello_code_rollbridge_connect_tries_again_is_kept_from_rulesets() -> None:
    from rollbridge.cli.reconnect import TRY_LATER

    assert not TRY_LATER - set(ACTED_ON)


def test_a_code_of_a_str_class_of_the_rulesets_own_is_judged_as_the_string_it_holds() -> None:
    """A ruleset's ``enum.StrEnum`` code reaches the client as the plain string it
    holds (``contract_codes.wire_code``): judged malformed by its class, a well-formed
    ``"no_ammo"`` was read as the ruleset's failure, and an ``invalid_request`` never
    reached the client to be marked (the merge of author28's check and rev28f's)."""
    import enum

    from rollbridge.contract_codes import well_formed

    class Code(enum.StrEnum):
        NO_AMMO = "no_ammo"
        SPACED = "No Skill"

    assert well_formed(Code.NO_AMMO)
    assert not well_formed(Code.SPACED)
    assert not well_formed(3) and not well_formed(b"no_ammo")


class UnreadableCode(RuleViolation):
    """A refusal class of a ruleset's own whose ``code`` property raises."""

    @property  # type: ignore[override]
    def code(self) -> str:  # type: ignore[override]
        raise LookupError("no code for this refusal")


def test_a_refusal_whose_code_raises_is_the_rulesets_failure(caplog) -> None:
    """Before (author29), the ``LookupError`` of the code's property escaped
    :meth:`Table.call_ruleset` as it read the code: a traceback, no reply."""
    said = _failed_logged(caplog, _table("", refusal=UnreadableCode("no code")), "w")
    assert "ruleset 'rollunder' refused at table" in said and "LookupError" in said, said


class UnreadableDetails(RuleViolation):
    """A refusal class of a ruleset's own whose ``details`` property raises."""

    @property  # type: ignore[override]
    def details(self) -> dict:  # type: ignore[override]
        raise LookupError("no details for this refusal")

    @details.setter
    def details(self, value: dict) -> None:
        pass


def test_a_refusal_whose_details_raise_is_the_rulesets_failure(caplog) -> None:
    """Before (author29), the reply read the details and failed: answered "the server
    failed; try again", logged naming the table and the request, never the ruleset."""
    said = _failed_logged(caplog, _table("", refusal=UnreadableDetails("x", code="no_x")), "w")
    assert "ruleset 'rollunder' refused at table" in said and "LookupError" in said, said
    assert "details" in said, said


class UnreadableInItsViews(RollUnder):
    """Refuses with :class:`UnreadableCode` as it makes a wounded actor's common state
    (met as the table stages the event's views)."""

    def common_state(self, actor: Actor) -> CommonState:
        if actor.state["wounds"]:
            raise UnreadableCode("no state now")
        return super().common_state(actor)


def test_a_refusal_whose_code_raises_in_a_view_is_the_rulesets_failure(caplog) -> None:
    table = RulesetHarness(UnreadableInItsViews())
    table.add_actor("Hero", {"skill": 7}, actor_id="h", player=True)
    table.add_actor("Bandit", {"skill": 5, "guard": 2}, actor_id="b")
    assert "LookupError" in _failed_logged(caplog, table, "b")


def test_a_kept_refusal_is_marked_as_a_copy_and_stays_the_rulesets() -> None:
    """A ruleset that keeps one refusal and raises it again: the table marks a copy
    (``details.origin``), which the client reads; the ruleset's own object keeps the
    details it was given. Before (author29) the table set ``details`` on it."""
    kept = InvalidRequest("the guard is too high", details={"field": "guard"})
    table = _table("", refusal=kept)
    request = {"type": "resolve", "id": "r1", "action": "test", "actor": "h", "targets": ["w"]}
    for _ in range(2):
        with pytest.raises(InvalidRequest) as e:
            table.service.handle(table.table_id, request, PLAYER, ScriptedDice([1]))
        assert e.value.details == {"field": "guard", "origin": "ruleset"}
        assert e.value is not kept and e.value.render() == "the guard is too high"
    assert kept.details == {"field": "guard"}
