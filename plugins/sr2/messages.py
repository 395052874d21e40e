"""Every text the ``sr2`` ruleset says, declared once in English.

Resolutions carry these as data (:class:`rollbridge.text.Text`: the message id,
``sr2.<key>``, and its named arguments) and each audience gets them rendered.
What an NPC's sheet or boxes would give away is marked
:class:`rollbridge.text.Private` where the text is built (see :mod:`.privacy`):
an argument (the Body in ``Body 4 + pool 2 = 6 dice``, which players read as
``6 dice``), an optional phrase (``, 1 overflow``, left out for players), or a
whole line through :data:`LINE`, with the wording players read instead (the
``.hidden`` messages below).

The ruleset's own notation stays as it is in every language: damage codes
(``10S``) and level letters, the staging path (``S->D``), the rule numbers
(``SR-9``), the range bands and armour types of the parameters, actor ids and
names, and the labels players type (a success test's ``label``).
"""

from __future__ import annotations

from pathlib import Path

from rollbridge.text import Messages

say = Messages("sr2", catalogs=Path(__file__).with_name("locale"))

#: A line told in full to those who may see it and as its ``instead`` to the
#: others: its one argument is a :class:`~rollbridge.text.Private` holding a text.
LINE = say("line", "{line}")

# -- words lines are built from (words.py) ---------------------------------------------

SUCCESSES = say.plural("successes", "{count} success", "{count} successes")
DICE = say("dice", "{count} dice")
TN = say("tn", "TN {tn}")
TN_HIDDEN = say("tn.hidden", "a hidden TN")
FLOORED = say("tn.floored", " (floored to {tn}, SR-2)")
NONE = say("none", "none")
LEVELS = {
    "L": say("level.L", "Light"),
    "M": say("level.M", "Moderate"),
    "S": say("level.S", "Serious"),
    "D": say("level.D", "Deadly"),
}
#: The tracks, lower case as lines name them (``the physical monitor``).
TRACKS = {
    "stun": say("track.stun", "stun"),
    "physical": say("track.physical", "physical"),
    "overflow": say("track.overflow", "overflow"),
}
#: A monitor's wound level (``Physical Deadly``).
WOUNDS_ON = {
    "stun": say("wounds.stun", "Stun {level}"),
    "physical": say("wounds.physical", "Physical {level}"),
}
STATUSES = {
    "ok": say("status.ok", "ok"),
    "impaired": say("status.impaired", "impaired"),
    "down": say("status.down", "down"),
    "dying": say("status.dying", "dying"),
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
RECOIL = say("tn.recoil", "recoil ({rounds} rounds, compensation {compensation})")
RECOIL_ONE_ROUND = say("tn.recoil.one_round", "recoil (1 round)")

# -- the steps of an attack and of resistance (explain.py) -----------------------------

CODE_FIRED = say(
    "code.fired",
    "Code {code} = {base} fired {rounds} rounds: power +{rounds}, level +{raised} "
    "(one per 3 rounds, never past D) (SR-6)",
)
CODE_ONE_ROUND = say("code.one_round", "Code {code}: one round, the base code (SR-6)")
DAMAGE_CODE_FIRED = say(
    "damage.code.fired",
    "Code {code} = {base} fired {rounds} rounds: power +{rounds}, level +{raised} (SR-6)",
)
DAMAGE_CODE = say("damage.code", "Code {code} (SR-4)")
SUCCESSES_GIVEN = say("damage.given", "Attack successes given: {count}")

ATTACK_TN = say("attack.tn", "Attack TN {tn} (SR-7, SR-8)")
ATTACK_TN_BUILT = say(
    "attack.tn.built",
    "{raw} = {base} {base_value} + {recoil} {recoil_value} + wound modifier {wound} "
    "{sign} situational {situational}{floor}",
)
ATTACK_TN_HIDDEN = say("attack.tn.hidden", "hidden: it depends on the attacker's recoil")
ATTACK_LINE = say("attack.line", "Attack: {dice} vs {tn}: [{chains}] -> {result}")
SKILL_DICE = say("dice.skill", "skill {skill} + pool {pool} = {count} dice")
ATTACK_MISSES_STEP = say(
    "attack.missed", "No attack successes: the attack misses and deals nothing (SR-8)"
)
BOTCH = say("test.botched", "botch: every die shows 1 (SR-3)")

RESISTANCE_TN = say("resistance.tn", "Resistance TN {tn} (SR-9)")
RESISTANCE_TN_BUILT = say(
    "resistance.tn.built",
    "{raw} = power {power} {sign} {armour} {armour_value} + wound modifier {wound}{floor}",
)
RESISTANCE_TN_HIDDEN = say(
    "resistance.tn.hidden", "hidden: power {power} - {armour} (hidden) + wound modifier {wound}"
)
RESISTANCE_LINE = say("resistance.line", "Resistance: {dice} vs {tn}: [{chains}] -> {result}")
BODY_DICE = say("dice.body", "Body {body} + pool {pool} = {count} dice")

NET = say("net", "Net successes {attack} - {resistance} = {net:+d} -> {shift} (SR-10){spare}")
NET_UP = say("net.up", "{count} step(s) up")
NET_DOWN = say("net.down", "{count} step(s) down")
NET_NONE = say("net.none", "no change")
NET_SPARE = say("net.spare", ", 1 spare success shifts nothing")
STAGING = say("staging", "Staging: {path}")
NO_DAMAGE_STEP = say("damage.none", "Damage staged below Light: no damage (SR-10)")
DAMAGE_STEP = say(
    "damage.boxes",
    "Damage: {level} ({letter}) = {boxes} boxes{overflow} on the {monitor} monitor (SR-5, SR-11)",
)
DAMAGE_OVERFLOW = say("damage.overflow", " + {count} overflow")
BOXES_CROSSED = say("boxes.crossed", "Boxes crossed: {moved}{lost}; status {status} (SR-13)")
BOXES_CROSSED_HIDDEN = say(
    "boxes.crossed.hidden", "Wound levels now: {levels}; status {status} (SR-12, SR-13)"
)
BOXES_MOVED = say("boxes.moved", "{track} {before} -> {after}")
BOXES_LOST = say("boxes.lost", "; {count} box(es) lost")

# -- narration and dice groups of an attack (narrate.py) -------------------------------

HITS = say("attack.hits", "{attacker} hits {defender}{weapon} ({code}, {successes}): {damage}.")
MISSES = say("attack.misses", "{attacker} misses {defender}{weapon} ({code}).")
BOTCHES = say("attack.botches", "{attacker} botches {defender}{weapon} ({code}).")
WITH_WEAPON = say("attack.weapon", " with {weapon}")
RESISTS = say("damage.resists", "{defender} resists {code} against {successes}: {damage}.")
DAMAGE_TAKEN = say("damage.taken", "{level}{overflow}; {defender} is {status}")
DAMAGE_TAKEN_OVERFLOW = say("damage.taken.overflow", ", {count} overflow")
DAMAGE_RESISTED = say("damage.resisted", "no damage, {defender} resists it all")
ATTACK_GROUP = say("dice.attack", "Attack test ({attacker})")
ATTACK_NOTE = say("dice.attack.note", "skill {skill} + pool {pool}")
RESISTANCE_GROUP = say("dice.resistance", "Resistance test ({defender})")
RESISTANCE_NOTE = say("dice.resistance.note", "Body {body} + pool {pool}")

# -- the success test (success.py) -----------------------------------------------------

TESTED = say("test.done", "{label}, {dice} dice vs TN {tn}: {result}.")
TESTED_BY = say("test.done_by", "{actor}: {label}, {dice} dice vs TN {tn}: {result}.")
TEST_BOTCH = say("test.botch", "botch")
TEST_TN = say("test.tn", "TN {raw} = given TN {given}{wound}{floor} (SR-2, SR-12)")
TEST_TN_WOUND = say("test.tn.wound", " + wound modifier {modifier}")
TEST_LINE = say("test.line", "{label}: {dice} vs TN {tn}: [{chains}] -> {result}")
POOL_DICE = say("dice.pool", "{count} + pool {pool} dice")

# -- heal, bleed, stabilise (care.py) --------------------------------------------------

HEALS = say("heal.heals", "{target} heals {count} {monitor} box(es): {status}.")
HEALS_HIDDEN = say("heal.heals.hidden", "{target} is healed ({monitor}): {status}.")
HEAL_STEP = say("heal.step", "Heal {boxes} {monitor} box(es) (SR-15){removed}")
HEAL_REMOVED = say("heal.removed", ": {parts}")
HEAL_PART = say("heal.part", "{track} -{count}")
HEAL_NOTHING = say("heal.nothing", "nothing to heal")

BLEEDS = say("bleed.bleeds", "{target} bleeds: overflow {overflow}{limit}, {status}.")
BLEEDS_HIDDEN = say("bleed.bleeds.hidden", "{target} bleeds: {status}.")
BLEEDS_LIMIT = say("bleed.limit", "/{body}")
BLEED_STEP = say(
    "bleed.step", "Bleeding (SR-13): overflow {before} -> {after}{limit}; status {status}"
)
BLEED_STEP_HIDDEN = say("bleed.step.hidden", "Bleeding (SR-13): status {status}")
BLEED_STEP_LIMIT = say("bleed.step.limit", " (Body {body}; above Body is dead)")

STABILISED = say("stabilise.done", "{target} is stabilised.")
STABILISED_STEP = say("stabilise.step", "Stabilised (SR-13): no more bleeding until hurt again")

# -- a new combat turn (refill.py) -----------------------------------------------------

NEW_TURN = say("turn.new", "New combat turn: every Combat Pool is refilled.")
NEW_ROUND = say("turn.round", "Combat turn {round}: every Combat Pool is refilled.")
NEW_TURN_STEP = say("turn.new.step", "New combat turn (SR-14): {pools}")
NEW_ROUND_STEP = say("turn.round.step", "Combat turn {round} (SR-14): {pools}")
POOL_OF = say("turn.pool", "{actor} {pool}")
NO_ACTORS = say("turn.no_actors", "no actors")
