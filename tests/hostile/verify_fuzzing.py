"""A property-based fuzzer of ``rollbridge verify`` on hostile export files.

:func:`make_exports` plays a night on four verifiable tables (sr2, bandits, wilddie,
techlevel: actors, rolls, secret rolls, every action's example resolution, adjust,
undo and redo, an encounter, a settings change, a reveal) in a SQLite file and exports
each table's log with ``rollbridge table export --format jsonl``, as the GM and as a
player. :func:`mutations` changes such an export as a forger or a broken disk would:
bytes flipped, the file cut short, lines dropped, duplicated or reordered, a field of
a line (its seq, its dice, its table) replaced by a hostile value (another type,
numbers far past 64 bits, NaN, nesting thousands of levels deep, lone surrogates),
invalid UTF-8, a byte-order mark, CRLF line ends. :func:`check_verify` runs the real
command on it in a subprocess and asserts what docs/dice.md ("Checking") and the
command's help promise:

- the exit status is 0 (nothing wrong), 1 (a problem), 2 (a file that cannot be
  read) or 3 (incomplete: no problem, but resolutions the rulesets installed here
  cannot check, its report's last line saying so, ``complete`` false), never anything
  else;
- no traceback on standard error, whatever the file holds;
- a 2 is one line, ``rollbridge: error: …``, naming the file and its line;
- a 1 names its problems, each with a code docs/dice.md's table lists (``--json``),
  or is one ``rollbridge: error: CODE: …`` line with a documented code;
- a 0 prints its report (``--json``: JSON with ``"ok": true``), with no mismatch;
- the unchanged exports verify (0).

The subprocess's timeout is a guard against a hang, never an assertion on time.
tests/hostile/test_fuzz_verify.py runs it; ``ROLLBRIDGE_FUZZ_EXAMPLES`` sets how many
examples (docs/operations.md, "Hostile input").
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from tests.hostile.fuzzing import ODD_INTS, ROOT, _mutate, chance, documented_codes, hostile

#: The rulesets whose tables the night plays (the built-ins).
TABLES = ("sr2", "bandits", "wilddie", "techlevel")
#: How long one ``verify`` may take before the fuzzer calls it a hang.
HANG = 120


def verify_codes() -> set[str]:
    """Every code docs/dice.md and docs/protocol.md name (a problem's or an error's)."""
    dice = (ROOT / "docs" / "dice.md").read_text(encoding="utf-8")
    return documented_codes() | set(re.findall(r"`([a-z][a-z_]+)`", dice))


def mismatch_codes() -> set[str]:
    """The problem codes docs/dice.md's table lists ("Each mismatch has a code"): its
    first column. (Every word in backquotes in dice.md — 131, ``verifiable``, ``seed``
    … — would let a code no table names pass for documented.)"""
    dice = (ROOT / "docs" / "dice.md").read_text(encoding="utf-8")
    table = dice.split("Each mismatch has a code", 1)[1].split("\n\n", 2)[1]
    return {
        code
        for row in table.splitlines()[2:]
        for code in re.findall(r"`([a-z_]+)`", row.split("|")[1])
    }


def verdicts() -> set[str]:
    """The last line of a report with no mismatch, in English: all is well, or why
    nothing could be checked (an empty log, an honest export of a table with no
    events, says there are no verifiable dice in it)."""
    from rollbridge.cli import verify

    said = (verify.ALL_GOOD, verify.NONE_SEEN, verify.NONE_YET, verify.NOTHING)
    return {text().render("en") for text in said}


def _env() -> dict[str, str]:
    return {**os.environ, "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": str(ROOT)}


def play_night(db: Path) -> None:
    """The four tables' night in ``db`` (seeded dice: the file's dice key is made
    with it, so the dice differ per run but every export is honest)."""
    from rollbridge.cli.offline import offline_host
    from rollbridge.engine.model import Principal
    from rollbridge.exceptions import RollbridgeError
    from rollbridge.offline import TableService
    from rollbridge.stores.sqlite import SQLiteStore

    gm, player = Principal("gm", "gm", "gm-token"), Principal("player", "pat", "player-token")
    host = offline_host()
    with SQLiteStore(db) as store:
        service = TableService(store, host)
        for rid in TABLES:
            ruleset = host.rulesets[rid]
            service.create_table(rid, rid, table_id=rid, settings={"verifiable": True})
            count = 0

            def ask(message: dict[str, Any], who: Principal = gm) -> None:
                nonlocal count
                count += 1
                with contextlib.suppress(RollbridgeError):  # the rules may refuse it
                    service.handle(rid, {"id": f"r{count}", **message}, who)  # noqa: B023

            names = list(ruleset.example_sheets)
            for index, name in enumerate(names):
                actor = {"id": f"a{index}", "name": name,
                         "sheet": dict(ruleset.example_sheets[name]),
                         "controllers": ["player"] if index == 0 else []}  # fmt: skip
                ask({"type": "actor.create", "actor": actor})
            ask({"type": "roll", "formula": "3d6!!+1d8", "label": "open"}, player)
            ask({"type": "roll", "formula": "2d6+3", "secret": True})
            ask({"type": "encounter.start", "order": ["a0", "a1"]})
            for round_ in range(2):
                for name, action in ruleset.actions.items():
                    request: dict[str, Any] = {"type": "resolve", "action": name,
                                               "params": action.example_in("en") or {}}  # fmt: skip
                    if action.actor != "none":
                        request["actor"] = "a0"
                    if action.min_targets and not action.every_actor:
                        request["targets"] = ["a1"]
                    ask(request, player if round_ else gm)
                ask({"type": "encounter.next"})
                if round_ == 0:
                    ask({"type": "dice.reveal"})
            ask({"type": "adjust", "actor": "a1", "track": "x", "delta": 1})
            ask({"type": "undo"})
            ask({"type": "redo"})
            ask({"type": "settings", "settings": {"locale": "de"}})
            ask({"type": "roll", "formula": "4d6kh3", "actor": "a0"}, player)
            ask({"type": "encounter.end"})
            ask({"type": "dice.reveal"})
            ask({"type": "roll", "formula": "1d20"}, player)  # in the open segment


class Exports(dict[str, bytes]):
    """Exports by name, named by their names alone in a failure's report."""

    def __repr__(self) -> str:
        return f"Exports({sorted(self)})"


def make_exports(folder: Path) -> Exports:
    """The night's exports, by ``TABLE-AUDIENCE``: each table as the GM and as a
    player saw it, from ``rollbridge table export --format jsonl``."""
    db = folder / "night.db"
    play_night(db)
    exports = Exports()
    for rid in TABLES:
        for audience in ("gm", "player"):
            made = subprocess.run(
                [sys.executable, "-m", "rollbridge", "table", "export", rid, "--db", str(db),
                 "--as", audience, "--format", "jsonl"],
                capture_output=True, check=True, env=_env(), timeout=HANG,
            )  # fmt: skip
            exports[f"{rid}-{audience}"] = made.stdout
    return exports


# -- what is changed ---------------------------------------------------------------

#: Values past what a JSON number or a seq may be.
HUGE = (10**400, -(10**400), 2**64, 2**63, -(2**63) - 1, 1e308, math.inf, math.nan, 10**4300,
        -(10**5000))  # fmt: skip


def _deep_json(depth: int, as_list: bool) -> str:
    return ("[" * depth + "1" + "]" * depth) if as_list else ('{"n":' * depth + "1" + "}" * depth)


def _dumps(value: Any) -> str:
    """``value`` as JSON, as far as it goes (bytes as Latin-1 text; an integer
    past what ``json`` writes by default written out all the same)."""
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)  # an integer of more than 4300 digits, written out
    try:
        return json.dumps(value, default=lambda b: b.decode("latin-1"))
    finally:
        sys.set_int_max_str_digits(limit)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value (its keys and indexes), up to a few levels."""
    found = [prefix]
    if len(prefix) < 6:
        if isinstance(value, dict):
            for key, sub in value.items():
                found += _paths(sub, (*prefix, key))
        elif isinstance(value, list):
            for index, sub in enumerate(value[:8]):
                found += _paths(sub, (*prefix, index))
    return found


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = _replace(copy[path[0]], path[1:], new)
    return copy


def _change_field(data: st.DataObject, line: bytes) -> bytes:
    """A line with one of its fields replaced (by a hostile value, a huge number,
    deep nesting, another type), removed or mutated."""
    try:
        entry = json.loads(line)
    except (ValueError, RecursionError):  # not JSON (an earlier change), or too deep
        return line
    places = _paths(entry)
    where = places[data.draw(st.integers(0, len(places) - 1))]
    how = data.draw(st.sampled_from(("hostile", "huge", "deep", "mutate", "type")))
    if how == "deep":
        depth = data.draw(st.sampled_from((40, 900, 1100, 5000, 100_000)))
        marker = "\u0000DEEP\u0000"
        text = _dumps(_replace(entry, where, marker))
        deep = _deep_json(depth, data.draw(st.booleans()))
        return text.replace(json.dumps(marker), deep).encode()
    if how == "hostile":
        new = data.draw(hostile)
    elif how == "huge":
        new = data.draw(st.sampled_from(HUGE) | st.sampled_from(ODD_INTS))
    elif how == "mutate":
        new = _mutate(_get(entry, where), data)
    else:  # the same value as another JSON type
        old = _get(entry, where)
        new = data.draw(st.sampled_from(([old], {"v": old}, str(old), None, True, 0, 1.5, "")))
    return _dumps(_replace(entry, where, new)).encode("utf-8", "surrogatepass")


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def mutations(data: st.DataObject, text: bytes) -> bytes:
    """``text`` (an export) changed one to three times."""
    lines = text.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for _ in range(data.draw(st.integers(1, 3))):
        how = data.draw(
            st.sampled_from(
                ("field",) * 8 + ("drop", "duplicate", "swap", "flip", "cut", "utf8", "bom",
                                  "crlf", "insert", "empty")
            )
        )  # fmt: skip
        index = data.draw(st.integers(0, max(len(lines) - 1, 0)))
        if not lines and how not in ("insert", "bom"):
            how = "insert"
        if how == "field":
            lines[index] = _change_field(data, lines[index])
        elif how == "drop":
            del lines[index]
        elif how == "duplicate":
            lines.insert(index, lines[index])
        elif how == "swap":
            other = data.draw(st.integers(0, len(lines) - 1))
            lines[index], lines[other] = lines[other], lines[index]
        elif how == "flip":
            line = bytearray(lines[index])
            if line:
                at = data.draw(st.integers(0, len(line) - 1))
                line[at] ^= data.draw(st.integers(1, 255))
                lines[index] = bytes(line)
        elif how == "cut":
            joined = b"\n".join(lines)
            lines = joined[: data.draw(st.integers(0, len(joined)))].split(b"\n")
        elif how == "utf8":
            at = data.draw(st.integers(0, len(lines[index])))
            bad = data.draw(st.sampled_from((b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80")))
            lines[index] = lines[index][:at] + bad + lines[index][at:]
        elif how == "bom":
            lines[0:1] = [b"\xef\xbb\xbf" + (lines[0] if lines else b"")]
        elif how == "crlf":
            lines = [line + b"\r" for line in lines]
        elif how == "insert":
            scalar = data.draw(hostile)
            lines.insert(index, _dumps(scalar).encode("utf-8", "surrogatepass"))
        else:
            lines[index] = b"" if chance(data, 2) else b"   \t"
    return b"\n".join(lines) + b"\n"


# -- running the command --------------------------------------------------------------

#: The codes of a log ``verify`` cannot read at all (exit 2), with ``--json``.
UNREADABLE = frozenset({"cannot_read", "undecodable"})


def _refusal(out: str) -> dict[str, Any] | None:
    """The error ``verify --json`` printed in place of a report, if it printed one."""
    try:
        printed = json.loads(out)
    except ValueError:
        return None
    return printed if isinstance(printed, dict) and "code" in printed else None


class Verifier:
    """Runs ``rollbridge verify`` on files in ``folder`` and checks each run against
    ``codes`` (the documented ones); counts outcomes. (No dataclass: Hypothesis
    would print every code in a failure's report.)"""

    def __init__(self, folder: Path, codes: set[str]) -> None:
        self.folder, self.codes = folder, codes
        self.problems = mismatch_codes()
        self.runs = 0
        self.outcomes: dict[str, int] = {}

    def __repr__(self) -> str:
        return f"Verifier({self.folder})"

    def run(self, text: bytes, *options: str) -> tuple[int, str, str]:
        """``rollbridge verify`` on ``text``: its exit status, stdout and stderr."""
        self.runs += 1
        path = self.folder / "log.jsonl"
        path.write_bytes(text)
        done = subprocess.run(
            [sys.executable, "-m", "rollbridge", "verify", str(path), *options],
            capture_output=True, env=_env(), timeout=HANG,
        )  # fmt: skip
        return (done.returncode, done.stdout.decode("utf-8", "replace"),
                done.stderr.decode("utf-8", "replace"))  # fmt: skip

    def check(self, text: bytes, *options: str) -> int:
        """Run it and assert the properties the module's docstring lists."""
        code, out, err = self.run(text, *options)
        where = f"exit {code}; stderr:\n{err[-4000:]}\nstdout:\n{out[-2000:]}"
        assert "Traceback" not in err and "Traceback" not in out, where
        assert code in (0, 1, 2, 3), where  # 3: incomplete (docs/dice.md, "Checking")
        said = "ok"
        refusal = _refusal(out) if "--json" in options else None
        if refusal is not None:  # with --json an error is JSON on stdout, as the API's
            assert code in (1, 2) and not err.strip(), where
            if code == 2:  # naming the file and the line of it
                assert refusal["code"] in UNREADABLE, where
                assert f"{self.folder / 'log.jsonl'}: line " in refusal["message"], where
                said = "unreadable"
            else:
                assert refusal["code"] in self.codes, where
                said = f"error:{refusal['code']}"
        elif code == 2:  # one line, naming the file and the line of it
            lines = err.splitlines()
            assert len(lines) == 1 and lines[0].startswith("rollbridge: error: "), where
            assert f"{self.folder / 'log.jsonl'}: line " in lines[0], where
            said = "unreadable"
        elif "--json" in options:  # a report, whatever the status (none: no "ok")
            try:
                report = json.loads(out)
            except ValueError:
                raise AssertionError(f"--json printed no JSON; {where}") from None
            assert isinstance(report, dict) and isinstance(report.get("problems"), list), where
            assert report["ok"] is (code in (0, 3)), where
            # incomplete: no mismatch, but resolutions the rulesets here cannot check
            assert report.get("complete") is (code != 3) or code == 1, where
            problems = [problem["code"] for problem in report["problems"]]
            assert code in (0, 3) or problems, where
            assert set(problems) <= self.problems, where
            said = ",".join(sorted(set(problems))) or ("incomplete" if code == 3 else "ok")
        elif code == 1 and err.startswith("rollbridge: error: "):
            head = err.removeprefix("rollbridge: error: ").split(":", 1)[0]
            assert head in self.codes and len(err.splitlines()) == 1, where
            said = f"error:{head}"
        elif code == 1:
            assert "MISMATCH at line" in out, where
            said = "mismatch"
        elif code == 3:  # no mismatch, and it says the check is incomplete, last
            assert out.rstrip().splitlines()[-1].startswith("INCOMPLETE: "), where
            assert "MISMATCH" not in out, where
            said = "incomplete"
        else:  # 0: its report, with no mismatch in it, saying what it checked or why none
            assert any(verdict in out for verdict in verdicts()), where
            assert "MISMATCH" not in out, where
        if code != 2:  # what it says on stderr besides: warnings of its own, one line each
            other = [line for line in err.splitlines() if not line.startswith("rollbridge: ")]
            assert not other, where
        self.outcomes[said] = self.outcomes.get(said, 0) + 1
        return code
