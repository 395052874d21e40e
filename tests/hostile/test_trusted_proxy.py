"""Behind a reverse proxy (``--trusted-proxy``): each client counted as itself, and
no client able to name itself another (docs/operations.md, "Behind a reverse proxy").

Before, every connection through a proxy came from the proxy's address, so the
per-address limit either cut off a whole site's players together or had to be turned
off (``--max-connections-per-address 0``), leaving one hostile player free to take
every connection of the server. A real ``rollbridge serve`` here; the tests connect
from 127.0.0.1 and send the ``X-Forwarded-For`` header a proxy there would send.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import urllib.error
import urllib.request

import pytest
from websockets.asyncio.client import connect

from rollbridge.server.addresses import client_address, parse_network
from tests.hostile.test_hostile_limits import ask, closed_with, hello

PROXIES = [parse_network("127.0.0.1"), parse_network("10.0.0.0/8"), parse_network("fd00::/8")]


@pytest.mark.parametrize(
    ("peer", "forwarded", "client"),
    [
        # not from a trusted proxy: the peer, whatever it says
        ("198.51.100.7", ["203.0.113.5"], "198.51.100.7"),
        # the proxy names the address it was reached from
        ("127.0.0.1", ["203.0.113.5"], "203.0.113.5"),
        # what the client wrote itself stands to the left and is never read
        ("127.0.0.1", ["1.2.3.4, 203.0.113.5"], "203.0.113.5"),
        ("127.0.0.1", ["1.2.3.4", "203.0.113.5"], "203.0.113.5"),  # two header lines
        # a chain of trusted proxies is passed over
        ("127.0.0.1", ["203.0.113.5, 10.1.2.3"], "203.0.113.5"),
        ("127.0.0.1", ["1.2.3.4,203.0.113.5 , 10.1.2.3,10.9.9.9"], "203.0.113.5"),
        # every hop trusted: the leftmost
        ("127.0.0.1", ["10.0.0.2, 10.1.2.3"], "10.0.0.2"),
        # no header: the proxy itself
        ("127.0.0.1", [], "127.0.0.1"),
        # junk where an address should be: the last trusted hop's address
        ("127.0.0.1", ["unknown"], "127.0.0.1"),
        ("127.0.0.1", ["203.0.113.5, _hidden, 10.1.2.3"], "10.1.2.3"),
        ("127.0.0.1", ["x" * 10_000], "127.0.0.1"),
        # ports, as some proxies write them; IPv6; an IPv4-mapped peer
        ("127.0.0.1", ["203.0.113.5:4711"], "203.0.113.5"),
        ("127.0.0.1", ["[2001:db8::5]:4711"], "2001:db8::5"),
        ("fd00::1", ["2001:db8::5"], "2001:db8::5"),
        ("::ffff:127.0.0.1", ["203.0.113.5"], "203.0.113.5"),
    ],
)
def test_the_client_a_connection_comes_from(peer, forwarded, client):
    assert client_address(peer, forwarded, PROXIES) == client


def test_no_trusted_proxy_reads_no_header():
    assert client_address("127.0.0.1", ["203.0.113.5"], []) == "127.0.0.1"


def test_a_network_with_host_bits_or_junk_is_refused_at_the_command_line(tmp_path):
    for wrong in ("10.0.0.1/8", "proxy.example", ""):
        done = subprocess.run(
            [sys.executable, "-m", "rollbridge", "serve", "--db", str(tmp_path / "r.db"),
             "--trusted-proxy", wrong],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 2, done
        assert "--trusted-proxy: expected an address or a network such as 10.0.0.0/8" in (
            done.stderr
        )
        assert "Traceback" not in done.stderr
    assert not (tmp_path / "r.db").exists()


def behind(served, forwarded: str):
    """A connection through the proxy, for the client ``forwarded`` names."""
    return connect(served.url, additional_headers={"X-Forwarded-For": forwarded})


async def test_each_client_behind_the_proxy_has_its_own_connections(serve):
    served = serve("--trusted-proxy", "127.0.0.1", "--max-connections-per-address", "2")
    first = [await behind(served, "203.0.113.5") for _ in range(2)]
    for ws in first:
        assert (await ask(ws, hello(served, "player")))["type"] == "welcome"
    # the same client a third time: refused, as it would be without a proxy
    third = await behind(served, "203.0.113.5")
    assert await closed_with(third) == 1013
    assert third.close_reason == "too many connections from this address"
    # nor can it pass as another by writing an address of its own into the header
    forged = await behind(served, "203.0.113.6, 203.0.113.5")
    assert await closed_with(forged) == 1013
    # another player behind the same proxy is not cut off with it
    other = await behind(served, "203.0.113.6")
    assert (await ask(other, hello(served, "gm")))["type"] == "welcome"
    for ws in (*first, other):
        await ws.close()
    assert "refused a connection from 203.0.113.5: 2 open" in served.log_text()


async def test_without_a_trusted_proxy_the_header_changes_nothing(serve):
    """A client sending the header to a server that trusts no proxy is counted as the
    address it connects from, whatever address it names."""
    served = serve("--max-connections-per-address", "2")
    first = [await behind(served, f"203.0.113.{n}") for n in (1, 2)]
    for ws in first:
        assert (await ask(ws, hello(served, "player")))["type"] == "welcome"
    third = await behind(served, "203.0.113.3")
    assert await closed_with(third) == 1013
    for ws in first:
        await ws.close()
    assert "refused a connection from 127.0.0.1: 2 open" in served.log_text()


async def test_a_refused_admin_request_names_the_client_behind_the_proxy(serve):
    served = serve("--trusted-proxy", "127.0.0.1")
    request = urllib.request.Request(
        f"http://127.0.0.1:{served.port}/admin/tables",
        headers={"Authorization": "Bearer rba_wrong", "X-Forwarded-For": "203.0.113.9"},
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        await asyncio.to_thread(urllib.request.urlopen, request, timeout=10)
    assert refused.value.code == 401
    assert "no valid admin token (from 203.0.113.9;" in served.log_text()


async def test_a_proxy_not_named_is_told_to_the_operator_once(serve):
    """An operator whose proxy on the same machine is not named with --trusted-proxy
    had every player counted as the proxy (64 connections for the whole site) and no
    word of why: the log now says so, and names the option, once — however many
    requests come."""
    served = serve("--max-connections-per-address", "2")
    for n in range(3):
        ws = await behind(served, f"203.0.113.{n}")
        assert (await ask(ws, hello(served, "player")))["type"] == "welcome"
        await ws.close()
    request = urllib.request.Request(
        f"http://127.0.0.1:{served.port}/healthz", headers={"X-Forwarded-For": "203.0.113.7"}
    )
    with await asyncio.to_thread(urllib.request.urlopen, request, timeout=10) as answer:
        assert answer.status == 200
    log = served.log_text()
    line = "requests from 127.0.0.1 name their clients in X-Forwarded-For, but no --trusted-proxy"
    assert log.count(line) == 1, log
    assert "start the server with --trusted-proxy 127.0.0.1" in log
    assert "left out of the per-address HTTP rate and wrong-token throttle" in log


async def test_a_named_proxy_and_plain_clients_are_not_told_of(serve):
    served = serve("--trusted-proxy", "127.0.0.1")
    ws = await behind(served, "203.0.113.5")
    assert (await ask(ws, hello(served, "player")))["type"] == "welcome"
    await ws.close()
    plain = await connect(served.url)
    assert (await ask(plain, hello(served, "gm")))["type"] == "welcome"
    await plain.close()
    assert "name their clients in X-Forwarded-For" not in served.log_text()
