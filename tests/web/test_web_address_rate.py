"""The web view under the server's default ``--http-rate-per-address``, in real
headless Chromium (docs/operations.md, "Limits"): a page, opened by one client
behind the operator's proxy, loads whole — every file, its words, the log before it
joined — and its requests are counted against its address all the same, which the
same address flooding then meets.

Needs Debian's ``chromium``, node and ``playwright-core`` (``npm ci`` in
tests/foundry); skipped when chromium is missing.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from rollbridge.host import PluginHost
from rollbridge.server import Server
from rollbridge.server.addresses import parse_network
from rollbridge.server.limits import Limits
from rollbridge.stores.sqlite import SQLiteStore
from tests.hostile.wire import flood, http_get
from tests.web.conftest import seed_tables
from tests.web.test_web_browser import CHROMIUM, requirements, run_script

WEBUI = Path(__file__).resolve().parents[2] / "core" / "server" / "webui"
#: The client the proxy names.
CLIENT = "203.0.113.40"


@contextlib.asynccontextmanager
async def behind_proxy(tmp_path: Path, **limits: Any) -> AsyncIterator[tuple[Server, Any]]:
    """A server behind a proxy on 127.0.0.1, with ``limits`` besides the defaults, and
    its tables' tokens (stopped after)."""
    path = tmp_path / "web.db"
    host = PluginHost()
    with SQLiteStore(path) as seed:
        tokens = seed_tables(seed, host)
    proxy = (parse_network("127.0.0.1"),)
    server = Server(SQLiteStore(path), host, port=0, limits=Limits(trusted_proxies=proxy, **limits))
    await server.start()
    try:
        yield server, tokens
    finally:
        await server.stop()


@pytest.fixture
async def proxied(tmp_path) -> Any:
    """A server with the default limits behind a proxy on 127.0.0.1."""
    async with behind_proxy(tmp_path) as served:
        yield served


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
    assert len(fetched) == 25  # as docs/operations.md counts them
    assert {status for _, status in result["requests"]} == {200}
    # counted all the same: that address has the rest of its burst, not a fresh one
    assert 429 in await flood(server.port, CLIENT)


@pytest.fixture
async def strict(tmp_path) -> Any:
    """A server behind a proxy on 127.0.0.1 that takes one wrong token per address."""
    async with behind_proxy(tmp_path, wrong_tokens_per_address=1) as served:
        yield served


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM}")
async def test_a_page_whose_address_is_past_its_wrong_tokens_says_why_and_waits(strict):
    """Found by review: a right token from an address past its wrong tokens got
    ``rate_limited`` (a minute, by default), and the page said only "reconnecting"
    while the client tried again after 0.5 s, 1 s, 2 s … each refused unchecked.
    It shows the server's words now, and waits the server's ``retry_after``."""
    server, tokens = strict
    missing = requirements()
    if missing:
        pytest.fail("the web view's browser tests need: " + "; ".join(missing))
    guess = {"X-Forwarded-For": CLIENT, "Authorization": "Bearer rba_guess"}
    assert (await http_get(server.port, "/admin/tables", guess))[0] == 401
    env = {"RB_BASE": f"http://127.0.0.1:{server.port}", "RB_TOKEN": tokens["web"]["player"],
           "RB_CHROMIUM": CHROMIUM, "RB_ADDRESS": CLIENT}  # fmt: skip
    result = await run_script("address_refused.mjs", env, [tokens["web"]["player"]])
    assert result["trouble"] == {"errors": [], "dialogs": []}
    assert result["status"] == "waiting"
    # the server's own words, in the page's language (German)
    assert "zu viele falsche Tokens" in result["message"], result["message"]
    assert result["kind"] == "error"
    # the page's clock run on by 2 s (not the test's: a sleep measured nothing once
    # the script had closed the browser): the backoff alone would have tried twice more
    assert result["opened"] == 1 and result["retried"] == 0, result
    assert server.metrics._loop.throttled == {"wrong_tokens": 1}


@pytest.fixture
async def sparing(tmp_path) -> Any:
    """A server behind a proxy on 127.0.0.1 whose HTTP rate gives an address a burst
    of 5 requests (a page makes 20)."""
    async with behind_proxy(tmp_path, http_rate_per_address=0.5) as served:
        yield served


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM}")
async def test_a_page_whose_files_are_refused_says_so_instead_of_loading_for_good(sparing):
    """Found by review: past its address's HTTP rate (a reload storm: each reload
    fetches 20 files), a page got 429 for some of its modules and said "loading…"
    for good, in English, with no reason. The top bar now says the page did not load
    whole and to reload it in a moment, in the browser's language."""
    server, _tokens = sparing
    missing = requirements()
    if missing:
        pytest.fail("the web view's browser tests need: " + "; ".join(missing))
    env = {"RB_BASE": f"http://127.0.0.1:{server.port}", "RB_CHROMIUM": CHROMIUM,
           "RB_ADDRESS": CLIENT}  # fmt: skip
    result = await run_script("load_refused.mjs", env, [])
    assert result["refused"] > 0, result  # the page did meet the rate
    assert result["said"], result
    assert result["status"] == "stránka se nenačetla celá: za chvíli ji načtěte znovu"
    assert result["lang"] == "cs"
