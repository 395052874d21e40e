"""What to type instead of Foundry's labels (flavour text: ``1d8x[Fighting]``).

Foundry lets a dice term carry a label in square brackets, which names the die and
does not change the roll: Savage Worlds systems write a wild die test as
``{1d8x[Fighting], 1d6x[Wild]}kh``, and players copy such formulas from the chat.
rollbridge's notation has no labels (a roll's ``label`` field names it, and each
dice group is named by its formula), so :func:`label_problem` is the parser's
refusal of one, giving the formula to type: the same text without its labels,
written as the parser writes it (``1d8x``); where that text is a pool, the pool's
own refusal follows (:mod:`rollbridge.dice.pools`: what it is written as, or what
rolls it); where it is no formula either, the refusal says to leave the labels out.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rollbridge.dice.pools import pool_problem
from rollbridge.text import Messages, Text

__all__ = ["LABEL", "label_problem"]

say = Messages("rollbridge")
# Translators: {label} is a label as written, quoted ('[Fighting]'); {instead} the
# whole formula without its labels, quoted ('1d8x').
LABEL_AS_FORMULA = say(
    "dice.label_as_formula",
    "labels such as {label} are not supported (a label names a die, it does not change "
    "the roll); the same roll is written {instead}",
)
# Translators: {label} is a label as written, quoted ('[Wild]'); {problem} the
# refusal of the formula without its labels (a dice pool's: dice.pool_as_term, dice.pool).
LABEL_THEN = say(
    "dice.label_then",
    "labels such as {label} are not supported (a label names a die, it does not change "
    "the roll), and without them: {problem}",
)
# Translators: {label} is a label as written, quoted ('[fire]').
LABEL_LEFT_OUT = say(
    "dice.label",
    "labels such as {label} are not supported (a label names a die, it does not change "
    "the roll): leave them out",
)

#: A label: square brackets and what they hold (no brackets inside).
LABEL = re.compile(r"\[[^\[\]]*\]")


def label_problem(text: str, label: re.Match[str], normalised: Callable[[str], str | None]) -> Text:
    """The refusal of ``text``, whose first label is ``label``: the formula without
    its labels where there is one (module docstring). ``normalised`` gives a formula
    as the parser writes it, or None where it is no formula."""
    bare = LABEL.sub("", text)
    written = repr(label.group(0))
    instead = normalised(bare)
    if instead is not None:
        return LABEL_AS_FORMULA(label=written, instead=repr(instead))
    pool = bare.find("{")
    if pool >= 0 and "[" not in bare and "]" not in bare:
        return LABEL_THEN(label=written, problem=pool_problem(bare, pool, normalised))
    return LABEL_LEFT_OUT(label=written)
