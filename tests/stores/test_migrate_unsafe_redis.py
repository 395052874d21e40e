"""``rollbridge migrate`` to a Redis whose settings would lose acknowledged changes
(no AOF, ``appendfsync`` other than ``always``): it moved the tables, said
``checksum ok`` of each and nothing else, and only the ``serve --redis`` after it
refused the Redis — while a restart of that Redis meanwhile lost every table moved.
Now it warns on stderr before it moves anything, naming each setting as ``serve``
does, and moves them all the same (the file stays as it was: the tables' copy). A
durable Redis is moved to without a word."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rollbridge.stores.redis import RedisStore
from tests.cli.test_cli_startup_locale import environment  # noqa: F401  (a fixture)
from tests.stores.test_migrate import run
from tests.stores.test_migrate_locale import many_tables

pytestmark = pytest.mark.usefixtures("environment")

#: Per locale: the start of the warning's line, and the AOF's problem line.
WARNED = {
    "en": ("rollbridge: warning: redis ", "would lose acknowledged changes, and the tables",
           "  - Redis has appendonly no, needs yes"),
    "ru": ("rollbridge: warning: redis ", "потеряет подтверждённые изменения, а с ними и",
           "  - "),
}  # fmt: skip


@pytest.mark.parametrize("locale", ["en", "ru"])
def test_migrate_to_a_redis_that_would_lose_them_warns_and_moves(
    tmp_path: Path, redis_factory, locale
):
    made = many_tables(tmp_path / "many.db")
    redis = redis_factory("--appendonly", "no", "--appendfsync", "everysec")
    status, out, err = run("migrate", "--from", str(tmp_path / "many.db"), "--to", redis.url,
                           "--json", "--locale", locale)  # fmt: skip
    assert status == 0, err
    report = json.loads(out)
    assert [t["table"] for t in report["tables"]] == made
    lines = err.splitlines()
    head, middle, problem = WARNED[locale]
    assert lines[0].startswith(head), err
    assert middle in lines[0], err
    assert f"{tmp_path / 'many.db'}" in lines[0], err
    assert "--redis-unsafe" in lines[0], err
    assert lines[1].startswith(problem) and "appendonly" in lines[1], err
    assert lines[2].startswith("  - ") and "appendfsync" in lines[2], err
    assert "1/12" in lines[3], err  # then the progress, as ever
    store = RedisStore(redis.url)
    try:
        assert sorted(t.id for t in store.tables()) == sorted(made)
    finally:
        store.close()


def test_migrate_to_a_durable_redis_says_nothing_of_it(tmp_path: Path, redis_factory):
    many_tables(tmp_path / "many.db")
    redis = redis_factory()
    status, _out, err = run("migrate", "--from", str(tmp_path / "many.db"), "--to", redis.url,
                            "--json")  # fmt: skip
    assert status == 0
    assert "warning" not in err
    assert err.splitlines()[0].startswith("rollbridge: 1/12"), err
