"""A property-based fuzzer of the offline ``rollbridge resolve`` and ``rollbridge
odds``, and of the actor sheets of every ruleset.

:class:`Resolver` runs the real command line in this process
(tests/hostile/cli_fuzzing.py) with the four built-in rulesets and the example plugin
``hitpoints`` (an entry point written for it, as in tests/hostile/fuzzing.py).
:func:`arguments` draws what a user may type: ``resolve`` or ``odds``, a ruleset and
one of its actions (or a name that is none), ``--params`` and ``--settings`` from the
ruleset's own schemas, within them, at and past their edges, or hostile
(tests/hostile/fuzzing.py's values: wrong types, numbers far past 64 bits, NaN,
nesting dozens of levels deep, odd Unicode), ``--actors`` as a list or as ``{"actor",
"targets"}`` whose sheets and states are drawn from the ruleset's ``sheet_schema`` and
``state_schema`` the same way, or any JSON or text at all (as the bytes a shell
passes: never NUL, and what is not UTF-8 arrives as lone surrogates), ``--as``,
``--seed`` or ``--dice`` (``resolve``), ``--depth`` and ``--exact`` (``odds``),
``--locale`` and ``--json``. A third of the examples run ``resolve`` and ``odds`` of
every action of the ruleset with its example parameters on the same three drawn
actors (a sheet the table accepted must be one every action can act on).
:meth:`Resolver.check` asserts what docs/operations.md ("Errors of the command
line") promises:

- the exit status is 0 (resolved), 1 (an error) or 2 (a usage error), and nothing
  escapes :func:`~rollbridge.cli.main` (an exception would be the traceback the
  command prints);
- an error is one line, ``rollbridge: error: CODE: MESSAGE`` on standard error
  (``--json``: ``{"code", "message"}`` on standard output, standard error empty),
  whose code is documented and never ``internal``: no ruleset fails on what the
  table accepted;
- a 0 prints its answer (``--json``: the event, the reply of a pending or secret
  resolution, or the odds), and nothing on standard error.

tests/hostile/test_fuzz_resolve.py runs it; ``ROLLBRIDGE_FUZZ_EXAMPLES`` sets how many
examples (docs/operations.md, "Hostile input").
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from tests.hostile.cli_fuzzing import error_of, run_cli
from tests.hostile.fuzzing import RULESETS, _mutate, chance, from_schema, hostile

#: A usage error's line (argparse's, made one line by the CLI's parser).
USAGE_LINE = re.compile(r"rollbridge( resolve| odds)?: error: .+")
#: Names a user may give that are no ruleset's or no action's.
ODD_NAMES = ("", "nope", "../sr2", "SR2", "sr2 ", "\udcff", "attack\n", "-", "x" * 300)
#: The locales ``--locale`` is given (the shipped ones, and names that are no language).
LOCALES = ("en", "cs", "de_AT.UTF-8", "ru", "xx", "../x", "C", "\udce4")
#: The core table settings ``--settings`` may hold (docs/engine.md).
CORE_SETTINGS = ("approval", "player_dice", "verifiable", "locale")
#: Each example's ruleset and case: every action of it, or one action (twice as often).
CASES = tuple((rid, case) for rid in RULESETS for case in ("every", "one", "one"))


def plain_json(value: Any) -> str:
    """``value`` as a shell passes JSON: ASCII (lone surrogates as ``\\udXXX``
    escapes, which a shell can type), bytes as Latin-1 text, ``NaN`` as Python
    writes it (the parser takes it)."""
    return json.dumps(value, default=lambda raw: raw.decode("latin-1"))


#: Any text a shell may pass as one argument: bytes without NUL, what is not UTF-8
#: as lone surrogates (Python's ``surrogateescape``, as ``sys.argv`` has it).
raw_text = st.binary(max_size=40).map(
    lambda raw: raw.replace(b"\0", b"").decode("utf-8", "surrogateescape")
)


class Resolver:
    """Runs ``rollbridge resolve`` and ``odds`` in this process and checks what they
    say (``codes``: the documented ones); counts the outcomes (``(command and
    ruleset, status, code)``) and remembers a message per code. (No dataclass:
    Hypothesis would print every code with a failure.)"""

    def __init__(self, codes: set[str]) -> None:
        self.codes = codes
        self.runs = 0
        self.outcomes: Counter[tuple[str, int, str]] = Counter()
        self.said: dict[str, str] = {}

    def __repr__(self) -> str:
        return f"Resolver({self.runs} runs)"

    def check(self, argv: list[str]) -> tuple[int, str]:
        """Run ``argv`` and assert the properties of the module's docstring: the
        exit status and the error's code (``""`` for none)."""
        self.runs += 1
        status, out, err = run_cli(argv)
        asked_json = "--json" in argv
        where = f"rollbridge {' '.join(map(repr, argv))}\nstdout: {out[-3000:]}\nstderr: {err}"
        assert status in (0, 1, 2), where
        code = ""
        if status == 2:  # a usage error: argparse's, one line
            if asked_json:
                assert json.loads(out)["code"] == "invalid_request", where
            else:
                assert len(err.splitlines()) == 1 and USAGE_LINE.fullmatch(err.strip()), where
            code = "usage"
        elif status == 1:
            assert err == "" or not asked_json, where  # no warning here: a memory store
            code, message = error_of(out, err, asked_json, where)
            assert code != "internal" and code in self.codes, where
            self.said.setdefault(code, message)
        else:
            assert err == "" and out.strip(), where
            if asked_json and argv[0] == "odds":  # the action's odds, or none it has
                assert "odds" in json.loads(out), where
            elif asked_json:  # the event, or a pending or secret resolution's reply
                answer = json.loads(out)
                assert "seq" in answer or answer.get("status") in ("pending", "secret"), where
        ruleset = argv[1] if argv[1] in RULESETS else "other"
        self.outcomes[(f"{argv[0]} {ruleset}", status, code)] += 1
        return status, code


@dataclass
class Drawn:
    """One example's command lines: the ruleset's, each action's."""

    ruleset: str
    commands: list[list[str]]


#: How a sheet is drawn: mostly from its schema or its example; the first four where
#: the sheet is to be one a table may accept.
SHEETS = ("example", "clean", "example", "clean", "example", "edges", "mutated", "example",
          "hostile")  # fmt: skip


def _sheet(data: st.DataObject, ruleset: Any, names: list[str], example: Any, kinds: int) -> Any:
    """A sheet for ``ruleset``, drawn as one of the first ``kinds`` of
    :data:`SHEETS` says: its example, its schema's within it or at its edges, the
    example mutated, or hostile."""
    how = data.draw(st.sampled_from(SHEETS[:kinds]))
    if how == "example":
        return dict(example)
    if how == "mutated":
        return _mutate(dict(example), data)
    if how == "hostile":
        return data.draw(hostile)
    return data.draw(from_schema(ruleset.sheet_schema, names, clean=how == "clean"))


def _state_schema(ruleset: Any, sheet: Any) -> Any:
    """The state schema for ``sheet`` (the ruleset's own if the sheet is none it
    takes: a bound it reads from the sheet would be the hostile value)."""
    from rollbridge.exceptions import RollbridgeError

    try:
        return ruleset.state_schema_for(ruleset.validate_sheet(sheet))
    except RollbridgeError:
        return ruleset.state_schema


def _actor(
    data: st.DataObject, ruleset: Any, names: list[str], index: int, plausible: bool = False
) -> Any:
    """One actor spec of ``--actors``: a name, a sheet, maybe a state, controllers
    or an id; rarely mutated as a whole (unless ``plausible``: a sheet and a state
    a table may accept, the rest as it should be)."""
    examples = list(ruleset.example_sheets.values()) or [{}]
    kinds = 4 if plausible else len(SHEETS)  # plausible: an example, or drawn within
    spec: dict[str, Any] = {
        "name": f"Actor {index}",
        "sheet": _sheet(data, ruleset, names, examples[index % len(examples)], kinds),
    }
    if chance(data, 3):
        state_schema = _state_schema(ruleset, spec["sheet"])
        clean = plausible or data.draw(st.booleans())
        spec["state"] = data.draw(from_schema(state_schema, names, clean=clean))
    if plausible:
        return spec
    if chance(data, 4):
        spec["controllers"] = data.draw(st.lists(st.sampled_from(("player", "gm", "")), max_size=2))
    if chance(data, 6):
        spec["id"] = data.draw(st.sampled_from((f"a{index}", "a0", "", "x" * 80, "\u202ex")))
    return _mutate(spec, data) if chance(data, 8) else spec


def _shared(data: st.DataObject, option: str, how: str) -> list[str] | None:
    """What every JSON option may be drawn as: left out (``none``), any text a
    shell passes (``text``), any JSON (``hostile``); None for another ``how``."""
    if how == "none":
        return []
    if how == "text":
        return [option, data.draw(raw_text)]
    if how == "hostile":
        return [option, plain_json(data.draw(hostile))]
    return None


def _actors(data: st.DataObject, ruleset: Any, names: list[str]) -> list[str]:
    """``--actors`` (or nothing: the ruleset's example sheets)."""
    how = data.draw(st.sampled_from(("none", "list", "list", "list", "object", "hostile",
                                     "text")))  # fmt: skip
    shared = _shared(data, "--actors", how)
    if shared is not None:
        return shared
    actors = [_actor(data, ruleset, names, index) for index in range(data.draw(st.integers(0, 3)))]
    if how == "list":
        return ["--actors", plain_json(actors)]
    given: dict[str, Any] = {}
    if actors:
        given["actor"] = actors[0]
    if len(actors) > 1 or chance(data, 2):
        given["targets"] = actors[1:] if not chance(data, 4) else data.draw(hostile)
    return ["--actors", plain_json(given)]


def _params(data: st.DataObject, action: Any, names: list[str]) -> list[str]:
    """``--params`` (or nothing: ``{}``)."""
    example = action.example_in("en") if action is not None else None
    how = data.draw(st.sampled_from(("none", "example", "example", "clean", "clean", "edges",
                                     "mutated", "hostile", "text")))  # fmt: skip
    shared = _shared(data, "--params", "hostile" if action is None and how != "text" else how)
    if shared is not None:
        return shared
    if how in ("clean", "edges"):
        return ["--params", plain_json(data.draw(from_schema(action.params, names,
                                                             clean=how == "clean")))]  # fmt: skip
    params = dict(example or {})
    return ["--params", plain_json(_mutate(params, data) if how == "mutated" else params)]


def _settings(data: st.DataObject, ruleset: Any, names: list[str]) -> list[str]:
    """``--settings`` (or nothing: the ruleset's defaults): the ruleset's own, flat
    or nested, core ones, mutated, hostile."""
    how = data.draw(st.sampled_from(("none", "none", "none", "none", "flat", "flat", "nested",
                                     "core", "hostile", "text")))  # fmt: skip
    shared = _shared(data, "--settings", how)
    if shared is not None:
        return shared
    own = data.draw(from_schema(ruleset.settings_schema, names, clean=not chance(data, 3)))
    if how == "flat":
        settings = own if isinstance(own, dict) else {"x": own}
    elif how == "nested":
        settings = {"ruleset": own}
    else:
        key = data.draw(st.sampled_from(CORE_SETTINGS))
        settings = {key: data.draw(hostile | st.booleans() | st.sampled_from(("gm", "en", "cs")))}
    return ["--settings", plain_json(_mutate(settings, data) if chance(data, 5) else settings)]


def _dice(data: st.DataObject) -> list[str]:
    """``--seed`` or ``--dice`` (always one: a fuzzed run is reproducible)."""
    if not chance(data, 3):
        return ["--seed", data.draw(st.integers(0, 10**6).map(str) | raw_text)]
    results = data.draw(st.lists(st.integers(-2, 30), min_size=1, max_size=12))
    if chance(data, 4):
        return ["--dice", data.draw(raw_text)]
    return ["--dice", ",".join(map(str, results))]


def _odds(data: st.DataObject) -> list[str]:
    """``odds``' own options: ``--depth`` (in its range and past it), ``--exact``."""
    depth = ["--depth", data.draw(st.sampled_from(("0", "1", "100", "101", "-1", "x")))]
    return [*(depth if chance(data, 4) else []), *(["--exact"] if chance(data, 4) else [])]


def arguments(data: st.DataObject, host: Any) -> Drawn:
    """One example's command lines: one action's ``resolve`` or ``odds``, with every
    option drawn; or ``resolve`` and ``odds`` of every action of the ruleset, each with
    its example parameters, on the same drawn actors (sheets and states a table may
    accept: what it accepts, every action must act on, and its odds be computed,
    without failing)."""
    # the ruleset and the case in one draw: drawn one after the other, Hypothesis's
    # mutation of earlier examples could keep a ruleset from ever drawing "every"
    # (seed 52217: 20 examples of wilddie, every one "one")
    rid, case = data.draw(st.sampled_from(CASES))
    ruleset = host.rulesets[rid]
    names = sorted({*ruleset.example_sheets, "a0", "a1", "x"})
    if case == "every":  # its simplest first
        actors = [_actor(data, ruleset, names, index, plausible=True) for index in range(3)]
        given = ["--actors", plain_json(actors)]
        seed = ["--seed", str(data.draw(st.integers(0, 99)))]
        commands = [
            [command, rid, name, "--params", plain_json(action.example_in("en") or {}), *given,
             *(seed if command == "resolve" else [])]
            for name, action in sorted(ruleset.actions.items())
            for command in ("resolve", "odds")
        ]  # fmt: skip
        return Drawn(rid, commands)
    command = "odds" if chance(data, 3) else "resolve"
    shared = [*_actors(data, ruleset, names), *_settings(data, ruleset, names)]
    if command == "resolve":
        role = data.draw(st.sampled_from(("gm", "player", "observer", "owner")))
        shared += [*(["--as", role] if chance(data, 2) else []), *_dice(data)]
    else:
        shared += _odds(data)
    shared += [
        *(["--locale", data.draw(st.sampled_from(LOCALES))] if chance(data, 4) else []),
        *(["--json"] if data.draw(st.booleans()) else []),
    ]
    name = data.draw(st.sampled_from(sorted(ruleset.actions)) | st.sampled_from(ODD_NAMES))
    action = ruleset.actions.get(name)
    chosen = rid if not chance(data, 12) else data.draw(st.sampled_from(ODD_NAMES))
    return Drawn(rid, [[command, chosen, name, *_params(data, action, names), *shared]])
