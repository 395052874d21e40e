"""Which client addresses count as one for ``--max-connections-per-address``.

An IPv4 address is one client (a home router's, say). An IPv6 client usually holds a
whole /64 — its provider hands out the prefix, the host picks the rest at will — so
counting each IPv6 address alone would let one client open the limit again with
every address it makes up. Addresses in one /64 count as one; an IPv4-mapped IPv6
address (``::ffff:192.0.2.1``, a dual-stack socket's view of an IPv4 client) counts
as its IPv4 address. Anything that is not an IP address (a Unix socket's peer) is
counted as it is written.
"""

from __future__ import annotations

import ipaddress

__all__ = ["IPV6_PREFIX", "address_group"]

#: The IPv6 prefix length counted as one client.
IPV6_PREFIX = 64


def address_group(address: str) -> str:
    """The key ``address`` is counted under: an IPv4 address itself, an IPv6 address's
    /64 (``2001:db8:1:2::/64``), an IPv4-mapped address's IPv4 address."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])  # without an IPv6 zone
    except ValueError:
        return address
    if ip.version == 4:
        return str(ip)
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ipaddress.ip_network(f"{ip}/{IPV6_PREFIX}", strict=False))
