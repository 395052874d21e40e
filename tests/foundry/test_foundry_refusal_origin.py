"""Whose an ``invalid_request`` is: the Foundry module reads ``details.field`` ``at``
(the table's log no longer reaches back there: a held request dropped, the player
told) and ``….repeat`` (a server older than ``repeat``: the request probed and sent
again as a new one) — until 7 December 2026, night, from a ruleset's own validation
too. The table marks a ruleset's ``invalid_request`` ``details.origin: "ruleset"``
whatever the ruleset put there (docs/protocol.md, "Error codes"), and the module acts
on an unmarked one alone (core/held.mjs; tests/foundry/js/held.test.mjs). Over a real
port and a SQLite file, in the Foundry dialect."""

from __future__ import annotations

import enum
from typing import Any

import pytest
from websockets.asyncio.client import connect

from rollbridge.engine.model import Principal
from rollbridge.exceptions import InternalError, InvalidRequest, RollbridgeError, RuleViolation
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore
from tests.plugins.rollunder import RollUnder
from tests.plugins.test_refusal_codes import Opaque
from tests.server.conftest import Boom, Peer, start

GM = Principal("gm", "gm", "tok-gm")


class Code(enum.StrEnum):
    """A ruleset's codes as an enum of strings."""

    INVALID = "invalid_request"


#: What the ruleset raises against the wall, by the test's name.
REFUSALS: dict[str, RollbridgeError] = {
    "at": InvalidRequest("at: the ruleset's own check", details={"field": "at"}),
    "repeat": InvalidRequest("x", details={"field": "foundry.resolve.repeat"}),
    # a ruleset that writes the mark itself: overwritten, never taken as the server's
    "forged": InvalidRequest("x", details={"field": "at", "origin": "server"}),
    "coded": RuleViolation("x", code="invalid_request", details={"field": "at"}),
    "odd": InvalidRequest("x", details=None),
    # the code in a str class of the ruleset's: the wire sends "invalid_request" all the
    # same, and until 7 December 2026, late, none was marked
    "enum": RuleViolation("x", code=Code.INVALID, details={"field": "at"}),
    "opaque": RuleViolation("x", code=Opaque("invalid_request"), details={"field": "at"}),
}


class RefusesWith(RollUnder):
    """Raises ``refusal`` for a test against the wall (guard 9)."""

    def __init__(self, refusal: RollbridgeError) -> None:
        self.refusal = refusal

    def resolve(self, context: Any, dice: Any) -> Any:
        if context.targets[0].sheet.get("guard") == 9:
            raise self.refusal
        return super().resolve(context, dice)


def _seeded(
    tmp_path, ruleset: RollUnder, actors: dict[str, tuple[dict, list[str]]], settings=None
) -> tuple[PluginHost, Any, dict[str, str]]:
    """A host of ``ruleset`` (wrapped in Boom), a SQLite file seeded with its table
    ``origin`` holding an actor of each of ``actors`` (by name, its id the name in lower
    case: its sheet and controllers) and ``settings``, and the table's tokens."""
    host = PluginHost({"rollunder": Boom(ruleset)},
                      environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})  # fmt: skip
    path = tmp_path / "origin.db"
    seed = SQLiteStore(path)
    service = TableService(seed, host)
    _, tokens = service.create_table("Origin", "rollunder", table_id="origin")
    for index, (name, (sheet, controllers)) in enumerate(actors.items()):
        actor = {"id": name.lower(), "name": name, "controllers": controllers, "sheet": sheet}
        service.handle("origin", {"type": "actor.create", "id": f"a{index}", "actor": actor}, GM)
    if settings:
        service.handle("origin", {"type": "settings", "id": "s", "settings": settings}, GM)
    seed.close()
    return host, path, tokens


async def _asked(
    tmp_path, ruleset: RollUnder, sheets: dict[str, dict], asks: list[dict]
) -> list[dict]:
    """The replies to ``asks``, sent in turn by the GM in the Foundry dialect over a
    real port, at a table of ``ruleset`` seeded with an NPC of each of ``sheets``
    (:func:`_seeded`)."""
    actors = {name: (sheet, []) for name, sheet in sheets.items()}
    host, path, tokens = _seeded(tmp_path, ruleset, actors)
    server, store = await start(path, host)
    try:
        peer = Peer(await connect(server.url))
        hello = {"type": "hello", "table": "origin", "token": tokens["gm"], "dialect": "foundry"}
        await peer.request(hello)
        replies = [await peer.request(ask) for ask in asks]
        await peer.close()
        return replies
    finally:
        await server.stop()
        store.close()


async def _refusals(tmp_path, refusal: RollbridgeError) -> list[dict]:
    """The GM's ``foundry.resolve`` against the wall, refused by the ruleset; a
    ``state`` at a seq past the latest, refused by the server; a rule violation of
    another code — each reply as the Foundry dialect sends it."""
    wall = {"type": "foundry.resolve", "action": "test", "actor": "hero", "targets": ["wall"]}
    sheets = {"Hero": {"skill": 7}, "Wall": {"skill": 1, "guard": 9}}
    # the table goes on after: a test against the hero is answered as ever
    asks = [wall, {"type": "state", "at": 999}, {**wall, "targets": ["hero"]}]
    return await _asked(tmp_path, RefusesWith(refusal), sheets, asks)


@pytest.mark.parametrize("name", sorted(REFUSALS))
async def test_a_rulesets_invalid_request_is_marked_its_own(tmp_path, name: str) -> None:
    ruleset, server_own, done = await _refusals(tmp_path, REFUSALS[name])
    assert ruleset["type"] == "error" and ruleset["code"] == "invalid_request", ruleset
    expected = {"field": "foundry.resolve.repeat"} if name == "repeat" else {"field": "at"}
    if name == "odd":
        expected = {}
    assert ruleset["details"] == {**expected, "origin": "ruleset"}, ruleset
    # the server's own refusal of an `at` past the latest seq: unmarked, as ever
    assert server_own["code"] == "invalid_request", server_own
    assert server_own["details"] == {"field": "at"}, server_own
    assert done.get("status") == "done", done


#: A ruleset's refusals of other codes: its own, and rollbridge's that no client acts on
#: in a ruleset's reply (contract_codes.ACTED_ON turns those into ``internal``) but the
#: Foundry module keys on in the server's (``dice_mismatch``: the hint to approve with
#: the GM's dice; ``unknown_actor``, ``not_found``, ``forbidden``: a draw sent again
#: without its actor — core/origin.mjs).
OTHER_CODES = [
    "too_high",
    "not_allowed",
    "dice_mismatch",
    "unknown_actor",
    "not_found",
    "forbidden",
]


@pytest.mark.parametrize("code", OTHER_CODES)
async def test_a_rulesets_refusal_of_any_code_is_marked_its_own(tmp_path, code: str) -> None:
    """Every refusal a ruleset gives carries ``details.origin: "ruleset"``, its own
    details kept; the server's own refusal of such a code carries none. Until 7
    December 2026, late night, only ``invalid_request`` was marked: a ruleset's
    ``dice_mismatch`` reached the module as the server's."""
    refusal = RuleViolation("the guard is too high", code=code, details={"field": "at"})
    ruleset, _, done = await _refusals(tmp_path, refusal)
    assert ruleset["code"] == code, ruleset
    assert ruleset["details"] == {"field": "at", "origin": "ruleset"}, ruleset
    assert done.get("status") == "done", done


async def test_the_servers_own_refusal_of_such_a_code_is_unmarked(tmp_path) -> None:
    """A target no actor of the table is: the server's ``unknown_actor``, no mark."""
    sheets = {"Hero": {"skill": 7}}
    ask = {"type": "foundry.resolve", "action": "test", "actor": "hero", "targets": ["ghost"]}
    [refused] = await _asked(tmp_path, RollUnder(), sheets, [ask])
    assert refused["type"] == "error" and refused["code"] == "unknown_actor", refused
    assert "origin" not in (refused.get("details") or {}), refused


async def test_a_rulesets_own_internal_error_is_read_as_its_failure_unmarked(tmp_path) -> None:
    """Rollbridge's ``InternalError`` raised by a ruleset is its failure, as the table's
    own ``internal`` is (the module holds a request refused so and asks again): not
    marked, so the module reads both alike."""
    ruleset, _, done = await _refusals(tmp_path, InternalError("the ruleset's own failure"))
    assert ruleset["code"] == "internal", ruleset
    assert "origin" not in (ruleset.get("details") or {}), ruleset
    assert done.get("status") == "done", done


class Unmarkable(InvalidRequest):
    """A ruleset's refusal whose details cannot be set (a read-only property)."""

    @property
    def details(self) -> dict[str, Any]:  # type: ignore[override]
        return {"field": "at"}

    @details.setter
    def details(self, value: Any) -> None:
        raise AttributeError("read-only")


async def test_a_rulesets_invalid_request_that_cannot_be_marked_is_its_failure(tmp_path) -> None:
    """Not sent unmarked: read as the ruleset's failure (``internal``, naming nothing of
    the refusal), the table going on."""
    ruleset, server_own, done = await _refusals(tmp_path, Unmarkable.__new__(Unmarkable))
    assert ruleset["code"] == "internal", ruleset
    assert "at" not in (ruleset.get("details") or {}).get("field", ""), ruleset
    assert server_own["details"] == {"field": "at"}, server_own
    assert done.get("status") == "done", done


class RefusesToShow(RollUnder):
    """Refuses, in its players' view of a wounded actor, with ``refusal``: a ruleset's
    call the table makes while staging an event's views, not through call_ruleset."""

    def __init__(self, refusal: RollbridgeError) -> None:
        self.refusal = refusal

    def player_view(self, actor: Any, settings: Any) -> Any:
        if actor.state.get("wounds"):
            raise self.refusal
        return super().player_view(actor, settings)


@pytest.mark.parametrize("name", ["at", "repeat"])
async def test_a_rulesets_invalid_request_while_its_views_are_staged_is_marked(
    tmp_path, name: str
) -> None:
    """The table calls a ruleset's ``player_view`` and ``common_state`` for an event's
    views as it stages them, in a try of its own (not call_ruleset): a refusal there is
    the ruleset's as much, and marked so. Before, it reached the GM's module unmarked,
    read as the server's ``at`` (a held request dropped) or ``….repeat`` (a second
    roll)."""
    field = {"at": "at", "repeat": "foundry.resolve.repeat"}[name]
    refusal = InvalidRequest("the ruleset's own check", details={"field": field})
    sheets = {
        "Hero": {"skill": 7, "guard": 1, "toughness": 4},
        "Bandit": {"skill": 5, "guard": 1, "toughness": 3},
    }
    hit = {"type": "resolve", "action": "test", "actor": "hero", "targets": ["bandit"]}
    # a wound (a die of 1 under 6): the bandit's players' view, staged, refused
    [refused] = await _asked(tmp_path, RefusesToShow(refusal), sheets, [{**hit, "dice": [1]}])
    assert refused["type"] == "error" and refused["code"] == "invalid_request", refused
    assert refused["details"] == {"field": field, "origin": "ruleset"}, refused


@pytest.mark.parametrize(("dice", "code"), [([11], "dice_mismatch"), ([], "dice_exhausted")])
async def test_the_servers_refusal_of_supplied_dice_within_resolve_is_unmarked(
    tmp_path, dice: list[int], code: str
) -> None:
    """The requester's supplied dice refused by the table's dice source (a d10 cannot
    show 11; no die left) while the ruleset's ``resolve`` draws them: the server's own
    refusal, unmarked, which the module's hint after ``dice_mismatch`` keys on
    (foundry/buttons.mjs). Until 7 December 2026, late night, it was raised within the
    ruleset's call and marked the ruleset's."""
    sheets = {"Hero": {"skill": 7}, "Wall": {"skill": 1}}
    hit = {"type": "resolve", "action": "test", "actor": "hero", "targets": ["wall"]}
    [refused] = await _asked(tmp_path, RollUnder(), sheets, [{**hit, "dice": dice}])
    assert refused["type"] == "error" and refused["code"] == code, refused
    assert "origin" not in refused["details"], refused


async def test_a_gms_approve_refused_for_the_players_dice_is_the_servers_own(tmp_path) -> None:
    """The case the module's hint is for: a player's roll held for approval with their
    own dice (an 11 a d10 cannot show, unseen until the dice are drawn), the GM's
    Approve refused ``dice_mismatch`` — unmarked, the server's own; the request still
    waits, and a Reject settles it."""
    actors = {"Hero": ({"skill": 7}, ["player"]), "Wall": ({"skill": 1}, [])}
    settings = {"approval": True, "player_dice": True}
    host, path, tokens = _seeded(tmp_path, RollUnder(), actors, settings)
    server, store = await start(path, host)
    try:
        peers = {}
        for role in ("gm", "player"):
            peers[role] = Peer(await connect(server.url))
            token = tokens[role]
            hello = {"type": "hello", "table": "origin", "token": token, "dialect": "foundry"}
            await peers[role].request(hello)
        ask = {"type": "resolve", "action": "test", "actor": "hero", "targets": ["wall"]}
        held = await peers["player"].request({**ask, "dice": [11]})
        assert held.get("status") == "pending", held
        approve = {"type": "approve", "request": held["pending"]}
        refused = await peers["gm"].request(approve)
        assert refused["type"] == "error" and refused["code"] == "dice_mismatch", refused
        assert "origin" not in refused["details"], refused
        rejected = await peers["gm"].request({"type": "reject", "request": held["pending"]})
        assert rejected["type"] != "error", rejected
        for peer in peers.values():
            await peer.close()
    finally:
        await server.stop()
        store.close()


class Slotted(RuleViolation):
    """A ruleset's refusal keeping its code and its weapon in ``__slots__``."""

    __slots__ = ("code", "weapon")

    def __init__(self, weapon: str) -> None:
        super().__init__(f"no ammunition for the {weapon}", code="no_ammo")
        self.weapon = weapon


async def test_a_rulesets_refusal_kept_in_slots_reaches_the_client_marked(tmp_path) -> None:
    """Every code is marked on a copy since 7 December 2026, late night: a class whose
    code lives in a slot lost it in the copy, and the client read no ``no_ammo`` (the
    reply failed as it was made). Its slots are copied now: its code, message and the
    mark reach the GM, the table going on."""
    ruleset, _, done = await _refusals(tmp_path, Slotted("bow"))
    assert ruleset["type"] == "error" and ruleset["code"] == "no_ammo", ruleset
    assert ruleset["message"] == "no ammunition for the bow", ruleset
    assert ruleset["details"] == {"origin": "ruleset"}, ruleset
    assert done.get("status") == "done", done


class Halt(BaseException):
    """A ruleset's own exception derived from ``BaseException`` alone."""


class CopyRefused(RuleViolation):
    """A ruleset's refusal whose class's ``__new__`` wants the keywords it was made
    with, raising :class:`Halt` without them: the table's copy (made from ``args``
    alone) fails."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if "code" not in kwargs:
            raise Halt("made without its code")
        return super().__new__(cls, *args, **kwargs)


async def test_a_refusal_whose_own_new_raises_a_base_exception_reaches_the_client_marked(
    tmp_path,
) -> None:
    """Marking copies every refusal of a ruleset since 7 December 2026, late night; a
    copy that raised an exception derived from ``BaseException`` alone escaped the
    call into the ruleset and closed the GM's connection (1011) for a ``no_ammo``
    that until then reached it as it was. The copy passes over a ``__new__`` of the
    class's own that refuses its ``args`` for its base's (rev29a), so the refusal the
    ruleset meant reaches the GM, marked, and the table goes on."""
    ruleset, server_own, done = await _refusals(tmp_path, CopyRefused("x", code="no_ammo"))
    assert ruleset["type"] == "error" and ruleset["code"] == "no_ammo", ruleset
    assert ruleset["message"] == "x", ruleset
    assert ruleset["details"] == {"origin": "ruleset"}, ruleset
    assert server_own["details"] == {"field": "at"}, server_own
    assert done.get("status") == "done", done
