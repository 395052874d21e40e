"""Why ``rollbridge connect`` could not open a WebSocket connection where the other
side answered — an HTTP status in place of the WebSocket, or a certificate the client
refuses — said in the reader's language, and whether another attempt may help.

A reconnecting session tries again after a status a proxy answers while the server
behind it restarts or is away (404, 408, 425, 429 and every 5xx): a person expects to
be back when the server is. It ends at once, saying so, after any other 4xx (401 and
403 above all: a proxy's login or its refusal, which waiting does not change) and after
a refused certificate (expired, self-signed, for another name): 300 s of attempts at
those only hid the reason (docs/protocol.md, "rollbridge connect after a close").
"""

from __future__ import annotations

import ssl

from websockets.exceptions import InvalidStatus

from rollbridge.text import Messages, Text

__all__ = ["NO_USE", "TRIED_AGAIN", "TRY_AGAIN_STATUSES", "answered_problem"]

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
# Translators: the line after a failed attempt whose reason does not change by waiting
# (an HTTP 401 or 403, a refused certificate): the session stops trying.
NO_USE = say(
    "cli.terminal.no_use",
    "trying again will not change that; the session ends",
)

#: The HTTP statuses after which a reconnecting session tries again: the server's
#: proxy answers them while the server is away (404 where the route to it is missing,
#: 408, 425, 429 too many for now); every 5xx is tried again as well.
TRY_AGAIN_STATUSES = frozenset({404, 408, 425, 429})


def answered_problem(exc: BaseException) -> tuple[Text, dict[str, object]] | None:
    """The reason and the facts (``status`` or ``certificate``, and ``lasting``: no
    attempt will change it) of a connection refused by what answered at the address,
    or None for any other failure (nothing listening, the network, a timeout: all of
    them tried again)."""
    if isinstance(exc, InvalidStatus):
        status = exc.response.status_code
        lasting = 400 <= status < 500 and status not in TRY_AGAIN_STATUSES
        return HTTP_STATUS(status=status), {"status": status, "lasting": lasting}
    if isinstance(exc, ssl.SSLCertVerificationError):
        reason = exc.verify_message or exc.reason or type(exc).__name__
        return CERTIFICATE(reason=reason), {"certificate": reason, "lasting": True}
    return None
