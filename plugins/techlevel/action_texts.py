"""The techlevel actions' own words, as people read them.

Each action's ``label`` (its name on a button: ``Put on``) and ``summary``, each
parameter's label and one-line hint, and the values of a parameter with an ``enum``
(:class:`rollbridge.contract.ActionSpec`): texts of the ruleset's domain, rendered in
the reader's language in ``describe(locale)``, the welcome and the web table's forms.
The schemas' English ``description`` stays the reference for help screens and docs; a
hint says the same in a player's words. A nested parameter (``don``'s ``item``,
``mount``'s ``vehicle``) has a label and a hint of its own only, not its fields.

:data:`ACTION_TEXTS` gives each action's keyword arguments of ``ActionSpec`` by action
(:mod:`.schemas`). The words are the glossary's (docs/rulesets/techlevel.md); a layer
choice reads as the layer's title (``messages.LAYER_TITLE``).
"""

from __future__ import annotations

from typing import Any

from .layers import WEARABLE
from .messages import LAYER_TITLE, say

__all__ = [
    "ACTION_TEXTS",
    "EXAMPLE_CHAINMAIL",
    "EXAMPLE_FRONT",
    "EXAMPLE_IRONSKIN",
    "EXAMPLE_JEEP",
    "EXAMPLE_REAR",
    "EXAMPLE_REVOLVER",
    "RULESET_SUMMARY",
]

# Translators: the ruleset's one paragraph, as `rollbridge rulesets` and a client
# describing the table show it; keep the notation (2d6, d4-d12, 9M) as it is.
RULESET_SUMMARY = say(
    "ruleset.summary",
    "Damage boxes through layers (vehicle shield, vehicle armour, vehicle, "
    "energy shield, armour, body): each hit strikes the outermost intact "
    "layer, the roll is multiplied or divided by the tech-level difference, "
    "excess is lost. Shock and mental damage, one item per layer, magical "
    "armour, vehicles with sections.",
)

# Translators: names a player might give an item, a vehicle and its sections, shown
# greyed in a form as an example of how to fill in an item or a vehicle.
EXAMPLE_CHAINMAIL = say("form.example.chainmail", "Chainmail")
# Translators: see form.example.chainmail (a vehicle's name).
EXAMPLE_JEEP = say("form.example.jeep", "Jeep")
# Translators: see form.example.chainmail (the front section of a vehicle).
EXAMPLE_FRONT = say("form.example.front", "front")
# Translators: see form.example.chainmail (the rear section of a vehicle).
EXAMPLE_REAR = say("form.example.rear", "rear")
# Translators: see form.example.chainmail (a weapon's name, for the narration of a hit).
EXAMPLE_REVOLVER = say("form.example.revolver", "Revolver")
# Translators: see form.example.chainmail (a spell's name: magical armour, TL-9).
EXAMPLE_IRONSKIN = say("form.example.ironskin", "Ironskin")

# -- parameter labels, shared by the actions that take the parameter ---------------------

# Translators: parameter labels, shown beside a form's field (a noun, capitalised).
LAYER = say("param.layer", "Layer")()
SECTION = say("param.section", "Section")()
BOXES = say("param.boxes", "Boxes")()
NAME = say("param.name", "Name")()
# Translators: the hint of a number of boxes to repair, heal or clear (empty: all of them).
HOW_MANY_BOXES = say("hint.boxes", "how many boxes; empty: all")()

#: The layers an item is worn on (``doff``, ``enchant``, ``dispel``), as choices.
WORN_LAYERS: dict[str, Any] = {layer: LAYER_TITLE[layer] for layer in WEARABLE}
#: The same and the vehicle itself (``destroy``, ``repair``).
WORN_LAYERS_OR_VEHICLE: dict[str, Any] = {**WORN_LAYERS, "vehicle": LAYER_TITLE["vehicle"]}

# Translators: each action's label is its name on a form's button (an infinitive or a
# noun, capitalised: "Put on"); the summary is one line of help beside it.
HIT: dict[str, Any] = {
    "label": say("action.hit", "Hit")(),
    "summary": say(
        "summary.hit", "A weapon hits the target: dice and TL against its outermost intact layer"
    )(),
    "labels": {
        "dice": say("param.dice", "Damage dice")(),
        "tl": say("param.weapon_tl", "Weapon TL")(),
        "type": say("param.type", "Damage type")(),
        "section": SECTION,
        "roll": say("param.roll", "Roll")(),
        "weapon": say("param.weapon", "Weapon")(),
    },
    "hints": {
        "dice": say("hint.hit.dice", "the weapon's damage dice (1d4, 1d6+1, 2d6)")(),
        "tl": say("hint.hit.tl", "the weapon's tech level, 1 to 5")(),
        # Translators: 'shock' and 'mental' are values typed as they are (data); say
        # what they mean in parentheses.
        "type": say(
            "hint.hit.type",
            "the damage type immunities are matched against; 'shock' and 'mental' "
            "are special (TL-7, TL-8)",
        )(),
        "section": say(
            "hint.hit.section", "the vehicle section to strike (TL-10); empty: the first intact one"
        )(),
        "roll": say(
            "hint.hit.roll", "a damage total already rolled at the table; no dice are drawn"
        )(),
        "weapon": say("hint.hit.weapon", "the weapon's name, for the narration")(),
    },
}

DON: dict[str, Any] = {
    "label": say("action.don", "Put on")(),
    "summary": say(
        "summary.don",
        "Put on an armour or energy shield (own layer, or the mounted vehicle's)",
    )(),
    "labels": {
        "item": say("param.item", "Item")(),
        "name": NAME,
        "on": say("param.on", "Where")(),
    },
    "hints": {
        "item": say(
            "hint.don.item",
            "the armour or energy shield to put on, given whole; or leave it empty and give a name",
        )(),
        "name": say("hint.don.name", "the name of an item the actor carries")(),
        "on": say("hint.don.on", "on the actor's own layer, or on the vehicle or mount it rides")(),
    },
    "choices": {
        "on": {
            "self": say("choice.on.self", "Own layer")(),
            "vehicle": say("choice.on.vehicle", "Vehicle or mount")(),
        }
    },
}

DOFF: dict[str, Any] = {
    "label": say("action.doff", "Take off")(),
    "summary": say(
        "summary.doff", "Take off the item worn on a layer (kept as carried unless dropped)"
    )(),
    "labels": {"layer": LAYER, "drop": say("param.drop", "Drop")()},
    "hints": {
        "layer": say("hint.doff.layer", "the layer whose item is taken off")(),
        "drop": say("hint.doff.drop", "drop the item instead of carrying it")(),
    },
    "choices": {"layer": WORN_LAYERS},
}

ENCHANT: dict[str, Any] = {
    "label": say("action.enchant", "Enchant")(),
    "summary": say(
        "summary.enchant", "Cast a magical armour on an empty layer, or improve the worn one"
    )(),
    "labels": {
        "layer": LAYER,
        "mode": say("param.mode", "Mode")(),
        "spell": say("param.spell", "Spell")(),
        "boxes": BOXES,
        "tl": say("param.spell_tl", "Spell TL")(),
        "immune": say("param.immune", "Immunities")(),
    },
    "hints": {
        "layer": say("hint.enchant.layer", "the layer the spell is cast on")(),
        "mode": say(
            "hint.enchant.mode",
            "improve the worn armour, or cast a new one on an empty layer (TL-9)",
        )(),
        "spell": say("hint.enchant.spell", "the spell's name")(),
        "boxes": say("hint.enchant.boxes", "the spell's boxes (an armour: 10 or 20)")(),
        "tl": say(
            "hint.enchant.tl",
            "the spell's TL: needed to cast; empty when improving keeps the armour's TL",
        )(),
        # Translators: "fire" is a damage type as it is typed (data).
        "immune": say(
            "hint.enchant.immune", "damage types the spell's armour ignores (TL-6), e.g. fire"
        )(),
    },
    "choices": {
        "layer": WORN_LAYERS,
        "mode": {
            "improve": say("choice.mode.improve", "Improve the worn one")(),
            "cast": say("choice.mode.cast", "Cast on an empty layer")(),
        },
    },
}

DISPEL: dict[str, Any] = {
    "label": say("action.dispel", "Dispel")(),
    "summary": say(
        "summary.dispel",
        "Dispel the magic on a layer: a cast armour vanishes, an improved one reverts",
    )(),
    "labels": {"layer": LAYER},
    "hints": {"layer": say("hint.dispel.layer", "the layer whose magic is dispelled")()},
    "choices": {"layer": WORN_LAYERS},
}

DESTROY: dict[str, Any] = {
    "label": say("action.destroy", "Destroy")(),
    "summary": say(
        "summary.destroy",
        "Destroy a worn item, a vehicle section or the whole vehicle (all boxes crossed)",
    )(),
    "labels": {"layer": LAYER, "section": SECTION},
    "hints": {
        "layer": say("hint.destroy.layer", "the layer whose item is destroyed, or the vehicle")(),
        "section": say("hint.destroy.section", "a vehicle section; empty: the whole vehicle")(),
    },
    "choices": {"layer": WORN_LAYERS_OR_VEHICLE},
}

MOUNT: dict[str, Any] = {
    "label": say("action.mount", "Mount")(),
    "summary": say(
        "summary.mount", "Mount a vehicle or mount: its layers go above the rider's (TL-2)"
    )(),
    "labels": {"name": NAME, "vehicle": say("param.vehicle", "Vehicle")()},
    "hints": {
        "name": say("hint.mount.name", "the name of one of the actor's vehicles or mounts")(),
        "vehicle": say(
            "hint.mount.vehicle",
            "a vehicle or mount given whole; or leave it empty and give a name",
        )(),
    },
}

DISMOUNT: dict[str, Any] = {
    "label": say("action.dismount", "Dismount")(),
    "summary": say(
        "summary.dismount", "Get off the vehicle or mount; its damage is reported and kept"
    )(),
    "labels": {"leave": say("param.leave", "Leave behind")()},
    "hints": {
        "leave": say("hint.dismount.leave", "leave the vehicle behind instead of keeping it")()
    },
}

REPAIR: dict[str, Any] = {
    "label": say("action.repair", "Repair")(),
    "summary": say("summary.repair", "Repair boxes of a worn item or of the vehicle")(),
    "labels": {"layer": LAYER, "section": SECTION, "boxes": BOXES},
    "hints": {
        "layer": say("hint.repair.layer", "the layer whose item is repaired, or the vehicle")(),
        "section": say(
            "hint.repair.section", "the vehicle section to repair; empty: every section"
        )(),
        "boxes": HOW_MANY_BOXES,
    },
    "choices": {"layer": WORN_LAYERS_OR_VEHICLE},
}

HEAL: dict[str, Any] = {
    "label": say("action.heal", "Heal")(),
    "summary": say("summary.heal", "Heal KSK (shock first, or only lethal/shock) or GSK boxes")(),
    "labels": {
        "track": say("param.track", "Track")(),
        "mark": say("param.mark", "Which boxes")(),
        "boxes": BOXES,
    },
    "hints": {
        "track": say("hint.heal.track", "the body's KSK or the mind's GSK")(),
        "mark": say(
            "hint.heal.mark",
            "KSK only: any heals shock first, then lethal; or only lethal, or only shock",
        )(),
        "boxes": HOW_MANY_BOXES,
    },
    "choices": {
        "track": {"body": LAYER_TITLE["body"], "mind": LAYER_TITLE["mind"]},
        "mark": {
            "any": say("choice.mark.any", "Any (shock first)")(),
            "lethal": say("choice.mark.lethal", "Lethal only")(),
            "shock": say("choice.mark.shock", "Shock only")(),
        },
    },
}

RECOVER: dict[str, Any] = {
    "label": say("action.recover", "Recover")(),
    "summary": say("summary.recover", "Recover from shock: clear shock boxes (TL-7)")(),
    "labels": {"boxes": BOXES},
    "hints": {"boxes": say("hint.recover.boxes", "how many shock boxes; empty: all")()},
}

#: Each action's ``label``, ``summary``, ``labels``, ``hints`` and ``choices``, by action.
ACTION_TEXTS: dict[str, dict[str, Any]] = {
    "hit": HIT,
    "don": DON,
    "doff": DOFF,
    "enchant": ENCHANT,
    "dispel": DISPEL,
    "destroy": DESTROY,
    "mount": MOUNT,
    "dismount": DISMOUNT,
    "repair": REPAIR,
    "heal": HEAL,
    "recover": RECOVER,
}
