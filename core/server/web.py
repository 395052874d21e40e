"""Plain HTTP answers on the WebSocket port, and what their handlers share:
:func:`respond` builds a response that ends the connection (no handshake),
:func:`json_answer` a JSON one (a token quoted in it cut out),
:func:`no_content` the ``204`` of an ``OPTIONS``, :func:`wrong_method` the ``405`` of
another method than a route takes (both with ``Allow``),
:func:`error_headers` the headers of an error's answer,
:func:`in_reader` runs a store call on the server's reader threads,
:func:`request_locale` reads ``Accept-Language``, :func:`handshake` tells a WebSocket
handshake,
:func:`path_segments` and :func:`query_parameters` read a request's target.

A path segment's percent-escapes are read strictly: an escape that is not ``%`` and
two hexadecimal digits (a lone ``%``, ``%zz``), bytes that are no UTF-8 (``%FF``,
``%C3%28``) and a control character (``%00``) are refused with 400
``invalid_request`` naming the segment as sent — never looked up with U+FFFD or the
escape as it was in their stead (a table looked up that nobody named).

A query is read as browsers and the WHATWG URL standard read one
(``application/x-www-form-urlencoded``): ``+`` is a space, and a ``%`` not followed
by two hexadecimal digits is a ``%`` (``?name=100%`` names ``100%``). Escapes that
decode to bytes that are no UTF-8 (``%FF``, ``%C3%28``) are refused with 400
``invalid_request`` naming the parameter — a name as sent (``x%FF``), never with
U+FFFD in its stead (a name stored that nobody sent)."""

from __future__ import annotations

import email.utils
import http
import json
import math
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import unquote_to_bytes

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from rollbridge import i18n
from rollbridge.exceptions import InvalidRequest, RateLimited, RollbridgeError, StoreError
from rollbridge.schema import INVALID, NOT_UNICODE
from rollbridge.server.logs import cut_tokens
from rollbridge.text import Messages, Text
from rollbridge.visible import inert_json

if TYPE_CHECKING:
    from rollbridge.server.app import Server

__all__ = [
    "cut",
    "error_headers",
    "handshake",
    "in_reader",
    "json_answer",
    "no_content",
    "path_segments",
    "query_parameters",
    "request_locale",
    "respond",
    "wrong_method",
]

T = TypeVar("T")

say = Messages("rollbridge")
# Translators: {segment} is a part of the path asked for, between slashes, as sent;
# {problem} one of the messages below (or "text is not valid Unicode").
BAD_SEGMENT = say("web.bad_segment", "the path's segment {segment} is not valid: {problem}")
# Translators: "%" stays as it is.
BAD_ESCAPE = say("web.bad_escape", "a % that is not followed by two hexadecimal digits")
CONTROL = say("web.control", "a control character (such as %00)")
# Translators: {path} is the path asked for, {method} the HTTP method sent (POST, PUT),
# {allowed} the methods the path is answered to (GET, HEAD, OPTIONS).
WRONG_METHOD = say("http.wrong_method", "{path} is answered to {allowed} only, not to {method}")
# Translators: {pair} is the part of the query sent, e.g. '=x'.
UNNAMED = say("web.unnamed", "the query has a parameter without a name: {pair}")
# Translators: {name} is a query parameter's name (ruleset, name, format).
TWICE = say("web.twice", "the query gives the parameter {name} more than once")
#: A ``%`` that begins no escape (two hexadecimal digits).
_LONE_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
#: What no path segment holds decoded: C0 and C1 control characters, DEL.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
#: The most characters of a segment or a parameter a refusal quotes.
_SHOWN = 60


def respond(
    status: int, body: bytes | str, content_type: str = "text/plain; charset=utf-8", **headers: str
) -> Response:
    """An HTTP response that ends the connection (no WebSocket handshake)."""
    data = body.encode("utf-8") if isinstance(body, str) else body
    code = http.HTTPStatus(status)
    fields = Headers(
        [
            ("Date", email.utils.formatdate(usegmt=True)),
            ("Connection", "close"),
            ("Content-Length", str(len(data))),
            ("Content-Type", content_type),
            ("Cache-Control", "no-store"),
            *((name.replace("_", "-"), value) for name, value in headers.items()),
        ]
    )
    return Response(code.value, code.phrase, fields, data)


def no_content(allowed: str) -> Response:
    """``204 No Content`` with ``Allow: allowed``: the answer to an ``OPTIONS`` of a
    path a route takes (RFC 9110 §9.3.7). No ``Content-Length`` (RFC 9110 §8.6:
    none in a 204) and no ``Content-Type``: there is no content."""
    answer = respond(http.HTTPStatus.NO_CONTENT, b"", Allow=allowed)
    del answer.headers["Content-Length"], answer.headers["Content-Type"]
    return answer


def wrong_method(request: Request, allowed: str) -> Response:
    """``405 Method Not Allowed`` of a path a route takes, to another method than it
    does: ``invalid_request`` naming the method (``details.method``), ``Allow:
    allowed`` (RFC 9110 §15.5.6), in the request's language."""
    path = request.path.partition("?")[0]
    method = request.method[:20]
    error = InvalidRequest(
        WRONG_METHOD(path=repr(cut(path, 200)), allowed=allowed, method=repr(method)),
        details={"method": method},
    )
    return json_answer(405, error.to_dict(request_locale(request)), Allow=allowed)


def handshake(request: Request) -> bool:
    """Whether ``request`` asks for a WebSocket handshake (a GET with ``Upgrade:
    websocket``): another method with that header is a plain request."""
    upgrade = ",".join(request.headers.get_all("Upgrade")).lower()
    return request.method == "GET" and "websocket" in upgrade


def json_answer(status: int, body: Any, **headers: str) -> Response:
    """A JSON answer. A token quoted in it (an error that quotes the request, where a
    client may have misplaced one) is cut out, as from the log; DEL, C1 controls and
    U+2028, U+2029 are ``\\u`` escapes (:func:`~rollbridge.visible.inert_json`), as in
    the frames: an older name holding them reaches a ``curl`` on a terminal."""
    text = cut_tokens(inert_json(json.dumps(body, ensure_ascii=False))) + "\n"
    return respond(status, text, "application/json; charset=utf-8", **headers)


def error_headers(error: RollbridgeError) -> dict[str, str]:
    """The headers of an answer refusing with ``error`` (for :func:`respond`):
    ``WWW-Authenticate: Bearer`` for ``unauthorized``; ``Retry-After`` (whole
    seconds, rounded up) for ``rate_limited``."""
    if error.code == "unauthorized":
        return {"WWW_Authenticate": "Bearer"}
    if isinstance(error, RateLimited):
        wait = error.details.get("retry_after", 1)
        return {"Retry_After": str(max(1, math.ceil(wait)))}
    return {}


async def in_reader(server: Server, call: Callable[..., T], *args: Any) -> T:
    """Run a store call on the server's reader threads (never on the event loop),
    counted in ``rollbridge_store_reads_total`` as the protocol's reads are.

    :raises RuntimeError: the server is not started (or already stopped).
    """
    loop, reader = server._loop, server._reader
    if loop is None or reader is None:
        raise RuntimeError("the server is not running")
    counted = server.metrics.store_read

    def run() -> T:
        try:
            value = call(*args)
        except RollbridgeError as error:  # a token or table not found was read, not failed
            counted("failed" if isinstance(error, StoreError) else "done")
            raise
        except BaseException:
            counted("failed")
            raise
        counted("done")
        return value

    return await loop.run_in_executor(reader, run)


def request_locale(request: Request) -> str:
    """The first language of ``Accept-Language`` that rollbridge speaks, else English."""
    for part in ",".join(request.headers.get_all("Accept-Language")).split(","):
        chosen = i18n.negotiate(part.split(";", 1)[0].strip())
        if chosen is not None:
            return chosen
    return i18n.DEFAULT_LOCALE


def cut(text: str, most: int = _SHOWN) -> str:
    """``text`` cut short past ``most`` characters (``…`` says so): what a refusal
    quotes of a request."""
    return text if len(text) <= most else text[:most] + "…"


def _shown(text: str) -> str:
    """``text`` quoted for a refusal, cut short past :data:`_SHOWN` characters."""
    return repr(cut(text))


def _decoded(text: str) -> str | Text:
    """``text`` with its percent-escapes decoded, else (a Text) why they cannot be."""
    if _LONE_PERCENT.search(text):
        return BAD_ESCAPE()
    try:
        return unquote_to_bytes(text).decode("utf-8")
    except UnicodeDecodeError:
        return NOT_UNICODE()


def path_segments(path: str) -> list[str]:
    """The segments of ``path`` (no query; between its slashes, the first and the
    last slash dropped), each percent-decoded strictly (see the module docstring).

    :raises InvalidRequest: a segment whose escapes are not ``%`` and two hexadecimal
        digits, not UTF-8, or a control character; the message and
        ``details.segment`` quote it as sent, ``details.field`` is ``path``.
    """
    segments = []
    for raw in path.strip("/").split("/"):
        decoded = _decoded(raw)
        if isinstance(decoded, str) and _CONTROL.search(decoded):
            decoded = CONTROL()
        if not isinstance(decoded, str):
            shown = cut(raw)
            raise InvalidRequest(
                BAD_SEGMENT(segment=repr(shown), problem=decoded),
                details={"field": "path", "segment": shown},
            )
        segments.append(decoded)
    return segments


def _query_decoded(text: str) -> str | None:
    """A query's name or value decoded as WHATWG's ``application/x-www-form-urlencoded``
    parser does (``+`` a space, a ``%`` that begins no escape kept as it is), else
    None: its escapes decode to bytes that are no UTF-8."""
    try:
        return unquote_to_bytes(text.replace("+", " ")).decode("utf-8")
    except UnicodeDecodeError:
        return None


def query_parameters(query: str) -> dict[str, str]:
    """A query string's parameters, read as the module docstring says: ``+`` is a
    space, a ``%`` that begins no escape is a ``%``.

    :raises InvalidRequest: a parameter whose escapes decode to bytes that are no
        UTF-8 (``details.field`` names it: its name as decoded, or, when the name
        itself is so, as sent — taken with U+FFFD in their stead, a name was stored
        other than the client sent it); a parameter without a name (``=x``;
        ``details.field`` is ``query``): no route reads one, and a value without a
        name is nothing a client meant; a parameter given twice (``details.field``
        names it): no route takes a list, and the one that counted was the last, which
        a proxy or a log reading the first would not show (parameter pollution).
    """
    found: dict[str, str] = {}
    for pair in query.split("&"):
        if not pair:
            continue
        raw_name, _, raw_value = pair.partition("=")
        if not raw_name:
            raise InvalidRequest(UNNAMED(pair=_shown(pair)), details={"field": "query"})
        name = _query_decoded(raw_name)
        if name is None:  # named as sent: there is nothing else to name it by
            shown = cut(raw_name)
            raise InvalidRequest(
                INVALID(field=shown, problem=NOT_UNICODE()), details={"field": shown}
            )
        value = _query_decoded(raw_value)
        if value is None:
            raise InvalidRequest(
                INVALID(field=_shown(name)[1:-1], problem=NOT_UNICODE()), details={"field": name}
            )
        if name in found:
            raise InvalidRequest(TWICE(name=_shown(name)), details={"field": name})
        found[name] = value
    return found
