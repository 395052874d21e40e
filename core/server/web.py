"""Plain HTTP answers on the WebSocket port, and what their handlers share:
:func:`respond` builds a response that ends the connection (no handshake),
:func:`error_headers` the headers of an error's answer,
:func:`in_reader` runs a store call on the server's reader threads,
:func:`request_locale` reads ``Accept-Language``."""

from __future__ import annotations

import email.utils
import http
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import parse_qsl

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from rollbridge import i18n
from rollbridge.exceptions import InvalidRequest, RateLimited, RollbridgeError, StoreError
from rollbridge.schema import INVALID, NOT_UNICODE

if TYPE_CHECKING:
    from rollbridge.server.app import Server

__all__ = ["error_headers", "in_reader", "query_parameters", "request_locale", "respond"]

T = TypeVar("T")


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


def query_parameters(query: str) -> dict[str, str]:
    """A query string's parameters (the last value of a repeated one).

    :raises InvalidRequest: a parameter whose percent-escapes are not UTF-8
        (``details.field`` names it): taken with U+FFFD in its stead, a name was
        stored other than the client sent it.
    """
    found: dict[str, str] = {}
    for pair in query.split("&"):
        try:
            parsed = parse_qsl(pair, keep_blank_values=True, errors="strict")
        except UnicodeDecodeError:
            name = parse_qsl(pair, keep_blank_values=True, errors="replace")[0][0]
            raise InvalidRequest(
                INVALID(field=name, problem=NOT_UNICODE()), details={"field": name}
            ) from None
        found.update(parsed)
    return found
