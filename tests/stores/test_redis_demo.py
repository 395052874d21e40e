"""The demo table over Redis is a first start's only, as on SQLite (docs/redis.md,
docs/operations.md "--no-demo"): ``serve --redis`` made one at every start that found
no table, so an operator who deleted every table on purpose got, at the next restart,
a new table with live tokens in the journal. A Redis is now marked when it is first
served (the ``served`` key), and one that held a table (the counter every table and
admin token made counts) is no first start either. Real ``redis-server`` processes."""

from __future__ import annotations

import json

from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores.redis import RedisStore
from rollbridge.tokens import new_admin_token
from tests.cli.test_serve_options import serve_printed
from tests.stores.test_redis_serve import cli


def printed_at_start(url: str, *options: str) -> list[str]:
    """What ``serve --redis URL`` prints up to its serving line, and after it until it
    is stopped with SIGTERM."""
    return serve_printed(["--redis", url, *options], last="rollbridge serving")


def demo_made(lines: list[str]) -> bool:
    return any(line.startswith("A demo table was created") for line in lines)


def test_a_redis_whose_tables_were_all_deleted_gets_no_demo_table(redis_factory):
    redis = redis_factory()
    first = printed_at_start(redis.url)  # an empty Redis: the demo table, once
    assert demo_made(first)
    (table,) = [line.split()[1] for line in first if line.startswith("  table ")]
    cli("table", "delete", table, "--redis", redis.url)
    assert cli("table", "list", "--redis", redis.url).stdout == "no tables\n"
    again = printed_at_start(redis.url)
    assert not demo_made(again), again
    assert again[0].startswith("rollbridge serving 0 tables")
    assert cli("table", "list", "--redis", redis.url).stdout == "no tables\n"


def test_a_redis_served_with_no_demo_or_used_before_gets_none_later(redis_factory):
    """As a database file that ``serve --no-demo``, ``table create`` or ``admin-token``
    made: a later start is no first one. A Redis an older rollbridge used has no
    ``served`` key, but the counter of the tables made in it."""
    served = redis_factory()
    assert not demo_made(printed_at_start(served.url, "--no-demo"))
    assert not demo_made(printed_at_start(served.url))
    used = redis_factory()
    made = json.loads(cli("table", "create", "--redis", used.url, "--ruleset", "sr2",
                          "--name", "Old", "--json").stdout)  # fmt: skip
    cli("table", "delete", made["id"], "--redis", used.url)
    assert not demo_made(printed_at_start(used.url))


def test_of_starts_on_one_empty_redis_one_is_the_first(redis_server, redis_prefix):
    """The mark and the check are one script: of processes starting at once on an empty
    Redis, one makes the demo table (each made its own before)."""
    stores = [RedisStore(redis_server.url, prefix=redis_prefix) for _ in range(3)]
    try:
        assert [store.claim_first_start() for store in stores] == [True, False, False]
    finally:
        for store in stores:
            store.close()


def test_a_table_or_admin_token_made_before_makes_no_first_start(redis_server, redis_prefix):
    with RedisStore(redis_server.url, prefix=redis_prefix + "t:") as store:
        info, _tokens = TableService(store, PluginHost()).create_table("T", "bandits")
        store.delete_table(info.id)
        assert store.tables() == [] and not store.claim_first_start()
    with RedisStore(redis_server.url, prefix=redis_prefix + "a:") as store:
        store.add_admin_token(new_admin_token("ops")[1])
        assert not store.claim_first_start()
