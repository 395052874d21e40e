"""TL-4: the whole 5×5 TL table, cell by cell, as the seed prints it."""

from __future__ import annotations

import pytest

from rollbridge.plugins.techlevel.tl import apply_tl, tl_factor

# Copied from the seed: rows are the weapon's TL, columns the armour's TL.
SEED_TABLE = [
    ["x1", "/2", "/3", "/4", "/5"],
    ["x2", "x1", "/2", "/3", "/4"],
    ["x3", "x2", "x1", "/2", "/3"],
    ["x4", "x3", "x2", "x1", "/2"],
    ["x5", "x4", "x3", "x2", "x1"],
]
CELLS = [
    (weapon, layer, SEED_TABLE[weapon - 1][layer - 1])
    for weapon in range(1, 6)
    for layer in range(1, 6)
]


def _expected(cell: str, roll: int) -> int:
    n = int(cell[1:])
    return roll * n if cell[0] == "x" else roll // n


IDS = [f"weapon{w}-armour{a}" for w, a, _ in CELLS]


@pytest.mark.parametrize(("weapon", "layer", "cell"), CELLS, ids=IDS)
def test_TL4_table_cell(tl, make_shield, weapon, layer, cell):
    """TL-4: the cell's factor, and the boxes a hit crosses on a layer of that TL."""
    factor = tl_factor(weapon, layer)
    assert str(factor).replace("×", "x") == cell
    for roll in range(0, 13):
        assert apply_tl(roll, weapon, layer) == _expected(cell, roll)
    # through the ruleset: a roomy shield of the layer's TL takes the hit
    target = tl.actor(worn=[make_shield("Test shield", boxes=1000, tl=layer)])
    for roll in (1, 4, 6):
        result = tl.hit(target, "1d6", tl=weapon, rolled=[roll])
        assert result.outcome["layer"] == "shield"
        assert result.outcome["factor"].replace("×", "x") == cell
        assert result.outcome["crossed"] == _expected(cell, roll)
        assert result.states["t"]["shield"]["crossed"] == _expected(cell, roll)


def test_TL4_table_has_25_cells():
    assert len(CELLS) == 25
    assert {(w, a) for w, a, _ in CELLS} == {(w, a) for w in range(1, 6) for a in range(1, 6)}


@pytest.mark.parametrize(("weapon", "layer"), [(0, 1), (6, 1), (1, 0), (1, 6), (True, 1)])
def test_TL4_out_of_range_tl_is_an_error(weapon, layer):
    with pytest.raises(ValueError):
        tl_factor(weapon, layer)
