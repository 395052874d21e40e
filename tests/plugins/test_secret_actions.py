"""An action a ruleset keeps secret whoever asks (``ActionSpec(secret=True)``: a GM's
hidden perception check for an NPC, a roll the GM makes behind the screen). Before,
a ruleset could not say so: every request had to carry ``secret`` itself, and a
player's or a GM's client that left it out showed every player the result (review
plugins-23's closing note). The server now resolves such an action as a secret
request: the GM's event alone, players a ``hidden`` placeholder, a player who asked
a ``secret`` reply without the result. Over a real server on a real port, for a
player and the GM; the conformance suite checks it; the welcome says it; older
clients read the welcome as before."""

from __future__ import annotations

import dataclasses

import pytest
from websockets.asyncio.client import connect

from rollbridge.dice import SeededDice
from rollbridge.engine import rolls
from rollbridge.engine.model import Principal
from rollbridge.exceptions import Forbidden
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore
from rollbridge.testing import PLAYER, RulesetHarness
from tests.plugins.listener import Listener
from tests.plugins.rollunder import conformance_of, failure_of
from tests.server.conftest import Boom, Peer, start

GM = Principal("gm", "gm", "tok-gm")
SUITE_TEST = "test_secret_actions_show_players_only_that_something_happened"


def listener_host(ruleset: Listener | None = None) -> PluginHost:
    return PluginHost({"listener": Boom(ruleset or Listener())},
                      environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})  # fmt: skip


async def served(folder, ruleset: Listener | None = None):
    """A server on a real port (playing ``ruleset``, default a new Listener), a SQLite
    file holding the table ``night``: the player's Hero, the GM's Bandit."""
    host = listener_host(ruleset)
    path = folder / "night.db"
    seed = SQLiteStore(path)
    service = TableService(seed, host)
    _, tokens = service.create_table("Night", "listener", table_id="night")
    for index, (name, controllers) in enumerate([("Hero", ["player"]), ("Bandit", [])]):
        actor = {"id": name.lower(), "name": name, "controllers": controllers,
                 "sheet": dict(Listener.example_sheets[name])}  # fmt: skip
        service.handle("night", {"type": "actor.create", "id": f"a{index}", "actor": actor}, GM)
    seed.close()
    server, store = await start(path, host)
    return server, store, tokens


async def joined(server, token, locale: str | None = None) -> tuple[Peer, dict]:
    peer = Peer(await connect(server.url))
    hello = {"type": "hello", "table": "night", "token": token}
    welcome = await peer.request(hello if locale is None else {**hello, "locale": locale})
    return peer, welcome


@pytest.mark.parametrize("asker", ["player", "gm"])
@pytest.mark.parametrize("asked", [{}, {"secret": False}, {"secret": True, "requester_sees": True}],
                         ids=["plain", "not-secret", "requester-sees"])  # fmt: skip
async def test_players_learn_only_that_it_happened_whoever_asks(tmp_path, asker, asked):
    """The player's Hero (asked by its player or the GM) or the GM's Bandit listens,
    the request not secret, saying it is not, or asking to see it as Foundry's GM
    roll does: each player gets the ``hidden`` placeholder, the player who asked a
    secret roll's reply (no result, no event), the GM the whole event, marked
    ``gm_only``."""
    server, store, tokens = await served(tmp_path)
    try:
        gm, _ = await joined(server, tokens["gm"])
        player, _ = await joined(server, tokens["player"])
        actor = "hero" if asker == "player" else "bandit"
        request = {"type": "resolve", "action": "listen", "actor": actor, **asked}
        reply = await (player if asker == "player" else gm).request(request)
        for peer in (gm, player):
            await peer.wait_for(lambda p: any(e["seq"] == 3 for e in p.events))
        seen = next(e for e in player.events if e["seq"] == 3)
        whole = next(e for e in gm.events if e["seq"] == 3)
        placeholder = {"type": "event", "table": "night", "kind": "hidden", "epoch": 1, "seq": 3}
        assert seen == placeholder, seen
        assert whole["gm_only"] is True and whole["data"]["action"] == "listen", whole
        assert "hears" in whole["data"]["narration"], whole
        if asker == "player":
            assert reply["status"] == "secret" and reply["note"] == "sent to the GM only", reply
            assert "event" not in reply and "data" not in str(reply), reply
        else:
            assert reply["status"] == "done" and reply["event"]["gm_only"] is True, reply
        test = {"type": "resolve", "action": "test", "actor": "hero", "targets": ["bandit"]}
        assert (await player.request(test))["status"] == "done"  # the others: as before
        for peer in (gm, player):
            await peer.close()
    finally:
        await server.stop()
        store.close()


async def test_the_welcome_says_which_action_is_always_secret_and_no_other(tmp_path):
    """``"secret": true`` on the action that is; no ``secret`` key on the others, so
    an older client reads their welcome as before."""
    server, store, tokens = await served(tmp_path)
    try:
        peer, welcome = await joined(server, tokens["player"])
        actions = welcome["ruleset"]["actions"]
        assert actions["listen"]["secret"] is True
        assert "secret" not in actions["test"], actions["test"]
        await peer.close()
    finally:
        await server.stop()
        store.close()


def test_the_suite_passes_a_secret_action_the_server_keeps_secret():
    getattr(conformance_of(Listener()), SUITE_TEST)()


def test_the_suite_fails_a_secret_action_players_see(monkeypatch):
    """The suite's check can fail: with the server ignoring the spec (as before it),
    the GM's example is an event every player reads, and the suite says so."""
    monkeypatch.setattr(rolls, "_secret_fields", lambda fields: fields)
    monkeypatch.setattr(rolls, "always_secret", lambda ruleset, request: request)
    said = failure_of(Listener(), SUITE_TEST)
    assert said.startswith("listen (always secret), asked by the gm: resolve was not told"), said


def test_a_players_request_held_for_approval_is_resolved_secret_when_approved():
    """At a table with ``approval``, the player's ``listen`` waits for the GM, then is
    resolved as a secret request: players' view is the placeholder, the player's
    remembered reply a secret roll's."""
    table = RulesetHarness(Listener(), settings={"approval": True})
    table.add_actor("Hero", Listener.example_sheets["Hero"], actor_id="hero", player=True)
    asked = table.request({"type": "resolve", "id": "l1", "action": "listen", "actor": "hero"},
                          who=PLAYER)  # fmt: skip
    assert asked["status"] == "pending", asked
    table.request({"type": "approve", "request": asked["pending"]})
    gm, players = table.views()
    assert gm["gm_only"] is True and gm["data"]["action"] == "listen", gm
    assert players["kind"] == "hidden" and "data" not in players, players
    again = table.request({"type": "resolve", "id": "l1", "action": "listen", "actor": "hero",
                           "repeat": True}, who=PLAYER)  # fmt: skip
    assert again["status"] == "secret" and "event" not in again, again


def test_a_player_supplies_no_dice_for_an_action_that_is_always_secret():
    """With ``player_dice`` on, a player's own die for ``listen`` was taken: the
    player, who sees the Hero's skill, knew from the die they gave whether the
    Hero heard — what the ruleset keeps behind the screen (review rev24p). Refused
    ``forbidden``, naming the field, nothing changed; the GM's dice and a player's
    for another action are taken as before."""
    table = RulesetHarness(Listener(), settings={"player_dice": True})
    table.add_actor("Hero", Listener.example_sheets["Hero"], actor_id="hero", player=True)
    table.add_actor("Bandit", Listener.example_sheets["Bandit"], actor_id="bandit")
    before = table.table.info.seq
    with pytest.raises(Forbidden) as refused:
        table.request({"type": "resolve", "action": "listen", "actor": "hero", "dice": [1]},
                      who=PLAYER)  # fmt: skip
    assert refused.value.code == "forbidden" and refused.value.details["field"] == "dice"
    assert "'listen' is always secret" in str(refused.value), refused.value
    assert table.table.info.seq == before
    gm = table.request({"type": "resolve", "action": "listen", "actor": "hero", "dice": [1]})
    assert gm["event"]["data"]["outcome"] == {"heard": True}, gm
    test = {"type": "resolve", "action": "test", "actor": "hero", "targets": ["bandit"]}
    assert table.request({**test, "dice": [1]}, who=PLAYER)["status"] == "done"


class SecretTest(Listener):
    """Listener whose ``test`` (a wound on the target) is always secret too: an
    always-secret action that changes an actor, and so can be undone."""

    id = "secret_test"
    actions = {**Listener.actions,
               "test": dataclasses.replace(Listener.actions["test"], secret=True)}  # fmt: skip


def test_the_undo_and_redo_of_an_always_secret_action_are_the_gms_alone():
    """The GM's secret ``test`` that wounded the Bandit, undone and redone: players get
    each as the ``hidden`` placeholder (the Bandit's new view only), never which
    action or what it did."""
    table = RulesetHarness(SecretTest())
    table.add_actor("Hero", Listener.example_sheets["Hero"], actor_id="hero", player=True)
    table.add_actor("Bandit", Listener.example_sheets["Bandit"], actor_id="bandit")
    hit = {"type": "resolve", "action": "test", "actor": "hero", "targets": ["bandit"]}
    done = table.request(hit, dice=SeededDice(3))
    assert done["event"]["gm_only"] is True and done["event"]["data"]["outcome"], done
    for step in ("undo", "redo"):
        reply = table.request({"type": step})
        gm, players = table.views()
        assert gm["kind"] == step and gm.get("gm_only") is True, gm
        assert players["kind"] == "hidden" and "data" not in players, players
        assert "strikes" not in str(players) and "holds" not in str(players), players
        assert reply["status"] == "done", reply
