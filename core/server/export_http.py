"""``GET /tables/ID/export``: a table's session log for the holder of a join token.

::

    GET /tables/ID/export?format=jsonl|markdown[&since=SEQ][&as=player|observer][&locale=L]
    Authorization: Bearer rbt_…

The token travels only in the ``Authorization`` header — never in the URL, whose
request line a proxy or a log may keep; a query that carries ``token`` is refused.
The token's role decides the audience (:mod:`rollbridge.export`): a GM token gets
the GM's log, a player token what every player was sent, an observer token the
same; ``as`` may ask for a lesser audience (a GM exporting what the players saw),
never a greater one (403 ``forbidden``). Answers:

- 200 ``application/x-ndjson`` (one ``event`` frame per line, exactly as the
  protocol sends it, after a ``welcome`` line when the log starts in an open
  verifiable segment: :mod:`rollbridge.export.jsonl`) or ``text/markdown;
  charset=utf-8``, with a ``Content-Disposition`` file name;
- 400 ``invalid_request``: a missing or bad ``format``, a bad ``since``, ``as`` or ``locale`` (the
  first three taken exactly as sent, nothing stripped; a ``locale`` read as
  :func:`~rollbridge.i18n.negotiate` reads a language's name, refused when it holds a
  control character anywhere: ``%0Acs`` is no ``cs``), a
  token in the query, a table id whose percent-escapes are bad (``%FF``, a lone
  ``%``, ``%00``) or a parameter whose escapes are no UTF-8 (``%FF``; a lone ``%`` is
  a ``%`` in a query: :mod:`rollbridge.server.web`), named;
- 401 ``unauthorized`` (``WWW-Authenticate: Bearer``): no token, or one that does
  not open this table (wrong, revoked);
- 403 ``forbidden``: ``as`` above the token's role;
- 429 ``rate_limited`` (``Retry-After``): the client's address presented too many
  wrong tokens lately (``--wrong-tokens-per-address``; the token was not looked
  up), or sent too many HTTP requests (``--http-rate-per-address``);
- 404 ``unknown_table`` (whether a table id exists is no secret here: the id is in
  every URL of the table's web view); 413 ``limit_exceeded``: larger than :data:`MAX_EXPORT_BYTES`
  (ask for less with ``since``); 503: the store failed or the ruleset is missing, or
  ``busy`` (``Retry-After``): :data:`MAX_EXPORTS` exports are running already — an
  export holds one of the server's store-reading threads for seconds, and joins,
  admin calls and ``/readyz`` need one too.

Errors are JSON ``{"code", "message"}`` (and ``details``), the message in the
request's ``locale`` or ``Accept-Language``. The store reads and the rendering run
on the server's reader threads (:func:`~rollbridge.server.web.in_reader`), never
on the event loop. The log line of each export names the table, the audience and
the token's id — never the token (and :class:`~rollbridge.server.logs.SafeLog`
cuts the ``Authorization`` header out of websockets' DEBUG lines). A page of the
web view fetches it with ``fetch(url, {headers: {Authorization: …}})`` from the
same origin: no CORS is involved, and none is offered to other origins.
"""

from __future__ import annotations

import asyncio
import logging
import re
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rollbridge import i18n
from rollbridge.exceptions import (
    AuthenticationFailed,
    Busy,
    Forbidden,
    InvalidRequest,
    LimitExceeded,
    RateLimited,
    RollbridgeError,
    RulesetUnavailable,
    StoreError,
)
from rollbridge.export import check_audience, check_format, check_since, export_chunks, read_log
from rollbridge.server.address_rates import look_up_token
from rollbridge.server.admin import status_of
from rollbridge.server.limits import READER_THREADS
from rollbridge.server.web import (
    error_headers,
    in_reader,
    json_answer,
    path_segments,
    query_parameters,
    request_locale,
    respond,
)
from rollbridge.text import Messages
from rollbridge.tokens import hash_token

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection
    from websockets.http11 import Request, Response

    from rollbridge.server.app import Server
    from rollbridge.stores.base import Store
    from rollbridge.tokens import TokenRecord

__all__ = ["CONTENT_TYPES", "MAX_EXPORTS", "MAX_EXPORT_BYTES", "ExportRoute"]

log = logging.getLogger("rollbridge.export")
say = Messages("rollbridge")
NO_TOKEN = say(
    "export.http.unauthorized",
    "this needs the table's join token in the header Authorization: Bearer rbt_…",
)
REFUSED = say("export.http.refused", "this token does not open that table")
IN_URL = say(
    "export.http.token_in_url",
    "the token goes in the Authorization header, never in the URL: "
    "a URL reaches logs; make a new token if this one was shared",
)
# Translators: {asked} and {role} are gm, player or observer (keep them as they are).
ABOVE_ROLE = say(
    "export.http.above_role", "as: a token of role {role} cannot export the {asked} view"
)
# Translators: {size} and {limit} are numbers of bytes.
TOO_LARGE = say(
    "export.http.too_large",
    "the export would be larger than {limit} bytes; ask for fewer events with since",
)
# Translators: {given} is what was sent; {known} the language codes.
BAD_LOCALE = say("export.http.bad_locale", "locale: {given} is not a known language ({known})")
FAILED = say("export.http.failed", "the server failed; try again")
# Translators: {running} is a number of exports (1 when the server runs one at a time).
BUSY = say.plural(
    "export.http.busy",
    "{running} export is running, as many as the server runs at once; try again in a moment",
    "{running} exports are running, as many as the server runs at once; try again in a moment",
    count="running",
)

#: The largest body one export answers with (bytes); more is refused with 413.
MAX_EXPORT_BYTES = 32 * 1024 * 1024
#: Exports run at once: one fewer than the store-reading threads, so that one is
#: always free for joins, admin calls and the readiness probe.
MAX_EXPORTS = max(1, READER_THREADS - 1)
#: The Content-Type of each format.
CONTENT_TYPES = {"jsonl": "application/x-ndjson", "markdown": "text/markdown; charset=utf-8"}
_SUFFIXES = {"jsonl": "jsonl", "markdown": "md"}
#: An export path; a trailing slash is the same path (as the pages' and the admin API's).
_PATH = re.compile(r"^/tables/([^/]+)/export/?$")
_RANK = {"observer": 0, "player": 1, "gm": 2}
_FILE_SAFE = re.compile(r"[^A-Za-z0-9._-]")


def _status(error: RollbridgeError) -> int:
    if isinstance(error, LimitExceeded) and not isinstance(error, RateLimited):
        return 413
    if isinstance(error, RulesetUnavailable):
        return 503
    return status_of(error)


def _parameters(query: str) -> dict[str, str]:
    """The export's query parameters (:func:`query_parameters`); a token among them
    refused first as one in the URL, however else the query is wrong (given twice:
    the advice that it leaked comes at once, not after the client sent it once).

    :raises InvalidRequest: as :func:`query_parameters` does."""
    try:
        return query_parameters(query)
    except InvalidRequest as refused:
        if str(refused.details.get("field", "")).lower() == "token":
            raise InvalidRequest(IN_URL(), details={"field": "token"}) from None
        raise


def _bearer(request: Request) -> str | None:
    given = request.headers.get_all("Authorization")
    scheme, _, token = (given[0] if len(given) == 1 else "").partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


class ExportRoute:
    """The export endpoint of one server; see the module docstring."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.running = 0

    def _done(self) -> None:
        self.running -= 1

    @staticmethod
    def table_of(path: str) -> str | None:
        """The table id of an export path (``/tables/ID/export``, ``…/export/``) as sent
        (percent-encoded: :meth:`handle` decodes it), else None."""
        found = _PATH.match(path)
        return found.group(1) if found else None

    async def handle(self, connection: ServerConnection, request: Request, sent: str) -> Response:
        """Answer one export request of the table ``sent`` (its id as sent)."""
        locale = request_locale(request)
        query = request.path.partition("?")[2]
        table_id = sent  # (as sent, in the log line of a refusal of it)
        try:
            # a bad percent-escape (%FF, a lone %, %00) is refused by name, never
            # looked up as U+FFFD (the admin API's paths are read alike)
            table_id = path_segments(sent)[0]
            # escapes that are no UTF-8: refused by name, as the admin API's
            parameters = _parameters(query)
            locale = self._locale(parameters, locale)
            if any(name.lower() == "token" for name in parameters):
                raise InvalidRequest(IN_URL(), details={"field": "token"})
            form = check_format(parameters.get("format"))  # None: missing, said so
            since = check_since(parameters.get("since", "0"))
            asked = check_audience(parameters["as"]) if "as" in parameters else None
            token = _bearer(request)
            if token is None:
                raise AuthenticationFailed(NO_TOKEN())
            # the token first, on its own: one that opens nothing takes no export's place
            server = self.server
            record = await look_up_token(
                server, connection, request,
                lambda: in_reader(server, _opening, server.store, table_id, hash_token(token)),
            )  # fmt: skip
            audience = asked or record.role
            if _RANK[audience] > _RANK[record.role]:
                raise Forbidden(ABOVE_ROLE(role=record.role, asked=audience),
                                details={"field": "as"})  # fmt: skip
            if self.running >= MAX_EXPORTS:
                raise Busy(BUSY(running=self.running), details={"running": self.running,
                                                                 "limit": MAX_EXPORTS})  # fmt: skip
            job = _Job(self)
            body = await job.run(table_id, audience, form, since, locale)
        except RollbridgeError as error:
            # a token refused unchecked is logged by its throttle, once per 10 s
            level = logging.DEBUG if isinstance(error, RateLimited) else logging.INFO
            log.log(level, "export of table %r refused: %s", table_id, error.code,
                    extra={"table": table_id, "code": error.code})  # fmt: skip
            extra = error_headers(error)
            if isinstance(error, Busy):
                extra = {"Retry_After": "2"}
            answer = error.to_dict(locale)
            if isinstance(error, StoreError):  # what failed is for the operator's log
                log.error("export of table %r: the store failed: %s", table_id, error)
                answer = {"code": error.code, "message": FAILED().render(locale)}
            return json_answer(_status(error), answer, **extra)
        except Exception:
            log.exception("export of table %r failed", table_id, extra={"table": table_id})
            return json_answer(500, {"code": "internal", "message": FAILED().render(locale)})
        log.info("exported table %s as %s (%s, %d bytes) for token %s", table_id, audience,
                 form, len(body), record.id, extra={"table": table_id})  # fmt: skip
        name = f"{_FILE_SAFE.sub('_', table_id)[:80]}-{audience}.{_SUFFIXES[form]}"
        return respond(
            200,
            body,
            CONTENT_TYPES[form],
            Content_Disposition=f'attachment; filename="{name}"',
            X_Content_Type_Options="nosniff",
        )

    @staticmethod
    def _locale(parameters: Mapping[str, str], default: str) -> str:
        if "locale" not in parameters:
            return default
        given = parameters["locale"]
        chosen = i18n.negotiate(given)  # a control character anywhere: no language
        if chosen is None:
            known = ", ".join(sorted(i18n.known_locales() | set(i18n.LOCALES)))
            raise InvalidRequest(
                BAD_LOCALE(given=repr(parameters["locale"][:40]), known=known),
                details={"field": "locale"},
            )
        return chosen

    def _export(self, table_id: str, audience: str, form: str, since: int, locale: str) -> bytes:
        """On a reader thread: the body of ``audience``'s export."""
        store = self.server.store
        session = read_log(store, table_id, self.server.host.rulesets, since)
        parts: list[bytes] = []
        size = 0
        for chunk in export_chunks(session, form, audience, locale):
            data = chunk.encode("utf-8")
            size += len(data)
            if size > MAX_EXPORT_BYTES:
                raise LimitExceeded(
                    TOO_LARGE(limit=MAX_EXPORT_BYTES), details={"limit": MAX_EXPORT_BYTES}
                )
            parts.append(data)
        return b"".join(parts)


def _opening(store: Store, table_id: str, token_hash: str) -> TokenRecord:
    """On a reader thread: the token of ``table_id`` with this hash. A table's few
    tokens tell whether it exists — never its state, which a stranger's wrong token
    would otherwise have the server load.

    :raises UnknownTable: no such table (404). :raises AuthenticationFailed: no such
        token of it (401)."""
    record = store.find_token(table_id, token_hash)
    if record is None:
        store.list_tokens(table_id)
        raise AuthenticationFailed(REFUSED())
    return record


class _Job:
    """One export counted in :attr:`ExportRoute.running` from the moment it is let
    in until its reader thread is done with it — or, if it never reached one (the
    answer was given up while it waited for a thread, the server stopped), until
    then. An answer cancelled while its thread reads leaves the thread busy, and
    the count says so."""

    def __init__(self, route: ExportRoute) -> None:
        self.route = route
        self.lock = threading.Lock()
        self.started = self.dropped = False
        route.running += 1

    async def run(self, *args: Any) -> bytes:
        loop = asyncio.get_running_loop()
        try:
            return await in_reader(self.route.server, self._in_thread, loop, *args)
        except BaseException:
            with self.lock:
                if not self.started:  # it never ran and never will: counted out here
                    self.dropped = True
                    self.route._done()
            raise

    def _in_thread(self, loop: asyncio.AbstractEventLoop, *args: Any) -> bytes:
        with self.lock:
            if self.dropped:
                raise RuntimeError("the export was given up before it ran")
            self.started = True
        try:
            return self.route._export(*args)
        finally:
            loop.call_soon_threadsafe(self.route._done)
