"""A name an admin chose cannot forge a line of ``rollbridge serve``'s text log
(``--log-format text``, the default): an admin token named with a newline wrote
its name as it was in every admin line, the rest of the name a line of its own
that read as the server's (a red-team pass; tests/server/test_text_log.py)."""

from __future__ import annotations

from dataclasses import replace

from rollbridge.stores.sqlite import SQLiteStore
from rollbridge.tokens import new_admin_token
from tests.hostile.wire import http_status

#: A line someone would like the operator to read as the server's.
FORGED = "2026-01-01 00:00:00,000 ERROR rollbridge.server: FORGED: the disk is full"


async def test_an_admin_token_s_name_cannot_forge_a_line(serve):
    """``admin-token --name`` refuses a line break now (docs/operations.md), so the
    name is one a database of before 2026-12-03 may hold, stored as it took it."""
    served = serve("--log-format", "text")
    token, record = new_admin_token()
    with SQLiteStore(served.log.parent / "hostile.db") as store:
        store.add_admin_token(replace(record, name=f"ops\n{FORGED}"))
    assert await http_status(served.port, "/admin/tables", token) == 200
    # (400 since a path segment with a control character is refused by name)
    assert await http_status(served.port, "/admin/tables/x%0A2026-01-01%20FORGED", token) == 400
    lines = served.log_text().splitlines()
    assert not any(line.startswith(("2026-01-01", "FORGED")) for line in lines), lines[-20:]
    listed = [line for line in lines if "listed 1 table" in line]
    assert len(listed) == 1 and f"(ops\\n{FORGED}): listed" in listed[0], listed
