"""At DEBUG websockets writes a line for every frame with the start and the end of its
payload. A GM's frames hold NPCs' sheets and numbers (an sr2 guard's armour, a refusal
as the GM reads it), and a log may be shipped where players read it: a data frame's
line is written without its payload unless the log reads as the GM does
(``ROLLBRIDGE_LOG_PRIVATE=1``, a debugging setting; docs/operations.md, "Logs"). A frame
holding a token is never shown, with the setting or without."""

from __future__ import annotations

import json
import re

import pytest

from rollbridge.server.logs import PRIVATE_SETTING
from tests.server.httpclient import served_log

#: websockets' line of a data frame sent (``>``) or received (``<``).
FRAME_LINE = re.compile(r"^[<>] (TEXT|BINARY|CONT) ")


async def frame_lines(make_tables, monkeypatch: pytest.MonkeyPatch, private: bool) -> list[str]:
    """The messages of websockets' frame lines while a GM and a player join the sr2
    table (Guard A's sheet in the GM's welcome), roll and are refused for an NPC."""
    if private:
        monkeypatch.setenv(PRIVATE_SETTING, "1")
    else:
        monkeypatch.delenv(PRIVATE_SETTING, raising=False)
    log = served_log("json")
    stream = next(log)
    try:
        world = await make_tables()
        gm, welcome = await world.join("sr2", "gm")
        assert "Guard A" in json.dumps(welcome["table"])
        player, _ = await world.join("sr2", "player", binary=True)
        await gm.request({"type": "roll", "formula": "1d6"})
        await player.request({"type": "ping"})
    finally:
        next(log, None)
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    return [
        line["message"]
        for line in lines
        if line["logger"].startswith("websockets") and FRAME_LINE.match(line["message"])
    ]


async def test_a_frames_payload_is_not_written_at_debug(make_tables, monkeypatch):
    messages = await frame_lines(make_tables, monkeypatch, private=False)
    assert len(messages) >= 8, messages  # hellos, welcomes, requests, results, events
    for message in messages:
        assert "bytes; not shown:" in message, message
        assert '"type"' not in message and "welcome" not in message, message
    assert any(f"frames are shown with {PRIVATE_SETTING}=1" in m for m in messages)
    assert any("not shown: it holds a token" in m for m in messages)  # the hellos


async def test_with_the_private_setting_frames_are_shown_but_never_a_token(
    make_tables, monkeypatch
):
    messages = await frame_lines(make_tables, monkeypatch, private=True)
    assert any(message.startswith('> TEXT \'{"type":"welcome"') for message in messages)
    hellos = [m for m in messages if "holds a token" in m]
    assert hellos and all("rbt_" not in m for m in hellos)
    assert not any("frames are shown with" in m for m in messages)
