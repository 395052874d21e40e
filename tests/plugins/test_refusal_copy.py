"""A ruleset's ``invalid_request`` is marked the ruleset's on a copy (author29,
``contract_codes._copied``), its own object left as it was. The copy is the refusal the
client reads: it must be made for any refusal class a ruleset may write — one with its
own ``__new__`` taking other arguments than those kept in ``args``, one that keeps its
words in ``__slots__`` — and read as the ruleset's own object reads (rev29a: the first
was answered ``internal``, "ruleset 'rollunder' failed", a refusal made the ruleset's
failure by the copy alone; the second reached the client with another message).

A refusal whose ``message`` cannot be read (a property of its class's that raises) is
the ruleset's failure, as one whose code or details cannot be (rev29a: the reply read
it and failed as the server's, "the server failed; try again", naming no ruleset)."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from websockets.asyncio.client import connect

from rollbridge.contract import Actor, CommonState
from rollbridge.dice.sources import ScriptedDice
from rollbridge.exceptions import InvalidRequest
from rollbridge.testing import PLAYER, RulesetHarness
from tests.server.conftest import Peer, start

from .rollunder import RollUnder
from .test_refusal_codes import _failed_logged, _stored_table, _table

REQUEST = {"type": "resolve", "id": "r1", "action": "test", "actor": "h", "targets": ["w"]}


class NoAmmo(InvalidRequest):
    """Made with a keyword its ``__new__`` requires, which ``args`` does not hold."""

    def __new__(cls, message: str, *, weapon: str) -> NoAmmo:
        return super().__new__(cls, message)

    def __init__(self, message: str, *, weapon: str) -> None:
        self.weapon = weapon
        super().__init__(message, details={"weapon": weapon})


class Unarmed(InvalidRequest):
    """Its own ``__new__`` checks its one argument, a weapon, and refuses any other
    (a ``ValueError``): the copy's ``args``, its message, is none."""

    WEAPONS = ("bow", "sword")

    def __new__(cls, weapon: str) -> Unarmed:
        if weapon not in cls.WEAPONS:
            raise ValueError(f"no weapon {weapon!r}")
        return super().__new__(cls, weapon)

    def __init__(self, weapon: str) -> None:
        super().__init__(f"no {weapon} at hand", details={"weapon": weapon})


class TooHigh(InvalidRequest):
    """Keeps what it says in a slot, read by its own ``message``."""

    __slots__ = ("why",)

    def __init__(self, why: str) -> None:
        self.why = why
        super().__init__("unused", details={"field": "guard"})

    @property  # type: ignore[override]
    def message(self) -> str:  # type: ignore[override]
        return f"refused: {self.why}"

    @message.setter
    def message(self, value: str) -> None:
        pass


@pytest.mark.parametrize(
    ("make", "said", "details"),
    [
        (lambda: NoAmmo("no arrows left", weapon="bow"), "no arrows left", {"weapon": "bow"}),
        (lambda: Unarmed("bow"), "no bow at hand", {"weapon": "bow"}),
        (
            lambda: TooHigh("the guard is too high"),
            "refused: the guard is too high",
            {"field": "guard"},
        ),
    ],
    ids=["own-new-with-a-keyword", "own-new-that-checks", "slots"],
)
def test_a_refusal_of_a_rulesets_own_class_reaches_the_client_as_it_reads(make, said, details):
    kept = make()
    table = _table("", refusal=kept)
    for _ in range(2):  # kept and raised again: the same each time
        with pytest.raises(type(kept)) as e:
            table.service.handle(table.table_id, REQUEST, PLAYER, ScriptedDice([1]))
        assert e.value is not kept
        assert e.value.to_dict() == {
            "code": "invalid_request",
            "message": said,
            "details": {**details, "origin": "ruleset"},
        }
    assert kept.details == details and kept.render() == said


class Unsayable(InvalidRequest):
    """A refusal class of a ruleset's own whose ``message`` property raises."""

    @property  # type: ignore[override]
    def message(self) -> str:  # type: ignore[override]
        raise LookupError("no words for this refusal")

    @message.setter
    def message(self, value: str) -> None:
        pass


def test_a_refusal_whose_message_raises_is_the_rulesets_failure(caplog) -> None:
    said = _failed_logged(caplog, _table("", refusal=Unsayable("x", details={"a": 1})), "w")
    assert "ruleset 'rollunder' refused at table" in said and "LookupError" in said, said
    assert "a message" in said, said


def test_a_refusal_whose_message_raises_logs_no_server_failure(caplog) -> None:
    """Nothing of the protocol's ("the refusal of request 'r1' failed") is logged."""
    table = _table("", refusal=Unsayable("x"))
    with caplog.at_level(logging.ERROR), pytest.raises(Exception):  # noqa: B017
        table.service.handle(table.table_id, REQUEST, PLAYER, ScriptedDice([1]))
    assert [r.name for r in caplog.records] == ["rollbridge.engine"], caplog.records


class Halt(BaseException):
    """A ruleset's own exception derived from ``BaseException`` alone."""


class HaltsAsCopied(InvalidRequest):
    """Its own ``__new__`` raises :class:`Halt` but where it is given ``ok``: made so
    by the ruleset, never by the table's copy."""

    def __new__(cls, *args: Any, ok: bool = False) -> HaltsAsCopied:
        if not ok:
            raise Halt("not made by its ruleset")
        return super().__new__(cls, *args)

    def __init__(self, message: str, *, ok: bool = False) -> None:
        super().__init__(message)


class HaltsAsMarked(InvalidRequest):
    """Its ``details`` setter raises :class:`Halt` for details marked ``origin``."""

    @property  # type: ignore[override]
    def details(self) -> dict:  # type: ignore[override]
        return self.__dict__.get("kept", {})

    @details.setter
    def details(self, value: dict) -> None:
        if "origin" in value:
            raise Halt("no origin here")
        self.__dict__["kept"] = value


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        # copied by its base's __new__: the refusal as the ruleset meant it
        (
            lambda: HaltsAsCopied("x", ok=True),
            {"code": "invalid_request", "message": "x", "details": {"origin": "ruleset"}},
        ),
        # never marked: the ruleset's failure
        (lambda: HaltsAsMarked("x"), {"code": "internal", "message": "ruleset 'rollunder' failed"}),
    ],
    ids=["in-new", "in-details-setter"],
)
async def test_a_base_exception_as_a_refusal_is_marked_is_no_closed_connection(
    tmp_path, caplog, make, expected
) -> None:
    """Over a real port and a SQLite file, the player's request refused so is answered
    (before rev29a the ``Halt`` escaped the call into the ruleset: the connection closed,
    1011), and the next request is done."""
    host, path, tokens = _stored_table(tmp_path, "", make())
    server, store = await start(path, host)
    try:
        peer = Peer(await connect(server.url))
        await peer.request({"type": "hello", "table": "codes", "token": tokens["player"]})
        wall = {"type": "resolve", "action": "test", "actor": "hero", "targets": ["wall"]}
        with caplog.at_level(logging.ERROR, "rollbridge.engine"):
            reply = await peer.request(wall)
        assert reply["type"] == "error", reply
        assert {key: reply.get(key) for key in expected} == expected, reply
        if expected["code"] == "internal":
            said = [r.getMessage() for r in caplog.records if r.name == "rollbridge.engine"]
            assert any("could not be marked as the ruleset's" in line for line in said), said
        bandit = {**wall, "targets": ["bandit"]}
        assert (await peer.request(bandit))["status"] == "done"
        await peer.close()
    finally:
        await server.stop()
        store.close()


class UnsayableInItsViews(RollUnder):
    """Refuses with :class:`Unsayable` as it makes a wounded actor's common state (met
    as the table stages the event's views, not in a call into the ruleset)."""

    def common_state(self, actor: Actor) -> CommonState:
        if actor.state["wounds"]:
            raise Unsayable("no state now")
        return super().common_state(actor)


def test_a_refusal_whose_message_raises_in_a_view_is_the_rulesets_failure(caplog) -> None:
    table = RulesetHarness(UnsayableInItsViews())
    table.add_actor("Hero", {"skill": 7}, actor_id="h", player=True)
    table.add_actor("Bandit", {"skill": 5, "guard": 2}, actor_id="b")
    said = _failed_logged(caplog, table, "b")
    assert "with a message that cannot be read" in said and "LookupError" in said, said
