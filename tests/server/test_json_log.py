"""The JSON log (``rollbridge serve --log-format json``) writes each record as one
line for every reader (a red-team pass after tests/server/test_text_log.py): JSON
escapes the C0 controls, but ``json.dumps(..., ensure_ascii=False)`` let DEL, the C1
controls and U+2028, U+2029 stand as they were, so a table id a client sent holding
U+0085 (NEL) or U+2028 split the line in two for a reader that splits lines on them
(Python's ``str.splitlines``, many log viewers), neither half JSON, and a C1 control
(U+009B, CSI) reached the terminal of an operator tailing the log. They are JSON
escapes now: the line reads back as the same data."""

from __future__ import annotations

import json
import sqlite3

from websockets.asyncio.client import connect

#: A table id with every kind of line break JSON leaves alone, and a CSI.
HOSTILE = "x\x85next\u2028line\u2029para\x9b31mred\x7f"


async def test_a_table_id_a_client_sent_stays_on_its_json_line(tables, debug_log, monkeypatch):
    def failing(table_id: str, token_hash: str) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(tables.store, "find_token", failing)
    async with connect(tables.server.url) as ws:
        await ws.send(json.dumps({"type": "hello", "id": "h", "table": HOSTILE, "token": "rbt_x"}))
        reply = json.loads(await ws.recv())
    assert reply["code"] == "store_error", reply
    lines = debug_log.getvalue().splitlines()  # as Python's readers split them
    records = [json.loads(line) for line in lines]  # every line is one whole record
    said = [r for r in records if HOSTILE in r["message"]]
    assert said and all(r["level"] == "ERROR" for r in said), records[-5:]
    assert not any(0x7F <= ord(c) <= 0x9F for c in debug_log.getvalue())
