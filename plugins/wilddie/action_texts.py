"""The wilddie actions' own words, as people read them.

Each action's ``label`` (its name on a button: ``Attack``) and ``summary``, each
parameter's label and one-line hint, and the values of a parameter with an ``enum``
(:class:`rollbridge.contract.ActionSpec`): texts of the ruleset's domain, rendered in
the reader's language in ``describe(locale)``, the welcome and the web table's forms.
The schemas' English ``description`` stays the reference for help screens and docs; a
hint says the same in a player's words.

:data:`ACTION_TEXTS` gives each action's keyword arguments of ``ActionSpec`` by action
(:mod:`rollbridge.plugins.wilddie.actions`). The words are the glossary's
(docs/rulesets/wilddie.md); a trait reads as its name (``messages.TRAIT_NAMES``).
"""

from __future__ import annotations

from typing import Any

from rollbridge.plugins.wilddie.messages import TRAIT_NAMES, say
from rollbridge.plugins.wilddie.traits import TRAITS

__all__ = ["ACTION_TEXTS", "EXAMPLE_DARK", "RULESET_SUMMARY"]

# Translators: the ruleset's one paragraph, as `rollbridge rulesets` and a client
# describing the table show it; keep the notation (2d6, d4-d12, 9M) as it is.
RULESET_SUMMARY = say(
    "ruleset.summary",
    "Attributes and skills are dice d4-d12 that ace on their maximum; "
    "player characters roll a wild d6 beside every trait die and keep the "
    "better, and spend chips to reroll one die. Damage against Toughness "
    "leaves a target Shaken or wounded; player characters hold three "
    "wounds, npcs are out at the first.",
)

# Translators: a modifier's note as a player might write it, shown greyed in a form
# as an example of how to fill in the modifiers (a free word: dark, wounded).
EXAMPLE_DARK = say("form.example.dark", "dark")

# -- parameter labels and hints shared by several actions --------------------------------

# Translators: parameter labels, shown beside a form's field (a noun, capitalised).
MODIFIERS = say("param.modifiers", "Modifiers")()
MODIFIERS_HINT = say(
    "hint.modifiers", "situational modifiers, each applied to the trait die and the wild die"
)()

# Translators: each action's label is its name on a form's button (a noun or an
# infinitive, capitalised: "Attack"); the summary is one line of help beside it.
TRAIT: dict[str, Any] = {
    "label": say("action.trait", "Trait test")(),
    "summary": say(
        "summary.trait", "WD-3: roll a trait (and the wild die for a pc) against a difficulty"
    )(),
    "labels": {
        "trait": say("param.trait", "Trait")(),
        "difficulty": say("param.difficulty", "Difficulty")(),
        "modifiers": MODIFIERS,
    },
    "hints": {
        "trait": say("hint.trait.trait", "one of the six attributes or fourteen skills")(),
        "difficulty": say("hint.trait.difficulty", "the number to meet or beat; usually 4")(),
        "modifiers": MODIFIERS_HINT,
    },
    "choices": {"trait": {trait: TRAIT_NAMES[trait]() for trait in TRAITS}},
}

ATTACK: dict[str, Any] = {
    "label": say("action.attack", "Attack")(),
    "summary": say(
        "summary.attack",
        "WD-6: Fighting against the target's Defense, or Shooting by range and size",
    )(),
    "labels": {
        "mode": say("param.mode", "Kind of attack")(),
        "range": say("param.range", "Range")(),
        "size": say("param.size", "Target size")(),
        "modifiers": MODIFIERS,
    },
    "hints": {
        "mode": say(
            "hint.attack.mode",
            "melee: Fighting against the target's Defense; ranged: Shooting by range and size",
        )(),
        "range": say(
            "hint.attack.range", "ranged only: short 4, medium 6, long 8 (the difficulty)"
        )(),
        "size": say(
            "hint.attack.size",
            "ranged only: changes the difficulty, from tiny +6 to gargantuan −6",
        )(),
        "modifiers": MODIFIERS_HINT,
    },
    "choices": {
        # Translators: the attack modes in a form's list (WD-6).
        "mode": {
            "melee": say("choice.mode.melee", "Melee")(),
            "ranged": say("choice.mode.ranged", "Ranged")(),
        },
        # Translators: the range bands in a form's list, after the label "Range" (WD-6).
        "range": {
            "short": say("choice.range.short", "Short")(),
            "medium": say("choice.range.medium", "Medium")(),
            "long": say("choice.range.long", "Long")(),
        },
        # Translators: the target sizes in a form's list, after the label "Target size".
        "size": {
            "tiny": say("choice.size.tiny", "Tiny")(),
            "very_small": say("choice.size.very_small", "Very small")(),
            "small": say("choice.size.small", "Small")(),
            "normal": say("choice.size.normal", "Normal")(),
            "large": say("choice.size.large", "Large")(),
            "huge": say("choice.size.huge", "Huge")(),
            "gargantuan": say("choice.size.gargantuan", "Gargantuan")(),
        },
    },
}

DAMAGE: dict[str, Any] = {
    "label": say("action.damage", "Damage")(),
    "summary": say(
        "summary.damage",
        "WD-7: roll damage (aces, no wild die) against the target's Toughness; "
        "a player names the attacker, a character of theirs (WD-10)",
    )(),
    "labels": {
        "dice": say("param.dice", "Weapon dice")(),
        "melee": say("param.melee", "Melee")(),
    },
    "hints": {
        # Translators: 2d6 and d8+1 are dice notation, typed with a d in every language.
        "dice": say("hint.damage.dice", "the weapon's dice, e.g. 2d6 or d8+1; every die aces")(),
        "melee": say(
            "hint.damage.melee", "add the attacker's Strength die (an attacker must be named)"
        )(),
    },
}

CHIP: dict[str, Any] = {
    "label": say("action.chip", "Spend a chip")(),
    "summary": say(
        "summary.chip",
        "WD-4: spend a chip to reroll one die of an earlier roll (or the whole roll); "
        "a melee attack's chip names its target again",
    )(),
    "labels": {
        "roll": say("param.roll", "Roll")(),
        "die": say("param.die", "Die")(),
    },
    "hints": {
        "roll": say(
            "hint.chip.roll", "the request id of the roll to reroll; empty: the actor's latest roll"
        )(),
        "die": say(
            "hint.chip.die", "the die to reroll (ignored where the table rerolls the whole roll)"
        )(),
    },
    "choices": {
        "die": {
            "trait": say("choice.die.trait", "Trait die")(),
            "wild": say("choice.die.wild", "Wild die")(),
        }
    },
}

RECOVER: dict[str, Any] = {
    "label": say("action.recover", "Recover")(),
    "summary": say("summary.recover", "WD-9: roll Character against 4 to end Shaken")(),
    "labels": {"modifiers": MODIFIERS},
    "hints": {"modifiers": MODIFIERS_HINT},
}

AWARD_CHIPS: dict[str, Any] = {
    "label": say("action.award_chips", "Award chips")(),
    "summary": say("summary.award_chips", "WD-4: the GM gives chips back")(),
    "labels": {"count": say("param.count", "Chips")()},
    "hints": {
        "count": say("hint.award_chips.count", "how many chips each target gets (1 to 10)")()
    },
}

HEAL: dict[str, Any] = {
    "label": say("action.heal", "Heal")(),
    "summary": say("summary.heal", "WD-8: the GM heals wounds (and may end Shaken)")(),
    "labels": {
        "wounds": say("param.wounds", "Wounds")(),
        "unshake": say("param.unshake", "End Shaken")(),
    },
    "hints": {
        "wounds": say("hint.heal.wounds", "how many wounds to heal (0 to 4)")(),
        "unshake": say("hint.heal.unshake", "also end Shaken")(),
    },
}

#: Each action's ``label``, ``summary``, ``labels``, ``hints`` and ``choices``, by action.
ACTION_TEXTS: dict[str, dict[str, Any]] = {
    "trait": TRAIT,
    "attack": ATTACK,
    "damage": DAMAGE,
    "chip": CHIP,
    "recover": RECOVER,
    "award_chips": AWARD_CHIPS,
    "heal": HEAL,
}
