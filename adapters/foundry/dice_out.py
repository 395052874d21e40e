"""rollbridge's dice → Foundry Roll JSON, the data ``Roll.fromData`` rebuilds.

The shape is the one ``Roll#toJSON`` produces in Foundry v12 and v13:
``{"class": "Roll", "options", "dice", "formula", "terms", "total", "evaluated"}``
with terms ``Die`` (``number``, ``faces``, ``modifiers``, ``results``),
``OperatorTerm`` (``operator``), ``NumericTerm`` (``number``), ``PoolTerm``
(``terms``, ``modifiers``, ``rolls``, ``results``), ``ParentheticalTerm``
(``term``, ``roll``) and ``FunctionTerm`` (``fn``, ``terms``, ``rolls``,
``result``). Each die result is ``{"result", "active"}`` plus, where they
apply, ``exploded``, ``discarded``, ``rerolled``, ``success``, ``failure`` and
``count``.

Rebuilt this way, a Roll shows exactly the server's dice, and Foundry's own
rule for a term's total (the sum over active results of ``count`` when set,
else ``result``) gives the server's total:

- a **compounding** die (``6d6!!``: 6, 6, 3 counting 15 as one die) has no
  Foundry equivalent; it becomes a chain of results of a ``Die`` with the
  ``x`` modifier — 6 (exploded), 6 (exploded), 3 — whose sum is the same. The
  results are in Foundry's own order for ``x`` (``DiceTerm#explode``): every
  die's first roll, then each round of explosions, die by die — ``3d6!!``
  rolling 6+6+3, 2, 5 is 6, 2, 5, 6, 3 — so Dice So Nice throws what Foundry
  would have thrown (dice_in.py puts them back in draw order).
- a **counted** term (``cs``/``cf``, or a ruleset's test against a target
  number) gives every result a ``count``: 1 for the last roll of a die that
  counts, 0 otherwise, so the term's total is the number of successes.
- a **ruleset's dice group** becomes one Roll: one ``Die`` term when its dice
  share their faces, else a ``PoolTerm`` of one Roll per die (the wild die's
  ``{1d8x, 1d6x}kh``); when the group's total differs from its dice (a −2
  modifier) a ``NumericTerm`` carries the difference, so the formula reads as
  the total.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rollbridge.plain import JSON

__all__ = [
    "foundry_order",
    "foundry_total",
    "roll_from_group",
    "roll_from_result",
    "roll_json",
]

Number = int | float

_COUNT_TAG = {"success": "success", "failure": "failure"}


# -- results -----------------------------------------------------------------------


def _die_results(die: Mapping[str, Any], counting: str | None) -> list[JSON]:
    """One rollbridge die as its chain of Foundry results (one per roll)."""
    rolls = [int(r) for r in die.get("rolls") or (die.get("value", 0),)]
    value = die.get("value", sum(rolls))
    kept = bool(die.get("kept", True))
    tags = set(die.get("tags") or ())
    chain = len(rolls) > 1
    # a clamped single die (min/max) shows its clamped value, as Foundry's min/max do
    shown = rolls if chain else [int(value)]
    results: list[JSON] = []
    for index, roll in enumerate(shown):
        last = index == len(shown) - 1
        entry: JSON = {"result": roll, "active": kept}
        if not kept:
            entry["rerolled" if "rerolled" in tags else "discarded"] = True
        if (not last) or "exploded" in tags:
            entry["exploded"] = True
        if last:
            if "success" in tags:
                entry["success"] = True
            elif "failure" in tags:
                entry["failure"] = True
        results.append(entry)
    if counting is not None:
        counted = _COUNT_TAG[counting] in tags
        for index, entry in enumerate(results):
            entry["count"] = int(counted) if index == len(results) - 1 else 0
    elif chain and sum(rolls) != value:
        # a compounded die whose value was clamped: the counts carry its value
        for index, entry in enumerate(results):
            entry["count"] = int(value) if index == len(results) - 1 else 0
    return results


def foundry_order(chains: Sequence[Sequence[Any]]) -> list[Any]:
    """Per-die chains (first roll, then its explosions) in Foundry's order for an
    exploding term: round by round — every first roll, then every die's first
    explosion, and so on — in the order of the dice within a round."""
    out: list[Any] = []
    depth = max((len(chain) for chain in chains), default=0)
    for round_ in range(depth):
        out.extend(chain[round_] for chain in chains if round_ < len(chain))
    return out


def _term_results(dice: Sequence[Mapping[str, Any]], counting: str | None) -> list[JSON]:
    """The results of a term's dice, in Foundry's order (foundry_order)."""
    return foundry_order([_die_results(die, counting) for die in dice])


# -- terms ---------------------------------------------------------------------------


def _die(number: int, faces: int, modifiers: Iterable[str], results: list[JSON], **options) -> JSON:
    return {
        "class": "Die",
        "options": dict(options),
        "evaluated": True,
        "number": int(number),
        "faces": int(faces),
        "modifiers": list(modifiers),
        "results": results,
    }


def _operator(op: str) -> JSON:
    return {"class": "OperatorTerm", "options": {}, "evaluated": True, "operator": op}


def _numeric(number: Number, **options) -> JSON:
    return {"class": "NumericTerm", "options": dict(options), "evaluated": True, "number": number}


def _explode_modifier(threshold: int | None, faces: int) -> str:
    if threshold is None or threshold >= faces:
        return "x"
    return f"x>={threshold}"


def _term_formula(term: Mapping[str, Any]) -> str:
    cls = term["class"]
    if cls == "Die":
        return f"{term['number']}d{term['faces']}{''.join(term['modifiers'])}"
    if cls == "OperatorTerm":
        return f" {term['operator']} "
    if cls == "NumericTerm":
        return _number_text(term["number"])
    if cls == "PoolTerm":
        return "{" + ",".join(term["terms"]) + "}" + "".join(term["modifiers"])
    if cls == "ParentheticalTerm":
        return f"({term['term']})"
    if cls == "FunctionTerm":
        return f"{term['fn']}({','.join(term['terms'])})"
    raise ValueError(f"no formula for a {cls}")


def _number_text(number: Number) -> str:
    if isinstance(number, float) and number.is_integer():
        return str(int(number))
    return str(number)


def roll_json(terms: list[JSON], total: Number | None, **options: Any) -> JSON:
    """A Roll as ``Roll#toJSON`` writes it, from its terms."""
    formula = "".join(_term_formula(t) for t in terms).strip() or "0"
    return {
        "class": "Roll",
        "options": dict(options),
        "dice": [],
        "formula": formula,
        "terms": terms,
        "total": total,
        "evaluated": True,
    }


# -- Foundry's arithmetic, to check and to balance totals -------------------------------


def _results_total(results: Iterable[Mapping[str, Any]]) -> Number:
    total: Number = 0
    for r in results:
        if r.get("active", True):
            total += r["count"] if r.get("count") is not None else r["result"]
    return total


def _term_value(term: Mapping[str, Any]) -> Number:
    cls = term["class"]
    if cls in ("Die", "PoolTerm"):
        return _results_total(term["results"])
    if cls == "NumericTerm":
        return term["number"]
    if cls == "ParentheticalTerm":
        return foundry_total(term["roll"])
    if cls == "FunctionTerm":
        return term["result"]
    raise ValueError(f"no value for a {cls}")


def foundry_total(roll: Mapping[str, Any]) -> Number:
    """The total Foundry computes for a Roll's terms: each term's total (dice by
    their results' ``count`` or ``result``), combined by the operators with the
    usual precedence. Used to balance group totals; tests use it to check that a
    rebuilt Roll adds up to the server's total."""
    tokens: list[Any] = []
    for term in roll["terms"]:
        if term["class"] == "OperatorTerm":
            tokens.append(term["operator"])
        else:
            tokens.append(_term_value(term))
    return _evaluate(tokens)


def _evaluate(tokens: list[Any]) -> Number:
    # unary minus: an operator at the start or after another operator
    values: list[Any] = []
    negate = False
    for token in tokens:
        if isinstance(token, str):
            if not values or isinstance(values[-1], str):
                if token == "-":
                    negate = not negate
                continue
            values.append(token)
        else:
            values.append(-token if negate else token)
            negate = False
    if not values:
        return 0
    # * and / first, then + and -, left to right
    sums: list[Any] = [values[0]]
    for index in range(1, len(values), 2):
        op, value = values[index], values[index + 1]
        if op in ("*", "/"):
            left = sums.pop()
            sums.append(left * value if op == "*" else left / value)
        else:
            sums.extend((op, value))
    total = sums[0]
    for index in range(1, len(sums), 2):
        total = total + sums[index + 1] if sums[index] == "+" else total - sums[index + 1]
    if isinstance(total, float) and total.is_integer():
        return int(total)
    return total


# -- a formula roll (the ``roll`` event) ---------------------------------------------------


def _formula_terms(terms: Sequence[Mapping[str, Any]], groups: Sequence[Mapping[str, Any]]):
    out: list[JSON] = []
    for term in terms:
        kind = term.get("type")
        if kind == "dice":
            group = groups[term["group"]] if "group" in term else {"dice": term.get("dice", [])}
            modifiers = list(term.get("modifiers") or ())
            counting = None
            if any(m.startswith("cs") for m in modifiers):
                counting = "success"
            elif any(m.startswith("cf") for m in modifiers):
                counting = "failure"
            if term.get("compound") is not None:
                modifiers.insert(0, _explode_modifier(term["compound"], term["faces"]))
            out.append(
                _die(
                    term["number"],
                    term["faces"],
                    modifiers,
                    _term_results(group.get("dice") or (), counting),
                )
            )
        elif kind == "operator":
            out.append(_operator(term["op"]))
        elif kind == "number":
            out.append(_numeric(term["value"]))
        elif kind == "parenthetical":
            inner = roll_json(_formula_terms(term["terms"], groups), term.get("total"))
            out.append(
                {
                    "class": "ParentheticalTerm",
                    "options": {},
                    "evaluated": True,
                    "term": inner["formula"],
                    "roll": inner,
                }
            )
        elif kind == "function":
            inner = roll_json(_formula_terms(term["terms"], groups), None)
            inner["total"] = foundry_total(inner)
            out.append(
                {
                    "class": "FunctionTerm",
                    "options": {},
                    "evaluated": True,
                    "fn": term["name"],
                    "terms": [inner["formula"]],
                    "rolls": [inner],
                    "result": term.get("total"),
                }
            )
        else:
            raise ValueError(f"unknown term type {kind!r}")
    return out


def roll_from_result(result: Mapping[str, Any], **options: Any) -> JSON:
    """A ``roll`` event's roll (``RollResult.to_dict()``) as one Foundry Roll."""
    terms = _formula_terms(result.get("terms") or (), result.get("groups") or ())
    return roll_json(terms, result.get("total"), **options)


# -- a ruleset's dice group (the ``resolution`` event) ----------------------------------


def _is_first_roll(die: Mapping[str, Any]) -> bool:
    tags = set(die.get("tags") or ())
    return not tags & {"explosion", "reroll"}


def _compounds(die: Mapping[str, Any]) -> bool:
    return len(die.get("rolls") or ()) > 1 or "compounded" in (die.get("tags") or ())


def _keep_modifier(dice: Sequence[Mapping[str, Any]]) -> list[str]:
    """``khN``/``klN`` when dropped dice (not rerolled ones) left the highest/lowest."""
    dropped = [d for d in dice if "dropped" in (d.get("tags") or ())]
    kept = [d for d in dice if d.get("kept", True)]
    if not dropped or not kept:
        return []
    if min(d["value"] for d in kept) >= max(d["value"] for d in dropped):
        return [f"kh{len(kept)}"]
    if max(d["value"] for d in kept) <= min(d["value"] for d in dropped):
        return [f"kl{len(kept)}"]
    return []


def _group_counting(group: Mapping[str, Any]) -> str | None:
    """A group is counted when it reports successes as its result (no other total)
    and tags its dice as successes or failures."""
    if group.get("successes") is None:
        return None
    if group.get("total") is not None and group["total"] != group["successes"]:
        return None
    for die in group.get("dice") or ():
        if {"success", "failure"} & set(die.get("tags") or ()):
            return "success"
    return None


def roll_from_group(group: Mapping[str, Any]) -> JSON:
    """One dice group of a resolution as one Foundry Roll (see the module docstring)."""
    dice = list(group.get("dice") or ())
    counting = _group_counting(group)
    target = group.get("target")
    terms: list[JSON] = []
    faces = {int(d["faces"]) for d in dice}
    explodes = "!!" in str(group.get("formula", "")) or any(
        _compounds(d) or "exploded" in (d.get("tags") or ()) for d in dice
    )
    if len(faces) == 1:
        (face,) = faces
        modifiers = []
        if explodes:
            modifiers.append("x")
        modifiers += _keep_modifier(dice)
        if counting and target is not None:
            modifiers.append(f"cs>={target}")
        number = sum(1 for d in dice if _is_first_roll(d)) or len(dice)
        terms.append(_die(number, face, modifiers, _term_results(dice, counting)))
    elif dice:
        rolls, formulas, results = [], [], []
        for die in dice:
            modifiers = ["x"] if explodes else []
            inner_term = _die(1, die["faces"], modifiers, _term_results([die], None))
            inner = roll_json([inner_term], _results_total(inner_term["results"]))
            rolls.append(inner)
            formulas.append(inner["formula"])
            entry = _die_results({**die, "rolls": [die["value"]]}, counting)[0]
            entry.pop("exploded", None)
            results.append(entry)
        terms.append(
            {
                "class": "PoolTerm",
                "options": {},
                "evaluated": True,
                "terms": formulas,
                "modifiers": _keep_modifier(dice),
                "rolls": rolls,
                "results": results,
            }
        )
    computed = foundry_total(roll_json(terms, None)) if terms else 0
    wanted = group.get("total")
    if wanted is None:
        wanted = group.get("successes") if counting else computed
    if wanted is None:
        wanted = computed
    delta = wanted - computed
    if not terms:
        terms.append(_numeric(wanted))
    elif delta:
        terms.append(_operator("+" if delta > 0 else "-"))
        terms.append(_numeric(abs(delta), flavor="modifiers"))
    info = {k: group[k] for k in ("label", "formula", "target", "successes", "note") if k in group}
    return roll_json(terms, wanted, flavor=group.get("label", ""), rollbridge=info)
