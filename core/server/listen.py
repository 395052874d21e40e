"""Why the server could not listen, said so that an operator knows what to do.

Binding the port is the first thing ``rollbridge serve`` does that the machine can
refuse: the port is taken (another ``serve``, or any other program), it is below
1024 and the process has no privilege for it, or ``--host`` names an address that
is not this machine's (or no address at all). asyncio raises an :class:`OSError`
with the system's words; :func:`cannot_listen` turns it into
:class:`~rollbridge.exceptions.CannotListen`, which the CLI prints as one line.
"""

from __future__ import annotations

import errno
import socket

from rollbridge.exceptions import CannotListen
from rollbridge.system_words import system_reason
from rollbridge.text import Messages

__all__ = ["cannot_listen", "host_port"]

say = Messages("rollbridge")
# Translators: {where} is HOST:PORT; {reason} one of the messages below, or the
# system's own words (in English) for a rarer failure.
CANNOT = say("server.listen.cannot", "cannot listen on {where}: {reason}")
IN_USE = say(
    "server.listen.in_use",
    "another program already uses the port (another rollbridge serve?): stop it, or "
    "give another --port",
)
DENIED = say(
    "server.listen.denied",
    "permission denied (a port below 1024 needs privileges): give --port 1024 or "
    "above, with a reverse proxy in front if clients need port 80 or 443",
)
NOT_HERE = say(
    "server.listen.not_here",
    "this machine has no such address: give --host 127.0.0.1 (this machine only), "
    "0.0.0.0 (every address) or one of its own addresses",
)
NO_NAME = say(
    "server.listen.no_name",
    "the host name is not known: give --host 127.0.0.1 (this machine only), 0.0.0.0 "
    "(every address) or one of its own addresses",
)


def host_port(host: str | None, port: int) -> str:
    """``host:port`` as a URL writes it: an IPv6 address in brackets (``[::1]:8765``;
    ``ws://:::8765/`` is no URL), no host as every IPv4 address (``0.0.0.0``)."""
    return f"[{host}]:{port}" if host and ":" in host else f"{host or '0.0.0.0'}:{port}"


def cannot_listen(exc: OSError, host: str | None, port: int) -> CannotListen:
    """``exc``, raised while binding ``host``:``port``, as the error to show."""
    where = host_port(host, port)
    code = exc.errno
    if isinstance(exc, socket.gaierror):
        reason = NO_NAME()
    elif code == errno.EADDRNOTAVAIL:
        reason = NOT_HERE()
    elif code == errno.EADDRINUSE:
        reason = IN_USE()
    elif code in (errno.EACCES, errno.EPERM):
        reason = DENIED()
    else:
        reason = system_reason(exc)  # the system's words, in the reader's language
    details: dict[str, object] = {"host": host, "port": port}
    if isinstance(code, int) and not isinstance(exc, socket.gaierror):
        details["errno"] = errno.errorcode.get(code, code)
    return CannotListen(CANNOT(where=where, reason=reason), details=details)
