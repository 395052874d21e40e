"""A player's label with DEL, C1 controls or the line and paragraph separators in
the JSON the server writes: its frames and its JSONL export.

JSON lets DEL, the C1 controls (U+009B is a terminal's CSI) and U+0085, U+2028,
U+2029 (line breaks to ``str.splitlines``) stand in a string as they are. The JSON
log and every command's ``--json`` write them as ``\\u`` escapes
(:func:`rollbridge.visible.inert_json`), but a frame, and so the export, which is
the frames byte for byte, had them raw: ``rollbridge table export --format jsonl``
sent a player's CSI to the terminal it printed on, and a reader that split the
export on ``str.splitlines`` read one event as two lines, neither of them JSON.
Now the JSON text of frames is inert too: the same data, one line each.
"""

from __future__ import annotations

import json

from rollbridge.cli import main
from rollbridge.dice.sources import SeededDice
from rollbridge.engine import Principal
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore
from tests.server.httpclient import get

#: A CSI that turns the terminal red, a NEL, a line separator, a DEL.
LABEL = "boom\x9b31m\x85#99 heal by GM\u2028x\u2029\x7f"
RAW = ("\x9b", "\x85", "\u2028", "\u2029", "\x7f")


def raw_in(text: str) -> list[str]:
    """The characters of ``text`` a terminal obeys or a reader breaks a line at."""
    return [c for c in text if c in RAW]


def test_the_jsonl_export_on_stdout_holds_no_raw_control(tmp_path, capsys):
    path = tmp_path / "c.db"
    with SQLiteStore(path) as store:
        service = TableService(store, PluginHost(), dice=lambda: SeededDice(5))
        service.create_table("Controls", "sr2", table_id="c")
        player = Principal("player", "player", "player-key")
        roll = {"type": "roll", "id": "r", "formula": "1d6", "label": LABEL}
        assert service.handle("c", roll, player)["status"] == "done"
    assert main(["table", "export", "c", "--db", str(path), "--as", "gm",
                 "--format", "jsonl"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert raw_in(out) == [], repr(out)
    lines = out.splitlines()
    assert len(lines) == out.count("\n") == 2, lines  # the welcome, the roll
    assert json.loads(lines[1])["data"]["label"] == LABEL  # the same data
    assert "\\u009b31m\\u0085#99 heal by GM\\u2028x\\u2029\\u007f" in lines[1]


async def test_a_frame_and_the_http_export_hold_no_raw_control(make_tables):
    tables = await make_tables()
    gm, _ = await tables.join("sr2", "gm")
    player, _ = await tables.join("sr2", "player")
    answer = await player.request({"type": "roll", "formula": "1d6", "label": LABEL})
    assert answer["type"] == "result", answer
    await gm.wait_for(lambda peer: len(peer.events) == 1)
    frames = [f for f in gm.frames if json.loads(f)["type"] == "event"]
    assert len(frames) == 1 and raw_in(frames[0]) == [], frames
    assert json.loads(frames[0])["data"]["label"] == LABEL
    status, _, body = await get(tables.server, "/tables/sr2/export?format=jsonl",
                                token=tables.tokens["sr2"]["gm"])  # fmt: skip
    assert status == 200
    text = body.decode("utf-8")
    assert raw_in(text) == [] and text.splitlines()[-1] == frames[0]  # byte for byte
