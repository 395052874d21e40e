"""The terminal client of ``rollbridge connect``: one connection, typed commands in,
events and answers printed as they arrive."""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
import threading
import uuid
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from rollbridge.cli.render import render_actor, render_event
from rollbridge.exceptions import InvalidRequest
from rollbridge.plain import JSON, pack, unpack

__all__ = ["HELP", "parse_command", "run"]


HELP = """\
commands:
  2d6+3 | roll FORMULA           roll dice notation (e.g. 4d6kh3, 3d6!!, 1d20+5)
  do ACTION [actor=ID] [target=ID[,ID]] [supply=6,2,..] [secret=true] [key=value ...]
                                 resolve a ruleset action: key=value are its parameters
                                 (JSON or text); supply= gives the die results yourself
  actions                        the ruleset's actions and their parameters
  state                          the table now
  undo | redo                    (GM) take back / redo the latest change
  start ID [ID ...] | next | end (GM) run an encounter in this turn order
  approve PENDING | reject PENDING [reason]   (GM) decide a player's request
  json {...}                     send a raw protocol message
  help | quit"""


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def parse_command(line: str, request_id: str) -> JSON | None:
    """Turn a typed line into a protocol message (None for local commands).

    :raises InvalidRequest: for a line that is not a command.
    """
    line = line.strip()
    if not line:
        return None
    head, _, rest = line.partition(" ")
    word = head.lower()
    if word == "json":
        message = json.loads(rest)
        if not isinstance(message, dict):
            raise InvalidRequest("json: give a JSON object")
        message.setdefault("id", request_id)
        return message
    try:
        parts = shlex.split(rest)
    except ValueError as exc:
        raise InvalidRequest(f"cannot read that line: {exc}") from None
    message: JSON = {"id": request_id}
    if word == "roll":
        if not rest.strip():
            raise InvalidRequest("roll: give a formula, e.g. roll 2d6+1")
        return {**message, "type": "roll", "formula": rest.strip()}
    if word in ("undo", "redo", "state"):
        return {**message, "type": word}
    if word == "next":
        return {**message, "type": "encounter.next"}
    if word == "end":
        return {**message, "type": "encounter.end"}
    if word == "start":
        if not parts:
            raise InvalidRequest("start: name the actors in turn order")
        return {**message, "type": "encounter.start", "order": parts}
    if word in ("approve", "reject"):
        if not parts:
            raise InvalidRequest(f"{word}: name the pending request, e.g. {word} p12")
        message.update(type=word, request=parts[0])
        if word == "reject" and len(parts) > 1:
            message["reason"] = " ".join(parts[1:])
        return message
    if word == "do":
        if not parts:
            raise InvalidRequest("do: name an action, e.g. do attack actor=ana target=guard")
        message.update(type="resolve", action=parts[0], params={}, targets=[])
        for part in parts[1:]:
            key, sep, value = part.partition("=")
            if not sep:
                raise InvalidRequest(f"do: {part!r} is not key=value")
            if key == "actor":
                message["actor"] = value
            elif key in ("target", "targets"):
                message["targets"].extend(v for v in value.split(",") if v)
            elif key == "supply":
                message["dice"] = [int(v) for v in value.split(",") if v]
            elif key == "secret":
                message["secret"] = _value(value) is True
            else:
                message["params"][key] = _value(value)
        return message
    if head[:1].isdigit() or head[:1] in ("d", "(", "-"):
        return {**message, "type": "roll", "formula": line}
    raise InvalidRequest(f"unknown command {head!r}; type help")


def run(url: str, table: str, token: str, *, binary: bool = False) -> int:
    """Join ``table`` at ``url`` with ``token`` and run until the input ends or the
    server closes the connection; the exit status."""
    return asyncio.run(_session(url, table, token, binary))


def _print(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _stdin_lines(loop: asyncio.AbstractEventLoop, lines: asyncio.Queue) -> None:
    for line in sys.stdin:
        loop.call_soon_threadsafe(lines.put_nowait, line)
    loop.call_soon_threadsafe(lines.put_nowait, None)


async def _session(url: str, table: str, token: str, binary: bool) -> int:
    encode = pack if binary else json.dumps
    try:
        connection = await connect(url, max_size=2**20, open_timeout=10)
    except Exception as exc:
        raise InvalidRequest(f"cannot connect to {url}: {exc}") from None
    prefix = uuid.uuid4().hex[:8]
    counter = 0
    waiting: set[Any] = set()
    ruleset: JSON = {}
    async with connection:
        await connection.send(
            encode(
                {
                    "type": "hello",
                    "id": "hello",
                    "table": table,
                    "token": token,
                    "client": "rollbridge-connect",
                    "results": "brief",  # events are printed as they arrive
                }
            )
        )
        welcome = _decode(await connection.recv())
        if welcome.get("type") == "error":
            raise InvalidRequest(f"{welcome['code']}: {welcome['message']}")
        ruleset = welcome.get("ruleset") or {}
        table_view = welcome["table"]
        _print(
            f"joined {table_view['name']} [{table_view['id']}] as {welcome['role']} "
            f"({welcome['name']}); ruleset {table_view['ruleset']}; seq {welcome['seq']}"
        )
        for actor in table_view.get("actors", ()):
            _print(render_actor(actor))
        _print("type help for commands")
        lines: asyncio.Queue = asyncio.Queue()
        loop = asyncio.get_running_loop()
        threading.Thread(target=_stdin_lines, args=(loop, lines), daemon=True).start()
        receiver = asyncio.create_task(_receive(connection, waiting))
        try:
            while True:
                next_line = asyncio.ensure_future(lines.get())
                await asyncio.wait({next_line, receiver}, return_when=asyncio.FIRST_COMPLETED)
                if not next_line.done():  # the server closed the connection
                    next_line.cancel()
                    return 0 if connection.close_code in (1000, 1001) else 1
                line = next_line.result()
                if line is None or line.strip().lower() in ("quit", "exit"):
                    break
                if line.strip().lower() == "help":
                    _print(HELP)
                    continue
                if line.strip().lower() == "actions":
                    for name, spec in (ruleset.get("actions") or {}).items():
                        params = ", ".join((spec.get("params") or {}).get("properties", {}))
                        _print(f"  {name}: {spec.get('summary', '')}  [{params}]")
                    continue
                counter += 1
                try:
                    message = parse_command(line, f"{prefix}-{counter}")
                except (InvalidRequest, ValueError) as exc:
                    _print(f"! {exc}")
                    continue
                if message is None:
                    continue
                waiting.add(message["id"])
                await connection.send(encode(message))
            for _ in range(100):  # end of input: wait for what was sent (up to 5 s)
                if not waiting or receiver.done():
                    break
                await asyncio.sleep(0.05)
        finally:
            receiver.cancel()
    return 0


def _decode(frame: bytes | str) -> JSON:
    if isinstance(frame, bytes):
        return unpack(frame)
    return json.loads(frame)


async def _receive(connection: Any, waiting: set[Any]) -> None:
    try:
        async for frame in connection:
            message = _decode(frame)
            kind = message.get("type")
            if kind == "event":
                _print(render_event(message))
            elif kind == "result":
                waiting.discard(message.get("id"))
                if "table" in message:
                    for actor in message["table"].get("actors", ()):
                        _print(render_actor(actor))
                elif message.get("status") in ("pending", "secret", "rejected"):
                    _print(
                        f"= {message['id']}: {message['status']} "
                        f"{message.get('pending', '')}".rstrip()
                    )
            elif kind == "error":
                waiting.discard(message.get("id"))
                _print(f"! {message.get('code')}: {message.get('message')}")
            elif kind == "pong":
                waiting.discard(message.get("id"))
    except ConnectionClosed:
        pass
    _print(_closed_text(connection.close_code, connection.close_reason))


def _closed_text(code: int | None, reason: str | None) -> str:
    """``connection closed (1008: token revoked)``: the server's code and reason."""
    if code is None:
        return "connection closed (no code)"
    return f"connection closed ({code}: {reason})" if reason else f"connection closed ({code})"
