"""The terminal client of ``rollbridge connect``: typed commands in, events and
answers printed as they arrive, over one connection at a time — a new one, resuming,
after a close the server may come back from or at a gap in the events' seq
(:mod:`rollbridge.cli.reconnect` says which closes, and how soon)."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import shlex
import ssl
import sys
import threading
import uuid
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from rollbridge.cli.action_words import action_lines
from rollbridge.cli.odds import odds_reply_lines
from rollbridge.cli.offline import STATUS_NOTE, TOO_DEEP_JSON, WAITING, not_json
from rollbridge.cli.open_refused import NO_USE, TRIED_AGAIN, answered_problem, waited_text
from rollbridge.cli.proxy_refused import proxy_problem
from rollbridge.cli.reconnect import (
    ATTEMPT_FAILED,
    NO_WELCOME,
    NOT_RESUMED,
    RESUMED,
    TRY_LATER,
    Schedule,
    asked_wait,
    close_status,
    closed_text,
    gap_text,
)
from rollbridge.cli.render import render_actor, render_encounter, render_event, render_pending
from rollbridge.cli.waits import Waits
from rollbridge.dice.verify import LogVerifier
from rollbridge.engine.requests import BAD_ID, valid_id
from rollbridge.exceptions import InvalidRequest, RollbridgeError
from rollbridge.plain import JSON, pack, unpack
from rollbridge.system_words import system_reason
from rollbridge.text import Messages
from rollbridge.visible import visible, visible_data

__all__ = ["HELP", "parse_command", "refusal_of", "run"]

say = Messages("rollbridge")
# Translators: the command words (roll, do, actions, state, undo, …), the key=value
# keys (actor, target, supply, secret) and FORMULA, ACTION, ID, PENDING stay as they
# are: they are what one types. Keep the columns aligned.
HELP = say(
    "cli.terminal.help",
    """\
commands:
  2d6+3 | roll FORMULA           roll dice notation (e.g. 4d6kh3, 3d6!!, 1d20+5)
  do ACTION [actor=ID] [target=ID[,ID]] [supply=6,2,..] [secret=true] [key=value ...]
                                 resolve a ruleset action: key=value are its parameters
                                 (JSON or text); supply= gives the die results yourself
  actions                        the ruleset's actions and their parameters
  state                          the table now
  undo | redo                    (GM) take back / redo the latest change
  start ID [ID ...] | next | end (GM) run an encounter in this turn order
  approve PENDING [supply=6,2,..] | reject PENDING [reason]
                                 (GM) decide a player's request (supply= gives the
                                 die results yourself)
  odds FORMULA | odds ACTION [actor=ID] [target=ID[,ID]] [assume=JSON] [key=value ...]
                                 the exact odds before rolling (assume= states an
                                 NPC's hidden sheet or state, as JSON by actor id)
  reveal                         (GM) verifiable dice: reveal the seed, commit the next
  json {{...}}                     send a raw protocol message
  help | quit""",
)
JSON_OBJECT = say("cli.terminal.json_object", "json: give a JSON object")
# Translators: {problem} is Python's own (English) words for what is wrong.
UNREADABLE = say("cli.terminal.unreadable", "cannot read that line: {problem}")
ROLL_FORMULA = say("cli.terminal.roll", "roll: give a formula, e.g. roll 2d6+1")
START_ORDER = say("cli.terminal.start", "start: name the actors in turn order")
# Translators: {command} is approve or reject: the command word, as typed.
NAME_PENDING = say(
    "cli.terminal.pending", "{command}: name the pending request, e.g. {command} p12"
)
# Translators: {part} is what was typed after the request's name, quoted; approve,
# PENDING and supply= stay as typed.
APPROVE_WORDS = say(
    "cli.terminal.approve",
    "approve: {part} is not supply=…; approve PENDING, or approve PENDING supply=6,2,.. "
    "with your own dice",
)
ODDS_WHAT = say(
    "cli.terminal.odds",
    "odds: give a formula or an action, e.g. odds 2d6+1 or odds attack actor=ana",
)
# Translators: {seqs} a list of event numbers, {segment} a number.
VERIFIED = say(
    "cli.terminal.verified",
    "✓ verified: the server's dice of {seqs} are the ones segment {segment}'s seed gives",
)
# Translators: {message} says which die of which event does not match.
NOT_VERIFIED = say("cli.terminal.not_verified", "✗ verifiable dice do not check out: {message}")
NAME_ACTION = say("cli.terminal.do", "do: name an action, e.g. do attack actor=ana target=guard")
# Translators: {command} is do or odds: the command word, as typed; {part} is what
# was typed, quoted.
NOT_KEY_VALUE = say("cli.terminal.key_value", "{command}: {part} is not key=value")
# Translators: {part} is what was typed after supply=, quoted; "supply" stays as typed.
SUPPLY_NUMBERS = say(
    "cli.terminal.supply", "supply: {part} is not whole numbers split by commas, e.g. supply=6,2,5"
)
# Translators: {value} is what was typed after secret=, quoted; true and false stay
# as typed.
SECRET_TRUE_FALSE = say("cli.terminal.secret", "secret: give true or false, not {value}")
# Translators: {command} is what was typed, quoted; "help" is the command word.
UNKNOWN_COMMAND = say("cli.terminal.unknown", "unknown command {command}; type help")
CANNOT_CONNECT = say("cli.terminal.cannot_connect", "cannot connect to {url}: {problem}")
# Translators: {problem} is the system's words (ConnectionResetError, an SSL error).
NOT_TLS = say(
    "cli.terminal.not_tls",
    "{problem}; rollbridge serve itself speaks plain ws://: wss:// needs a TLS proxy in "
    "front of it",
)
# Translators: {code} is the server's error code; {message} its message.
REFUSED = say("cli.terminal.refused", "{code}: {message}")
# Translators: {role} is gm, player or observer; {seq} the table's event number.
JOINED = say(
    "cli.terminal.joined", "joined {table} [{id}] as {role} ({name}); ruleset {ruleset}; seq {seq}"
)
TYPE_HELP = say("cli.terminal.type_help", "type help for commands")
# Translators: the input ended (or quit was typed) and no answer came in time, or
# the connection closed for good (or, while reconnecting, quit was typed) first.
UNANSWERED = say.plural(
    "cli.terminal.unanswered",
    "{count} request was not answered; the session ends",
    "{count} requests were not answered; the session ends",
)


def _value(text: str, name: str) -> Any:
    """A ``key=value``'s value: JSON if it is, else the text.

    :raises InvalidRequest: JSON nested too deep, or with a number too long (more
        than 4300 digits), to read.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text
    except (ValueError, RecursionError):  # nested too deep, a number too long
        raise InvalidRequest(TOO_DEEP_JSON(option=name)) from None


def _typed_json(line: str, key: str, cursor: int) -> tuple[Any, int, int] | None:
    """The JSON typed right after ``key=`` in ``line`` (at ``cursor`` or later), as it
    was typed — a word's reading (shell-like) takes its double quotes off, and
    ``assume={"n":{"sheet":{"dc":17}}}`` would read as the text ``{n:{sheet:…}}`` —
    where it ends, and how many words past the first its spaces split it into
    (``assume={"n": {"sheet": {}}}``: two); None where no JSON word stands there.

    :raises InvalidRequest: JSON nested too deep, or with a number too long.
    """
    start = line.find(f"{key}=", cursor)
    while start != -1:
        at = start + len(key) + 1
        if start == 0 or line[start - 1].isspace():
            try:
                value, end = _DECODER.raw_decode(line, at)
            except json.JSONDecodeError:
                value, end = None, -1
            except (ValueError, RecursionError):  # nested too deep, a number too long
                raise InvalidRequest(TOO_DEEP_JSON(option=key)) from None
            if end != -1 and (end == len(line) or line[end].isspace()):
                return value, end, len(shlex.split(line[at:end])) - 1
        start = line.find(f"{key}=", at)
    return None


_DECODER = json.JSONDecoder()


def parse_command(line: str, request_id: str) -> JSON | None:
    """Turn a typed line into a protocol message (None for local commands).

    :raises InvalidRequest: for a line that is not a command, and for ``json {...}``
        with an ``id`` that is no request id (the server's words for it): the server
        answers such a request with ``"id": null``, and the session, which waits for
        the answer to each request it sent, would wait for it in vain.
    """
    line = line.strip()
    if not line:
        return None
    head, _, rest = line.partition(" ")
    word = head.lower()
    if word == "json":
        try:
            message = json.loads(rest)
        except json.JSONDecodeError as exc:
            raise InvalidRequest(not_json(exc, "json")) from None
        except (ValueError, RecursionError):  # nested too deep, a number too long
            raise InvalidRequest(TOO_DEEP_JSON(option="json")) from None
        if not isinstance(message, dict):
            raise InvalidRequest(JSON_OBJECT())
        message.setdefault("id", request_id)
        if not valid_id(message["id"]):  # the answer could not name it: none awaited
            raise InvalidRequest(BAD_ID(), details={"field": "id"})
        return message
    try:
        parts = shlex.split(rest)
    except ValueError as exc:
        raise InvalidRequest(UNREADABLE(problem=str(exc))) from None
    message: JSON = {"id": request_id}
    if word == "roll":
        if not rest.strip():
            raise InvalidRequest(ROLL_FORMULA())
        return {**message, "type": "roll", "formula": rest.strip()}
    if word in ("undo", "redo", "state"):
        return {**message, "type": word}
    if word == "reveal":
        return {**message, "type": "dice.reveal"}
    if word == "odds":
        return _odds_command(message, rest, parts)
    if word == "next":
        return {**message, "type": "encounter.next"}
    if word == "end":
        return {**message, "type": "encounter.end"}
    if word == "start":
        if not parts:
            raise InvalidRequest(START_ORDER())
        return {**message, "type": "encounter.start", "order": parts}
    if word in ("approve", "reject"):
        if not parts:
            raise InvalidRequest(NAME_PENDING(command=word))
        message.update(type=word, request=parts[0])
        if word == "reject" and len(parts) > 1:
            message["reason"] = " ".join(parts[1:])
        elif word == "approve":
            message.update(_approve_dice(parts[1:]))
        return message
    if word == "do":
        if not parts:
            raise InvalidRequest(NAME_ACTION())
        message.update(type="resolve", action=parts[0], params={}, targets=[])
        return _action_fields(message, parts[1:], ("supply", "secret"), rest, "do")
    if head[:1].isdigit() or head[:1] in ("d", "(", "-"):
        return {**message, "type": "roll", "formula": line}
    raise InvalidRequest(UNKNOWN_COMMAND(command=repr(head)))


def _action_fields(
    message: JSON, parts: list[str], extra: tuple[str, ...], line: str, command: str
) -> JSON:
    """``key=value`` words of ``do`` and ``odds`` (``command``; ``line``: the words as
    typed):
    actor, targets, ``extra`` keys (supply, secret, assume), and the action's
    parameters. A value is JSON where it reads as JSON, as typed (a map's and a
    list's double quotes kept: ``assume={"n":{"sheet":{}}}``) or as read (quoted
    whole: ``assume='{"n": {"sheet": {}}}'``), else text; JSON typed with spaces in
    it is one value, not the words its spaces split it into."""
    cursor, inside = 0, 0
    for part in parts:
        if inside:  # a word of the JSON value before it, split off at a space
            inside -= 1
            continue
        key, sep, value = part.partition("=")
        if not sep:
            raise InvalidRequest(NOT_KEY_VALUE(command=command, part=repr(part)))
        if value[:1] in ("{", "[") and key not in ("actor", "target", "targets", "supply"):
            typed = _typed_json(line, key, cursor)
            if typed is not None and _value(value, key).__class__ is str:
                value, cursor, inside = json.dumps(typed[0]), typed[1], typed[2]
        if key == "actor":
            message["actor"] = value
        elif key in ("target", "targets"):
            message["targets"].extend(v for v in value.split(",") if v)
        elif key == "supply" and key in extra:
            message["dice"] = _supplied(value)
        elif key == "secret" and key in extra:
            secret = _value(value, key)
            if secret is not True and secret is not False:  # "yes" once meant false
                raise InvalidRequest(SECRET_TRUE_FALSE(value=repr(value)))
            message["secret"] = secret
        elif key == "assume" and key in extra:
            message["assume"] = _value(value, key)
        else:
            message["params"][key] = _value(value, key)
    return message


def _approve_dice(parts: list[str]) -> JSON:
    """``approve p12 supply=6,2``'s words after the request: the GM's own dice
    (``dice``), or nothing. Any other word is refused (it was dropped, and the request
    approved as if it were not there: with the player's dice, not the GM's)."""
    fields: JSON = {}
    for part in parts:
        key, sep, value = part.partition("=")
        if key != "supply" or not sep or "dice" in fields:
            raise InvalidRequest(APPROVE_WORDS(part=repr(part)))
        fields["dice"] = _supplied(value)
    return fields


def _supplied(value: str) -> list[int]:
    """``supply=6,2,5``'s die results. A word that is no whole number is refused in
    the terminal's words (it was Python's ``invalid literal for int()``)."""
    words = [v for v in value.split(",") if v]
    if not words or not all(v.strip().lstrip("+-").isdecimal() and len(v) <= 20 for v in words):
        raise InvalidRequest(SUPPLY_NUMBERS(part=repr(value)))
    return [int(v) for v in words]


def _odds_command(message: JSON, rest: str, parts: list[str]) -> JSON:
    """``odds 2d6+1`` (a formula: its first word holds a digit) or ``odds ACTION …``."""
    if not parts:
        raise InvalidRequest(ODDS_WHAT())
    if any(c.isdigit() for c in parts[0]) or parts[0][:1] in ("(", "-"):
        return {**message, "type": "odds", "formula": rest.strip()}
    message.update(type="odds", action=parts[0], params={}, targets=[])
    return _action_fields(message, parts[1:], ("assume",), rest, "odds")


#: ``connection closed (1008: token revoked)`` (:func:`rollbridge.cli.reconnect.closed_text`).
_closed_text = closed_text


def run(
    url: str,
    table: str,
    token: str,
    *,
    binary: bool = False,
    locale: str = "en",
    schedule: Schedule | None = None,
    waits: Waits | None = None,
) -> int:
    """Join ``table`` at ``url`` with ``token`` and run until the input ends (and
    what was sent is answered) or the server closes the connection for good; the exit
    status. After a close the server, or the network, may come back from (1001, 1006,
    1011-1014: :data:`rollbridge.cli.reconnect.RECONNECT_AFTER`), and at a gap in the
    events' seq, it reconnects on ``schedule`` and resumes; ``quit`` typed (or the
    input ending) meanwhile ends it at once. ``locale``: the language the client asks
    the server for and prints in. ``schedule``: default attempts for 300 s, the first
    after 0.5 s. ``waits``: how long a welcome is waited for (default 25 s) and, once the
    input has ended, the answers to what was sent (default 5 s)."""
    return asyncio.run(
        _session(url, table, token, binary, locale, schedule or Schedule(), waits or Waits())
    )


def _quiet_stream_end(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The session loop's handler of errors no task awaits: websockets' ``EOFError``
    ("stream ended") raised in a transport's ``connection_lost`` when an HTTP proxy
    hangs up on the tunnel (``$http_proxy``) is dropped — the connection attempt is
    refused all the same, and said in one line — where asyncio printed its traceback;
    anything else as asyncio says it."""
    if isinstance(context.get("exception"), EOFError):
        return
    loop.default_exception_handler(context)


def _print(text: str) -> None:
    """Print ``text``'s lines, any other control character in them shown, not obeyed
    (:func:`~rollbridge.visible.visible`: what a server sends is its data, and each
    value from the wire is made visible whole before it is rendered, its line breaks
    included)."""
    sys.stdout.write("\n".join(visible(line) for line in text.split("\n")) + "\n")
    sys.stdout.flush()


def _stdin_lines(loop: asyncio.AbstractEventLoop, lines: asyncio.Queue) -> None:
    try:
        for line in sys.stdin:
            loop.call_soon_threadsafe(lines.put_nowait, line)
        loop.call_soon_threadsafe(lines.put_nowait, None)
    except RuntimeError:  # the session ended (its loop is closed) while input was read
        return


#: The system's reasons a connection was not made that are said in the reader's
#: language (:func:`~rollbridge.system_words.system_reason`), not as asyncio's English
#: ``[Errno 111] Connect call failed ('127.0.0.1', 8765)``: every attempt of an outage
#: said it, for minutes. An SSL error is an OSError whose number is OpenSSL's, not these.
_SAID_BY_SYSTEM = frozenset(
    {errno.ECONNREFUSED, errno.ECONNRESET, errno.EHOSTUNREACH, errno.ENETUNREACH, errno.ETIMEDOUT}
)


async def _open(url: str) -> Any:
    """A WebSocket connection to ``url``.

    :raises InvalidRequest: it cannot be made (the system's words for why); an HTTP
        status or a refused certificate in the reader's words, its ``details`` saying
        which and whether it is ``lasting`` (:mod:`rollbridge.cli.open_refused`); a
        proxy's refused tunnel likewise (:mod:`rollbridge.cli.proxy_refused`).
    """
    try:
        return await connect(url, max_size=2**20, open_timeout=10)
    except Exception as exc:
        answered = answered_problem(exc) or proxy_problem(exc, url)
        if answered is not None:  # a certificate refused is no plain server (below)
            problem, details = answered
            raise InvalidRequest(
                CANNOT_CONNECT(url=url, problem=problem), details=details
            ) from None
        problem: Any = str(exc) or type(exc).__name__  # ConnectionResetError() says nothing
        if (
            isinstance(exc, OSError)
            and not isinstance(exc, ssl.SSLError)
            and exc.errno in _SAID_BY_SYSTEM
        ):
            problem = system_reason(exc)  # not asyncio's English "[Errno 111] Connect call …"
        # the plain server breaks off the TLS handshake (a reset, an SSL error); a
        # refused connection is nothing listening there, TLS or not
        broken_off = (ConnectionResetError, ConnectionAbortedError, ssl.SSLError)
        if url.startswith("wss://") and isinstance(exc, broken_off):
            problem = NOT_TLS(problem=problem)
        raise InvalidRequest(CANNOT_CONNECT(url=url, problem=problem)) from None


class _Link:
    """What a session keeps across its connections: the requests sent and not yet
    answered (their frames, to send again with the same id after a reconnect), the
    last event shown, as ``(epoch, seq)`` (the ``resume`` of the next ``hello``), and
    the reconnect attempts made since a connection last proved good (it answered the
    ping sent after its welcome and the requests sent again: a server that takes the
    connection and closes it at once, or shows it a gap at once, every time, is not
    tried for ever)."""

    def __init__(self) -> None:
        self.waiting: dict[Any, bytes | str] = {}
        self.cursor: tuple[int, int] = (1, 0)
        self.strikes = 0
        #: When this outage's first attempt was made (the schedule's clock), or None.
        self.began: float | None = None
        self.probe: str | None = None
        #: Set while no request waits for its answer.
        self.settled = asyncio.Event()
        self.settled.set()

    def sent(self, request_id: Any, frame: bytes | str) -> None:
        """A request went out (or will, after a reconnect): it waits for its answer."""
        self.waiting[request_id] = frame
        self.settled.clear()

    def answered(self, request_id: Any) -> None:
        """A reply to ``request_id`` came: it waits no more."""
        self.waiting.pop(request_id, None)
        if not self.waiting:
            self.settled.set()

    def left_unanswered(self, locale: str) -> int:
        """The session ends now: say how many requests are unanswered, if any; the
        exit status that makes (1 if any, else 0)."""
        if not self.waiting:
            return 0
        _print(UNANSWERED(count=len(self.waiting)).render(locale))
        return 1


async def _session(
    url: str,
    table: str,
    token: str,
    binary: bool,
    locale: str,
    schedule: Schedule,
    waits: Waits,
) -> int:
    asyncio.get_running_loop().set_exception_handler(_quiet_stream_end)
    encode = pack if binary else json.dumps
    hello: JSON = {
        "type": "hello",
        "id": "hello",
        "table": table,
        "token": token,
        "client": "rollbridge-connect",
        "results": "brief",  # events are printed as they arrive
        "locale": locale,
    }
    connection = await _open(url)
    prefix = uuid.uuid4().hex[:8]
    counter = 0
    link = _Link()
    ruleset: JSON = {}
    closing: set[asyncio.Task] = set()  # connections left at a gap, closing meanwhile
    async with contextlib.AsyncExitStack() as connections:  # each closed at the end
        await connections.enter_async_context(connection)
        try:
            welcome = await _welcome(connection, encode(hello), locale, waits.welcome)
        except InvalidRequest as exc:  # closed before its welcome (1013: too many), stalled
            raise InvalidRequest(CANNOT_CONNECT(url=url, problem=exc.render(locale))) from None
        if welcome.get("type") == "error":  # the server's refusal, with the server's code
            raise refusal_of(welcome)
        ruleset = welcome.get("ruleset") or {}
        table_view = welcome["table"]
        _print(_joined(welcome, locale))
        names: dict[str, str] = {}  # actor id → name, for the encounter's line
        _print_table(table_view, names, locale)
        _print(TYPE_HELP().render(locale))
        link.cursor = (welcome.get("epoch", 1), welcome["seq"])
        lines: asyncio.Queue = asyncio.Queue()
        loop = asyncio.get_running_loop()
        threading.Thread(target=_stdin_lines, args=(loop, lines), daemon=True).start()
        verifier = LogVerifier()  # marks rolls verified as their segment is revealed
        verifier.known(table_view["id"], table_view.get("epoch", 1), table_view.get("dice"))
        receiver = asyncio.create_task(_receive(connection, link, locale, verifier, names, encode))
        # the attempts of an outage, while they run: the input is read meanwhile
        away: asyncio.Task | None = None
        next_line = asyncio.ensure_future(lines.get())
        ended: float | None = None  # the input ended: when to stop waiting for answers
        try:
            while True:
                if ended is not None and not link.waiting:
                    return 0
                watched: set[asyncio.Future] = {away or receiver}
                settled: asyncio.Future | None = None
                if ended is None:
                    watched.add(next_line)
                elif away is None:  # what was sent is awaited, across reconnects too
                    settled = asyncio.ensure_future(link.settled.wait())
                    watched.add(settled)
                await asyncio.wait(
                    watched,
                    timeout=None if settled is None else max(0.0, ended - loop.time()),
                    return_when=asyncio.FIRST_COMPLETED,
                )
                if settled is not None:
                    settled.cancel()
                if away is not None and away.done():  # the outage's attempts ended
                    back = away.result()
                    away = None
                    if back is None:  # no attempt left, or the token refused: said
                        link.left_unanswered(locale)
                        return 1
                    connection, welcome = back
                    await connections.enter_async_context(connection)
                    if not (welcome.get("resume") or {}).get("recovered"):
                        _print_table(welcome["table"], names, locale)  # a fresh snapshot
                    receiver = asyncio.create_task(
                        _receive(connection, link, locale, verifier, names, encode)
                    )
                    # unanswered requests again, the same ids: the server does each once;
                    # then a ping, whose pong proves the connection good
                    counter += 1
                    link.probe = f"{prefix}-{counter}"
                    with contextlib.suppress(ConnectionClosed):  # the receiver sees it
                        for frame in list(link.waiting.values()):
                            await connection.send(frame)
                        await connection.send(encode({"type": "ping", "id": link.probe}))
                    if ended is not None:
                        ended = loop.time() + waits.answers
                    continue
                if away is None and receiver.done():  # the connection closed, or a gap
                    heading = _after(receiver, connection, link, schedule, locale)
                    if isinstance(heading, int):
                        return heading
                    if not connection.close_code:  # left at a gap: closed meanwhile
                        task = asyncio.ensure_future(connection.close(1000, "missed events"))
                        closing.add(task)
                        task.add_done_callback(closing.discard)
                    away = asyncio.create_task(
                        _reconnect(url, encode, hello, link, locale, schedule, waits, heading)
                    )
                    continue
                if ended is not None:  # the wait for answers ended
                    if link.waiting:  # no answer in time
                        return link.left_unanswered(locale)
                    continue
                if not next_line.done():
                    continue
                line = next_line.result()
                next_line = asyncio.ensure_future(lines.get())
                if line is None or line.strip().lower() in ("quit", "exit"):
                    if away is not None and line is not None:  # quit typed: at once
                        return link.left_unanswered(locale)
                    # the input ended (a script's pipe, perhaps just as the server
                    # closed): what was sent is awaited, across the reconnect too
                    ended = loop.time() + waits.answers
                    continue
                counter += 1
                message = _typed(line, f"{prefix}-{counter}", ruleset, locale)
                if message is None:
                    continue
                frame = encode(message)
                link.sent(message["id"], frame)
                if away is None:  # else it goes with the others once a connection is back
                    with contextlib.suppress(ConnectionClosed):  # the receiver sees the close
                        await connection.send(frame)  # (and after a reconnect it is sent again)
        finally:
            next_line.cancel()
            receiver.cancel()
            if away is not None:
                away.cancel()


def _typed(line: str, request_id: str, ruleset: JSON, locale: str) -> JSON | None:
    """A typed line (not ``quit``): the request to send, or None, having done what it
    asks here (``help``, ``actions``) or said why it is no request."""
    word = line.strip().lower()
    if word == "help":
        _print(HELP().render(locale))
        return None
    if word == "actions":
        for shown in action_lines(ruleset.get("actions") or {}, locale):
            _print(shown)
        return None
    try:
        return parse_command(line, request_id)
    except (InvalidRequest, ValueError) as exc:
        _print(f"! {exc.render(locale) if isinstance(exc, InvalidRequest) else exc}")
        return None


def _after(
    receiver: asyncio.Task, connection: Any, link: _Link, schedule: Schedule, locale: str
) -> str | int:
    """The receiver ended: the line to print before reconnecting (the close, or the
    gap it met), or the exit status the session ends with, having printed why (a close
    that is the end, with the requests it leaves unanswered, or no attempt left). A
    gap does not start the attempts over: on a connection not yet proved good it is
    the same outage going on."""
    gap = None if receiver.cancelled() or receiver.exception() else receiver.result()
    if gap is not None:
        if not schedule.reconnects():  # it never reconnects: the session ends at the gap
            _print(gap_text(link.cursor, gap, locale, then="end"))
            link.left_unanswered(locale)
            return 1
        if schedule.spent(link.strikes, link.began):  # this outage's attempts are spent
            _print(gap_text(link.cursor, gap, locale, then="last"))
            _print(schedule.gave_up(link.strikes, locale))
            link.left_unanswered(locale)
            return 1
        return gap_text(link.cursor, gap, locale)
    code, reason = connection.close_code, connection.close_reason
    status = close_status(code)
    if status is not None or schedule.spent(link.strikes, link.began):
        _print(_closed_text(code, reason, locale))
        if status is None:  # no attempt left
            if schedule.reconnects():
                _print(schedule.gave_up(link.strikes, locale))
            link.left_unanswered(locale)
            return 1
        return max(status, link.left_unanswered(locale))  # requests left unanswered: 1
    return schedule.heading(code, reason, link.strikes, link.began, locale)


def refusal_of(error: JSON) -> RollbridgeError:
    """A server's ``error`` frame answering the ``hello`` as the error the command
    ends with: the server's own code (``unauthorized``, ``too_many_connections``)
    and message, not an ``invalid_request`` of the client's wrapping them."""
    code = error.get("code")
    message = error.get("message")
    return RollbridgeError(
        message if isinstance(message, str) else str(message),
        code=code if isinstance(code, str) and code else RollbridgeError.code,
        details=error.get("details") if isinstance(error.get("details"), dict) else None,
    )


def _joined(welcome: JSON, locale: str) -> str:
    """The line that says which table this client joined, as whom, at which seq."""
    welcome = visible_data(welcome)
    table_view = welcome["table"]
    joined = JOINED(
        table=table_view["name"],
        id=table_view["id"],
        role=welcome["role"],
        name=welcome["name"],
        ruleset=table_view["ruleset"],
        seq=welcome["seq"],
    )
    return joined.render(locale)


async def _reconnect(
    url: str,
    encode: Any,
    hello: JSON,
    link: _Link,
    locale: str,
    schedule: Schedule,
    waits: Waits,
    heading: str,
) -> tuple[Any, JSON] | None:
    """Print ``heading``, then reconnect on ``schedule`` with ``hello`` resuming from
    the last event shown; the new connection and its welcome, or None (all attempts
    failed, or the server refused the token: the session ends, having said why).
    Cancelled (``quit`` typed meanwhile), it drops the connection it was making."""
    _print(heading)
    epoch, seq = link.cursor
    wait_at_least = 0.0
    if link.strikes == 0:  # a new outage: its time counts from now
        link.began = schedule.clock()
    while not schedule.spent(link.strikes, link.began):
        await asyncio.sleep(schedule.wait(link.strikes, link.began, wait_at_least))
        link.strikes += 1
        attempt, wait_at_least = link.strikes, 0.0
        try:
            connection = await _open(url)
        except InvalidRequest as exc:
            failed = ATTEMPT_FAILED(attempt=attempt, problem=exc.render(locale)).render(locale)
            if exc.details.get("lasting"):  # a 401, 403, a proxy's 407, a refused certificate
                _print(f"{failed}\n{NO_USE().render(locale)}")
                return None
            retry_after = exc.details.get("retry_after")
            wait_at_least = asked_wait(retry_after)
            left = None if schedule.attempts is not None else schedule.left(link.began)
            # after the last attempt (counted, or as the time given ends) none follows:
            # the line after says the session ends
            follows = not schedule.spent(link.strikes, link.began)
            if follows and isinstance(retry_after, int) and wait_at_least > 0:  # a 429's, 503's
                said = waited_text(retry_after, wait_at_least, left).render(locale)
                failed = f"{failed}; {said}"
            elif (
                follows and "status" in exc.details
            ):  # a proxy's 404 or 502: said to be tried again
                failed = f"{failed}; {TRIED_AGAIN().render(locale)}"
            _print(failed)
            continue
        resuming = encode({**hello, "resume": {"epoch": epoch, "seq": seq}})
        try:
            welcome = await _welcome(connection, resuming, locale, waits.welcome)
        except InvalidRequest as exc:
            _print(ATTEMPT_FAILED(attempt=attempt, problem=exc.render(locale)).render(locale))
            continue
        except asyncio.CancelledError:
            connection.transport.abort()
            raise
        if welcome.get("type") == "error":
            await connection.close()
            refused = REFUSED(code=welcome.get("code"), message=welcome.get("message"))
            if welcome.get("code") not in TRY_LATER:  # the token no longer opens the table
                _print(refused.render(locale))
                return None
            _print(ATTEMPT_FAILED(attempt=attempt, problem=refused.render(locale)).render(locale))
            retry_after = (welcome.get("details") or {}).get("retry_after")
            wait_at_least = asked_wait(retry_after)
            continue
        _print(_joined(welcome, locale))
        resumed = welcome.get("resume") or {}
        if resumed.get("recovered") and welcome.get("epoch", 1) == epoch:
            _print(RESUMED(seq=seq).render(locale))
        else:
            _print(NOT_RESUMED(seq=seq).render(locale))
            link.cursor = (welcome.get("epoch", 1), welcome["seq"])
        return connection, welcome
    _print(schedule.gave_up(link.strikes, locale))
    return None


async def _welcome(connection: Any, hello: bytes | str, locale: str, wait: float) -> JSON:
    """Send ``hello`` on a new ``connection`` and read the server's answer to it (its
    welcome, or the error refusing it).

    :raises InvalidRequest: no answer came: the connection closed first (the server
        has too many connections from this address: 1013), or none within ``wait``
        seconds (``ROLLBRIDGE_WELCOME_TIMEOUT``, default 25: the connection is then
        dropped); the message says which, in ``locale``.
    """
    try:
        async with asyncio.timeout(wait):
            await connection.send(hello)
            return _decode(await connection.recv())
    except ConnectionClosed:
        said = _closed_text(connection.close_code, connection.close_reason, locale)
    except TimeoutError:  # the server took the connection and stalls
        connection.transport.abort()
        said = NO_WELCOME(seconds=f"{wait:g}").render(locale)
    raise InvalidRequest(said)


def _decode(frame: bytes | str) -> JSON:
    if isinstance(frame, bytes):
        return unpack(frame)
    return json.loads(frame)


def _check_dice(verifier: LogVerifier, event: JSON, locale: str) -> None:
    """Feed an event to the session's verifier; print what a reveal verified, and
    every problem the feed found — one a reveal put in the place of a problem said
    before (a die the event did not draw, found to be no die of the seed's: the
    verifier says the deeper fault in its stead, and the count of problems stays)
    too."""
    said = list(verifier.report.problems)  # held: no id of theirs is reused meanwhile
    known = {id(problem) for problem in said}
    seqs = verifier.feed(event)
    if seqs:
        shown = ", ".join(f"#{s}" for s in seqs)
        _print(VERIFIED(seqs=shown, segment=event["data"]["segment"]).render(locale))
    for problem in verifier.report.problems:
        if id(problem) not in known:
            _print(NOT_VERIFIED(message=problem.text).render(locale))


def _status_line(reply: JSON, locale: str) -> str:
    """``= r-3: pending p12: waiting for the GM's approval …``: a reply that holds no
    event, its status code (kept as it is, as ``resolve`` keeps it) and what it means
    in ``locale`` — the server's note of a secret result, or the wait for approval."""
    status, pending = reply["status"], reply.get("pending", "")
    note = reply.get("note") or (WAITING().render(locale) if status == "pending" else "")
    head = f"{status} {pending}".rstrip()
    return f"= {reply['id']}: " + STATUS_NOTE(status=head, note=note).render(locale).rstrip(": ")


def _print_table(table: JSON, names: dict[str, str], locale: str) -> None:
    """Print a table's actors, its running encounter and (the GM's) the requests
    waiting for approval; note the actors' names (as shown:
    :func:`~rollbridge.visible.visible_data`)."""
    table = visible_data(table)
    for actor in table.get("actors", ()):
        names[actor["id"]] = actor.get("name", actor["id"])
        _print(render_actor(actor, locale))
    if table.get("encounter"):
        _print(render_encounter(table["encounter"], names, locale))
    for line in render_pending(table.get("pending"), names, locale):  # the GM's alone
        _print(line)


async def _receive(
    connection: Any,
    link: _Link,
    locale: str,
    verifier: LogVerifier,
    names: dict[str, str],
    encode: Any = None,
) -> tuple[int, int] | None:
    """Print what the server sends until the connection closes (None), or until an
    event that does not follow the last one shown (its ``(epoch, seq)``: a gap, which
    is not shown: the resume sends it again, after the ones missed). Note the last
    event shown in ``link.cursor`` and strike each answered request off
    ``link.waiting``. An event marked ``reread`` (a settings change that changed how
    players see more NPCs than it could carry) asks for the table's ``state``, sent
    with ``encode``, whose reply prints the table."""
    try:
        async for frame in connection:
            received = _decode(frame)
            # what is printed: a label's ESC or line break shown, not obeyed; the
            # verifier and the seqs read the message as it came
            message = visible_data(received)
            kind = message.get("type")
            if kind == "event":
                epoch, seq = message.get("epoch", link.cursor[0]), message.get("seq")
                if isinstance(seq, int):
                    if epoch == link.cursor[0] and seq <= link.cursor[1]:
                        continue  # shown already (before a reconnect)
                    if epoch != link.cursor[0] or seq != link.cursor[1] + 1:
                        return epoch, seq
                    link.cursor = (epoch, seq)
                for actor in message.get("actors", ()):
                    if actor.get("name"):
                        names[actor["id"]] = actor["name"]
                _print(render_event(message, locale=locale, names=names))
                _check_dice(verifier, received, locale)
                if message.get("reread") is True and encode is not None:
                    again = {"type": "state", "id": f"reread-{uuid.uuid4()}"}
                    link.sent(again["id"], encode(again))
                    await connection.send(encode(again))
            elif kind == "result":
                link.answered(message.get("id"))
                if "odds" in message or "distribution" in message:
                    _print("\n".join(odds_reply_lines(message, locale)))
                elif "table" in message:
                    _print_table(message["table"], names, locale)
                elif message.get("status") in ("pending", "secret", "rejected"):
                    _print(_status_line(message, locale))
            elif kind == "error":
                link.answered(message.get("id"))
                _print(f"! {message.get('code')}: {message.get('message')}")
            elif kind == "pong":
                if message.get("id") == link.probe:  # the connection is a good one
                    link.strikes, link.began, link.probe = 0, None, None
                link.answered(message.get("id"))
    except ConnectionClosed:
        pass
    return None
