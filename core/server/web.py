"""Plain HTTP answers on the WebSocket port, and what their handlers share:
:func:`respond` builds a response that ends the connection (no handshake),
:func:`json_answer` a JSON one (a token quoted in it cut out),
:func:`error_headers` the headers of an error's answer,
:func:`in_reader` runs a store call on the server's reader threads,
:func:`request_locale` reads ``Accept-Language``,
:func:`path_segments` and :func:`query_parameters` read a request's target strictly.

A target's percent-escapes are read strictly, in the path and in the query alike: an
escape that is not ``%`` and two hexadecimal digits (a lone ``%``, ``%zz``), bytes
that are no UTF-8 (``%FF``, ``%C3%28``), and in a path segment a control character
(``%00``) are refused with 400 ``invalid_request`` naming the segment or the
parameter — never read leniently, with U+FFFD or the escape as it was in their
stead (a table looked up, or a name stored, that nobody sent)."""

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

if TYPE_CHECKING:
    from rollbridge.server.app import Server

__all__ = [
    "cut",
    "error_headers",
    "in_reader",
    "json_answer",
    "path_segments",
    "query_parameters",
    "request_locale",
    "respond",
]

T = TypeVar("T")

say = Messages("rollbridge")
# Translators: {segment} is a part of the path asked for, between slashes, as sent;
# {problem} one of the messages below (or "text is not valid Unicode").
BAD_SEGMENT = say("web.bad_segment", "the path's segment {segment} is not valid: {problem}")
# Translators: "%" stays as it is.
BAD_ESCAPE = say("web.bad_escape", "a % that is not followed by two hexadecimal digits")
CONTROL = say("web.control", "a control character (such as %00)")
# Translators: {pair} is the part of the query sent, e.g. '=x'.
UNNAMED = say("web.unnamed", "the query has a parameter without a name: {pair}")
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


def json_answer(status: int, body: Any, **headers: str) -> Response:
    """A JSON answer. A token quoted in it (an error that quotes the request, where a
    client may have misplaced one) is cut out, as from the log."""
    text = cut_tokens(json.dumps(body, ensure_ascii=False)) + "\n"
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


def query_parameters(query: str) -> dict[str, str]:
    """A query string's parameters (the last value of a repeated one; ``+`` is a space).

    :raises InvalidRequest: a parameter whose percent-escapes are not ``%`` and two
        hexadecimal digits or not UTF-8 (``details.field`` names it): taken with
        U+FFFD in its stead, a name was stored other than the client sent it; a
        parameter without a name (``=x``; ``details.field`` is ``query``): no route
        reads one, and a value without a name is nothing a client meant.
    """
    found: dict[str, str] = {}
    for pair in query.split("&"):
        if not pair:
            continue
        raw_name, _, raw_value = pair.replace("+", " ").partition("=")
        name, value = _decoded(raw_name), _decoded(raw_value)
        if not raw_name:
            raise InvalidRequest(UNNAMED(pair=_shown(pair)), details={"field": "query"})
        if not isinstance(name, str):  # the name itself is bad: named as it can be read
            name, value = unquote_to_bytes(raw_name).decode("utf-8", "replace"), name
        if not isinstance(value, str):
            raise InvalidRequest(
                INVALID(field=_shown(name)[1:-1], problem=value), details={"field": name}
            )
        found[name] = value
    return found
