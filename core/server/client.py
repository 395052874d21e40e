"""One WebSocket connection: authentication, requests, and writes with a limit.

A client reads frames in order and handles each at once: ``hello`` first
(table and token), then requests, which go to the table's session. Every
frame to the client — replies and events alike — is written at once to the
connection's transport, in order; a client that does not read is never waited
for: when its unsent bytes pass the limit it is disconnected (1013) and can
resume.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from websockets.asyncio.server import ServerConnection, broadcast
from websockets.exceptions import ConnectionClosed

from rollbridge.adapter import Adapter
from rollbridge.engine.model import Principal
from rollbridge.exceptions import (
    AuthenticationFailed,
    InternalError,
    InvalidRequest,
    RollbridgeError,
    StoreError,
    UndecodableFrame,
    UnknownTable,
)
from rollbridge.plain import check_plain
from rollbridge.schema import validate
from rollbridge.server.codec import Kind, decode, encode
from rollbridge.tokens import hash_token

if TYPE_CHECKING:
    from rollbridge.server.app import Server
    from rollbridge.server.session import TableSession

__all__ = ["HELLO_SCHEMA", "Client"]

log = logging.getLogger("rollbridge.client")

JSON = dict[str, Any]

HELLO_SCHEMA: JSON = {
    "type": "object",
    "properties": {
        "table": {"type": "string", "minLength": 1, "maxLength": 100},
        "token": {"type": "string", "minLength": 1, "maxLength": 200},
        "resume": {
            "type": "object",
            "properties": {
                "epoch": {"type": "integer", "minimum": 0},
                "seq": {"type": "integer", "minimum": 0},
            },
            "required": ["epoch", "seq"],
        },
        "dialect": {"type": "string", "maxLength": 32, "default": "rollbridge"},
        "client": {"type": "string", "maxLength": 100},
    },
    "required": ["table", "token"],
}

CLOSE_AUTH = 1008
CLOSE_BEHIND = 1013


class Client:
    """A connected client; see the module docstring."""

    def __init__(self, connection: ServerConnection, server: Server) -> None:
        self.connection = connection
        self.server = server
        self.session: TableSession | None = None
        self.principal = Principal("observer", "?", "")
        self.kind: Kind = "json"
        self.adapter: Adapter | None = None
        self.dialect = "rollbridge"
        self.closing = False
        #: (code, reason) to close with once queued frames are out.
        self.farewell: tuple[int, str] | None = None
        self._tasks: set[asyncio.Task] = set()

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- sending ---------------------------------------------------------------

    def encode(self, message: JSON, kind: Kind | None = None) -> bytes | str:
        """A message as a frame for this client (through its dialect adapter)."""
        if self.adapter is not None:
            message = self.adapter.outbound(message)
        return encode(message, kind or self.kind)

    def enqueue(self, frame: bytes | str, *, backlog: bool = False) -> None:
        """Write a frame now (websockets' synchronous ``broadcast`` to this one
        connection: no queue, no task). A client whose unsent bytes pass the
        limit is too far behind: it is disconnected (1013) and can resume.
        ``backlog`` frames (a resume's missed events) are not held to the limit."""
        if self.closing:
            return
        transport = self.connection.transport
        if not backlog and transport.get_write_buffer_size() > self.server.buffer_limit:
            log.warning(
                "client %s fell %d bytes behind; disconnecting",
                self.principal.label(),
                transport.get_write_buffer_size(),
            )
            self.disconnect(CLOSE_BEHIND, "too far behind; reconnect and resume")
            return
        broadcast((self.connection,), frame)

    def disconnect(self, code: int, reason: str) -> None:
        """Leave the table now (it goes on without this client) and close the
        connection with ``code`` in the background; nothing more is sent."""
        if self.closing:
            return
        self.closing = True
        if self.session is not None:
            self.session.leave(self)
        self._spawn(self.connection.close(code, reason))

    def send(self, message: JSON, kind: Kind | None = None) -> None:
        self.enqueue(self.encode(message, kind))

    def send_error(self, request_id: Any, error: RollbridgeError, kind: Kind | None = None) -> None:
        self.send({"type": "error", "id": request_id, **error.to_dict()}, kind)

    # -- receiving -------------------------------------------------------------

    async def run(self) -> None:
        """Serve the connection until it closes."""
        try:
            async for frame in self.connection:
                self._receive(frame)
                if self.closing or self.farewell is not None:
                    break
        except ConnectionClosed:
            pass
        finally:
            if self.session is not None:
                self.session.leave(self)
            if self.farewell is not None:
                with contextlib.suppress(Exception):
                    await self.connection.close(*self.farewell)

    def _receive(self, frame: bytes | str) -> None:
        if self.closing:  # disconnected (revoked, too far behind): queued frames are dropped
            return
        kind: Kind = "json" if isinstance(frame, str) else "msgpack"
        try:
            message, kind = decode(frame)
        except UndecodableFrame as exc:
            self.send_error(None, exc, kind)
            return
        request_id = message.get("id")
        kind_name = message.get("type")
        try:
            if kind_name == "ping":
                self.send({"type": "pong", "id": request_id}, kind)
            elif kind_name == "hello":
                self._hello(message, kind)
            elif self.session is None:
                raise AuthenticationFailed("say hello with a table and a token first")
            else:
                self._request(message, kind)
        except AuthenticationFailed as exc:
            self.send_error(request_id, exc, kind)
            if kind_name == "hello":
                self.farewell = (CLOSE_AUTH, exc.code)
        except StoreError as exc:  # the details are for the operator's log only
            log.error("request %r: %s", request_id, exc)
            self.send_error(request_id, StoreError("the store failed; try again"), kind)
        except RollbridgeError as exc:
            self.send_error(request_id, exc, kind)
        except Exception as exc:
            log.exception("request %r failed", request_id)
            self.send_error(
                request_id, InternalError(f"the server failed: {type(exc).__name__}"), kind
            )

    def _hello(self, message: Mapping[str, Any], kind: Kind) -> None:
        if self.session is not None:
            raise InvalidRequest("this connection has already joined a table")
        body = {k: v for k, v in message.items() if k not in ("type", "id")}
        check_plain(body, "hello")
        hello = validate(HELLO_SCHEMA, body, where="hello", error=InvalidRequest)
        # The token first: without one, nothing is loaded and nothing told apart.
        record = self.server.store.find_token(hello["table"], hash_token(hello["token"]))
        if record is None:
            raise AuthenticationFailed("this token does not open that table")
        try:
            session = self.server.session(hello["table"])
        except UnknownTable:
            raise AuthenticationFailed("this token does not open that table") from None
        adapter: Adapter | None = None
        dialect = hello["dialect"]
        if dialect != "rollbridge":
            registered = self.server.host.adapters.get(dialect)
            if registered is None:
                known = ", ".join(["rollbridge", *sorted(self.server.host.adapters)])
                raise InvalidRequest(f"hello.dialect: unknown dialect {dialect!r} (known: {known})")
            adapter = registered.connect(message)
        principal = record.principal()
        welcome, missed = session.welcome(principal, hello.get("resume"))
        self.adapter, self.dialect, self.kind = adapter, dialect, kind
        frames = [
            self.encode({"type": "welcome", "id": message.get("id"), "protocol": 1, **welcome})
        ]
        frames += [
            self.encode({"type": "event", "table": session.id, **session.table.view_event(
                event, gm=principal.is_gm)})
            for event in missed
        ]  # fmt: skip
        self.principal = principal
        for frame in frames:  # a resume may carry up to the whole retained log
            self.enqueue(frame, backlog=True)
        session.join(self)
        self.session = session
        log.info("%s joined table %s", principal.label(), session.id)

    def _request(self, message: Mapping[str, Any], kind: Kind) -> None:
        assert self.session is not None
        request_id = message.get("id")
        if self.adapter is not None:
            message = self.adapter.inbound(message)
        reply = self.session.submit(message, self.principal)
        if isinstance(reply, asyncio.Future):
            reply.add_done_callback(lambda done: self._finish(request_id, kind, done))
        else:
            self.send({"type": "result", "id": request_id, **reply}, kind)

    def _finish(self, request_id: Any, kind: Kind, done: asyncio.Future) -> None:
        if done.cancelled():
            return
        error = done.exception()
        if error is None:
            self.send({"type": "result", "id": request_id, **done.result()}, kind)
        elif isinstance(error, StoreError):  # the details are for the operator's log only
            self.send_error(request_id, StoreError("the store failed; try again"), kind)
        elif isinstance(error, RollbridgeError):
            self.send_error(request_id, error, kind)
        else:
            self.send_error(request_id, InternalError("the server failed to commit"), kind)
