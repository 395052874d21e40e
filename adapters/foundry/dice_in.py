"""Foundry Roll JSON → what the core's ``roll`` request needs: a formula and,
for a roll Foundry already evaluated, its die results in the order drawn.

A Roll arrives as ``Roll#toJSON`` wrote it (``formula``, ``terms``,
``evaluated``, ``total``, each ``Die`` with its ``results``). Term flavor text
(``2d6[fire]``) is dropped from the formula: rollbridge's notation has none.

Supplied results are every result of every ``Die`` term, active or not, in
term order and, within a term, in the order Foundry recorded them — the dice
first rolled, then each explosion or reroll as it was added, which is the
order rollbridge draws them. Dice that Foundry evaluates before the others
(inside parentheses or functions, kept in the Roll's ``dice``) or in pools
cannot be put back in draw order, so such a Roll is refused when its results
are to be used; sent unevaluated, the server rolls it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from rollbridge.exceptions import InvalidRequest
from rollbridge.text import Messages

__all__ = ["formula_of", "is_evaluated", "results_of"]

_FLAVOR = re.compile(r"\[[^\]]*\]")
_PLAIN_TERMS = {"OperatorTerm", "NumericTerm", "StringTerm"}
_DIE_CLASSES = {"Die"}
MAX_FORMULA = 256

say = Messages("rollbridge")
# Translators: {field} is the path of the offending part of a Foundry Roll
# (roll.formula, roll.terms[0].results[1].result): keep it as it is.
UNEVALUATED = say(
    "foundry.send_unevaluated",
    "{field}: dice inside parentheses or functions are evaluated out of order; send the roll "
    "unevaluated and the server rolls it",
)


def _where(field: str) -> str:
    return f"roll.{field}"


def formula_of(roll: Mapping[str, Any]) -> str:
    """The Roll's formula without flavor text.

    :raises InvalidRequest: when there is no usable formula.
    """
    formula = roll.get("formula")
    if not isinstance(formula, str) or not formula.strip():
        raise InvalidRequest(
            say("foundry.formula_missing", "{field}: a Foundry roll needs its formula")(
                field=_where("formula")
            )
        )
    cleaned = " ".join(_FLAVOR.sub("", formula).split())
    if not cleaned:
        raise InvalidRequest(
            say("foundry.formula_empty", "{field}: {formula} holds no dice notation")(
                field=_where("formula"), formula=repr(formula)
            )
        )
    if len(cleaned) > MAX_FORMULA:
        raise InvalidRequest(
            say("foundry.formula_long", "{field}: longer than {limit} characters")(
                field=_where("formula"), limit=MAX_FORMULA
            )
        )
    return cleaned


def is_evaluated(roll: Mapping[str, Any]) -> bool:
    """Whether the Roll carries results (Foundry already rolled it)."""
    if roll.get("evaluated") is False:
        return False
    if roll.get("dice"):
        return True
    terms = roll.get("terms")
    return isinstance(terms, list) and any(
        isinstance(t, Mapping) and t.get("results") for t in terms
    )


def results_of(roll: Mapping[str, Any]) -> list[int]:
    """Every die result of an evaluated Roll, in draw order.

    :raises InvalidRequest: for a Roll whose results cannot be used (dice inside
        parentheses, functions or pools; another kind of die; a result that is
        not a whole number).
    """
    if roll.get("dice"):
        raise InvalidRequest(UNEVALUATED(field=_where("dice")))
    terms = roll.get("terms")
    if not isinstance(terms, list):
        raise InvalidRequest(
            say("foundry.terms", "{field}: an evaluated roll needs its terms")(
                field=_where("terms")
            )
        )
    out: list[int] = []
    for index, term in enumerate(terms):
        if not isinstance(term, Mapping):
            continue  # a bare string term carries no dice
        cls = term.get("class")
        where = _where(f"terms[{index}]")
        if cls in _PLAIN_TERMS:
            continue
        if cls not in _DIE_CLASSES:
            raise InvalidRequest(
                say(
                    "foundry.term_class",
                    "{field}: a {kind} cannot supply its results; send the "
                    "roll unevaluated and the server rolls it",
                )(field=where, kind=str(cls))
            )
        results = term.get("results")
        if not isinstance(results, list):
            raise InvalidRequest(
                say("foundry.results", "{field}: a list of results is needed")(
                    field=f"{where}.results"
                )
            )
        for position, result in enumerate(results):
            value = result.get("result") if isinstance(result, Mapping) else None
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise InvalidRequest(
                    say("foundry.result_number", "{field}: not a number")(
                        field=f"{where}.results[{position}].result"
                    )
                )
            if value != int(value):
                raise InvalidRequest(
                    say("foundry.result_whole", "{field}: not a whole number")(
                        field=f"{where}.results[{position}].result"
                    )
                )
            out.append(int(value))
    return out
