"""A server that cannot listen says why in one line (:mod:`rollbridge.server.listen`).

Before, ``rollbridge serve`` on a port another program held printed "rollbridge serving
… on ws://…" and then a Python traceback ending in ``OSError: [Errno 98]``."""

from __future__ import annotations

import asyncio
import errno
import os
import socket
import subprocess
import sys
import threading

import pytest

from rollbridge.exceptions import CannotListen, StoreError
from rollbridge.host import PluginHost
from rollbridge.server.app import Server
from rollbridge.server.listen import cannot_listen
from rollbridge.stores.sqlite import SQLiteStore
from tests.server.test_server_lifecycle import free_port

ENV = {**os.environ, "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1", "LANGUAGE": "en"}


def serve(tmp_path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rollbridge", "serve", "--db", str(tmp_path / "r.db"), *argv],
        capture_output=True, text=True, timeout=60, env=ENV,
    )  # fmt: skip


def refused(done: subprocess.CompletedProcess[str]) -> str:
    """The one line ``serve`` said, having said nothing of serving."""
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert "serving" not in done.stdout, done.stdout
    return done.stderr


def test_a_port_another_program_holds(tmp_path):
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        said = refused(serve(tmp_path, "--host", "127.0.0.1", "--port", str(port)))
    assert said == (
        f"rollbridge: error: cannot_listen: cannot listen on 127.0.0.1:{port}: another "
        "program already uses the port (another rollbridge serve?): stop it, or give "
        "another --port\n"
    )


def test_an_address_that_is_not_this_machines(tmp_path):
    # 192.0.2.1: TEST-NET-1 (RFC 5737), never a local address
    said = refused(serve(tmp_path, "--host", "192.0.2.1", "--port", str(free_port())))
    assert said.startswith("rollbridge: error: cannot_listen: cannot listen on 192.0.2.1:")
    assert "this machine has no such address: give --host 127.0.0.1" in said


def test_the_reasons_in_german(tmp_path):
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "rollbridge", "serve", "--db", str(tmp_path / "r.db"),
             "--host", "127.0.0.1", "--port", str(port)],
            capture_output=True, text=True, timeout=60, env={**ENV, "LANGUAGE": "de"},
        )  # fmt: skip
    said = refused(done)
    assert said.startswith("rollbridge: error: cannot_listen: ") and f"127.0.0.1:{port}" in said
    assert "another program" not in said and "--port" in said


@pytest.mark.parametrize(
    ("exc", "host", "reason", "details"),
    [
        (OSError(errno.EACCES, "Permission denied"), "0.0.0.0",
         "permission denied (a port below 1024 needs privileges)",
         {"host": "0.0.0.0", "port": 80, "errno": "EACCES"}),
        (socket.gaierror(socket.EAI_NONAME, "Name or service not known"), "nosuch.invalid",
         "the host name is not known", {"host": "nosuch.invalid", "port": 80}),
        (OSError(errno.EADDRNOTAVAIL, "Cannot assign"), "::5",
         "this machine has no such address", {"host": "::5", "port": 80, "errno": "EADDRNOTAVAIL"}),
        (OSError(errno.EMFILE, "Too many open files"), "127.0.0.1",
         "Too many open files", {"host": "127.0.0.1", "port": 80, "errno": "EMFILE"}),
    ],
)  # fmt: skip
def test_each_reason(exc, host, reason, details):
    error = cannot_listen(exc, host, 80)
    assert error.code == "cannot_listen" and error.details == details
    where = "[::5]:80" if host == "::5" else f"{host}:80"
    assert str(error).startswith(f"cannot listen on {where}: {reason}"), str(error)


async def test_a_server_that_cannot_listen_leaves_no_thread_and_closes_its_store(tmp_path):
    store = SQLiteStore(tmp_path / "r.db")
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        server = Server(store, PluginHost(), address="127.0.0.1", port=held.getsockname()[1])
        called = []
        with pytest.raises(CannotListen):
            await server.serve_forever(asyncio.Event(), lambda: called.append(True))
    assert called == []  # "listening" is never said
    # the commit writer and the store's readers ended
    assert [t.name for t in threading.enumerate() if t.name.startswith("rollbridge")] == []
    with pytest.raises(StoreError):
        store.tables()  # closed


def test_a_first_start_that_cannot_listen_makes_no_demo_table(tmp_path):
    """Before, the demo table was made (its tokens printed once) and then the start
    failed; the next start, finding a table, made none: a demo nobody could join."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        refused(serve(tmp_path, "--host", "127.0.0.1", "--port", str(held.getsockname()[1])))
    with SQLiteStore(tmp_path / "r.db") as store:
        assert store.tables() == []


def test_a_first_start_that_cannot_listen_leaves_no_files(tmp_path):
    """Before, it left an empty database with its WAL, a dice key and a serve lock: a
    mistyped ``--db`` made a stray file (and a stray key) though nothing was served."""
    folder = tmp_path / "odd ?#% name"
    folder.mkdir()
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        refused(serve(folder, "--host", "127.0.0.1", "--port", str(held.getsockname()[1])))
    assert sorted(os.listdir(folder)) == []


def test_a_start_that_cannot_listen_keeps_a_database_that_was_there(tmp_path):
    with SQLiteStore(tmp_path / "r.db") as store:
        assert store.tables() == []  # made, empty: the operator's file all the same
    before = sorted(os.listdir(tmp_path))
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        refused(serve(tmp_path, "--host", "127.0.0.1", "--port", str(held.getsockname()[1])))
    assert (tmp_path / "r.db").exists()
    assert set(before) <= set(os.listdir(tmp_path))


def test_files_are_removed_only_from_a_database_that_holds_nothing(tmp_path):
    """``table create`` takes no serve lock: a table another program made meanwhile
    keeps the file (:func:`rollbridge.cli.serve._holds_nothing`)."""
    from rollbridge.cli.serve import _holds_nothing
    from rollbridge.offline import TableService

    with SQLiteStore(tmp_path / "r.db") as store:
        assert _holds_nothing(str(tmp_path / "r.db"))
        TableService(store, PluginHost()).create_table("Friday", "sr2")
    assert not _holds_nothing(str(tmp_path / "r.db"))
    (tmp_path / "junk.db").write_bytes(b"not a database")
    assert not _holds_nothing(str(tmp_path / "junk.db"))


def lines_until_serving(process: subprocess.Popen[str]) -> list[str]:
    """What ``serve`` printed up to its "serving" line (it ended before: a failure
    showing what it said, and its stderr if that was kept)."""
    lines: list[str] = []
    while not lines or "serving" not in lines[-1]:
        line = process.stdout.readline() if process.stdout else ""
        if not line:
            said = process.stderr.read() if process.stderr else ""
            raise AssertionError(f"serve ended before serving: {lines} {said}")
        lines.append(line)
    return lines


def test_port_0_serves_on_a_free_port_and_says_which(tmp_path):
    process = subprocess.Popen(
        [sys.executable, "-m", "rollbridge", "serve", "--db", str(tmp_path / "r.db"),
         "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=ENV,
    )  # fmt: skip
    try:
        lines = lines_until_serving(process)
        port = int(lines[-1].split("ws://127.0.0.1:")[1].split("/")[0])
        assert port != 0
        assert any(f"url      ws://127.0.0.1:{port}/tables/demo-sr2-" in line for line in lines)
        socket.create_connection(("127.0.0.1", port), timeout=5).close()  # it is that one
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_an_ipv6_address_is_written_in_brackets_in_every_url(tmp_path):
    """``serve --host ::1`` printed ``ws://::1:PORT/…``, which no client can use (found
    in review): an IPv6 address is bracketed in the join URL, the web view's address
    and the serving line, and the printed URL is one a client joins with."""
    process = subprocess.Popen(
        [sys.executable, "-m", "rollbridge", "serve", "--db", str(tmp_path / "r.db"),
         "--port", "0", "--host", "::1"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=ENV,
    )  # fmt: skip
    try:
        lines = lines_until_serving(process)
        port = int(lines[-1].split("ws://[::1]:")[1].split("/")[0])
        assert any(f"url      ws://[::1]:{port}/tables/demo-sr2-" in line for line in lines)
        assert any(f"http://[::1]:{port}/tables/demo-sr2-" in line for line in lines), lines
        assert not any("::1:" in line.replace("[::1]:", "") for line in lines), lines
        socket.create_connection(("::1", port), timeout=5).close()
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (("--port", "-1"), "argument --port: expected a port from 0 to 65535, not '-1'"),
        (("--port", "70000"), "argument --port: expected a port from 0 to 65535, not '70000'"),
        (("--max-event-size", "10"), "argument --max-event-size: expected at least 4096, not '10'"),
    ],
)
def test_options_no_server_could_serve_with(tmp_path, argv, said):
    """``--port 70000`` was an OverflowError's traceback; ``--max-event-size 10`` a
    server that refused every request (``event_too_large``)."""
    done = serve(tmp_path, *argv)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert said in done.stderr
    assert not (tmp_path / "r.db").exists()


def _dual_stack() -> bool:
    """Whether this machine listens on IPv6 and IPv4 both (``--host ''``: each)."""
    try:
        with socket.socket(socket.AF_INET6) as six:
            six.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            six.bind(("::", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _dual_stack(), reason="no IPv6 here")
async def test_port_0_on_several_addresses_is_one_port_on_each(tmp_path):
    """A host naming several addresses (``--host ''``: every IPv4 and IPv6 address;
    ``localhost`` where it is 127.0.0.1 and ::1) gets one listening socket per
    address. With port 0 each took its own free port, and ``serve`` printed the
    first's: a client reaching the host by its other address found nothing there."""
    server = Server(SQLiteStore(tmp_path / "r.db"), PluginHost(), address="", port=0)
    await server.start()
    try:
        sockets = server._server.sockets
        assert len(sockets) == 2, sockets
        assert {s.getsockname()[1] for s in sockets} == {server.port}
    finally:
        await server.stop()


STORE_FAILS_ONCE_SERVING = """
import sys
from rollbridge.cli import main
from rollbridge.exceptions import StoreUnavailable
from rollbridge.stores.sqlite import SQLiteStore

from rollbridge.server.app import Server

open_ports = []
real_tables, real_start = SQLiteStore.tables, Server.start

async def start(self):
    await real_start(self)
    open_ports.append(self.port)

def tables(self):
    if open_ports:  # the store fails once the port is open (Redis killed just then)
        raise StoreUnavailable("the store went away")
    return real_tables(self)

Server.start, SQLiteStore.tables = start, tables
SQLiteStore.create_table = lambda *a, **k: (_ for _ in ()).throw(StoreUnavailable("gone"))
sys.exit(main(sys.argv[1:]))
"""


def test_a_store_failing_as_the_port_opens_costs_the_demo_not_the_server(tmp_path):
    """Before, the lines printed once the port was open read the store again: a
    Redis killed just then stopped the new server ('Server is shutting down' to the
    first client, found by tests/stores/test_redis_health_reads.py under load)."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-c", STORE_FAILS_ONCE_SERVING, "serve", "--db", str(tmp_path / "r.db"),
         "--port", str(port), "--log-format", "json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
    )  # fmt: skip
    try:
        lines = lines_until_serving(process)
        db = tmp_path / "r.db"
        serving = f"rollbridge serving 0 tables on ws://127.0.0.1:{port}/ (db {db}); Ctrl-C stops\n"
        assert lines == [serving]
        socket.create_connection(("127.0.0.1", port), timeout=5).close()  # still serving
    finally:
        process.terminate()
        assert process.wait(timeout=30) == 0
    logged = process.stderr.read()
    assert "the demo table could not be made" in logged and "Traceback" not in logged
