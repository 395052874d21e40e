"""A WARNING for an operator whose reverse proxy is not named with ``--trusted-proxy``.

A proxy passes its clients on from its own address. Unless the operator names it
(``--trusted-proxy``), the server cannot tell its clients apart, and the limits per
client address hold them all as one: the 64 connections of
``--max-connections-per-address`` are then the whole site's, and a proxy on the
server's own machine (a loopback address) leaves every client out of the HTTP rate
and the wrong-token throttle (docs/operations.md, "Limits"). Nothing in the server
fails to say so: players are refused "too many connections from this address", or
nobody is throttled.

A proxy says whose request it passes on in ``X-Forwarded-For``. A request that
carries that header from a peer that is no trusted proxy, and whose address is the
machine's own or a private network's (RFC 1918, unique local, link-local: where an
operator's proxy stands; a browser sends no such header), is taken as such a
proxy's: :class:`UnnamedProxyHint` logs one WARNING naming its address and the
option, at most one every :data:`HINT_INTERVAL` seconds for each such address (of
:data:`MOST_PEERS`), so a LAN client sending the header cannot hide the real
proxy's line. A header from a public address is a client's own word, ignored as
before, and not logged (a client could fill the log with it).
"""

from __future__ import annotations

import ipaddress
import logging
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from rollbridge.server.addresses import Network, ip_of, is_trusted
from rollbridge.server.throttle import Throttle

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection
    from websockets.http11 import Request

__all__ = ["HINT_INTERVAL", "PRIVATE_NETWORKS", "UnnamedProxyHint"]

log = logging.getLogger("rollbridge.server")

#: Seconds between two WARNING lines about one unnamed proxy.
HINT_INTERVAL = 600.0

#: The most addresses whose lines are timed apart within an interval; the others
#: share one line, so at most this many and one lines an interval, whatever a
#: network of clients sends.
MOST_PEERS = 32


class UnnamedProxyHint:
    """Tells the operator, in the log, of a reverse proxy not named with
    ``--trusted-proxy``; see the module docstring.

    :param trusted: the operator's proxies (``--trusted-proxy``).
    :param clock: monotonic seconds, for the interval between lines.
    """

    def __init__(
        self, trusted: Sequence[Network], clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.trusted = trusted
        self._clock = clock
        #: One throttle per address told of (at most :data:`MOST_PEERS`): a LAN
        #: client sending the header cannot hide the real proxy's line.
        self._said: dict[str, Throttle] = {}
        #: The throttle of the addresses past those.
        self._overflow = Throttle(HINT_INTERVAL, clock)

    def notice(self, connection: ServerConnection, request: Request) -> bool:
        """Look at one request's head (an HTTP request or a WebSocket handshake);
        True if it came from an unnamed proxy (logged, at most once an interval)."""
        if "X-Forwarded-For" not in request.headers:
            return False
        remote = getattr(connection, "remote_address", None)
        if not remote:
            return False
        ip = ip_of(str(remote[0]))
        if ip is None or not _proxy_like(ip):
            return False
        peer = str(ip)  # an IPv4-mapped peer as its IPv4 address, as --trusted-proxy matches it
        if is_trusted(peer, self.trusted):
            return False
        said = self._said.get(peer)
        if said is None:
            said = self._throttle_for(peer)
        if said.allow() is not None:
            log.warning(
                "requests from %s name their clients in X-Forwarded-For, but no "
                "--trusted-proxy names %s: every client behind it counts as that one "
                "address (--max-connections-per-address holds them all together%s); "
                "if it is your reverse proxy and it appends the address it was reached "
                "from to that header, start the server with --trusted-proxy %s (never "
                "name an address that clients reach the server from directly: they "
                "could then name themselves any address)",
                peer, peer,
                "; being this machine's, they are left out of the per-address HTTP rate "
                "and wrong-token throttle" if ip.is_loopback else "",
                peer,
                extra={"code": "unnamed_proxy"},
            )  # fmt: skip
        return True

    def _throttle_for(self, peer: str) -> Throttle:
        """A new ``peer``'s throttle: its own while fewer than :data:`MOST_PEERS` were
        told of within an interval, else one all such peers share."""
        if len(self._said) >= MOST_PEERS:  # forget those whose interval has passed
            now = self._clock()
            for old, throttle in list(self._said.items()):
                if throttle.last is None or now - throttle.last >= HINT_INTERVAL:
                    del self._said[old]
        if len(self._said) >= MOST_PEERS:
            return self._overflow
        throttle = self._said[peer] = Throttle(HINT_INTERVAL, self._clock)
        return throttle


#: The private networks an operator's proxy stands on (RFC 1918, unique local):
#: named, since ``ipaddress``'s ``is_private`` also holds addresses routed on the
#: internet (all of 2001::/23 before Python 3.12.4: Teredo's, AMT's), whose clients'
#: own word the hint must not take for a proxy's.
PRIVATE_NETWORKS = tuple(
    ipaddress.ip_network(network)
    for network in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7")
)


def _proxy_like(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether ``ip`` is where an operator's proxy stands: this machine, or a private
    network (:data:`PRIVATE_NETWORKS`, or link-local)."""
    return ip.is_loopback or ip.is_link_local or any(ip in net for net in PRIVATE_NETWORKS)
