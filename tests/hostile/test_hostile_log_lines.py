"""A name an admin chose cannot forge a line of ``rollbridge serve``'s text log
(``--log-format text``, the default): an admin token named with a newline wrote
its name as it was in every admin line, the rest of the name a line of its own
that read as the server's (a red-team pass; tests/server/test_text_log.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from rollbridge.stores.sqlite import SQLiteStore
from rollbridge.tokens import ADMIN_PREFIX, AdminTokenRecord, hash_token
from tests.hostile.wire import http_status

ENV = {**os.environ, "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"}
#: A line someone would like the operator to read as the server's.
FORGED = "2026-01-01 00:00:00,000 ERROR rollbridge.server: FORGED: the disk is full"


async def test_an_admin_token_s_name_cannot_forge_a_line(serve):
    """``admin-token --name`` refuses such a name now (``name_control``, nothing made);
    one a database made before names were checked holds still cannot forge a line."""
    served = serve("--log-format", "text")
    db = served.log.parent / "hostile.db"
    refused = subprocess.run(
        [sys.executable, "-m", "rollbridge", "admin-token", "--json", "--name",
         f"ops\n{FORGED}", "--db", str(db)],
        capture_output=True, text=True, env=ENV, timeout=60,
    )  # fmt: skip
    assert refused.returncode == 1 and json.loads(refused.stdout)["code"] == "name_control"
    # the name as an older database holds it: written by the store, past the check
    token = ADMIN_PREFIX + "older-database-token-of-an-admin-0123456789"
    store = SQLiteStore(db)
    record = AdminTokenRecord(id="0ld0ld0ld0ld", name=f"ops\n{FORGED}", created=time.time(),
                              hash=hash_token(token))  # fmt: skip
    store.add_admin_token(record)
    store.close()
    assert await http_status(served.port, "/admin/tables", token) == 200
    # (400 since a path segment with a control character is refused by name)
    assert await http_status(served.port, "/admin/tables/x%0A2026-01-01%20FORGED", token) == 400
    lines = served.log_text().splitlines()
    assert not any(line.startswith(("2026-01-01", "FORGED")) for line in lines), lines[-20:]
    listed = [line for line in lines if "listed 1 table" in line]
    assert len(listed) == 1 and f"(ops\\n{FORGED}): listed" in listed[0], listed
