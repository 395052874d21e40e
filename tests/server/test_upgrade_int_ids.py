"""A request with an integer id, repeated after the upgrade.

Up to ``74f6d37`` (schemas 2 and 3) the server turned an integer request id into a
string (``str(id)``) and stored its reply under ``<token key>/<id>``; since ``7848585``
an integer id is its own id, stored under ``<token key>#<id>`` (docs/protocol.md:
``424242`` and ``"424242"`` are two ids). Without the old keys brought along (the
schema-4 step, ``sqlite._integer_ids_keyed``), a client that sent ``{"id": 41}`` to the
old server and sends it again to the new one (the retry idempotency is for: the
answer was lost when the old server stopped) had its request executed a second time
— another roll, another attack — instead of getting the reply stored
(docs/operations.md, "Upgrading": "a repeated request gets the reply the old server
stored"). Found by the review of the upgrade work.

Checked against the real old server: ``74f6d37`` stores ``{"id": 41}`` as
``KEY/41``, ``7848585`` as ``KEY#41``. The fixture has no integer id, so the test
gives one of its player's stored replies the key the old server would have used.
"""

from __future__ import annotations

import sqlite3

import pytest

from tests.server.test_upgrade import _serve, _stop
from tests.upgrade_files import old_file


@pytest.mark.parametrize("commit", ["9e19e5f", "74f6d37"])
async def test_an_integer_id_repeated_after_the_upgrade_gets_its_stored_reply(commit, tmp_path):
    old = old_file(commit, tmp_path)
    meta = old.tables["sr2"]
    roll = next(r for r in meta["requests"] if r["request"]["id"] == "roll1")
    assert roll["who"] == "player"
    with sqlite3.connect(old.path) as conn:  # as if the old server had been sent id 41
        (key,) = conn.execute(
            'SELECT key FROM replies WHERE "table" = ? AND key LIKE ?', (meta["table"], "%/roll1")
        ).fetchone()
        conn.execute(
            'UPDATE replies SET key = ? WHERE "table" = ? AND key = ?',
            (key.replace("/roll1", "/41"), meta["table"], key),
        )
    world = await _serve(old)
    try:
        player, _ = await world.join(meta["table"], "player")
        again = await player.request({**roll["request"], "id": 41})
        assert (again["type"], again["seq"]) == ("result", roll["seq"]), again
    finally:
        await _stop(world)
