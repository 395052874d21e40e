"""``migrate`` of a damaged file (found by the SQLite fuzzer's ``migrate``,
tests/hostile/test_fuzz_sqlite.py): every outcome is one typed line, and a table
that cannot be moved whole is refused before anything is written.

- A log row lost from the middle of a table's log: the move took only the unbroken
  run after it, while the table's undo and redo named events before it; Redis read
  the table back otherwise, and ``migrate`` reported a checksum mismatch — after
  writing the table. Now it is refused first (``store_error`` naming the table and
  the seqs), Redis left empty.
- A reply's key or seq of another kind (a blob): ``migrate`` ended with a traceback
  (``TypeError`` comparing it); now it is ``store_error`` naming the file and the
  column, as every other cell of another kind is.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest
import redis

from rollbridge.exceptions import StoreError
from rollbridge.stores.sqlite import SQLiteStore
from tests.cli.test_upgrade_cli import _run
from tests.upgrade_files import old_file

TABLE = "old-techlevel-098ce9eb"


@pytest.fixture
def upgraded(tmp_path):
    """The schema-5 fixture, brought up to date (as served)."""
    old = old_file("598451c", tmp_path / "db")
    SQLiteStore(old.path).close()
    return old.path


def _change(db, sql, *args):
    with closing(sqlite3.connect(db)) as conn:
        conn.execute(sql, args)
        conn.commit()


def test_a_log_row_lost_midway_is_refused_before_anything_is_written(
    upgraded, redis_server, monkeypatch
):
    monkeypatch.setenv("LANGUAGE", "en")
    # the row of seq 20, which the table's undo history names events before
    _change(upgraded, 'DELETE FROM log WHERE "table" = ? AND first <= 20 AND last >= 20', TABLE)
    url = redis_server.url.rsplit("/", 1)[0] + "/7"
    with redis.Redis.from_url(url) as client:
        client.flushdb()
        status, out, err = _run("migrate", "--from", str(upgraded), "--to", url, "--table", TABLE)
        assert (status, out) == (1, ""), out
        assert err.startswith(
            f"rollbridge: error: store_error: table {TABLE}: its undo and redo"
            " name events its stored log does not hold whole (seqs 1, 3, "
        ), err
        assert err.count("\n") == 1
        assert client.dbsize() == 0  # nothing written


@pytest.mark.parametrize("column", ["key", "seq"])
def test_a_reply_cell_of_another_kind_is_a_store_error(upgraded, column):
    _change(
        upgraded,
        f"UPDATE replies SET \"{column}\" = X'80' WHERE rowid = "
        '(SELECT min(rowid) FROM replies WHERE "table" = ?)',
        TABLE,
    )
    with SQLiteStore(upgraded) as store, pytest.raises(StoreError) as caught:
        for key in store.reply_keys(TABLE):
            store.reply(TABLE, key)
    said = caught.value.render("en")
    assert said.startswith(f"{upgraded}: replies.{column} is b'\\x80', not "), said
    assert caught.value.details["cell"] == f"replies.{column}"


@pytest.mark.parametrize("column", ["key", "seq"])
def test_migrate_of_a_reply_cell_of_another_kind_says_one_line(
    upgraded, column, redis_server, monkeypatch
):
    monkeypatch.setenv("LANGUAGE", "en")
    _change(
        upgraded,
        f"UPDATE replies SET \"{column}\" = X'80' WHERE rowid = "
        '(SELECT min(rowid) FROM replies WHERE "table" = ?)',
        TABLE,
    )
    url = redis_server.url.rsplit("/", 1)[0] + "/8"
    with redis.Redis.from_url(url) as client:
        client.flushdb()
        status, out, err = _run("migrate", "--from", str(upgraded), "--to", url, "--table", TABLE)
        assert (status, out) == (1, "")
        assert err.startswith(f"rollbridge: error: store_error: {upgraded}: replies."), err
        assert client.dbsize() == 0


@pytest.mark.parametrize("tables", [[], ["moz_places"]], ids=["empty", "foreign"])
def test_migrate_of_a_file_of_schema_version_0_is_no_database(tmp_path, tables):
    """An empty SQLite file, or another program's database (schema version 0, which
    rollbridge's never has): ``migrate --from`` said ``schema_version: … reads only
    version 6: serve the file once with this rollbridge if it is older`` — advice that
    ``serve`` then refuses (another program's), or follows by making an empty
    database. Now it is ``no_database``, as every other command says of such a file,
    the file as it was, Redis not written."""
    db = tmp_path / "other.sqlite"
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA user_version = 0")
        for name in tables:
            conn.execute(f"CREATE TABLE {name} (id INTEGER)")
        conn.commit()
    before = db.read_bytes()
    status, out, err = _run("migrate", "--from", str(db), "--to", "redis://127.0.0.1:1/0")
    assert (status, out) == (1, "")
    assert err.startswith(
        f"rollbridge: error: no_database: no database in {db}: it has schema version 0"
    ), err
    assert "check --from" in err and "serve the file once" not in err
    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.sqlite"]
