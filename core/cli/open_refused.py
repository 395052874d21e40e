"""Why ``rollbridge connect`` could not open a WebSocket connection where the other
side answered — an HTTP status in place of the WebSocket, or a certificate the client
refuses — said in the reader's language, and whether another attempt may help.

A redirect websockets does not follow — to an ``https://`` or ``http://`` address,
the usual "everything to https" of a proxy in front of a site — is said with the
WebSocket address to give in its place, and ends a session as a 401 does: websockets'
own words were ``https://…/tables/t isn't a valid URI: scheme isn't ws or wss``, about
an address the user never typed, and a reconnecting session tried it for 300 s.

A redirect that names no address (no ``Location``) is said so, and ends a session at
once too: it was tried again for 300 s, each attempt said as a proxy's restart.

A reconnecting session tries again after a status a proxy answers while the server
behind it restarts or is away (404, 408, 425, 429 and every 5xx): a person expects to
be back when the server is; its ``Retry-After``, in seconds or an HTTP date
(:mod:`rollbridge.cli.retry_after`), is obeyed. It ends at once, saying so, after any
3xx websockets did not follow, any other 4xx (401 and 403 above all: a proxy's login
or its refusal, which waiting does not change) and a refused certificate (expired,
self-signed, for another name): 300 s of attempts at those only hid the reason
(docs/protocol.md, "rollbridge connect after a close").
"""

from __future__ import annotations

import ssl
from collections.abc import Mapping

from websockets.exceptions import InvalidStatus

from rollbridge.cli.retry_after import LONGEST, retry_after_seconds
from rollbridge.text import Messages, Text

__all__ = [
    "NO_USE",
    "TRIED_AFTER",
    "TRIED_AGAIN",
    "TRIED_CUT",
    "TRY_AGAIN_STATUSES",
    "answered_problem",
    "status_details",
    "waited_text",
]

say = Messages("rollbridge")
# Translators: after "cannot connect to {url}: "; {status} an HTTP status number: the
# server (or a proxy in front of it) answered an HTTP page where a WebSocket was asked for.
HTTP_STATUS = say(
    "cli.terminal.http_status",
    "the server answered HTTP {status} where a WebSocket was asked for",
)
# Translators: after "cannot connect to {url}: "; {reason} is OpenSSL's English words
# for why (certificate has expired, self-signed certificate, Hostname mismatch, …).
CERTIFICATE = say(
    "cli.terminal.certificate",
    "the server's certificate is refused ({reason})",
)
# Translators: after "reconnecting, attempt 3: cannot connect to …: the server answered
# HTTP 404 …; " on the same line: the session goes on trying.
TRIED_AGAIN = say(
    "cli.terminal.tried_again",
    "tried again: a proxy answers so while the server behind it restarts",
)
# Translators: after "reconnecting, attempt 3: cannot connect to …: the server answered
# HTTP 429 …; " on the same line, in place of cli.terminal.tried_again when the answer
# says when to come back; {seconds} a number of seconds; Retry-After is an HTTP header
# and stays as it is.
TRIED_AFTER = say(
    "cli.terminal.tried_after",
    "tried again in {seconds} s, as its Retry-After asks",
)
# Translators: after "reconnecting, attempt 3: cannot connect to …: the server answered
# HTTP 503 …; " on the same line, in place of cli.terminal.tried_after when its
# Retry-After asks for longer than connect waits; {seconds} the seconds it waits (60),
# {asked} the seconds the Retry-After asks for (3600); Retry-After is an HTTP header
# and stays as it is.
TRIED_CAPPED = say(
    "cli.terminal.tried_capped",
    "tried again in {seconds} s, the longest connect waits, though its Retry-After asks "
    "for {asked} s",
)
# Translators: as cli.terminal.tried_capped, for a Retry-After of a billion seconds or
# more (about 31 years, or a number too long to show).
TRIED_CAPPED_AGES = say(
    "cli.terminal.tried_capped_ages",
    "tried again in {seconds} s, the longest connect waits, though its Retry-After asks "
    "for decades",
)
# Translators: as cli.terminal.tried_after, when the time the session tries for
# (--reconnect-for, which stays as it is) ends before the wait its Retry-After asks
# for: the last attempt comes then; {seconds} the seconds until it.
TRIED_CUT = say(
    "cli.terminal.tried_cut",
    "tried again in {seconds} s, as the time --reconnect-for gives ends, sooner than its "
    "Retry-After asks",
)
# Translators: the line after a failed attempt whose reason does not change by waiting
# (an HTTP 401 or 403, a refused certificate): the session stops trying.
NO_USE = say(
    "cli.terminal.no_use",
    "trying again will not change that; the session ends",
)

# Translators: after "cannot connect to {url}: "; {status} an HTTP status number (301,
# 302, 307, 308), {location} the address it redirects to (https://…), {address} the
# same address written as a WebSocket one (wss://…), to give connect in its place.
REDIRECTED = say(
    "cli.terminal.redirected",
    "the server answered HTTP {status}, a redirect to {location}, which is no WebSocket "
    "address: give {address} in its place",
)
# Translators: after "cannot connect to {url}: "; {status} an HTTP status number (301,
# 302, 307, …): the answer sends the client elsewhere but names no address to go to
# (its Location header, which stays as it is, is missing).
NO_LOCATION = say(
    "cli.terminal.no_location",
    "the server answered HTTP {status}, a redirect that names no address (no Location): "
    "ask whoever runs the server for its WebSocket address",
)
#: The WebSocket scheme of each web scheme a redirect may name.
_WEBSOCKET_SCHEMES = {"https://": "wss://", "http://": "ws://"}

#: The HTTP statuses after which a reconnecting session tries again: the server's
#: proxy answers them while the server is away (404 where the route to it is missing,
#: 408, 425, 429 too many for now); every 5xx is tried again as well.
TRY_AGAIN_STATUSES = frozenset({404, 408, 425, 429})


def answered_problem(exc: BaseException) -> tuple[Text, dict[str, object]] | None:
    """The reason and the facts (``status`` or ``certificate``, ``lasting``: no
    attempt will change it, and a retried status's ``retry_after`` in seconds, from
    its ``Retry-After``) of a connection refused by what answered at the address,
    or None for any other failure (nothing listening, the network, a timeout: all of
    them tried again)."""
    redirected = _redirected(exc)
    if redirected is not None:
        return redirected
    if isinstance(exc, InvalidStatus):
        status = exc.response.status_code
        details = status_details(status, exc.response.headers)
        if 300 <= status < 400 and "Location" not in exc.response.headers:
            return NO_LOCATION(status=status), details
        return HTTP_STATUS(status=status), details
    if isinstance(exc, ssl.SSLCertVerificationError):
        reason = exc.verify_message or exc.reason or type(exc).__name__
        return CERTIFICATE(reason=reason), {"certificate": reason, "lasting": True}
    return None


def status_details(status: int, headers: Mapping[str, str]) -> dict[str, object]:
    """The facts of an HTTP ``status`` answered in place of a WebSocket (or of a
    proxy's tunnel): the ``status``, whether it is ``lasting`` (any 3xx and 4xx but
    :data:`TRY_AGAIN_STATUSES`: a redirect websockets did not follow does not go away
    by waiting either) and, for one tried again, the ``retry_after`` its
    ``headers``' ``Retry-After`` asks for (a 429's or 503's, seconds or a date)."""
    lasting = 300 <= status < 500 and status not in TRY_AGAIN_STATUSES
    details: dict[str, object] = {"status": status, "lasting": lasting}
    retry_after = retry_after_seconds(headers)
    if not lasting and retry_after is not None:
        details["retry_after"] = retry_after
    return details


def waited_text(asked: int, waited: float, left: float | None = None) -> Text:
    """What the attempt line says of a ``Retry-After`` that asked for ``asked``
    seconds where the next attempt waits ``waited`` (the asked wait capped at 60 s),
    ``left`` the seconds the session still tries for (None: it counts attempts):
    that it waits as asked, that the time it tries for ends first, or, capped, that
    it asked for longer."""
    if left is not None and left < waited:
        return TRIED_CUT(seconds=f"{max(left, 0.0):.0f}")
    seconds = f"{waited:g}"
    if asked <= waited:
        return TRIED_AFTER(seconds=seconds)
    if asked >= LONGEST:  # a billion seconds or more: no number worth reading
        return TRIED_CAPPED_AGES(seconds=seconds)
    return TRIED_CAPPED(seconds=seconds, asked=asked)


def _redirected(exc: BaseException) -> tuple[Text, dict[str, object]] | None:
    """A redirect to a web address that websockets refused to follow (its own error,
    raised while it handled the redirect's :class:`InvalidStatus`), said with the
    WebSocket address to give in its place; None for anything else."""
    answer = exc.__cause__ or exc.__context__
    if isinstance(exc, InvalidStatus) or not isinstance(answer, InvalidStatus):
        return None
    status = answer.response.status_code
    location = answer.response.headers.get("Location", "")
    scheme = next((web for web in _WEBSOCKET_SCHEMES if location.startswith(web)), None)
    if not 300 <= status < 400 or scheme is None:
        return None
    address = _WEBSOCKET_SCHEMES[scheme] + location.removeprefix(scheme)
    problem = REDIRECTED(status=status, location=location, address=address)
    return problem, {"status": status, "location": location, "lasting": True}
