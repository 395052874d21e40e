"""Every text the ``hitpoints`` ruleset says, declared once in English.

Resolutions carry these as data (:class:`rollbridge.text.Text`: the message id and
its arguments); each audience gets them rendered, in its language, from the
catalogues in ``locale/`` (Czech, German, Russian: docs/plugins.md, "Languages",
says how they are made). An NPC's armour class and hit points are marked
:class:`rollbridge.text.Private` where they are used, so players read "(hidden)" in
their place unless the table shows them.
"""

from pathlib import Path

from rollbridge.text import Messages

say = Messages("hitpoints", catalogs=Path(__file__).with_name("locale"))

MISSES = say("attack.misses", "{attacker} misses {target}")
HITS = say("attack.hits", "{attacker} hits {target} for {amount}")
REGAINS = say.plural(
    "heal.regains", "{target} regains {count} hit point", "{target} regains {count} hit points"
)
ATTACK_STEP = say("attack.step", "attack {d20} {bonus:+d} = {total} against AC {ac}")
CRITICAL = say("attack.critical", "a natural 20: the damage dice are rolled twice")
DAMAGE_STEP = say("attack.damage", "damage {roll}")
ATTACK_DICE = say("dice.attack", "attack")

# Refusals: each client reads them in its language (``str(error)`` stays English).
NOT_HURT = say("refused.not_hurt", "{target} has lost no hit points")
UNKNOWN_TRACK = say("refused.unknown_track", "there is no track {track}: only hp")

# The common damage state.
HP_LOST = say("track.hp", "HP lost")

# The ruleset's own summary, as `rollbridge rulesets` and the welcome show it.
SUMMARY = say(
    "ruleset.summary",
    "Roll 1d20 + attack bonus against the target's AC; on a hit, roll damage.",
)

# The actions' words, as forms show them.
ATTACK = say("action.attack", "Attack")
ATTACK_SUMMARY = say(
    "action.attack.summary", "1d20 + attack bonus against the target's AC; damage on a hit."
)
MODIFIER = say("action.attack.modifier", "Modifier")
MODIFIER_HINT = say("action.attack.modifier.hint", "added to the d20 roll (cover, a spell, …)")
HEAL = say("action.heal", "Heal")
HEAL_SUMMARY = say("action.heal.summary", "Restore hit points to one target.")
AMOUNT = say("action.heal.amount", "Hit points")
AMOUNT_HINT = say("action.heal.amount.hint", "how many hit points to restore")

# The outcomes of an attack's odds, as people read them.
ODDS_CRITICAL = say("odds.critical", "critical hit")
ODDS_HIT = say("odds.hit", "hit")
ODDS_MISS = say("odds.miss", "miss")
