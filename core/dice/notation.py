"""Dice notation: the Foundry VTT subset, parsed into an immutable tree.

:func:`parse` turns a formula such as ``4d6kh3 + 5`` or ``(2d6x + 3) * 2`` into a
:class:`Formula`: a tree of :class:`Num`, :class:`Dice`, :class:`Neg`,
:class:`BinOp`, :class:`Group` (parentheses) and :class:`Call` (``floor(…)``)
nodes. Parsing checks everything that can be checked without rolling — syntax,
the limits, explosions or rerolls that could never stop. Compiling it
(:func:`rollbridge.dice.evaluate.prepare`, which every roll does first) refuses a
division by a divisor without dice that is 0 (``2d6/0``); so a formula that
compiles can only fail at roll time on the per-request result limit of its dice
source, a divisor with dice that rolled 0 (``1/(1d2-1)``) or a scripted die that
does not fit.

The grammar (whitespace allowed between tokens, not inside a dice term)::

    expr     := product (("+" | "-") product)*
    product  := unary (("*" | "/") unary)*
    unary    := ("-" | "+")* atom
    atom     := INT | dice | "(" expr ")" | FUNC "(" expr ")"
    dice     := [INT] "d" (INT | "%") ["!!" [(">=" | ">") INT]] modifier*
    modifier := ("x" | "xo" | "r" | "rr") [INT] [CMP INT]
              | ("k" | "kh" | "kl" | "d" | "dh" | "dl") [INT]
              | ("cs" | "cf") [CMP] [INT]
              | ("min" | "max") INT
    CMP      := "=" | "==" | "<" | "<=" | ">" | ">="
    FUNC     := "floor" | "ceil" | "round" | "abs"

``str(formula)`` is the normalised text (``d6`` → ``1d6``, ``k`` → ``kh1``,
``d%`` → ``1d100``, one space around binary operators) and parses back to an
equal formula. Parsed formulas are cached, so parsing a formula a server sees
again and again costs a dictionary look-up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from rollbridge.dice.labels import LABEL, label_problem
from rollbridge.dice.pools import pool_problem
from rollbridge.dice.sources import MAX_FACES, MAX_RESULTS_PER_REQUEST
from rollbridge.exceptions import DiceLimitExceeded, NotationError
from rollbridge.text import Messages, Text

__all__ = [
    "FUNCTIONS",
    "MAX_DEPTH",
    "MAX_DICE_PER_TERM",
    "MAX_FORMULA_LENGTH",
    "MAX_NUMBER",
    "BinOp",
    "Call",
    "Dice",
    "Formula",
    "Group",
    "Modifier",
    "Neg",
    "Node",
    "Num",
    "parse",
]

#: The most dice one term may roll before explosions and rerolls (``999d6``).
MAX_DICE_PER_TERM = 999
#: The longest formula accepted, in characters.
MAX_FORMULA_LENGTH = 256
#: The deepest nesting of parentheses (and function calls).
MAX_DEPTH = 32
#: The largest integer constant, and the largest number in a modifier.
MAX_NUMBER = 1_000_000_000
#: Functions a formula may call on a sub-expression.
FUNCTIONS = ("floor", "ceil", "round", "abs")

# -- the tree ---------------------------------------------------------------------

#: Modifier kinds, in the order the scanner tries them (longest first).
_MODIFIER_NAMES = ("min", "max", "xo", "x", "kh", "kl", "k", "dh", "dl", "d", "rr", "r", "cs", "cf")
say = Messages("rollbridge")

#: Foundry modifiers that are recognised but not supported, with what they do there.
# Translators: what a Foundry dice modifier rollbridge does not support does there.
_UNSUPPORTED = {
    "df": say("dice.modifier.df", "deduct failures"),
    "sf": say("dice.modifier.sf", "subtract failures"),
    "ms": say("dice.modifier.ms", "margin of success"),
    "even": say("dice.modifier.even", "count even"),
    "odd": say("dice.modifier.odd", "count odd"),
}
# Translators: {formula} is the formula as written, quoted; {problem} one of the
# dice.* problems below; {position} counts characters from 1.
INVALID = say("dice.invalid", "invalid dice formula {formula}: {problem} (at character {position})")
# Translators: like dice.invalid, for a formula past one of the limits.
LIMITED = say("dice.limited", "dice formula {formula}: {problem} (at character {position})")
# Translators: {length} counts characters (more than {limit}, which is 256).
TOO_LONG = say.plural(
    "dice.too_long",
    "a dice formula of {length} character; at most {limit} are allowed",
    "a dice formula of {length} characters; at most {limit} are allowed",
    count="length",
)
# Translators: {faces} is the number of faces written (more than {limit}, 1,000,000; the
# first 12 digits of its value).
FACES_LIMIT = say.plural(
    "dice.faces_limit",
    "a die of {faces} face; at most {limit:,} are allowed",
    "a die of {faces} faces; at most {limit:,} are allowed",
    count="faces",
)
_COMPARISONS = ("=", "<", "<=", ">", ">=")


@dataclass(frozen=True, slots=True)
class Modifier:
    """One dice modifier, as written after ``NdF``.

    ``kind`` is one of ``x xo r rr kh kl dh dl cs cf min max`` (``k`` and ``d``
    are normalised to ``kh`` and ``dl``). The other fields depend on the kind:

    * ``x``/``xo``/``r``/``rr``: ``comparison`` and ``target`` of the condition
      (``target`` None: the default — the die's maximum for ``x``/``xo``, 1 for
      ``r``/``rr``); ``count`` limits how many times it may happen (Foundry's
      ``r1=1``: reroll a single 1), None for no limit.
    * ``kh``/``kl``/``dh``/``dl``: ``count`` dice to keep or drop.
    * ``cs``/``cf``: ``comparison`` and ``target`` (None: the maximum for
      ``cs``, 1 for ``cf``).
    * ``min``/``max``: ``target`` is the bound.
    """

    kind: str
    count: int | None = None
    comparison: str = "="
    target: int | None = None

    def __str__(self) -> str:
        kind, count, cmp, target = self.kind, self.count, self.comparison, self.target
        if kind in ("kh", "kl", "dh", "dl"):
            return f"{kind}{count}"
        if kind in ("min", "max"):
            return f"{kind}{target}"
        if target is None:
            return kind
        if kind in ("cs", "cf"):
            return f"{kind}{target}" if cmp == "=" else f"{kind}{cmp}{target}"
        # x, xo, r, rr: "x6" means "= 6" when no count is given
        if count is None:
            return f"{kind}{target}" if cmp == "=" else f"{kind}{cmp}{target}"
        return f"{kind}{count}{cmp}{target}"


@dataclass(frozen=True, slots=True)
class Num:
    """An integer constant."""

    value: int

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True, slots=True)
class Dice:
    """A dice term ``NdF`` with its modifiers.

    ``compound`` is the threshold of a compounding term (``3d6!!`` → 6,
    ``3d6!!>=5`` → 5): each die that shows at least the threshold rolls again
    and adds, and counts as one die. None for an ordinary term.
    """

    number: int
    faces: int
    modifiers: tuple[Modifier, ...] = ()
    compound: int | None = None

    @property
    def text(self) -> str:
        """The normalised text of the term, e.g. ``4d6kh3``."""
        head = f"{self.number}d{self.faces}"
        if self.compound is not None:
            head += "!!" if self.compound == self.faces else f"!!>={self.compound}"
        return head + "".join(str(m) for m in self.modifiers)

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class Neg:
    """Unary minus."""

    operand: Node

    def __str__(self) -> str:
        return f"-{self.operand}"


@dataclass(frozen=True, slots=True)
class BinOp:
    """A binary operation: ``+ - * /`` (``/`` is real division, as in Foundry)."""

    op: str
    left: Node
    right: Node

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}"


@dataclass(frozen=True, slots=True)
class Group:
    """A parenthesised sub-expression (kept, so the formula prints as written)."""

    inner: Node

    def __str__(self) -> str:
        return f"({self.inner})"


@dataclass(frozen=True, slots=True)
class Call:
    """A function applied to a sub-expression: ``floor``, ``ceil``, ``round``, ``abs``."""

    name: str
    arg: Node

    def __str__(self) -> str:
        return f"{self.name}({self.arg})"


Node = Num | Dice | Neg | BinOp | Group | Call


@dataclass(frozen=True, slots=True)
class Formula:
    """A parsed formula: its tree and its normalised text. Immutable; equal
    formulas compare and hash equal. Roll it with
    :func:`~rollbridge.dice.evaluate.roll_formula` (which compiles it once)."""

    root: Node
    #: The fewest dice one roll of this formula draws (explosions not counted).
    min_dice: int = field(default=0, compare=False)
    _run: Any = field(default=None, compare=False, repr=False)

    @property
    def text(self) -> str:
        """The normalised formula."""
        return str(self.root)

    def __str__(self) -> str:
        return str(self.root)

    def dice_terms(self) -> tuple[Dice, ...]:
        """The dice terms, in formula order."""
        found: list[Dice] = []
        stack: list[Node] = [self.root]
        while stack:
            node = stack.pop()
            if isinstance(node, Dice):
                found.append(node)
            elif isinstance(node, BinOp):
                stack.append(node.right)
                stack.append(node.left)
            elif isinstance(node, Neg):
                stack.append(node.operand)
            elif isinstance(node, Group):
                stack.append(node.inner)
            elif isinstance(node, Call):
                stack.append(node.arg)
        return tuple(found)


# -- the scanner and parser -------------------------------------------------------

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<dice>(?P<count>\d+)?[dD](?P<faces>\d+|%)(?P<mods>[!a-zA-Z0-9<>=]*))
  | (?P<num>\d+)
  | (?P<func>[a-zA-Z]+)
  | (?P<op>[-+*/()])
    """,
    re.VERBOSE,
)
_CMP = r"(==|=|<=|>=|<|>)"
_MOD_NAME = re.compile("|".join(sorted(_MODIFIER_NAMES, key=len, reverse=True)))
_UNSUPPORTED_NAME = re.compile("|".join(sorted(_UNSUPPORTED, key=len, reverse=True)))
_COND_PARAMS = re.compile(rf"(\d+)?{_CMP}?(\d+)?")  # x xo r rr: [count][cmp target]
_COUNT_PARAMS = re.compile(r"(\d+)?")  # k kh kl d dh dl
_CS_PARAMS = re.compile(rf"{_CMP}?(\d+)?")  # cs cf
_BOUND_PARAMS = re.compile(r"(\d+)?")  # min max
_COMPOUND = re.compile(r"!!(?:(>=|>)(\d+))?")


NUMBER_AFTER = say("dice.number_after", "expected a number after {written}")
ENDLESS_EXPLODE = say(
    "dice.endless_explode", "{modifier} would explode every result of a d{faces} and never stop"
)
ENDLESS_REROLL = say(
    "dice.endless_reroll", "{modifier} would reroll every result of a d{faces} and never stop"
)


class _Parser:
    """A recursive-descent parser over the tokens of one formula."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, str, int, re.Match[str]]] = []
        self.pos = 0
        self.depth = 0
        self.min_dice = 0
        self._scan()

    # errors ---------------------------------------------------------------------

    def error(self, problem: Text, index: int) -> NotationError:
        return NotationError(
            INVALID(formula=repr(self.text), problem=problem, position=index + 1),
            details={"formula": self.text, "index": index},
        )

    def limit(self, problem: Text, index: int, **details: Any) -> DiceLimitExceeded:
        return DiceLimitExceeded(
            LIMITED(formula=repr(self.text), problem=problem, position=index + 1),
            details={"formula": self.text, "index": index, **details},
        )

    # scanning -------------------------------------------------------------------

    def _scan(self) -> None:
        text, index, end = self.text, 0, len(self.text)
        label = LABEL.search(text) if "[" in text else None
        if label is not None:  # Foundry's flavour text: the formula without it
            raise self.error(label_problem(text, label, _parsed), label.start())
        while index < end:
            match = _TOKEN.match(text, index)
            if match is None and text[index] == "{":  # a Foundry pool: what to type instead
                raise self.error(pool_problem(text, index, _normalised), index)
            if match is None:
                raise self.error(
                    say("dice.unexpected", "unexpected {char}")(char=repr(text[index])), index
                )
            kind = match.lastgroup
            if kind == "func":
                word = match.group("func").lower()
                if word not in FUNCTIONS:
                    raise self._unknown_word(match.group("func"), index)
            if kind != "ws":
                self.tokens.append((kind, match.group(kind), index, match))  # type: ignore[arg-type]
            index = match.end()

    def _unknown_word(self, word: str, index: int) -> NotationError:
        lower = word.lower()
        previous = self.tokens[-1] if self.tokens else None
        if previous is not None and previous[0] == "dice" and _MOD_NAME.match(lower):
            return self.error(
                say("dice.modifier_space", "the modifier {word} must follow its dice without a "
                    "space")(word=repr(word)),
                index,
            )  # fmt: skip
        if lower[0] == "d":
            return self.error(
                say("dice.faces_expected", "expected the number of faces after 'd' (as in 3d6)")(),
                index + 1,
            )
        return self.error(say("dice.unknown_word", "unknown word {word}")(word=repr(word)), index)

    # grammar --------------------------------------------------------------------

    def peek(self) -> tuple[str, str, int, re.Match[str]] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def parse(self) -> Node:
        if not self.tokens:
            raise self.error(say("dice.empty", "the formula is empty")(), 0)
        node = self.expr()
        token = self.peek()
        if token is not None:
            if token[1] == ")":
                raise self.error(say("dice.unmatched", "unmatched ')'")(), token[2])
            raise self.error(
                say("dice.operator_expected", "expected an operator before {token}")(
                    token=repr(token[1])
                ),
                token[2],
            )
        return node

    def expr(self) -> Node:
        node = self.product()
        while (token := self.peek()) is not None and token[1] in ("+", "-"):
            self.pos += 1
            node = BinOp(token[1], node, self.product())
        return node

    def product(self) -> Node:
        node = self.unary()
        while (token := self.peek()) is not None and token[1] in ("*", "/"):
            self.pos += 1
            node = BinOp(token[1], node, self.unary())
        return node

    def unary(self) -> Node:
        negate = 0
        while (token := self.peek()) is not None and token[1] in ("+", "-"):
            self.pos += 1
            if token[1] == "-":
                negate += 1
        node = self.atom()
        # keep each written minus so the normalised text reparses to the same tree
        for _ in range(negate):
            node = Neg(node)
        return node

    def atom(self) -> Node:
        token = self.peek()
        if token is None:
            raise self.error(
                say("dice.ends_early", "the formula ends where a number or dice were expected")(),
                len(self.text),
            )
        kind, value, index, match = token
        self.pos += 1
        if kind == "num":
            return Num(self.number(value, index))
        if kind == "dice":
            return self.dice(match, index)
        if value == "(":
            return Group(self.nested(index))
        if kind == "func":
            following = self.peek()
            if following is None or following[1] != "(":
                raise self.error(
                    say("dice.paren_expected", "expected '(' after {name}")(name=repr(value)),
                    index + len(value),
                )
            self.pos += 1
            return Call(value.lower(), self.nested(following[2]))
        raise self.error(
            say("dice.operand_expected", "expected a number or dice, not {token}")(
                token=repr(value)
            ),
            index,
        )

    def nested(self, open_index: int) -> Node:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.limit(
                say("dice.depth", "parentheses nest deeper than {limit}")(limit=MAX_DEPTH),
                open_index,
                limit=MAX_DEPTH,
            )
        node = self.expr()
        token = self.peek()
        if token is None or token[1] != ")":
            where = len(self.text) if token is None else token[2]
            raise self.error(
                say("dice.unclosed", "the '(' at character {position} is never closed")(
                    position=open_index + 1
                ),
                where,
            )
        self.pos += 1
        self.depth -= 1
        return node

    def number(self, digits: str, index: int) -> int:
        if len(digits) > 10 or int(digits) > MAX_NUMBER:
            raise self.limit(
                say("dice.number", "the number {number} is larger than {limit:,}")(
                    number=digits[:12], limit=MAX_NUMBER
                ),
                index,
                limit=MAX_NUMBER,
            )
        return int(digits)

    # dice terms -----------------------------------------------------------------

    def dice(self, match: re.Match[str], index: int) -> Dice:
        count_text, faces_text = match.group("count"), match.group("faces")
        number = 1 if count_text is None else self.number(count_text, index)
        if number > MAX_DICE_PER_TERM:
            raise self.limit(
                # above the limit, never 1, but Russian agrees with 1001 as with 1 (кость)
                say.plural(
                    "dice.term_limit",
                    "{count} die in one term; at most {limit} are allowed",
                    "{count} dice in one term; at most {limit} are allowed",
                )(count=number, limit=MAX_DICE_PER_TERM),
                index,
                limit=MAX_DICE_PER_TERM,
            )
        faces_index = match.start("faces")
        if faces_text == "%":
            faces = 100
        else:
            # its value's digits: a zero written before them (1d0000001000001) neither
            # makes a small die too large nor is it in the number the message says
            digits = faces_text.lstrip("0") or "0"
            if len(digits) > 10 or int(digits) > MAX_FACES:
                raise self.limit(
                    # a number, so that its words agree with it (cs, ru: 1,000,001 грань)
                    FACES_LIMIT(faces=int(digits[:12]), limit=MAX_FACES),
                    faces_index,
                    limit=MAX_FACES,
                )
            faces = int(digits)
            if faces < 1:
                raise self.error(
                    say("dice.no_faces", "a die needs at least one face")(), faces_index
                )
        mods_text = match.group("mods").lower()
        mods_index = match.start("mods")
        compound, modifiers = self.modifiers(mods_text, mods_index, faces)
        self.min_dice += number
        if self.min_dice > MAX_RESULTS_PER_REQUEST:
            raise self.limit(
                say.plural(
                    "dice.request_limit",
                    "the formula rolls at least {count} die; at most "
                    "{limit} are allowed per request",
                    "the formula rolls at least {count} dice; at most "
                    "{limit} are allowed per request",
                )(count=self.min_dice, limit=MAX_RESULTS_PER_REQUEST),
                index,
                limit=MAX_RESULTS_PER_REQUEST,
            )
        return Dice(number, faces, modifiers, compound)

    def modifiers(
        self, text: str, base: int, faces: int
    ) -> tuple[int | None, tuple[Modifier, ...]]:
        compound: int | None = None
        at = 0
        if text.startswith("!!"):
            match = _COMPOUND.match(text)
            assert match is not None
            if match.group(2) is not None:
                threshold = self.number(match.group(2), base + match.start(2))
                compound = threshold + 1 if match.group(1) == ">" else threshold
            else:
                compound = faces
            if faces < 2 or compound < 2:
                raise self.error(
                    say(
                        "dice.compound_endless",
                        "a compounding d{faces} that rolls again on "
                        "{compound} or more would never stop",
                    )(faces=faces, compound=compound),
                    base,
                )
            at = match.end()
        mods: list[Modifier] = []
        counting: list[Modifier] = []
        while at < len(text):
            here = base + at
            if text[at] == "!":
                raise self.error(
                    say(
                        "dice.bang",
                        "unexpected '!': write !! right after the faces to compound "
                        "(3d6!!) or x to explode (3d6x)",
                    )(),
                    here,
                )
            unsupported = _UNSUPPORTED_NAME.match(text, at)
            name_match = _MOD_NAME.match(text, at)
            if unsupported and (not name_match or unsupported.end() > name_match.end()):
                raise self.error(
                    say("dice.unsupported", "the modifier {modifier} ({meaning}) is not supported")(
                        modifier=repr(unsupported.group()),
                        meaning=_UNSUPPORTED[unsupported.group()](),
                    ),
                    here,
                )
            if name_match is None:
                raise self.error(
                    say("dice.unknown_modifier", "unknown dice modifier {modifier}")(
                        modifier=repr(text[at:])
                    ),
                    here,
                )
            name = name_match.group()
            at = name_match.end()
            modifier, at = self.modifier(name, text, at, base, faces)
            if modifier.kind in ("cs", "cf"):
                if counting:
                    raise self.error(
                        say(
                            "dice.one_counting",
                            "only one of cs and cf may count a term ({modifier} already does)",
                        )(modifier=str(counting[0])),
                        here,
                    )
                counting.append(modifier)
            else:
                mods.append(modifier)
            if modifier.kind in ("x", "xo") and compound is not None:
                raise self.error(
                    say(
                        "dice.compound_explode",
                        "a compounding term (!!) cannot also explode into extra dice (x)",
                    )(),
                    here,
                )
        return compound, tuple(mods + counting)

    def modifier(
        self, name: str, text: str, at: int, base: int, faces: int
    ) -> tuple[Modifier, int]:
        here = base + at
        if name in ("x", "xo", "r", "rr"):
            match = _COND_PARAMS.match(text, at)
            assert match is not None
            first, cmp, second = match.groups()
            if cmp is not None and second is None:
                raise self.error(NUMBER_AFTER(written=f"{name}{first or ''}{cmp}"), here)
            count: int | None = None
            if first is not None and cmp is None and second is None:
                target: int | None = self.number(first, here)
            else:
                count = None if first is None else self.number(first, here)
                target = None if second is None else self.number(second, here)
            cmp = "=" if cmp in (None, "==") else cmp
            modifier = Modifier(name, count, cmp, target)
            if count is None and name in ("x", "rr"):
                default = faces if name == "x" else 1
                if _every_face(cmp, default if target is None else target, faces):
                    written = f"{name}{'' if target is None else str(modifier)[len(name) :]}"
                    endless = ENDLESS_EXPLODE if name == "x" else ENDLESS_REROLL
                    raise self.error(endless(modifier=written, faces=faces), here - len(name))
            return modifier, match.end()
        if name in ("k", "kh", "kl", "d", "dh", "dl"):
            match = _COUNT_PARAMS.match(text, at)
            assert match is not None
            kind = {"k": "kh", "d": "dl"}.get(name, name)
            number = 1 if match.group(1) is None else self.number(match.group(1), here)
            return Modifier(kind, number), match.end()
        if name in ("cs", "cf"):
            match = _CS_PARAMS.match(text, at)
            assert match is not None
            cmp, value = match.groups()
            if cmp is not None and value is None:
                raise self.error(NUMBER_AFTER(written=f"{name}{cmp}"), here)
            target = None if value is None else self.number(value, here)
            return Modifier(name, None, "=" if cmp in (None, "==") else cmp, target), match.end()
        # min / max
        match = _BOUND_PARAMS.match(text, at)
        assert match is not None
        if match.group(1) is None:
            raise self.error(
                say("dice.bound_number", "expected a number after {quoted}, as in {name}2")(
                    quoted=repr(name), name=name
                ),
                here,
            )
        return Modifier(name, None, "=", self.number(match.group(1), here)), match.end()


def _every_face(cmp: str, target: int, faces: int) -> bool:
    """True when every face 1..faces satisfies ``result <cmp> target``."""
    if cmp == "=":
        return faces == 1 and target == 1
    if cmp == ">=":
        return target <= 1
    if cmp == ">":
        return target < 1
    if cmp == "<=":
        return target >= faces
    return target > faces  # "<"


@lru_cache(maxsize=1024)
def _parse(text: str) -> Formula:
    if len(text) > MAX_FORMULA_LENGTH:
        raise DiceLimitExceeded(
            TOO_LONG(length=len(text), limit=MAX_FORMULA_LENGTH),
            details={"length": len(text), "limit": MAX_FORMULA_LENGTH},
        )
    parser = _Parser(text)
    return Formula(parser.parse(), parser.min_dice)


def _parsed(formula: str) -> str | Text | None:
    """``formula`` as :func:`parse` normalises it; where it is no formula, what the
    parser says is wrong with it (its refusal's ``problem``, without the formula),
    or None where the refusal names none."""
    try:
        return str(parse(formula))
    except (NotationError, DiceLimitExceeded) as refused:
        problem = refused.text.args.get("problem") if refused.text is not None else None
        return problem if isinstance(problem, Text) else None


def _normalised(formula: str) -> str | None:
    """``formula`` as :func:`parse` normalises it, or None where it is no formula."""
    parsed = _parsed(formula)
    return parsed if isinstance(parsed, str) else None


def parse(formula: str) -> Formula:
    """Parse dice notation into a :class:`Formula` (cached).

    :raises NotationError: (``invalid_notation``) when the text is not valid
        notation or describes a roll that could never stop; the message names
        the problem and the character where it is. (A divisor without dice that is
        0, ``2d6/0``, is refused when the formula is compiled:
        :func:`rollbridge.dice.evaluate.prepare`.)
    :raises DiceLimitExceeded: (``dice_limit``) past a limit: more than 999 dice
        in a term, more than 1,000,000 faces, a formula longer than 256
        characters, parentheses deeper than 32, more than 10,000 dice in all.
    """
    if not isinstance(formula, str):
        raise NotationError(
            say("dice.not_text", "a dice formula must be text, not {type}")(
                type=type(formula).__name__
            ),
            details={"type": type(formula).__name__},
        )
    if len(formula) > MAX_FORMULA_LENGTH:  # before hashing a huge string into the cache
        raise DiceLimitExceeded(
            TOO_LONG(length=len(formula), limit=MAX_FORMULA_LENGTH),
            details={"length": len(formula), "limit": MAX_FORMULA_LENGTH},
        )
    return _parse(formula)
