"""Plain HTTP on the WebSocket port: metrics, health, readiness and the admin API.

websockets hands every request's head to :meth:`HttpRoutes.process_request`
(its ``process_request`` hook) before the WebSocket handshake. These paths are
answered here and the connection is closed; any other path continues to the
handshake as before::

    GET  /metrics      Prometheus' text format (rollbridge.server.metrics)
    GET  /healthz      200 "ok": the process serves
    GET  /readyz       200 "ready": the store answers a read (over its connections
                       and over a new one: rollbridge.server.ready_probe) and the
                       server is not stopping; else 503 and why (a store's refusal:
                       its code and cause)
    *    /admin/...    the admin API (rollbridge.server.admin), JSON
    GET  /tables/ID/export  the session log for a join token (rollbridge.server.export_http)
    GET  /tables/ID, /tables/ID/overlay, /static/...
                       the web view and the stream overlay (rollbridge.server.web_view);
                       a WebSocket handshake to /tables/ID goes on to the protocol

A ``HEAD`` of a path of the GET routes above (a monitoring probe's ``HEAD
/healthz``) and of the admin API's GET routes is answered as its GET, without the
content (RFC 9110: a general-purpose server supports GET and HEAD); no answer to a
HEAD carries a body (websockets' own refusal neither:
:meth:`HttpRoutes.process_response`). An ``OPTIONS`` of a path a route takes (a
load balancer's probe, HAProxy's ``option httpchk``) is ``204 No Content`` with
``Allow`` naming the methods it takes (``GET, HEAD, OPTIONS`` here; the admin API's
its own), unless its GET would refuse the path itself (a file the web view does not
serve: 404; a table id with a bad escape: 400); no CORS header is sent. Another
method (``POST /tables/ID/export``) is refused with 405 ``invalid_request`` (JSON,
``Allow``, ``details.method``: :func:`~rollbridge.server.web.wrong_method`), in the
request's language; a request no route answers is a typed 404 ``not_found``.
``OPTIONS *`` (the asterisk form: the server in general, RFC 9110 §9.3.7) is 204
with ``Allow`` naming every method the server takes at some path
(:data:`SERVER_METHODS`: the admin API's ``POST`` and ``DELETE`` too), no token, no
CORS header; another method with the target ``*`` is 400 ``invalid_request``
(websockets' reader passes ``*`` on as it is).

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

from rollbridge.exceptions import InvalidRequest, RollbridgeError
from rollbridge.server.address_rates import HttpRate
from rollbridge.server.admin import ADMIN_METHODS, AdminApi
from rollbridge.server.export_http import ExportRoute
from rollbridge.server.metrics import CONTENT_TYPE
from rollbridge.server.proxy_hint import UnnamedProxyHint
from rollbridge.server.ready_probe import ReadyProbe
from rollbridge.server.web import (
    handshake,
    json_answer,
    no_content,
    path_segments,
    request_locale,
    respond,
    wrong_method,
)
from rollbridge.server.web_view import WebViewRoute
from rollbridge.text import Messages, Text

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection
    from websockets.http11 import Request, Response

    from rollbridge.server.app import Server

__all__ = ["GET_METHODS", "READY_TIMEOUT", "SERVER_METHODS", "HttpRoutes"]

say = Messages("rollbridge")
# Translators: the answer of /readyz; {problem} is one of the three messages below.
NOT_READY = say("http.not_ready", "not ready: {problem}")
STOPPING = say("http.stopping", "the server is stopping")
STORE_SLOW = say("http.store_slow", "the store did not answer within {seconds} s")
# Translators: {error} is the name of a Python exception (OSError, StoreError).
STORE_FAILED = say("http.store_failed", "the store failed: {error}")
# Translators: {code} is the error's stable code (store_error), {reason} a stable word
# for its cause (unreachable, refused_password, out_of_memory, read_only, …): neither
# is translated.
STORE_REFUSED = say(
    "http.store_refused", "the store failed: {code} ({reason}); the server's log says more"
)
# Translators: {method} is the HTTP method sent (GET, POST); "*" and OPTIONS stay as
# they are: the request target "*" (the server in general) is only for an OPTIONS.
ASTERISK = say(
    "http.asterisk", "the request target * is taken with OPTIONS only, not with {method}"
)
#: The methods the GET routes take (``Allow`` of their 405 and of their OPTIONS' 204).
GET_METHODS = "GET, HEAD, OPTIONS"
#: The methods the server takes anywhere, each once, ``OPTIONS`` last as in every
#: ``Allow`` here: the GET routes' and the admin API's (``Allow`` of ``OPTIONS *``).
SERVER_METHODS = ", ".join(
    sorted(
        dict.fromkeys(m for allowed in (GET_METHODS, *ADMIN_METHODS) for m in allowed.split(", ")),
        key=lambda method: method == "OPTIONS",
    )
)

#: Seconds ``/readyz`` waits for the store's answer before it says 503.
READY_TIMEOUT = 2.0

#: What answers a request: a route's handler.
Route = Callable[["ServerConnection", "Request"], Awaitable["Response"]]


class HttpRoutes:
    """The HTTP side of one server; see the module docstring."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.admin = AdminApi(server)
        self.export = ExportRoute(server)
        self.web = WebViewRoute()
        self.rate = HttpRate(server.limits, server.metrics)
        self.unnamed_proxy = UnnamedProxyHint(server.limits.trusted_proxies)
        #: The store's tries for ``/readyz``.
        self.ready = ReadyProbe(server)

    async def process_request(
        self, connection: ServerConnection, request: Request
    ) -> Response | None:
        """websockets' hook: a response for the paths above (or 429, past the
        address's rate), None for a handshake and for websockets to refuse."""
        self.unnamed_proxy.notice(connection, request)
        route = self._route(request)
        if route is None and handshake(request):
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
        if request.path == "*":  # the asterisk form: the server in general
            return self._asterisk
        path = request.path.partition("?")[0]
        if path == "/admin" or path.startswith("/admin/"):
            return self.admin.handle
        route = self._get_route(request, path)
        if route is None or request.method in ("GET", "HEAD"):
            return route
        if request.method == "OPTIONS":
            return self._options
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
        return wrong_method(request, GET_METHODS)

    async def _asterisk(self, connection: ServerConnection, request: Request) -> Response:
        """A request to ``*`` (RFC 9110 §7.1, §9.3.7): an ``OPTIONS`` asks about the
        server in general, answered 204 with ``Allow`` naming every method it takes
        anywhere (:data:`SERVER_METHODS`; no token, no CORS header); another method
        is 400 ``invalid_request`` (``details.target``, ``details.method``): the
        target ``*`` names no resource to act on."""
        if request.method == "OPTIONS":
            return no_content(SERVER_METHODS)
        method = request.method[:20]
        error = InvalidRequest(
            ASTERISK(method=repr(method)), details={"target": "*", "method": method}
        )
        return json_answer(400, error.to_dict(request_locale(request)))

    async def _options(self, connection: ServerConnection, request: Request) -> Response:
        """``OPTIONS`` of a GET route: 204 with ``Allow``, unless its GET refuses the
        path itself (a table id with a bad escape: 400; a file the web view does not
        serve: 404), which it is refused with alike. Nothing is read from the store."""
        path = request.path.partition("?")[0]
        table = self.export.table_of(path)
        if table is not None:
            try:
                path_segments(table)
            except InvalidRequest as error:
                return json_answer(400, error.to_dict(request_locale(request)))
        elif self.web.answers(request):
            answer = self.web.handle(request)  # a fixed file, read once per process
            if answer.status_code >= 400:
                return answer
        return no_content(GET_METHODS)

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
        within :data:`READY_TIMEOUT`, over its connections and over a new one:
        :mod:`rollbridge.server.ready_probe`), or None. A store that fails as a whole
        (Redis gone, a password refused, a Redis that never answers) is an outage of
        reads for the server's health too, as a client's read that fails is:
        ``rollbridge_store_failing`` says what ``/readyz`` says, on a process no
        client uses as on one they do, and the tries that work again end it. A
        request waiting when the server stops, which cancels the tries, is answered
        "stopping" (it was left unanswered until its caller gave up)."""
        server = self.server
        if getattr(server, "stopping", False) or server.writer is None:
            return STOPPING()
        try:
            error = await self.ready.check(READY_TIMEOUT)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():  # this request's own end
                raise
            return STOPPING()  # the stop cancelled the tries it waited for: answered
        except TimeoutError:  # the try goes on: its end tells the store's health
            failing = server.health.failing
            if failing is not None:  # out, said by a try (or a commit) that ended
                return STORE_REFUSED(code=failing.code, reason=_cause(failing))
            return STORE_SLOW(seconds=READY_TIMEOUT)
        if error is None:
            return None
        if isinstance(error, RollbridgeError):  # the store's refusal: its code and cause
            return STORE_REFUSED(code=error.code, reason=_cause(error))
        return STORE_FAILED(error=type(error).__name__)  # a store failing or closed


def _cause(error: RollbridgeError) -> str:
    """A stable word for why the store refused, for anyone who asks ``/readyz``: its
    ``details["reason"]`` (``unreachable``, ``refused_password``, ``out_of_memory``,
    …), else the name of the exception under it (redis-py's, sqlite3's), else its own.
    Never its message: that names the server, and is the log's."""
    reason = error.details.get("reason") if isinstance(error.details, dict) else None
    if isinstance(reason, str) and reason.isidentifier():
        return reason
    under = error.__cause__ or error.__context__
    return type(under if under is not None else error).__name__
