"""What to type instead of Foundry's labels (flavour text: ``1d8x[Fighting]``).

Foundry lets a dice term carry a label in square brackets, which names the die and
does not change the roll: Savage Worlds systems write a wild die test as
``{1d8x[Fighting], 1d6x[Wild]}kh``, and players copy such formulas from the chat.
rollbridge's notation has no labels (a roll's ``label`` field names it, and each
dice group is named by its formula), so :func:`label_problem` is the parser's
refusal of one, giving the formula to type: the same text without its labels,
written as the parser writes it (``1d8x``). Where that text is no formula either,
the parser's refusal of it follows the label's, so that one answer says all that is
wrong: a pool's (:mod:`rollbridge.dice.pools`: what it is written as, or what rolls
it), a die that would explode for ever (``1d1x[a]``), too many dice
(``1000d6[dmg]``). Only where brackets are left over (``2d6[a]]``) does the refusal
say to leave the labels out, as the parser's refusal would be of those.
"""

from __future__ import annotations

import re
from collections.abc import Callable

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
# refusal of the formula without its labels (a dice pool's: dice.pool_as_term,
# dice.pool; a die that never stops exploding: dice.endless_explode; …).
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


def label_problem(
    text: str, label: re.Match[str], parsed: Callable[[str], str | Text | None]
) -> Text:
    """The refusal of ``text``, whose first label is ``label``: the formula without
    its labels where there is one, else the parser's refusal of that text after the
    label's (module docstring). ``parsed`` gives a formula as the parser writes it,
    or the parser's words for what is wrong with it (None where it has none)."""
    bare = LABEL.sub("", text)
    written = repr(label.group(0))
    instead = parsed(bare)
    if isinstance(instead, str):
        return LABEL_AS_FORMULA(label=written, instead=repr(instead))
    if instead is None or "[" in bare or "]" in bare:
        return LABEL_LEFT_OUT(label=written)
    return LABEL_THEN(label=written, problem=instead)
