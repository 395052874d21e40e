"""Tokens revoked, or tables deleted, by the CLI while the server runs: the
clients holding them are disconnected (1008) within the check interval; the
others stay (issue 3, item 4)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys


def cli(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "rollbridge", *args],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    return done.stdout


async def test_a_revoked_token_disconnects_its_client_and_no_other(make_tables):
    world = await make_tables(token_check_interval=0.05)
    gm, _ = await world.join("sr2", "gm")
    player, _ = await world.join("sr2", "player")
    observer, _ = await world.join("sr2", "observer")
    other_table, _ = await world.join("tally", "player")
    tokens = json.loads(cli("table", "tokens", "sr2", "--db", str(world.path), "--json"))
    player_id = next(t["id"] for t in tokens["tokens"] if t["role"] == "player")
    await asyncio.to_thread(
        cli, "table", "tokens", "sr2", "--db", str(world.path), "--revoke", player_id
    )
    assert await player.wait_closed() == 1008
    assert player.connection.close_reason == "token revoked"
    for peer in (gm, observer, other_table):
        assert (await peer.request({"type": "ping"}))["type"] == "pong"
    again, welcome = await world.join("sr2", "player")  # the same token no longer opens it
    assert welcome["code"] == "unauthorized"
    assert await again.wait_closed() == 1008
    # the table goes on without the revoked player
    roll = await gm.request({"type": "roll", "formula": "1d6"})
    assert roll["status"] == "done"
    await observer.wait_for(lambda p: any(e["seq"] == roll["seq"] for e in p.events))


async def test_deleting_a_table_disconnects_everyone_at_it(make_tables):
    world = await make_tables(token_check_interval=0.05)
    gm, _ = await world.join("tally", "gm")
    observer, _ = await world.join("tally", "observer")
    elsewhere, _ = await world.join("sr2", "gm")
    await asyncio.to_thread(cli, "table", "delete", "tally", "--db", str(world.path))
    assert await gm.wait_closed() == 1008
    assert await observer.wait_closed() == 1008
    # told why: their table is gone, not their tokens revoked (it said "token revoked")
    assert gm.connection.close_reason == observer.connection.close_reason == "table deleted"
    assert (await elsewhere.request({"type": "ping"}))["type"] == "pong"


async def test_without_checks_nothing_is_read(make_tables):
    world = await make_tables(token_check_interval=None)
    await world.join("sr2", "gm")
    assert world.server._token_watch is None
    world.store.revoke_token("sr2", "nope")  # a store that is not read: no error either
    assert await world.server.check_tokens() == 0


async def test_frames_already_received_from_a_revoked_client_are_not_executed(make_tables):
    world = await make_tables(token_check_interval=None)
    gm, _ = await world.join("tally", "gm")
    player, _ = await world.join("tally", "player")
    on_server = next(c for c in world.server.clients if c.principal.role == "player")
    seq = on_server.session.table.info.seq
    on_server.disconnect(1008, "token revoked")
    # a request that was already in the connection's queue when the token went
    world.server.carry(
        on_server.protocol.receive(json.dumps({"type": "roll", "id": "late", "formula": "1d6"})),
        on_server,
    )
    assert await player.wait_closed() == 1008
    after = await gm.request({"type": "roll", "formula": "1d6"})  # queued behind "late", if any
    assert after["seq"] == seq + 1
    assert not any(e.get("request") == "late" for e in gm.events)


async def test_a_store_that_cannot_be_read_is_logged_in_one_line(make_tables, debug_log):
    """A token check that meets an unreachable store (Redis away past its timeout)
    logs one ERROR line naming the failure, not a traceback: it is expected, and the
    next check may succeed."""
    from rollbridge.exceptions import StoreError

    world = await make_tables(token_check_interval=None)
    await world.join("sr2", "gm")

    def unreachable():
        raise StoreError("Redis did not answer within 5 s")

    world.store.token_ids = unreachable
    await world.server.recheck_tokens()
    lines = [json.loads(line) for line in debug_log.getvalue().splitlines()]
    (failed,) = [line for line in lines if "revoked tokens" in line.get("message", "")]
    assert failed["level"] == "ERROR" and "Redis did not answer" in failed["message"]
    assert "Traceback" not in debug_log.getvalue()
