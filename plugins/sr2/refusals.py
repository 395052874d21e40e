"""Every refusal the ``sr2`` ruleset raises, declared once in English.

A refusal (:class:`~rollbridge.exceptions.RuleViolation`,
:class:`~rollbridge.exceptions.InvalidParams`,
:class:`~rollbridge.exceptions.InvalidSheet`, …) is given a
:class:`~rollbridge.text.Text` of one of these: ``str(error)`` and
``error.message`` are the English, and each client reads it in its own language
(:meth:`~rollbridge.exceptions.RollbridgeError.render`). A value the request gave
is passed quoted as Python quotes it (``'7Q'``), so the English reads as it always
did; field paths (``params.code``), parameter names and values, codes and actor
names are notation and stay as they are in every language.

The texts are built only when a refusal is raised: the checks themselves cost
what they did.
"""

from __future__ import annotations

from .messages import say

__all__ = [
    "ACTOR_DEAD",
    "ALREADY_DEAD",
    "ALREADY_STABILISED",
    "ARMOR_TYPE",
    "BAD_CODE",
    "BAD_DELTA",
    "BAD_DICE",
    "BAD_MONITOR",
    "BOTH_WEAPON_AND_CODE",
    "CANNOT_ATTACK",
    "CODE_NOT_TEXT",
    "DAMAGE_TYPE",
    "DICE_AND_TN",
    "DUPLICATE_WEAPON",
    "HEAL_DEAD",
    "NEEDS_ATTACKER",
    "NOT_DYING",
    "NOT_DYING_BOXES",
    "NOT_SIGNED",
    "NOT_WHOLE",
    "NO_ACTION",
    "NO_CODE",
    "NO_SKILL",
    "NO_SUCCESSES",
    "NO_TRACK",
    "NO_WEAPON",
    "ONE_TARGET",
    "POOL_LEFT",
    "POOL_NOT_LEFT",
    "POOL_WITHOUT_ACTOR",
    "RANGE_OR_TN",
    "ROLES",
    "STABILISED",
    "UNKNOWN_BAND",
    "UNKNOWN_LEVEL",
    "WEAPON_CODE",
]

# -- the ruleset object (ruleset.py) -----------------------------------------------------

# Translators: {track} is the name asked for, quoted; {tracks} the track keys (kept).
NO_TRACK = say("refused.track", "track: sr2 has no track {track} (tracks: {tracks})")
BAD_DELTA = say("refused.delta", "delta: must be a whole number, got {value}")
NO_ACTION = say("refused.action", "sr2 has no action {action} (actions: {actions})")

# -- parameters (checks.py, codes.py, sheet.py, rolls.py) ---------------------------------

# Translators: {key} is a parameter's name and {value} what was given (both kept).
NOT_WHOLE = say("refused.whole", "params.{key}: must be a whole number ≥ {low}, got {value}")
NOT_SIGNED = say("refused.signed", "params.{key}: must be a whole number, got {value}")
# Translators: {action} is the action's name (kept).
ONE_TARGET = say("refused.one_target", "{action} needs exactly one target, got {count}")
# Translators: {where} is a field ("params.code") or "Tukan's weapon Hackler".
CODE_NOT_TEXT = say(
    "refused.code.type", "{where}: a damage code is a string like '9M', got {value}"
)
BAD_CODE = say(
    "refused.code.form",
    "{where}: {value} is not a damage code; write the power and the level, like '9M'",
)
# Translators: the letters are those of the codes in every language (the Czech seed's
# V is S here, its S is D); the words in brackets name the levels.
UNKNOWN_LEVEL = say(
    "refused.code.level",
    "{where}: unknown damage level {letter} in {value}; "
    "use L, M, S or D (Light, Moderate, Serious, Deadly)",
)
# Translators: where a weapon's damage code is, in a refusal: "Tukan's weapon Hackler".
WEAPON_CODE = say("refused.code.weapon", "{owner}'s weapon {weapon}")
DUPLICATE_WEAPON = say("refused.weapon.twice", "{where}.name: two weapons are named {name}")
# Translators: {known} lists the weapons on the sheet, quoted, or says none.
NO_WEAPON = say(
    "refused.weapon.unknown", "params.weapon: {owner} has no weapon {name} (has: {known})"
)
BAD_DICE = say("refused.dice", "a test needs a whole number of dice ≥ 0, not {value}")

# -- attacks and damage (combat.py) -------------------------------------------------------

NEEDS_ATTACKER = say("refused.attacker", "attack needs an acting attacker")
BOTH_WEAPON_AND_CODE = say(
    "refused.weapon_and_code", "params: give either weapon or code, not both"
)
NO_CODE = say(
    "refused.no_code",
    "params.code: give a weapon on the attacker's sheet or a damage code like '9M'",
)
# Translators: the parameter names and values (physical, stun, ballistic, impact) are kept.
DAMAGE_TYPE = say("refused.damage_type", "params.damage_type: unknown {value}")
ARMOR_TYPE = say("refused.armor_type", "params.armor_type: unknown {value}")
NO_SKILL = say(
    "refused.skill", "params.skill: give the attack dice (the weapon on the sheet has no skill)"
)
# Translators: the range bands and "tn" are parameter values and names (kept).
RANGE_OR_TN = say(
    "refused.range_or_tn",
    "params.range: give a range band (short, medium, long, extreme) or an explicit tn, "
    "exactly one of them",
)
UNKNOWN_BAND = say("refused.range", "params.range: unknown range band {band}")
# Translators: {status} is a status word: down, dying or dead (SR-13).
CANNOT_ATTACK = say("refused.incapacitated", "{attacker} is {status} and cannot attack")
NO_SUCCESSES = say("refused.attack_successes", "params.attack_successes: is required")

# -- the Combat Pool (checks.py, SR-14) ---------------------------------------------------

#: Who spends the dice, by the key the actions pass.
ROLES = {
    "attacker": say("role.attacker", "attacker"),
    "defender": say("role.defender", "defender"),
    "attacker and defender": say("role.both", "attacker and defender"),
    # Translators: the one who rolls a success test (SR-16).
    "tester": say("role.tester", "tester"),
}
# Translators: {role} is attacker, defender...; a player asked about another's pool,
# so the dice left are not said.
POOL_NOT_LEFT = say.plural(
    "refused.pool.hidden",
    "{actor} ({role}) does not have {asked} Combat Pool die left this turn",
    "{actor} ({role}) does not have {asked} Combat Pool dice left this turn",
    count="asked",
)
# Translators: {left} dice are left; {asked} were asked for.
POOL_LEFT = say.plural(
    "refused.pool",
    "{actor} ({role}) has {left} Combat Pool die left this turn and cannot spend {asked}",
    "{actor} ({role}) has {left} Combat Pool dice left this turn and cannot spend {asked}",
    count="left",
)

# -- the success test (success.py) --------------------------------------------------------

DICE_AND_TN = say("refused.dice_and_tn", "params.dice and params.tn are required")
POOL_WITHOUT_ACTOR = say(
    "refused.pool.no_actor", "params.pool: only an acting actor can spend Combat Pool dice"
)

# -- heal, bleed, stabilise (care.py, SR-13, SR-15) ---------------------------------------

BAD_MONITOR = say("refused.monitor", "params.monitor: must be 'physical' or 'stun', got {value}")
# Translators: the seed's words: past the last overflow point there is no help (SR-15).
HEAL_DEAD = say(
    "refused.heal.dead", "{target} is dead: past the last overflow box there is no help"
)
ALREADY_DEAD = say("refused.bleed.dead", "{target} is already dead")
NOT_DYING_BOXES = say("refused.bleed.not_dying", "{target} is not dying (Physical {physical}/10)")
STABILISED = say("refused.bleed.stabilised", "{target} is stabilised and does not bleed")
ACTOR_DEAD = say("refused.stabilise.dead", "{target} is dead")
NOT_DYING = say("refused.stabilise.not_dying", "{target} is not dying")
ALREADY_STABILISED = say("refused.stabilise.again", "{target} is already stabilised")
