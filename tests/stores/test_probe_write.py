"""``Store.probe_write``: a write that changes nothing a table reads, refused as a
commit would be (the server tries it while changes fail, to see the store mended when
nobody sends a change: rollbridge.server.store_probe). Each store against its real
fault: a lock another program holds on SQLite, a full Redis (``noeviction``)."""

from __future__ import annotations

import os
import resource
import signal
import sqlite3

import pytest
import redis as redis_py

from rollbridge.engine.model import TableInfo
from rollbridge.exceptions import StoreUnavailable
from rollbridge.stores import SQLiteStore
from rollbridge.stores.redis import RedisStore
from rollbridge.stores.sqlite import SCHEMA_VERSION


def test_sqlite_probe_is_refused_while_another_program_holds_the_lock(tmp_path):
    path = tmp_path / "t.db"
    store = SQLiteStore(path, busy_timeout=0.2)
    try:
        store.probe_write()  # the file takes writes
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(StoreUnavailable) as refused:
            store.probe_write()
        assert refused.value.details["reason"] == "locked"
        other.execute("ROLLBACK")
        store.probe_write()
        assert other.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        other.close()
    finally:
        store.close()


def test_redis_probe_is_refused_while_redis_is_full(redis_factory):
    redis = redis_factory()
    store = RedisStore(redis.url)
    admin = redis_py.Redis.from_url(redis.url)
    try:
        store.probe_write()
        admin.config_set("maxmemory", int(admin.info("memory")["used_memory"]))
        with pytest.raises(StoreUnavailable):
            store.probe_write()
        admin.config_set("maxmemory", 0)
        store.probe_write()
        assert 0 < admin.pttl("rb:probe") <= 60_000  # it expires: nothing is left for good
    finally:
        admin.close()
        store.close()


def test_sqlite_probe_keeps_the_schema_version_the_file_has(tmp_path):
    """The probe writes the file's own schema version back, not this rollbridge's: a
    newer rollbridge's ``migrate`` may have brought the file on while this server ran,
    and writing the older number over it would make the next start migrate it again."""
    path = tmp_path / "t.db"
    store = SQLiteStore(path)
    try:
        other = sqlite3.connect(path, isolation_level=None)
        other.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        store.probe_write()
        assert other.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
        other.close()
    finally:
        store.close()


def test_sqlite_probe_is_refused_while_a_commit_still_finds_no_room(tmp_path):
    """A commit that met the file size limit (``ulimit -f``; a full disk alike) had
    already grown the ``-wal`` up to it: a probe of one page, written in that space,
    succeeded and ended an outage that was not over — the next commit failed again.
    The probe also needs room for the ``-wal`` as it is and 1 MiB more."""
    db = tmp_path / "t.db"
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the limit is for this process only
        code = 1
        try:
            os.close(read)
            store = SQLiteStore(db)
            store.create_table(TableInfo("a", "A", "tally", "1.2.0"), [])
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            wal = db.with_name(db.name + "-wal")
            limit = max(db.stat().st_size, wal.stat().st_size) + 6000
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
            said = []
            for n in range(3):
                for attempt in ("commit", "probe"):
                    try:
                        if attempt == "commit":
                            big = TableInfo(f"b{n}", "B" * 40_000, "tally", "1.2.0")
                            store.create_table(big, [])
                        else:
                            store.probe_write()
                        said.append(f"{attempt} written")
                    except StoreUnavailable as refused:
                        said.append(f"{attempt} refused {refused.details['reason']}")
            os.write(write, "\n".join(said).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read) as answer:
        said = answer.read().splitlines()
    assert os.waitpid(pid, 0)[1] == 0
    assert said == ["commit refused io", "probe refused io"] * 3, said
    assert not db.with_name(db.name + "-probe").exists()  # nothing left beside the file
