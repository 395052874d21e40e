"""Plain HTTP on the WebSocket port: metrics, health, readiness and the admin API.

websockets hands every request's head to :meth:`HttpRoutes.process_request`
(its ``process_request`` hook) before the WebSocket handshake. These paths are
answered here and the connection is closed; any other path continues to the
handshake as before::

    GET  /metrics      Prometheus' text format (rollbridge.server.metrics)
    GET  /healthz      200 "ok": the process serves
    GET  /readyz       200 "ready": the store answers a read and the server is not
                       stopping; else 503 and why
    *    /admin/...    the admin API (rollbridge.server.admin), JSON
    GET  /tables/ID/export  the session log for a join token (rollbridge.server.export_http)
    GET  /tables/ID, /tables/ID/overlay, /static/...
                       the web view and the stream overlay (rollbridge.server.web_view);
                       a WebSocket handshake to /tables/ID goes on to the protocol

A ``HEAD`` of a path of the GET routes above (a monitoring probe's ``HEAD
/healthz``) is answered as its GET, without the content (RFC 9110: a
general-purpose server supports GET and HEAD); no answer to a HEAD carries a body
(websockets' own refusal neither: :meth:`HttpRoutes.process_response`). Another
method (``POST /tables/ID/export``, ``OPTIONS /readyz``) is refused with 405
``invalid_request`` (JSON, ``Allow: GET, HEAD``, ``details.method``), in the
request's language; a request no route answers is websockets' to refuse (405 for
another method than GET, 426 for a GET that is no handshake, in plain text).

A trailing slash names the same path (``/healthz/``, ``/tables/ID/export/``), as
it does for the admin API and the web view's pages.

Every request here but a WebSocket handshake (a GET with ``Upgrade: websocket``
that no route above answers) is first held to ``--http-rate-per-address``
(:class:`~rollbridge.server.address_rates.HttpRate`): past it, 429 and nothing
else — a request no route answers too, before websockets refuses it.

websockets reads no request body (it closes a connection whose request has
one, before this hook, without an answer), so the admin API takes its
parameters in the query string. Nothing here logs a header or a query: the admin token travels in
``Authorization``, which :mod:`rollbridge.server.logs` also cuts out of
websockets' own DEBUG lines.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from rollbridge.exceptions import InvalidRequest
from rollbridge.server.address_rates import HttpRate
from rollbridge.server.admin import AdminApi
from rollbridge.server.export_http import ExportRoute
from rollbridge.server.metrics import CONTENT_TYPE
from rollbridge.server.proxy_hint import UnnamedProxyHint
from rollbridge.server.web import cut, in_reader, json_answer, request_locale, respond
from rollbridge.server.web_view import WebViewRoute
from rollbridge.text import Messages, Text

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection
    from websockets.http11 import Request, Response

    from rollbridge.server.app import Server

__all__ = ["READY_TIMEOUT", "HttpRoutes"]

say = Messages("rollbridge")
# Translators: the answer of /readyz; {problem} is one of the three messages below.
NOT_READY = say("http.not_ready", "not ready: {problem}")
STOPPING = say("http.stopping", "the server is stopping")
STORE_SLOW = say("http.store_slow", "the store did not answer within {seconds} s")
# Translators: {error} is the name of a Python exception (OSError, StoreError).
STORE_FAILED = say("http.store_failed", "the store failed: {error}")
# Translators: {path} is the path asked for, {method} the HTTP method sent (POST, PUT).
WRONG_METHOD = say("http.wrong_method", "{path} is answered to GET and HEAD only, not to {method}")
#: The methods the GET routes answer (``Allow`` of a 405).
GET_METHODS = "GET, HEAD"

#: Seconds ``/readyz`` waits for the store's answer before it says 503.
READY_TIMEOUT = 2.0

#: What answers a request: a route's handler.
Route = Callable[["ServerConnection", "Request"], Awaitable["Response"]]


def _handshake(request: Request) -> bool:
    """Whether ``request`` asks for a WebSocket handshake."""
    upgrade = ",".join(request.headers.get_all("Upgrade")).lower()
    return request.method == "GET" and "websocket" in upgrade


class HttpRoutes:
    """The HTTP side of one server; see the module docstring."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.admin = AdminApi(server)
        self.export = ExportRoute(server)
        self.web = WebViewRoute()
        self.rate = HttpRate(server.limits, server.metrics)
        self.unnamed_proxy = UnnamedProxyHint(server.limits.trusted_proxies)

    async def process_request(
        self, connection: ServerConnection, request: Request
    ) -> Response | None:
        """websockets' hook: a response for the paths above (or 429, past the
        address's rate), None for a handshake and for websockets to refuse."""
        self.unnamed_proxy.notice(connection, request)
        route = self._route(request)
        if route is None and _handshake(request):
            return None
        refused = await self.rate.refuse(connection, request)
        if refused is not None:
            return refused
        if route is None:  # no route, no handshake: a typed 404 (websockets' was a plain
            route = self._web  # English 426, "You cannot access a WebSocket server …")
        return await route(connection, request)

    def process_response(
        self, connection: ServerConnection, request: Request, response: Response
    ) -> Response | None:
        """websockets' hook on the answer about to be sent: to a HEAD, its head only
        (its Content-Length the GET's), whoever made it — a route here or websockets'
        own refusal; None (unchanged) otherwise."""
        if request.method == "HEAD" and response.body:
            return dataclasses.replace(response, body=b"")
        return None

    def _route(self, request: Request) -> Route | None:
        """What answers ``request`` (nothing done yet); None: no route here."""
        path = request.path.partition("?")[0]
        if path == "/admin" or path.startswith("/admin/"):
            return self.admin.handle
        route = self._get_route(request, path)
        if route is None or request.method in ("GET", "HEAD"):
            return route
        return self._wrong_method

    def _get_route(self, request: Request, path: str) -> Route | None:
        """What answers a GET (or HEAD) of ``path`` (whatever ``request``'s method)."""
        export_table = self.export.table_of(path)
        if export_table is not None:
            return lambda connection, request: self.export.handle(connection, request, export_table)
        if self.web.answers(request):
            return self._web
        health = {"/metrics": self._metrics, "/healthz": self._healthz, "/readyz": self._readyz}
        return health.get(path.rstrip("/"))  # a trailing slash is the same path

    async def _wrong_method(self, connection: ServerConnection, request: Request) -> Response:
        path = request.path.partition("?")[0]
        method = request.method[:20]
        shown = cut(path, 200)
        error = InvalidRequest(WRONG_METHOD(path=repr(shown), method=repr(method)),
                               details={"method": method})  # fmt: skip
        return json_answer(405, error.to_dict(request_locale(request)), Allow=GET_METHODS)

    async def _web(self, connection: ServerConnection, request: Request) -> Response:
        return self.web.handle(request)

    async def _metrics(self, connection: ServerConnection, request: Request) -> Response:
        return respond(200, self.server.metrics.render(), CONTENT_TYPE)

    async def _healthz(self, connection: ServerConnection, request: Request) -> Response:
        return respond(200, "ok\n")

    async def _readyz(self, connection: ServerConnection, request: Request) -> Response:
        problem = await self.unready()
        if problem is None:
            return respond(200, "ready\n")
        return respond(503, NOT_READY(problem=problem).render(request_locale(request)) + "\n")

    async def unready(self) -> Text | None:
        """Why the server is not ready (stopping, or the store does not answer
        within :data:`READY_TIMEOUT`), or None."""
        server = self.server
        if getattr(server, "stopping", False) or server.writer is None:
            return STOPPING()
        try:
            await asyncio.wait_for(in_reader(server, server.store.ping), READY_TIMEOUT)
        except TimeoutError:
            return STORE_SLOW(seconds=READY_TIMEOUT)
        except Exception as exc:  # a store that fails or is closed: not ready, and why
            return STORE_FAILED(error=type(exc).__name__)
        return None
