"""Which client a connection comes from, and which addresses count as one for
``--max-connections-per-address`` (and the per-address rates, which leave out the
machine's own requests: :func:`rated_address`).

Behind a reverse proxy every connection comes from the proxy's address. A proxy the
operator names (``--trusted-proxy``) says whose connection it passes on in the
``X-Forwarded-For`` header, appending the address it was reached from to what the
header held; :func:`client_address` reads the list from its right end, passing over
the operator's own proxies, and takes the first address no trusted proxy holds — the
one the last trusted proxy saw. What a client wrote into the header itself stands to
the left of that and is never read. A connection from an address that is not a
trusted proxy is that address, whatever headers it sends.

An IPv4 address is one client (a home router's, say). An IPv6 client usually holds a
whole /64 — its provider hands out the prefix, the host picks the rest at will — so
counting each IPv6 address alone would let one client open the limit again with
every address it makes up. Addresses in one /64 count as one; an IPv4-mapped IPv6
address (``::ffff:192.0.2.1``, a dual-stack socket's view of an IPv4 client) counts
as its IPv4 address. Anything that is not an IP address (a Unix socket's peer) is
counted as it is written.

A holder of a whole site (an IPv6 /48, RFC 6177: 65,536 /64s) could still be that
many clients; the throttle of wrong tokens therefore also counts the /64s of one
/48 together (:func:`address_site`), with a larger allowance
(docs/operations.md, "Limits").
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = [
    "IPV6_PREFIX",
    "IPV6_SITE_PREFIX",
    "AddressCounts",
    "Network",
    "address_group",
    "address_site",
    "client_address",
    "ip_of",
    "is_ip_group",
    "is_trusted",
    "parse_network",
    "peer_address",
    "rated_address",
]

#: A network of trusted proxies (one address is a /32 or /128).
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

#: The longest address taken from a header (a longer entry is cut to it).
LONGEST_ADDRESS = 64

#: The IPv6 prefix length counted as one client.
IPV6_PREFIX = 64

#: The IPv6 prefix length of one site (RFC 6177), whose /64s the throttle of wrong
#: tokens also counts together.
IPV6_SITE_PREFIX = 48


def address_group(address: str) -> str:
    """The key ``address`` is counted under: an IPv4 address itself, an IPv6 address's
    /64 (``2001:db8:1:2::/64``), an IPv4-mapped address's IPv4 address."""
    ip = _ip(address)
    if ip is None:
        return address
    if ip.version == 4:
        return str(ip)
    return str(ipaddress.ip_network(f"{ip}/{IPV6_PREFIX}", strict=False))


@functools.lru_cache(maxsize=4096)  # asked again as each token's look-up ends
def address_site(group: str) -> str | None:
    """The IPv6 site (``2001:db8:1::/48``) enclosing the address group ``group`` when
    it is an IPv6 /64 (:func:`address_group`); None for any other (an IPv4 address is
    one client, and is no site's)."""
    if not group.endswith(f"/{IPV6_PREFIX}"):
        return None
    try:
        network = ipaddress.IPv6Network(group)
    except ValueError:
        return None
    return str(network.supernet(new_prefix=IPV6_SITE_PREFIX))


def is_ip_group(group: str) -> bool:
    """Whether the address group ``group`` (:func:`address_group`) is of an IP
    address — an IPv4 address or an IPv6 /64 — and not something else counted as it
    is written (a Unix socket's peer, ``?``)."""
    return _ip(group) is not None or address_site(group) is not None


def _ip(address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``address`` as an IP address, without an IPv6 zone, an IPv4-mapped one as its
    IPv4 address; None if it is none."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return None
    if ip.version == 6 and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def parse_network(text: str) -> Network:
    """``text`` (an address, ``10.0.0.1``, or a network, ``10.0.0.0/8``, ``fd00::/8``)
    as a network.

    :raises ValueError: ``text`` is neither, or has host bits set past its prefix.
    """
    return ipaddress.ip_network(text.strip(), strict=True)


def client_address(peer: str, forwarded_for: Iterable[str], trusted: Sequence[Network]) -> str:
    """The address of the client behind a connection from ``peer``.

    :param peer: the address the connection comes from.
    :param forwarded_for: the values of its ``X-Forwarded-For`` headers, in order.
    :param trusted: the operator's proxies. ``peer`` outside them: ``peer`` itself.
    :returns: the rightmost address of the chain (``X-Forwarded-For`` followed by
        ``peer``) that no trusted proxy holds; the leftmost, if they all are; the
        last trusted hop's, when the one before it is not an address.
    """
    if not is_trusted(peer, trusted):
        return peer
    hops = [hop.strip() for value in forwarded_for for hop in value.split(",")]
    client = peer
    for hop in reversed(hops):
        address = _address(hop)
        if address is None:  # "unknown", an obfuscated name, junk: nothing to go by
            return client
        client = address
        if not is_trusted(address, trusted):
            return address
    return client


def _address(hop: str) -> str | None:
    """One ``X-Forwarded-For`` entry as an address (``[v6]:port`` and ``v4:port``, as
    some proxies write them, without the port); None if it is none."""
    hop = hop[:LONGEST_ADDRESS]
    if hop.startswith("["):
        hop = hop[1:].split("]", 1)[0]
    elif hop.count(":") == 1:
        hop = hop.split(":", 1)[0]
    try:
        return str(ipaddress.ip_address(hop))
    except ValueError:
        return None


def is_trusted(address: str, trusted: Sequence[Network]) -> bool:
    """Whether ``address`` is one of the operator's proxies (``trusted``)."""
    ip = _ip(address) if trusted else None
    return ip is not None and any(ip in network for network in trusted)


def peer_address(connection: Any, trusted: Sequence[Network], request: Any = None) -> str:
    """The client's address of a websockets ``connection`` (:func:`client_address`
    of its peer and the ``X-Forwarded-For`` headers of ``request``, by default the
    connection's opening request); ``"?"`` if the socket has no peer."""
    remote = getattr(connection, "remote_address", None)
    if not remote:
        return "?"
    peer = str(remote[0])
    if request is None:
        request = getattr(connection, "request", None)
    if not trusted or request is None:
        return peer
    return client_address(peer, request.headers.get_all("X-Forwarded-For"), trusted)


def rated_address(connection: Any, trusted: Sequence[Network], request: Any = None) -> str | None:
    """The address group the per-address rates (``--http-rate-per-address``,
    ``--wrong-tokens-per-address``) count a request of ``connection`` under
    (:func:`peer_address`, :func:`address_group`); None for one they leave out: from
    the machine itself (a loopback address: the operator's own health checks and
    scripts), or from a trusted proxy that names no client behind it (its own
    probes). Never the proxy's address for its clients', so one client over its
    rate is not the whole site over it."""
    address = peer_address(connection, trusted, request)
    ip = _ip(address)
    if ip is not None and (ip.is_loopback or is_trusted(address, trusted)):
        return None
    return address_group(address)


class AddressCounts(dict[str, int]):
    """How many of something (connections, sockets in their handshake) each address
    group holds; a group holding none is not kept."""

    def add(self, address: str) -> None:
        """One more for ``address``."""
        self[address] = self.get(address, 0) + 1

    def remove(self, address: str) -> None:
        """One fewer for ``address`` (the group forgotten at none)."""
        left = self.get(address, 1) - 1
        if left > 0:
            self[address] = left
        else:
            self.pop(address, None)


def ip_of(address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``address`` as an IP address (no IPv6 zone; an IPv4-mapped one as its IPv4
    address); None if it is none (a Unix socket's peer)."""
    return _ip(address)
