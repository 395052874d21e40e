"""``rollbridge connect`` after an outage, where something answers at the server's
address but is no WebSocket: a proxy's HTTP 404 or 502 while the server behind it
restarts is tried again, and the attempt line says so; a 401 or 403, or a certificate
the client refuses, ends the session at once, saying that trying again will not change
it (it was tried for the whole 300 s, each attempt in websockets' English). A real
``rollbridge serve`` and ``connect``; in front of them, stand-ins for a proxy (real
sockets on 127.0.0.1: an HTTP server answering set statuses, a TLS forwarder with a
certificate ``openssl`` makes)."""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess
import sys

import pytest

from tests.cli.test_cli_reconnect import HANG_GUARD, Terminal
from tests.cli.test_cli_reconnect_for import _killed
from tests.cli.test_cli_server_killed import _free_port, serving_a_table
from tests.server.test_nginx_proxy import NGINX, wait_listening, wrap


class StatusProxy:
    """A stand-in for a proxy whose server is away: it answers each request with the
    next of ``statuses`` (the last one again once they run out), and ``headers``."""

    def __init__(self, statuses: list[int], headers: str = "") -> None:
        self.statuses = statuses
        self.headers = headers
        self.server: asyncio.Server | None = None
        #: The request heads it read, in order.
        self.requests: list[bytes] = []

    async def start(self, port: int) -> StatusProxy:
        self.server = await asyncio.start_server(self._answer, "127.0.0.1", port)
        return self

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.requests.append(await reader.readuntil(b"\r\n\r\n"))
        status = self.statuses.pop(0) if len(self.statuses) > 1 else self.statuses[0]
        head = f"HTTP/1.1 {status} Status\r\n{self.headers}Content-Length: 0\r\n\r\n"
        writer.write(head.encode())
        await writer.drain()
        writer.close()

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()


async def test_a_proxys_404_is_tried_again_and_its_403_ends_the_session(tmp_path):
    db = tmp_path / "proxied.db"
    made, port, server, url = await serving_a_table(db, "Proxied")
    terminal = await Terminal.start(url, made["tokens"]["gm"], ROLLBRIDGE_RECONNECT_DELAY="0")
    proxy = StatusProxy([404, 502, 403])
    try:
        await terminal.until("type help")
        await _killed(server, terminal, "connection lost")
        await proxy.start(port)
        first = await terminal.until("reconnecting, attempt ")
        # attempts may have met the closed port before the stand-in listened, or the
        # killed server's port still taking a connection as it died ("did not receive
        # a valid HTTP response": the loose "HTTP" of this wait took it for the 404's)
        while "answered HTTP" not in first:
            first = await terminal.until("reconnecting, attempt ")
        assert first.rstrip().endswith(
            "the server answered HTTP 404 where a WebSocket was asked for; tried again: a "
            "proxy answers so while the server behind it restarts"
        ), first
        second = await terminal.until("reconnecting, attempt ")
        assert "HTTP 502 where a WebSocket was asked for; tried again" in second, second
        third = await terminal.until("reconnecting, attempt ")
        assert third.rstrip().endswith(
            "the server answered HTTP 403 where a WebSocket was asked for"
        ), third
        said = await terminal.until("the session ends")
        assert said == "trying again will not change that; the session ends\n", said
        status, out = await terminal.end()
    finally:
        await terminal.stop()
        await proxy.stop()
    assert status == 1, out
    attempts = [line for line in out.splitlines() if line.startswith("reconnecting, attempt ")]
    assert attempts[-1] == third.rstrip(), out  # none after the 403
    assert "could not reconnect" not in out, out


def _certificate(folder, name: str) -> tuple[str, str]:
    """A self-signed certificate for 127.0.0.1 and its key, made by ``openssl``."""
    cert, key = folder / f"{name}.pem", folder / f"{name}.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
         "-out", str(cert), "-days", "2", "-subj", f"/CN={name}",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True, timeout=HANG_GUARD,
    )  # fmt: skip
    return str(cert), str(key)


class TlsForwarder:
    """A stand-in for a TLS proxy in front of ``rollbridge serve`` (which speaks plain
    ``ws://``): it takes TLS with ``cert`` and passes the bytes on to ``to_port``."""

    def __init__(self, cert: tuple[str, str], to_port: int) -> None:
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(*cert)
        self.to_port = to_port
        self.writers: list[asyncio.StreamWriter] = []
        self.server: asyncio.Server | None = None

    async def start(self, port: int) -> TlsForwarder:
        self.server = await asyncio.start_server(self._forward, "127.0.0.1", port, ssl=self.context)
        return self

    async def _forward(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream_reader, upstream = await asyncio.open_connection("127.0.0.1", self.to_port)
        self.writers += [writer, upstream]

        async def copy(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            try:
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            except (ConnectionError, ssl.SSLError):
                pass
            finally:
                sink.close()

        await asyncio.gather(copy(reader, upstream), copy(upstream_reader, writer))

    async def stop(self) -> None:
        """Stop listening and drop every connection (no close frame: a lost one)."""
        if self.server is not None:
            self.server.close()
            for writer in self.writers:
                writer.transport.abort()
            await self.server.wait_closed()


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl makes the certificates")
async def test_a_refused_certificate_ends_the_session_at_once_and_is_not_called_plain(tmp_path):
    trusted, other = _certificate(tmp_path, "trusted"), _certificate(tmp_path, "other")
    db = tmp_path / "tls.db"
    made, port, server, _url = await serving_a_table(db, "Behind TLS")
    front = _free_port()
    proxy = await TlsForwarder(trusted, port).start(front)
    url = f"wss://127.0.0.1:{front}/tables/{made['table']}"
    terminal = await Terminal.start(
        url, made["tokens"]["gm"], ROLLBRIDGE_RECONNECT_DELAY="0", SSL_CERT_FILE=trusted[0]
    )
    replaced = None
    try:
        await terminal.until("type help")
        await proxy.stop()
        await terminal.until("connection lost")
        # the proxy is back with a certificate this client does not trust
        replaced = await TlsForwarder(other, port).start(front)
        attempt = await terminal.until("reconnecting, attempt ")
        while "certificate" not in attempt:  # attempts before it listened again
            attempt = await terminal.until("reconnecting, attempt ")
        assert f"cannot connect to {url}: the server's certificate is refused (" in attempt
        assert "speaks plain ws://" not in attempt, attempt  # it is TLS, and refused
        said = await terminal.until("the session ends")
        assert said == "trying again will not change that; the session ends\n", said
        status, out = await terminal.end()
    finally:
        await terminal.stop()
        if replaced is not None:
            await replaced.stop()
        server.terminate()
        await server.wait()
    assert status == 1, out


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl makes the certificates")
async def test_a_first_connection_says_its_certificate_is_refused_in_the_readers_language(
    tmp_path,
):
    untrusted = _certificate(tmp_path, "untrusted")
    port = _free_port()
    proxy = await TlsForwarder(untrusted, _free_port()).start(port)
    try:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "rollbridge", "connect", f"wss://127.0.0.1:{port}/tables/t",
            "--token", "t", "--locale", "de",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        _out, err = await asyncio.wait_for(process.communicate(), HANG_GUARD)
    finally:
        await proxy.stop()
    assert process.returncode == 1
    said = err.decode()
    assert "Zertifikat" in said and "speaks plain" not in said and "TLS-Proxy" not in said, said


@pytest.mark.skipif(NGINX is None, reason="nginx is not installed")
async def test_a_redirect_to_https_says_the_wss_address_to_give(tmp_path):
    """A real nginx sending every request to https (``return 301 https://…``, the
    usual block in front of a site): the user reads the address to give, not
    websockets' ``https://… isn't a valid URI: scheme isn't ws or wss``."""
    listen = _free_port()
    block = f"    server {{ listen 127.0.0.1:{listen}; return 301 https://$host$request_uri; }}\n"
    nginx = subprocess.Popen(
        [NGINX, "-c", str(wrap(tmp_path, block)), "-p", str(tmp_path), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        await wait_listening(listen, nginx)
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "rollbridge", "connect", f"ws://127.0.0.1:{listen}/tables/t",
            "--token", "t",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        _out, err = await asyncio.wait_for(process.communicate(), HANG_GUARD)
    finally:
        nginx.terminate()
        nginx.wait(HANG_GUARD)
    assert process.returncode == 1
    assert (
        err.decode()
        .rstrip()
        .endswith(
            "the server answered HTTP 301, a redirect to https://127.0.0.1/tables/t, which is no "
            "WebSocket address: give wss://127.0.0.1/tables/t in its place"
        )
    ), err.decode()


async def test_a_redirect_met_reconnecting_ends_the_session_at_once(tmp_path):
    """A redirect does not go away by waiting: the session ends at the first (it was
    tried for 300 s). A real serve and connect; a stand-in answers 308 at its port."""
    db = tmp_path / "moved.db"
    made, port, server, url = await serving_a_table(db, "Moved")
    terminal = await Terminal.start(url, made["tokens"]["gm"], ROLLBRIDGE_RECONNECT_DELAY="0")
    proxy = StatusProxy([308], "Location: https://example.org/tables/t\r\n")
    try:
        await terminal.until("type help")
        await _killed(server, terminal, "connection lost")
        await proxy.start(port)
        attempt = await terminal.until("reconnecting, attempt ")
        while "answered HTTP" not in attempt:  # attempts before the stand-in listened
            attempt = await terminal.until("reconnecting, attempt ")
        assert attempt.rstrip().endswith(
            "a redirect to https://example.org/tables/t, which is no WebSocket address: give "
            "wss://example.org/tables/t in its place"
        ), attempt
        said = await terminal.until("the session ends")
        assert said == "trying again will not change that; the session ends\n", said
        status, out = await terminal.end()
    finally:
        await terminal.stop()
        await proxy.stop()
    assert status == 1, out


async def test_a_429s_retry_after_is_waited_and_said(monkeypatch, capsys):
    """A proxy's 429 (or 503) with ``Retry-After: 20`` is tried again no sooner: it was
    tried again at the backoff's next wait (0 s here, 4 to 8 s at most), and the line
    said that the server behind the proxy restarts. A stand-in answers on a real
    socket; the sleeps are recorded, and the schedule counts attempts."""
    from rollbridge.cli import terminal
    from rollbridge.cli.reconnect import Schedule
    from rollbridge.cli.waits import waits_from

    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    port = _free_port()
    proxy = await StatusProxy([429, 503, 502], "Retry-After: 20\r\n").start(port)
    monkeypatch.setattr(terminal.asyncio, "sleep", sleep)
    try:
        ended = await terminal._reconnect(
            f"ws://127.0.0.1:{port}/tables/t", str, {}, terminal._Link(), "en",
            Schedule(attempts=3, first=0), waits_from(10, {}), "connection lost",
        )  # fmt: skip
    finally:
        monkeypatch.undo()
        await proxy.stop()
    assert ended is None
    assert slept == [0.0, 20.0, 20.0]
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].endswith(
        "the server answered HTTP 429 where a WebSocket was asked for; tried again in 20 s, "
        "as its Retry-After asks"
    ), lines
    assert lines[2].endswith("HTTP 503 where a WebSocket was asked for; tried again in 20 s, "
                             "as its Retry-After asks"), lines  # fmt: skip
