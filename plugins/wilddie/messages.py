"""Every text the ``wilddie`` ruleset says, declared once in English.

Resolutions carry these as data (:class:`rollbridge.text.Text`: the message id,
``wilddie.<key>``, and its named arguments) and each audience gets them rendered.
What an NPC's sheet or hidden state would give away is marked
:class:`rollbridge.text.Private` where the text is built (see
:mod:`rollbridge.plugins.wilddie.privacy`): either one argument (the Toughness in
``Toughness 9``, shown to players as ``Toughness``) or a whole step, with the
wording players read instead (the ``.hidden`` messages below).

Trait names (``Fighting``), the roll kinds (``trait``, ``attack``), the dice slots
(``trait``, ``wild``), the attack modes and range bands are the ruleset's own
words and stay as they are in every language; so do the notes players type.
"""

from __future__ import annotations

from pathlib import Path

from rollbridge.text import Messages

say = Messages("wilddie", catalogs=Path(__file__).with_name("locale"))

# -- a trait roll (rolling.py) -------------------------------------------------------

TRAIT_LABEL = say("trait.label", "{trait} d{faces}")
TRAIT_LABEL_UNTRAINED = say("trait.label.untrained", "{trait} (untrained d{faces})")
WILD_DIE = say("die.wild", "wild die d{faces}")
MODIFIER_NOTED = say("roll.modifier", "{value} ({note})")
MODIFIERS = say("roll.modifiers", "modifiers {parts: } = {total}, applied to each die")
ACES = say.plural(
    "roll.aces", "{rolls: + } = {value} ({count} ace)", "{rolls: + } = {value} ({count} aces)"
)
DIE_ROLLED = say("roll.die", "{die} rolled {shown}")
DIE_ROLLED_MODIFIED = say("roll.die.modified", "{die} rolled {shown}, {modifier} → {total}")
KEPT = say("roll.kept", "kept the {die} die: {total}")
NO_WILD_DIE = say("roll.no_wild_die", "no wild die (npc)")
VERDICT_STEP = say("roll.verdict", "{total} against {difficulty}: {verdict}")
DIFFICULTY = say("roll.difficulty", "difficulty {difficulty}")
TARGETS_DEFENSE = say("roll.difficulty.defense", "the target's Defense")

FAILURE = say("verdict.failure", "failure")
SUCCESS = say("verdict.success", "success")
SUCCESS_RAISES = say.plural(
    "verdict.raises", "success with {count} raise", "success with {count} raises"
)
NOTE_RAISES = say.plural("dice.note.raises", "success, {count} raise", "success, {count} raises")

# -- trait tests, attacks, recovery (checks.py) ----------------------------------------

TRAIT_ROLLS = say("trait.rolls", "{actor} rolls {trait} against {difficulty}: {total}, {verdict}")

DEFENSE_STEP = say("attack.defense", "difficulty {difficulty} = Defense of {target} ({how})")
DEFENSE_STEP_HIDDEN = say("attack.defense.hidden", "difficulty = Defense of {target} (hidden)")
DEFENSE_FIGHTING = say("attack.defense.fighting", "2 + half of Fighting {die}")
DEFENSE_NO_FIGHTING = say("attack.defense.no_fighting", "2, no Fighting")
DEFENSE = say("attack.defense.word", "Defense")
RANGED_STEP = say("attack.ranged", "difficulty {difficulty} = {band} range {base}")
RANGED_STEP_SIZED = say(
    "attack.ranged.sized", "difficulty {difficulty} = {band} range {base} {adjust} ({size} target)"
)
ATTACK_MISSES = say("attack.misses", "{actor} misses {target} ({mode}, {total} against {against})")
ATTACK_HITS = say("attack.hits", "{actor} hits {target} ({mode}, {total} against {against})")
ATTACK_HITS_RAISES = say.plural(
    "attack.hits.raises",
    "{actor} hits {target} with {count} raise ({mode}, {total} against {against})",
    "{actor} hits {target} with {count} raises ({mode}, {total} against {against})",
)

RECOVERY_LABEL = say("recovery.label", "Recovery: {trait}")
RECOVERS = say(
    "recovery.recovers",
    "{actor} tries to recover: {total} against {difficulty}, is no longer Shaken",
)
STAYS_SHAKEN = say(
    "recovery.stays", "{actor} tries to recover: {total} against {difficulty}, stays Shaken"
)
RECOVERY_SUCCESS = say("recovery.step.success", "WD-9: success ends Shaken")
RECOVERY_FAILURE = say("recovery.step.failure", "WD-9: failure: still Shaken")
TURN_SHAKEN_PLAYER = say(
    "turn.shaken.player",
    "round {round}: {actor}'s turn starts Shaken (dice rolled by the player)",
)
TURN_SHAKEN_SERVER = say(
    "turn.shaken.server",
    "round {round}: {actor}'s turn starts Shaken (dice rolled by the server)",
)

# -- chips (checks.py, harm.py) ----------------------------------------------------------

WHOLE_ROLL = say("chip.which.whole", "the whole roll")
ONE_DIE = say("chip.which.die", "the {die} die")
CHIP_SPENT = say(
    "chip.spent",
    "chip spent on roll {roll} ({kind}): rerolls {which}; {before} → {after} chips",
)
CHIP_SPENT_HIDDEN = say("chip.spent.hidden", "chip spent on roll {roll} ({kind}): rerolls {which}")
REPLACED = say("chip.replaced", "the {die} die's {rolls:+} is replaced")
REPLACED_ACED = say("chip.replaced.aced", "the {die} die's {rolls:+} = {value} is replaced")
CHIP_RECOVERS = say("chip.recovers", "WD-9: the rerolled recovery succeeds and ends Shaken")
CHIP_REROLLS = say(
    "chip.rerolls",
    "{actor} spends a chip to reroll {which} of {trait}: {before} → {after}, {verdict}",
)
AWARDS = say.plural(
    "chips.awards",
    "The GM awards {count} chip to {names}",
    "The GM awards {count} chips to {names}",
)
AWARD_STEP = say("chips.award", "{target}: chips {before} → {after}")
AWARD_STEP_CAPPED = say(
    "chips.award.capped", "{target}: chips {before} → {after} (at most {most} are held)"
)
AWARD_STEP_HIDDEN = say("chips.award.hidden", "{target}: chips awarded")

# -- damage and healing (damage.py, harm.py) ---------------------------------------------

STRENGTH_DICE = say("damage.dice.strength", "Strength d{faces}")
WEAPON_DICE = say("damage.dice.weapon", "weapon {count}d{faces}")
DICE_LINE = say("damage.dice.line", "{label}: {value}")
DICE_LINE_SUM = say("damage.dice.sum", "{label}: {dice} = {total}")
DIE_ACED = say("damage.die.aced", "{rolls:+}={value} (aced)")
DAMAGE_ROLL = say("damage.roll", "damage roll {formula}")
DAMAGE_CONSTANT = say("damage.constant", "constant {constant:+d}")
DAMAGE_TOTAL = say("damage.total", "damage total {total} (every die aces; damage gets no wild die)")
TOUGHNESS_STEP = say(
    "damage.toughness", "Toughness of {target} {toughness} = 2 + half of Vigor {vigor} ({half})"
)
TOUGHNESS_STEP_ARMOUR = say(
    "damage.toughness.armour",
    "Toughness of {target} {toughness} = 2 + half of Vigor {vigor} ({half}) + armour {armor}",
)
TOUGHNESS_STEP_HIDDEN = say(
    "damage.toughness.hidden", "Toughness of {target}: hidden (2 + half of Vigor + armour, WD-5)"
)
TOUGHNESS = say("damage.toughness.value", "Toughness {toughness}")
TOUGHNESS_WORD = say("damage.toughness.word", "Toughness")
EFFECT_STEP = say("damage.effect", "WD-7: {why} → {effect}")
DAMAGE_BY = say("damage.by", "{actor}'s damage {total} against {target}'s {toughness}: {effect}")
DAMAGE = say("damage.anonymous", "damage {total} against {target}'s {toughness}: {effect}")

WHY_BELOW = say("why.below", "{total} is below {toughness}")
WHY_MEETS = say("why.meets", "{total} meets {toughness} without a raise")
WHY_MEETS_SHAKEN = say(
    "why.meets.shaken", "{total} meets {toughness} and the target is already Shaken"
)
WHY_BEATS = say("why.beats", "{total} beats Toughness {toughness} by {margin} (4 or more)")
WHY_BEATS_HIDDEN = say("why.beats.hidden", "{total} beats Toughness by 4 or more")
WHY_PER_RAISE = say.plural(
    "why.per_raise",
    "{total} beats Toughness {toughness} by {margin}: {count} raise, one wound each",
    "{total} beats Toughness {toughness} by {margin}: {count} raises, one wound each",
)
WHY_PER_RAISE_HIDDEN = say.plural(
    "why.per_raise.hidden",
    "{total} beats Toughness by {count} raise, one wound each",
    "{total} beats Toughness by {count} raises, one wound each",
)

WOUNDED = say.plural(
    "effect.wounds", "{count} wound and Shaken: {note}", "{count} wounds and Shaken: {note}"
)
SHAKEN = say("effect.shaken", "Shaken (overcoming pain)")
NO_EFFECT = say("effect.none", "no effect")
INCAPACITATED = say("wounds.incapacitated", "incapacitated")
OUT_OF_THE_FIGHT = say("wounds.out", "out of the fight")
ALREADY_INCAPACITATED = say("wounds.already", "already incapacitated")
WOUND_TRACK = say("wounds.track", "{wounds} wound(s) of {limit}")

HEALS = say("heal.heals", "The GM heals {names}")
HEAL_STEP = say("heal.step", "{target}: {changes}")
HEAL_WOUNDS = say("heal.wounds", "wounds {before} → {after}")
NO_LONGER_INCAPACITATED = say("heal.incapacitated", "no longer incapacitated")
NO_LONGER_SHAKEN = say("heal.shaken", "no longer Shaken")
