"""What a player writes reaches other people's terminals as text, never as control.

A roll's label may hold any valid Unicode (the protocol refuses only bidirectional
controls in text), and ``rollbridge connect`` printed it as it came: a player's
label with ESC sequences cleared the GM's screen and retitled their window, and one
with a line break printed a line of the player's making that read as the server's.
Now every value from the wire is made visible before it is rendered
(:mod:`rollbridge.visible`): each C0 control, DEL and C1 control is printed as its
escape (``\\x1b``, ``\\n``); the Markdown export writes them so too.
"""

from __future__ import annotations

import json

from rollbridge.export.escape import inline
from rollbridge.visible import visible, visible_data
from tests.cli.test_cli_reconnect import Terminal
from tests.server.conftest import make_tables  # noqa: F401  (a fixture)

#: Clear the screen, retitle the window, ring; then a line that reads as an event's.
HOSTILE = "\x1b[2J\x1b]0;owned\x07boom\r\n#99 heal by GM\x9b31m\x7f"
#: How it is printed: every control its escape, the rest as it is.
SHOWN = "\\x1b[2J\\x1b]0;owned\\x07boom\\r\\n#99 heal by GM\\x9b31m\\x7f"


def test_visible_escapes_every_control_and_nothing_else():
    assert visible(HOSTILE) == SHOWN
    kept = "Jiří Žák 🎲 Київ tab\u00a0space ©"
    assert visible(kept) == kept
    assert visible(visible(HOSTILE)) == visible(HOSTILE) == SHOWN  # applied twice: the same
    data = {"a\x1b": ["x\n", 3, {"b": "\x07"}], "n": None}
    assert visible_data(data) == {"a\\x1b": ["x\\n", 3, {"b": "\\x07"}], "n": None}


def test_the_markdown_export_writes_controls_as_escapes():
    written = inline(HOSTILE)
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in written), written
    assert "\\\\x1b[2J" in written  # the escape, its backslash escaped for Markdown


async def test_a_players_label_does_not_control_the_gms_terminal(make_tables):  # noqa: F811
    world = await make_tables()
    url = f"{world.server.url}tables/tally"
    terminal = await Terminal.start(url, world.tokens["tally"]["gm"], "--locale", "en")
    try:
        await terminal.until("type help")
        player, _ = await world.join("tally", "player")
        answer = await player.request(
            {"type": "roll", "id": "evil", "formula": "1d1+4", "label": HOSTILE}
        )
        assert answer["type"] == "result", answer
        line = await terminal.until("boom")
        await terminal.type("quit")
        _status, out = await terminal.end()
    finally:
        await terminal.stop()
    assert SHOWN in line, line
    assert not any(ord(c) < 0x20 and c != "\n" for c in out), repr(out)
    assert not any(0x7F <= ord(c) <= 0x9F for c in out), repr(out)
    assert not any(text.startswith("#99") for text in out.splitlines()), out


def test_verify_shows_what_a_log_says_without_obeying_it(capsys, tmp_path):
    """``rollbridge verify`` reads a log someone else wrote and quotes some of it (a
    welcome's commitment): its controls are printed as escapes, not sent to the
    terminal (they were: a crafted log cleared the screen and retitled the window)."""
    from rollbridge.cli import main

    welcome = {"type": "welcome", "table": {"id": "t-1", "epoch": 1, "dice": {
        "open": True, "segment": 1, "commitment": HOSTILE, "since": 0}}}  # fmt: skip
    log = tmp_path / "crafted.jsonl"
    log.write_text(json.dumps(welcome) + "\n", encoding="utf-8")
    main(["verify", str(log), "--locale", "en"])
    out = capsys.readouterr().out
    assert SHOWN in out, out
    assert not any(ord(c) < 0x20 and c != "\n" for c in out), repr(out)
    assert not any(0x7F <= ord(c) <= 0x9F for c in out), repr(out)
    assert not any(line.startswith("#99") for line in out.splitlines()), out


def test_visible_is_what_the_log_escapes_line_separators_included():
    """``visible`` was a second copy of the text log's escaping that left out the line
    and paragraph separators (U+2028, U+2029: a new line to ``str.splitlines`` and to
    many a reader), which names refuse and the log escapes; now the log's
    ``one_line`` is ``visible``, one list of what is escaped, written once."""
    from rollbridge.server.logs import one_line

    assert visible("roll\u2028#99 heal\u2029x") == "roll\\u2028#99 heal\\u2029x"
    for text in (HOSTILE, "a\u2028b\u2029c\x85", "two\nlines"):
        assert one_line(text) == visible(text)
        assert one_line(text, keep_newlines=True) == visible(text, keep_newlines=True)
    assert visible("two\nlines\x1b", keep_newlines=True) == "two\nlines\\x1b"
