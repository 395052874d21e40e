"""benchmarks/bench_instructions.py: the request mix it counts is deterministic — the
same pairs give the same frames and commits, byte for byte — and it exercises the
whole in-process path (a different number of pairs gives different bytes). The
instruction counts themselves need valgrind and are recorded in
docs/performance.md, never asserted: speed is not a test."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def bench(benchmark_script):
    return benchmark_script("bench_instructions")


def test_the_mix_makes_the_same_bytes_every_run(bench):
    first = bench.run_mix(3)
    assert first == bench.run_mix(3)
    assert len(first) == 64


def test_more_pairs_make_other_bytes(bench):
    assert bench.run_mix(3) != bench.run_mix(4)


def test_the_run_mode_prints_the_digest(bench, capsys):
    assert bench.main(["--run", "2"]) == 0
    assert capsys.readouterr().out.strip() == bench.run_mix(2)


def test_writing_the_commits_leaves_the_bytes_as_they_were(bench):
    """``--commit N`` writes each group commit for real (a refused commit would
    raise): the frames and commits are those of the mix without writing."""
    assert bench.run_mix(5, group=4) == bench.run_mix(5)


def test_the_mix_spread_over_tables_writes_each_table_s_own_log(bench):
    spread = bench.run_mix(6, group=5, tables=3)
    assert spread == bench.run_mix(6, tables=3)
    assert spread != bench.run_mix(6)  # three tables' mixes, not one table's
    assert bench.main(["--run", "6", "--commit", "5", "--tables", "3"]) == 0


def test_the_mix_s_events_carry_a_time_as_the_server_s_do(benchmark_script, tmp_path):
    """The server gives its tables a clock (each event's ``at``, a float to pack);
    the in-process mix gives a fixed one, so its bytes stay the same every run."""
    server = benchmark_script("bench_server")
    from rollbridge.dice import SeededDice
    from rollbridge.engine import parse_request
    from rollbridge.stores import SQLiteStore

    host = server.make_host()
    server.seed_sqlite(tmp_path / "mix.db", 1, host)
    store = SQLiteStore(tmp_path / "mix.db")
    try:
        protocol, player, _gm, _members = server.open_mix_table(store, host)
        request = parse_request({**server.ROLL, "id": "r1"})
        outcome = protocol.table.execute(request, player, SeededDice(1))
    finally:
        store.close()
    assert [event.at for event in outcome.events] == [server.MIX_TIME]


def test_the_frames_digest_leaves_the_commits_out(bench, capsys):
    """``--frames``: a digest of the frames alone, which a change of what the store
    writes leaves as it was (docs/performance.md compares it across such a change)."""
    frames = bench.run_mix(3, frames_only=True)
    assert frames == bench.run_mix(3, group=2, frames_only=True) != bench.run_mix(3)
    assert bench.main(["--run", "3", "--frames"]) == 0
    assert capsys.readouterr().out.split() == [bench.run_mix(3), frames]


def test_the_commits_prepared_for_redis_leave_the_frames_as_they_were(bench, capsys):
    """``--redis`` makes each commit's script arguments (against the table's last
    commit) instead of SQLite's rows: other commit bytes, the same frames."""
    redis = bench.run_mix(4, redis=True)
    assert redis == bench.run_mix(4, redis=True)
    assert redis != bench.run_mix(4)
    assert bench.run_mix(4, redis=True, frames_only=True) == bench.run_mix(4, frames_only=True)
    assert bench.main(["--run", "2", "--redis"]) == 0
    assert capsys.readouterr().out.strip() == bench.run_mix(2, redis=True)
    with pytest.raises(SystemExit):
        bench.main(["--run", "2", "--redis", "--commit", "2"])
