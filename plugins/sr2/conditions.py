"""What the common state of an sr2 actor says (SR-11 to SR-13): the labels of its
tracks, its conditions and the note on its wound modifier, declared once in English.

Each is an immutable :class:`~rollbridge.text.Text` made once and shared by every
view (the modifier note once per modifier), rendered in each client's language when
the view is built.
"""

from __future__ import annotations

from functools import lru_cache

from rollbridge.text import Text

from .messages import say
from .words import LEVEL

__all__ = ["CONDITION", "DEAD", "DYING", "STABILISED", "TRACK_LABEL", "UNCONSCIOUS", "note"]

# Translators: the labels of the three rows of boxes clients draw (SR-11): the Stun and
# Physical condition monitors and the overflow boxes past Physical.
_TRACK_LABELS = {
    "stun": say("track.label.stun", "Stun"),
    "physical": say("track.label.physical", "Physical"),
    "overflow": say("track.label.overflow", "Overflow"),
}
# Translators: a condition: the wound level of one monitor ({level}: Light ... Deadly).
_WOUND_CONDITIONS = {
    "stun": say("condition.stun", "Stun: {level}"),
    "physical": say("condition.physical", "Physical: {level}"),
}
# Translators: conditions of SR-13, each shown on its own.
_UNCONSCIOUS = say("condition.unconscious", "Unconscious")
_DYING = say("condition.dying", "Dying")
_STABILISED = say("condition.stabilised", "Stabilised")
_DEAD = say("condition.dead", "Dead")
# Translators: how the wound modifier applies (SR-12): to the TN and to initiative.
_MODIFIER_NOTE = say("condition.modifier", "+{modifier} TN, −{modifier} initiative")

#: Track key → its label (``Physical``).
TRACK_LABEL: dict[str, Text] = {key: message() for key, message in _TRACK_LABELS.items()}
#: ``(monitor, level letter)`` → ``Physical: Serious``.
CONDITION: dict[tuple[str, str], Text] = {
    (monitor, letter): message(level=word)
    for monitor, message in _WOUND_CONDITIONS.items()
    for letter, word in LEVEL.items()
}
#: ``Unconscious``, ``Dying``, ``Stabilised``, ``Dead``.
UNCONSCIOUS = _UNCONSCIOUS()
DYING = _DYING()
STABILISED = _STABILISED()
DEAD = _DEAD()


@lru_cache(maxsize=64)
def note(modifier: int) -> Text:
    """``+3 TN, −3 initiative``."""
    return _MODIFIER_NOTE(modifier=modifier)
