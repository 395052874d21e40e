"""benchmarks/bench_glue.py: the load it counts runs against the real server and the
bare baseline over real sockets, without valgrind here (the counts need valgrind and
are recorded in docs/performance.md, never asserted: speed is not a test), and its
reading of callgrind's files per thread is right."""

from __future__ import annotations

import asyncio

import pytest


@pytest.fixture(scope="module")
def bench(benchmark_script):
    return benchmark_script("bench_glue")


def test_both_servers_answer_every_pair_and_its_heals(bench):
    result = asyncio.run(bench.count(2, valgrind=None, warmup=1))
    assert (result["pairs"], result["warmup"]) == (2, 1)
    for kind in bench.SERVERS:
        entry = result[kind]
        assert entry["errors"] == {}
        assert entry["requests"] >= 4  # two pairs, and the heals they called for
        assert "loop_m_per_pair" not in entry  # nothing counted without valgrind
    assert result["baseline"]["requests"] == 4  # its guard never falls: no heals


def test_the_run_mode_prints_the_figures(bench, capsys):
    assert bench.main(["--run", "--pairs", "1", "--warmup", "0", "--server", "rollbridge"]) == 0
    out = capsys.readouterr().out
    assert '"rollbridge"' in out and '"baseline"' not in out


def test_callgrind_s_files_are_read_per_thread(bench, tmp_path):
    out = tmp_path / "callgrind.out"
    for thread, total in ((1, 5_000), (2, 700), (3, 11)):
        (tmp_path / f"callgrind.out-{thread:02d}").write_text(
            f"version: 1\ncreator: callgrind\nthread: {thread}\nevents: Ir\n"
            f"summary: {total}\n\nfn=(1) main\n0 {total}\n\ntotals: {total}\n"
        )
    assert bench._thread_counts(out) == {1: 5_000, 2: 700, 3: 11}
    assert not list(tmp_path.iterdir())  # read, then removed


def test_callgrind_s_files_can_be_kept_for_annotating(bench, tmp_path):
    out = tmp_path / "callgrind.out"
    (tmp_path / "callgrind.out-01").write_text("summary: 42\n")
    kept = tmp_path / "kept"
    kept.mkdir()
    assert bench._thread_counts(out, kept) == {1: 42}
    assert [p.name for p in kept.iterdir()] == ["callgrind.out-01"]  # moved, not removed
    assert not (tmp_path / "callgrind.out-01").exists()
