"""benchmarks/bench_store_shapes.py runs on the store's own schema, and each shape it
compares differs from that schema exactly as its name says."""

from __future__ import annotations

import json
import pathlib
import sqlite3
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "bench_store_shapes.py"
sys.path.insert(0, str(SCRIPT.parent))

import bench_store_shapes  # noqa: E402
import pytest  # noqa: E402

from rollbridge.stores.sqlite import JOURNAL_SIZE_LIMIT  # noqa: E402


def test_shapes_follow_the_store_schema(tmp_path):
    found = bench_store_shapes.shapes(tmp_path)
    schema = found["schema"]
    assert any(s.startswith("CREATE TABLE log") for s in schema)
    assert any(s.startswith("CREATE TABLE replies") for s in schema)
    assert any("replies_by_seq" in s for s in schema)
    assert schema[0].startswith("CREATE TABLE tables")  # the foreign keys' target, first
    assert sum("REFERENCES tables(id)" in s for s in schema) == 2  # the log's, the replies'
    rowless = found["replies without rowid"]
    assert [s for s in rowless if s.endswith("WITHOUT ROWID")] == [
        s + " WITHOUT ROWID" for s in schema if s.startswith("CREATE TABLE replies")
    ]
    assert found["no replies_by_seq"] == [s for s in rowless if "replies_by_seq" not in s]
    assert not any("replies" in s for s in found["replies in the log row"])
    assert found["bare"] is None


def test_each_shape_is_written_with_the_stores_pragmas(tmp_path):
    """The shapes were written with foreign keys off (and none declared) and the
    statement journal on disk, the store's writes with both: what the reply rows'
    lookups of their table cost was left out of the schema's figure, and a batch's
    journal past 64 KiB spilled to a file in the shapes only."""
    pragmas = bench_store_shapes.store_pragmas(tmp_path)
    assert pragmas == {"foreign_keys": 1, "synchronous": 2, "temp_store": 2,
                       "journal_size_limit": JOURNAL_SIZE_LIMIT}  # fmt: skip
    conn = bench_store_shapes.connect(tmp_path / "shape.db", pragmas)
    for statement in bench_store_shapes.shapes(tmp_path)["schema"]:
        conn.execute(statement)
    for name, value in pragmas.items():
        assert conn.execute(f"PRAGMA {name}").fetchone()[0] == value, name
    with pytest.raises(sqlite3.IntegrityError):  # a log row of no table: refused, as the store's
        conn.execute("INSERT INTO log VALUES ('t-none', 1, 1, 1, x'', x'', x'', NULL)")
    conn.close()


def test_it_runs_and_reports_every_shape():
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--commits", "48", "--batch", "8", "--repeats", "1",
         "--json"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-4000:]
    figures = json.loads(result.stdout)
    assert set(figures["cpu_us"]) == {
        "schema", "replies without rowid", "no replies_by_seq", "replies in the log row",
        "bare", "commit_many",
    }  # fmt: skip
    assert figures["commits"] == 48 + 16  # and the actors' creations on 8 tables
    assert figures["ratio"]["bare"] == 1.0
    assert all(value > 0 for value in figures["cpu_us"].values())
