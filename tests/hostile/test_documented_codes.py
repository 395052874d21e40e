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


#: The modules that answer the port's HTTP requests (core/server/http.py's routes).
HTTP_MODULES = ("http", "admin", "export_http", "web", "web_view", "bad_request", "address_rates")


def _http_raised() -> set[str]:
    """The codes of the errors the HTTP side's modules name: every class they import
    from rollbridge.exceptions (its base, which they catch, left out), and every code
    they write as a literal (``{"code": "internal"}``)."""
    import ast

    from rollbridge import exceptions

    codes: set[str] = set()
    for name in HTTP_MODULES:
        source = (ROOT / "core" / "server" / f"{name}.py").read_text("utf-8")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom) and node.module == "rollbridge.exceptions":
                for alias in node.names:
                    kind = getattr(exceptions, alias.name)
                    if kind is not exceptions.RollbridgeError:
                        codes.add(kind.code)
        codes |= set(re.findall(r"""["']code["']:\s*["']([a-z_]+)["']""", source))
    return codes


def test_the_http_side_answers_the_codes_of_its_table_and_no_other() -> None:
    """docs/operations.md's table of the HTTP side's error codes is the HTTP fuzzer's
    list (tests/hostile/http_fuzzing.py): before, the fuzzer took every backquoted
    lowercase word of the docs' HTTP sections for a code, so an undocumented code
    passed if any sentence quoted the word. Here the table is held to the code: every
    code an HTTP module names is in it, and every code in it is one of
    core/exceptions.py's (a typo, or a code no error has, fails)."""
    from rollbridge import exceptions
    from tests.hostile.http_fuzzing import http_codes

    table = http_codes()
    raised = _http_raised()
    assert {"invalid_request", "unauthorized", "not_found", "internal"} <= raised, raised
    assert raised <= set(table), f"the HTTP table does not list {sorted(raised - set(table))}"
    known = {
        kind.code
        for kind in vars(exceptions).values()
        if isinstance(kind, type) and issubclass(kind, exceptions.RollbridgeError)
    }
    assert set(table) <= known, f"no error has the codes {sorted(set(table) - known)}"
    assert all(table.values()), table  # each with its statuses
