"""benchmarks/bench_odds.py runs (a two-formula grid, a few hundredths of a second)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

pytest.importorskip("icepool")
BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_odds.py"


def test_bench_odds_json(capsys, monkeypatch):
    spec = importlib.util.spec_from_file_location("bench_odds", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "GRID", [g for g in module.GRID if g[0] in ("3d6", "999d6")])
    assert module.main(["--seconds", "0.01", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    rows = {row["formula"]: row for row in report["rows"]}
    assert rows["3d6"]["ratio_p50"] > 0
    assert rows["999d6"].get("icepool_error") == "RecursionError" or rows["999d6"]["ratio_p50"]
    assert module.main(["--seconds", "0.01"]) == 0
    assert "3d6" in capsys.readouterr().out
