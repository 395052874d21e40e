"""``rollbridge connect`` through an HTTP proxy (``$http_proxy``) that refuses the
tunnel: its ``CONNECT`` answered 407 (a login asked for) or 403 was said in
websockets' English (``proxy rejected connection: HTTP 407``) and tried again for
300 s. It is said in the reader's language, naming the proxy (without the password
its URL holds) and what to do, and ends the session at once; a proxy's 502 is still
tried again. Stand-ins for the proxy: real sockets on 127.0.0.1 that read the tunnel's
request and answer a set status."""

from __future__ import annotations

import asyncio
import os
import sys

import pytest

from tests.cli.test_cli_connect_answered import StatusProxy
from tests.cli.test_cli_connect_answered_more import reconnecting
from tests.cli.test_cli_reconnect import HANG_GUARD
from tests.cli.test_cli_server_killed import _free_port


class RefusingProxy(StatusProxy):
    """A stand-in for an HTTP proxy that answers every ``CONNECT`` with ``status``
    (on a free port), and keeps the requests it read."""

    def __init__(self, status: int) -> None:
        super().__init__([status])
        self.status = status
        self.port = 0

    async def start(self, port: int = 0) -> RefusingProxy:
        await super().start(port)
        assert self.server is not None
        self.port = self.server.sockets[0].getsockname()[1]
        return self


@pytest.mark.parametrize(
    ("status", "said"),
    [
        (
            407,
            "asks for a login (HTTP 407): give its user and password in the proxy's URL "
            "(http://user:password@host:port), or name the server's host in no_proxy to "
            "reach it directly",
        ),
        (
            403,
            "refused the tunnel to the server (HTTP 403): name the server's host in no_proxy "
            "to reach it directly, or ask whoever runs the proxy to let it through",
        ),
    ],
)
async def test_a_proxy_refusing_the_tunnel_ends_the_session_at_once(
    monkeypatch, capsys, status, said
):
    proxy = await RefusingProxy(status).start()
    monkeypatch.setenv("http_proxy", f"http://ana:s3cret@127.0.0.1:{proxy.port}")
    try:
        ended, slept = await reconnecting(monkeypatch, _Through(proxy), attempts=3)
    finally:
        await proxy.stop()
    assert ended is None
    assert slept == [0.0]  # one attempt
    assert b"CONNECT 127.0.0.1:" in proxy.requests[0]
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].endswith(f": the proxy http://127.0.0.1:{proxy.port} {said}"), lines
    assert lines[2:] == ["trying again will not change that; the session ends"], lines
    assert "s3cret" not in "\n".join(lines)


async def test_a_proxys_502_is_tried_again(monkeypatch, capsys):
    proxy = await RefusingProxy(502).start()
    monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{proxy.port}")
    try:
        ended, slept = await reconnecting(monkeypatch, _Through(proxy), attempts=2)
    finally:
        await proxy.stop()
    assert ended is None
    assert slept == [0.0, 0.0] and len(proxy.requests) == 2
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].endswith(
        f": the proxy http://127.0.0.1:{proxy.port} answered HTTP 502 where a tunnel to the "
        "server was asked for; tried again: a proxy answers so while the server behind it "
        "restarts"
    ), lines


class _Through:
    """What :func:`reconnecting` starts and stops at the server's address: nothing
    (every attempt goes to ``proxy``, which answers first)."""

    def __init__(self, proxy: RefusingProxy) -> None:
        self.proxy = proxy

    async def start(self, port: int) -> _Through:
        return self

    async def stop(self) -> None:
        return None


async def test_a_first_connection_says_the_proxys_refusal_in_the_readers_language():
    proxy = await RefusingProxy(407).start()
    env = {**os.environ, "http_proxy": f"http://ana:s3cret@127.0.0.1:{proxy.port}"}
    try:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "rollbridge", "connect",
            f"ws://localhost:{_free_port()}/tables/t", "--token", "t", "--locale", "de",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env,
        )  # fmt: skip
        _out, err = await asyncio.wait_for(process.communicate(), HANG_GUARD)
    finally:
        await proxy.stop()
    said = err.decode()
    assert process.returncode == 1, said
    assert f"http://127.0.0.1:{proxy.port}" in said and "407" in said, said
    assert "no_proxy" in said and "user:password@" in said, said
    assert "Proxy" in said and "Anmeldung" in said, said  # German, not websockets' English
    assert "rejected" not in said and "s3cret" not in said, said
