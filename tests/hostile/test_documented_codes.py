"""Every error code a ruleset can send is in its docs: a client is told the list of
codes (docs/protocol.md, "Error codes": "`rule_violation` and ruleset codes … see
each ruleset's docs"), and the fuzzer (tests/hostile/fuzzing.py) holds every answer
to it. The example plugin's ``heal`` of an unhurt target was answered ``not_hurt``,
which its README did not name (found by the fuzzer, seed 2)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.hostile.verify_fuzzing import mismatch_codes

ROOT = Path(__file__).resolve().parents[2]
#: Each ruleset's sources and the document that lists its codes.
RULESETS = {
    "sr2": (ROOT / "plugins" / "sr2", ROOT / "docs" / "rulesets" / "sr2.md"),
    "techlevel": (ROOT / "plugins" / "techlevel", ROOT / "docs" / "rulesets" / "techlevel.md"),
    "bandits": (ROOT / "plugins" / "bandits", ROOT / "docs" / "rulesets" / "bandits.md"),
    "wilddie": (ROOT / "plugins" / "wilddie", ROOT / "docs" / "rulesets" / "wilddie.md"),
    "hitpoints": (
        ROOT / "examples" / "hitpoints" / "rollbridge_hitpoints",
        ROOT / "examples" / "hitpoints" / "README.md",
    ),
}


def codes_raised(folder: Path) -> set[str]:
    """The codes a ruleset's sources give their refusals (``code="…"``)."""
    return {
        code
        for path in folder.rglob("*.py")
        for code in re.findall(r"""\bcode=["']([a-z_]+)["']""", path.read_text("utf-8"))
    }


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_every_code_a_ruleset_sends_is_in_its_docs(ruleset: str) -> None:
    folder, doc = RULESETS[ruleset]
    raised = codes_raised(folder)
    assert raised, f"no codes found in {folder}"
    named = set(re.findall(r"`([a-z_]+)`", doc.read_text("utf-8")))
    assert raised <= named, f"{doc.name} does not name {sorted(raised - named)}"


def test_every_problem_rollbridge_verify_reports_is_in_the_dice_docs() -> None:
    """``rollbridge verify --json`` names each mismatch by a code; docs/dice.md
    ("Checking") lists them. Seven were in no document (``out_of_order``,
    ``bad_event``, ``wrong_roll`` …: found by tests/hostile/test_fuzz_verify.py)."""
    sources = [ROOT / "core" / "dice" / "verify.py", ROOT / "core" / "engine" / "recheck.py"]
    reported = {
        code
        for path in sources
        for code in re.findall(
            r"""(?:_problem\([^,()]+,|Problem\([^,()]+,[^,()]+,)\s*["']([a-z_]+)["']""",
            path.read_text("utf-8"),
        )
    }
    assert {"wrong_die", "out_of_order", "wrong_resolution"} <= reported, reported
    named = mismatch_codes()  # its table's, not any word in backquotes in dice.md
    assert reported <= named, f"docs/dice.md's table does not list {sorted(reported - named)}"
