"""``rollbridge migrate`` of a file an older rollbridge wrote (``tests/upgrade_files.py``)
to a real ``redis-server``: an older schema is brought up to date in a temporary copy
(the file itself is only read), and every table reaches Redis whole and verified."""

from __future__ import annotations

import hashlib
import io
import sqlite3
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from rollbridge.cli import main
from rollbridge.stores.redis import RedisStore
from rollbridge.stores.sqlite import SCHEMA_VERSION
from tests.upgrade_files import VERSIONS, old_file


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


def _files(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()}


@pytest.mark.parametrize("commit", VERSIONS)
def test_an_old_file_moves_to_redis_as_it_is(commit, tmp_path, redis_factory):
    old = old_file(commit, tmp_path / "old")
    redis = redis_factory()
    _migrates_reading_only(old, redis.url)
    target = RedisStore(redis.url)
    try:
        for ruleset, meta in old.tables.items():
            snapshot, _ = target.load(meta["table"])
            assert snapshot.info.seq == meta["seq"], ruleset
            ids = [a["id"] for a in meta["actors"]["gm"]]
            assert list(snapshot.actors) == ids, ruleset
    finally:
        target.close()


def test_a_file_of_a_newer_schema_is_refused_naming_it(tmp_path):
    """A file a newer rollbridge wrote: ``migrate`` told the operator to "serve the
    file once with this rollbridge if it is older" (only a newer file is refused, and
    ``serve`` refuses it too); now it says what every other command says of it, with
    its own code, in the reader's language."""
    old = old_file(VERSIONS[-1], tmp_path)
    with sqlite3.connect(old.path) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    status, out, err = _run("migrate", "--from", str(old.path), "--to", "redis://127.0.0.1:1/0")
    assert (status, out) == (1, "")
    assert err == (
        f"rollbridge: error: schema_version: {old.path} has schema version {SCHEMA_VERSION + 1},"
        f" newer than this rollbridge's {SCHEMA_VERSION}: upgrade rollbridge\n"
    )
    status, _, err = _run("migrate", "--from", str(old.path), "--to", "redis://127.0.0.1:1/0",
                          "--locale", "de")  # fmt: skip
    assert status == 1 and "neuer als" in err and "schema_version" in err, err


@pytest.mark.parametrize("commit", [VERSIONS[0], VERSIONS[1]])
def test_an_old_file_in_wal_mode_is_read_from_a_copy(commit, tmp_path, redis_factory):
    """The fixtures are in rollback-journal mode, which migrate reads from a copy
    anyway; a stopped old server leaves its file in WAL mode, which migrate opens in
    place unless the schema is older: it must still be only read."""
    old = old_file(commit, tmp_path / "old")
    with sqlite3.connect(old.path) as conn:  # as the old server left it
        assert conn.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    assert version < SCHEMA_VERSION
    _migrates_reading_only(old, redis_factory().url)


def test_a_failed_upgrade_of_the_copy_leaves_no_copy_behind(tmp_path, monkeypatch):
    """An old file whose schema cannot be brought up to date (a record cut short) is
    refused; the temporary copy it was read from is gone at once, not when the
    garbage collector finds it (with a ResourceWarning), and the file is untouched."""
    import tempfile

    from rollbridge.exceptions import StoreError
    from rollbridge.stores.migrate import SQLiteSource

    old = old_file(VERSIONS[0], tmp_path / "old")
    with sqlite3.connect(old.path) as conn:
        conn.execute("UPDATE actors SET record = x'c1' WHERE id = 'a0'")
    before = _files(old.path.parent)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    with pytest.raises(StoreError) as failed:
        SQLiteSource(old.path)
    assert list(scratch.iterdir()) == [], failed.value
    assert _files(old.path.parent) == before


def _migrates_reading_only(old, url: str) -> None:
    """``rollbridge migrate`` moves every table of ``old`` to the Redis at ``url``,
    checksums matching, and only reads the file: its folder and schema unchanged."""
    with sqlite3.connect(old.path) as conn:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    before = _files(old.path.parent)
    status, out, err = _run("migrate", "--from", str(old.path), "--to", url)
    assert status == 0, err
    assert out.count("checksum ok") == len(old.tables), out
    assert _files(old.path.parent) == before  # only read: not migrated in place
    with sqlite3.connect(old.path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == version
