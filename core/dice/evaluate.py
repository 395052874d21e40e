"""Rolling a parsed formula: Foundry's modifier semantics, and the roll's record.

:func:`compile_formula` turns a :class:`~rollbridge.dice.notation.Formula` into
a closure that rolls it (done once per formula; parsed formulas are cached, so
rolling a formula the server has seen before skips parsing and compiling).
:func:`roll_formula` is the entry point; it returns a :class:`RollResult`.

Modifiers apply in the order written, as in Foundry VTT's ``Die``, except that
the counting modifiers ``cs``/``cf`` always apply last (the parser moves them
there, and the normalised text shows them last):

``x`` / ``xo``
    each active result meeting the condition (default: the maximum) is tagged
    ``exploded`` and one more die, tagged ``explosion``, is added at the end;
    ``x`` checks the added dice too, ``xo`` only the dice first rolled.
``r`` / ``rr``
    each active result meeting the condition (default: ``= 1``) is tagged
    ``rerolled`` and dropped, and a new die tagged ``reroll`` is added at the
    end; ``r`` checks the dice first rolled, ``rr`` the new ones too.
``kh`` ``kl`` ``dh`` ``dl``
    keep / drop the N highest / lowest active results; on ties the earlier die is
    dropped first (Foundry's rule); dropped dice are tagged ``dropped``.
``min`` / ``max``
    each active result below / above the bound counts as the bound (the die's
    ``rolls`` keep what it showed), tagged ``min`` / ``max``.
``cs`` / ``cf``
    the term counts the active results meeting the condition (``cs``: default
    ``= faces``, tagged ``success``, others ``failure``; ``cf``: default ``= 1``,
    tagged ``failure``) instead of summing them.

Per-die records (:class:`~rollbridge.dice.records.Die`) and per-term groups
(:class:`~rollbridge.dice.records.DiceGroup`) are built on first access to
:attr:`DiceTerm.dice`, :attr:`RollResult.groups` and friends, not during the
roll: the roll itself keeps the raw results, which is what makes it fast.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from itertools import repeat
from typing import Any

from rollbridge.dice.notation import (
    MAX_FORMULA_LENGTH,
    BinOp,
    Call,
    Dice,
    Formula,
    Group,
    Modifier,
    Neg,
    Node,
    Num,
    _parse,
    parse,
)
from rollbridge.dice.records import DiceGroup, Die
from rollbridge.dice.sources import DiceSource, ScriptedDice
from rollbridge.exceptions import DiceLimitExceeded, NotationError
from rollbridge.text import Messages

__all__ = [
    "DiceTerm",
    "FunctionTerm",
    "NumberTerm",
    "OperatorTerm",
    "ParentheticalTerm",
    "RollResult",
    "Term",
    "compile_formula",
    "prepare",
    "roll_formula",
]

Total = int | float

# -- evaluated terms ----------------------------------------------------------------


class NumberTerm:
    """A constant of the formula."""

    __slots__ = ("value",)

    def __init__(self, value: int) -> None:
        self.value = value

    @property
    def total(self) -> int:
        return self.value

    def to_dict(self) -> dict[str, Any]:
        return {"type": "number", "value": self.value}

    def __repr__(self) -> str:
        return f"NumberTerm({self.value})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NumberTerm) and other.value == self.value

    __hash__ = None  # type: ignore[assignment]


class OperatorTerm:
    """An operator between terms (``unary`` for a leading minus)."""

    __slots__ = ("op", "unary")

    def __init__(self, op: str, unary: bool = False) -> None:
        self.op = op
        self.unary = unary

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": "operator", "op": self.op}
        if self.unary:
            data["unary"] = True
        return data

    def __repr__(self) -> str:
        return f"OperatorTerm({self.op!r}{', unary=True' if self.unary else ''})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OperatorTerm) and (other.op, other.unary) == (
            self.op,
            self.unary,
        )

    __hash__ = None  # type: ignore[assignment]


class ParentheticalTerm:
    """A parenthesised sub-expression with its own terms and total."""

    __slots__ = ("terms", "total")

    def __init__(self, terms: tuple[Term, ...], total: Total) -> None:
        self.terms = terms
        self.total = total

    def to_dict(self, groups: list[DiceTerm] | None = None) -> dict[str, Any]:
        return {
            "type": "parenthetical",
            "terms": [_term_dict(t, groups) for t in self.terms],
            "total": self.total,
        }

    def __repr__(self) -> str:
        return f"ParentheticalTerm({list(self.terms)!r}, total={self.total!r})"


class FunctionTerm:
    """A function (``floor``, ``ceil``, ``round``, ``abs``) of a sub-expression."""

    __slots__ = ("name", "terms", "total")

    def __init__(self, name: str, terms: tuple[Term, ...], total: Total) -> None:
        self.name = name
        self.terms = terms
        self.total = total

    def to_dict(self, groups: list[DiceTerm] | None = None) -> dict[str, Any]:
        return {
            "type": "function",
            "name": self.name,
            "terms": [_term_dict(t, groups) for t in self.terms],
            "total": self.total,
        }

    def __repr__(self) -> str:
        return f"FunctionTerm({self.name!r}, {list(self.terms)!r}, total={self.total!r})"


class _Res:
    """One die result while modifiers work on it (mutable; becomes a Die)."""

    __slots__ = ("active", "rolls", "tags", "value")

    def __init__(self, value: int, rolls: tuple[int, ...]) -> None:
        self.value = value
        self.rolls = rolls
        self.active = True
        self.tags: tuple[str, ...] = ()

    def tag(self, name: str) -> None:
        if name not in self.tags:
            self.tags += (name,)


_Record = tuple[tuple[int, ...], int, bool, tuple[str, ...]]
_DROPPED = ("dropped",)


#: Shared records of plain and dropped dice of up to _SHARED_FACES faces: a Die
#: is immutable, so one object can stand for every d6 that showed a 4. Bounded:
#: at most 2 × (1 + 2 + … + 100) = 10,100 entries.
_SHARED: dict[tuple[int, int, bool, tuple[str, ...]], Die] = {}
_SHARED_FACES = 100


def _die(faces: int, rolls: tuple[int, ...], value: int, kept: bool, tags: tuple[str, ...]) -> Die:
    if faces <= _SHARED_FACES and len(rolls) == 1 and (not tags or tags == _DROPPED):
        key = (faces, value, kept, tags)  # one roll, no min/max tag: value == rolls[0]
        die = _SHARED.get(key)
        if die is None:
            die = _SHARED[key] = Die(faces, rolls, value, kept, tags)
        return die
    return Die(faces, rolls, value, kept, tags)


_TABLES: dict[tuple[int, bool], list[Die]] = {}


def _die_table(faces: int, kept: bool) -> list[Die]:
    """The shared plain (or dropped) dice of ``faces`` faces, indexed by value."""
    table = _TABLES.get((faces, kept))
    if table is None:
        tags = () if kept else _DROPPED
        table = [Die(faces, (0,), 0, kept, tags)]  # index 0 is never used
        table += [_die(faces, (v,), v, kept, tags) for v in range(1, faces + 1)]
        _TABLES[faces, kept] = table
    return table


def _plain_records(values: list[int]) -> Iterator[_Record]:
    for value in values:
        yield (value,), value, True, ()


def _kept_records(raw: tuple[list[int], list[bool]]) -> Iterator[_Record]:
    values, kept = raw
    for value, keep in zip(values, kept, strict=True):
        yield (value,), value, keep, () if keep else _DROPPED


def _result_records(results: list[_Res]) -> Iterator[_Record]:
    for res in results:
        yield res.rolls, res.value, res.active, res.tags


class _Spec:
    """What every roll of one dice term shares: the node and its rendered text."""

    __slots__ = (
        "counting",
        "drops",
        "keeps",
        "modifiers",
        "node",
        "note",
        "records",
        "target",
        "text",
    )

    def __init__(self, node: Dice) -> None:
        self.node = node
        #: turns a roll's raw results into (rolls, value, kept, tags) per die; each
        #: evaluation path of _compile_dice keeps its results in its own compact form
        self.records: Callable[[Any], Iterable[_Record]] = _plain_records
        self.text = node.text
        self.modifiers = tuple(str(m) for m in node.modifiers)
        last = node.modifiers[-1] if node.modifiers else None
        self.counting = last.kind if last is not None and last.kind in ("cs", "cf") else None
        self.note = "failures" if self.counting == "cf" else ""
        #: the shared plain and dropped dice of this many faces, by value (small dice)
        self.keeps: list[Die] | None = None
        self.drops: list[Die] | None = None
        if node.faces <= _SHARED_FACES:
            self.keeps = _die_table(node.faces, True)
            self.drops = _die_table(node.faces, False)
        self.target: int | None = None
        if last is not None and last.kind == "cs":
            target = node.faces if last.target is None else last.target
            if last.comparison == ">=":
                self.target = target
            elif last.comparison == ">":
                self.target = target + 1


class DiceTerm:
    """One rolled dice term: what was asked (number, faces, modifiers) and every die.

    :attr:`dice` holds every die rolled for the term, in Foundry's order (the
    dice first rolled, then each explosion or reroll as it happened), with the
    dropped, rerolled and exploded ones, tagged as :mod:`~rollbridge.dice.records`
    describes. :attr:`group` is the same as a :class:`DiceGroup`.
    """

    __slots__ = ("_dice", "_group", "_raw", "_spec", "successes", "total")

    def __init__(self, spec: _Spec, raw: Any, total: int, successes: int | None) -> None:
        self._spec = spec
        self._raw = raw
        self.total = total
        self.successes = successes
        self._dice: tuple[Die, ...] | None = None
        self._group: DiceGroup | None = None

    @property
    def formula(self) -> str:
        """The term's normalised text, e.g. ``4d6kh3``."""
        return self._spec.text

    @property
    def number(self) -> int:
        return self._spec.node.number

    @property
    def faces(self) -> int:
        return self._spec.node.faces

    @property
    def modifiers(self) -> tuple[str, ...]:
        """The modifiers as normalised text, in the order applied (``("kh3",)``)."""
        return self._spec.modifiers

    @property
    def compound(self) -> int | None:
        """The compounding threshold (``!!``), or None."""
        return self._spec.node.compound

    @property
    def counting(self) -> str | None:
        """``"cs"`` or ``"cf"`` when the term counts results rather than summing them."""
        return self._spec.counting

    @property
    def dice(self) -> tuple[Die, ...]:
        """Every die of the term, including dropped, rerolled and exploded ones."""
        dice = self._dice
        if dice is None:
            spec = self._spec
            records = spec.records
            keeps = spec.keeps
            if keeps is not None and records is _plain_records:
                dice = tuple(map(keeps.__getitem__, self._raw))
            elif keeps is not None and records is _kept_records:
                values, kept = self._raw
                drops = spec.drops
                dice = tuple(keeps[v] if k else drops[v] for v, k in zip(values, kept, strict=True))
            else:
                faces = spec.node.faces
                dice = tuple(_die(faces, *record) for record in records(self._raw))
            self._dice = dice
        return dice

    @property
    def group(self) -> DiceGroup:
        """The term as a :class:`DiceGroup` (label and formula: the term's text)."""
        group = self._group
        if group is None:
            spec = self._spec
            group = DiceGroup(  # label, dice, formula, total, target, successes, note
                spec.text,
                self._dice or self.dice,
                spec.text,
                self.total,
                spec.target,
                self.successes,
                spec.note,
            )
            self._group = group
        return group

    def to_dict(self, groups: list[DiceTerm] | None = None) -> dict[str, Any]:
        """The term as plain data; with ``groups`` (from :meth:`RollResult.to_dict`)
        the dice are given as the index of the term's group instead."""
        spec = self._spec
        data: dict[str, Any] = {
            "type": "dice",
            "formula": spec.text,
            "number": spec.node.number,
            "faces": spec.node.faces,
            "modifiers": list(spec.modifiers),
        }
        if spec.node.compound is not None:
            data["compound"] = spec.node.compound
        data["total"] = self.total
        if self.successes is not None:
            data["successes"] = self.successes
        if groups is None:
            data["dice"] = [d.to_dict() for d in self.dice]
        else:
            data["group"] = len(groups)
            groups.append(self)
        return data

    def describe(self) -> str:
        """``4d6kh3 [6, 5, 3, (1)]``: see :meth:`RollResult.describe`."""
        spec = self._spec
        if spec.records is _plain_records:
            shown = ", ".join(map(str, self._raw))
        else:
            counting = spec.counting
            shown = ", ".join(_die_text(*record, counting) for record in spec.records(self._raw))
        return f"{spec.text} [{shown}]"

    def __repr__(self) -> str:
        return f"DiceTerm({self._spec.text!r}, total={self.total!r})"


Term = NumberTerm | OperatorTerm | DiceTerm | ParentheticalTerm | FunctionTerm


def _term_dict(term: Term, groups: list[DiceTerm] | None) -> dict[str, Any]:
    if isinstance(term, NumberTerm | OperatorTerm):
        return term.to_dict()
    return term.to_dict(groups)


def _die_text(
    rolls: tuple[int, ...], value: int, kept: bool, tags: tuple[str, ...], counting: str | None
) -> str:
    if "compounded" in tags:
        text = "+".join(map(str, rolls))
    elif rolls[0] != value:
        text = f"{rolls[0]}->{value}"  # clamped by min/max
    else:
        text = str(value)
    if "exploded" in tags:
        text += "!"
    if (counting == "cs" and "success" in tags) or (counting == "cf" and "failure" in tags):
        text += "*"
    return text if kept else f"({text})"


def _walk(terms: tuple[Term, ...]) -> list[DiceTerm]:
    """The dice terms among ``terms``, depth first, in formula order."""
    found: list[DiceTerm] = []
    for term in terms:
        kind = term.__class__
        if kind is DiceTerm:
            found.append(term)  # type: ignore[arg-type]
        elif kind is ParentheticalTerm or kind is FunctionTerm:
            found += _walk(term.terms)  # type: ignore[union-attr]
    return found


def _describe_terms(terms: tuple[Term, ...]) -> str:
    parts: list[str] = []
    for term in terms:
        if isinstance(term, OperatorTerm):
            parts.append(term.op if term.unary else f" {term.op} ")
        elif isinstance(term, NumberTerm):
            parts.append(str(term.value))
        elif isinstance(term, DiceTerm):
            parts.append(term.describe())
        elif isinstance(term, ParentheticalTerm):
            parts.append(f"({_describe_terms(term.terms)})")
        else:
            parts.append(f"{term.name}({_describe_terms(term.terms)})")
    return "".join(parts)


def _number_text(value: Total) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


class RollResult:
    """The result of rolling a formula.

    :ivar formula: the normalised formula (``1d20 + 5``).
    :ivar total: the total; an ``int`` when integral, else a ``float`` (``/`` is
        real division, as in Foundry).
    :ivar terms: the evaluated terms in formula order — :class:`DiceTerm`,
        :class:`NumberTerm`, :class:`OperatorTerm` between them (``unary`` for a
        leading minus), :class:`ParentheticalTerm` and :class:`FunctionTerm`
        holding their own terms — the shape of Foundry's ``Roll.terms``.
    """

    __slots__ = ("_groups", "formula", "terms", "total")

    def __init__(self, formula: str, total: Total, terms: tuple[Term, ...]) -> None:
        self.formula = formula
        self.total = total
        self.terms = terms
        self._groups: list[DiceGroup] | None = None

    @property
    def dice_terms(self) -> list[DiceTerm]:
        """The dice terms, in formula order (inside parentheses too)."""
        return _walk(self.terms)

    @property
    def groups(self) -> list[DiceGroup]:
        """One :class:`DiceGroup` per dice term, in formula order (a new list each call)."""
        groups = self._groups
        if groups is None:
            groups = self._groups = [term.group for term in _walk(self.terms)]
        return list(groups)

    @property
    def dice(self) -> list[Die]:
        """Every die of every term, in formula order."""
        return [die for term in _walk(self.terms) for die in term.dice]

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON, msgpack): ``formula``, ``total``, ``terms`` (a dice
        term names its group by index) and ``groups`` (each a DiceGroup dict)."""
        groups: list[DiceTerm] = []
        terms = [_term_dict(t, groups) for t in self.terms]
        return {
            "formula": self.formula,
            "total": self.total,
            "terms": terms,
            "groups": [t.group.to_dict() for t in groups],
        }

    def describe(self) -> str:
        """One line: ``4d6kh3 [6, 5, 3, (1)] + 5 = 19``.

        A die in parentheses is not counted (dropped or rerolled); ``6!``
        exploded; ``6+6+3`` is one compounding die; ``1->2`` was raised by
        ``min`` (or lowered by ``max``); ``*`` marks a die counted by ``cs``/``cf``.
        """
        return f"{_describe_terms(self.terms)} = {_number_text(self.total)}"

    def __repr__(self) -> str:
        return f"RollResult({self.formula!r}, total={self.total!r})"

    def __str__(self) -> str:
        return self.describe()


# -- compiling ----------------------------------------------------------------------

Evaluator = Callable[[DiceSource, list[Any]], Total]
Applier = Callable[[list[_Res], Callable[[], _Res]], None]

_PLUS, _MINUS = OperatorTerm("+"), OperatorTerm("-")
_TIMES, _DIVIDE = OperatorTerm("*"), OperatorTerm("/")
_NEGATE = OperatorTerm("-", unary=True)
_OPERATORS = {"+": _PLUS, "-": _MINUS, "*": _TIMES, "/": _DIVIDE}


def _condition(comparison: str, target: int) -> Callable[[int], bool]:
    """``result <comparison> target`` as a fast bound method."""
    if comparison == "=":
        return target.__eq__  # type: ignore[return-value]
    if comparison == ">=":
        return target.__le__  # type: ignore[return-value]
    if comparison == ">":
        return target.__lt__  # type: ignore[return-value]
    if comparison == "<=":
        return target.__ge__  # type: ignore[return-value]
    return target.__gt__  # type: ignore[return-value]


def _explode(test: Callable[[int], bool], limit: int | None, recursive: bool) -> Applier:
    def apply(results: list[_Res], draw: Callable[[], _Res]) -> None:
        left = limit
        checked, initial = 0, len(results)
        while checked < len(results):
            res = results[checked]
            checked += 1
            if res.active:
                if left is not None and left <= 0:
                    break
                if test(res.value):
                    res.tag("exploded")
                    extra = draw()
                    extra.tags += ("explosion",)
                    results.append(extra)
                    if left is not None:
                        left -= 1
            if not recursive and checked >= initial:
                break

    return apply


def _reroll(test: Callable[[int], bool], limit: int | None, recursive: bool) -> Applier:
    def apply(results: list[_Res], draw: Callable[[], _Res]) -> None:
        left = limit
        checked, initial = 0, len(results)
        while checked < len(results):
            res = results[checked]
            checked += 1
            if res.active:
                if left is not None and left <= 0:
                    break
                if test(res.value):
                    res.active = False
                    res.tag("rerolled")
                    new = draw()
                    new.tags += ("reroll",)
                    results.append(new)
                    if left is not None:
                        left -= 1
            if not recursive and checked >= initial:
                break

    return apply


def _discards(number: int, keep: bool, count: int) -> int:
    """How many of ``count`` active dice a keep/drop of ``number`` discards."""
    discard = count - number if keep else number
    return 0 if discard < 0 else count if discard > count else discard


def _keep_or_drop(number: int, keep: bool, highest: bool) -> Applier:
    """Foundry's ``DiceTerm._keepOrDrop``: the dice beyond the cut are
    discarded, and of the dice tied at the cut the earliest go first. A stable
    sort gives exactly that: discard the first dice ordered lowest first (keep
    highest, drop lowest) or highest first (keep lowest, drop highest)."""
    descending = keep != highest

    def apply(results: list[_Res], draw: Callable[[], _Res]) -> None:
        active = [r for r in results if r.active]
        discard = _discards(number, keep, len(active))
        if discard:
            for res in sorted(active, key=_value, reverse=descending)[:discard]:
                res.active = False
                res.tag("dropped")

    return apply


def _value(res: _Res) -> int:
    return res.value


def _clamp(bound: int, minimum: bool) -> Applier:
    tag = "min" if minimum else "max"

    def apply(results: list[_Res], draw: Callable[[], _Res]) -> None:
        for res in results:
            if res.active and ((res.value < bound) if minimum else (res.value > bound)):
                res.value = bound
                res.tag(tag)

    return apply


def _applier(modifier: Modifier, faces: int) -> Applier:
    kind = modifier.kind
    if kind in ("x", "xo", "r", "rr"):
        default = faces if kind in ("x", "xo") else 1
        target = default if modifier.target is None else modifier.target
        test = _condition(modifier.comparison, target)
        if kind in ("x", "xo"):
            return _explode(test, modifier.count, recursive=kind == "x")
        return _reroll(test, modifier.count, recursive=kind == "rr")
    if kind in ("kh", "kl", "dh", "dl"):
        assert modifier.count is not None
        return _keep_or_drop(modifier.count, keep=kind[0] == "k", highest=kind[1] == "h")
    assert modifier.target is not None
    return _clamp(modifier.target, minimum=kind == "min")


def _counter(modifier: Modifier, faces: int) -> Callable[[list[_Res]], int]:
    success = modifier.kind == "cs"
    default = faces if success else 1
    test = _condition(modifier.comparison, default if modifier.target is None else modifier.target)

    def count(results: list[_Res]) -> int:
        hits = 0
        for res in results:
            if res.active:
                if test(res.value):
                    hits += 1
                    res.tag("success" if success else "failure")
                elif success:
                    res.tag("failure")
        return hits

    return count


def _compile_dice(node: Dice) -> Evaluator:
    spec = _Spec(node)
    faces, number, compound = node.faces, node.number, node.compound
    mods = node.modifiers
    counting = mods[-1] if mods and mods[-1].kind in ("cs", "cf") else None
    appliers = [_applier(m, faces) for m in (mods[:-1] if counting else mods)]
    counter = _counter(counting, faces) if counting is not None else None
    count_successes = counting is not None and counting.kind == "cs"

    if not appliers and counter is None and compound is None:
        if number == 1:

            def single(source: DiceSource, out: list[Any]) -> Total:
                value = source.roll(faces)
                out.append(DiceTerm(spec, [value], value, None))
                return value

            return single

        def plain(source: DiceSource, out: list[Any]) -> Total:
            values = [*map(source.roll, repeat(faces, number))]
            total = sum(values)
            out.append(DiceTerm(spec, values, total, None))
            return total

        return plain
    if counter is None and compound is None and all(m.kind in _KEEP_DROP for m in mods):
        return _compile_keep_drop(spec, mods)
    if (
        counter is None
        and compound is None
        and len(mods) == 1
        and mods[0].kind in ("x", "xo")
        and mods[0].count is None
    ):
        return _compile_explode(spec, mods[0])

    spec.records = _result_records

    def modified(source: DiceSource, out: list[Any]) -> Total:
        roll = source.roll
        if compound is None:

            def draw() -> _Res:
                value = roll(faces)
                return _Res(value, (value,))

        else:

            def draw() -> _Res:
                value = roll(faces)
                if value < compound:
                    return _Res(value, (value,))
                rolls = [value]
                while value >= compound:
                    value = roll(faces)
                    rolls.append(value)
                res = _Res(sum(rolls), tuple(rolls))
                res.tags = ("compounded",)
                return res

        results = [draw() for _ in repeat(None, number)]
        for apply in appliers:
            apply(results, draw)
        if counter is not None:
            total = counter(results)
            out.append(DiceTerm(spec, results, total, total if count_successes else None))
            return total
        total = sum(r.value for r in results if r.active)
        out.append(DiceTerm(spec, results, total, None))
        return total

    return modified


_KEEP_DROP = ("kh", "kl", "dh", "dl")


def _compile_keep_drop(spec: _Spec, mods: tuple[Modifier, ...]) -> Evaluator:
    """Fast path: plain dice, then keep/drop only (4d6kh3, 2d20kl1). The results
    stay ints with a kept flag each."""
    faces, number = spec.node.faces, spec.node.number
    spec.records = _kept_records
    steps = [(m.count or 0, m.kind[0] == "k", m.kind[1] == "h") for m in mods]
    if len(steps) == 1:
        count, keep, highest = steps[0]
        discard = _discards(count, keep, number)  # the number of dice is known here
        descending = keep != highest

        def keep_drop(source: DiceSource, out: list[Any]) -> Total:
            values = [*map(source.roll, repeat(faces, number))]
            kept = [True] * number
            total = sum(values)
            for index in sorted(range(number), key=values.__getitem__, reverse=descending)[
                :discard
            ]:
                kept[index] = False
                total -= values[index]
            out.append(DiceTerm(spec, (values, kept), total, None))
            return total

        return keep_drop

    def keep_drops(source: DiceSource, out: list[Any]) -> Total:
        values = [*map(source.roll, repeat(faces, number))]
        kept = [True] * number
        active = list(range(number))
        for count, keep, highest in steps:
            discard = _discards(count, keep, len(active))
            if discard:
                dropped = sorted(active, key=values.__getitem__, reverse=keep != highest)[:discard]
                for index in dropped:
                    kept[index] = False
                active = [i for i in active if kept[i]]
        total = sum(values[i] for i in active)
        out.append(DiceTerm(spec, (values, kept), total, None))
        return total

    return keep_drops


def _compile_explode(spec: _Spec, modifier: Modifier) -> Evaluator:
    """Fast path: plain dice exploding (``x``/``xo`` with no count), no other
    modifier (6d6x). The results stay ints; tags are worked out when asked."""
    faces, number = spec.node.faces, spec.node.number
    test = _condition(modifier.comparison, faces if modifier.target is None else modifier.target)
    recursive = modifier.kind == "x"

    def records(values: list[int]) -> Iterator[_Record]:
        for index, value in enumerate(values):
            tags: tuple[str, ...] = () if index < number else ("explosion",)
            if (recursive or index < number) and test(value):
                tags += ("exploded",)
            yield (value,), value, True, tags

    spec.records = records

    if recursive:

        def explode(source: DiceSource, out: list[Any]) -> Total:
            roll = source.roll
            values = [*map(roll, repeat(faces, number))]
            for value in values:  # the loop sees the dice appended as it runs
                if test(value):
                    values.append(roll(faces))
            total = sum(values)
            out.append(DiceTerm(spec, values, total, None))
            return total

        return explode

    def explode_once(source: DiceSource, out: list[Any]) -> Total:
        roll = source.roll
        values = [*map(roll, repeat(faces, number))]
        values += [roll(faces) for value in values[:number] if test(value)]
        total = sum(values)
        out.append(DiceTerm(spec, values, total, None))
        return total

    return explode_once


def _compile(node: Node) -> Evaluator:
    if isinstance(node, Dice):
        return _compile_dice(node)
    if isinstance(node, Num):
        value, term = node.value, NumberTerm(node.value)

        def constant(source: DiceSource, out: list[Any]) -> Total:
            out.append(term)
            return value

        return constant
    if isinstance(node, BinOp):
        left, right = _compile(node.left), _compile(node.right)
        operator = _OPERATORS[node.op]
        op = node.op
        if op == "+":

            def add(source: DiceSource, out: list[Any]) -> Total:
                a = left(source, out)
                out.append(operator)
                return a + right(source, out)

            return add
        if op == "-":

            def sub(source: DiceSource, out: list[Any]) -> Total:
                a = left(source, out)
                out.append(operator)
                return a - right(source, out)

            return sub
        if op == "*":

            def mul(source: DiceSource, out: list[Any]) -> Total:
                a = left(source, out)
                out.append(operator)
                return a * right(source, out)

            return mul

        if not _rolls_dice(node.right) and _constant(right) == 0:
            raise ZeroDivisionError  # it never rolls: compile_formula refuses it

        def div(source: DiceSource, out: list[Any]) -> Total:
            a = left(source, out)
            out.append(operator)
            return a / right(source, out)  # ZeroDivisionError: caught by the runner

        return div
    if isinstance(node, Neg):
        operand = _compile(node.operand)

        def neg(source: DiceSource, out: list[Any]) -> Total:
            out.append(_NEGATE)
            return -operand(source, out)

        return neg
    if isinstance(node, Group):
        inner = _compile(node.inner)

        def group(source: DiceSource, out: list[Any]) -> Total:
            terms: list[Any] = []
            value = inner(source, terms)
            out.append(ParentheticalTerm(tuple(terms), value))
            return value

        return group
    assert isinstance(node, Call)
    arg, name = _compile(node.arg), node.name
    function = _FUNCTIONS[name]

    def call(source: DiceSource, out: list[Any]) -> Total:
        terms: list[Any] = []
        value = function(arg(source, terms))
        out.append(FunctionTerm(name, tuple(terms), value))
        return value

    return call


def _rolls_dice(node: Node) -> bool:
    """Whether ``node`` has a dice term."""
    if isinstance(node, Dice):
        return True
    if isinstance(node, BinOp):
        return _rolls_dice(node.left) or _rolls_dice(node.right)
    if isinstance(node, Neg):
        return _rolls_dice(node.operand)
    if isinstance(node, Group):
        return _rolls_dice(node.inner)
    return isinstance(node, Call) and _rolls_dice(node.arg)


def _constant(evaluate: Evaluator) -> Total:
    """The value of a compiled sub-formula without dice, as a roll computes it."""
    return evaluate(None, [])  # type: ignore[arg-type]  # no dice: the source is never read


def _js_round(value: Total) -> int:
    """Foundry's ``round`` is JavaScript's ``Math.round``: halves go up (-2.5 → -2)."""
    return math.floor(value + 0.5)


_FUNCTIONS: dict[str, Callable[[Total], Total]] = {
    "floor": math.floor,
    "ceil": math.ceil,
    "round": _js_round,
    "abs": abs,
}


say = Messages("rollbridge")
# Translators: {formula} is the formula, quoted.
ROOM = say.plural(
    "dice.room",
    "{formula} rolls at least {count} die; this request may roll {left} more (limit {limit})",
    "{formula} rolls at least {count} dice; this request may roll {left} more (limit {limit})",
)
ZERO_DIVISION = say("dice.zero_division", "{formula} divides by zero")
TOO_LARGE = say("dice.too_large", "{formula} gives a number too large to compute")
BEYOND_64_BITS = say(
    "dice.beyond_64_bits",
    "{formula} gives a number beyond the 64-bit range (at most about ±9.2e18), which a table "
    "cannot store or send",
)


def compile_formula(formula: Formula) -> Callable[[DiceSource], RollResult]:
    """A function that rolls ``formula`` with a source and returns its result.

    A division by a divisor without dice that is 0 (``2d6/0``, ``1d6/(2-2)``) could
    never be rolled: it is refused here, before any roll (:func:`prepare`, which
    every roll calls first, so a formula that could only fail is refused before its
    first die). Before drawing anything the
    function it returns checks that the source's per-request limit leaves room for
    the formula's dice (explosions aside); if a roll fails part-way (the limit, a
    divisor with dice that rolled 0, scripted dice that do not fit), a
    :class:`~rollbridge.dice.sources.ScriptedDice` source is rewound to where it
    was, so the failed roll consumed nothing.

    :raises NotationError: a divisor without dice that is 0.
    """
    text = str(formula)
    try:
        evaluate = _compile(formula.root)
    except ZeroDivisionError:
        raise NotationError(ZERO_DIVISION(formula=repr(text)), details={"formula": text}) from None
    needed = formula.min_dice

    def run(source: DiceSource) -> RollResult:
        drawn = source.drawn
        if drawn + needed > source.limit:
            raise DiceLimitExceeded(
                ROOM(
                    formula=repr(text),
                    count=needed,
                    left=max(source.limit - drawn, 0),
                    limit=source.limit,
                ),
                details={"formula": text, "limit": source.limit, "needed": needed},
            )
        position = getattr(source, "position", None)
        out: list[Any] = []
        try:
            total = evaluate(source, out)
        except ZeroDivisionError:
            _rewind(source, drawn, position)
            raise NotationError(
                ZERO_DIVISION(formula=repr(text)), details={"formula": text}
            ) from None
        except OverflowError:
            _rewind(source, drawn, position)
            raise DiceLimitExceeded(
                TOO_LARGE(formula=repr(text)), details={"formula": text}
            ) from None
        except BaseException:
            _rewind(source, drawn, position)
            raise
        if not _storable(total, out):
            _rewind(source, drawn, position)
            raise DiceLimitExceeded(
                BEYOND_64_BITS(formula=repr(text)),
                details={"formula": text},
            )
        if total.__class__ is float and total.is_integer():  # type: ignore[union-attr]
            total = int(total)
        return RollResult(text, total, tuple(out))

    return run


_LIMIT = 2**63


def _storable(total: Total, terms: list[Any]) -> bool:
    """Whether a total and every sub-total recorded (parentheses, functions) fit
    a 64-bit integer or a finite float, as every store and client codec needs."""
    if total.__class__ is float:
        if not math.isfinite(total) or (total.is_integer() and not -_LIMIT <= total < _LIMIT):
            return False
    elif not -_LIMIT <= total < _LIMIT:
        return False
    return all(
        _storable(term.total, list(term.terms))
        for term in terms
        if isinstance(term, ParentheticalTerm | FunctionTerm)
    )


def _rewind(source: DiceSource, drawn: int, position: int | None) -> None:
    """Put scripted dice back where they were before a failed roll."""
    if position is not None and isinstance(source, ScriptedDice):
        source.position = position
        source.drawn = drawn


def roll_formula(formula: str | Formula, source: DiceSource) -> RollResult:
    """Roll dice notation (text or a parsed :class:`Formula`) with ``source``.

    The caller owns the source: it calls ``source.finish()`` when the request is
    done (scripted dice then check that every supplied result was used).

    :raises NotationError: invalid notation, or a division by zero.
    :raises DiceLimitExceeded: past a limit (see :func:`~rollbridge.dice.notation.parse`
        and the source's per-request result limit).
    :raises DiceScriptError: scripted dice that do not fit the roll.
    """
    return prepare(formula)._run(source)  # type: ignore[union-attr]


def prepare(formula: str | Formula) -> Formula:
    """Dice notation parsed and compiled (each once: the parser caches formulas, and a
    formula keeps what it compiled to), ready to roll with :func:`roll_formula`.

    It checks everything that needs no dice: what :func:`~rollbridge.dice.notation.parse`
    checks, and a division by a divisor without dice that is 0 (``2d6/0``,
    ``1d6/(2-2)``), which could never be rolled. A request checked before it is held
    (for the GM's approval, say) calls it, not ``parse``.

    :raises NotationError: invalid notation, or a divisor without dice that is 0.
    :raises DiceLimitExceeded: past a limit of the notation.
    """
    if formula.__class__ is str and len(formula) <= MAX_FORMULA_LENGTH:  # type: ignore[arg-type]
        formula = _parse(formula)  # type: ignore[arg-type]  # the cache, directly
    elif formula.__class__ is not Formula:
        formula = parse(formula)  # type: ignore[arg-type]
    if formula._run is None:  # type: ignore[union-attr]
        object.__setattr__(formula, "_run", compile_formula(formula))  # type: ignore[arg-type]
    return formula  # type: ignore[return-value]
