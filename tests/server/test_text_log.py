"""The text log (``rollbridge serve --log-format text``, the default) writes each
record as one line (a red-team pass): a table id, a name or a path a client or an
admin chose was written as it was, so one holding a newline started a line of its
own that read as one of the server's (the JSON log escaped it already). The control
characters of a line's message and its arguments are escaped now; a line without
them is written as before. Over a real ``serve``: tests/hostile/test_hostile_log_lines.py."""

from __future__ import annotations

import io
import json
import logging
import sqlite3
import sys
from collections.abc import Iterator

import pytest
from websockets.asyncio.client import connect

from rollbridge.server.logs import TextFormatter, install, one_line
from tests.server.httpclient import served_log

#: A line someone would like the operator to read as the server's.
FORGED = "2026-01-01 00:00:00,000 ERROR rollbridge.server: FORGED: the disk is full"


def record(msg: str, *args: object, exc_info=None) -> logging.LogRecord:
    return logging.LogRecord("rollbridge.test", logging.INFO, __file__, 1, msg, args, exc_info)


@pytest.fixture
def text_log() -> Iterator[io.StringIO]:
    """The root logger at DEBUG as ``rollbridge serve`` sets it up (text), restored after."""
    yield from served_log("text")


def test_an_ordinary_line_is_written_as_before():
    plain = record("table %s: %d event(s), ruleset %r — «é» ✓", "friday-3fa2c1d0", 3, "sr2")
    standard = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    assert TextFormatter().format(plain) == standard.format(plain)


@pytest.mark.parametrize(
    ("char", "shown"),
    [("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t"), ("\x1b", "\\x1b"), ("\x00", "\\x00"),
     ("\x0b", "\\x0b"), ("\x0c", "\\x0c"), ("\x1c", "\\x1c"), ("\x7f", "\\x7f"),
     ("\x85", "\\x85"), ("\x9b", "\\x9b"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")],
)  # fmt: skip
def test_a_control_character_in_the_message_or_its_args_is_escaped(char, shown):
    for made in (record(f"table x{char}{FORGED}"), record("table %s", f"x{char}{FORGED}")):
        line = TextFormatter().format(made)
        assert line.splitlines() == [line], line
        assert line.endswith(f"table x{shown}{FORGED}"), line


def test_a_traceback_keeps_its_lines_and_what_its_exception_says_is_one_line():
    try:
        try:
            raise KeyError("cause")
        except KeyError as exc:
            raise ValueError(f"no table 'x\n{FORGED}'\x1b[2J") from exc
    except ValueError:
        failed = record("admin %s failed", f"x\r\n{FORGED}", exc_info=sys.exc_info())
    text = TextFormatter().format(failed)
    lines = text.splitlines()
    assert FORGED not in lines and not any(line.startswith(FORGED) for line in lines), text
    assert lines[0].endswith(f"admin x\\r\\n{FORGED} failed"), lines[0]
    assert lines[1] == "Traceback (most recent call last):", text
    assert f"ValueError: no table 'x\\n{FORGED}'\\x1b[2J" in lines, text
    assert "KeyError: 'cause'" in lines and len(lines) > 6, text


def test_the_filter_and_the_formatter_together_cut_tokens_and_escape(text_log):
    token = "rbt_" + "a" * 43
    logging.getLogger("rollbridge.test").warning("hello with %s\n%s", token, FORGED)
    install()  # a second filter changes nothing
    (line,) = text_log.getvalue().splitlines()
    assert line.endswith(f"hello with rbt_…\\n{FORGED}"), line
    assert one_line(line) == line


async def test_a_table_id_a_client_sent_cannot_forge_a_line(tables, text_log, monkeypatch):
    """A ``hello`` for a table id holding a newline while the store fails: the
    failure is logged naming the table, as the client spelled it."""

    def failing(table_id: str, token_hash: str) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(tables.store, "find_token", failing)
    async with connect(tables.server.url) as ws:
        hello = {"type": "hello", "id": "h", "table": f"x\n{FORGED}", "token": "rbt_x"}
        await ws.send(json.dumps(hello))
        reply = json.loads(await ws.recv())
    assert reply["code"] == "store_error", reply
    lines = text_log.getvalue().splitlines()
    said = [line for line in lines if "FORGED" in line]
    assert said and all(" ERROR rollbridge.connection: hello at table x\\n" in s for s in said), (
        said
    )
    assert not any(line.startswith(FORGED) for line in lines), said
