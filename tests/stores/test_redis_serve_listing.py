"""``serve --redis URL`` past the first tables printed "… and N more (rollbridge
table list)": that command, run as printed, listed the default SQLite file's tables
(or said there was none), not the Redis server's. It names the server now, as
``--redis URL`` quoted for a shell, with the URL's password as ``***`` (never
printed): with the password typed in its place, it lists exactly the tables served."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys

from redis import Redis

from rollbridge.cli.serve import SHOWN_TABLES
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores.redis import RedisStore
from tests.cli.test_serve_options import ENV, serve_printed

PASSWORD = "s3cr3t-pw"


def test_the_tables_not_shown_are_listed_by_a_command_naming_this_redis(redis_factory):
    redis = redis_factory()
    with Redis(port=redis.port) as client:  # a password set once it answers (started so,
        client.config_set("requirepass", PASSWORD)  # the factory's PING would be refused)
    url = f"redis://:{PASSWORD}@127.0.0.1:{redis.port}/0"
    store = RedisStore(url)
    try:
        service = TableService(store, PluginHost())
        made = [service.create_table(f"G{n}", "bandits")[0].id for n in range(SHOWN_TABLES + 2)]
    finally:
        store.close()
    lines = serve_printed(["--redis", url, "--no-demo"], last="  … and")
    assert not any(PASSWORD in line for line in lines), lines
    more = next(line for line in lines if line.startswith("  … and"))
    shown = f"redis://:***@127.0.0.1:{redis.port}/0"
    assert more == f"  … and 2 more (rollbridge table list --redis '{shown}')\n"
    command = shlex.split(more.split("(rollbridge ", 1)[1].rsplit(")", 1)[0])
    assert command == ["table", "list", "--redis", shown]
    command[-1] = url  # the operator types the password where *** stands
    listed = subprocess.run([sys.executable, "-m", "rollbridge", *command, "--json"], env=ENV,
                            capture_output=True, text=True, timeout=60)  # fmt: skip
    assert listed.returncode == 0, listed.stderr
    assert sorted(t["id"] for t in json.loads(listed.stdout)) == sorted(made)
