"""The problems of a Redis that would lose acknowledged changes, in the operator's
language (core/stores/redis_durability.py, core/cli/stores.py).

``serve`` refuses such a Redis, or with ``--redis-unsafe`` warns, listing each
setting's problem; the head and tail of that message were in ``--locale``, but the
problems ("Redis has appendonly no, needs yes: without the AOF …") were English in
every language, and so was the error of a Redis set to lose changes while serving.
They are catalogue texts now; ``details["problems"]``, what a script reads, lists them
in English as before.
"""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest
import redis

from rollbridge.cli.stores import refuse_unsafe_redis
from rollbridge.exceptions import StoreError, StoreUnavailable
from rollbridge.stores.redis import RedisStore
from rollbridge.stores.redis_durability import DurabilityWatch
from tests.stores.test_redis_serve import ENV, Serving, free_port

#: What Redis's ``appendonly no`` is, per locale: the problem's line.
PROBLEM = {
    "en": "Redis has appendonly no, needs yes: without the AOF a restart loses every change "
    "since the last snapshot",
    "cs": "Redis má appendonly no, potřebuje yes: bez AOF restart ztratí každou změnu od "
    "posledního snímku",
    "de": "Redis hat appendonly no, braucht yes: ohne die AOF verliert ein Neustart jede "
    "Änderung seit dem letzten Snapshot",
    "ru": "у Redis appendonly no, а нужно yes: без AOF перезапуск теряет все изменения с "
    "последнего снимка",
}
#: The end of the message's first line, per locale.
HEAD = {
    "en": "would lose acknowledged changes:",
    "cs": "by ztratil potvrzené změny:",
    "de": "würde bestätigte Änderungen verlieren:",
    "ru": "потеряет подтверждённые изменения:",
}


@pytest.fixture
def no_aof(redis_factory):
    """A Redis whose one problem is ``appendonly no`` (fsync always, no eviction)."""
    return redis_factory("--appendonly", "no", "--appendfsync", "always")


def _refusal(server, locale: str) -> StoreError:
    """What ``serve`` refuses the Redis ``server`` with (``--locale locale``)."""
    store = RedisStore(server.url)
    try:
        with pytest.raises(StoreError) as refused:
            refuse_unsafe_redis(store, argparse.Namespace(redis_unsafe=False), locale)
    finally:
        store.close()
    return refused.value


@pytest.mark.parametrize("locale", ["en", "cs", "de", "ru"])
def test_the_refusal_lists_the_problems_in_the_locale_and_details_in_english(no_aof, locale):
    refused = _refusal(no_aof, locale)
    lines = refused.render(locale).split("\n")
    assert lines[0].endswith(HEAD[locale]) and lines[1] == f"  - {PROBLEM[locale]}"
    assert len(lines) == 3 and "--redis-unsafe" in lines[2]
    assert refused.details == {"problems": [PROBLEM["en"]]}  # as a script reads it


@pytest.mark.parametrize("locale", ["en", "cs", "de", "ru"])
def test_the_refusal_says_how_to_fix_the_settings_so_that_a_restart_keeps_them(no_aof, locale):
    """It said "Fix its settings (docs/redis.md)": an operator who then fixed them with
    ``CONFIG SET`` alone had them forgotten at Redis's next restart, and Redis, started
    again without ``appendonly``, did not read its AOF and came back with no table (tried
    with a real redis-server)."""
    fix = _refusal(no_aof, locale).render(locale).split("\n")[2]
    for word in ("redis.conf", "redis-cli CONFIG SET", "CONFIG REWRITE", "AOF", "--redis-unsafe"):
        assert word in fix, (word, fix)
    assert (locale == "en") == ("a CONFIG SET alone is forgotten when Redis restarts" in fix)


@pytest.mark.parametrize("locale", ["en", "cs", "de", "ru"])
def test_the_refusal_says_how_to_keep_them_on_a_redis_run_without_a_redis_conf(no_aof, locale):
    """A Redis started with its settings on its command line (as this one, and as
    Docker's redis image runs it) has no file for ``CONFIG REWRITE`` to write: the
    advice of ``CONFIG SET`` and then ``CONFIG REWRITE`` ended in ``ERR The server is
    running without a config file``, and the fix was forgotten at the next restart."""
    admin = redis.Redis(port=no_aof.port)
    try:
        with pytest.raises(redis.ResponseError, match="without a config file"):
            admin.config_rewrite()
    finally:
        admin.close()
    fix = _refusal(no_aof, locale).render(locale).split("\n")[2]
    assert "CONFIG REWRITE" in fix
    assert "redis-server --appendonly yes --appendfsync always --maxmemory-policy noeviction" in fix


def test_serve_refuses_an_unsafe_redis_in_its_locale(no_aof):
    refused = subprocess.run(
        [sys.executable, "-m", "rollbridge", "serve", "--port", str(free_port()), "--redis",
         no_aof.url, "--no-demo", "--locale", "cs"],
        capture_output=True, text=True, timeout=30, env=ENV,
    )  # fmt: skip
    assert refused.returncode == 1
    lines = refused.stderr.splitlines()
    assert lines[0].startswith("rollbridge: error: store_error: ")
    assert lines[0].endswith(HEAD["cs"]) and lines[1] == f"  - {PROBLEM['cs']}", lines
    assert "Traceback" not in refused.stderr


@pytest.mark.parametrize("locale", ["de", "ru"])
def test_redis_unsafe_warns_in_the_locale(no_aof, locale):
    served = Serving(no_aof.url, "--redis-unsafe", "--locale", locale)
    err = served.stop().splitlines()
    (warning,) = [n for n, line in enumerate(err) if line.startswith("rollbridge: warning: ")]
    assert err[warning].endswith(HEAD[locale])
    assert err[warning + 1] == f"  - {PROBLEM[locale]}"


def test_a_redis_set_to_lose_changes_while_serving_is_said_in_the_reader_s_locale(
    redis_factory,
):
    server = redis_factory()
    client = redis.Redis.from_url(server.url)
    try:
        watch = DurabilityWatch(client, "redis://here", every=0)
        watch.check()  # durable
        client.config_set("appendonly", "no")
        with pytest.raises(StoreUnavailable) as refused:
            watch.check()
    finally:
        client.config_set("appendonly", "yes")
        client.close()
    assert refused.value.details == {"reason": "not_durable", "problems": [PROBLEM["en"]]}
    for locale in ("en", "cs", "de", "ru"):
        said = refused.value.render(locale)
        assert said.startswith("redis://here ") and f"({PROBLEM[locale]})" in said, said
        assert "--redis-unsafe" in said and (locale == "en") == ("nothing was" in said)
