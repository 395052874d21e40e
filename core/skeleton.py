"""A third-party ruleset's package, written from nothing: what ``rollbridge new-plugin``
makes (docs/plugins.md, "Your own package").

The package is the smallest one a plugin author ships, each part where rollbridge
looks for it: ``pyproject.toml`` with the entry point in the group ``rollbridge``
and the compiled catalogues as package data; ``rollbridge_ID/`` with the hook
(``__init__.py``), the ruleset (``ruleset.py``: a die rolled against a sheet's
number, one action, a common state with one track) and its messages
(``messages.py``: ``Messages(ID, catalogs=…)``, the folder the catalogues go in);
``tests/`` with the conformance suite and one test of the harness; a README saying
what comes next (the catalogues of each language, installing, serving, playing).
It passes its own tests as written; every name in it follows the id given, so
nothing is left to rename by hand (copying ``examples/hitpoints`` left six).
"""

from __future__ import annotations

import ast
import builtins
import functools
import keyword
import re
from pathlib import Path

from rollbridge.exceptions import InvalidRequest
from rollbridge.text import Messages

__all__ = ["ID_PATTERN", "write_skeleton"]

say = Messages("rollbridge")

#: The ids a skeleton is made for: a ruleset's id that is also a message domain and,
#: after ``rollbridge_``, a Python package's name (a hyphen is none of the two).
ID_PATTERN = re.compile(r"[a-z][a-z0-9_]{0,31}")

BAD_ID = say(
    "skeleton.bad_id",
    "new-plugin: {given} is no ruleset id for a package: 1-32 of a-z, 0-9 and _, "
    "starting with a letter (it names the ruleset, its message domain and the "
    "package rollbridge_ID)",
)
# Translators: {given} is the id given, quoted; {taken} lists rollbridge's own plugins.
BUILT_IN = say(
    "skeleton.built_in",
    "new-plugin: {given} is the name of one of rollbridge's own plugins ({taken}): "
    "installed, a package under it would stop rollbridge from starting; choose another id "
    "(nothing was written)",
)
NOT_EMPTY = say(
    "skeleton.not_empty",
    "new-plugin: {folder} holds files already; name a new or empty folder (nothing was written)",
)


def write_skeleton(ruleset_id: str, folder: Path) -> list[Path]:
    """Write the package of a ruleset ``ruleset_id`` into ``folder`` (made if
    missing); the files written, in order.

    :raises InvalidRequest: ``ruleset_id`` is not one (:data:`ID_PATTERN`) or is
        the name of one of rollbridge's own plugins, or ``folder`` holds anything
        already — nothing is written then.
    """
    if not isinstance(ruleset_id, str) or ID_PATTERN.fullmatch(ruleset_id) is None:
        raise InvalidRequest(BAD_ID(given=repr(ruleset_id)), details={"field": "id"})
    taken = _built_in_names()
    if ruleset_id in taken:
        shown = ", ".join(sorted(taken))
        raise InvalidRequest(BUILT_IN(given=repr(ruleset_id), taken=shown), details={"field": "id"})
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise InvalidRequest(NOT_EMPTY(folder=str(folder)), details={"field": "folder"})
    package = f"rollbridge_{ruleset_id}"
    names = {"ID": ruleset_id, "CLASS": _class_name(ruleset_id), "PACKAGE": package}
    written = []
    for path, template in _FILES.items():
        target = folder / path.format(**names)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(_filled(template, names), encoding="utf-8")
        written.append(target)
    (folder / names["PACKAGE"] / "locale").mkdir(exist_ok=True)
    return written


def _built_in_names() -> frozenset[str]:
    """The names of rollbridge's own plugins (its rulesets' ids, its adapters'): an
    entry point or a ruleset under one is refused at startup as a name already taken."""
    from rollbridge.adapters import DEFAULT_PLUGINS as adapters
    from rollbridge.plugins import DEFAULT_PLUGINS as rulesets

    return frozenset(module.rsplit(".", 1)[-1] for module in (*rulesets, *adapters))


def _class_name(ruleset_id: str) -> str:
    """``dark_heresy`` → ``DarkHeresy``; ``NoneRuleset``, ``TrackRuleset`` for an id
    whose class would be a keyword, a builtin or a name the package's modules use
    (``class None``, or ``Track(...)`` making the ruleset itself: review rev24p)."""
    name = "".join(part.capitalize() for part in ruleset_id.split("_") if part)
    return f"{name}Ruleset" if name in _taken_names() else name


@functools.cache
def _taken_names() -> frozenset[str]:
    """Python's keywords and builtins, and every name the package's modules import
    or define at their top."""
    taken = {*keyword.kwlist, *dir(builtins)}
    names = {"ID": "x", "CLASS": "X", "PACKAGE": "rollbridge_x"}
    for path, template in _FILES.items():
        if not path.endswith(".py"):
            continue
        for node in ast.parse(_filled(template, names)).body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                taken.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                taken.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                taken.update(t.id for t in targets if isinstance(t, ast.Name))
    return frozenset(taken - {"X"})


def _filled(template: str, names: dict[str, str]) -> str:
    """``template`` with ``@ID@``, ``@CLASS@`` and ``@PACKAGE@`` replaced (braces are
    Python's and TOML's own in these files)."""
    for key, value in names.items():
        template = template.replace(f"@{key}@", value)
    return template.replace("@SHEET@", '"sheet": {"skill": 4}, "controllers": ["player"]}}')


_PYPROJECT = """\
[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "rollbridge-@ID@"
version = "1.0.0"
description = "The @ID@ ruleset for rollbridge."
readme = "README.md"
requires-python = ">=3.11"
dependencies = ["rollbridge"]

[project.optional-dependencies]
# pytest for the tests, hypothesis for the conformance suite's fuzzing of states
test = ["pytest>=8", "hypothesis>=6.100"]

# What makes rollbridge find the plugin once installed: an entry point in the group
# "rollbridge" whose value is the module with the hooks.
[project.entry-points.rollbridge]
@ID@ = "@PACKAGE@"

[tool.setuptools]
packages = ["@PACKAGE@"]

# The compiled catalogues: without them the plugin reads in English everywhere.
[tool.setuptools.package-data]
@PACKAGE@ = ["locale/*/LC_MESSAGES/*.mo"]

# ruff, if you use it, checks this package as rollbridge's own code is checked.
[tool.ruff]
line-length = 100
target-version = "py311"

[tool.ruff.lint]
select = ["E", "F", "W", "I", "UP", "B", "SIM", "RUF"]
# a ruleset declares its actions and schemas as class attributes (ClassVar in the base)
ignore = ["RUF012"]

[tool.ruff.lint.isort]
known-first-party = ["@PACKAGE@"]
"""

_README = """\
# rollbridge-@ID@

The @ID@ ruleset for rollbridge, as `rollbridge new-plugin @ID@` wrote it: one
action, `test` (a d6 under the actor's `skill`; a failure marks a wound), and a
wound track. Make it yours in `@PACKAGE@/ruleset.py` and `@PACKAGE@/messages.py`
(docs/plugins.md of rollbridge, "A ruleset", says what each part is).

```sh
pip install -e '.[test]'          # the plugin, beside rollbridge; then:
rollbridge plugins                # lists "@ID@ 1.0.0 (entry point (rollbridge-@ID@))"
python -m pytest tests            # the conformance suite, and a test of your own
rollbridge resolve @ID@ test --seed 3
```

Languages (here Czech and German; any of rollbridge's):

```sh
rollbridge catalogs update @PACKAGE@ --domain @ID@ --locale cs --locale de
# translate each msgstr in @PACKAGE@/locale/*/LC_MESSAGES/@ID@.po (a plural message,
# LEFT, has one msgstr[n] per form: docs/plugins.md, "Languages"), then again:
rollbridge catalogs update @PACKAGE@ --domain @ID@ --locale cs --locale de
rollbridge catalogs check @PACKAGE@ --domain @ID@ --locale cs --locale de
python -m pytest tests            # now resolves every action in cs and de too
```

Playing it live:

```sh
rollbridge table create --ruleset @ID@ --name "Try-out"   # prints the table id, its tokens
rollbridge serve                                          # in another terminal
rollbridge connect ws://127.0.0.1:8765/tables/TABLE --token GM_TOKEN
```

```text
json {"type": "actor.create", "actor": {"id": "h", "name": "Hero", @SHEET@
do test actor=h
```
"""

_INIT = '''\
"""rollbridge-@ID@: the ruleset as a rollbridge plugin."""

from collections.abc import Callable

import rollbridge

from @PACKAGE@.ruleset import @CLASS@

__version__ = "1.0.0"


@rollbridge.hookimpl
def register_rulesets(register: Callable[[rollbridge.Ruleset], None]) -> None:
    """Hand the ruleset to rollbridge."""
    register(@CLASS@())
'''

_MESSAGES = '''\
"""Every text the ruleset says, declared once in English; the catalogues in
``locale/`` translate them (``rollbridge catalogs update``: README.md)."""

from pathlib import Path

from rollbridge.text import Messages

say = Messages("@ID@", catalogs=Path(__file__).with_name("locale"))

SUMMARY = say("summary", "A d6 under skill; each failure is a wound.")
TEST = say("action.test", "Test")
TEST_SUMMARY = say("action.test.summary", "Roll a d6 under the actor's skill.")
SUCCEEDS = say("test.succeeds", "{actor} rolls {roll} under {skill}: success")
FAILS = say("test.fails", "{actor} rolls {roll}, needing under {skill}: a wound")
D6 = say("dice.d6", "d6")
WOUNDS = say("track.wounds", "Wounds")
# A count before a noun is a plural message: English's singular and plural here, and
# one msgstr[n] per form of each language in its .po (three in Czech and Russian).
LEFT = say.plural("condition.left", "{count} wound before falling", "{count} wounds before falling")
'''

_RULESET = '''\
"""The ruleset: a d6 under the actor's skill; a failure marks a wound."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from rollbridge import ActionContext, ActionSpec, Actor, CommonState, Resolution, Ruleset, Track
from rollbridge.dice import DiceGroup, DiceSource, roll_die

from @PACKAGE@.messages import (
    D6,
    FAILS,
    LEFT,
    SUCCEEDS,
    SUMMARY,
    TEST,
    TEST_SUMMARY,
    WOUNDS,
)

#: The most wounds an actor takes.
MOST = 3


@functools.lru_cache(maxsize=64)
def wounds_schema(most: int = MOST) -> dict[str, Any]:
    """What an actor's state may be: its wounds, 0 to ``most``."""
    wounds = {"type": "integer", "minimum": 0, "maximum": most}  # no default: docs/plugins.md
    return {"type": "object", "properties": {"wounds": wounds}}


class @CLASS@(Ruleset):
    """One action, ``test``; one track, ``wounds``."""

    id = "@ID@"
    name = "@CLASS@"
    version = "1.0.0"
    summary = SUMMARY()
    sheet_schema = {
        "type": "object",
        "properties": {"skill": {"type": "integer", "minimum": 1, "maximum": 6}},
        "required": ["skill"],
    }
    settings_schema = {"type": "object", "properties": {}}
    state_schema = wounds_schema()
    example_sheets = {"Hero": {"skill": 4}}
    actions = {
        "test": ActionSpec(
            "test",
            TEST_SUMMARY(),
            params={"type": "object", "properties": {}},
            label=TEST(),
            example={},
        ),
    }

    def initial_state(self, sheet: Mapping[str, Any]) -> dict[str, Any]:
        return {"wounds": 0}

    def resolve(self, context: ActionContext, dice: DiceSource) -> Resolution:
        me = context.actor
        assert me is not None  # the action's actor is "required"
        die = roll_die(dice, 6)
        skill = me.sheet["skill"]
        group = DiceGroup(D6(), (die,), formula="1d6", total=die.value, target=skill)
        if die.value < skill:
            narration = SUCCEEDS(actor=me.name, roll=die.value, skill=skill)
            return Resolution(narration, {"success": True}, dice=[group])
        wounds = min(MOST, me.state["wounds"] + 1)
        narration = FAILS(actor=me.name, roll=die.value, skill=skill)
        return Resolution(
            narration, {"success": False}, dice=[group], states={me.id: {"wounds": wounds}}
        )

    def common_state(self, actor: Actor) -> CommonState:
        wounds = actor.state["wounds"]
        status = "down" if wounds >= MOST else "impaired" if wounds else "ok"
        left = MOST - wounds
        conditions = (LEFT(count=left),) if wounds and left else ()
        return CommonState(status, (Track("wounds", WOUNDS(), wounds, MOST),), conditions)
'''

_TESTS = '''\
"""The ruleset's tests: the conformance suite every ruleset passes, and one of
your own with rollbridge's harness."""

from rollbridge.testing import RulesetConformance

from @PACKAGE@.ruleset import @CLASS@


class Test@CLASS@Conforms(RulesetConformance):
    """Resolves every action's example, renders its texts for the GM and for
    players, in each language the catalogues ship, fuzzes states, …"""

    ruleset = @CLASS@()


def test_a_failure_marks_a_wound(ruleset_harness):
    table = ruleset_harness(@CLASS@())
    table.add_actor("Hero", {"skill": 4}, actor_id="hero", player=True)
    event = table.resolve("test", actor="hero", dice=[5])  # 5 is not under 4
    assert event["data"]["outcome"] == {"success": False}
    assert table.state("hero") == {"wounds": 1}
    assert table.actor("hero")["common"]["conditions"] == ["2 wounds before falling"]
'''

#: Each file, by its path in the package's folder (``{PACKAGE}``, ``{ID}`` filled in).
_FILES = {
    "pyproject.toml": _PYPROJECT,
    "README.md": _README,
    "{PACKAGE}/__init__.py": _INIT,
    "{PACKAGE}/messages.py": _MESSAGES,
    "{PACKAGE}/ruleset.py": _RULESET,
    "tests/test_{ID}.py": _TESTS,
}
