"""TLS on one side only: ``--redis rediss://…`` at a Redis without TLS, and
``redis://…`` at a Redis that takes TLS only (its ``tls-port``, ``port 0``). Both
said ``nothing answers there (…): start redis-server, or check --redis``, the first
after the connect timeout, with no hint that TLS was the difference (found walking
the Redis operator's path). Now each names the likely cause and the scheme to give.
A real ``redis-server`` each time: one of the session's, and one started here with
a certificate ``openssl`` makes; no fakes."""

from __future__ import annotations

import shutil
import socket
import struct
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis

from rollbridge.cli import main
from rollbridge.exceptions import StoreError
from rollbridge.stores.redis import RedisStore
from tests.stores.conftest import REDIS_SERVER, _free_port
from tests.stores.test_redis_url import _refused

pytestmark = pytest.mark.usefixtures("english_without_stores")

#: A connect timeout of the URL's own (redis-py's query setting), so that a TLS
#: handshake nobody answers fails in a second, not the five of the default.
QUICK = "socket_connect_timeout=1"


def other_ca(folder: Path) -> Path:
    """A CA certificate made in ``folder`` that signed no Redis's certificate: a client
    trusting it refuses the server's."""
    other = folder / "other.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
         str(folder / "other-key.pem"), "-out", str(other), "-days", "1", "-subj",
         "/CN=127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    return other


def _start_tls_redis(folder: Path, *extra: str) -> Iterator[int]:
    """A ``redis-server`` that takes TLS only (``--port 0 --tls-port N``), with a
    self-signed certificate in ``folder`` (its own CA too: ``cert.pem``, ``key.pem``)
    and ``extra`` settings; yields its port, and stops it after."""
    if not Path(REDIS_SERVER).exists() or shutil.which("openssl") is None:
        pytest.skip("redis-server and openssl are needed")
    key, cert = folder / "key.pem", folder / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
         "-out", str(cert), "-days", "1", "-subj", "/CN=127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    port = _free_port()
    process = subprocess.Popen(
        [REDIS_SERVER, "--port", "0", "--tls-port", str(port), "--bind", "127.0.0.1",
         "--tls-cert-file", str(cert), "--tls-key-file", str(key), "--tls-ca-cert-file",
         str(cert), *extra, "--save", "", "--dir", str(folder), "--logfile",
         str(folder / "redis.log")],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        client = redis.Redis(port=port, ssl=True, ssl_cert_reqs="none", socket_timeout=1,
                             ssl_certfile=str(cert), ssl_keyfile=str(key))  # fmt: skip
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.RedisError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        client.close()
        yield port
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def tls_redis(tmp_path: Path) -> Iterator[int]:
    """A TLS-only ``redis-server`` that asks for no client certificate; its port."""
    yield from _start_tls_redis(tmp_path, "--tls-auth-clients", "no")


@pytest.fixture(params=["TLSv1.2", "TLSv1.3"])
def tls_redis_asking_a_certificate(request, tmp_path: Path) -> Iterator[int]:
    """A TLS-only ``redis-server`` as it comes (``tls-auth-clients yes``: a client
    certificate its CA signed is asked for), speaking one TLS version; its port."""
    yield from _start_tls_redis(tmp_path, "--tls-protocols", request.param)


def test_rediss_at_a_redis_without_tls_names_tls_as_the_likely_cause(capsys, redis_server):
    url = f"rediss://127.0.0.1:{redis_server.port}/0?{QUICK}"
    err = _refused(capsys, "table", "list", "--redis", url)
    assert f"cannot open redis 127.0.0.1:{redis_server.port}/0: the TLS handshake got no" in err
    assert "rediss:// speaks TLS, which a Redis without a tls-port does not answer" in err
    assert "give redis:// in --redis (or $ROLLBRIDGE_REDIS) for a Redis without TLS" in err
    assert "nothing answers there" not in err
    with pytest.raises(StoreError) as caught:  # in the reader's language
        RedisStore(url)
    german = caught.value.render("de")
    assert "rediss://" in german and "TLS" in german and "handshake got" not in german
    # the same Redis through redis:// is served, as before
    assert main(["table", "list", "--redis", redis_server.url]) == 0


def test_redis_at_a_tls_only_port_names_tls_as_the_likely_cause(capsys, tls_redis):
    err = _refused(capsys, "table", "list", "--redis", f"redis://127.0.0.1:{tls_redis}/0")
    assert f"cannot open redis 127.0.0.1:{tls_redis}/0: the connection was taken and then" in err
    assert "a Redis that takes TLS only (its tls-port) drops a redis:// connection" in err
    assert "give rediss:// in --redis (or $ROLLBRIDGE_REDIS) for TLS" in err
    assert "nothing answers there" not in err
    with pytest.raises(StoreError) as caught:
        RedisStore(f"redis://127.0.0.1:{tls_redis}/0")
    russian = caught.value.render("ru")
    assert "rediss://" in russian and "TLS" in russian and "dropped" not in russian
    # rediss:// there is served (the certificate is the test's own: not verified)
    served = f"rediss://127.0.0.1:{tls_redis}/0?ssl_cert_reqs=none"
    assert main(["table", "list", "--redis", served]) == 0
    assert capsys.readouterr().out == "no tables\n"


@pytest.mark.parametrize("scheme", ["redis", "rediss"])
def test_a_port_where_nothing_listens_is_still_said_as_nothing_there(capsys, scheme):
    port = _free_port()  # nothing listens there
    err = _refused(capsys, "table", "list", "--redis", f"{scheme}://127.0.0.1:{port}/0")
    assert "nothing answers there (Error 111 connecting to" in err
    assert "TLS" not in err


def test_a_tls_redis_whose_certificate_is_not_accepted_is_not_called_one_without_tls(
    capsys, tls_redis, tmp_path
):
    """A ``rediss://`` URL at a TLS Redis whose certificate is not verified here (a
    CA not given, a host it is not made out to) was said as "the TLS handshake got no
    answer … give redis:// … for a Redis without TLS": an operator told to drop TLS
    from a Redis that speaks it. The certificate is named, and what to give."""
    cert = tmp_path / "cert.pem"  # tls_redis's own, self-signed, no subjectAltName
    for query, why in [
        ("", "self-signed certificate"),  # its CA not given: the system's do not sign it
        (f"?ssl_ca_certs={cert}", "IP address mismatch"),  # signed, not for 127.0.0.1
    ]:
        err = _refused(
            capsys, "table", "list", "--redis", f"rediss://127.0.0.1:{tls_redis}/0{query}"
        )
        assert f"cannot open redis 127.0.0.1:{tls_redis}/0: the Redis there speaks TLS, but" in err
        assert why in err
        assert "give the file of the CA that signed it in --redis (or $ROLLBRIDGE_REDIS)" in err
        assert "give redis://" not in err and "without a tls-port" not in err
    with pytest.raises(StoreError) as caught:  # in the reader's language
        RedisStore(f"rediss://127.0.0.1:{tls_redis}/0")
    czech = caught.value.render("cs")
    assert "ssl_ca_certs=FILE" in czech and "TLS" in czech and "was not accepted" not in czech


def test_the_tls_settings_as_they_should_be_are_taken(capsys, tls_redis, tmp_path):
    # each judged before connecting (tests/stores/test_redis_url_query.py), and taken
    # as redis-py takes them when they are as they should be
    cert = tmp_path / "cert.pem"  # tls_redis's own, self-signed, no subjectAltName
    query = (
        f"?ssl_ca_certs={cert}&ssl_check_hostname=no&ssl_cert_reqs=required"
        "&ssl_min_version=771&ssl_ciphers=ECDHE%2BAESGCM&ssl_ca_path=/"
        "&retry_on_error=[ConnectionError, TimeoutError]"
    )
    url = f"rediss://127.0.0.1:{tls_redis}/0{query}"
    assert main(["table", "list", "--redis", url]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out == "no tables\n"


def test_the_newest_tls_version_only_is_taken_as_redis_py_takes_it(capsys, tls_redis, tmp_path):
    # ssl_min_version=-1 is Python's MAXIMUM_SUPPORTED (TLS 1.3 only), which redis-py
    # takes: the check refused it as no TLS version
    cert = tmp_path / "cert.pem"
    query = f"?ssl_ca_certs={cert}&ssl_check_hostname=no&ssl_min_version=-1"
    url = f"rediss://127.0.0.1:{tls_redis}/0{query}"
    assert main(["table", "list", "--redis", url]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out == "no tables\n"


@pytest.fixture(params=["close", "reset"])
def dropping_port(request) -> Iterator[int]:
    """A port where something takes each connection and drops it at once, closed or
    reset: what a TCP proxy or load balancer (HAProxy, a cloud's) does while no Redis
    answers behind it. A real listening socket on 127.0.0.1."""
    listener = socket.create_server(("127.0.0.1", 0))

    def drop() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:  # the listener closed: the test is over
                return
            if request.param == "reset":  # SO_LINGER 0: a reset, not a close
                connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            connection.close()

    yield from _serving(listener, drop)


def _serving(listener: socket.socket, serve: Callable[[], None]) -> Iterator[int]:
    """``serve`` (accepting on ``listener`` until it closes) in a thread while the test
    runs; yields the port, and closes the listener after."""
    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        listener.shutdown(socket.SHUT_RDWR)
        listener.close()
        thread.join(timeout=10)


@pytest.mark.parametrize("scheme", ["redis", "rediss"])
def test_a_connection_dropped_where_no_tls_answers_is_not_called_tls(capsys, dropping_port, scheme):
    """``redis://`` and ``rediss://`` at a proxy with no Redis behind it: the
    connection is taken, then dropped. It was said as "a Redis that takes TLS only …
    give rediss://" (and for rediss://, "the TLS handshake got no answer … give
    redis://"): a scheme to change that would change nothing. Now TLS is named only
    where a TLS handshake is answered (the test above), and this says what drops it."""
    err = _refused(capsys, "table", "list", "--redis", f"{scheme}://127.0.0.1:{dropping_port}/0")
    assert f"cannot open redis 127.0.0.1:{dropping_port}/0: the connection was taken and" in err
    assert "a proxy or load balancer whose Redis is down" in err
    assert "give rediss://" not in err and "give redis://" not in err
    assert "nothing answers there" not in err


@pytest.fixture
def erring_port() -> Iterator[int]:
    """A stand-in for a Redis without TLS that reads a TLS handshake as an inline
    command and answers it with an error, keeping the connection (what Redis does with
    an unknown command). The Redis these tests run, 7.0, stops reading an inline
    command at its first zero byte and leaves a handshake unanswered, so the real one
    cannot show it; a real listening socket on 127.0.0.1, answering as Redis's
    protocol writes an error (``-ERR …\\r\\n``)."""
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def answer() -> None:
        while True:
            try:
                connection, _ = listener.accept()
                connection.recv(4096)
                connection.sendall(
                    b"-ERR unknown command '\x16\x03\x01\x02', with args beginning with: \r\n"
                )
            except OSError:  # the listener closed: the test is over
                return
            held.append(connection)

    try:
        yield from _serving(listener, answer)
    finally:
        for connection in held:
            connection.close()


def test_a_handshake_answered_with_a_redis_error_is_not_said_unanswered(capsys, erring_port):
    """``rediss://`` at a Redis without TLS that answers the handshake with ``-ERR``:
    it was said as "the TLS handshake got no answer", which it had (the hint was right).
    Now the words say what came, in the reader's language."""
    url = f"rediss://127.0.0.1:{erring_port}/0?{QUICK}"
    err = _refused(capsys, "table", "list", "--redis", url)
    assert (
        f"cannot open redis 127.0.0.1:{erring_port}/0: the TLS handshake was answered, but" in err
    )
    assert "not in TLS" in err and "got no answer" not in err
    assert "give redis:// in --redis (or $ROLLBRIDGE_REDIS) for a Redis without TLS" in err
    with pytest.raises(StoreError) as caught:
        RedisStore(url)
    russian = caught.value.render("ru")
    assert "redis://" in russian and "TLS" in russian and "was answered" not in russian


def test_a_tls_redis_asking_a_client_certificate_is_not_called_one_without_tls(
    capsys, tls_redis_asking_a_certificate, tmp_path
):
    """A TLS Redis as it comes asks each client for a certificate: without one, TLS
    1.2's handshake is refused with a TLS alert, which was said as "the TLS handshake
    was answered, but not in TLS … give redis:// … for a Redis without TLS", and TLS
    1.3's connection is dropped after the handshake, which was said as "a Redis does
    not do" that: a proxy. The certificate is named, and what to give, which serves."""
    port = tls_redis_asking_a_certificate
    url = f"rediss://127.0.0.1:{port}/0?ssl_cert_reqs=none"
    err = _refused(capsys, "table", "list", "--redis", url)
    assert f"cannot open redis 127.0.0.1:{port}/0: the Redis there speaks TLS, but refused" in err
    assert "a Redis that asks for a client certificate (its tls-auth-clients" in err
    assert "in --redis (or $ROLLBRIDGE_REDIS) as ?ssl_certfile=FILE&ssl_keyfile=FILE" in err
    assert "give redis://" not in err and "which a Redis does not do" not in err, err
    with pytest.raises(StoreError) as caught:  # in the reader's language
        RedisStore(url)
    german = caught.value.render("de")
    assert "ssl_certfile=FILE" in german and "refused this connection" not in german
    # the certificate and its key given, as said, it is served
    given = f"{url}&ssl_certfile={tmp_path / 'cert.pem'}&ssl_keyfile={tmp_path / 'key.pem'}"
    assert main(["table", "list", "--redis", given]) == 0
    assert capsys.readouterr().out == "no tables\n"
