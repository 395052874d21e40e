"""The web view under the server's default ``--http-rate-per-address``, in real
headless Chromium (docs/operations.md, "Limits"): a page, opened by one client
behind the operator's proxy, loads whole — every file, its words, the log before it
joined — and its requests are counted against its address all the same, which the
same address flooding then meets.

Needs Debian's ``chromium``, node and ``playwright-core`` (``npm ci`` in
tests/foundry); skipped when chromium is missing.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from rollbridge.host import PluginHost
from rollbridge.server import Server
from rollbridge.server.addresses import parse_network
from rollbridge.server.limits import Limits
from rollbridge.stores.sqlite import SQLiteStore
from tests.hostile.wire import flood
from tests.web.conftest import seed_tables
from tests.web.test_web_browser import CHROMIUM, requirements, run_script

WEBUI = Path(__file__).resolve().parents[2] / "core" / "server" / "webui"
#: The client the proxy names.
CLIENT = "203.0.113.40"


@pytest.fixture
async def proxied(tmp_path) -> Any:
    """A server with the default limits behind a proxy on 127.0.0.1 (stopped after)."""
    path = tmp_path / "web.db"
    host = PluginHost()
    with SQLiteStore(path) as seed:
        tokens = seed_tables(seed, host)
    limits = Limits(trusted_proxies=(parse_network("127.0.0.1"),))
    server = Server(SQLiteStore(path), host, port=0, limits=limits)
    await server.start()
    try:
        yield server, tokens
    finally:
        await server.stop()


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM}")
async def test_the_web_view_loads_whole_under_the_default_rate_and_is_counted(proxied):
    server, tokens = proxied
    missing = requirements()
    if missing:
        pytest.fail("the web view's browser tests need: " + "; ".join(missing))
    base = f"http://127.0.0.1:{server.port}"
    env = {"RB_BASE": base, "RB_TOKEN": tokens["web"]["gm"], "RB_CHROMIUM": CHROMIUM,
           "RB_ADDRESS": CLIENT}  # fmt: skip
    result = await run_script("address_rate.mjs", env, [tokens["web"]["gm"]])
    assert result["trouble"] == {"errors": [], "dialogs": []}
    assert result["status"] == "connected"
    fetched = sorted(path for path, _ in result["requests"])
    # the page, every file it names, its words in English and German, the log
    html = (WEBUI / "table.html").read_text(encoding="utf-8")
    named = re.findall(r'(?:href|src)="(/static/[^"]+)"', html)
    wanted = ["/tables/web", *named, "/static/web/lang/en.json", "/static/web/lang/de.json",
              "/tables/web/export"]  # fmt: skip
    assert fetched == sorted(wanted)
    assert len(fetched) == 20  # as docs/operations.md counts them
    assert {status for _, status in result["requests"]} == {200}
    # counted all the same: that address has the rest of its burst, not a fresh one
    assert 429 in await flood(server.port, CLIENT)
