"""The admin API of a ``serve --redis`` process whose Redis refuses writes (out of
memory: ``maxmemory`` set below what it holds, ``noeviction``), on a real
redis-server (rev25r's review of ``for_admin``, rollbridge.server.admin; docs/redis.md).

Every route that writes answers 503 with ``store_error`` and the store's
``reason``, a message in each of the four languages (the table named where the
store's error names one; not here: the whole store refuses, and the answer says so —
``details.about`` ``store``, the message naming the route asked for) and none of the
store's words: no Redis address or port, no key, no Redis reply; the operator's log
has them (a WARNING). Nothing is written. The reads (a table's list, its tokens)
still answer, as Redis still reads. (Before the merge of redis25 the body carried the
store's message: Redis's address, its reply.) Redis stopped: every route, reads too,
answers so (``reason`` ``unreachable``).

Left by the last session: a whole-store failure's answer named no table and nothing
else — "the store failed; …", ``details`` the ``reason`` alone — so an admin could
not tell it from a table's failure whose table was left out.
"""

from __future__ import annotations

import asyncio
import json
import logging
import urllib.error
import urllib.request
from typing import Any

import pytest

from rollbridge.offline import TableService
from rollbridge.server.cluster import ClusterServer
from rollbridge.stores.redis import RedisStore
from rollbridge.tokens import new_admin_token
from tests.dice.test_verifiable_dice import HOST
from tests.server.conftest import TEST_LIMITS

#: Each route that writes: method, path (after /admin/).
WRITES = [
    ("POST", "tables?name=New&ruleset=bandits"),
    ("DELETE", "tables/t"),
    ("POST", "tables/t/tokens?role=player&name=Bo"),
    ("DELETE", "tables/t/tokens/TOKEN"),
]


def _admin(port: int, method: str, path: str, secret: str, locale: str) -> tuple[int, str]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/admin/{path}",
        method=method,
        headers={"Authorization": f"Bearer {secret}", "Accept-Language": locale},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_a_redis_refusing_writes_is_told_to_an_admin_without_its_words(
    redis_factory: Any, caplog: pytest.LogCaptureFixture
) -> None:
    redis = redis_factory()
    store = RedisStore(redis.url, writer="test")
    try:
        _info, _tokens = TableService(store, HOST).create_table("T", "bandits", table_id="t")
        secret, record = new_admin_token("ops")
        store.add_admin_token(record)
        token = store.list_tokens("t")[0].id
    finally:
        store.close()
    caplog.set_level(logging.INFO)

    async def play() -> tuple[list[tuple[str, str, int, dict]], list[int]]:
        server = ClusterServer(RedisStore(redis.url, writer="node-a"), HOST, port=0,
                               redis_url=redis.url, limits=TEST_LIMITS)  # fmt: skip
        await server.start()
        said = []
        try:
            assert server.redis is not None
            await server.redis.config_set("maxmemory-policy", "noeviction")
            await server.redis.config_set("maxmemory", 1)  # every write refused: OOM
            for locale in ("en", "cs", "de", "ru"):
                for method, path in WRITES:
                    path = path.replace("TOKEN", token)
                    status, body = await asyncio.to_thread(
                        _admin, server.port, method, path, secret, locale
                    )
                    said.append((locale, path, status, json.loads(body)))
            reads = [
                (await asyncio.to_thread(_admin, server.port, "GET", p, secret, "de"))[0]
                for p in ("tables", "tables/t/tokens")
            ]
            await server.redis.config_set("maxmemory", 0)
            redis.stop()  # Redis gone: the reads fail too
            for locale in ("en", "cs", "de", "ru"):
                for method, path in [("GET", "tables"), *WRITES[:1]]:
                    status, body = await asyncio.to_thread(
                        _admin, server.port, method, path, secret, locale
                    )
                    gone.append((locale, method, path, status, json.loads(body)))
        finally:
            await server.stop()
            server.store.close()
        return said, reads

    gone: list[tuple[str, str, str, int, dict]] = []
    said, reads = asyncio.run(play())
    assert reads == [200, 200]
    words = ("127.0.0.1", str(redis.port), "rb:", "OOM", "maxmemory", "redis://")
    routes = {path: method for method, path in WRITES}
    for locale, path, status, body in said:
        assert status == 503, (locale, path, body)
        assert body["code"] == "store_error", body
        # the whole store refuses: no table is its cause, none named; the answer says
        # it is about the store, and names the route (before: the reason alone)
        assert body["details"] == {"reason": "out_of_memory", "about": "store"}, body
        route = f"{routes.get(path, 'DELETE')} /admin/{path.partition('?')[0]}"
        assert body["message"].startswith(f"{route}: "), (locale, body)
        text = json.dumps(body, ensure_ascii=False)
        assert not any(word in text for word in words), (locale, path, body)
    messages = {locale: {b["message"] for loc, _p, _s, b in said if loc == locale}
                for locale in ("en", "cs", "de", "ru")}  # fmt: skip
    assert len({frozenset(m) for m in messages.values()}) == 4  # each its own language
    assert len(gone) == 8
    for locale, method, path, status, body in gone:
        assert status == 503, (locale, path, body)
        assert body["code"] == "store_error", body
        assert body["details"] == {"reason": "unreachable", "about": "store"}, body
        route = f"{method} /admin/{path.partition('?')[0]}"
        assert body["message"].startswith(f"{route}: "), (locale, body)
        assert not any(word in json.dumps(body) for word in words), (locale, path, body)
    assert len({b["message"] for *_, b in gone if b}) == 8  # two routes, four languages
    redis.start()  # on its folder: what was stored is there
    assert "OOM" in caplog.text or "maxmemory" in caplog.text  # the operator's log has it
    store = RedisStore(redis.url, writer="test")
    try:
        assert [t.id for t in store.tables()] == ["t"]  # nothing written
        assert token in [t.id for t in store.list_tokens("t")]
    finally:
        store.close()
