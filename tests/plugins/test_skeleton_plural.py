"""The package ``rollbridge new-plugin`` writes shows a count before a noun the way
docs/plugins.md asks for one ("Languages"): a plural message, ``say.plural``, which
its catalogues translate in every form. It had none, and an author writing a third
ruleset from the skeleton and the guide (author29) found the way to a plural — the
declaration, the ``msgstr[n]`` of each form — in the guide alone."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from rollbridge.skeleton import write_skeleton
from rollbridge.testing import RulesetHarness
from rollbridge.text import message


def test_the_skeletons_wounds_left_is_a_plural_message(tmp_path: Path) -> None:
    write_skeleton("plural29", tmp_path / "plural29")
    sys.path.insert(0, str(tmp_path / "plural29"))
    try:
        ruleset = importlib.import_module("rollbridge_plural29.ruleset").Plural29()
    finally:
        sys.path.remove(str(tmp_path / "plural29"))
        for name in [name for name in sys.modules if name.startswith("rollbridge_plural29")]:
            del sys.modules[name]
    declared = message("plural29.condition.left")
    assert declared is not None and declared.plural is not None, declared
    table = RulesetHarness(ruleset)
    table.add_actor("Hero", {"skill": 4}, actor_id="hero", player=True)
    said = []
    for _ in range(2):
        table.resolve("test", actor="hero", dice=[6])  # 6 is not under 4: a wound
        said.append(table.actor("hero")["common"]["conditions"])
    assert said == [["2 wounds before falling"], ["1 wound before falling"]]
