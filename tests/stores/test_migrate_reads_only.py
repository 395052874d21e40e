"""``rollbridge migrate`` reads its ``--from`` file as the reading commands do
(:mod:`rollbridge.stores.sqlite_read`), to a real ``redis-server``: a ``-wal`` a killed
server left is read, not checkpointed into the file when ``migrate`` ends, and the
errors of a temporary copy name the file, not the copy."""

from __future__ import annotations

import json
import sqlite3
import tempfile
from contextlib import closing

import pytest

from rollbridge.stores.redis import RedisStore
from tests.cli.test_cli_read_only import _killed_with_a_wal, _new_table, _state
from tests.cli.test_upgrade_cli import _run


@pytest.mark.parametrize("shm", [True, False], ids=["with-shm", "wal-only"])
def test_migrate_leaves_a_killed_servers_file_and_wal_byte_for_byte(
    tmp_path, monkeypatch, redis_factory, shm
):
    """A ``-wal`` a SIGKILLed server left (with its ``-shm``, or copied without it):
    ``migrate`` read the file through an ordinary connection, whose close, the
    file's last, checkpointed the ``-wal`` into the file and removed it and the
    ``-shm`` (without the ``-shm``, it made one first). Now the files keep their
    bytes, and Redis still gets the killed server's last commits."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    db = tmp_path / "db" / "rollbridge.db"
    db.parent.mkdir()
    first, last = _killed_with_a_wal(db, commits=True)
    if not shm:
        db.with_name(db.name + "-shm").unlink()
    assert db.with_name(db.name + "-wal").stat().st_size > 4096
    before = _state(db.parent)
    redis = redis_factory()
    status, out, err = _run("migrate", "--from", str(db), "--to", redis.url, "--json")
    assert status == 0, err
    assert _state(db.parent) == before
    assert [t["table"] for t in json.loads(out)["tables"]] == [first, last]
    target = RedisStore(redis.url)
    try:
        assert "latest" in [t.name for t in target.list_tokens(last)]  # its last commit
    finally:
        target.close()
    assert list(temporary.iterdir()) == []


@pytest.mark.parametrize("locale", ["en", "cs", "de", "ru"])
def test_a_copy_migrate_cannot_bring_up_to_date_is_said_of_the_file(tmp_path, monkeypatch, locale):
    """A file whose version says 4 but which has schema 5's column already: its
    upgrade fails in ``migrate``'s temporary copy, and the error named the copy, a
    file in the temporary folder the operator never made. Now it names the file;
    the copy is gone and the file as it was."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    db = tmp_path / "db" / "rollbridge.db"
    db.parent.mkdir()
    _new_table(db, "Friday")
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA user_version = 4")
        conn.commit()
    before = _state(db.parent)
    status, out, err = _run(
        "migrate", "--from", str(db), "--to", "redis://127.0.0.1:9/0", "--locale", locale
    )
    assert (status, out) == (1, "")
    # the file's version and tables said as not matching (test_cli_read_only.py): of the file
    assert err.startswith("rollbridge: error: store_error: ") and f" {db} " in err, err
    assert "(duplicate column name: created)" in err
    assert "rollbridge-migrate-" not in err  # the copy's folder
    assert _state(db.parent) == before
    assert list(temporary.iterdir()) == []
