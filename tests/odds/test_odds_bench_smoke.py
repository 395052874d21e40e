"""benchmarks/bench_odds.py runs (a two-formula grid, a few hundredths of a second)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("icepool")


def test_bench_odds_json(benchmark_script, capsys, monkeypatch):
    module = benchmark_script("bench_odds")
    monkeypatch.setattr(module, "GRID", [g for g in module.GRID if g[0] in ("3d6", "999d6")])
    assert module.main(["--seconds", "0.01", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    rows = {row["formula"]: row for row in report["rows"]}
    assert rows["3d6"]["ratio_p50"] > 0
    assert rows["999d6"].get("icepool_error") == "RecursionError" or rows["999d6"]["ratio_p50"]
    assert module.main(["--seconds", "0.01"]) == 0
    assert "3d6" in capsys.readouterr().out


def test_bench_action_odds_json(benchmark_script, capsys, monkeypatch):
    module = benchmark_script("bench_action_odds")
    chosen = [g for g in module.GRID if g[:2] in (("bandits", "move"), ("sr2", "attack"))][:2]
    monkeypatch.setattr(module, "GRID", chosen)
    assert module.main(["--runs", "3", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [(r["ruleset"], r["action"]) for r in rows] == [g[:2] for g in chosen]
    assert all(r["odds_p99_ms"] >= r["odds_p50_ms"] > 0 and r["ratio_p50"] > 0 for r in rows)
