"""A Redis snapshot taken while ``serve --redis`` processes serve (``redis-cli --rdb``,
docs/redis.md "Backups"), restored as the docs say into a Redis of its own and moved
to a new SQLite file (``rollbridge migrate``, "Restoring it into a SQLite file"): the
operator's night of 7 December found the move refused ``redis_in_use`` — the
snapshot holds the serving processes' claims (``rb:processes``), which no process
renews there and which run out at their own time, three leases after the snapshot —
with nothing in the docs saying why, or that ``--processes-stopped`` is right for
a Redis nothing serves. The table comes back whole: its checksum as moved in."""

from __future__ import annotations

import shutil
import subprocess

from tests.stores.conftest import RedisServer
from tests.stores.test_migrate_back import back, claim
from tests.stores.test_migrate_back import on_redis as on_redis  # a fixture


def test_a_snapshot_taken_while_serving_moves_to_a_new_file(on_redis, tmp_path):
    _played, url = on_redis
    claim(url, "serve-live", 600)  # a process serving as the snapshot is taken
    port = url.rsplit(":", 1)[1].split("/")[0]
    snapshot = tmp_path / "night.rdb"
    taken = subprocess.run([shutil.which("redis-cli") or "redis-cli", "-p", port, "--rdb",
                            str(snapshot)], capture_output=True, text=True, timeout=60)  # fmt: skip
    assert taken.returncode == 0, taken.stderr
    folder = tmp_path / "restored"
    folder.mkdir()
    shutil.copy(snapshot, folder / "dump.rdb")
    # the docs' first step: the snapshot loaded without the AOF (one would start empty)
    restored = RedisServer(folder, "--appendonly", "no").start()
    try:
        db = tmp_path / "restored.db"
        status, _out, err = back(restored.url, db)
        assert status == 1 and "redis_in_use" in err and "serve-live" in err, err
        assert not db.exists()  # nothing made
        status, out, err = back(restored.url, db, "--processes-stopped")
        assert status == 0, err
        moved = [line for line in out.splitlines() if line.startswith("moved ")]
        assert moved and all(line.endswith("checksum ok") for line in moved), out
        assert {line.split()[1].rstrip(":") for line in moved} == {"mig", "other"}
    finally:
        restored.stop()
