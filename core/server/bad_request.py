"""An answer to an HTTP request websockets cannot read, instead of a silent close.

websockets, which serves the port, reads no request bodies and no transfer codings:
given a request with a body (a ``POST`` of a form, what an HTTP client sends by
default), or one it cannot parse, it closed the connection without a word. A client
was left guessing; and behind nginx that close is the *upstream's* failure: with its
defaults (``max_fails=1 fail_timeout=10s``) nginx took the process out of its
rotation for ten seconds, so two anonymous ``POST`` requests with a body took both
processes of docs/redis.md's example out, and every player got 502 ("no live
upstreams"), again and again (found on an operator's night with a real nginx).

:class:`AnsweringProtocol` answers such a request with **400**,
``{"code": "invalid_request", "message", "details": {"reason"}}`` (``reason``:
``request_body`` for a body or a transfer coding, else ``invalid_http``), before
websockets' own close. The request's headers were not kept, so the message is in
English. A client that closed before its request was whole gets nothing (there is
nobody to answer); one that sent a line ended by a bare LF is answered ``invalid_http``.
The answer to a ``HEAD`` (told by the request's first bytes, all that is kept of it)
is its head only, as every answer of the port to a ``HEAD`` is (RFC 9110): this one,
and websockets' own refusal of a request line or header past its limits (414, 431).
"""

from __future__ import annotations

import dataclasses
import http
import json

from websockets.exceptions import InvalidMessage
from websockets.http11 import Response
from websockets.protocol import State
from websockets.server import ServerProtocol

from rollbridge.server.web import respond
from rollbridge.text import Messages

__all__ = ["AnsweringProtocol"]

say = Messages("rollbridge")
BODY = say(
    "server.http.request_body",
    "this server reads no request bodies: send the parameters in the query string "
    '(docs/operations.md, "Admin token and API")',
)
INVALID = say("server.http.invalid", "not a valid HTTP request")
#: How a HEAD request begins.
_HEAD = b"HEAD "


class AnsweringProtocol(ServerProtocol):
    """websockets' server protocol, answering a request it could not read (see the
    module docstring) before it ends the connection."""

    #: The request's first bytes, as many as ``HEAD `` has: whether it is a HEAD.
    _start: bytes = b""

    def receive_data(self, data: bytes | bytearray) -> None:
        if len(self._start) < len(_HEAD):
            self._start += bytes(data[: len(_HEAD) - len(self._start)])
        super().receive_data(data)

    def send_response(self, response: Response) -> None:
        if self.eof_sent:  # the connection already failed (bytes pipelined after the
            return  # request, read as frames): nothing can follow the EOF sent
        if self._start == _HEAD and self.state is State.CONNECTING and response.body:
            # websockets' own refusal of a request it could not read (414, 431), which
            # no route's process_response sees: a HEAD's head only, as every answer
            response = dataclasses.replace(response, body=b"")
        super().send_response(response)

    def send_eof(self) -> None:
        if self.eof_sent:
            return
        # Only the request parser's failure (InvalidMessage, its cause what it could not
        # read) is answered here: a handshake refused in accept() (a bad
        # Sec-WebSocket-Key...) was answered by websockets already.
        failed = self.handshake_exc if isinstance(self.handshake_exc, InvalidMessage) else None
        cause = getattr(failed, "__cause__", None)
        # an EOFError is also a line ended by a bare LF (garbage, a TLS ClientHello):
        # its client is still there; one whose stream ended has nobody to answer
        gone = isinstance(cause, EOFError) and self.reader.eof
        answerable = cause is not None and not gone
        if answerable and self.state is State.CONNECTING:
            answer = _answer(cause)
            if self._start == _HEAD:  # its head only, the Content-Length a GET's
                answer = dataclasses.replace(answer, body=b"")
            self.writes.append(answer.serialize())
        super().send_eof()


def _answer(cause: BaseException) -> Response:
    body = isinstance(cause, NotImplementedError) or str(cause) == "unsupported request body"
    message, reason = (BODY, "request_body") if body else (INVALID, "invalid_http")
    payload = {"code": "invalid_request", "message": message().render("en"),
               "details": {"reason": reason}}  # fmt: skip
    return respond(http.HTTPStatus.BAD_REQUEST, json.dumps(payload), "application/json")
