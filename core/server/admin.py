"""The admin API: tables and join tokens over HTTP, for a web front or a bot.

Every request carries ``Authorization: Bearer rba_…``, a server-level admin
token made with ``rollbridge admin-token`` (stored hashed, like join tokens).
Without a valid one the answer is 401 and nothing is done; from an address that
presented too many wrong tokens lately, 429 without looking the token up
(:func:`~rollbridge.server.address_rates.look_up_token`). Parameters travel in
the query string (see :mod:`rollbridge.server.http`); answers are JSON::

    POST   /admin/tables?ruleset=R&name=N[&settings=JSON]  201 table id, three tokens
    GET    /admin/tables                                   200 every table
    DELETE /admin/tables/ID                                200 (its clients are cut off)
    GET    /admin/tables/ID/tokens                         200 the table's tokens (no secret)
    POST   /admin/tables/ID/tokens?role=R[&name=N]         201 a new token, shown once
    DELETE /admin/tables/ID/tokens/TOKEN_ID                200 (its holder is cut off)

A ``HEAD`` of a GET route is answered as its GET (the admin token required alike),
without the content. An ``OPTIONS`` of a path above is ``204 No Content`` with
``Allow`` naming its methods (:func:`methods_of`), without a token: it tells what the
docs tell, and reads nothing. Another method at a path above is 405
``invalid_request`` with ``Allow`` (after the token check, as every request but an
``OPTIONS``); a path not above is 404 ``not_found``. A ``name`` with a control
character is 400 ``name_control`` (:func:`~rollbridge.names.check_characters`),
checked before its blanks are stripped: ``?name=%0A`` is no missing name. A
``ruleset`` or ``role`` holding a control character anywhere is refused as sent,
nothing stripped (``?ruleset=%0Asr2``: 404 ``unknown_ruleset`` naming ``'\\nsr2'``;
``?role=gm%09``: 400 ``invalid_request``); the spaces around a value are stripped
(``?ruleset=+sr2+`` is ``sr2``), and a value of spaces alone is missing.
``settings`` is JSON, read as JSON is: a line break or a tab between its tokens is
its own whitespace, and a C0 control raw in a string of it is no JSON.

Errors are ``{"code", "message"}`` (and ``details``) with the protocol's codes,
the message in the ``Accept-Language`` of the request. The work is what
``rollbridge table`` does — :meth:`~rollbridge.offline.TableService.create_table`,
:func:`~rollbridge.tokens.new_token` and the store's token calls — run on the
server's reader threads, never on the event loop. A revoked token or a deleted
table cuts its clients off at once (:meth:`~rollbridge.server.app.Server.check_tokens`).
Every action is logged (``rollbridge.admin``) with the admin token's id and
name, the table and the token ids; never a token.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rollbridge.exceptions import (
    AuthenticationFailed,
    Busy,
    Conflict,
    Forbidden,
    InvalidRequest,
    NotFound,
    RateLimited,
    RollbridgeError,
    StoreError,
)
from rollbridge.names import check_characters
from rollbridge.plain import JSON
from rollbridge.server.address_rates import look_up_token
from rollbridge.server.addresses import peer_address
from rollbridge.server.throttle import Throttle
from rollbridge.server.web import (
    cut,
    error_headers,
    in_reader,
    json_answer,
    no_content,
    path_segments,
    query_parameters,
    request_locale,
    respond,
    wrong_method,
)
from rollbridge.text import Messages
from rollbridge.tokens import AdminTokenRecord, hash_token, new_token
from rollbridge.visible import CONTROLS, inert_json
from rollbridge.words import counted

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection
    from websockets.http11 import Request, Response

    from rollbridge.server.app import Server
    from rollbridge.stores.base import Store

__all__ = ["ADMIN_METHODS", "AdminApi", "methods_of", "status_of"]

log = logging.getLogger("rollbridge.admin")

say = Messages("rollbridge")
NO_ADMIN_TOKEN = say(
    "admin.unauthorized", "this needs a valid admin token: Authorization: Bearer rba_…"
)
# Translators: {method} is an HTTP method (GET, POST), {path} the path asked for.
NO_ROUTE = say("admin.no_route", "the admin API has no {method} {path}")
# Translators: {name} is the name of a query parameter (ruleset, name, role).
MISSING = say("admin.missing", "the parameter {name} is missing")
# Translators: {line} and {column} are numbers: where in the parameter's text the JSON
# stops being JSON.
SETTINGS_JSON = say(
    "admin.settings_json", "settings: not valid JSON (at line {line}, column {column})"
)
SETTINGS_DEEP = say("admin.settings_deep", "settings: JSON nested too deep, or a number too long")
# Translators: {given} is what was sent; gm, player and observer stay as they are.
BAD_ROLE = say("admin.bad_role", "role must be gm, player or observer, not {given}")
NO_TOKEN = say("admin.no_token", "table {table} has no token {token}")
FAILED = say("admin.failed", "the server failed; nothing was done")
# Translators: {table} a table's id, quoted.
STORE_FAILED_TABLE = say(
    "admin.store_failed_table",
    "table {table}: the store failed; the server's log says why and what to do",
)
# Translators: {route} the HTTP method and path asked for (POST /admin/tables), kept
# as they are; "as a whole": the failure is the store's, not one table's.
STORE_FAILED_WHOLE = say(
    "admin.store_failed_whole",
    "{route}: the store failed as a whole, not one table; the server's log says why and what to do",
)
# Translators: {table} a table's id, quoted.
STORE_DAMAGED_TABLE = say(
    "admin.store_damaged_table",
    "table {table}: its stored data is damaged; the server's log names the entry to "
    "restore from a backup",
)
# Translators: {route} the HTTP method and path asked for (GET /admin/tables), kept as
# they are; the damaged data is the whole server's (an admin token's), not one table's.
STORE_DAMAGED_WHOLE = say(
    "admin.store_damaged_whole",
    "{route}: stored data of the whole server, not of one table, is damaged; the "
    "server's log names the entry to restore from a backup",
)

_ROLES = ("gm", "player", "observer")


#: The methods of a collection (``/admin/tables``, ``…/ID/tokens``) and of one item.
_COLLECTION = "GET, HEAD, POST, OPTIONS"
_ITEM = "DELETE, OPTIONS"
#: The ``Allow`` lists of the admin API's paths, each once.
ADMIN_METHODS = (_COLLECTION, _ITEM)


def methods_of(parts: list[str]) -> str | None:
    """The methods the admin API takes at the path of ``parts`` (its decoded
    segments after ``admin``), as ``Allow`` lists them; None: no such path."""
    if parts[:1] != ["tables"]:
        return None
    rest = parts[1:]
    if not rest:
        return _COLLECTION
    if len(rest) == 1:
        return _ITEM
    if len(rest) in (2, 3) and rest[1] == "tokens":
        return _COLLECTION if len(rest) == 2 else _ITEM
    return None


def status_of(error: RollbridgeError) -> int:
    """The HTTP status of an error the admin API answers with."""
    for kind, status in (
        (AuthenticationFailed, 401),
        (Forbidden, 403),
        (NotFound, 404),
        (Conflict, 409),
        (Busy, 503),
        (StoreError, 503),
        (RateLimited, 429),
        (InvalidRequest, 400),
    ):
        if isinstance(error, kind):
            return status
    return 400 if error.code not in ("internal", "error") else 500


def for_admin(error: StoreError, method: str, path: str) -> StoreError:
    """A store's failure as an admin is told it: its code and ``reason``, what it is
    about (``details["about"]``: ``table``, the table named in ``details["table"]`` and
    the message; ``store``, the store as a whole, the message naming the route asked
    for) — never the store's own words (a damaged key's name, Redis's address), which
    go to the operator's log here."""
    log.warning("admin %s %s: %s", method, path, error, extra={"code": error.code})
    details = {k: v for k, v in error.details.items() if k in ("reason", "table", "retry_after")}
    damaged = details.get("reason") == "damaged"
    table = details.get("table")
    if table is None:
        details["about"] = "store"
        whole = STORE_DAMAGED_WHOLE if damaged else STORE_FAILED_WHOLE
        words = whole(route=f"{method} {path}")
    else:
        details["about"] = "table"
        words = (STORE_DAMAGED_TABLE if damaged else STORE_FAILED_TABLE)(table=repr(table))
    told = type(error)(words, details=details)
    return told


def _json(status: int, body: JSON, **headers: str) -> Response:
    """A JSON answer; a token quoted in it (an error that names the request's path,
    where a client may have misplaced one) is cut out, as from the log — except the
    new tokens an issuing answer carries (``keep_tokens``)."""
    if not headers.pop("keep_tokens", ""):
        return json_answer(status, body, **headers)
    text = inert_json(json.dumps(body, ensure_ascii=False)) + "\n"
    return respond(status, text, "application/json; charset=utf-8", **headers)


def _required(parameters: Mapping[str, str], name: str) -> str:
    """The parameter ``name``. One holding a control character anywhere
    (:data:`~rollbridge.visible.CONTROLS`: ``%0A``, ``%09``, U+2028) is kept as sent,
    whole, for the check of its value to refuse it naming the escapes (``no ruleset
    '\\nsr2' is loaded``): stripped, ``%0Asr2`` was taken for ``sr2``. Another has the
    spaces around it stripped (``+sr2+``, U+3000); one of spaces alone is missing."""
    given = parameters.get(name, "")
    if CONTROLS.search(given) is not None:
        return given
    value = given.strip()
    if not value:
        raise InvalidRequest(MISSING(name=name), details={"field": name})
    return value


# -- the work, on a reader thread ---------------------------------------------------------


def _create_table(server: Server, name: str, ruleset: str, settings: Any) -> JSON:
    from rollbridge.offline import TableService

    service = TableService(server.store, server.host, dice_key=server.dice_key)
    info, tokens = service.create_table(name, ruleset, settings=settings)
    return {**info.summary(), "tokens": tokens}


def _list_tables(store: Store) -> JSON:
    return {"tables": [t.summary() for t in store.tables()]}


def _new_token(store: Store, table_id: str, role: Any, name: str | None) -> JSON:
    secret, record = new_token(table_id, role, name)
    store.add_token(record)
    return {"token": secret, **record.to_dict()}


def _revoke(store: Store, table_id: str, token_id: str) -> None:
    if not store.revoke_token(table_id, token_id):
        raise NotFound(
            NO_TOKEN(table=repr(table_id), token=repr(token_id)),
            details={"table": table_id, "token": token_id},
        )


class AdminApi:
    """The admin API of one server; see the module docstring."""

    def __init__(self, server: Server) -> None:
        self.server = server
        #: Refusals for a missing or wrong admin token: a WARNING at most every 10 s.
        self._refused_log = Throttle(10.0)

    def _peer(self, connection: ServerConnection, request: Request) -> str:
        """The client's address (behind a trusted proxy, the one it names)."""
        return peer_address(connection, self.server.limits.trusted_proxies, request)

    async def handle(self, connection: ServerConnection, request: Request) -> Response:
        """Answer one admin request (after checking its admin token; an ``OPTIONS``
        needs none)."""
        locale = request_locale(request)
        sent, _, query = request.path.partition("?")
        path = cut(sent, 200)  # (what a refusal and the log quote of it: 8 KiB at most)
        method = request.method
        try:
            if method == "OPTIONS":  # what the docs tell: no token, nothing read
                return self._options(sent)
            admin = await self._authorize(connection, request)
            if admin is None:
                held = self._refused_log.allow()
                if held is not None:
                    peer = self._peer(connection, request)
                    log.warning(
                        "admin %s %s refused: no valid admin token (from %s; %d more "
                        "refused since the last such line)",
                        method, path, peer, held, extra={"code": "unauthorized"},
                    )  # fmt: skip
                raise AuthenticationFailed(NO_ADMIN_TOKEN())
            parts = path_segments(sent)[1:]  # after "admin"; a bad escape refused by name
            allowed = methods_of(parts)
            if allowed is None:
                raise _no_route(method, sent)
            if method not in allowed.split(", "):
                _refused(method, path, "invalid_request")
                return wrong_method(request, allowed)
            routed = "GET" if method == "HEAD" else method  # a HEAD's head is its GET's
            status, body = await self._route(admin, routed, parts, sent, query_parameters(query))
        except RollbridgeError as error:
            if isinstance(error, StoreError):
                error = for_admin(error, method, path)
            if error.code != "unauthorized":
                # a token refused unchecked is logged by its throttle, once per 10 s
                level = logging.DEBUG if isinstance(error, RateLimited) else logging.INFO
                _refused(method, path, error.code, level)
            return _json(status_of(error), error.to_dict(locale), **error_headers(error))
        except Exception:
            log.exception("admin %s %s failed", method, path, extra={"code": "internal"})
            return _json(500, {"code": "internal", "message": FAILED().render(locale)})
        return _json(status, body, keep_tokens="yes")  # new tokens are the answer

    @staticmethod
    def _options(sent: str) -> Response:
        """``OPTIONS`` of ``sent``: 204 with its methods in ``Allow``.

        :raises InvalidRequest: a segment with a bad escape. :raises NotFound: no
            such path."""
        allowed = methods_of(path_segments(sent)[1:])
        if allowed is None:
            raise _no_route("OPTIONS", sent)
        return no_content(allowed)

    async def _authorize(
        self, connection: ServerConnection, request: Request
    ) -> AdminTokenRecord | None:
        """The admin token ``request`` presents (None: none, or a wrong one).

        :raises RateLimited: its address presented too many wrong tokens lately."""
        given = request.headers.get_all("Authorization")
        scheme, _, token = (given[0] if len(given) == 1 else "").partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            return None
        server = self.server
        return await look_up_token(
            server, connection, request,
            lambda: in_reader(server, server.store.find_admin_token, hash_token(token)),
        )  # fmt: skip

    async def _route(
        self,
        admin: AdminTokenRecord,
        method: str,
        parts: list[str],
        path: str,
        parameters: Mapping[str, str],
    ) -> tuple[int, JSON]:
        """Do what ``method`` (a HEAD's as its GET) at the path of ``parts`` asks: a
        path and a method :func:`methods_of` lists for it (``parts[0]`` is ``tables``).

        :raises NotFound: another (a bug of the caller's)."""
        rest = parts[1:]
        if not rest and method == "POST":
            return 201, await self._create(admin, parameters)
        if not rest and method == "GET":
            listed = await in_reader(self.server, _list_tables, self.server.store)
            _log(admin, "listed %s", counted(len(listed["tables"]), "table"))
            return 200, listed
        if len(rest) == 1 and method == "DELETE":
            return 200, await self._delete(admin, rest[0])
        if len(rest) == 2 and method == "GET":
            return 200, await self._tokens(admin, rest[0])
        if len(rest) == 2 and method == "POST":
            return 201, await self._issue(admin, rest[0], parameters)
        if len(rest) == 3 and method == "DELETE":
            return 200, await self._revoke(admin, rest[0], rest[2])
        raise _no_route(method, path)

    # -- the actions ---------------------------------------------------------------------

    async def _create(self, admin: AdminTokenRecord, parameters: Mapping[str, str]) -> JSON:
        check_characters(parameters.get("name", ""))  # a line break alone is not missing
        ruleset, name = _required(parameters, "ruleset"), _required(parameters, "name")
        settings = None
        if parameters.get("settings"):
            try:
                settings = json.loads(parameters["settings"])
            except json.JSONDecodeError as exc:
                said = SETTINGS_JSON(line=exc.lineno, column=exc.colno)
                raise InvalidRequest(said, details={"field": "settings"}) from None
            except (ValueError, RecursionError):  # too deep, a number too long
                raise InvalidRequest(SETTINGS_DEEP(), details={"field": "settings"}) from None
        made = await in_reader(self.server, _create_table, self.server, name, ruleset, settings)
        _log(admin, "created table %s (ruleset %s)", made["id"], made["ruleset"], table=made["id"])
        return made

    async def _delete(self, admin: AdminTokenRecord, table_id: str) -> JSON:
        await in_reader(self.server, self.server.store.delete_table, table_id)
        _log(admin, "deleted table %s", table_id, table=table_id)
        await self._cut_off_revoked()
        return {"deleted": table_id}

    async def _tokens(self, admin: AdminTokenRecord, table_id: str) -> JSON:
        records = await in_reader(self.server, self.server.store.list_tokens, table_id)
        _log(admin, "listed the tokens of table %s", table_id, table=table_id)
        return {"tokens": [r.to_dict() for r in records]}

    async def _issue(
        self, admin: AdminTokenRecord, table_id: str, parameters: Mapping[str, str]
    ) -> JSON:
        role = _required(parameters, "role")
        if role not in _ROLES:
            raise InvalidRequest(BAD_ROLE(given=repr(role)), details={"field": "role"})
        check_characters(parameters.get("name", ""))  # a line break alone is no blank
        name = parameters.get("name", "").strip() or None
        made = await in_reader(self.server, _new_token, self.server.store, table_id, role, name)
        _log(admin, "issued %s token %s (%s) of table %s", role, made["id"], made["name"],
             table_id, table=table_id)  # fmt: skip
        return made

    async def _revoke(self, admin: AdminTokenRecord, table_id: str, token_id: str) -> JSON:
        await in_reader(self.server, _revoke, self.server.store, table_id, token_id)
        _log(admin, "revoked token %s of table %s", token_id, table_id, table=table_id)
        await self._cut_off_revoked()
        return {"revoked": token_id, "table": table_id}

    async def _cut_off_revoked(self) -> None:
        """Disconnect at once the clients whose token is gone (as the periodic
        check would within its interval)."""
        await self.server.recheck_tokens()  # failing, the periodic check tries again


def _refused(method: str, path: str, code: str, level: int = logging.INFO) -> None:
    """The log line of a refused admin request (no token's: its throttle's)."""
    log.log(level, "admin %s %s refused: %s", method, path, code, extra={"code": code})


def _no_route(method: str, path: str) -> NotFound:
    """The refusal of a path the admin API does not have."""
    shown = cut(path, 200)
    return NotFound(NO_ROUTE(method=method, path=shown), details={"path": shown})


def _log(admin: AdminTokenRecord, what: str, *args: Any, table: str | None = None) -> None:
    log.info(f"admin %s (%s): {what}", admin.id, admin.name, *args, extra={"table": table})
