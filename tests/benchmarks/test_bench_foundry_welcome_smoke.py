"""benchmarks/bench_foundry_welcome.py runs at a tiny size: a Foundry GM's snapshot
welcome carries the NPCs' players' view and is larger for it, a recovered resume's
and any other member's carry none (the bytes are recorded in docs/foundry.md)."""

from __future__ import annotations

from rollbridge.adapters.foundry.adapter import FoundryAdapter


def test_a_foundry_gms_welcome_is_measured_with_and_without_the_players_view(benchmark_script):
    bench = benchmark_script("bench_foundry_welcome")
    wanted = FoundryAdapter.public_view
    (before,) = bench.main(["3", "--without-players"])
    assert FoundryAdapter.public_view == wanted, "the adapter is put back as it was"
    (after,) = bench.main(["3"])
    assert before["gm foundry json"][1] is False and after["gm foundry json"][1] is True
    assert after["gm foundry json"][0] > before["gm foundry json"][0]
    for key in ("gm foundry resume json", "gm rollbridge json", "player foundry json"):
        assert after[key] == before[key] and after[key][1] is False, key
