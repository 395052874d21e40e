"""A player's request with their own dice for an action that was not always secret
when they asked, held for the GM's approval while the server was upgraded to a
ruleset that makes it always secret (``ActionSpec(secret=True)``; such dice are
refused on request now). Before, the GM's ``approve`` was refused with the player's
own refusal ("a player does not supply them (dice)"), telling the GM of dice they
had not given. Now it is refused ``held_dice_secret`` naming the request, the action, why and
what to do — approve with the GM's own dice, or reject — the table unchanged; the
GM's approval with dice resolves it, secret. Over a real server on a real port, on a
real SQLite file that holds the table across the upgrade."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from rollbridge.engine.model import Principal
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore
from tests.cli.test_cli_reconnect import Terminal
from tests.plugins.listener import Listener
from tests.plugins.test_secret_actions import joined, listener_host
from tests.server.conftest import start

GM = Principal("gm", "gm", "tok-gm")
SETTINGS = {"approval": True, "player_dice": True}


class ListenerBefore(Listener):
    """The ruleset before the upgrade: ``listen`` not yet always secret."""

    actions = {**Listener.actions,
               "listen": dataclasses.replace(Listener.actions["listen"], secret=False)}  # fmt: skip


@asynccontextmanager
async def upgraded(path) -> AsyncIterator[tuple[object, SQLiteStore]]:
    """A server on a real port serving ``path`` with :class:`Listener` (``listen``
    always secret): the upgrade."""
    server, store = await start(path, listener_host(Listener()))
    try:
        yield server, store
    finally:
        await server.stop()
        store.close()


def held_before_upgrade(path) -> tuple[dict[str, str], str]:
    """The table ``night`` (the player's Hero) on ``path``, with the player's ``listen``
    giving their die 1 held for approval under :class:`ListenerBefore`; its tokens
    and the pending id."""
    store = SQLiteStore(path)
    service = TableService(store, listener_host(ListenerBefore()))
    _, tokens = service.create_table("Night", "listener", table_id="night", settings=SETTINGS)
    hero = {"id": "hero", "name": "Hero", "controllers": ["player"],
            "sheet": dict(Listener.example_sheets["Hero"])}  # fmt: skip
    service.handle("night", {"type": "actor.create", "id": "a0", "actor": hero}, GM)
    (player,) = [t.principal() for t in store.list_tokens("night") if t.role == "player"]
    asked = {"type": "resolve", "id": "l1", "action": "listen", "actor": "hero", "dice": [1]}
    held = service.handle("night", asked, player)
    store.close()
    assert held["status"] == "pending", held
    return tokens, held["pending"]


async def test_the_gms_approval_is_refused_naming_why_and_the_table_is_unchanged(tmp_path):
    path = tmp_path / "night.db"
    tokens, pending = held_before_upgrade(path)
    async with upgraded(path) as (server, store):
        gm, _ = await joined(server, tokens["gm"])
        before = store.load("night")[0]
        refused = await gm.request({"type": "approve", "request": pending})
        assert refused["type"] == "error" and refused["code"] == "held_dice_secret", refused
        assert refused["details"] == {"request": pending, "action": "listen", "field": "dice"}
        assert refused["message"] == (
            f"request {pending} gives the player's own dice for action 'listen', which is "
            "always secret now (it was not when they asked): dice they chose would tell them "
            "how it went. Reject it so that they ask again without theirs, or approve it with "
            "your own dice (the approve request's dice; in rollbridge connect: approve "
            f"{pending} supply=…; in the web view: With my dice…; in the Foundry module: "
            "Approve with my dice…)"
        ), refused
        after = store.load("night")[0]
        assert (after.info.seq, after.pending) == (before.info.seq, before.pending)
        assert pending in after.pending
        done = await gm.request({"type": "approve", "request": pending, "dice": [9]})
        assert done["status"] == "done" and done["event"]["gm_only"] is True, done
        assert done["event"]["data"]["outcome"] == {"heard": False}, done  # the GM's 9
        player, _ = await joined(server, tokens["player"])
        again = await player.request({"type": "resolve", "id": "l1", "action": "listen",
                                      "actor": "hero", "dice": [1], "repeat": True})  # fmt: skip
        assert again["status"] == "secret" and "event" not in again, again
        for peer in (gm, player):
            await peer.close()


async def test_the_refusal_reads_in_the_gms_language(tmp_path):
    """The GM whose client speaks German reads why in German."""
    path = tmp_path / "night.db"
    tokens, pending = held_before_upgrade(path)
    async with upgraded(path) as (server, _):
        gm, _ = await joined(server, tokens["gm"], locale="de")
        refused = await gm.request({"type": "approve", "request": pending})
        assert refused["code"] == "held_dice_secret", refused
        assert refused["message"].startswith(f"Anfrage {pending} gibt "), refused
        await gm.close()


async def test_the_gm_approves_it_with_their_dice_from_rollbridge_connect(tmp_path):
    """The way the refusal names, from a real ``rollbridge connect`` process: ``approve
    p… supply=9`` sends the GM's die with the approval and the request is resolved,
    secret, with it (the terminal dropped ``supply=9``: the approval went without dice
    and was refused ``held_dice_secret`` again). The web view's and the Foundry module's
    Approve send no dice: their GM rejects it."""
    path = tmp_path / "night.db"
    tokens, pending = held_before_upgrade(path)
    async with upgraded(path) as (server, store):
        url = f"{server.url}tables/night"
        terminal = await Terminal.start(url, tokens["gm"], "--locale", "en")
        try:
            await terminal.until("type help")
            await terminal.type(f"approve {pending} supply=9")
            await terminal.end_input()
            status, out = await terminal.end()
        finally:
            await terminal.stop()
        assert status == 0 and "held_dice_secret" not in out, out
        table, events = store.load("night")[0], store.events_after("night", 0) or []
        assert pending not in table.pending, out
        (event,) = [e for e in events if e.data.get("approved") == pending]
        assert event.gm_only and event.data["outcome"] == {"heard": False}, event  # the 9
