"""Every text the ``sr2`` ruleset says, declared once in English.

Resolutions carry these as data (:class:`rollbridge.text.Text`: the message id,
``sr2.<key>``, and its named arguments) and each audience gets them rendered.
What an NPC's sheet or boxes would give away is marked
:class:`rollbridge.text.Private` where the text is built (see :mod:`.privacy`):
an argument (the Body in ``Body 4 + pool 2 = 6 dice``, which players read as
``6 dice``), an optional phrase (``, 1 overflow``, left out for players), or a
whole line through :data:`LINE`, with the wording players read instead (the
``.hidden`` messages below).

The catalogues ``locale/<lang>/LC_MESSAGES/sr2.po`` translate them (Czech, German,
Russian; ``rollbridge catalogs update plugins/sr2`` extracts and compiles them). A
number followed by a counted noun is a plural message (``say.plural``), so that
languages with more forms (Czech and Russian: 1 rána, 2 rány, 5 ran) decline it;
the English output is the same either way. The refusals are declared in
:mod:`.refusals`, the common state's texts in :mod:`.conditions`, the actions' own
words (names, summaries, parameter names, help and choices, as forms show them) in
:mod:`.action_texts`.

The ruleset's own notation stays as it is in every language: damage codes
(``10S``) and level letters (the English edition's L, M, S, D: the Czech seed's V
is our S, its S our D), the staging path's letters (``S->D``), the rule numbers
(``SR-9``), the parameter values (range bands, armour types and monitors as the
request names them), actor ids and names, and the labels players type (a success
test's ``label``; its default label is translated).
"""

from __future__ import annotations

from pathlib import Path

from rollbridge.text import Messages

say = Messages("sr2", catalogs=Path(__file__).with_name("locale"))

#: A line told in full to those who may see it and as its ``instead`` to the
#: others: its one argument is a :class:`~rollbridge.text.Private` holding a text.
# Translators: a whole line, given as it is: keep it "{line}".
LINE = say("line", "{line}")

# -- words lines are built from (words.py) ---------------------------------------------

SUCCESSES = say.plural("successes", "{count} success", "{count} successes")
# Translators: six-sided dice rolled (the English says "dice" for any number).
DICE = say.plural("dice", "{count} die", "{count} dice")
# Translators: TN is the target number a die must reach (cs CČ, de MW, ru ЦЧ).
TN = say("tn", "TN {tn}")
# Translators: read after "vs" in place of "TN 6" when players may not see the TN
# ("4 dice vs a hidden TN").
TN_HIDDEN = say("tn.hidden", "a hidden TN")
# Translators: appended to a TN that rule SR-2 raised to 2; keep the leading space.
FLOORED = say("tn.floored", " (floored to {tn}, SR-2)")
# Translators: an empty list: no boxes crossed, no weapons on a sheet.
NONE = say("none", "none")
# Translators: the damage levels (SR-4), as the game's edition in your language names
# them; the letters in codes (10S) stay the English L, M, S, D in every language.
LEVELS = {
    "L": say("level.L", "Light"),
    "M": say("level.M", "Moderate"),
    "S": say("level.S", "Serious"),
    "D": say("level.D", "Deadly"),
}
#: The tracks, lower case as lines name them (``the physical monitor``).
# Translators: the two condition monitors and the overflow boxes past Physical (SR-11),
# as lines name them: "on the physical monitor", "physical 0 -> 10", "3 stun box(es)".
TRACKS = {
    "stun": say("track.stun", "stun"),
    "physical": say("track.physical", "physical"),
    "overflow": say("track.overflow", "overflow"),
}
#: A monitor's wound level (``Physical Deadly``).
# Translators: {level} is one of the damage levels above.
WOUNDS_ON = {
    "stun": say("wounds.stun", "Stun {level}"),
    "physical": say("wounds.physical", "Physical {level}"),
}
# Translators: an actor's status (SR-13), read in "Guard is dying" and "status dying".
STATUSES = {
    "ok": say("status.ok", "ok"),
    "impaired": say("status.impaired", "impaired"),
    "down": say("status.down", "down"),
    "dying": say("status.dying", "dying"),
    # Translators: read after a name for any character, whatever its gender.
    "dead": say("status.dead", "dead"),
}
RANGE_BANDS = {
    "short": say("tn.range.short", "short range"),
    "medium": say("tn.range.medium", "medium range"),
    "long": say("tn.range.long", "long range"),
    "extreme": say("tn.range.extreme", "extreme range"),
}
GIVEN_TN = say("tn.given", "given TN")
ARMOURS = {
    "ballistic": say("armour.ballistic", "ballistic armour"),
    "impact": say("armour.impact", "impact armour"),
}
ARMOURS_GIVEN = {
    "ballistic": say("armour.ballistic.given", "ballistic armour (given)"),
    "impact": say("armour.impact.given", "impact armour (given)"),
}
# Translators: a part of the attack TN (SR-7): rounds fired, the attacker's recoil
# compensation.
RECOIL = say.plural(
    "tn.recoil",
    "recoil ({rounds} rounds, compensation {compensation})",
    "recoil ({rounds} rounds, compensation {compensation})",
    count="rounds",
)
RECOIL_ONE_ROUND = say("tn.recoil.one_round", "recoil (1 round)")
#: The labels of the outcome's ``tn_parts`` that no other text gives.
PART_POWER = say("part.power", "power")
PART_WOUND = say("part.wound", "wound modifier")
# Translators: the situational modifiers of an attack TN (SR-8).
PART_SITUATIONAL = say("part.situational", "situational")

# -- the steps of an attack and of resistance (explain.py) -----------------------------

# Translators: {code} and {base} are damage codes (10S, 7M); power is the code's number.
CODE_FIRED = say.plural(
    "code.fired",
    "Code {code} = {base} fired {rounds} rounds: power +{rounds}, level +{raised} "
    "(one per 3 rounds, never past D) (SR-6)",
    "Code {code} = {base} fired {rounds} rounds: power +{rounds}, level +{raised} "
    "(one per 3 rounds, never past D) (SR-6)",
    count="rounds",
)
CODE_ONE_ROUND = say("code.one_round", "Code {code}: one round, the base code (SR-6)")
DAMAGE_CODE_FIRED = say.plural(
    "damage.code.fired",
    "Code {code} = {base} fired {rounds} rounds: power +{rounds}, level +{raised} (SR-6)",
    "Code {code} = {base} fired {rounds} rounds: power +{rounds}, level +{raised} (SR-6)",
    count="rounds",
)
DAMAGE_CODE = say("damage.code", "Code {code} (SR-4)")
SUCCESSES_GIVEN = say("damage.given", "Attack successes given: {count}")

ATTACK_TN = say("attack.tn", "Attack TN {tn} (SR-7, SR-8)")
# Translators: {base} is a range band or "given TN", {recoil} the recoil part; {sign} is
# + or -.
ATTACK_TN_BUILT = say(
    "attack.tn.built",
    "{raw} = {base} {base_value} + {recoil} {recoil_value} + wound modifier {wound} "
    "{sign} situational {situational}{floor}",
)
ATTACK_TN_HIDDEN = say("attack.tn.hidden", "hidden: it depends on the attacker's recoil")
# Translators: {dice} is "skill 6 + pool 1 = 7 dice", {tn} "TN 4", {chains} each die's rolls.
ATTACK_LINE = say("attack.line", "Attack: {dice} vs {tn}: [{chains}] -> {result}")
# Translators: "pool" is the Combat Pool (SR-14).
SKILL_DICE = say.plural(
    "dice.skill",
    "skill {skill} + pool {pool} = {count} die",
    "skill {skill} + pool {pool} = {count} dice",
)
ATTACK_MISSES_STEP = say(
    "attack.missed", "No attack successes: the attack misses and deals nothing (SR-8)"
)
BOTCH = say("test.botched", "botch: every die shows 1 (SR-3)")

RESISTANCE_TN = say("resistance.tn", "Resistance TN {tn} (SR-9)")
# Translators: {armour} is "ballistic armour" or "impact armour"; {sign} is - or +.
RESISTANCE_TN_BUILT = say(
    "resistance.tn.built",
    "{raw} = power {power} {sign} {armour} {armour_value} + wound modifier {wound}{floor}",
)
RESISTANCE_TN_HIDDEN = say(
    "resistance.tn.hidden", "hidden: power {power} - {armour} (hidden) + wound modifier {wound}"
)
RESISTANCE_LINE = say("resistance.line", "Resistance: {dice} vs {tn}: [{chains}] -> {result}")
BODY_DICE = say.plural(
    "dice.body",
    "Body {body} + pool {pool} = {count} die",
    "Body {body} + pool {pool} = {count} dice",
)

# Translators: {shift} is "2 step(s) up", "no change"...; keep the format {net:+d}.
NET = say("net", "Net successes {attack} - {resistance} = {net:+d} -> {shift} (SR-10){spare}")
# Translators: damage level steps the net successes move the damage (SR-10).
NET_UP = say.plural("net.up", "{count} step up", "{count} steps up")
NET_DOWN = say.plural("net.down", "{count} step down", "{count} steps down")
NET_NONE = say("net.none", "no change")
NET_SPARE = say("net.spare", ", 1 spare success shifts nothing")
# Translators: {path} lists the steps: S->D (level letters, kept), and the two below.
STAGING = say("staging", "Staging: {path}")
# Translators: a staging step past Deadly that crosses an overflow box instead (SR-10).
STAGED_OVERFLOW = say("staging.overflow", "D->+1 overflow")
# Translators: a staging step below Light: no damage (SR-10).
STAGED_NONE = say("staging.none", "L->none")
NO_DAMAGE_STEP = say("damage.none", "Damage staged below Light: no damage (SR-10)")
# Translators: {letter} is the level's letter in codes (the English L, M, S, D; keep it);
# {overflow} is " + 1 overflow" or nothing; {monitor} a track name above.
DAMAGE_STEP = say.plural(
    "damage.boxes",
    "Damage: {level} ({letter}) = {boxes} box{overflow} on the {monitor} monitor (SR-5, SR-11)",
    "Damage: {level} ({letter}) = {boxes} boxes{overflow} on the {monitor} monitor (SR-5, SR-11)",
    count="boxes",
)
# Translators: overflow boxes (SR-11) after the level's boxes; keep the leading space.
DAMAGE_OVERFLOW = say.plural("damage.overflow", " + {count} overflow", " + {count} overflow")
# Translators: {moved} lists "physical 0 -> 10"; {lost} is "; 2 box(es) lost" or nothing.
BOXES_CROSSED = say("boxes.crossed", "Boxes crossed: {moved}{lost}; status {status} (SR-13)")
BOXES_CROSSED_HIDDEN = say(
    "boxes.crossed.hidden", "Wound levels now: {levels}; status {status} (SR-12, SR-13)"
)
# Translators: a track ({track}: a name above) and its boxes before and after.
BOXES_MOVED = say("boxes.moved", "{track} {before} -> {after}")
# Translators: boxes with nowhere to go (past Body + 1, or Stun not carried).
BOXES_LOST = say.plural("boxes.lost", "; {count} box lost", "; {count} boxes lost")

# -- narration and dice groups of an attack (narrate.py) -------------------------------

# Translators: {weapon} is " with Hackler" or nothing; {code} a damage code; {damage}
# "Deadly, 1 overflow; Guard is dying" or "no damage, Guard resists it all".
HITS = say("attack.hits", "{attacker} hits {defender}{weapon} ({code}, {successes}): {damage}.")
MISSES = say("attack.misses", "{attacker} misses {defender}{weapon} ({code}).")
BOTCHES = say("attack.botches", "{attacker} botches {defender}{weapon} ({code}).")
# Translators: keep the leading space; {weapon} is the weapon's name as on the sheet.
WITH_WEAPON = say("attack.weapon", " with {weapon}")
# Translators: {code} is a damage code; {successes} the attack's ("7 successes").
RESISTS = say("damage.resists", "{defender} resists {code} against {successes}: {damage}.")
# Translators: {level} a damage level, {overflow} ", 1 overflow" or nothing, {status} a
# status word above: "Deadly, 1 overflow; Guard is dying".
DAMAGE_TAKEN = say("damage.taken", "{level}{overflow}; {defender} is {status}")
DAMAGE_TAKEN_OVERFLOW = say.plural(
    "damage.taken.overflow", ", {count} overflow", ", {count} overflow"
)
DAMAGE_RESISTED = say("damage.resisted", "no damage, {defender} resists it all")
ATTACK_GROUP = say("dice.attack", "Attack test ({attacker})")
ATTACK_NOTE = say("dice.attack.note", "skill {skill} + pool {pool}")
RESISTANCE_GROUP = say("dice.resistance", "Resistance test ({defender})")
RESISTANCE_NOTE = say("dice.resistance.note", "Body {body} + pool {pool}")

# -- the success test (success.py) -----------------------------------------------------

# Translators: {label} is what the test is (a player's words, or "Success test").
TESTED = say.plural(
    "test.done",
    "{label}, {dice} die vs TN {tn}: {result}.",
    "{label}, {dice} dice vs TN {tn}: {result}.",
    count="dice",
)
TESTED_BY = say.plural(
    "test.done_by",
    "{actor}: {label}, {dice} die vs TN {tn}: {result}.",
    "{actor}: {label}, {dice} dice vs TN {tn}: {result}.",
    count="dice",
)
#: The label of a success test that was given none (the schema's default).
TEST_LABEL = say("test.label", "Success test")
TEST_BOTCH = say("test.botch", "botch")
TEST_TN = say("test.tn", "TN {raw} = given TN {given}{wound}{floor} (SR-2, SR-12)")
TEST_TN_WOUND = say("test.tn.wound", " + wound modifier {modifier}")
TEST_LINE = say("test.line", "{label}: {dice} vs TN {tn}: [{chains}] -> {result}")
# Translators: the dice rolled and the Combat Pool dice added; the counts follow the
# word, so that it agrees with neither (a test may roll 0 + pool 1).
POOL_DICE = say("dice.pool", "dice: {count} + pool {pool}")

# -- heal, bleed, stabilise (care.py) --------------------------------------------------

HEALS = say.plural(
    "heal.heals",
    "{target} heals {count} {monitor} box: {status}.",
    "{target} heals {count} {monitor} boxes: {status}.",
)
HEALS_HIDDEN = say("heal.heals.hidden", "{target} is healed ({monitor}): {status}.")
# Translators: {removed} is ": overflow -1, physical -2" or nothing.
HEAL_STEP = say.plural(
    "heal.step",
    "Heal {boxes} {monitor} box (SR-15){removed}",
    "Heal {boxes} {monitor} boxes (SR-15){removed}",
    count="boxes",
)
HEAL_REMOVED = say("heal.removed", ": {parts}")
# Translators: boxes a heal removed from one track: "physical -2".
HEAL_PART = say("heal.part", "{track} -{count}")
HEAL_NOTHING = say("heal.nothing", "nothing to heal")

BLEEDS = say("bleed.bleeds", "{target} bleeds: overflow {overflow}{limit}, {status}.")
BLEEDS_HIDDEN = say("bleed.bleeds.hidden", "{target} bleeds: {status}.")
# Translators: the overflow limit after the overflow boxes ("4/4"): usually kept as it is.
BLEEDS_LIMIT = say("bleed.limit", "/{body}")
BLEED_STEP = say(
    "bleed.step", "Bleeding (SR-13): overflow {before} -> {after}{limit}; status {status}"
)
BLEED_STEP_HIDDEN = say("bleed.step.hidden", "Bleeding (SR-13): status {status}")
BLEED_STEP_LIMIT = say("bleed.step.limit", " (Body {body}; above Body is dead)")

# Translators: a dying character stops bleeding (SR-13).
STABILISED = say("stabilise.done", "{target} is stabilised.")
STABILISED_STEP = say("stabilise.step", "Stabilised (SR-13): no more bleeding until hurt again")

# -- a new combat turn (refill.py) -----------------------------------------------------

NEW_TURN = say("turn.new", "New combat turn: every Combat Pool is refilled.")
NEW_ROUND = say("turn.round", "Combat turn {round}: every Combat Pool is refilled.")
NEW_TURN_STEP = say("turn.new.step", "New combat turn (SR-14): {pools}")
NEW_ROUND_STEP = say("turn.round.step", "Combat turn {round} (SR-14): {pools}")
# Translators: an actor's name and its refilled Combat Pool ("Tukan 6").
POOL_OF = say("turn.pool", "{actor} {pool}")
NO_ACTORS = say("turn.no_actors", "no actors")
