"""The throttle of wrong tokens (``--wrong-tokens-per-address``) shared by two real
``rollbridge serve --redis`` processes on a real redis-server (docs/redis.md, "The
throttle of wrong tokens").

Before, each process counted its own: behind a load balancer spreading connections
over N processes, a guesser got N times the allowance (ten wrong tokens on one
process, ten more on the next). The processes count in Redis now: ten wrong tokens
on A and the eleventh on B is refused unread, admin and export tokens alike, the
/64s of one IPv6 /48 together. The clients connect from 127.0.0.1 through
``--trusted-proxy 127.0.0.1`` and name themselves in ``X-Forwarded-For``. Counts
only, no durations: the window is ten minutes, a test lasts seconds.
"""

from __future__ import annotations

import asyncio
import json
import time

import redis
from websockets.asyncio.client import connect

from tests.hostile.test_hostile_limits import closed_with
from tests.hostile.wire import ask, http_get
from tests.stores.cluster_harness import Cluster, Process

PROXIED = ("--trusted-proxy", "127.0.0.1")


def via(address: str, **headers: str) -> dict[str, str]:
    """The headers of a request the proxy passes on for ``address``."""
    return {"X-Forwarded-For": address, **headers}


async def join(process: Process, table: str, token: str, address: str) -> dict:
    """A ``hello`` with ``token`` from ``address`` on ``process``: its answer (a
    refused one's connection closed)."""
    ws = await connect(f"ws://127.0.0.1:{process.port}/", additional_headers=via(address))
    answer = await ask(ws, {"type": "hello", "id": "h", "table": table, "token": token})
    if answer["type"] == "welcome":
        await ws.close()
    else:
        answer["closed_with"] = await closed_with(ws)
    return answer


async def wrong_hello(process: Process, table: str, address: str) -> None:
    answer = await join(process, table, "rbt_guess", address)
    assert answer["code"] == "unauthorized" and answer["closed_with"] == 1008, answer


async def wrong_http(process: Process, table: str, address: str, admin: bool) -> int:
    """A wrong admin (or export) token from ``address``: the HTTP status."""
    path = "/admin/tables" if admin else f"/tables/{table}/export?format=jsonl"
    token = "rba_guess" if admin else "rbt_guess"
    headers = via(address, Authorization=f"Bearer {token}")
    return (await http_get(process.port, path, headers))[0]


async def until(check, what: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.05)


def test_ten_wrong_tokens_on_one_process_and_the_eleventh_on_another_is_refused(redis_factory):
    server = redis_factory()
    cluster = Cluster(server.url, 2, extra=PROXIED)  # the default: ten in ten minutes
    a, b = cluster.processes
    guesser, other = "203.0.113.7", "203.0.113.8"
    client = redis.Redis.from_url(server.url)

    async def play() -> None:
        for _ in range(9):
            await wrong_hello(a, cluster.table, guesser)
        # a right token on B gives back what it took: it does not pay for the wrong ones
        assert (await join(b, cluster.table, cluster.tokens["gm"], guesser))["type"] == "welcome"
        await wrong_hello(b, cluster.table, guesser)  # the tenth
        refused = await join(b, cluster.table, cluster.tokens["gm"], guesser)
        assert refused["code"] == "rate_limited", refused
        assert refused["details"]["scope"] == "wrong_tokens"
        assert 0 < refused["details"]["retry_after"] <= 60  # one more a minute
        assert refused["closed_with"] == 1013
        key = f"rb:wrong:{{{guesser}}}"
        assert 0 < client.pttl(key) <= 600_000 + 1  # gone when full again, at most the window
        again = await join(a, cluster.table, cluster.tokens["gm"], guesser)
        assert again["code"] == "rate_limited" and again["details"]["scope"] == "wrong_tokens"
        # another address's right token is let in on B, and costs nothing: no key left
        welcome = await join(b, cluster.table, cluster.tokens["player"], other)
        assert welcome["type"] == "welcome", welcome
        await until(lambda: not client.exists(f"rb:wrong:{{{other}}}"), "given back")

    try:
        logs = cluster.run(play)
    finally:
        client.close()
    assert "too many wrong tokens from that address" in logs


def test_the_64s_of_one_48_share_its_allowance_across_processes(redis_factory):
    """``--wrong-tokens-per-address 1``: a /48 may present ten, all its /64s on both
    processes together; five on each was under each process's own count."""
    server = redis_factory()
    cluster = Cluster(server.url, 2, extra=(*PROXIED, "--wrong-tokens-per-address", "1"))
    site = "2001:db8:88::/48"

    async def play() -> None:
        for n in range(10):
            process = cluster.processes[n % 2]
            await wrong_hello(process, cluster.table, f"2001:db8:88:{n:x}::1")
        for process in cluster.processes:
            refused = await join(process, cluster.table, cluster.tokens["gm"], "2001:db8:88:ab::1")
            assert refused["code"] == "rate_limited", refused
            assert refused["details"] == {
                "retry_after": refused["details"]["retry_after"],
                "scope": "wrong_tokens",
                "network": site,
            }
        # another /48 is not held up
        welcome = await join(cluster.processes[1], cluster.table, cluster.tokens["gm"],
                             "2001:db8:99:1::1")  # fmt: skip
        assert welcome["type"] == "welcome", welcome

    logs = cluster.run(play)
    assert f"from its IPv6 /48 {site}, all its /64s together" in logs


def test_admin_and_export_tokens_count_in_the_same_shared_bucket(redis_factory):
    server = redis_factory()
    cluster = Cluster(server.url, 2, extra=PROXIED)
    a, b = cluster.processes
    guesser = "198.51.100.9"

    async def play() -> None:
        for n in range(5):
            assert await wrong_http(a, cluster.table, guesser, admin=n % 2 == 0) == 401
        for n in range(5):
            assert await wrong_http(b, cluster.table, guesser, admin=n % 2 == 1) == 401
        # the eleventh, over HTTP on either process and in a hello
        headers = via(guesser, Authorization=f"Bearer {cluster.tokens['gm']}")
        path = f"/tables/{cluster.table}/export?format=jsonl"
        status, answer_headers, body = await http_get(a.port, path, headers)
        assert status == 429 and int(answer_headers["retry-after"]) >= 1, body
        assert json.loads(body)["details"]["scope"] == "wrong_tokens"
        assert await wrong_http(b, cluster.table, guesser, admin=True) == 429
        refused = await join(b, cluster.table, cluster.tokens["gm"], guesser)
        assert refused["code"] == "rate_limited" and refused["closed_with"] == 1013
        # a right export token of another address is served on B
        other = via("198.51.100.10", Authorization=f"Bearer {cluster.tokens['gm']}")
        assert (await http_get(b.port, path, other))[0] == 200

    cluster.run(play)


def test_redis_not_answering_fails_the_token_as_a_store_error_and_keeps_no_place(
    redis_factory,
):
    """Redis gone: a token cannot be looked up anyway; its hello is told
    ``store_error`` (the store's path, no traceback), an admin request 503, and the
    place each took in the process is given back: with ``--wrong-tokens-per-address
    1``, a second and a third are store errors too, not refusals."""
    server = redis_factory()
    cluster = Cluster(server.url, 2, extra=(*PROXIED, "--wrong-tokens-per-address", "1"))
    a, _b = cluster.processes

    async def play() -> None:
        server.kill()
        for _ in range(3):
            answer = await join(a, cluster.table, cluster.tokens["gm"], "203.0.113.70")
            assert answer["code"] == "store_error", answer
            status = await wrong_http(a, cluster.table, "203.0.113.70", admin=True)
            assert status == 503, status

    cluster.run(play)  # no traceback in any log


def test_the_script_counts_per_address_and_per_site_in_one_slot(redis_server, redis_prefix):
    """:class:`SharedWrongTokens` on its own: the buckets' arithmetic, in counts. A
    take refused takes nothing; a bucket full again is deleted; one not full expires
    when it would be full again (within the window); an address's key and its site's
    share one Redis Cluster slot."""
    import redis.asyncio as aioredis
    from redis.crc import key_slot

    from rollbridge.server.addresses import address_site
    from rollbridge.server.shared_tokens import SharedWrongTokens

    async def play() -> None:
        client = aioredis.Redis.from_url(redis_server.url)
        try:
            shared = SharedWrongTokens(client, redis_prefix, 3, 5, address_site)
            for _ in range(3):
                assert await shared.take("203.0.113.1") is None
            own, site = await shared.take("203.0.113.1")
            assert own is not None and 0 < own <= 200 and site is None  # 600 s / 3
            key = f"{redis_prefix}wrong:{{203.0.113.1}}"
            assert 0 < await client.pttl(key) <= 600_001
            await shared.give_back("203.0.113.1")
            assert await shared.take("203.0.113.1") is None  # the place given back
            # a right token of a fresh address leaves nothing behind
            assert await shared.take("203.0.113.2") is None
            await shared.give_back("203.0.113.2")
            assert not await client.exists(f"{redis_prefix}wrong:{{203.0.113.2}}")
            # five /64s of one /48: then its site lacks one, for a sixth /64 too
            for n in range(5):
                assert await shared.take(f"2001:db8:5:{n}::/64") is None
            own, site = await shared.take("2001:db8:5:9::/64")
            assert own is None and site is not None and 0 < site <= 120  # 600 s / 5
            keys, _numbers, named = shared.keys("2001:db8:5:9::/64")
            assert named == "2001:db8:5::/48"
            assert keys == [
                f"{redis_prefix}wrong:{{2001:db8:5::/48}}:2001:db8:5:9::/64",
                f"{redis_prefix}wrong:{{2001:db8:5::/48}}",
            ]
            assert {key_slot(k.encode()) for k in keys} == {key_slot(b"2001:db8:5::/48")}
            assert not await client.exists(keys[0])  # refused: nothing was added
        finally:
            await client.aclose()

    asyncio.run(play())


def test_a_shared_refusal_is_checking_only_for_this_process_s_tokens_being_checked():
    from rollbridge.protocol.limits import WrongTokens

    guard = WrongTokens(2)
    assert guard.present("203.0.113.1") is None  # this token, its place held here
    refusal = guard.held_refusal("203.0.113.1", 300.0, None)
    assert not refusal.checking and refusal.wait == 300.0  # others' places: not known here
    assert guard.present("203.0.113.1") is None  # one more being checked here
    refusal = guard.held_refusal("203.0.113.1", 300.0, None)
    assert refusal.checking and refusal.wait == 1.0


def test_right_tokens_at_once_on_one_process_are_never_told_of_wrong_ones(redis_factory):
    """Twelve right tokens at once from one address on one process, then twelve over
    HTTP, ``--wrong-tokens-per-address 3``: a right token gives its place here back at
    once and in Redis a moment later (in the background); a token let through here
    meanwhile must not be told of wrong tokens nobody sent (it waits for the places
    being given back), only ``checking`` (hello) or nothing (HTTP waits)."""
    server = redis_factory()
    cluster = Cluster(server.url, 2, extra=(*PROXIED, "--wrong-tokens-per-address", "3"))
    a = cluster.processes[0]
    address = "203.0.113.7"

    async def play() -> None:
        roles = ["gm", "player", "observer"] * 4
        for _ in range(3):  # rounds: the race between the give-back and the next take
            answers = await asyncio.gather(
                *(join(a, cluster.table, cluster.tokens[role], address) for role in roles)
            )
            for answer in answers:
                if answer["type"] != "welcome":
                    assert answer["details"]["scope"] == "checking", answer
        export = f"/tables/{cluster.table}/export?format=jsonl"
        right = via(address, Authorization=f"Bearer {cluster.tokens['gm']}")
        answers = await asyncio.gather(*(http_get(a.port, export, right) for _ in range(12)))
        # never told of wrong tokens: a 429 only if its wait for the checks of its
        # address ran out (MOST_WAIT, 5 s: seen on a machine loaded by a CI run)
        told = [json.loads(body)["details"] for status, _, body in answers if status == 429]
        assert all(details["scope"] == "checking" for details in told), told

    logs = cluster.run(play)
    assert "too many wrong tokens" not in logs
