"""``rollbridge verify`` of a GM's log where the GM approved a player's request held
with the player's own dice, giving the GM's own in their place — what the refusal of
such a request for an action since made always secret tells the GM to do
(tests/plugins/test_secret_action_upgrade.py), and what any GM may do at a table with
``player_dice``. Verify executed it again as the GM's ``approve`` without dice (the
player's, as held): an honest log was called ``wrong_resolution`` ("the rules were not
applied as logged", or the engine's refusal of the player's dice). The GM's dice are
the supplied ones where they are not the player's. A real server on a real port, the
table in a real SQLite file, its export read as ``rollbridge verify`` reads it."""

from __future__ import annotations

import json

import pytest

from rollbridge.cli.verify import recheck
from rollbridge.dice.verify import verify_events
from rollbridge.export import export_chunks
from rollbridge.export.log import read_log
from rollbridge.host import PluginHost
from rollbridge.stores.sqlite import SQLiteStore
from tests.plugins.listener import Listener
from tests.plugins.test_secret_action_upgrade import ListenerBefore, held_before_upgrade
from tests.plugins.test_secret_actions import joined, listener_host
from tests.server.conftest import start


def verified(path, host: PluginHost) -> dict:
    """The GM's export of the table ``night`` at ``path``, verified with ``host``'s
    rulesets (``rollbridge verify --json``'s report)."""
    store = SQLiteStore(path)
    try:
        log = read_log(store, "night", host.rulesets)
        lines = "".join(export_chunks(log, "jsonl", "gm")).splitlines()
    finally:
        store.close()
    entries = [json.loads(line) for line in lines if line.strip()]
    report = verify_events(entries)
    recheck(entries, report, host)
    return report.to_dict("en")


async def approved(path, played: type[Listener], **given: object) -> dict:
    """The player's ``listen`` held with their die 1 at ``path`` (under
    :class:`ListenerBefore`), approved by the GM (``given``: the approve's ``dice``)
    over a real server playing ``played``: the approval's reply."""
    tokens, pending = held_before_upgrade(path)
    server, store = await start(path, listener_host(played()))
    try:
        gm, _ = await joined(server, tokens["gm"])
        done = await gm.request({"type": "approve", "request": pending, **given})
        await gm.close()
    finally:
        await server.stop()
        store.close()
    assert done.get("status") == "done", done
    return done


@pytest.mark.parametrize(
    ("played", "die"),
    [(Listener, 9), (ListenerBefore, 9), (Listener, 1)],
    ids=["made-always-secret", "not-secret", "made-always-secret-the-players-die"],
)
async def test_an_approval_with_the_gms_dice_over_the_players_verifies(tmp_path, played, die):
    """The player's ``listen`` held with their die 1; the GM approves it with 9
    (always secret after the upgrade, or the same ruleset), or with 1 where it was
    made always secret (the player's die could not be taken: the GM's, the same):
    verified, resolved again with the GM's die."""
    done = await approved(tmp_path / "night.db", played, dice=[die])
    assert done["event"]["data"]["outcome"] == {"heard": die < 7}, done  # the Hero's skill 7
    report = verified(tmp_path / "night.db", listener_host(played()))
    assert report["ok"] and report["problems"] == [], report
    assert report["resolved"] == 1, report


async def test_an_approval_with_the_players_held_dice_still_verifies(tmp_path):
    """The GM approves without dice: the player's die 1 decides it, and verify
    executes it so (the player's, not the GM's: who is told asking is the player)."""
    done = await approved(tmp_path / "night.db", ListenerBefore)
    assert done["event"]["data"]["outcome"] == {"heard": True}, done  # the player's 1
    report = verified(tmp_path / "night.db", listener_host(ListenerBefore()))
    assert report["ok"] and report["resolved"] == 1, report
