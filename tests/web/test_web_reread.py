"""The web view at a table whose NPCs' records do not fit in a settings event (a
large table, here a small ``--max-event-size``): the GM's change goes through
marked ``reread`` instead of carrying the NPCs' new views, and a player's page reads
the table's ``state`` again, so that it draws Guard A as the setting says right
after the change: its tracks when shown, none when hidden again.
Before, the change was refused ``event_too_large``."""

from __future__ import annotations

import json

from rollbridge.server.limits import Limits
from tests.web.conftest import served_world
from tests.web.test_web_browser import CHROMIUM, pytestmark, run_script  # noqa: F401

#: Room for a settings event of the table ``web``, not for Guard A's record besides
#: (that one packs to some 530 bytes, a plain one to some 370).
LIMITS = Limits(rate_per_connection=None, rate_per_table=None, per_token=None,
                per_address=None, max_event_bytes=450)  # fmt: skip


async def test_a_players_page_reads_the_table_again_after_a_reread_change(tmp_path):
    async with served_world(tmp_path, LIMITS) as world:
        env = {"RB_BASE": world.base, "RB_TOKENS": json.dumps(world.tokens),
               "RB_CHROMIUM": CHROMIUM}  # fmt: skip
        secrets = [t for r in world.tokens.values() for t in r.values()]
        result = await run_script("reread.mjs", env, secrets)
    assert result["before"]["tracks"] == 0, result  # sr2's Guard A: no tracks for players
    on, off = result["steps"]
    for step in (on, off):
        assert step["status"] == "done", step
        assert step["reread"] is True and step["actors"] == [], step
    assert on["drawn"]["tracks"] == 3 and off["drawn"]["tracks"] == 0, result
    assert (on["states"], off["states"]) == (1, 2), result  # one `state` per change
    assert off["drawn"] == result["before"], result
    assert result["trouble"] == {"errors": [], "dialogs": []}, result
