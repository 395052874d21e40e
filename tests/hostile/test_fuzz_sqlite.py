"""The commands that read a SQLite file fuzzed with hostile files
(tests/hostile/sqlite_fuzzing.py): whatever the file holds, the exit status is 0 or
1, an error is one line with a documented code (a ``store_error`` naming the file or
the table), never ``internal`` nor a traceback, and a refused command wrote nothing.
``migrate`` (to a real redis-server, emptied before each example) writes nothing to
the file either way; ``serve`` starts and stops cleanly, or refuses so.

Reproducible (``derandomize=True``, no example database) and bounded:
``ROLLBRIDGE_FUZZ_EXAMPLES`` examples (default 25, each one damaged file and one
command); run it longer with e.g. ``ROLLBRIDGE_FUZZ_EXAMPLES=3000``, and with
``ROLLBRIDGE_FUZZ_SEED=N`` on other files.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rollbridge.stores.sqlite import SCHEMA_TABLES, SCHEMA_VERSION, SQLiteStore
from tests.hostile.cli_fuzzing import cli_codes, run_cli
from tests.hostile.fuzzing import fuzzed
from tests.hostile.sqlite_fuzzing import Reader, commands, damage, make_store, migrate_command
from tests.stores.conftest import REDIS_SERVER, RedisServer


@pytest.fixture(scope="module")
def reader(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Reader]:
    """The night's file, and what runs commands on damaged copies of it."""
    night = make_store(Path(tmp_path_factory.mktemp("night")))
    found = Reader(night, Path(tmp_path_factory.mktemp("hostile")), cli_codes())
    yield found
    print(f"ran {found.runs} commands on damaged files: {sorted(found.outcomes.items())}")
    print(f"what each code said (one of each): {sorted(found.said.items())}")


def test_every_command_reads_the_undamaged_file(reader):
    for table in ("sr2", "bandits"):
        for argv in (["table", "list"], ["table", "export", table, "--as", "gm", "--format",
                     "jsonl"], ["table", "stats", table], ["table", "tokens", table]):  # fmt: skip
            status, _out, err = run_cli([*argv, "--db", str(reader.db)])
            assert status == 0, (argv, err)


@fuzzed(25)
@given(data=st.data())
def test_a_hostile_file_is_refused_in_one_line_and_not_written(reader, data):
    path = reader.copy()
    changes = damage(data, path)
    reader.check(commands(data, path, reader.folder), path, changes)


@pytest.fixture(scope="module")
def redis_target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A redis-server of the module's own for ``migrate`` (its URL), stopped after."""
    if not Path(REDIS_SERVER).exists():
        pytest.skip("redis-server is not installed (Debian: apt-get install redis-server)")
    server = RedisServer(Path(tmp_path_factory.mktemp("redis"))).start()
    try:
        yield server.url
    finally:
        server.stop()


@fuzzed(15)
@given(data=st.data())
def test_migrate_of_a_hostile_file_is_refused_in_one_line_and_reads_only(
    reader, redis_target, data
):
    import redis

    with redis.Redis.from_url(redis_target) as client:
        client.flushall()  # each example moves to an empty Redis
    path = reader.copy()
    changes = damage(data, path)
    reader.check(migrate_command(data, path, redis_target), path, changes)


@fuzzed(12)
@given(data=st.data())
def test_serve_of_a_hostile_file_starts_cleanly_or_refuses_in_one_line(reader, data):
    path = reader.copy()
    changes = damage(data, path)
    reader.check_serve(path, changes)


def test_serve_of_an_empty_file_stamped_with_the_schema_version_writes_nothing(reader, tmp_path):
    """The seed's example: the file cut to nothing, then its version set to the
    current schema's — a SQLite file of no tables. ``serve`` refuses it in one line
    (``store_error``, no such table), but had switched it to WAL mode first: the
    store now finds the version's tables missing before it writes anything."""
    path = tmp_path / "stamped.db"
    path.touch()
    with closing(sqlite3.connect(path)) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.commit()
    assert reader.check_serve(path, ["cut at byte 0", f"version {SCHEMA_VERSION}"]) == 1


def test_the_schemas_tables_are_a_new_files(tmp_path):
    """``SCHEMA_TABLES``, which a file of the current version is checked for before
    anything is written, is what a new store makes."""
    SQLiteStore(tmp_path / "new.db").close()
    with closing(sqlite3.connect(tmp_path / "new.db")) as conn:
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        assert {name for (name,) in rows} == SCHEMA_TABLES
