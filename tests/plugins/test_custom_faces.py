"""A die the notation does not have, as the terminal shows it.

docs/plugins.md ("Dice") has a plugin record a Fate die as the d3 it is rolled with
and the value it counts for: ``Die(3, (face,), face - 2)``. ``rollbridge resolve``
(and ``connect``, which renders events the same way) showed the d3's faces, 1, 2
and 3, beside a total of the values: ``4dF: [1, 2, 3, 3] → 1``. It shows the
values now, as the web view and Foundry do; ``rollbridge verify`` still matches the
faces as rolled.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from rollbridge.cli.render import dice_line, render_event

FATELIKE = '''
import rollbridge
from rollbridge import ActionSpec, CommonState, Resolution, Ruleset
from rollbridge.dice import DiceGroup, Die


def fate_dice(dice):
    """4dF: four d3, a 1 counting -1, a 2 blank, a 3 +1 (docs/plugins.md, "Dice")."""
    faces = [dice.roll(3) for _ in range(4)]
    rolled = tuple(Die(3, (face,), face - 2) for face in faces)
    return DiceGroup("4dF", rolled, formula="4dF", total=sum(d.value for d in rolled))


class Fatelike(Ruleset):
    id = "fatelike"
    name = "Fate-like"
    version = "1.0.0"
    actions = {"roll": ActionSpec("roll", "Roll 4dF.", actor="none", example={})}

    def initial_state(self, sheet):
        return {}

    def resolve(self, context, dice):
        group = fate_dice(dice)
        return Resolution(f"{group.total:+d}", {"total": group.total}, dice=[group])

    def common_state(self, actor):
        return CommonState()


@rollbridge.hookimpl
def register_rulesets(register):
    register(Fatelike())
'''


def _fatelike(root: Path) -> None:
    """The plugin installed (a module and a dist-info with its entry point)."""
    (root / "rb_fatelike.py").write_text(textwrap.dedent(FATELIKE))
    info = root / "rb_fatelike-1.0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: rb_fatelike\nVersion: 1.0.0\n")
    (info / "entry_points.txt").write_text("[rollbridge]\nfatelike = rb_fatelike\n")


def test_resolve_shows_a_fate_dies_values_not_the_d3s_faces(tmp_path):
    _fatelike(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "rollbridge", "resolve", "fatelike", "roll", "--dice", "1,2,3,3"],
        capture_output=True, text=True, cwd=tmp_path, check=False,
        env={**os.environ, "PYTHONPATH": str(tmp_path), "LANGUAGE": "en"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "  4dF: [-1, 0, 1, 1] → 1\n" in done.stdout, done.stdout


def test_the_dice_line_shows_each_dies_value_and_a_compounded_dies_rolls():
    """The value of a die rolled once; a compounding die's rolls and their sum."""
    group = {
        "label": "4dF",
        "formula": "4dF",
        "total": -1,
        "dice": [
            {"faces": 3, "rolls": [1], "value": -1},
            {"faces": 3, "rolls": [1], "value": -1},
            {"faces": 3, "rolls": [2], "value": 0},
            {"faces": 3, "rolls": [3], "value": 1, "kept": False},
        ],
    }
    assert dice_line(group) == "4dF: [-1, -1, 0, (1)] → -1"
    clamped = {"formula": "2d6min3", "total": 9, "dice": [
        {"faces": 6, "rolls": [1], "value": 3, "tags": ["min"]},
        {"faces": 6, "rolls": [6, 6, 2], "value": 14, "tags": ["compounded", "success"]},
    ]}  # fmt: skip
    assert dice_line(clamped) == "dice 2d6min3: [3, 6+6+2=14*] → 9"
    event = {"seq": 4, "kind": "resolution", "data": {"dice": [group]}}
    assert "  4dF: [-1, -1, 0, (1)] → -1" in render_event(event).splitlines()
