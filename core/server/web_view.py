"""The live web view and the stream overlay, served on the server's own port.

::

    GET /                    a few lines saying what runs here and how to join a table
                             (a browser pointed at the server's own address)
    GET /tables/ID           the table's web view (an HTML page; docs/web.md)
    GET /tables/ID/overlay   the stream overlay: transparent, the latest roll large
    GET /static/web/NAME     the view's own modules, stylesheets and words (WEB_FILES)
    GET /static/client/NAME  the shared browser protocol client (adapters/client/)

The pages are fixed files: the table id is not written into them (the page reads
it from its own address), and the join token never reaches the server in a
request line — the page takes it typed in, or from the URL fragment
(``#token=…``), which browsers do not send. The page then speaks the WebSocket
protocol on the same port, as every other client does: a player's page receives
the protocol's player views and nothing else.

Only the files named in :data:`WEB_FILES` and :data:`CLIENT_FILES` are served;
any other path under ``/static/`` (``/static/../``, an encoded slash, a name not
listed) is 404 ``not_found`` (JSON, in the request's language, as every refusal of
the port). A table id whose percent-escapes are bad (``%FF``, a lone ``%``,
``%00``: :func:`~rollbridge.server.web.path_segments`) gets 400 ``invalid_request``
naming it, in JSON, as the admin API's and the export's. A WebSocket handshake to
``/tables/ID`` (the join URL clients use) is never answered here: a GET with
``Upgrade: websocket`` goes on to the handshake (another method with that header,
no handshake, is refused as any other: :mod:`rollbridge.server.http`).

Every answer carries a strict Content-Security-Policy (:func:`page_policy`: only
this origin's scripts and stylesheets, no inline script or style, WebSocket
connections to this host), ``X-Content-Type-Options: nosniff`` and
``Referrer-Policy: no-referrer``.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING

from rollbridge.exceptions import InvalidRequest, NotFound
from rollbridge.server.web import (
    cut,
    handshake,
    json_answer,
    path_segments,
    request_locale,
    respond,
)
from rollbridge.text import Messages

if TYPE_CHECKING:
    from websockets.http11 import Request, Response

__all__ = ["CLIENT_FILES", "CONTENT_TYPES", "HOME", "WEB_FILES", "WebViewRoute", "page_policy"]

say = Messages("rollbridge")
# Translators: the page a browser gets at the server's own address (http://HOST:PORT/),
# plain text; keep the paths, the commands and ws://, wss://, http://, https:// as
# they are.
HOME = say(
    "web.home",
    "rollbridge runs here.\n\n"
    "To join a table, open its web view: this address followed by /tables/ and the "
    "table's id. The GM has it: rollbridge serve prints it, and rollbridge table list "
    "lists the tables.\n\n"
    "In Foundry VTT, the rollbridge module's Server URL is that address of the table, "
    "beginning with ws:// instead of http:// (wss:// instead of https://).\n",
)

# Translators: {path} is the path asked for, quoted.
NOTHING_HERE = say("web.not_found", "nothing is served at {path}")

#: The view's files (in ``rollbridge/server/webui/``), by the name they are served as
#: (``lang/LANG.json``: the pages' own words in each language).
WEB_FILES = (
    "table.html",
    "overlay.html",
    "table.mjs",
    "loading.mjs",
    "overlay.mjs",
    "session.mjs",
    "render.mjs",
    "forms.mjs",
    "controls.mjs",
    "history.mjs",
    "download.mjs",
    "kept.mjs",
    "keeper.mjs",
    "stats.mjs",
    "statspanel.mjs",
    "topbar.mjs",
    "texts.mjs",
    "web.css",
    "overlay.css",
    # the pages' own words, one file a language (docs/web.md, "Languages")
    "lang/en.json",
    "lang/cs.json",
    "lang/de.json",
    "lang/ru.json",
)
#: The shared protocol client (``rollbridge/adapters/client/``), served to the pages.
CLIENT_FILES = ("connection.mjs", "protocol.mjs", "url.mjs", "i18n.mjs", "undo.mjs", "chance.mjs")
#: Content types by file suffix.
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json; charset=utf-8",
}
_TABLE_PAGE = re.compile(r"^/tables/([^/]{1,200})/?$")
_OVERLAY_PAGE = re.compile(r"^/tables/([^/]{1,200})/overlay/?$")
_STATIC = re.compile(r"^/static/(web|client)/((?:lang/)?[a-z0-9]+\.(?:html|mjs|css|json))$")
#: What a Host header may hold to be named in the policy (a host name or address, a port).
_HOST = re.compile(r"^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?$")


def page_policy(host: str | None, *, framed: bool) -> str:
    """The Content-Security-Policy of a page: scripts, styles and images from this
    origin only, WebSocket connections to ``host`` (the request's Host, when it is a
    plain host name or address), no plugins, no base or form targets elsewhere, no
    string into an HTML or script sink (Trusted Types);
    ``framed``: other sites may frame the page (the overlay, for streaming tools),
    else no one may."""
    connect = "'self'"
    if host and _HOST.match(host):
        connect += f" ws://{host} wss://{host}"
    return "; ".join(
        (
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self' data:",
            f"connect-src {connect}",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors " + ("*" if framed else "'none'"),
            # no string reaches an HTML or script sink (innerHTML, eval): browsers
            # with Trusted Types refuse such a call outright
            "require-trusted-types-for 'script'",
            "trusted-types 'none'",
        )
    )


@cache
def _read(folder: str, name: str) -> bytes:
    """A served file's bytes (read once per process)."""
    if folder == "web":
        return resources.files("rollbridge.server").joinpath("webui", *name.split("/")).read_bytes()
    return resources.files("rollbridge.adapters").joinpath("client", name).read_bytes()


def _suffix(name: str) -> str:
    return name[name.rindex(".") :]


class WebViewRoute:
    """The pages and static files of the web view; see the module docstring."""

    def answers(self, request: Request) -> bool:
        """Whether this route answers ``request`` (a page or a static path, in a
        request that is no WebSocket handshake: another method than GET with
        ``Upgrade: websocket`` is no handshake, and is this route's to refuse)."""
        if handshake(request):
            return False
        path = request.path.partition("?")[0]
        return (
            path in ("/", "/tables", "/tables/", "/favicon.ico")
            or path.startswith("/static/")
            or _TABLE_PAGE.match(path) is not None
            or _OVERLAY_PAGE.match(path) is not None
        )

    def handle(self, request: Request) -> Response:
        """The page or file ``request`` asks for, else 404."""
        path = request.path.partition("?")[0]
        hosts = request.headers.get_all("Host")
        host = hosts[0] if len(hosts) == 1 else None
        if path in ("/", "/tables", "/tables/"):  # no table named, none listed: what runs
            # here and how to join (a player's link cut short at the table's id too)
            return respond(200, HOME().render(request_locale(request)),
                           X_Content_Type_Options="nosniff")  # fmt: skip
        page = _OVERLAY_PAGE.match(path) or _TABLE_PAGE.match(path)
        if page is not None:
            try:  # the page reads its table from its address: a bad escape fails there
                path_segments(page.group(1))
            except InvalidRequest as error:
                locale = request_locale(request)
                return json_answer(400, error.to_dict(locale), X_Content_Type_Options="nosniff")
            if page.re is _OVERLAY_PAGE:
                return self._file("web", "overlay.html", host, framed=True)
            return self._file("web", "table.html", host, framed=False)
        found = _STATIC.match(path)  # a name of letters and digits: no dot path, no escape
        if found is not None:
            folder, name = found.groups()
            listed = WEB_FILES if folder == "web" else CLIENT_FILES
            if name in listed:
                return self._file(folder, name, host, framed=False)
        shown = cut(path, 200)
        error = NotFound(NOTHING_HERE(path=repr(shown)), details={"path": shown})
        return json_answer(404, error.to_dict(request_locale(request)),
                           X_Content_Type_Options="nosniff")  # fmt: skip

    @staticmethod
    def _file(folder: str, name: str, host: str | None, *, framed: bool) -> Response:
        headers = {
            "Content_Security_Policy": page_policy(host, framed=framed),
            "X_Content_Type_Options": "nosniff",
            "Referrer_Policy": "no-referrer",
        }
        if not framed:
            headers["X_Frame_Options"] = "DENY"
        return respond(200, _read(folder, name), CONTENT_TYPES[_suffix(name)], **headers)
