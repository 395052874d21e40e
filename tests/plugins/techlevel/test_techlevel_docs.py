"""docs/rulesets/techlevel.md covers every rule, action, setting and error code."""

from __future__ import annotations

import re
from pathlib import Path

import rollbridge.plugins.techlevel as plugin
from rollbridge.plugins.techlevel import TechLevel

ROOT = Path(__file__).resolve().parents[3]
DOC = (ROOT / "docs" / "rulesets" / "techlevel.md").read_text(encoding="utf-8")
SOURCE = "\n".join(p.read_text(encoding="utf-8") for p in Path(plugin.__file__).parent.glob("*.py"))


def test_every_rule_is_documented():
    for number in range(1, 12):
        assert f"**TL-{number} " in DOC, f"TL-{number}"


def test_every_action_and_setting_is_documented():
    ruleset = TechLevel()
    for name in ruleset.actions:
        assert f"`{name}`" in DOC and f'"action": "{name}"' in DOC, name
    for setting in ruleset.settings_schema["properties"]:
        assert f"`{setting}`" in DOC, setting


def test_every_error_code_is_documented():
    codes = set(re.findall(r'code="([a-z_]+)"', SOURCE))
    assert codes, "no codes found"
    table = DOC[DOC.index("## Errors") :]
    for code in codes:
        assert f"| `{code}` |" in table, code


def test_every_decision_of_the_rules_file_has_an_alternative():
    decisions = DOC[DOC.index("## Decisions") : DOC.index("## Errors")]
    for rule in ("TL-7", "TL-8"):
        assert rule in decisions
    items = re.findall(r"^\d+\. \*\*.*?(?=^\d+\. |\Z)", decisions, re.S | re.M)
    assert len(items) >= 3
    for item in items[:3]:
        assert "*Alternative:*" in item
