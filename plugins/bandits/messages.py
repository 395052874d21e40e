"""Every text the ``bandits`` ruleset says, declared once in English (ids ``bandits.*``).

Resolutions carry these as data (:class:`rollbridge.text.Text`: a message id and its
arguments): the narration, each step, each dice group's label and note, an outcome's
term labels, ``disadvantage_from`` and a hit's ``reason`` (the text its last step
shows). So do the common state (track labels, conditions, the modifier note) and
every refusal. Each audience gets them rendered, in its own language (the catalogues
in ``locale/``); an argument that is an NPC's own detail is marked
:class:`rollbridge.text.Private` where the resolution is built (:mod:`.privacy` says
which). The harm table's row in an outcome (``table_text``, ``table``) is the same
messages in English (:func:`english`), as plain data, beside the seed's Russian line
(data of :mod:`.table`, not a message). The actions' own words (names, summaries,
parameter names, help and choices, as forms show them) are declared in
:mod:`.action_texts`.
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


#: What a hidden number reads as inside a sum (``− ? (Guard's Armour)``): notation, the
#: same in every language, so a plain string and not a message.
UNKNOWN = "?"
# Translators: the same "?" as the texts of tables played before it became a plain
# string keep it (their events hold this id: "− ? (Guard's Armour)"); keep it "?".
STORED_UNKNOWN = say("hidden.number", "?")

# -- who ------------------------------------------------------------------------------

# Translators: who the texts name ({attacker}, {roller}, {name}) when the attacker is not an
# actor at the table (its Pierce came with the request).
THE_ATTACKER = say("harm.the_attacker", "the attacker")

# -- BD-6 status slots (the labels of state.SLOT_LABELS) ------------------------------

# Translators: a bandit's four status slots (BD-6) as they read inside a sentence, in
# lower case; the source's statuses (легко / серьезно / тяжело ранен, умирает).
SLOT = {
    1: say("slot.1", "lightly wounded"),
    2: say("slot.2", "seriously wounded"),
    3: say("slot.3", "heavily wounded"),
    4: say("slot.4", "dying"),
}

# -- BD-5 the harm table ----------------------------------------------------------------

# Translators: a number of wounds (BD-5), as the harm table and the narration say it.
WOUNDS = say.plural("wounds", "{count} wound", "{count} wounds")
TROUBLE_ONLY = say("table.trouble_only", "trouble only")
#: What a row of the table does to an extra, by the row's wounds.
# Translators: the harm table (BD-5): what a row does to an extra (an NPC with 2 wounds).
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
# Translators: the harm table's rows (BD-5): range, wounds, what it does to an extra;
# the Russian source's own lines are the model.
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

# Translators: stands for {move} when the request names no move.
A_MOVE = say("move.a_move", "a move")
# Translators: {stat} is the stat's name as the sheet spells it (cool, steady).
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
# Translators: why a move has disadvantage ({why} of move.roll.*): the request asked
# for it, or the bandit is heavily wounded.
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
# Translators: the three results of a move (BD-1), with their ranges.
BAND = {
    "miss": say("move.band.miss", "miss (6−)"),
    "partial": say("move.band.partial", "partial success (7–9)"),
    "full": say("move.band.full", "full success (10+)"),
}
EXTRA_RESULT = say("move.extra_result", "{band}, 12+: the extra result")
MOVE_TOTAL = say("move.total", "total {dice} {modifier} = {total}: {result} (BD-1)")
MOVE_TOTAL_HIDDEN = say("move.total.hidden", "total: {result} (BD-1)")
MOVE_SCORE = say("move.score", "{total}, {result}")
# Translators: {move} is the move's name as the request gave it (or move.a_move);
# {result} is move.score ("11, full success (10+)") or, hidden, the result alone.
MOVE_ROLLS = say("move.narration", "{actor} rolls {move}: {result}")
MOVE_ROLLS_WITH = say("move.narration.stat", "{actor} rolls {move} with {stat}: {result}")
MOVE_DICE = say("move.dice", "{actor}: {move}")

# -- BD-3, BD-4, BD-5 harm rolls ------------------------------------------------------------

#: A number after the dice of a harm roll, by kind, as the first step says it.
# Translators: one number of a harm roll's sum: {sign} is + or −, {value} a number or
# ?, {name} the actor whose Steady, Armour or Pierce it is (or harm.the_attacker).
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
# Translators: the harm roll's first step (BD-3): {terms} are harm.term.* joined by
# spaces; {result} is harm.sum, or harm.row when players may not see the total.
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
# Translators: {wounds} the table's wounds, {left} what is left after the GM's reduction
# (the English says "wounds" after every number, 1 included).
REDUCTION_STEP = say.plural(
    "harm.reduction",
    "GM reduction −{reduction}: {wounds} → {left} wound",
    "GM reduction −{reduction}: {wounds} → {left} wounds",
    count="left",
)
# Translators: what a hit did to the target, after "{target}: " in the narration.
EFFECT = {
    "unhurt": say("harm.effect.unhurt", "no wounds"),
    "dying": say("harm.effect.dying", "dying (slot 4)"),
    "dead": say("harm.effect.dead", "dead"),
    "wounded": say("harm.effect.wounded", "wounded"),
    "out": say("harm.effect.out", "out"),
}
EFFECT_MARKED = say("harm.effect.marked", "{label} (slot {slot})")
HARM_NARRATION = {
    # Translators: "dealt" — the attacker rolled (BD-3). {total} is the harm total, or the
    # table's range ("7–9") when players may not see it; {wounds} is "2 wounds" or
    # "trouble only"; {effect} what the hit did ("out", "heavily wounded (slot 3)").
    "dealt": say(
        "harm.narration.dealt",
        "{attacker} harms {target} (dealt, rolled by {roller}): {total} → {wounds}; "
        "{target}: {effect}",
    ),
    # Translators: "taken" — the harmed target rolled (BD-3); see harm.narration.dealt.
    "taken": say(
        "harm.narration.taken",
        "{attacker} harms {target} (taken, rolled by {roller}): {total} → {wounds}; "
        "{target}: {effect}",
    ),
}
AND_TROUBLE = say("harm.narration.trouble", "{harm}; trouble for {roller}")
HARM_DICE = {
    "dealt": say("harm.dice.dealt", "{roller}: harm dealt"),
    "taken": say("harm.dice.taken", "{roller}: harm taken"),
}

# -- BD-6, BD-9 what a hit does (the outcome's reason) ------------------------------------

NO_SLOT_MARKED = say("hit.unhurt", "no wounds: no slot is marked")
OVER_FOUR = say.plural(
    "hit.over_four",
    "{wounds} wound: more than 4 is death (BD-6)",
    "{wounds} wounds: more than 4 is death (BD-6)",
    count="wounds",
)
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
EXTRA_OUT = say.plural(
    "hit.extra.out",
    "{wounds} wound in one hit: out (BD-9)",
    "{wounds} wounds in one hit: out (BD-9)",
    count="wounds",
)
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
# Translators: a medpack-{n} heals wounds of up to n (BD-10); {effect} is
# medpack.cleared or medpack.reduced.
MEDPACK_USED = say("medpack.narration.user", "{user} uses a medpack-{n} on {target}: {effect}")
MEDPACK_ON = say("medpack.narration", "Medpack-{n} on {target}: {effect}")
MEDPACK_STEP = say("medpack.step", "medpack-{n} (BD-10): slots [{before}] → [{after}]: {reason}")
# Translators: {how} of stabilise.*: "stabilised with {how}", "helped by {how}".
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

# Translators: a turn is one actor's own turn in the turn order (not a move).
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
# Translators: a raid is the gang's job; its getaway (фаза отрыва) brings troubles.
RAID_OVER = say("raid.narration", "The raid is over: the bandits heal (BD-11)")
RAID_DEAD = say("raid.dead", "{bandit} is dead and stays dead; the player makes a new bandit")
RAID_KEEPS = say(
    "raid.keeps",
    "{bandit} keeps {label} (slot {slot}) as a getaway trouble; every other slot is cleared "
    "(BD-11)",
)
RAID_HEALED = say("raid.healed", "{bandit} is fully healed (BD-11)")

# -- the common state (state.common_state) ---------------------------------------------

# Translators: the labels of the row of boxes clients draw: a bandit's four status slots
# (BD-6), an extra's two wounds (BD-9).
TRACK_SLOTS = say("track.slots", "Wound slots")
TRACK_EXTRA = say("track.extra", "Wounds (extra)")
# Translators: conditions, each shown on its own (capitalised): a bandit's marked slots
# (BD-6) ...
CONDITION_SLOT = {
    1: say("condition.slot.1", "Lightly wounded"),
    2: say("condition.slot.2", "Seriously wounded"),
    3: say("condition.slot.3", "Heavily wounded"),
    4: say("condition.slot.4", "Dying"),
}
# Translators: ... and the other conditions of a bandit (BD-7, BD-8) or an extra (BD-9).
CONDITION_DEAD = say("condition.dead", "Dead")
CONDITION_STABILISED = say("condition.stabilised", "Stabilised")
CONDITION_DISADVANTAGE = say("condition.disadvantage", "Disadvantage on moves")
CONDITION_WOUNDED = say("condition.extra.wounded", "Wounded")
CONDITION_OUT = say("condition.extra.out", "Out")
# Translators: how a heavily wounded bandit's damage applies to its rolls (BD-7).
MODIFIER_NOTE = say("condition.modifier", "disadvantage on move rolls (heavily wounded)")

# -- refusals (a RuleViolation, InvalidParams, … a GM or player reads) -------------------

# Translators: what an actor that may not act was about to do: the end of
# "{actor} is dead, so cannot {doing}" (an infinitive; a language may put the negation
# here: "keinen Schaden austeilen").
DOING = {
    "harm": say("doing.harm", "deal harm"),
    "move": say("doing.move", "make a move"),
    "medpack": say("doing.medpack", "use a medpack"),
    "stabilise": say("doing.stabilise", "stabilise anyone"),
}
#: Why an actor may not act (state.can_act's reason) → the refusal.
CANNOT_ACT = {
    "out": say("refused.cannot_act.out", "{actor} is out, so cannot {doing}"),
    "dead": say("refused.cannot_act.dead", "{actor} is dead, so cannot {doing}"),
    "stabilised": say(
        "refused.cannot_act.stabilised",
        "{actor} is stabilised and can no longer act (BD-8), so cannot {doing}",
    ),
    "dying": say(
        "refused.cannot_act.dying", "{actor} is dying and cannot act (BD-8), so cannot {doing}"
    ),
}
NOT_A_BANDIT = {
    "medpack": say(
        "refused.not_a_bandit.medpack", "{actor} is an extra: a medpack works only on bandits"
    ),
    "stabilise": say(
        "refused.not_a_bandit.stabilise", "{actor} is an extra: stabilising works only on bandits"
    ),
}
# Translators: {field} is the request's field (attacker_dual_wield), left as it is.
NO_ATTACKER_TO_CHOOSE = say(
    "refused.no_attacker_to_choose", "params.{field}: there is no attacker actor to make the choice"
)
NO_PAIR = {
    "pierce": say(
        "refused.no_pair.pierce",
        "{actor} does not carry two light weapons, so cannot take +1 pierce (BD-4)",
    ),
    "armour": say(
        "refused.no_pair.armour",
        "{actor} does not carry two light weapons, so cannot take +1 armour (BD-4)",
    ),
}
PAIR_LOCKED = {
    "pierce": say(
        "refused.pair_locked.pierce",
        "{actor} already chose +1 pierce this turn and cannot change it (BD-4)",
    ),
    "armour": say(
        "refused.pair_locked.armour",
        "{actor} already chose +1 armour this turn and cannot change it (BD-4)",
    ),
}
# Translators: {field} is the request's field (target_dual_wield), left as it is.
NOT_YOUR_STANCE = say(
    "refused.not_your_stance",
    "params.{field}: only the GM or {actor}'s player chooses {actor}'s two-weapon stance (BD-4)",
)
SELF_HARM = say("refused.self_harm", "targets: the attacker and the harmed target must differ")
NO_PIERCE = say(
    "refused.no_pierce", "params.pierce: name the attacker as the actor, or give its Pierce"
)
NO_WOUND_INSTEAD = say(
    "refused.wound_instead",
    "params.wound_instead_of_trouble: only a bandit taking harm may take 1 wound instead of "
    "the trouble (BD-5)",
)
REDUCTION_NEEDS_GM = say("refused.reduction_needs_gm", "only the GM may reduce the wounds of a hit")
TARGET_DEAD = say("refused.target_dead", "{target} is already dead")
TARGET_OUT = say("refused.target_out", "{target} is already out (BD-9)")
# Translators: {stat} is the stat's name as the request gave it, quoted ('cool'); {known}
# the sheet's stat names, or the word of refused.no_stat.none.
NO_STAT = say("refused.no_stat", "params.stat: the sheet has no stat {stat} (known: {known})")
NO_STATS = say("refused.no_stat.none", "none")
UNKNOWN_ACTION = say("refused.unknown_action", "the bandits ruleset has no action {action}")
# Translators: {track} is the track's key as the request gave it, quoted; 'wounds' is the
# track's key, left as it is.
UNKNOWN_TRACK = say(
    "refused.unknown_track", "the bandits ruleset has one track, 'wounds', not {track}"
)
WHOLE_DELTA = say("refused.whole_delta", "delta: must be a whole number")
ACTOR_DEAD = say("refused.actor_dead", "{actor} is dead")
STAT_NAME = say("refused.stat_name", "sheet.stats: stat names must be 1-32 characters, got {name}")
NO_SUCH_ACTOR = say(
    "refused.no_such_actor", "params.kept_wounds.{actor}: no such actor at this table"
)
EXTRA_KEEPS_NONE = say("refused.extra_keeps_none", "{actor} is an extra and keeps no wounds")
DYING_NOT_RESOLVED = say(
    "refused.dying_not_resolved",
    "{actor} is dying and not stabilised: stabilise them or end their turn (BD-8) before "
    "ending the raid",
)
DEAD_NOT_STABILISED = say("refused.stabilise.dead", "a dead bandit cannot be stabilised")
NOT_DYING = say("refused.stabilise.not_dying", "only a dying bandit can be stabilised")
ALREADY_STABILISED = say("refused.stabilise.already", "this bandit is already stabilised")
MEDPACK_DEAD = say("refused.medpack.dead", "a medpack cannot help a dead bandit")
MEDPACK_ONLY_DYING = say(
    "refused.medpack.only_dying",
    "the only marked slot is dying (4): a medpack never clears or moves it; stabilise the "
    "bandit instead (BD-10 Decision)",
)
NO_WOUNDS = say("refused.medpack.no_wounds", "this bandit has no wound to heal")
MEDPACK_USELESS = say(
    "refused.medpack.useless", "a medpack-{n} can neither clear nor reduce any marked slot"
)
# Translators: {label} is the slot's label (slot.1 ... slot.4).
KEPT_NOT_MARKED = say(
    "refused.kept_not_marked", "slot {slot} ({label}) is not marked, so it cannot be kept"
)
