"""The web view's HTTP side on a real server: the pages and the allow-listed files
with their content types and a strict Content-Security-Policy, 404 for anything
else under /static/ (path traversal included), and the WebSocket handshake to
/tables/ID untouched."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from websockets.asyncio.client import connect

from rollbridge.cli.serve import SHOWN_TABLES, _web_lines, web_url
from rollbridge.server.web_view import CLIENT_FILES, WEB_FILES, page_policy
from tests.server.httpclient import get

ROOT = Path(__file__).resolve().parents[2]


def policy_of(headers: dict[str, str]) -> dict[str, str]:
    """A Content-Security-Policy header as {directive: sources}."""
    parts = (part.strip().split(" ", 1) for part in headers["Content-Security-Policy"].split(";"))
    return {part[0]: part[1] if len(part) > 1 else "" for part in parts}


PAGES = [
    ("/tables/web", "table.html"),
    ("/tables/web/", "table.html"),
    ("/tables/web/overlay", "overlay.html"),
]


@pytest.mark.parametrize(("path", "page"), PAGES)
async def test_the_pages_are_fixed_files_under_a_strict_policy(web_world, path, page):
    status, headers, body = await get(web_world.server, path)
    assert status == 200
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer"
    assert body == (ROOT / "core" / "server" / "webui" / page).read_bytes()
    policy = policy_of(headers)
    origin = f"{web_world.server.address}:{web_world.server.port}"
    assert policy["default-src"] == "'self'"
    assert policy["script-src"] == "'self'" and policy["style-src"] == "'self'"
    assert policy["connect-src"] == f"'self' ws://{origin} wss://{origin}"
    assert policy["object-src"] == "'none'" and policy["base-uri"] == "'none'"
    assert policy["require-trusted-types-for"] == "'script'" and policy["trusted-types"] == "'none'"
    assert "unsafe-inline" not in headers["Content-Security-Policy"]
    if page == "overlay.html":  # a streaming tool may frame it; it has no controls
        assert policy["frame-ancestors"] == "*" and "X-Frame-Options" not in headers
    else:
        assert policy["frame-ancestors"] == "'none'" and headers["X-Frame-Options"] == "DENY"
    text = body.decode("utf-8")
    assert "<script>" not in text and " style=" not in text  # nothing inline


async def test_every_listed_file_is_served_with_its_type(web_world):
    served = (
        ("web", WEB_FILES, ROOT / "core" / "server" / "webui"),
        ("client", CLIENT_FILES, ROOT / "adapters" / "client"),
    )
    for folder, names, source in served:
        for name in names:
            status, headers, body = await get(web_world.server, f"/static/{folder}/{name}")
            assert status == 200, name
            suffix = name.rsplit(".", 1)[1]
            expected = {"mjs": "text/javascript", "css": "text/css", "html": "text/html",
                        "json": "application/json"}[suffix]  # fmt: skip
            assert headers["Content-Type"] == f"{expected}; charset=utf-8"
            assert headers["X-Content-Type-Options"] == "nosniff"
            assert body == (source / name).read_bytes()
    folder = ROOT / "core" / "server" / "webui"
    listed = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    assert listed == set(WEB_FILES)  # every file of the folder is served, no other


@pytest.mark.parametrize(
    "path",
    [
        "/static/",
        "/static/web/",
        "/static/web/nope.mjs",
        "/static/../core/server/http.py",
        "/static/web/../client/connection.mjs",
        "/static/web/%2e%2e/client/connection.mjs",
        "/static/web/..%2fweb.css",
        "/static/client/..%2F..%2Fpyproject.toml",
        "/static/web/web.css/",
        "/static/web/WEB.CSS",
        "/static/web/web.css%00.mjs",
        "/static/adapters/client/connection.mjs",
        "/static/client/connection.test.mjs",
        "/static//etc/passwd",
        "/static/web/lang/fr.json",
        "/static/web/lang/../table.mjs",
        "/static/web/lang%2fen.json",
        "/static/client/lang/en.json",
        "/static/web/lang/lang/en.json",
    ],
)
async def test_nothing_else_is_served(web_world, path):
    status, _, body = await asyncio_raw_get(web_world.server, path)
    assert status == 404, (path, body[:200])


async def asyncio_raw_get(server, path: str) -> tuple[int, dict[str, str], bytes]:
    """A GET with ``path`` sent exactly as written (urllib would normalise ``..``)."""
    import asyncio

    def call() -> tuple[int, dict[str, str], bytes]:
        with socket.create_connection((server.address, server.port), timeout=10) as raw:
            raw.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
            data = b""
            while chunk := raw.recv(65536):
                data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = dict(line.split(": ", 1) for line in lines[1:])
        return int(lines[0].split(" ")[1]), headers, body

    return await asyncio.to_thread(call)


async def test_the_join_url_still_opens_a_websocket(web_world):
    url = f"ws://{web_world.server.address}:{web_world.server.port}/tables/web"
    async with connect(url) as connection:
        token = web_world.tokens["web"]["player"]
        hello = {"type": "hello", "id": 1, "table": "web", "token": token}
        await connection.send(json.dumps(hello))
        welcome = json.loads(await connection.recv())
    assert welcome["type"] == "welcome" and welcome["role"] == "player"


async def test_the_servers_own_address_says_what_runs_there_in_the_browsers_language(
    web_world,
):
    """Before, a browser pointed at http://HOST:PORT/ (the ws:// address serve prints,
    with http://) got websockets' 426 "You cannot access a WebSocket server directly
    with a browser"; a browser's own /favicon.ico did too."""
    status, headers, body = await get(web_world.server, "/")
    assert status == 200 and headers["Content-Type"] == "text/plain; charset=utf-8"
    assert headers["X-Content-Type-Options"] == "nosniff"
    text = body.decode("utf-8")
    assert text.startswith("rollbridge runs here.\n") and "/tables/" in text and "ws://" in text
    assert "web" not in text.replace("web view", "")  # no table is named or listed
    _, _, german = await get(web_world.server, "/", headers={"Accept-Language": "de-AT, en;q=0.5"})
    assert german.decode("utf-8").startswith("Hier läuft rollbridge.\n")
    status, _, _ = await get(web_world.server, "/favicon.ico")
    assert status == 404
    # behind a TLS proxy the page is https://, and Foundry's Server URL wss:// (the
    # module refuses a ws:// one from an https:// Foundry that is not this machine)
    assert "wss:// instead of https://" in text
    for lang, said in (("de", "wss:// statt https://"), ("cs", "wss:// místo https://"),
                       ("ru", "wss:// вместо https://")):  # fmt: skip
        _, _, body = await get(web_world.server, "/", headers={"Accept-Language": lang})
        assert said in body.decode("utf-8"), lang


async def test_a_websocket_to_the_servers_own_address_still_joins(web_world):
    """The Foundry module and older clients connect to ws://HOST:PORT/ itself."""
    async with connect(f"ws://{web_world.server.address}:{web_world.server.port}/") as connection:
        hello = {"type": "hello", "id": 1, "table": "web", "token": web_world.tokens["web"]["gm"]}
        await connection.send(json.dumps(hello))
        assert json.loads(await connection.recv())["type"] == "welcome"


async def test_a_strange_host_is_left_out_of_the_policy(web_world):
    for host in ("evil.example; script-src *", "a b", ""):
        status, headers, _ = await get(web_world.server, "/tables/web", headers={"Host": host})
        assert status == 200
        assert policy_of(headers)["connect-src"] == "'self'"


def test_the_policy_names_the_websocket_origin():
    policy = page_policy("[::1]:8765", framed=False)
    assert "connect-src 'self' ws://[::1]:8765 wss://[::1]:8765;" in policy
    assert "connect-src 'self';" in page_policy(None, framed=True)


def test_serve_names_each_tables_web_view():
    class Info:
        def __init__(self, number: int) -> None:
            self.id, self.name = f"t/{number}", f"Table {number}"

    assert web_url("127.0.0.1", 8765, "friday-3fa2") == "http://127.0.0.1:8765/tables/friday-3fa2"
    lines = _web_lines([Info(n) for n in range(SHOWN_TABLES + 3)], "127.0.0.1", 8765)
    shown = lines.splitlines()
    assert shown[0] == "  web view  http://127.0.0.1:8765/tables/t%2F0  (Table 0)"
    assert len(shown) == SHOWN_TABLES + 1 and shown[-1].endswith("3 more (rollbridge table list)")


def test_the_pages_never_parse_html_from_data():
    """A guard beside the browser test's hostile name: no module of the view (nor
    the shared client) has a way to parse a string as HTML or code, or to set an
    inline style the policy would refuse."""
    sources = [ROOT / "core" / "server" / "webui" / n for n in WEB_FILES if n.endswith(".mjs")]
    sources += [ROOT / "adapters" / "client" / n for n in CLIENT_FILES]
    banned = ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(",
              "new Function", "setAttribute(\"style", ".style.", "javascript:")  # fmt: skip
    for source in sources:
        text = source.read_text(encoding="utf-8")
        assert [word for word in banned if word in text] == [], source.name


async def test_a_link_cut_short_at_the_tables_says_how_to_join(web_world):
    """``/tables/`` (a player's link with its table id lost) got websockets' plain
    English 426 "You cannot access a WebSocket server directly with a browser": it
    says what runs here and how to join, as ``/`` does, in the browser's language."""
    for path in ("/tables", "/tables/"):
        status, _, body = await get(web_world.server, path, headers={"Accept-Language": "de"})
        assert status == 200, (path, body)
        assert body.decode("utf-8").startswith("Hier läuft rollbridge.\n"), body
