"""benchmarks/bench_locales.py runs at a tiny size and reports a figure per ruleset
and locale (the figures themselves are recorded in docs/performance.md, never
asserted: speed is not a test)."""

from __future__ import annotations


def test_every_ruleset_is_rendered_in_every_locale(benchmark_script, capsys):
    bench = benchmark_script("bench_locales")
    figures = bench.main(["--renders", "3", "--repeats", "1"])
    assert set(figures) == {"sr2", "techlevel", "bandits", "wilddie"}
    for per_locale in figures.values():
        assert set(per_locale) == {"en", "cs", "de", "ru"}
        assert all(value > 0 for value in per_locale.values())
    assert "(baseline)" in capsys.readouterr().out
