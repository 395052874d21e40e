"""English has a singular: a message chosen by a count says "1 item", not "1 items".

A plural message (``say.plural(key, one, other)``) whose English singular is the same
text as its plural reads wrong at a count of one in English, the language every
catalogue is made from ("must have at least 1 items", "takes 1 target(s)"). Found by
playing a game night (4 December); this scan holds every such message in core,
plugins, adapters and the example to a singular of its own, apart from those whose
count cannot be one or whose words do not change with it, each named with why.
"""

from __future__ import annotations

import ast
from pathlib import Path

from rollbridge.dice.sources import SUPPLIED_TOO_MANY
from rollbridge.engine.rolls import TARGETS_EXACTLY
from rollbridge.schema import TOO_FEW, TOO_SHORT

ROOT = Path(__file__).resolve().parent.parent

#: Plural messages whose singular may stay the plural's text, and why.
SAME_AT_ONE = {
    # "more dice than the 1 supplied": the words do not change with the count
    "dice.exhausted",
    # SR-7 and SR-6: recoil and a raised code only with n >= 2 rounds
    "tn.recoil",
    "code.fired",
    "damage.code.fired",
    # "+ 1 overflow": a mass noun here
    "damage.overflow",
    "damage.taken.overflow",
    # "(at most 1 are held)", "(the last 1 are remembered)": counts a table sets, >= 2
    "chips.award.capped",
    "refused.unknown_roll",
    # "{count} dice are more than the {most} ...": count > most >= 1
    "refused.damage.too_many",
}


def _plurals() -> list[tuple[str, str, str, str]]:
    """Every ``….plural(key, one, other)`` with literal texts: (where, key, one, other)."""
    found = []
    for folder in ("core", "plugins", "adapters", "examples"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                    continue
                args = node.args[:3]
                if node.func.attr != "plural" or len(args) < 3:
                    continue
                if all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in args):
                    key, one, other = (a.value for a in args)
                    where = f"{path.relative_to(ROOT)}:{node.lineno}"
                    found.append((where, key, one, other))
    return found


def test_every_plural_message_has_an_english_singular():
    plurals = _plurals()
    assert len(plurals) > 50, "the scan found too few plural messages: is it looking?"
    same = {key: where for where, key, one, other in plurals if one == other}
    assert set(same) - SAME_AT_ONE == set(), {k: same[k] for k in set(same) - SAME_AT_ONE}
    assert set(same) >= SAME_AT_ONE, f"no longer the same, drop: {SAME_AT_ONE - set(same)}"


def test_core_refusals_read_right_at_one():
    assert TOO_FEW(count=1).render() == "must have at least 1 item"
    assert TOO_FEW(count=2).render() == "must have at least 2 items"
    assert TOO_SHORT(count=1).render() == "must be at least 1 character long"
    assert TARGETS_EXACTLY(action="'hit'", count=1, got=2).render() == (
        "targets: action 'hit' takes 1 target, got 2"
    )
    assert SUPPLIED_TOO_MANY(count=1, limit=0).render().startswith("1 die was supplied")
