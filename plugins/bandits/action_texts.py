"""The actions' own words (:class:`~rollbridge.contract.ActionSpec`'s ``label``,
``summary``, ``labels``, ``hints`` and ``choices``), declared once in English (ids
``bandits.form.*``): what a form (the web table's) shows a player, in the player's
language.

Each action's name and one-line summary; each parameter's name and one line of
help in the player's words (from the schema's English ``description``, which
stays as it is for developers); the values of an ``enum`` as people read them.
The parameters' keys and values stay what the request sends (``direction``,
``dealt``): only what people read is translated, in the words of the glossary
(docs/rulesets/bandits.md: the Russian seed's for Russian).
"""

from __future__ import annotations

from rollbridge.text import Message, Text

from .messages import say

__all__ = [
    "CHOICES",
    "EXAMPLE_COVER",
    "EXAMPLE_MOVE",
    "HINTS",
    "LABEL",
    "LABELS",
    "RULESET_SUMMARY",
    "SUMMARY",
]

# Translators: the ruleset's one paragraph, as `rollbridge rulesets` and a client
# describing the table show it; keep the notation (2d6, d4-d12, 9M) as it is.
RULESET_SUMMARY = say(
    "ruleset.summary",
    "PbtA-style moves on 2d6 + stat (modifiers clamped to ±4, advantage on "
    "3d6), a harm roll read on a table of wounds, four status slots for "
    "bandits (lightly, seriously, heavily wounded, dying) and two wounds "
    "for extras; medpacks, stabilising, the end of a raid.",
)

# Translators: a modifier's label as a player might write it, shown greyed in a
# form as an example of how to fill in the modifiers (a free word: cover, a rifle).
EXAMPLE_COVER = say("form.example.cover", "cover")
# Translators: a move's name as a player might write it, shown greyed in a form as an
# example; the narration reads it after "{actor} rolls" (move.narration).
EXAMPLE_MOVE = say("form.example.move", "act under fire")

# -- the actions ------------------------------------------------------------------------

# Translators: an action's name as a form's list and button show it.
_ACTION = {
    "move": say("form.action.move", "Move"),
    "harm": say("form.action.harm", "Harm"),
    "medpack": say("form.action.medpack", "Medpack"),
    "stabilise": say("form.action.stabilise", "Stabilise"),
    "end_of_turn": say("form.action.end_of_turn", "End of turn"),
    "end_of_raid": say("form.action.end_of_raid", "End of raid"),
}
# Translators: an action's one line of help; BD-n are rule numbers, kept as they are,
# and 2d6 is written as the dice are in your language (2k6, 2W6, 2к6).
_SUMMARY = {
    "move": say(
        "form.summary.move",
        "A move roll: 2d6 + stat + situational modifiers, clamped to ±4 (BD-1, BD-2, BD-7).",
    ),
    "harm": say(
        "form.summary.harm",
        "A harm roll by the actor (attacker) against one target, dealt or taken "
        "(BD-3, BD-4, BD-5), then its wounds (BD-6, BD-9).",
    ),
    "medpack": say(
        "form.summary.medpack", "Use a medpack-N (or doc's kit) on the target bandit (BD-10)."
    ),
    "stabilise": say(
        "form.summary.stabilise",
        "A doc or a special item stabilises the dying target bandit (BD-8).",
    ),
    "end_of_turn": say(
        "form.summary.end_of_turn",
        "The actor's turn ends: a dying bandit nobody stabilised dies (BD-8); "
        "its two-weapon choice is released (BD-4).",
    ),
    "end_of_raid": say(
        "form.summary.end_of_raid",
        "The raid is over: every bandit is healed, except one wound each may keep "
        "as a getaway trouble (BD-11).",
    ),
}

# -- the parameters' names ----------------------------------------------------------------

# Translators: a parameter's name as a form's field shows it (short, capitalised).
_MOVE = say("form.param.move", "Name of the move")
_STAT = say("form.param.stat", "Stat")
_MODIFIERS = say("form.param.modifiers", "Modifiers")
_ADVANTAGE = say("form.param.advantage", "Advantage")
_DISADVANTAGE = say("form.param.disadvantage", "Disadvantage")
_DIRECTION = say("form.param.direction", "Dealt or taken")
_PIERCE = say("form.param.pierce", "Attacker's Pierce")
_ATTACKER_PAIR = say("form.param.attacker_dual_wield", "Attacker's two light weapons")
_TARGET_PAIR = say("form.param.target_dual_wield", "Target's two light weapons")
_REDUCTION = say("form.param.reduction", "GM reduction")
_WOUND_INSTEAD = say("form.param.wound_instead_of_trouble", "Wound instead of trouble")
# Translators: the N of a medpack-N (BD-10).
_N = say("form.param.n", "Medpack strength (N)")
_MEANS = say("form.param.means", "Help from")
_KEPT_WOUNDS = say("form.param.kept_wounds", "Kept wounds")

# -- the parameters' help -----------------------------------------------------------------

# Translators: one line of help under a form's field, to the player.
_HINT_MOVE = say("form.hint.move", "The move's name, for the narration.")
_HINT_STAT = say(
    "form.hint.stat",
    "The stat of the character's sheet to add, as the sheet spells it (empty: none).",
)
_HINT_MODIFIERS = say(
    "form.hint.modifiers", "Situational bonuses and penalties: numbers, or a label with a value."
)
_HINT_ADVANTAGE = say("form.hint.advantage", "Roll 3 dice and keep the two highest (BD-2).")
_HINT_DISADVANTAGE = say(
    "form.hint.disadvantage",
    "Roll 3 dice and keep the two lowest; added by itself while heavily wounded (BD-2, BD-7).",
)
_HINT_DIRECTION = say(
    "form.hint.direction",
    "Dealt: the attacker rolls 2d6 − the target's Armour + own Pierce; taken: the target "
    "rolls 2d6 − own Steady − own Armour + the attacker's Pierce (BD-3).",
)
_HINT_PIERCE = say(
    "form.hint.pierce",
    "Instead of the Pierce on the attacker's sheet; needed when no attacker is named.",
)
_HINT_ATTACKER_PAIR = say(
    "form.hint.attacker_dual_wield",
    "The attacker's choice this turn (BD-4): only +1 Pierce counts in this roll.",
)
_HINT_TARGET_PAIR = say(
    "form.hint.target_dual_wield",
    "The target's choice this turn (BD-4): only +1 Armour counts in this roll.",
)
_HINT_REDUCTION = say(
    "form.hint.reduction",
    "Wounds the GM takes off the result for troubles accepted instead; the GM only.",
)
_HINT_WOUND_INSTEAD = say(
    "form.hint.wound_instead_of_trouble",
    "On 3−, a bandit taking harm takes 1 wound instead of the trouble (BD-5).",
)
_HINT_N = say(
    "form.hint.n",
    "Clears the most serious marked slot up to N, or else moves one down by N (BD-10).",
)
_HINT_MEANS = say(
    "form.hint.means", "Who or what stabilises the bandit: a doc or a special item (BD-8)."
)
_HINT_KEPT_WOUNDS = say(
    "form.hint.kept_wounds",
    "For each bandit who keeps a wound: its id and the slot (1–3) that stays marked.",
)

# -- the values of enums --------------------------------------------------------------------

# Translators: who rolls a harm roll (BD-3), as a form lists it.
_DIRECTIONS = {
    "dealt": say("form.choice.dealt", "Dealt (the attacker rolls)"),
    "taken": say("form.choice.taken", "Taken (the target rolls)"),
}
# Translators: a bandit's two-weapon choice this turn (BD-4), as a form lists it.
_PAIR_CHOICES = {
    "pierce": say("form.choice.pierce", "+1 Pierce"),
    "armour": say("form.choice.armour", "+1 Armour"),
    None: say("form.choice.no_choice", "No choice"),
}
# Translators: who or what stabilises a dying bandit (BD-8), as a form lists it.
_MEANS_CHOICES = {
    "doc": say("form.choice.doc", "A doc"),
    "item": say("form.choice.item", "A special item"),
}


def _texts(messages: dict[str, Message]) -> dict[str, Text]:
    return {key: message() for key, message in messages.items()}


#: Action → its name (``Harm``).
LABEL: dict[str, Text] = _texts(_ACTION)
#: Action → its one line of help.
SUMMARY: dict[str, Text] = _texts(_SUMMARY)

#: Action → parameter → its name.
LABELS: dict[str, dict[str, Text]] = {
    "move": {
        "move": _MOVE(),
        "stat": _STAT(),
        "modifiers": _MODIFIERS(),
        "advantage": _ADVANTAGE(),
        "disadvantage": _DISADVANTAGE(),
    },
    "harm": {
        "direction": _DIRECTION(),
        "pierce": _PIERCE(),
        "attacker_dual_wield": _ATTACKER_PAIR(),
        "target_dual_wield": _TARGET_PAIR(),
        "reduction": _REDUCTION(),
        "wound_instead_of_trouble": _WOUND_INSTEAD(),
    },
    "medpack": {"n": _N()},
    "stabilise": {"means": _MEANS()},
    "end_of_turn": {},
    "end_of_raid": {"kept_wounds": _KEPT_WOUNDS()},
}

#: Action → parameter → its help.
HINTS: dict[str, dict[str, Text]] = {
    "move": {
        "move": _HINT_MOVE(),
        "stat": _HINT_STAT(),
        "modifiers": _HINT_MODIFIERS(),
        "advantage": _HINT_ADVANTAGE(),
        "disadvantage": _HINT_DISADVANTAGE(),
    },
    "harm": {
        "direction": _HINT_DIRECTION(),
        "pierce": _HINT_PIERCE(),
        "attacker_dual_wield": _HINT_ATTACKER_PAIR(),
        "target_dual_wield": _HINT_TARGET_PAIR(),
        "reduction": _HINT_REDUCTION(),
        "wound_instead_of_trouble": _HINT_WOUND_INSTEAD(),
    },
    "medpack": {"n": _HINT_N()},
    "stabilise": {"means": _HINT_MEANS()},
    "end_of_turn": {},
    "end_of_raid": {"kept_wounds": _HINT_KEPT_WOUNDS()},
}

_PAIR = {value: message() for value, message in _PAIR_CHOICES.items()}
#: Action → parameter → value → its words.
CHOICES: dict[str, dict[str, dict[str | None, Text]]] = {
    "harm": {
        "direction": _texts(_DIRECTIONS),
        "attacker_dual_wield": _PAIR,
        "target_dual_wield": _PAIR,
    },
    "stabilise": {"means": _texts(_MEANS_CHOICES)},
}
