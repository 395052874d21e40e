"""``rollbridge connect`` takes the addresses a user has at hand: the ``ws://`` one
``serve`` prints, the web view's ``http://`` one it prints beside it, and the share
link ``…#token=…`` the web view makes. What it cannot use it says plainly: a URL
without its scheme (before: "must start with ws:// or wss://, not ''://"), a
``wss://`` to the plain server (before: "cannot connect to wss://…: " and nothing
after the colon)."""

from __future__ import annotations

import pytest

from tests.server.test_server_lifecycle import cli, served_table


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    db = tmp_path_factory.mktemp("connect") / "c.db"
    made, server, _url = served_table(db, "Urls")
    try:
        yield made, server.port
    finally:
        server.stop()


def connect(*argv: str) -> tuple[int, str, str]:
    done = cli("connect", *argv, db=None, check=False, input="quit\n")
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize(
    "address",
    [
        "http://127.0.0.1:{port}/tables/{table}",  # the web view's address
        "ws://127.0.0.1:{port}/tables/{table}",
    ],
)
def test_the_web_views_address_joins_as_the_websockets_does(table, address):
    made, port = table
    code, out, err = connect(address.format(port=port, table=made["table"]),
                             "--token", made["tokens"]["player"])  # fmt: skip
    assert code == 0, err
    assert "joined Urls" in out and "as player" in out


def test_a_share_link_carries_its_token(table, monkeypatch):
    made, port = table
    monkeypatch.delenv("ROLLBRIDGE_TOKEN", raising=False)
    link = f"http://127.0.0.1:{port}/tables/{made['table']}#token={made['tokens']['observer']}"
    code, out, err = connect(link)
    assert code == 0, err
    assert "as observer" in out
    assert made["tokens"]["observer"] not in out  # the token is not echoed


def test_the_overlays_share_link_joins_its_table(table, monkeypatch):
    """docs/web.md gives the stream overlay's link (``…/tables/ID/overlay#token=…``,
    an observer's) to share: it was "no table: use a URL ending in /tables/ID"."""
    made, port = table
    monkeypatch.delenv("ROLLBRIDGE_TOKEN", raising=False)
    link = (
        f"http://127.0.0.1:{port}/tables/{made['table']}/overlay#token={made['tokens']['observer']}"
    )
    code, out, err = connect(link)
    assert code == 0, err
    assert "joined Urls" in out and "as observer" in out


def test_a_links_token_wins_over_the_environments(table, monkeypatch):
    """ROLLBRIDGE_TOKEN is what the shell holds, for whatever table it was set; the
    link is what was given for this one. The environment's won: a share link of
    another table than the one it was set for failed to join (a token of another
    table), saying nothing of the link's own."""
    made, port = table
    monkeypatch.setenv("ROLLBRIDGE_TOKEN", "rbt_of_another_table")
    link = f"http://127.0.0.1:{port}/tables/{made['table']}#token={made['tokens']['observer']}"
    code, out, err = connect(link)
    assert code == 0, err
    assert "as observer" in out


def test_a_token_given_wins_over_the_links(table):
    made, port = table
    link = f"http://127.0.0.1:{port}/tables/{made['table']}#token={made['tokens']['observer']}"
    code, out, err = connect(link, "--token", made["tokens"]["gm"])
    assert code == 0, err
    assert "as gm" in out


@pytest.mark.parametrize(
    ("address", "said"),
    [
        ("127.0.0.1:{port}", "give the whole URL, as serve prints it: ws://HOST:PORT/tables/ID "
         "(given: '127.0.0.1:{port}')"),
        ("ftp://127.0.0.1:{port}/tables/t", "the URL must start with ws:// or wss:// (or the web "
         "view's http:// or https://), not 'ftp://'"),
    ],
)  # fmt: skip
def test_what_cannot_be_joined_is_said(table, address, said):
    made, port = table
    code, out, err = connect(address.format(port=port), "--token", made["tokens"]["gm"],
                             "--table", "t")  # fmt: skip
    assert code == 1 and out == ""
    assert err == f"rollbridge: error: invalid_request: {said.format(port=port)}\n"


#: How the TLS handshake of a wss:// URL to the plain port ends: the server answers
#: a ClientHello whose random bytes hold a line feed with its 400 (the TLS client
#: reads plain HTTP: wrong version number), and closes on one that holds none.
TLS_TO_PLAIN = (
    "[SSL: WRONG_VERSION_NUMBER] wrong version number (_ssl.c:",
    "ConnectionResetError",
)


def test_a_wss_url_to_the_plain_port_is_said_to_need_tls(table):
    made, port = table
    url = f"wss://127.0.0.1:{port}/tables/t"
    code, out, err = connect(url, "--token", made["tokens"]["gm"], "--table", "t")
    assert code == 1 and out == ""
    head = f"rollbridge: error: invalid_request: cannot connect to {url}: "
    tail = "; rollbridge serve itself speaks plain ws://: wss:// needs a TLS proxy in front of it\n"
    assert err.startswith(head) and err.endswith(tail), err
    cause = err[len(head) : -len(tail)]
    assert any(cause.startswith(known) for known in TLS_TO_PLAIN), cause


def test_a_wss_url_where_nothing_listens_is_not_said_to_need_tls():
    """Only a TLS handshake the server broke off is the plain server's: a refused
    connection (the proxy down, a wrong port) got "wss:// needs a TLS proxy in front
    of it" too, sending an operator whose proxy is there to look for one."""
    from tests.server.test_server_lifecycle import free_port

    port = free_port()
    code, out, err = connect(f"wss://127.0.0.1:{port}/tables/t", "--token", "x")
    assert code == 1 and out == ""
    assert f"cannot connect to wss://127.0.0.1:{port}/tables/t: " in err
    assert "TLS" not in err, err
