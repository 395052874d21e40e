"""Every text the ``hitpoints`` ruleset says, declared once in English.

Resolutions carry these as data (:class:`rollbridge.text.Text`: the message id and
its arguments); each audience gets them rendered, in its language. An NPC's armour
class and hit points are marked :class:`rollbridge.text.Private` where they are
used, so players read "(hidden)" in their place unless the table shows them.
"""

from rollbridge.text import Messages

say = Messages("hitpoints")

MISSES = say("attack.misses", "{attacker} misses {target}")
HITS = say("attack.hits", "{attacker} hits {target} for {amount}")
REGAINS = say.plural(
    "heal.regains", "{target} regains {count} hit point", "{target} regains {count} hit points"
)
ATTACK_STEP = say("attack.step", "attack {d20} {bonus:+d} = {total} against AC {ac}")
CRITICAL = say("attack.critical", "a natural 20: the damage dice are rolled twice")
DAMAGE_STEP = say("attack.damage", "damage {roll}")
ATTACK_DICE = say("dice.attack", "attack")
