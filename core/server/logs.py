"""What the server's log may hold, and how it is written: no token, and no
traceback for what a client (or a port probe) does; text or JSON lines.

:class:`SafeLog` is a :class:`logging.Filter` that ``rollbridge serve`` puts on its
log handlers: it cuts every join token (``rbt_…``) and admin token (``rba_…``) out
of each line and of its traceback, and the value of every ``Authorization``
header websockets' DEBUG log prints. websockets' DEBUG frame log shows the start
and the end of each frame (as text, or as hex bytes for a msgpack frame): the end
of a ``hello`` can be most of a token with no prefix to recognise, and a GM's
frame holds NPCs' numbers, so a data frame's line is written without its payload
(with :data:`PRIVATE_SETTING` set, a frame without a token keeps it). It turns the
tracebacks that websockets attaches to its own DEBUG and INFO lines about a
client's failed handshake (a connection closed before its HTTP request, a bad
request line) into one line. The server's own errors keep their tracebacks: they
are bugs to read.

:class:`TextFormatter` writes a record as one line (``--log-format text``, the
default): ``time level logger: message``, the control characters of its message
(``\\n``, ``\\r``, ``\\x1b``, the rest of C0 and C1, U+2028 and U+2029) escaped as
Python writes them in a string (``\\n``, ``\\x1b``, ``\\u2028``), so that a table id, a
name or a path a client or an admin chose cannot start a line that looks like one of
the server's; a line without them is written as it was. A traceback (a bug of the
server's) follows as its own lines, with what its exceptions say escaped alike.

:class:`JsonFormatter` writes one JSON object per line (``--log-format json``):
``time``, ``level``, ``logger``, ``message``; ``request``, ``table``, ``code``
when the record carries them (``extra=``; :func:`log_refusal` writes such a
line at DEBUG for every request refused with an error); ``exception`` when there
is one. Its strings' control characters are JSON escapes, DEL, C1, U+2028 and
U+2029 included (:func:`~rollbridge.visible.inert_json`): a table id a client sent
holding U+0085 or U+2028 cannot break a line in two for a reader that splits lines
on them (Python's ``str.splitlines``), nor a C1 control reach a terminal.
:func:`configure` sets up the root logger with either format and the filter.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import sys
from datetime import UTC, datetime
from typing import Any, TextIO

from websockets.frames import Frame, Opcode

from rollbridge.exceptions import STOPS, RollbridgeError, said_by
from rollbridge.visible import CONTROLS, inert_json, visible

__all__ = [
    "FIELDS",
    "FORMATS",
    "PRIVATE_SETTING",
    "JsonFormatter",
    "SafeLog",
    "TextFormatter",
    "configure",
    "cut_tokens",
    "install",
    "log_refusal",
    "one_line",
    "quiet",
    "redact",
    "said_as_gm",
]

#: A token, or as much of one as a truncated log line holds: as text (its ``_``
#: percent-encoded too, once or twice, as in a URL: ``%5F``, ``%255F``), or as the
#: hex bytes websockets prints for a binary frame (``72 62 74 5f`` is ``rbt_``).
_TOKEN = re.compile(
    r"(rb[ta](?:_|%(?:25)?5[Ff]))((?:[A-Za-z0-9_\-]|%(?:25)?[0-9A-Fa-f]{2})*)"
    r"|(72 62 (?:74|61) 5f)(?: [0-9a-f]{2})*"
)
#: A token's body is 43 characters; a body of at least this many is cut wherever
#: it stands, a shorter one (a truncated line's) only where no letter or digit
#: precedes it, so that a word such as ``herba_garden`` stays.
_TOKEN_BODY = 16
#: An Authorization header as websockets' DEBUG log prints it (``< Authorization: …``).
_AUTHORIZATION = re.compile(r"(?i)(authorization:\s*)\S[^\r\n]*")
#: The extra fields a record may carry, in the order a JSON line shows them.
FIELDS = ("request", "table", "code")
#: The environment variable that, set to ``1``, makes the log read refusals as the GM
#: does (:class:`SafeLog`).
PRIVATE_SETTING = "ROLLBRIDGE_LOG_PRIVATE"
#: The formats ``rollbridge serve --log-format`` offers.
FORMATS = ("text", "json")
_requests = logging.getLogger("rollbridge.requests")
_TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def cut_tokens(text: str) -> str:
    """``text`` with every token (or start of one) cut out after its prefix."""
    if "rb" in text or "72 62 " in text:
        text = _TOKEN.sub(lambda m: _cut(m, text), text)
    return text


def _cut(found: re.Match[str], text: str) -> str:
    if found.group(3):  # a binary frame's hex bytes
        return found.group(3) + "…"
    if not found.group(2) and text.startswith("…", found.end()):
        return found.group(0)  # a prefix cut already, or a message's own "rba_…"
    at = found.start()
    alone = at == 0 or not text[at - 1].isalnum()
    if alone or len(found.group(2)) >= _TOKEN_BODY:
        return found.group(1) + "…"
    return found.group(0)


def one_line(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` as a text log line holds it: every control character escaped
    (:func:`rollbridge.visible.visible`: ``\\n``, ``\\x1b``, ``\\u2028``…), ``\\n``
    kept where ``keep_newlines``; the same text when it has none."""
    return visible(text, keep_newlines=keep_newlines)


def redact(text: str) -> str:
    """``text`` with every token (or start of one) and Authorization value cut out."""
    text = cut_tokens(text)
    if "uthorization" in text or "UTHORIZATION" in text:
        text = _AUTHORIZATION.sub(r"\1…", text)
    return text


#: The data frames whose payload websockets' DEBUG line quotes.
_DATA = frozenset({Opcode.TEXT, Opcode.BINARY, Opcode.CONT})


def _hold_back_payload(record: logging.LogRecord, gm_reading: bool) -> None:
    """websockets' DEBUG line of a data frame, without its payload: always when the
    frame holds a token (the line shows the start and the end of a frame's payload;
    the end of a ``hello`` can be most of a token, with no prefix left to
    recognise), and for every data frame unless the log reads as the GM does
    (:data:`PRIVATE_SETTING`): a GM's frame holds NPCs' sheets and numbers, which a
    log shipped where players read it must not."""
    args = record.args if isinstance(record.args, tuple) else ()
    if len(args) == 1 and isinstance(args[0], Frame) and args[0].opcode in _DATA:
        frame = args[0]
        data = bytes(frame.data)
        if b"rbt_" in data or b"rba_" in data:
            why = "it holds a token"
        elif not gm_reading:
            why = f"frames are shown with {PRIVATE_SETTING}=1"
        else:
            return
        held = f"{frame.opcode.name} [{len(data)} bytes; not shown: {why}]"
        record.msg, record.args = str(record.msg) % (held,), None


#: The attribute :func:`quiet` sets on a websockets connection.
_QUIET = "rollbridge_quiet"


def quiet(connection: Any) -> None:
    """Keep websockets' INFO lines about ``connection`` out of the log (``HTTP
    response sent (429 …)``, ``connection closed``): an answer refused for a rate
    whose refusals the server logs itself, at most once per interval."""
    with contextlib.suppress(AttributeError, TypeError):
        setattr(connection, _QUIET, True)


def _quieted(record: logging.LogRecord) -> bool:
    """Whether ``record`` is websockets' INFO line about a connection :func:`quiet`."""
    if record.levelno != logging.INFO or not record.name.startswith("websockets"):
        return False
    try:
        return getattr(getattr(record, "websocket", None), _QUIET, False) is True
    except ReferenceError:  # the connection is gone (websockets holds a weak proxy)
        return False


class SafeLog(logging.Filter):
    """Redacts tokens in every record and its traceback; folds websockets'
    client-caused tracebacks (below WARNING) into their message; drops websockets'
    INFO lines about a connection the server keeps quiet (:func:`quiet`).

    A refusal in a line (``%s`` of it) or a traceback reads as ``str()`` of it does:
    as players read it, an NPC's number a ``Private`` holds "(hidden)". With
    :data:`PRIVATE_SETTING` set to ``1`` in the environment (when the filter is
    made), they read as the GM does (:attr:`~rollbridge.exceptions.RollbridgeError.message`):
    a debugging setting, for a log no one else reads."""

    _format = logging.Formatter()

    def __init__(self, name: str = "") -> None:
        super().__init__(name)
        #: Whether refusals read as the GM reads them (:data:`PRIVATE_SETTING`).
        self.gm_reading = os.environ.get(PRIVATE_SETTING, "") == "1"

    def filter(self, record: logging.LogRecord) -> bool:
        if _quieted(record):
            return False
        if record.name.startswith("websockets") and record.args:
            _hold_back_payload(record, self.gm_reading)
        if self.gm_reading:
            _read_as_gm(record)
        message = record.getMessage()
        if (
            record.exc_info
            and record.levelno < logging.WARNING
            and record.name.startswith("websockets")
        ):
            error = record.exc_info[1]
            message = f"{message}: {type(error).__name__}: {error}" if error else message
            record.exc_info = None
            record.exc_text = None
        if record.exc_info and not record.exc_text:
            record.exc_text = self._format.formatException(record.exc_info)
        if record.exc_text:
            if self.gm_reading and record.exc_info:
                record.exc_text = _traceback_as_gm(record.exc_text, record.exc_info[1])
            record.exc_text = redact(record.exc_text)
        record.msg, record.args = redact(message), None
        return True


def _read_as_gm(record: logging.LogRecord) -> None:
    """``record``'s refusals among its arguments as the GM reads them."""
    args = record.args
    if isinstance(args, tuple) and any(isinstance(arg, RollbridgeError) for arg in args):
        record.args = tuple(
            said_as_gm(arg) if isinstance(arg, RollbridgeError) else arg for arg in args
        )


def said_as_gm(error: RollbridgeError) -> str:
    """What a refusal says to the GM, in English (its private arguments shown); its
    class's name where that cannot be read."""
    try:
        message = error.message
    except STOPS:
        raise
    except BaseException:
        return error.__class__.__name__
    return message if message.__class__ is str else said_by(error)


def _traceback_as_gm(text: str, error: BaseException | None) -> str:
    """A traceback's lines with each refusal in its chain saying what it says to
    the GM where it said what players read."""
    seen: set[int] = set()
    text += "\n"  # the last line's end, which formatException strips
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, RollbridgeError):
            said, gm = said_by(error), said_as_gm(error)
            if said != gm:
                head, found, tail = text.rpartition(f": {said}\n")
                if found:
                    text = f"{head}: {gm}\n{tail}"
        error = error.__cause__ or error.__context__
    return text[:-1]


class TextFormatter(logging.Formatter):
    """A record as one line; see the module docstring."""

    def __init__(self) -> None:
        super().__init__(_TEXT_FORMAT)

    def format(self, record: logging.LogRecord) -> str:
        shown = logging.makeLogRecord(record.__dict__)
        shown.msg, shown.args = one_line(record.getMessage()), None
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            error = record.exc_info[1] if record.exc_info else None
            shown.exc_info, shown.exc_text = None, _traceback(record.exc_text, error)
        return super().format(shown)


def _traceback(text: str, error: BaseException | None) -> str:
    """A traceback's lines, the control characters in them escaped but for the
    newlines between them; what its exceptions say (``error``'s, and those it was
    raised from or while handling) all on the line it starts on."""
    text = one_line(text, keep_newlines=True)
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        # a broken __str__ (raising GeneratorExit too): its class's name, which the
        # traceback says already; the line of a ruleset's failure is written all the same
        said = said_by(error)
        # a refusal's GM reading too, which SafeLog wrote in its place where the log
        # reads refusals as the GM (PRIVATE_SETTING): a private value may hold a newline
        readings = {said, said_as_gm(error)} if isinstance(error, RollbridgeError) else {said}
        for reading in readings:
            if CONTROLS.search(reading):
                for version in {reading, redact(reading)}:  # as SafeLog left it
                    text = text.replace(one_line(version, keep_newlines=True), one_line(version))
        error = error.__cause__ or error.__context__
    return text


class JsonFormatter(logging.Formatter):
    """One JSON object per line; see the module docstring."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in FIELDS:
            value = getattr(record, name, None)
            if value is not None:
                line[name] = value if isinstance(value, str | int | float | bool) else str(value)
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            line["exception"] = record.exc_text
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        # DEL, C1 and U+2028/U+2029 as escapes too: one line for every reader
        return inert_json(json.dumps(line, ensure_ascii=False))


def log_refusal(reply: Any) -> None:
    """A DEBUG line for a request refused with an error (a
    :class:`~rollbridge.protocol.effects.Reply` with ``error``), carrying its
    ``request`` id, ``table`` and ``code`` for the JSON log."""
    if not _requests.isEnabledFor(logging.DEBUG):
        return
    session = getattr(reply.origin, "session", None)
    table = session.id if session is not None else None
    request, code = reply.message.get("id"), reply.error.code
    _requests.debug(
        "request %r at table %s refused: %s", request, table or "-", code,
        extra={"request": request, "table": table, "code": code},
    )  # fmt: skip


def install(logger: logging.Logger | None = None) -> SafeLog:
    """Put a :class:`SafeLog` on every handler of ``logger`` (the root logger)."""
    safe = SafeLog()
    for handler in (logger or logging.getLogger()).handlers:
        handler.addFilter(safe)
    return safe


def configure(level: str = "INFO", form: str = "text", stream: TextIO | None = None) -> None:
    """Log to ``stream`` (stderr) at ``level`` in ``form`` (:data:`FORMATS`),
    through :class:`SafeLog`, replacing the root logger's handlers."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter() if form == "json" else TextFormatter())
    handler.addFilter(SafeLog())
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(getattr(logging, str(level).upper(), logging.INFO))
