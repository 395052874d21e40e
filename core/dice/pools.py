"""What to type instead of a Foundry dice pool (``{1d6!!, 1d6!!}kh``).

rollbridge's notation has no pools (docs/dice.md, "Differences from Foundry"), yet
pools are what players meet: the wild die test of wilddie shows its dice group as
``{1d8!!, 1d6!!}kh-2`` and Foundry writes it so. :func:`pool_problem` is the
parser's refusal of one: a pool of single dice of one kind, each rolled alone,
compounding (``!!``) or exploding (``x``, ``x>=5``), then kept high or low, is one
dice term here (``{1d6!!, 1d6!!}kh-6`` rolls as ``2d6!!kh1 - 6``), and the refusal
gives that formula. A pool keeps the totals of its parts, so a single die that
explodes (Foundry's ``{1d6x, 1d6x}kh``, how Savage Worlds systems write a wild die
test) totals what a compounding die does: it is written with ``!!``. A pool that
keeps nothing is the sum of its parts (``{1d8, 1d6}`` is ``(1d8 + 1d6)``). Any other
pool (dice of different faces kept, sums kept, a die exploding once or on a low
result, a pool that counts or drops) has no formula here, and the refusal says what
rolls it. Pools are refused rather than rolled because a roll's result has no term
for one that its clients draw (the Foundry module's ``dice_out`` refuses a term
type it does not know); docs/dice.md, "Differences from Foundry", says what rolling
them would need.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rollbridge.text import Messages, Text

__all__ = ["pool_problem"]

say = Messages("rollbridge")
# Translators: {pool} is the pool as written, quoted ('{1d6!!, 1d6!!}kh'); {instead}
# the whole formula written in rollbridge's notation, quoted ('2d6!!kh1 - 6').
POOL_AS_TERM = say(
    "dice.pool_as_term",
    "dice pools such as {pool} are not supported; the same roll is written {instead}",
)
# Translators: {pool} is the pool as written, quoted ('{1d8!!, 1d6!!}kh'); {example}
# its first die as a formula of its own, quoted ('1d8!!').
POOL = say(
    "dice.pool",
    "dice pools such as {pool} are not supported, and this one has no formula here: "
    "roll each of its dice as a formula of its own ({example}, …), or ask for the "
    "ruleset's action that rolls it (wilddie's trait, for a wild die test)",
)
# Translators: {pool} is the pool as written from its '{' to the formula's end, quoted.
POOL_UNCLOSED = say(
    "dice.pool_unclosed",
    "the dice pool {pool} is never closed: its '}}' is missing",
)
# Translators: {pool} is the pool as written from its '{' to the formula's end, quoted.
POOL_NESTED = say(
    "dice.pool_nested",
    "the dice pool {pool} holds another pool: a pool's parts are dice, separated by commas",
)
# Translators: {pool} is the pool as written, quoted ('{}').
POOL_EMPTY = say("dice.pool_empty", "the dice pool {pool} holds no dice")
# Translators: {pool} is the pool as written, quoted ('{1d6,}kh').
POOL_EMPTY_PART = say(
    "dice.pool_empty_part",
    "the dice pool {pool} has an empty part: a comma with no dice before or after it",
)

#: One die of a pool that a dice term can stand for: ``1d6``, ``d8!!``, ``1d6!!>=5``,
#: ``1d6x``, ``1d10x>=9``: its faces, ``!!`` or ``x``, and that one's condition.
_SINGLE = re.compile(r"\s*1?d(\d+)(?:(!!|x)(>=?\d+)?)?\s*", re.IGNORECASE)
#: A pool: its parts, the keep after it (``kh``, ``k2``, ``kl``) and what follows.
_POOL = re.compile(r"\{([^{}]*)\}(k[hl]?(\d*))?", re.IGNORECASE)


def pool_problem(text: str, index: int, normalised: Callable[[str], str | None]) -> Text:
    """The refusal of the pool that starts at ``text[index]`` (a ``{``): the formula
    to type instead where there is one, else what rolls it (module docstring).
    ``normalised`` gives a formula as the parser writes it, or None where it is no
    formula (the rest of the text after the pool may be wrong too)."""
    match = _POOL.match(text, index)
    if match is None:  # no '}' after it, or a '{' before its '}'
        malformed = POOL_NESTED if "}" in text[index:] else POOL_UNCLOSED
        return malformed(pool=repr(text[index:]))
    pool = match.group(0)
    parts = match.group(1).split(",")
    if not match.group(1).strip():
        return POOL_EMPTY(pool=repr(pool))
    if not all(part.strip() for part in parts):
        return POOL_EMPTY_PART(pool=repr(pool))
    singles = [_SINGLE.fullmatch(part) for part in parts]
    first = parts[0].strip()
    before, after = text[index - 1 : index], text[match.end() : match.end() + 1]
    if before.isalnum() or before == "." or after.isalnum() or after == "!":
        return POOL(pool=repr(pool), example=repr(first))  # 3{…}: no pool, nor a term
    if match.group(2) is None:  # nothing kept: the sum of its parts
        summed = normalised(
            f"{text[:index]}({' + '.join(p.strip() for p in parts)}){text[match.end() :]}"
        )
        if summed is None:
            return POOL(pool=repr(pool), example=repr(first))
        return POOL_AS_TERM(pool=repr(pool), instead=repr(summed))
    if not all(singles):
        return POOL(pool=repr(pool), example=repr(first))
    kinds = {(one.group(1), _compound(one)) for one in singles if one is not None}
    if len(kinds) != 1:
        return POOL(pool=repr(pool), example=repr(first))
    faces, compound = kinds.pop()
    keep = match.group(2).lower().rstrip("0123456789")
    keep = ("kh" if keep == "k" else keep) + (match.group(3) or "1")
    instead = f"{text[:index]}{len(parts)}d{faces}{compound}{keep}{text[match.end() :]}"
    return POOL_AS_TERM(pool=repr(pool), instead=repr(normalised(instead) or instead))


def _compound(die: re.Match[str]) -> str:
    """How a term writes a pool's single die that compounds or explodes: ``!!`` and
    its condition (a die's explosions are in its part, whose total the pool keeps,
    as a compounding die's are); nothing for a plain die."""
    return "!!" + (die.group(3) or "") if die.group(2) else ""
