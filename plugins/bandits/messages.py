"""Every text the ``bandits`` ruleset says, declared once in English (ids ``bandits.*``).

Resolutions carry these as data (:class:`rollbridge.text.Text`: a message id and its
arguments): the narration, each step, each dice group's label and note. Each audience
gets them rendered; an argument that is an NPC's own detail is marked
:class:`rollbridge.text.Private` where the resolution is built (:mod:`.privacy` says
which). An outcome's human-readable strings (a term's label, the harm table's row)
are the same messages in English (:func:`english`), as plain data; a hit's ``reason``
is the text its last step shows. The Russian lines of the harm table are data of
:mod:`.table`, not messages.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rollbridge.text import Message, Messages

say = Messages("bandits", catalogs=Path(__file__).with_name("locale"))


def english(message: Message, **args: Any) -> str:
    """``message`` in English with plain arguments (text and numbers, no texts or
    lists), as a string: what an outcome's values say (an outcome is data, in English;
    the narration, steps and dice labels are texts, rendered per audience)."""
    return message.template_for(args.get(message.count or "")).format_map(args)


#: What a hidden number reads as inside a sum (``− ? (Guard's Armour)``).
UNKNOWN = say("hidden.number", "?")

# -- who ------------------------------------------------------------------------------

THE_ATTACKER = say("harm.the_attacker", "the attacker")

# -- BD-6 status slots (the labels of state.SLOT_LABELS) ------------------------------

SLOT = {
    1: say("slot.1", "lightly wounded"),
    2: say("slot.2", "seriously wounded"),
    3: say("slot.3", "heavily wounded"),
    4: say("slot.4", "dying"),
}

# -- BD-5 the harm table ----------------------------------------------------------------

WOUNDS = say.plural("wounds", "{count} wound", "{count} wounds")
TROUBLE_ONLY = say("table.trouble_only", "trouble only")
#: What a row of the table does to an extra, by the row's wounds.
TABLE_EXTRA = {
    7: say("table.extra.7", "killed; identifiable only by DNA test"),
    6: say("table.extra.6", "killed, reduced to pulp"),
    5: say("table.extra.5", "killed on the spot"),
    4: say("table.extra.4", "killed or about to die"),
    3: say("table.extra.3", "killed or soon to die"),
    2: say("table.extra.2", "killed or knocked out"),
    1: say("table.extra.1", "wounded, or, if already wounded, killed or knocked out"),
    0: say("table.extra.0", "not even wounded (a bandit may take 1 wound instead of the trouble)"),
}
#: A whole row, by its wounds (the range, the wounds and what it does to an extra).
TABLE_ROW = {
    7: say("table.row.7", "22+: 7 wounds (an extra: killed; identifiable only by DNA test)"),
    6: say("table.row.6", "19–21: 6 wounds (an extra: killed, reduced to pulp)"),
    5: say("table.row.5", "16–18: 5 wounds (an extra: killed on the spot)"),
    4: say("table.row.4", "13–15: 4 wounds (an extra: killed or about to die)"),
    3: say("table.row.3", "10–12: 3 wounds (an extra: killed or soon to die)"),
    2: say("table.row.2", "7–9: 2 wounds (an extra: killed or knocked out)"),
    1: say(
        "table.row.1",
        "4–6: 1 wound (an extra: wounded, or, if already wounded, killed or knocked out)",
    ),
    0: say(
        "table.row.0",
        "3−: trouble only (an extra: not even wounded (a bandit may take 1 wound instead of "
        "the trouble))",
    ),
}

# -- BD-1, BD-2, BD-7 moves ---------------------------------------------------------------

A_MOVE = say("move.a_move", "a move")
STAT_LABEL = say("move.term.stat", "stat {stat}")
MODIFIER_LABEL = say("move.term.modifier", "modifier {index}")
MOVE_TERM = say("move.term", "{label} {value}")
NO_MODIFIERS = say("move.no_modifiers", "no modifiers")
MODIFIER_CLAMPED = say(
    "move.modifier.clamped", "modifier: {terms} = {raw}, clamped to {modifier} (BD-1)"
)
MODIFIER_WITHIN = say("move.modifier.within", "modifier: {terms} = {modifier} (within ±4, BD-1)")
MODIFIER_HIDDEN = say(
    "move.modifier.hidden",
    "modifier: {terms}; the NPC's stat is hidden (the sum is clamped to ±4, BD-1)",
)
REQUESTED = say("move.disadvantage.requested", "requested")
HEAVILY_WOUNDED = say("move.disadvantage.heavily_wounded", "heavily wounded (BD-7)")
ADVANTAGE_ROLL = say(
    "move.roll.advantage",
    "advantage (BD-2): 3d6 [{faces}], the lowest ({dropped}) dropped → {total}",
)
DISADVANTAGE_ROLL = say(
    "move.roll.disadvantage",
    "disadvantage, {why} (BD-2): 3d6 [{faces}], the highest ({dropped}) dropped → {total}",
)
CANCELLED_ROLL = say(
    "move.roll.cancelled",
    "advantage and disadvantage ({why}) cancel (BD-2): 2d6 [{faces}] → {total}",
)
PLAIN_ROLL = say("move.roll.plain", "2d6 [{faces}] → {total}")
BAND = {
    "miss": say("move.band.miss", "miss (6−)"),
    "partial": say("move.band.partial", "partial success (7–9)"),
    "full": say("move.band.full", "full success (10+)"),
}
EXTRA_RESULT = say("move.extra_result", "{band}, 12+: the extra result")
MOVE_TOTAL = say("move.total", "total {dice} {modifier} = {total}: {result} (BD-1)")
MOVE_TOTAL_HIDDEN = say("move.total.hidden", "total: {result} (BD-1)")
MOVE_SCORE = say("move.score", "{total}, {result}")
MOVE_ROLLS = say("move.narration", "{actor} rolls {move}: {result}")
MOVE_ROLLS_WITH = say("move.narration.stat", "{actor} rolls {move} with {stat}: {result}")
MOVE_DICE = say("move.dice", "{actor}: {move}")

# -- BD-3, BD-4, BD-5 harm rolls ------------------------------------------------------------

#: A number after the dice of a harm roll, by kind, as the first step says it.
HARM_TERM = {
    "steady": say("harm.term.steady", "{sign} {value} ({name}'s Steady)"),
    "armour": say("harm.term.armour", "{sign} {value} ({name}'s Armour)"),
    "armour_pair": say(
        "harm.term.armour_pair", "{sign} {value} ({name}'s two light weapons, +1 Armour (BD-4))"
    ),
    "pierce": say("harm.term.pierce", "{sign} {value} ({name}'s Pierce)"),
    "pierce_pair": say(
        "harm.term.pierce_pair", "{sign} {value} ({name}'s two light weapons, +1 Pierce (BD-4))"
    ),
}
#: The label of a term, by kind, as the outcome says it.
TERM_LABEL = {
    "steady": say("harm.label.steady", "{name}'s Steady"),
    "armour": say("harm.label.armour", "{name}'s Armour"),
    "armour_pair": say("harm.label.armour_pair", "{name}'s two light weapons, +1 Armour (BD-4)"),
    "pierce": say("harm.label.pierce", "{name}'s Pierce"),
    "pierce_pair": say("harm.label.pierce_pair", "{name}'s two light weapons, +1 Pierce (BD-4)"),
}
HARM_SUM = say("harm.sum", "= {total} (no ±4 clamp on harm)")
HARM_ROW = say("harm.row", "→ {row} on the table")
HARM_ROLL = {
    "dealt": say(
        "harm.roll.dealt",
        "dealing harm (BD-3), rolled by {roller}: {roll} (2d6 [{faces}]) {terms: } {result}",
    ),
    "taken": say(
        "harm.roll.taken",
        "taking harm (BD-3), rolled by {roller}: {roll} (2d6 [{faces}]) {terms: } {result}",
    ),
}
PIERCE_GIVEN = say("harm.pierce_given", "{attacker}'s Pierce {pierce} given with the request")
PIERCE_GIVEN_HIDDEN = say("harm.pierce_given.hidden", "{attacker}'s Pierce given with the request")
TABLE_STEP = say("harm.table", "harm table (BD-5): {row}")
INSTEAD_STEP = say("harm.instead", "3−: {target} takes 1 wound instead of the trouble (BD-5)")
TROUBLE_STEP = say("harm.trouble", "3−: trouble for {roller}, no wounds (BD-5)")
REDUCTION_STEP = say("harm.reduction", "GM reduction −{reduction}: {wounds} → {left} wounds")
EFFECT = {
    "unhurt": say("harm.effect.unhurt", "no wounds"),
    "dying": say("harm.effect.dying", "dying (slot 4)"),
    "dead": say("harm.effect.dead", "dead"),
    "wounded": say("harm.effect.wounded", "wounded"),
    "out": say("harm.effect.out", "out"),
}
EFFECT_MARKED = say("harm.effect.marked", "{label} (slot {slot})")
HARM_NARRATION = {
    direction: say(
        f"harm.narration.{direction}",
        f"{{attacker}} harms {{target}} ({direction}, rolled by {{roller}}): {{total}} → "
        "{wounds}; {target}: {effect}",
    )
    for direction in ("dealt", "taken")
}
AND_TROUBLE = say("harm.narration.trouble", "{harm}; trouble for {roller}")
HARM_DICE = {
    "dealt": say("harm.dice.dealt", "{roller}: harm dealt"),
    "taken": say("harm.dice.taken", "{roller}: harm taken"),
}

# -- BD-6, BD-9 what a hit does (the outcome's reason) ------------------------------------

NO_SLOT_MARKED = say("hit.unhurt", "no wounds: no slot is marked")
OVER_FOUR = say("hit.over_four", "{wounds} wounds: more than 4 is death (BD-6)")
NO_FREE_SLOT = say.plural(
    "hit.no_free_slot",
    "{count} wound but slots {taken} are all marked: no free slot from {count} to 4 is "
    "death (BD-6)",
    "{count} wounds but slots {taken} are all marked: no free slot from {count} to 4 is "
    "death (BD-6)",
)
SLOT_FREE = say.plural(
    "hit.slot_free",
    "{count} wound: slot {slot} ({label}) was free and is marked (BD-6)",
    "{count} wounds: slot {slot} ({label}) was free and is marked (BD-6)",
)
SLOT_ABOVE = say.plural(
    "hit.slot_above",
    "{count} wound: slot {skipped} already marked, so the nearest free slot above, {slot} "
    "({label}), is marked (BD-6)",
    "{count} wounds: slot {skipped} already marked, so the nearest free slot above, {slot} "
    "({label}), is marked (BD-6)",
)
AND_DYING = say("hit.dying", "{reason}; dying (BD-8)")
EXTRA_UNHURT = say("hit.extra.unhurt", "no wounds: the extra is not even wounded")
EXTRA_OUT = say("hit.extra.out", "{wounds} wounds in one hit: out (BD-9)")
EXTRA_OUT_AGAIN = say("hit.extra.out_again", "1 wound on an already wounded extra: out (BD-9)")
EXTRA_WOUNDED = say("hit.extra.wounded", "1 wound: wounded (BD-9)")

# -- BD-10 medpacks, BD-8 stabilising ---------------------------------------------------------

MEDPACK_CLEARS_REASON = say(
    "medpack.reason.cleared",
    "slot {slot} ({label}) is the most serious marked slot ≤ {n}: cleared",
)
MEDPACK_MOVES_REASON = say(
    "medpack.reason.reduced",
    "no marked slot ≤ {n}; slot {slot} ({label}) is the most serious with slot {to} free: "
    "moved to {to} ({to_label})",
)
MEDPACK_CLEARS = say("medpack.cleared", "clears {label} (slot {slot})")
MEDPACK_REDUCES = say("medpack.reduced", "reduces {label} (slot {slot}) to {to_label} (slot {to})")
MEDPACK_USED = say("medpack.narration.user", "{user} uses a medpack-{n} on {target}: {effect}")
MEDPACK_ON = say("medpack.narration", "Medpack-{n} on {target}: {effect}")
MEDPACK_STEP = say("medpack.step", "medpack-{n} (BD-10): slots [{before}] → [{after}]: {reason}")
MEANS = {"doc": say("stabilise.doc", "a doc"), "item": say("stabilise.item", "a special item")}
STABILISED = say(
    "stabilise.narration", "{target} is stabilised with {how}: alive, but can no longer act (BD-8)"
)
STABILISED_BY = say(
    "stabilise.narration.helper",
    "{target} is stabilised with {how} by {helper}: alive, but can no longer act (BD-8)",
)
STABILISE_STEP = say(
    "stabilise.step", "BD-8: dying and helped by {how}: stabilised; slot 4 stays marked"
)

# -- BD-4, BD-8 turns; BD-11 the end of a raid ----------------------------------------------

CHOICE_FREE = say(
    "turn.choice_free", "a new turn: {actor} may choose +1 Pierce or +1 Armour again (BD-4)"
)
DYING_COUNTDOWN = say(
    "turn.dying", "{actor} is dying: dead at the end of this turn unless stabilised (BD-8)"
)
DIES = say("turn.dies", "{actor} dies: nobody stabilised them in time (BD-8)")
DIES_AT_TURN_END = say(
    "turn.dies.hook",
    "BD-8: {actor} was dying when this turn began and was not stabilised before it ended",
)
DIES_AFTER_TURN = say(
    "turn.dies.action",
    "BD-8: the turn after {actor} started dying has ended and nobody stabilised them",
)
TURN_ENDS = say("turn.ends", "{actor}'s turn ends")
CHOICE_FREE_AGAIN = say(
    "turn.choice_free_again", "a new turn: the two-weapon choice is free again (BD-4)"
)
RAID_OVER = say("raid.narration", "The raid is over: the bandits heal (BD-11)")
RAID_DEAD = say("raid.dead", "{bandit} is dead and stays dead; the player makes a new bandit")
RAID_KEEPS = say(
    "raid.keeps",
    "{bandit} keeps {label} (slot {slot}) as a getaway trouble; every other slot is cleared "
    "(BD-11)",
)
RAID_HEALED = say("raid.healed", "{bandit} is fully healed (BD-11)")
