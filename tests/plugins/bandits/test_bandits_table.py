"""BD-5: each band of the harm table at both edges, and the table's texts."""

from __future__ import annotations

from pathlib import Path

import pytest

from rollbridge.plugins.bandits.table import BANDS, band_for

# (lowest total, highest total, wounds, the extra's text) as rulesets/bandits.md prints them.
ROWS = [
    (22, None, 7, "killed; identifiable only by DNA test"),
    (19, 21, 6, "killed, reduced to pulp"),
    (16, 18, 5, "killed on the spot"),
    (13, 15, 4, "killed or about to die"),
    (10, 12, 3, "killed or soon to die"),
    (7, 9, 2, "killed or knocked out"),
    (4, 6, 1, "wounded, or, if already wounded, killed or knocked out"),
    (None, 3, 0, "not even wounded (a bandit may take 1 wound instead of the trouble)"),
]


def _edges(low, high):
    """Both edges of a band; an open end is tested far out (−8, 30)."""
    return [-8 if low is None else low, 30 if high is None else high]


EDGES = [
    pytest.param(total, wounds, text, id=f"{total}->{wounds}")
    for low, high, wounds, text in ROWS
    for total in _edges(low, high)
]

SOURCES = Path(__file__).resolve().parents[3] / "docs" / "sources"
SEED = SOURCES / "seeds" / "003_8fbaf981da183405.txt"


def _harm_with_total(kit, total):
    """A dealing-harm roll on an unhurt extra that comes to exactly ``total``."""
    if total >= 2:
        first = min(6, total - 1)
        second = min(6, total - first)
        pierce = total - first - second
        dice, armour = [first, second], 0
    else:
        dice, pierce, armour = [1, 1], 0, 2 - total
    guard = kit.extra("guard", armour=armour)
    return kit.run("harm", {"direction": "dealt", "pierce": pierce}, dice=dice, targets=[guard])


@pytest.mark.parametrize(("total", "wounds", "text"), EDGES)
def test_BD5_band_edges_through_a_harm_roll(kit, total, wounds, text):
    result = _harm_with_total(kit, total)
    assert result.outcome["total"] == total
    assert result.outcome["table_wounds"] == wounds
    assert text in result.outcome["table_text"]
    assert result.outcome["table"]["extra_text"] == text
    assert result.outcome["table_text_ru"]  # the Russian original travels with it


def test_BD5_every_edge_is_covered():
    """8 bands × 2 edges; the closed edges are exactly the table's boundaries."""
    totals = sorted(p.values[0] for p in EDGES)
    assert totals == [-8, 3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 18, 19, 21, 22, 30]


@pytest.mark.parametrize("total", range(-10, 31))
def test_BD5_band_for_every_total(total):
    expected = next(w for low, high, w, _ in ROWS if (low is None or total >= low)
                    and (high is None or total <= high))  # fmt: skip
    assert band_for(total).wounds == expected


def test_BD5_range_labels():
    assert [b.label for b in BANDS] == [
        "22+", "19–21", "16–18", "13–15", "10–12", "7–9", "4–6", "3−",
    ]  # fmt: skip


def test_BD5_russian_texts_are_the_seeds_lines_verbatim():
    lines = SEED.read_text(encoding="utf-8").splitlines()
    for band in BANDS:
        assert band.text_ru in lines, band.text_ru


def test_BD5_russian_texts_match_the_wound_counts():
    for band in BANDS[:-1]:
        assert band.text_ru.split(": ", 1)[1].startswith(f"{band.wounds} ")
    assert BANDS[-1].text_ru.startswith("3- только неприятность")


def test_BD5_each_rows_text_is_its_range_wounds_and_extra_text():
    """A row's text (one message, for the steps and notes) says what its parts say."""
    for band in BANDS:
        data = band.to_dict()
        parts = f"{band.label}: {data['wounds_text']} (an extra: {data['extra_text']})"
        assert data["table_text"] == parts
        assert band.text.render() == parts
        assert band.wounds_text.render() == data["wounds_text"]
        assert band.extra_text.render() == data["extra_text"]
