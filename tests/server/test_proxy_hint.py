"""The WARNING for a reverse proxy not named with --trusted-proxy
(:mod:`rollbridge.server.proxy_hint`), on a clock of the test's."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import pytest
from websockets.datastructures import Headers

from rollbridge.server.addresses import parse_network
from rollbridge.server.proxy_hint import HINT_INTERVAL, MOST_PEERS, UnnamedProxyHint


def request(forwarded: str | None) -> SimpleNamespace:
    headers = Headers()
    if forwarded is not None:
        headers["X-Forwarded-For"] = forwarded
    return SimpleNamespace(headers=headers)


def connection(peer: str | None) -> SimpleNamespace:
    return SimpleNamespace(remote_address=(peer, 4711) if peer else None)


@pytest.mark.parametrize(
    ("peer", "forwarded", "told"),
    [
        ("127.0.0.1", "203.0.113.5", True),  # a proxy on this machine
        ("::1", "2001:db8::5", True),
        ("::ffff:127.0.0.1", "203.0.113.5", True),
        ("10.1.2.3", "203.0.113.5", True),  # one on the private network
        ("fd00::7", "203.0.113.5", True),
        ("93.184.216.34", "203.0.113.5", False),  # a public client's own word: not logged
        ("127.0.0.1", None, False),  # no header: the machine's own request
        (None, "203.0.113.5", False),  # no peer (a socket gone)
    ],
)
def test_who_is_taken_for_an_unnamed_proxy(peer, forwarded, told):
    assert UnnamedProxyHint([]).notice(connection(peer), request(forwarded)) is told


def test_a_named_proxy_is_not_told_of():
    hint = UnnamedProxyHint([parse_network("10.0.0.0/8")])
    assert not hint.notice(connection("10.1.2.3"), request("203.0.113.5"))
    assert hint.notice(connection("127.0.0.1"), request("203.0.113.5"))


def test_one_line_per_interval(caplog):
    now = [0.0]
    hint = UnnamedProxyHint([], clock=lambda: now[0])
    caplog.set_level(logging.WARNING, "rollbridge.server")
    for _ in range(50):
        hint.notice(connection("10.1.2.3"), request("203.0.113.5"))
    assert len(caplog.records) == 1
    line = caplog.records[0].getMessage()
    assert "--trusted-proxy 10.1.2.3" in line
    assert "left out of the per-address HTTP rate" not in line  # not this machine's
    assert caplog.records[0].code == "unnamed_proxy"
    now[0] += HINT_INTERVAL
    hint.notice(connection("10.1.2.3"), request("203.0.113.5"))
    assert len(caplog.records) == 2


@pytest.mark.parametrize(
    "peer",
    [
        "2001:0:4136:e378:8000:63bf:3fff:fdd2",  # Teredo: routed on the internet
        "2001:3::1",  # AMT: routed on the internet
    ],
)
def test_a_public_address_python_calls_private_is_not_told_of(peer, caplog):
    """``ipaddress``'s ``is_private`` (Python 3.11) holds all of 2001::/23, Teredo's
    and AMT's public addresses too: a client there sending X-Forwarded-For had the
    server log that it was an unnamed proxy, to be named with --trusted-proxy (which
    would let it name itself any address). Only this machine and the private
    networks (RFC 1918, unique local, link-local) are taken for a proxy."""
    caplog.set_level(logging.WARNING, "rollbridge.server")
    assert not UnnamedProxyHint([]).notice(connection(peer), request("203.0.113.5"))
    assert caplog.records == []


def test_the_hint_names_a_mapped_proxy_as_trusted_proxy_matches_it(caplog):
    """A dual-stack socket's view of an IPv4 proxy (``::ffff:10.1.2.3``): the hint
    said ``--trusted-proxy ::ffff:10.1.2.3``, which never matches (the peer is
    compared as its IPv4 address), so the operator who followed it was told again.
    It names the IPv4 address, and following it silences the hint."""
    caplog.set_level(logging.WARNING, "rollbridge.server")
    assert UnnamedProxyHint([]).notice(connection("::ffff:10.1.2.3"), request("203.0.113.5"))
    line = caplog.records[-1].getMessage()
    assert "--trusted-proxy 10.1.2.3" in line and "::ffff:" not in line, line
    named = UnnamedProxyHint([parse_network("10.1.2.3")])
    assert not named.notice(connection("::ffff:10.1.2.3"), request("203.0.113.5"))


def test_each_proxy_is_told_of_and_the_lines_are_bounded(caplog):
    """A LAN client sending the header must not hide the real proxy's line for ten
    minutes; a network of them gets at most MOST_PEERS lines an interval."""
    now = [0.0]
    hint = UnnamedProxyHint([], clock=lambda: now[0])
    caplog.set_level(logging.WARNING, "rollbridge.server")
    hint.notice(connection("192.168.1.50"), request("203.0.113.5"))  # a LAN client
    hint.notice(connection("127.0.0.1"), request("203.0.113.5"))  # the real proxy
    told = [record.getMessage() for record in caplog.records]
    assert len(told) == 2 and "--trusted-proxy 127.0.0.1" in told[1]
    assert "appends the address it was reached from" in told[1]
    caplog.clear()
    for n in range(10 * MOST_PEERS):
        hint.notice(connection(f"10.0.{n // 250}.{n % 250 + 1}"), request("203.0.113.5"))
    assert len(caplog.records) == MOST_PEERS - 2 + 1  # the places left, then one shared
    caplog.clear()
    now[0] += HINT_INTERVAL  # an interval later the places are free again
    hint.notice(connection("10.9.9.9"), request("203.0.113.5"))
    hint.notice(connection("10.9.9.10"), request("203.0.113.5"))
    assert len(caplog.records) == 2
