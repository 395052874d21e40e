"""Why ``rollbridge connect`` could not open its tunnel through an HTTP proxy (the
proxy variables: ``http_proxy``, ``https_proxy``, …), said in the reader's language
with the proxy's address and what to do, and whether another attempt may help.

The proxy answers the tunnel's ``CONNECT`` with a status other than 2xx: websockets
said ``proxy rejected connection: HTTP 407`` in English, and a reconnecting session
tried it again for 300 s. A 407 (the proxy asks for a login) and a 403 (it does not
let this client through) do not change by waiting: the session ends at once, saying
to give the login in the proxy's URL or to reach the server directly (``no_proxy``).
Any other status is said the same way, and follows the rule of a server's own
(:mod:`rollbridge.cli.open_refused`): 404, 408, 425, 429 and every 5xx tried again.
"""

from __future__ import annotations

import urllib.parse

from websockets.uri import parse_uri

try:  # websockets 15 and later: the proxy variables are obeyed
    from websockets.exceptions import InvalidProxyStatus
except ImportError:  # before 15 no proxy is gone through, and no tunnel refused
    InvalidProxyStatus = ()  # type: ignore[assignment,misc]

from rollbridge.cli.open_refused import status_details
from rollbridge.text import Messages, Text

__all__ = ["proxy_problem"]

say = Messages("rollbridge")
# Translators: after "cannot connect to {url}: "; {proxy} the proxy's address
# (http://host:port), 407 an HTTP status number. no_proxy is an environment variable's
# name and user:password@ a part of a URL: both stay as they are.
PROXY_LOGIN = say(
    "cli.terminal.proxy_login",
    "the proxy {proxy} asks for a login (HTTP 407): give its user and password in the "
    "proxy's URL (http://user:password@host:port), or name the server's host in "
    "no_proxy to reach it directly",
)
# Translators: after "cannot connect to {url}: "; {proxy} the proxy's address
# (http://host:port), 403 an HTTP status number; no_proxy an environment variable's
# name, kept as it is.
PROXY_FORBIDS = say(
    "cli.terminal.proxy_forbids",
    "the proxy {proxy} refused the tunnel to the server (HTTP 403): name the server's "
    "host in no_proxy to reach it directly, or ask whoever runs the proxy to let it through",
)
# Translators: after "cannot connect to {url}: "; {proxy} the proxy's address
# (http://host:port), {status} an HTTP status number (502, 503, …).
PROXY_STATUS = say(
    "cli.terminal.proxy_status",
    "the proxy {proxy} answered HTTP {status} where a tunnel to the server was asked for",
)


def proxy_problem(exc: BaseException, url: str) -> tuple[Text, dict[str, object]] | None:
    """The reason and the facts (``status``, ``proxy``, ``lasting``, a retried
    status's ``retry_after``) of a tunnel to ``url`` the proxy refused, or None for any
    other failure."""
    if not isinstance(exc, InvalidProxyStatus):
        return None
    status = exc.response.status_code
    proxy = _proxy_named(url)
    details = {**status_details(status, exc.response.headers), "proxy": proxy}
    if status == 407:
        return PROXY_LOGIN(proxy=proxy), details
    if status == 403:
        return PROXY_FORBIDS(proxy=proxy), details
    return PROXY_STATUS(proxy=proxy, status=status), details


def _proxy_named(url: str) -> str:
    """The address of the proxy websockets goes through to ``url``, as
    ``scheme://host:port``: without the user and password its URL may hold, which a
    terminal (and a log of it) must not show."""
    try:
        from websockets.proxy import get_proxy
    except ImportError:  # websockets 15 and 16 kept it with the URIs
        from websockets.uri import get_proxy  # type: ignore[attr-defined,no-redef]
    proxy = urllib.parse.urlsplit(get_proxy(parse_uri(url)) or "")
    host = proxy.hostname or "?"
    if ":" in host:  # an IPv6 address
        host = f"[{host}]"
    try:
        port = f":{proxy.port}" if proxy.port is not None else ""
    except ValueError:  # a port websockets refused already
        port = ""
    return f"{proxy.scheme}://{host}{port}"
