"""A store's failure reaches the operator's log (the client is only told
``store_error``, try again): a stored log row that cannot be read is logged at ERROR
once with the store's own message, naming the table, and a hello refused that way is
not logged as joined."""

from __future__ import annotations

import json
import sqlite3


def spoil_last_row(path, table: str) -> int:
    """Make the table's latest log row unreadable; its last seq."""
    with sqlite3.connect(path) as db:
        (last,) = db.execute('SELECT max(last) FROM log WHERE "table" = ?', (table,)).fetchone()
        spoil = "UPDATE log SET events = X'c1c1' WHERE \"table\" = ? AND last = ?"
        db.execute(spoil, (table, last))
    return last


def lines(debug_log) -> list[dict]:
    return [json.loads(line) for line in debug_log.getvalue().splitlines()]


async def test_a_failed_read_is_logged_with_its_cause(tables, debug_log):
    gm, welcome = await tables.join("tally", "gm")
    epoch = welcome["epoch"]
    for n in range(3):
        reply = await gm.request({"type": "roll", "id": f"r{n}", "formula": "1d6"})
        assert reply["type"] == "result"
    last = spoil_last_row(tables.path, "tally")
    joined_before = sum("joined table tally" in line["message"] for line in lines(debug_log))

    _, refused = await tables.join("tally", "player", resume={"epoch": epoch, "seq": last - 2})
    assert refused["code"] == "store_error" and "try again" in refused["message"]
    again = await gm.request({"type": "roll", "id": "r2", "formula": "1d6"})  # its event is read
    assert again["code"] == "store_error"

    found = lines(debug_log)
    errors = [line for line in found if line["level"] == "ERROR"]
    assert len(errors) == 2, errors
    for line in errors:
        assert "tally" in line["message"]
        assert "invalid type" in line["message"] or "cannot be read" in line["message"]
        assert len(line["message"]) < 800
    assert sum("joined table tally" in line["message"] for line in found) == joined_before
