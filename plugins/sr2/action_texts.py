"""The actions' own words (:class:`~rollbridge.contract.ActionSpec`'s ``label``,
``summary``, ``labels``, ``hints`` and ``choices``), declared once in English: what
a form (the web table's) shows a player, in the player's language.

Each action's name and one-line summary; each parameter's name and one line of
help in the player's words (from the schema's English ``description``, which
stays as it is for developers); the values of an ``enum`` as people read them.
The parameters' keys and values stay what the request sends (``range``,
``short``): only what people read is translated, in the words of the glossary
(docs/rulesets/sr2.md: the Czech seed's for Czech).
"""

from __future__ import annotations

from rollbridge.text import Message, Text

from .conditions import TRACK_LABEL
from .messages import say

__all__ = [
    "EXAMPLE_DEATH_ROLL",
    "HINTS",
    "LABEL",
    "LABELS",
    "RULESET_SUMMARY",
    "SUMMARY",
    "choices",
]

# Translators: the ruleset's one paragraph, as `rollbridge rulesets` and a client
# describing the table show it; keep the notation (2d6, d4-d12, 9M) as it is.
RULESET_SUMMARY = say(
    "ruleset.summary",
    "Shadowrun 2nd-edition-style dice pools: open-ended d6 against a target "
    "number, damage codes like 9M staged by net successes, Stun and "
    "Physical condition monitors with overflow up to Body, and a Combat "
    "Pool refilled every combat turn.",
)

# Translators: a success test's label as a player might write it (the test's trait and
# what it is for), shown greyed in a form as an example of how to fill in the label.
EXAMPLE_DEATH_ROLL = say("form.example.death_roll", "Body (death roll)")

# -- the actions ------------------------------------------------------------------------

# Translators: an action's name as a form's list and button show it.
_ACTION = {
    "success_test": say("form.action.success_test", "Success test"),
    "attack": say("form.action.attack", "Attack"),
    "damage": say("form.action.damage", "Damage"),
    "heal": say("form.action.heal", "Heal"),
    "bleed": say("form.action.bleed", "Bleed"),
    "stabilise": say("form.action.stabilise", "Stabilise"),
    "new_turn": say("form.action.new_turn", "New combat turn"),
}
# Translators: an action's one line of help; SR-n are rule numbers, kept as they are.
_SUMMARY = {
    "success_test": say(
        "form.summary.success_test", "SR-16: any number of open-ended d6 against any TN."
    ),
    "attack": say(
        "form.summary.attack", "SR-6 to SR-11: attack test, resistance test, staging and damage."
    ),
    "damage": say(
        "form.summary.damage",
        "SR-9 to SR-11: the target resists a damage code against given attack successes.",
    ),
    "heal": say(
        "form.summary.heal", "SR-15: remove boxes from a monitor; Physical heals overflow first."
    ),
    "bleed": say(
        "form.summary.bleed", "SR-13: a dying, unstabilised character takes overflow boxes."
    ),
    "stabilise": say("form.summary.stabilise", "SR-13: a dying character stops bleeding."),
    "new_turn": say("form.summary.new_turn", "SR-14: a new combat turn refills every Combat Pool."),
}

# -- the parameters' names ----------------------------------------------------------------

# Translators: a parameter's name as a form's field shows it (short, capitalised).
_DICE = say("form.param.dice", "Dice")
_TN = say("form.param.tn", "Target number")
_POOL = say("form.param.pool", "Combat Pool dice")
_WOUND_MODIFIER = say("form.param.wound_modifier", "Wound modifier")
# Translators: the name a success test is logged under (a death roll, a skill test).
_TEST_LABEL = say("form.param.label", "Name of the test")
_WEAPON = say("form.param.weapon", "Weapon")
_CODE = say("form.param.code", "Damage code")
_DAMAGE_TYPE = say("form.param.damage_type", "Damage type")
_ARMOR_TYPE = say("form.param.armor_type", "Armour type")
_SKILL = say("form.param.skill", "Skill (attack dice)")
_ATTACKER_POOL = say("form.param.attacker_pool", "Attacker's Combat Pool dice")
_DEFENDER_POOL = say("form.param.defender_pool", "Defender's Combat Pool dice")
_ROUNDS = say("form.param.rounds", "Rounds fired")
_RECOIL_COMPENSATION = say("form.param.recoil_compensation", "Recoil compensation")
_RANGE = say("form.param.range", "Range")
_ATTACK_TN = say("form.param.attack_tn", "Base target number")
_MODIFIER = say("form.param.modifier", "Situational modifier")
_BODY = say("form.param.body", "Defender's Body")
_ARMOR = say("form.param.armor", "Defender's armour")
_ATTACK_SUCCESSES = say("form.param.attack_successes", "Attack successes")
# Translators: the condition monitor (Stun or Physical) healing removes boxes from.
_MONITOR = say("form.param.monitor", "Monitor")
_BOXES = say("form.param.boxes", "Boxes")
_OVERFLOW_BOXES = say("form.param.overflow_boxes", "Overflow boxes")

# -- the parameters' help -----------------------------------------------------------------

# Translators: one line of help under a form's field, to the player.
_HINT_DICE = say("form.hint.dice", "How many dice to roll.")
_HINT_TN = say("form.hint.tn", "The number each die must reach; below 2 counts as 2.")
_HINT_POOL = say("form.hint.pool", "Combat Pool dice the character adds (SR-14).")
_HINT_WOUND_MODIFIER = say(
    "form.hint.wound_modifier", "Add the character's wound modifier to the target number (SR-12)."
)
_HINT_TEST_LABEL = say(
    "form.hint.label", "What the test is for, as the log shows it (a death roll, say)."
)
_HINT_WEAPON = say(
    "form.hint.weapon",
    "The name of a weapon on the attacker's sheet (or give a damage code instead).",
)
# Translators: the letters stay the English L, M, S, D in every language (the Czech
# seed's V is S, its S is D): name each level beside its letter.
_HINT_CODE = say(
    "form.hint.code",
    "Power, then level L, M, S or D (SR-4: Light, Moderate, Serious, Deadly), e.g. 9M.",
)
_HINT_ATTACK_DAMAGE_TYPE = say(
    "form.hint.attack.damage_type",
    "With a damage code: the monitor the damage goes on (default Physical).",
)
_HINT_DAMAGE_TYPE = say(
    "form.hint.damage_type", "The monitor the damage goes on (default Physical)."
)
_HINT_ATTACK_ARMOR_TYPE = say(
    "form.hint.attack.armor_type",
    "The armour that resists it; default: the weapon's, else ballistic.",
)
_HINT_ARMOR_TYPE = say("form.hint.armor_type", "The armour that resists it (default ballistic).")
_HINT_SKILL = say(
    "form.hint.skill", "Dice for the attack test; default: the weapon's skill on the sheet."
)
_HINT_ATTACKER_POOL = say(
    "form.hint.attacker_pool", "How many Combat Pool dice the attacker spends (SR-14)."
)
_HINT_DEFENDER_POOL = say(
    "form.hint.defender_pool",
    "How many Combat Pool dice the defender spends on resisting (SR-14).",
)
_HINT_ATTACK_ROUNDS = say(
    "form.hint.attack.rounds",
    "How many rounds are fired; more raise the damage code and the recoil (SR-6, SR-7).",
)
_HINT_ROUNDS = say(
    "form.hint.rounds", "How many rounds were fired; more raise the damage code (SR-6)."
)
_HINT_RECOIL_COMPENSATION = say(
    "form.hint.recoil_compensation",
    "Offsets the recoil of several rounds; default: the weapon's, else 0 (SR-7).",
)
_HINT_RANGE = say(
    "form.hint.range", "How far the target is: it sets the base target number (SR-8)."
)
_HINT_ATTACK_TN = say("form.hint.attack.tn", "A base target number instead of a range.")
_HINT_MODIFIER = say(
    "form.hint.modifier", "Situational modifiers added to the attack's target number."
)
_HINT_BODY = say("form.hint.body", "Resistance dice instead of the Body on the defender's sheet.")
_HINT_ARMOR = say("form.hint.armor", "An armour rating instead of the one on the defender's sheet.")
_HINT_ATTACK_SUCCESSES = say(
    "form.hint.attack_successes", "How many successes the attacker rolled."
)
_HINT_MONITOR = say("form.hint.monitor", "Which condition monitor to heal.")
_HINT_BOXES = say("form.hint.boxes", "How many boxes to remove (on Physical, overflow goes first).")
_HINT_OVERFLOW_BOXES = say(
    "form.hint.overflow_boxes",
    "How many overflow boxes the dying character takes (above Body is dead).",
)

# -- the values of enums --------------------------------------------------------------------

# Translators: the armour a weapon's damage is resisted by (SR-9), as a form lists it.
_ARMOR_CHOICES = {
    "ballistic": say("form.choice.ballistic", "Ballistic"),
    "impact": say("form.choice.impact", "Impact"),
}
# Translators: a range band as a form lists it, with its attack TN (SR-8).
_RANGE_CHOICES = {
    "short": say("form.choice.range.short", "Short (TN {tn})"),
    "medium": say("form.choice.range.medium", "Medium (TN {tn})"),
    "long": say("form.choice.range.long", "Long (TN {tn})"),
    "extreme": say("form.choice.range.extreme", "Extreme (TN {tn})"),
}


def _texts(messages: dict[str, Message]) -> dict[str, Text]:
    return {key: message() for key, message in messages.items()}


#: Action → its name (``Attack``).
LABEL: dict[str, Text] = _texts(_ACTION)
#: Action → its one line of help.
SUMMARY: dict[str, Text] = _texts(_SUMMARY)

_POOL_TEXT, _DEFENDER_POOL_TEXT = _POOL(), _DEFENDER_POOL()
_CODE_TEXT, _BODY_TEXT, _ARMOR_TEXT = _CODE(), _BODY(), _ARMOR()
_DAMAGE_TYPE_TEXT, _ARMOR_TYPE_TEXT, _ROUNDS_TEXT = _DAMAGE_TYPE(), _ARMOR_TYPE(), _ROUNDS()
_HINT_CODE_TEXT, _HINT_BODY_TEXT, _HINT_ARMOR_TEXT = _HINT_CODE(), _HINT_BODY(), _HINT_ARMOR()
_HINT_DEFENDER_POOL_TEXT = _HINT_DEFENDER_POOL()

#: Action → parameter → its name.
LABELS: dict[str, dict[str, Text]] = {
    "success_test": {
        "dice": _DICE(),
        "tn": _TN(),
        "pool": _POOL_TEXT,
        "wound_modifier": _WOUND_MODIFIER(),
        "label": _TEST_LABEL(),
    },
    "attack": {
        "weapon": _WEAPON(),
        "code": _CODE_TEXT,
        "damage_type": _DAMAGE_TYPE_TEXT,
        "armor_type": _ARMOR_TYPE_TEXT,
        "skill": _SKILL(),
        "attacker_pool": _ATTACKER_POOL(),
        "defender_pool": _DEFENDER_POOL_TEXT,
        "rounds": _ROUNDS_TEXT,
        "recoil_compensation": _RECOIL_COMPENSATION(),
        "range": _RANGE(),
        "tn": _ATTACK_TN(),
        "modifier": _MODIFIER(),
        "body": _BODY_TEXT,
        "armor": _ARMOR_TEXT,
    },
    "damage": {
        "code": _CODE_TEXT,
        "damage_type": _DAMAGE_TYPE_TEXT,
        "armor_type": _ARMOR_TYPE_TEXT,
        "rounds": _ROUNDS_TEXT,
        "attack_successes": _ATTACK_SUCCESSES(),
        "defender_pool": _DEFENDER_POOL_TEXT,
        "body": _BODY_TEXT,
        "armor": _ARMOR_TEXT,
    },
    "heal": {"monitor": _MONITOR(), "boxes": _BOXES()},
    "bleed": {"boxes": _OVERFLOW_BOXES()},
    "stabilise": {},
    "new_turn": {},
}

#: Action → parameter → its help.
HINTS: dict[str, dict[str, Text]] = {
    "success_test": {
        "dice": _HINT_DICE(),
        "tn": _HINT_TN(),
        "pool": _HINT_POOL(),
        "wound_modifier": _HINT_WOUND_MODIFIER(),
        "label": _HINT_TEST_LABEL(),
    },
    "attack": {
        "weapon": _HINT_WEAPON(),
        "code": _HINT_CODE_TEXT,
        "damage_type": _HINT_ATTACK_DAMAGE_TYPE(),
        "armor_type": _HINT_ATTACK_ARMOR_TYPE(),
        "skill": _HINT_SKILL(),
        "attacker_pool": _HINT_ATTACKER_POOL(),
        "defender_pool": _HINT_DEFENDER_POOL_TEXT,
        "rounds": _HINT_ATTACK_ROUNDS(),
        "recoil_compensation": _HINT_RECOIL_COMPENSATION(),
        "range": _HINT_RANGE(),
        "tn": _HINT_ATTACK_TN(),
        "modifier": _HINT_MODIFIER(),
        "body": _HINT_BODY_TEXT,
        "armor": _HINT_ARMOR_TEXT,
    },
    "damage": {
        "code": _HINT_CODE_TEXT,
        "damage_type": _HINT_DAMAGE_TYPE(),
        "armor_type": _HINT_ARMOR_TYPE(),
        "rounds": _HINT_ROUNDS(),
        "attack_successes": _HINT_ATTACK_SUCCESSES(),
        "defender_pool": _HINT_DEFENDER_POOL_TEXT,
        "body": _HINT_BODY_TEXT,
        "armor": _HINT_ARMOR_TEXT,
    },
    "heal": {"monitor": _HINT_MONITOR(), "boxes": _HINT_BOXES()},
    "bleed": {"boxes": _HINT_OVERFLOW_BOXES()},
    "stabilise": {},
    "new_turn": {},
}


def choices(range_tn: dict[str, int]) -> dict[str, dict[str, dict[str, Text]]]:
    """Action → parameter → value → its words; the monitors are the common state's
    track labels (``Physical``, ``Stun``), the range bands name their TN."""
    monitors = {"physical": TRACK_LABEL["physical"], "stun": TRACK_LABEL["stun"]}
    armour = _texts(_ARMOR_CHOICES)
    bands = {band: _RANGE_CHOICES[band](tn=tn) for band, tn in range_tn.items()}
    return {
        "attack": {"damage_type": monitors, "armor_type": armour, "range": bands},
        "damage": {"damage_type": monitors, "armor_type": armour},
        "heal": {"monitor": monitors},
    }
