"""``rollbridge odds``: the table, JSON, the depth, errors, translations."""

from __future__ import annotations

import json
from fractions import Fraction

from rollbridge.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_prints_each_total_the_mean_and_nothing_cut(capsys):
    code, out, err = run(capsys, "odds", "2d6", "--locale", "en")
    assert code == 0 and not err
    lines = out.splitlines()
    assert lines[0].startswith("2d6: exact odds")
    assert lines[1].split() == ["total", "probability", "percent", "at", "least"]
    assert lines[7].split() == ["7", "1/6", "16.6667%", "58.3333%"]
    assert "mean: 7 (about 7)" in out
    assert "nothing cut off" in out


def test_depth_and_truncated_mass(capsys):
    code, out, _ = run(capsys, "odds", "1d6x", "--depth", "2", "--locale", "en")
    assert code == 0
    assert "at most 2 dice" in out.splitlines()[0]
    assert "cut off by the explosion depth: 1/216 (0.4630%)" in out


def test_json(capsys):
    code, out, _ = run(capsys, "odds", "1d6!!", "--depth", "1", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["formula"] == "1d6!!" and data["depth"] == 1
    assert data["truncated"] == "1/36"
    assert data["outcomes"][0] == {"total": 1, "probability": "1/6", "float": 1 / 6}
    assert sum(Fraction(o["probability"]) for o in data["outcomes"]) == Fraction(35, 36)


def test_long_fractions_are_shortened_unless_exact(capsys):
    _, out, _ = run(capsys, "odds", "30d6", "--locale", "en")
    assert "…" in out and "--exact" in out
    _, out, _ = run(capsys, "odds", "30d6", "--exact", "--locale", "en")
    assert "…" not in out
    assert f"1/{6**30}" in out


def test_errors_are_one_line(capsys):
    code, out, err = run(capsys, "odds", "3d", "--locale", "en")
    assert code == 1 and not out
    assert err.startswith("rollbridge: error: invalid_notation: invalid dice formula '3d'")
    code, _, err = run(capsys, "odds", "4d6x2=6", "--locale", "en")
    assert code == 1 and "dice_limit" in err and "not computed" in err
    code, _, err = run(capsys, "odds", "1d6x", "--depth", "1000", "--locale", "en")
    assert code == 1 and "invalid_request" in err


def test_translated(capsys):
    for locale, word in (("de", "Mittelwert"), ("cs", "průměr"), ("ru", "среднее")):
        code, out, _ = run(capsys, "odds", "1d4", "--locale", locale)
        assert code == 0
        assert word.lower() in out.lower()
