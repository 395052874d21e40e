"""What one client address may ask of a real ``rollbridge serve``: plain HTTP
requests (``--http-rate-per-address``) and wrong tokens
(``--wrong-tokens-per-address``; docs/operations.md, "Limits").

Before, an address could send HTTP requests as fast as the server answered them —
each ``/readyz`` and each admin or export request with a token a read on the
store's two threads that every table's joins need — and guess tokens as fast:
every ``hello``, admin and export token was looked up, whatever the address had
sent before. The tests connect from 127.0.0.1 through ``--trusted-proxy
127.0.0.1`` and name the client in ``X-Forwarded-For``, so that one machine is
several addresses.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from websockets.asyncio.client import connect

from tests.hostile.test_hostile_limits import closed_with
from tests.hostile.wire import ask, flood, hello, http_get

WEBUI = Path(__file__).resolve().parents[2] / "core" / "server" / "webui"


def via(address: str, **headers: str) -> dict[str, str]:
    """The headers of a request the proxy passes on for ``address``."""
    return {"X-Forwarded-For": address, **headers}


def behind(served, address: str):
    """A WebSocket connection through the proxy for ``address``."""
    return connect(served.url, additional_headers=via(address))


async def metric(served, name: str) -> float:
    """A sample of ``/metrics`` (asked from loopback: never counted), 0 if absent."""
    status, _, body = await http_get(served.port, "/metrics")
    assert status == 200
    for line in body.decode().splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    return 0.0


async def test_an_http_flood_gets_429_while_another_address_is_served(serve):
    # one request in 10 s, bursts of ten seconds of it: one
    served = serve("--trusted-proxy", "127.0.0.1", "--http-rate-per-address", "0.1")
    flooder = via("203.0.113.5")
    statuses = [(await http_get(served.port, "/healthz", flooder))[0] for _ in range(20)]
    assert statuses[0] == 200 and statuses.count(429) >= 18, statuses
    status, headers, body = await http_get(served.port, "/healthz", flooder)
    assert status == 429
    assert int(headers["retry-after"]) >= 1
    refusal = json.loads(body)
    assert refusal["code"] == "rate_limited"
    assert refusal["details"]["scope"] == "http" and refusal["details"]["retry_after"] > 0
    assert "too many HTTP requests from this address" in refusal["message"]
    assert "0.1 a second, 1 at once" in refusal["message"]
    # every path counts, and a refused one does nothing: no token looked up, no export
    wrong = flooder | {"Authorization": "Bearer rbt_wrong"}
    for path in ("/nothing", "/static/web/none.mjs", f"/tables/{served.table}",
                 f"/tables/{served.table}/export?format=jsonl", "/admin/tables",
                 "/readyz", "/metrics"):  # fmt: skip
        assert (await http_get(served.port, path, wrong))[0] == 429, path
    post = await http_get(served.port, "/admin/tables?ruleset=sr2&name=x", wrong, method="POST")
    assert post[0] == 429
    # other addresses behind the same proxy are served as before
    assert (await http_get(served.port, "/healthz", via("203.0.113.6")))[0] == 200
    assert (await http_get(served.port, f"/tables/{served.table}", via("2001:db8::1")))[0] == 200
    # (an IPv6 client's /64 is one address, as for the connections per address)
    assert (await http_get(served.port, "/healthz", via("2001:db8::2")))[0] == 429
    # the machine itself (and the proxy naming nobody) is not counted
    for _ in range(15):
        assert (await http_get(served.port, "/healthz"))[0] == 200
        assert (await http_get(served.port, "/healthz", via("127.0.0.1")))[0] == 200
    # a WebSocket handshake is not an HTTP request: the flooder still joins
    ws = await behind(served, "203.0.113.5")
    assert (await ask(ws, hello(served, "player")))["type"] == "welcome"
    await ws.close()
    refused = statuses.count(429) + 10
    assert await metric(served, 'rollbridge_throttled_total{limit="http_rate"}') == refused
    log = served.log_text()
    assert "refused HTTP requests from 203.0.113.5: more than 0.1 a second" in log
    assert log.count("refused HTTP requests from") == 1  # one line per 10 s at most
    assert "rbt_wrong" not in log


async def test_both_are_off_at_0(serve):
    served = serve("--trusted-proxy", "127.0.0.1", "--http-rate-per-address", "0",
                   "--wrong-tokens-per-address", "0")  # fmt: skip
    for _ in range(40):
        assert (await http_get(served.port, "/healthz", via("203.0.113.5")))[0] == 200
    for attempt in range(12):
        await guess(served, "203.0.113.5", attempt % 3)
    ws = await behind(served, "203.0.113.5")
    assert (await ask(ws, hello(served, "gm")))["type"] == "welcome"
    await ws.close()
    assert "rollbridge_throttled_total" in (await http_get(served.port, "/metrics"))[2].decode()


def page_files(page: str) -> list[str]:
    """Every file a browser fetches for the web view ``page`` (table.html): its
    stylesheet, scripts and preloaded modules — every module they import
    (tests/web/test_web_preload.py holds the page to that)."""
    html = (WEBUI / page).read_text(encoding="utf-8")
    return re.findall(r'(?:href|src)="(/static/[^"]+)"', html)


async def test_the_web_view_loads_whole_under_the_defaults_and_its_requests_count(serve):
    served = serve("--trusted-proxy", "127.0.0.1")
    files = page_files("table.html")
    assert len(files) >= 15, files  # the page's own, not a handful
    gm = via("203.0.113.9", Authorization=f"Bearer {served.tokens['gm']}")
    # the page, its files, its words, and the log before it joined — the 20 requests
    # Chromium makes (tests/web/test_web_address_rate.py) — six people behind one
    # home router opening the table together
    page = [f"/tables/{served.table}", *files, "/static/web/lang/en.json",
            "/static/web/lang/de.json", f"/tables/{served.table}/export?format=jsonl"]  # fmt: skip
    for _ in range(6):
        answers = await asyncio.gather(*(http_get(served.port, p, gm) for p in page))
        assert [a[0] for a in answers] == [200] * len(page)
    # counted all the same: the same address, flooding, meets the limit
    assert 429 in await flood(served.port, "203.0.113.9")
    assert "refused HTTP requests from 203.0.113.9: more than 20 a second" in served.log_text()


async def guess(served, address: str, route: int) -> None:
    """One wrong token from ``address``: in a ``hello``, an admin or an export request."""
    if route == 0:
        ws = await behind(served, address)
        wrong = {"type": "hello", "id": "h", "table": served.table, "token": "rbt_guess"}
        assert (await ask(ws, wrong))["code"] == "unauthorized"
        assert await closed_with(ws) == 1008
        return
    path = "/admin/tables" if route == 1 else f"/tables/{served.table}/export?format=jsonl"
    token = "rba_guess" if route == 1 else "rbt_guess"
    assert (await http_get(served.port, path, via(address, Authorization=f"Bearer {token}")))[
        0
    ] == 401


async def test_wrong_tokens_are_throttled_per_address_and_right_ones_do_not_pay(serve):
    served = serve("--trusted-proxy", "127.0.0.1")  # the default: ten in ten minutes
    guesser = "203.0.113.7"
    # wrong join, admin and export tokens, a right join token after each: a right
    # token does not give back what a wrong one took
    for attempt in range(10):
        await guess(served, guesser, attempt % 3)
        if attempt == 9:
            break
        ws = await behind(served, guesser)
        joined = await ask(ws, hello(served, "player"))
        assert joined["type"] == "welcome", joined
        await ws.close()
    # ten wrong ones: every token from that address is refused unchecked now, right ones too
    ws = await behind(served, guesser)
    refused = await ask(ws, hello(served, "gm"))
    assert refused["code"] == "rate_limited", refused
    assert refused["details"]["scope"] == "wrong_tokens"
    assert 0 < refused["details"]["retry_after"] <= 60  # one more a minute
    assert "too many wrong tokens came from this address" in refused["message"]
    assert await closed_with(ws) == 1013  # a client tries again later, with backoff
    export = f"/tables/{served.table}/export?format=jsonl"
    right = via(guesser, Authorization=f"Bearer {served.tokens['gm']}")
    status, headers, body = await http_get(served.port, export, right)
    assert status == 429 and int(headers["retry-after"]) >= 1
    assert json.loads(body)["details"]["scope"] == "wrong_tokens"
    status, headers, _ = await http_get(
        served.port, "/admin/tables", via(guesser, Authorization="Bearer rba_x")
    )
    assert status == 429 and "retry-after" in headers
    # no token, no guess: what needs none is still served to that address
    assert (await http_get(served.port, f"/tables/{served.table}", via(guesser)))[0] == 200
    # another address's right token is not held up, nor its first wrong one refused unread
    other = "203.0.113.8"
    ws = await behind(served, other)
    assert (await ask(ws, hello(served, "gm")))["type"] == "welcome"
    await ws.close()
    assert (
        await http_get(
            served.port, export, via(other, Authorization=f"Bearer {served.tokens['gm']}")
        )
    )[0] == 200
    await guess(served, other, 0)
    # nor the machine's own (loopback is not counted)
    ws = await connect(served.url)
    assert (await ask(ws, hello(served, "gm")))["type"] == "welcome"
    await ws.close()
    assert await metric(served, 'rollbridge_throttled_total{limit="wrong_tokens"}') == 3
    log = served.log_text()
    assert f"refused a token from {guesser} without checking it: too many wrong tokens" in log
    assert served.tokens["gm"] not in log


async def test_many_guesses_sent_at_once_are_held_to_the_limit_too(serve):
    """Guesses on many connections at once: each takes its place before it is looked
    up, so no more than the limit reach the store."""
    served = serve("--trusted-proxy", "127.0.0.1", "--wrong-tokens-per-address", "3")
    sockets = [await behind(served, "203.0.113.7") for _ in range(12)]
    wrong = {"type": "hello", "id": "h", "table": served.table, "token": "rbt_guess"}
    answers = await asyncio.gather(*(ask(ws, wrong) for ws in sockets))
    codes = sorted(answer["code"] for answer in answers)
    assert codes == ["rate_limited"] * 9 + ["unauthorized"] * 3
    assert "--wrong-tokens-per-address 3" in served.log_text()
    for ws in sockets:
        await ws.close()


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [
        ("--http-rate-per-address", "-1", "expected a number at least 0, not '-1'"),
        ("--http-rate-per-address", "nan", "expected a number at least 0, not 'nan'"),
        ("--http-rate-per-address", "many", "expected a number at least 0, not 'many'"),
        ("--http-rate-per-address", "0.001", "expected at least 0.01, not '0.001'"),
        ("--wrong-tokens-per-address", "2.5", "expected a whole number at least 0, not '2.5'"),
        ("--wrong-tokens-per-address", "-3", "expected a whole number at least 0, not '-3'"),
    ],
)
def test_the_options_are_checked_at_the_command_line(tmp_path, option, value, said):
    done = subprocess.run(
        [sys.executable, "-m", "rollbridge", "serve", "--db", str(tmp_path / "r.db"),
         option, value],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, done
    assert f"argument {option}: {said}" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "r.db").exists()


async def test_tokens_refused_unchecked_over_http_are_logged_once_per_interval(serve):
    """An address past its wrong tokens, asking the admin API and the export again
    and again: each 429 wrote an INFO line of its own (``admin GET /admin/tables
    refused: rate_limited``, ``export of table … refused: rate_limited``) besides the
    throttle's one WARNING per 10 s (found by review). They are DEBUG lines now, as
    every refused request is."""
    served = serve("--trusted-proxy", "127.0.0.1", "--wrong-tokens-per-address", "1")
    admin = via("203.0.113.7", Authorization="Bearer rba_guess")
    export = f"/tables/{served.table}/export?format=jsonl"
    assert (await http_get(served.port, "/admin/tables", admin))[0] == 401
    for _ in range(10):
        assert (await http_get(served.port, "/admin/tables", admin))[0] == 429
        guess = via("203.0.113.7", Authorization="Bearer rbt_guess")
        assert (await http_get(served.port, export, guess))[0] == 429
    log = served.log_text()
    assert log.count("refused a token from 203.0.113.7 without checking it") == 1
    assert "INFO rollbridge.admin: admin GET /admin/tables refused: rate_limited" not in log
    assert "INFO rollbridge.export: export of table" not in log
    assert log.count("DEBUG rollbridge.admin: admin GET /admin/tables refused: rate_limited") == 10


async def test_right_tokens_at_once_past_the_allowance_are_not_told_of_wrong_ones(serve):
    """A group behind one router joining at once (a restart, a convention's table):
    each right token held its place while it was looked up, so the ones past the
    allowance were refused as "too many wrong tokens came from this address", to wait
    the window's minute, though nobody sent a wrong one (found by review: 18 right
    tokens at once from one address, 6 refused so). They are told that the address's
    tokens are being checked, to try again in a second at most, and then get in."""
    served = serve("--trusted-proxy", "127.0.0.1", "--wrong-tokens-per-address", "3")
    roles = ["gm", "player", "observer"] * 4
    sockets = [await behind(served, "203.0.113.7") for _ in roles]
    answers = await asyncio.gather(
        *(ask(ws, hello(served, role)) for ws, role in zip(sockets, roles, strict=True))
    )
    for ws in sockets:
        await ws.close()
    waiting = [role for role, answer in zip(roles, answers, strict=True)
               if answer["type"] != "welcome"]  # fmt: skip
    for answer in answers:
        if answer["type"] != "welcome":
            assert answer["code"] == "rate_limited", answer
            assert answer["details"]["scope"] == "checking", answer
            assert 0 < answer["details"]["retry_after"] <= 1, answer
            assert "being checked at once" in answer["message"]
    for role in waiting:  # each tries again after the wait it was told, and gets in
        for _ in range(50):
            async with behind(served, "203.0.113.7") as ws:
                answer = await ask(ws, hello(served, role))
            if answer["type"] == "welcome":
                break
            assert answer["details"]["scope"] == "checking", answer
            await asyncio.sleep(answer["details"]["retry_after"])
        assert answer["type"] == "welcome", answer
    assert "too many wrong tokens" not in served.log_text()


async def test_http_requests_with_right_tokens_at_once_wait_for_each_other(serve):
    """A front end asking from one address many things at once with a right token
    (the admin API, exports): each request held its place while its token was
    looked up, and those past ``--wrong-tokens-per-address`` got 429 (found by
    review: 30 admin calls at once with the right admin token, 20 refused). They
    wait for the ones being checked now; wrong tokens at once are still held to it."""
    served = serve("--trusted-proxy", "127.0.0.1", "--wrong-tokens-per-address", "3")
    export = f"/tables/{served.table}/export?format=jsonl"
    right = via("203.0.113.7", Authorization=f"Bearer {served.tokens['gm']}")
    statuses = [s for s, _, _ in await asyncio.gather(
        *(http_get(served.port, export, right) for _ in range(12)))]  # fmt: skip
    assert 429 not in statuses, statuses
    assert set(statuses) <= {200, 503}, statuses  # 503: busy, one export at a time
    wrong = via("203.0.113.8", Authorization="Bearer rbt_guess")
    statuses = [s for s, _, _ in await asyncio.gather(
        *(http_get(served.port, export, wrong) for _ in range(12)))]  # fmt: skip
    assert sorted(statuses) == [401] * 3 + [429] * 9, statuses


async def test_a_flood_refused_for_the_http_rate_is_not_logged_per_request(serve):
    """websockets wrote two INFO lines for every 429 (``HTTP response sent (429 Too
    Many Requests)``, ``connection closed``): a flood's log grew with the flood
    however seldom the server's own WARNING said it (found by review). The refused
    requests' lines are left out now; the WARNING says them, once per 10 s."""
    served = serve("--trusted-proxy", "127.0.0.1", "--http-rate-per-address", "0.1",
                   "--log-level", "INFO")  # fmt: skip
    flooder = via("203.0.113.5")
    statuses = [(await http_get(served.port, "/healthz", flooder))[0] for _ in range(30)]
    assert statuses.count(429) >= 28, statuses
    log = served.log_text()
    assert "HTTP response sent (429" not in log
    assert log.count("connection closed") == statuses.count(200)
    assert log.count("HTTP response sent (200 OK)") == statuses.count(200)
    assert log.count("refused HTTP requests from 203.0.113.5") == 1


async def test_the_64s_of_one_48_neither_clear_a_penalty_nor_guess_past_its_allowance(serve):
    """Found by review: a holder of an IPv6 /48 (65,536 /64s) got ten guesses per
    /64, and could clear the penalty of one by making 10,000 others present a token
    each (the throttle forgot the address used longest ago). The /64s of one /48
    share an allowance of ten times one's now, and a penalised /64 is not forgotten
    for addresses whose buckets hold nothing; another /48 and IPv4 clients are not
    held up."""
    served = serve("--trusted-proxy", "127.0.0.1", "--wrong-tokens-per-address", "1")
    admin = "/admin/tables"
    wrong = "Bearer rba_guess"
    guesser = "2001:db8:77:ffff::1"
    assert (await http_get(served.port, admin, via(guesser, Authorization=wrong)))[0] == 401
    status, _, body = await http_get(served.port, admin, via(guesser, Authorization=wrong))
    assert status == 429 and "network" not in json.loads(body)["details"]
    # 10,050 other /64s of its /48 present a right token each (a player's, asking
    # for the GM's view: looked up, found, then refused 403 — no export run)
    right = f"Bearer {served.tokens['player']}"
    export = f"/tables/{served.table}/export?format=jsonl&as=gm"
    for start in range(0, 10_050, 50):
        answers = await asyncio.gather(*(
            http_get(served.port, export, via(f"2001:db8:77:{n:x}::1", Authorization=right))
            for n in range(start, start + 50)))  # fmt: skip
        assert {status for status, _, _ in answers} == {403}
    # the guesser's penalty holds: its token is still refused unchecked
    status, _, body = await http_get(served.port, admin, via(guesser, Authorization=wrong))
    assert status == 429, body
    assert json.loads(body)["details"]["scope"] == "wrong_tokens"
    # the /64s of another /48: ten wrong tokens in all (1 × 10), one each, then none
    site = "2001:db8:88::/48"
    for n in range(10):
        await guess(served, f"2001:db8:88:{n:x}::1", n % 3)
    status, headers, body = await http_get(
        served.port, admin, via("2001:db8:88:ab::1", Authorization=wrong)
    )
    refusal = json.loads(body)
    assert status == 429 and int(headers["retry-after"]) >= 1, refusal
    assert refusal["details"]["network"] == site and refusal["details"]["scope"] == "wrong_tokens"
    assert 0 < refusal["details"]["retry_after"] <= 60  # one more a minute for the /48
    assert f"this address's network {site} (all its IPv6 /64s together)" in refusal["message"]
    ws = await behind(served, "2001:db8:88:cd::1")  # a right token from a fresh /64 too
    refused = await ask(ws, hello(served, "gm"))
    assert refused["code"] == "rate_limited" and refused["details"]["network"] == site
    assert await closed_with(ws) == 1013
    # another /48 and IPv4 clients: their right tokens are let in, their wrong ones checked
    for address in ("2001:db8:99:1::1", "203.0.113.7"):
        ws = await behind(served, address)
        assert (await ask(ws, hello(served, "player")))["type"] == "welcome"
        await ws.close()
        await guess(served, address, 0)
    assert await metric(served, 'rollbridge_throttled_total{limit="wrong_tokens_48"}') == 2
    assert await metric(served, 'rollbridge_throttled_total{limit="wrong_tokens"}') == 2
    log = served.log_text()
    assert (
        "refused a token from 2001:db8:88:ab::/64 without checking it: too many wrong tokens "
        f"from its IPv6 /48 {site}, all its /64s together (10, --wrong-tokens-per-address 1 × 10)"
    ) in log
