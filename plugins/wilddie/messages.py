"""Every text the ``wilddie`` ruleset says, declared once in English.

Resolutions carry these as data (:class:`rollbridge.text.Text`: the message id,
``wilddie.<key>``, and its named arguments) and each audience gets them rendered
in its own language: the catalogues in ``locale/`` (``cs``, ``de``, ``ru``) hold
the translations, looked up by the key and the English template. What an NPC's
sheet or hidden state would give away is marked :class:`rollbridge.text.Private`
where the text is built (see :mod:`rollbridge.plugins.wilddie.privacy`): either
one argument (the Toughness in ``Toughness 9``, shown to players as
``Toughness``) or a whole step, with the wording players read instead (the
``.hidden`` messages below).

The ruleset's words are messages too: the trait names (``Fighting``), the roll
kinds, the dice slots, the attack modes, range bands and target sizes, and the
notes of the modifiers the ruleset adds itself (``untrained``, ``1 wound``).
What stays as it is in every language is notation and what the table typed:
dice formulas (``{1d8!!, 1d6!!}kh``, ``1d6!! + 1d8!!``), rule numbers
(``WD-9``), signed numbers, actor names, request and roll ids, parameter names
and values quoted in refusals (``params.range``, ``short``), and the notes
players give their modifiers.

Every declaration below is made with literal strings: the catalogue tools only
extract ``say(key, template)`` and ``say.plural(key, one, other)`` calls.
"""

from __future__ import annotations

from pathlib import Path

from rollbridge.text import Message, Messages

say = Messages("wilddie", catalogs=Path(__file__).with_name("locale"))

# -- the ruleset's words (WD-1, WD-3, WD-6) -------------------------------------------

#: The six attributes and fourteen skills of WD-1, by trait id (the seed's words).
TRAIT_NAMES: dict[str, Message] = {
    # Translators: WD-1 attribute (seed: Сила), physical form; melee damage. Every trait
    # name stands in the nominative, in labels such as "Strength d6" (trait.label).
    "strength": say("trait.strength", "Strength"),
    # Translators: WD-1 attribute (seed: Выносливость), endurance; Toughness is built on it.
    "vigor": say("trait.vigor", "Vigor"),
    # Translators: WD-1 attribute (seed: Координация), precision of movement.
    "coordination": say("trait.coordination", "Coordination"),
    # Translators: WD-1 attribute (seed: Реакция), reaction time.
    "reaction": say("trait.reaction", "Reaction"),
    # Translators: WD-1 attribute (seed: Интуиция), quick wits and memory.
    "intuition": say("trait.intuition", "Intuition"),
    # Translators: WD-1 attribute (seed: Характер), willpower; recovery from Shaken rolls it.
    "character": say("trait.character", "Character"),
    # Translators: WD-1 skill (seed: Лазание).
    "climbing": say("trait.climbing", "Climbing"),
    # Translators: WD-1 skill (seed: Плавание).
    "swimming": say("trait.swimming", "Swimming"),
    # Translators: WD-1 skill (seed: Маскировка), moving and hiding unseen.
    "stealth": say("trait.stealth", "Stealth"),
    # Translators: WD-1 skill (seed: Взлом), opening locks.
    "lockpicking": say("trait.lockpicking", "Lockpicking"),
    # Translators: WD-1 skill (seed: Стрельба), ranged attacks.
    "shooting": say("trait.shooting", "Shooting"),
    # Translators: WD-1 skill (seed: Пилотирование), driving and flying vehicles.
    "piloting": say("trait.piloting", "Piloting"),
    # Translators: WD-1 skill (seed: Драка), melee attacks; Defense is built on it.
    "fighting": say("trait.fighting", "Fighting"),
    # Translators: WD-1 skill (seed: Выслеживание).
    "tracking": say("trait.tracking", "Tracking"),
    # Translators: WD-1 skill (seed: Поиск информации).
    "research": say("trait.research", "Research"),
    # Translators: WD-1 skill (seed: Провокация), provoking an opponent.
    "taunt": say("trait.taunt", "Taunt"),
    # Translators: WD-1 skill (seed: Запугивание).
    "intimidation": say("trait.intimidation", "Intimidation"),
    # Translators: WD-1 skill (seed: Лечение).
    "healing": say("trait.healing", "Healing"),
    # Translators: WD-1 skill (seed: Ремонт).
    "repair": say("trait.repair", "Repair"),
    # Translators: WD-1 skill (seed: Внимание), perception.
    "notice": say("trait.notice", "Notice"),
}

#: What kind of trait roll a remembered roll is, by its ``kind``.
ROLL_KINDS: dict[str, Message] = {
    # Translators: a kind of roll, in parentheses after a roll's id: a trait test (WD-3).
    "trait": say("roll.kind.trait", "trait"),
    # Translators: a kind of roll, in parentheses after a roll's id: an attack (WD-6).
    "attack": say("roll.kind.attack", "attack"),
    # Translators: a kind of roll, in parentheses after a roll's id: a roll to recover
    # from Shaken (WD-9).
    "recovery": say("roll.kind.recovery", "recovery"),
}

#: The attack modes of WD-6, as the narration names them.
ATTACK_MODES: dict[str, Message] = {
    # Translators: in "Ana hits Guard (melee, 9 against 5)": a melee attack.
    "melee": say("attack.mode.melee", "melee"),
    # Translators: in "Ana hits Guard (ranged, 9 against 6)": a ranged attack.
    "ranged": say("attack.mode.ranged", "ranged"),
}

#: The range bands of WD-6, as the difficulty step names them.
RANGE_BANDS: dict[str, Message] = {
    # Translators: the word before "range" in "difficulty 4 = short range 4" (WD-6).
    "short": say("range.short", "short"),
    # Translators: the word before "range" in "difficulty 6 = medium range 6" (WD-6).
    "medium": say("range.medium", "medium"),
    # Translators: the word before "range" in "difficulty 8 = long range 8" (WD-6).
    "long": say("range.long", "long"),
}

#: The target sizes of WD-6 that change a ranged difficulty (a normal one does not).
TARGET_SIZES: dict[str, Message] = {
    # Translators: the word before "target" in "(tiny target)": WD-6 size, +6 to the difficulty.
    "tiny": say("size.tiny", "tiny"),
    # Translators: the words before "target" in "(very small target)": +4 to the difficulty.
    "very_small": say("size.very_small", "very small"),
    # Translators: the word before "target" in "(small target)": +2 to the difficulty.
    "small": say("size.small", "small"),
    # Translators: the word before "target" in "(large target)": −2 to the difficulty.
    "large": say("size.large", "large"),
    # Translators: the word before "target" in "(huge target)": −4 to the difficulty.
    "huge": say("size.huge", "huge"),
    # Translators: the word before "target" in "(gargantuan target)": −6 to the difficulty.
    "gargantuan": say("size.gargantuan", "gargantuan"),
}

# Translators: the note of the −2 an untrained skill gives a roll (WD-1), in "−2 (untrained)".
UNTRAINED_NOTE = say("roll.note.untrained", "untrained")
# Translators: the note of the wound modifier (WD-8), in "−2 (2 wounds)".
WOUNDS_NOTE = say.plural("roll.note.wounds", "{count} wound", "{count} wounds")

# -- the common state (ruleset.py) -----------------------------------------------------

# Translators: the label of the wound track every client draws (WD-8).
WOUNDS_TRACK = say("state.track.wounds", "Wounds")
# Translators: a condition: Shaken, the seed's "overcoming pain" (WD-7).
SHAKEN_CONDITION = say("state.shaken", "Shaken")
# Translators: a condition: a player character's fourth wound, an NPC's first (WD-8).
INCAPACITATED_CONDITION = say("state.incapacitated", "Incapacitated")
# Translators: how the wound modifier applies; {modifier} is written −1, −2 or −3, with
# the minus sign (U+2212) of running text.
WOUND_MODIFIER = say("state.modifier", "{modifier} to trait rolls")

# -- a trait roll (rolling.py) -------------------------------------------------------

# Translators: a trait and its die, e.g. "Fighting d10"; {trait} is a trait's name. Write
# the die as your players do (d10, k10, W10): {faces} is its number of sides.
TRAIT_LABEL = say("trait.label", "{trait} d{faces}")
# Translators: an untrained skill rolls d4 with −2 (WD-1): "Stealth (untrained d4)".
TRAIT_LABEL_UNTRAINED = say("trait.label.untrained", "{trait} (untrained d{faces})")
# Translators: the wild die a player character rolls beside the trait die (WD-3).
WILD_DIE = say("die.wild", "wild die d{faces}")
# Translators: one modifier and its note, e.g. "−1 (1 wound)" or "+2 (aim)".
MODIFIER_NOTED = say("roll.modifier", "{value} ({note})")
# Translators: {parts} lists the modifiers, {total} is their sum, e.g. "−1 (1 wound) +2 (aim) = +1".
MODIFIERS = say("roll.modifiers", "modifiers {parts: } = {total}, applied to each die")
# Translators: an acing die (WD-2): "6 + 6 + 2 = 14 (2 aces)".
ACES = say.plural(
    "roll.aces", "{rolls: + } = {value} ({count} ace)", "{rolls: + } = {value} ({count} aces)"
)
# Translators: {die} names the die ("Notice d6", "wild die d6"); {shown}, what it rolled.
DIE_ROLLED = say("roll.die", "{die} rolled {shown}")
DIE_ROLLED_MODIFIED = say("roll.die.modified", "{die} rolled {shown}, {modifier} → {total}")
# Translators: the better of the two dice is kept (WD-3): the trait die.
KEPT_TRAIT = say("roll.kept.trait", "kept the trait die: {total}")
# Translators: the better of the two dice is kept (WD-3): the wild die.
KEPT_WILD = say("roll.kept.wild", "kept the wild die: {total}")
# Translators: NPCs roll no wild die (WD-3).
NO_WILD_DIE = say("roll.no_wild_die", "no wild die (npc)")
# Translators: {difficulty} is "difficulty 4" (roll.difficulty) or "the target's Defense"
# (roll.difficulty.defense); {verdict} is failure or success.
VERDICT_STEP = say("roll.verdict", "{total} against {difficulty}: {verdict}")
# Translators: stands for {difficulty} in "9 against {difficulty}: success".
DIFFICULTY = say("roll.difficulty", "difficulty {difficulty}")
# Translators: stands for {difficulty} in "9 against {difficulty}: success", for players
# who may not see an NPC's Defense.
TARGETS_DEFENSE = say("roll.difficulty.defense", "the target's Defense")

FAILURE = say("verdict.failure", "failure")
SUCCESS = say("verdict.success", "success")
# Translators: a raise is each full 4 above the difficulty (WD-3).
SUCCESS_RAISES = say.plural(
    "verdict.raises", "success with {count} raise", "success with {count} raises"
)
# Translators: the short note of a dice group that succeeded with raises.
NOTE_RAISES = say.plural("dice.note.raises", "success, {count} raise", "success, {count} raises")

# -- trait tests, attacks, recovery (checks.py) ----------------------------------------

# Translators: {trait} is a label such as "Notice d6" or "Stealth (untrained d4)"
# (trait.label*); {difficulty} a number; {verdict} "success" etc. (verdict.*).
TRAIT_ROLLS = say("trait.rolls", "{actor} rolls {trait} against {difficulty}: {total}, {verdict}")

# Translators: a melee difficulty is the target's Defense (WD-5, WD-6); {how} is
# "2 + half of Fighting d10" or "2, no Fighting".
DEFENSE_STEP = say("attack.defense", "difficulty {difficulty} = Defense of {target} ({how})")
DEFENSE_STEP_HIDDEN = say("attack.defense.hidden", "difficulty = Defense of {target} (hidden)")
DEFENSE_FIGHTING = say("attack.defense.fighting", "2 + half of Fighting d{faces}")
DEFENSE_NO_FIGHTING = say("attack.defense.no_fighting", "2, no Fighting")
# Translators: stands for {against} in an attack's narration ("9 against Defense") for
# players who may not see an NPC's Defense.
DEFENSE = say("attack.defense.word", "Defense")
# Translators: {band} is short, medium or long (range.*), {base} its difficulty (WD-6).
RANGED_STEP = say("attack.ranged", "difficulty {difficulty} = {band} range {base}")
# Translators: {adjust} is the size's change to the difficulty ("−2"), {size} the size (size.*).
RANGED_STEP_SIZED = say(
    "attack.ranged.sized", "difficulty {difficulty} = {band} range {base} {adjust} ({size} target)"
)
# Translators: {mode} is melee or ranged (attack.mode.*); {against} the difficulty's
# number, or "Defense" (attack.defense.word) for players.
ATTACK_MISSES = say("attack.misses", "{actor} misses {target} ({mode}, {total} against {against})")
ATTACK_HITS = say("attack.hits", "{actor} hits {target} ({mode}, {total} against {against})")
ATTACK_HITS_RAISES = say.plural(
    "attack.hits.raises",
    "{actor} hits {target} with {count} raise ({mode}, {total} against {against})",
    "{actor} hits {target} with {count} raises ({mode}, {total} against {against})",
)

# Translators: the label of a recovery roll's dice (WD-9); {trait} is "Character d6".
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
# Translators: WD-9's recovery roll at the start of a Shaken character's turn.
TURN_SHAKEN_PLAYER = say(
    "turn.shaken.player",
    "round {round}: {actor}'s turn starts Shaken (dice rolled by the player)",
)
TURN_SHAKEN_SERVER = say(
    "turn.shaken.server",
    "round {round}: {actor}'s turn starts Shaken (dice rolled by the server)",
)

# -- chips (checks.py, harm.py) ----------------------------------------------------------

# Translators: what a chip rerolls under the canonical setting (WD-4): both dice. The
# chip.which.* texts are the object of "rerolls" in chip.spent and chip.rerolls: use the
# case that verb takes.
WHOLE_ROLL = say("chip.which.whole", "the whole roll")
# Translators: what a chip rerolls (WD-4): the trait die.
ONE_DIE_TRAIT = say("chip.which.trait", "the trait die")
# Translators: what a chip rerolls (WD-4): the wild die.
ONE_DIE_WILD = say("chip.which.wild", "the wild die")
# Translators: {roll} is a roll's id, {kind} its kind (roll.kind.*), {which} the die
# (chip.which.*); {before} → {after} are the chips held, chosen by {after}.
CHIP_SPENT = say.plural(
    "chip.spent",
    "chip spent on roll {roll} ({kind}): rerolls {which}; {before} → {after} chip",
    "chip spent on roll {roll} ({kind}): rerolls {which}; {before} → {after} chips",
    count="after",
)
CHIP_SPENT_HIDDEN = say("chip.spent.hidden", "chip spent on roll {roll} ({kind}): rerolls {which}")
# Translators: the die a chip rerolled is replaced by the new one (decision 9); {rolls}
# is what it rolled, e.g. "2".
REPLACED_TRAIT = say("chip.replaced.trait", "the trait die's {rolls:+} is replaced")
REPLACED_WILD = say("chip.replaced.wild", "the wild die's {rolls:+} is replaced")
# Translators: as chip.replaced.*, for a die that aced: "6+3 = 9".
REPLACED_TRAIT_ACED = say(
    "chip.replaced.trait.aced", "the trait die's {rolls:+} = {value} is replaced"
)
REPLACED_WILD_ACED = say(
    "chip.replaced.wild.aced", "the wild die's {rolls:+} = {value} is replaced"
)
# The messages that named the die in an argument ({die}: "trait" or "wild", an English
# word inside every translation) became one message per die (2 December): the events of
# tables played before keep the old ids, read as the new ones.
for _old, _new in (("roll.kept", "roll.kept.{die}"), ("chip.which.die", "chip.which.{die}"),
                   ("chip.replaced", "chip.replaced.{die}"),
                   ("chip.replaced.aced", "chip.replaced.{die}.aced")):  # fmt: skip
    say.renamed(_old, by="die", keys={die: _new.format(die=die) for die in ("trait", "wild")})
CHIP_RECOVERS = say("chip.recovers", "WD-9: the rerolled recovery succeeds and ends Shaken")
CHIP_SHAKEN_AGAIN = say(
    "chip.shaken_again", "WD-9: the rerolled recovery fails: Shaken did not end, and is back"
)
# Translators: {which} as in chip.spent, {trait} "Fighting d8"; {before} → {after} totals.
CHIP_REROLLS = say(
    "chip.rerolls",
    "{actor} spends a chip to reroll {which} of {trait}: {before} → {after}, {verdict}",
)
# Translators: {names} lists the characters who get the chips (WD-4).
AWARDS = say.plural(
    "chips.awards",
    "The GM awards {count} chip to {names}",
    "The GM awards {count} chips to {names}",
)
AWARD_STEP = say("chips.award", "{target}: chips {before} → {after}")
# Translators: a character holds at most {most} chips (99, a technical bound).
AWARD_STEP_CAPPED = say.plural(
    "chips.award.capped",
    "{target}: chips {before} → {after} (at most {most} are held)",
    "{target}: chips {before} → {after} (at most {most} are held)",
    count="most",
)
AWARD_STEP_HIDDEN = say("chips.award.hidden", "{target}: chips awarded")

# -- damage and healing (damage.py, harm.py) ---------------------------------------------

# Translators: a damage dice group's label: the attacker's Strength die (melee, WD-7).
STRENGTH_DICE = say("damage.dice.strength", "Strength d{faces}")
# Translators: a damage dice group's label: the weapon's dice, e.g. "weapon 2d6".
WEAPON_DICE = say("damage.dice.weapon", "weapon {count}d{faces}")
DICE_LINE = say("damage.dice.line", "{label}: {value}")
DICE_LINE_SUM = say("damage.dice.sum", "{label}: {dice} = {total}")
# Translators: a damage die that aced (WD-2): "6+2=8 (aced)".
DIE_ACED = say("damage.die.aced", "{rolls:+}={value} (aced)")
# Translators: {formula} is dice notation, e.g. "1d6!! + 1d8!!".
DAMAGE_ROLL = say("damage.roll", "damage roll {formula}")
# Translators: the damage expression's number, which the format writes with its sign:
# "constant +2", "constant -1". It stays a number (not text with the minus sign U+2212):
# an event keeps its arguments, and `rollbridge verify` renders an older table's events
# again beside the resolution made anew — a number turned into text would make every
# older log with a negative constant a mismatch.
DAMAGE_CONSTANT = say("damage.constant", "constant {constant:+d}")
DAMAGE_TOTAL = say("damage.total", "damage total {total} (every die aces; damage gets no wild die)")
# Translators: Toughness (WD-5); {faces} is the Vigor die's, {half} half of it.
TOUGHNESS_STEP = say(
    "damage.toughness", "Toughness of {target} {toughness} = 2 + half of Vigor d{faces} ({half})"
)
TOUGHNESS_STEP_ARMOUR = say(
    "damage.toughness.armour",
    "Toughness of {target} {toughness} = 2 + half of Vigor d{faces} ({half}) + armour {armor}",
)
TOUGHNESS_STEP_HIDDEN = say(
    "damage.toughness.hidden", "Toughness of {target}: hidden (2 + half of Vigor + armour, WD-5)"
)
# Translators: stands for {toughness} in why.below, why.meets, why.meets.shaken,
# damage.by and damage.anonymous: choose the case those sentences need.
TOUGHNESS = say("damage.toughness.value", "Toughness {toughness}")
# Translators: as damage.toughness.value, for players who may not see an NPC's Toughness.
TOUGHNESS_WORD = say("damage.toughness.word", "Toughness")
# Translators: {why} is one of the why.* messages, {effect} one of the effect.* ones (WD-7).
EFFECT_STEP = say("damage.effect", "WD-7: {why} → {effect}")
DAMAGE_BY = say("damage.by", "{actor}'s damage {total} against {target}'s {toughness}: {effect}")
DAMAGE = say("damage.anonymous", "damage {total} against {target}'s {toughness}: {effect}")

# Translators: {toughness} is "Toughness 9" (damage.toughness.value) or "Toughness".
WHY_BELOW = say("why.below", "{total} is below {toughness}")
WHY_MEETS = say("why.meets", "{total} meets {toughness} without a raise")
WHY_MEETS_SHAKEN = say(
    "why.meets.shaken", "{total} meets {toughness} and the target is already Shaken"
)
# Translators: here {toughness} is a number.
WHY_BEATS = say("why.beats", "{total} beats Toughness {toughness} by {margin} (4 or more)")
WHY_BEATS_HIDDEN = say("why.beats.hidden", "{total} beats Toughness by 4 or more")
# Translators: the canonical setting: one wound per raise over Toughness (WD-7).
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

# Translators: {note} is wounds.* below: what the new wounds did.
WOUNDED = say.plural(
    "effect.wounds", "{count} wound and Shaken: {note}", "{count} wounds and Shaken: {note}"
)
# Translators: the seed's "overcoming pain" is its name for Shaken (WD-7).
SHAKEN = say("effect.shaken", "Shaken (overcoming pain)")
NO_EFFECT = say("effect.none", "no effect")
# Translators: a player character's fourth wound (WD-8).
INCAPACITATED = say("wounds.incapacitated", "incapacitated")
# Translators: an NPC's first wound (WD-8).
OUT_OF_THE_FIGHT = say("wounds.out", "out of the fight")
ALREADY_INCAPACITATED = say("wounds.already", "already incapacitated")
# Translators: the wounds a player character now has, of the {limit} it can hold (3).
WOUND_TRACK = say.plural("wounds.track", "{count} wound of {limit}", "{count} wounds of {limit}")

HEALS = say("heal.heals", "The GM heals {names}")
HEAL_STEP = say("heal.step", "{target}: {changes}")
HEAL_WOUNDS = say("heal.wounds", "wounds {before} → {after}")
NO_LONGER_INCAPACITATED = say("heal.incapacitated", "no longer incapacitated")
NO_LONGER_SHAKEN = say("heal.shaken", "no longer Shaken")

# -- refusals (the message of each error the ruleset raises) ------------------------------

# Translators: {action} is an action's id, quoted ('trait').
# Translators: a supplied state's roll record (see the docs' "The state"); {field} is its
# path (state.rolls[0]), difficulty and against are field names: keep all three as they are.
ROLL_DIFFICULTY_OR_AGAINST = say(
    "refused.state_roll",
    "{field}: a roll record must hold exactly one of difficulty and against",
)
NEEDS_ACTOR = say("refused.needs_actor", "action {action} needs an acting actor")
NEEDS_ONE_TARGET = say("refused.needs_one_target", "action {action} needs exactly one target")
# Translators: WD-8; code incapacitated.
CANNOT_ACT = say("refused.incapacitated", "{actor} is incapacitated and cannot make trait rolls")
# Translators: "params.range" and "params.size" name a request's fields: keep them.
MELEE_HAS_NO_RANGE = say("refused.melee_range", "params.range: only a ranged attack has a range")
MELEE_HAS_NO_SIZE = say("refused.melee_size", "params.size: only a ranged attack has a size")
# Translators: short, medium and long are the values of the field params.range: keep them.
RANGED_NEEDS_RANGE = say(
    "refused.ranged_range", "params.range: a ranged attack needs short, medium or long"
)
# Translators: WD-9; code not_shaken.
NOT_SHAKEN = say("refused.not_shaken", "{actor} is not Shaken")
# Translators: {roll} is a roll's id, quoted; {count} how many rolls are remembered (5).
NO_SUCH_ROLL = say.plural(
    "refused.unknown_roll",
    "{actor} has no recent roll {roll} to reroll (the last {count} are remembered)",
    "{actor} has no recent roll {roll} to reroll (the last {count} are remembered)",
)
NO_ROLL = say("refused.no_roll", "{actor} has made no roll a chip could reroll")
# Translators: WD-4, at most one chip per roll; code chip_already_spent.
CHIP_ALREADY_SPENT = say(
    "refused.chip_already_spent",
    "a chip was already spent on roll {roll}; at most one chip per roll",
)
# Translators: WD-4; code no_chips.
NO_CHIPS = say("refused.no_chips", "{actor} has no chips left")
NO_WILD_DIE_TO_REROLL = say(
    "refused.no_wild_die", "roll {roll} has no wild die to reroll (npcs roll none)"
)
# Translators: {roll} and {target} are ids, quoted; code chip_wrong_target.
CHIP_WRONG_TARGET = say(
    "refused.chip_wrong_target",
    "roll {roll} was made against {target}; a chip on it names only {target} as its target",
)
CHIP_NO_TARGET = say(
    "refused.chip_no_target", "roll {roll} was made against no target; a chip on it names no target"
)
# Translators: decision 17, the roll memory keeps no Defense; code chip_target_required.
CHIP_TARGET_REQUIRED = say(
    "refused.chip_target_required",
    "roll {roll} is a melee attack judged against the defense of {target}, which is not "
    "remembered: name {target} as the chip's target so that it is recomputed",
)
# Translators: "params.melee" names a request's field: keep it.
MELEE_NEEDS_ACTOR = say(
    "refused.melee_actor",
    "params.melee: melee damage adds the attacker's Strength; name the attacker",
)
# Translators: WD-10; "actor" names a request's field: keep it. Code forbidden.
DAMAGE_NEEDS_PLAYERS_ACTOR = say(
    "refused.damage_player_actor",
    "a player rolls damage only for a character they control: name the attacker (actor)",
)
# Translators: {where} is the field (params.dice), {problem} what is wrong with the
# damage expression {expression}; "2d6, d8+1 or d10+d6" are examples in dice notation.
BAD_DAMAGE = say(
    "refused.damage",
    "{where}: {problem} in {expression}; write weapon dice such as 2d6, d8+1 or d10+d6 "
    "(every die aces)",
)
# Translators: {problem} is the dice engine's explanation of a formula it cannot read.
BAD_NOTATION = say("refused.notation", "{where}: {problem}")
# Translators: the problems of refused.damage.
DICE_SUBTRACTED = say("refused.damage.subtracted", "dice cannot be subtracted")
# Translators: {term} is a dice term such as 2d6kh1.
MORE_THAN_ACES = say("refused.damage.modifiers", "{term} asks for more than aces")
NOT_A_DAMAGE_DIE = say("refused.damage.faces", "a d{faces} is not a damage die (d2 to d{most})")
ONLY_SUMS = say("refused.damage.operators", "only + and - of dice and numbers are allowed")
NO_DICE = say("refused.damage.no_dice", "there are no dice")
# Translators: {most} is the limit of dice in one damage roll (20).
TOO_MANY_DICE = say.plural(
    "refused.damage.too_many",
    "{count} dice are more than the {most} one damage roll may have",
    "{count} dice are more than the {most} one damage roll may have",
)
# Translators: "params.wounds" and "unshake" name a request's fields: keep them.
HEAL_NOTHING = say("refused.heal_nothing", "params.wounds: heal at least 1 wound, or set unshake")
HEAL_NEEDS_TARGET = say("refused.heal_target", "heal needs at least one target")
AWARD_NEEDS_TARGET = say("refused.award_target", "award_chips needs at least one target")
# Translators: {track} is the track asked for, quoted; 'wounds' is the track's id.
UNKNOWN_TRACK = say(
    "refused.unknown_track", "wilddie has no track {track}; its only track is 'wounds'"
)
UNKNOWN_ACTION = say("refused.unknown_action", "ruleset 'wilddie' has no action {action}")


# -- odds (the outcome labels of `rollbridge odds wilddie trait|attack`) ----------
# Translators: an outcome of a trait roll in a table of odds.
ODDS_FAILURE = say("odds.failure", "failure")
ODDS_SUCCESS = say("odds.success", "success")
# Translators: a success with {count} raises (WD-3), in a table of odds.
ODDS_RAISES = say.plural("odds.raises", "{count} raise", "{count} raises", count="count")
# Translators: the effects of a damage roll in a table of odds (WD-7, WD-8).
ODDS_NO_EFFECT = say("odds.damage.none", "no effect")
# Translators: the seed's "overcoming pain" (WD-7).
ODDS_SHAKEN = say("odds.damage.shaken", "Shaken")
# Translators: wounds a damage roll inflicts while the target stays standing (WD-8).
ODDS_WOUNDS = say.plural("odds.damage.wounds", "{count} wound", "{count} wounds", count="count")
# Translators: a player character's wound past the three it holds (WD-8).
ODDS_INCAPACITATED = say("odds.damage.incapacitated", "incapacitated")
# Translators: an NPC's first wound (WD-8).
ODDS_OUT = say("odds.damage.out", "out of the fight")
