"""Every text the ``techlevel`` ruleset says, declared once, in English.

Narration, explanation steps and dice labels are texts as data
(:class:`rollbridge.text.Text`: a message id and named arguments); each audience
gets them rendered. Where a sentence names an NPC's own detail — an item's or
vehicle's name, a TL, a TL factor, an immunity, the boxes lost — the argument is
marked private (:mod:`.details`) and players read the wording given ``instead``.
The ids are ``techlevel.<key>``. The source's words SK, KSK, GSK and SSK stay as
they are.

A message without arguments is declared as its text (called once, here), so a
resolution reuses it instead of building it again: ``MAGIC``, ``LAYER["armour"]``.
"""

from __future__ import annotations

from pathlib import Path

from rollbridge.text import Messages, Text

say = Messages("techlevel", catalogs=Path(__file__).with_name("locale"))

# -- words ---------------------------------------------------------------------------

#: A layer's name inside a sentence (``armour``, ``body (ksk)``), by layer key.
LAYER: dict[str, Text] = {
    "vehicle_shield": say("layer.vehicle_shield", "vehicle shield")(),
    "vehicle_armour": say("layer.vehicle_armour", "vehicle armour")(),
    "vehicle": say("layer.vehicle", "vehicle")(),
    "shield": say("layer.shield", "energy shield")(),
    "armour": say("layer.armour", "armour")(),
    "body": say("layer.body", "body (ksk)")(),
    "mind": say("layer.mind", "mind (gsk)")(),
}
#: A layer's name at the start of a step (``Armour``), by layer key.
LAYER_TITLE: dict[str, Text] = {
    "vehicle_shield": say("layer_title.vehicle_shield", "Vehicle shield")(),
    "vehicle_armour": say("layer_title.vehicle_armour", "Vehicle armour")(),
    "vehicle": say("layer_title.vehicle", "Vehicle")(),
    "shield": say("layer_title.shield", "Energy shield")(),
    "armour": say("layer_title.armour", "Armour")(),
    "body": say("layer_title.body", "Body (KSK)")(),
    "mind": say("layer_title.mind", "Mind (GSK)")(),
}
#: A vehicle's kind, by its ``kind``.
KIND: dict[str, Text] = {
    "vehicle": say("kind.vehicle", "vehicle")(),
    "mount": say("kind.mount", "mount")(),
}
#: A common status, by its code.
STATUS: dict[str, Text] = {
    status: say(f"status.{status}", status)()
    for status in ("ok", "impaired", "down", "dying", "dead")
}
THE = say("the", "the {what}")
NAMED_SECTION = say("named_section", "{name} ({section})")
AN_ITEM = say("an_item", "an item")()
MAGIC = say("magic", "magic")()
A_SPELL = say("a_spell", "A spell")()

# -- hit: the damage roll (TL-1) -----------------------------------------------------

DAMAGE_DICE = say("hit.dice", "Damage {dice} TL{tl}")
DAMAGE_DICE_PART = say("hit.dice_part", "Damage {dice} TL{tl} #{n}")
ROLL_GIVEN = say("hit.roll_given", "damage {dice} TL{tl}: {roll}, rolled at the table")
ROLLED = say("hit.rolled", "damage {rolled} (TL{tl})")
ROLLED_ROUNDED = say("hit.rolled_rounded", "damage {rolled} (counts as {roll}) (TL{tl})")

# -- hit: the layer struck (TL-3, TL-8) ----------------------------------------------

LAYER_HIT = say("hit.layer", "layer hit: {why}")
OUTERMOST = say("hit.why", "{layer} is the outermost layer present and intact (TL-3)")
OUTERMOST_PASSING = say(
    "hit.why_passing", "{layer} is the outermost layer present and intact ({passed}) (TL-3)"
)
#: An outer layer passed by a hit, by layer and reason: ``vehicle shield absent``.
PASSED: dict[tuple[str, str], Text] = {
    (layer, reason): say(f"hit.passed.{layer}.{reason}", f"{label} {reason}")()
    for layer, label in (
        ("vehicle_shield", "vehicle shield"),
        ("vehicle_armour", "vehicle armour"),
        ("vehicle", "vehicle"),
        ("shield", "energy shield"),
        ("armour", "armour"),
    )
    for reason in ("absent", "destroyed")
}
MENTAL_BYPASSES = say(
    "hit.why_mental",
    "mental damage bypasses the physical layers and strikes the GSK at TL 1 (TL-8)",
)()

# -- hit: the boxes (TL-4, TL-6) -----------------------------------------------------

IMMUNE_STEP = say("hit.immune_step", "{layer} is immune to {type}: 0 boxes (TL-6)")
TL_TIMES = say(
    "hit.tl_times",
    "weapon TL{weapon_tl} against TL{layer_tl}: {factor} → {roll} × {n} = {boxes} boxes (TL-4)",
)
TL_DIVIDED = say(
    "hit.tl_divided",
    "weapon TL{weapon_tl} against TL{layer_tl}: {factor} → ⌊{roll} / {n}⌋ = {boxes} boxes (TL-4)",
)
TL_HIDDEN = say("hit.tl_hidden", "TL and immunities of the {layer} are hidden (TL-4, TL-6)")
MIND_IMMUNITIES_HIDDEN = say("hit.mind_hidden", "immunities of the mind are hidden (TL-6)")()

# -- hit: what the layer takes (TL-5, TL-7, TL-8, TL-10) ----------------------------

GSK_STEP = say("hit.gsk", "GSK: {crossed} crossed, now {gsk} of {of}")
GSK_CARRIED = say(
    "hit.gsk_carried",
    "{excess} GSK excess carried into KSK as lethal (TL-8): {crossed} crossed, "
    "{converted} shock turned lethal, {lost} lost",
)
GSK_CARRIED_PUBLIC = say(
    "hit.gsk_carried_public",
    "GSK excess carried into KSK as lethal (TL-8): {crossed} crossed, "
    "{converted} shock turned lethal",
)
GSK_EXCESS_LOST = say("hit.gsk_excess_lost", "{excess} GSK excess lost (table setting)")
GSK_EXCESS_LOST_PUBLIC = say("hit.gsk_excess_lost_public", "GSK excess lost (table setting)")()
SHOCK_STEP = say("hit.shock", "shock: {crossed} KSK crossed as shock{lost} (TL-7)")
LETHAL_STEP = say(
    "hit.lethal",
    "lethal: {crossed} free KSK crossed, {converted} shock turned lethal{lost} (TL-7)",
)
#: The boxes lost, after a count: left out for players of an NPC.
AND_LOST = say("hit.and_lost", ", {lost} lost")
THEN_LOST = say("hit.then_lost", "; {lost} lost")
KSK_STEP = say("hit.ksk", "KSK now {lethal} lethal + {shock} shock of {of}")
SECTION_GONE = say(
    "hit.section_gone", "section {section} ({reason}) is already destroyed: {effect} (TL-10)"
)
BOXES_LOST = say("hit.boxes_lost", "{lost} boxes lost")
NOTHING_CROSSED = say("hit.nothing_crossed", "nothing crossed")()
SECTION_STEP = say(
    "hit.section",
    "section {section} ({reason}): {crossed} crossed, now {now} of {boxes}{lost} (TL-5, TL-10)",
)
NAMED_BY_HIT = say("hit.section_named", "named by the hit")()
FIRST_INTACT = say("hit.section_first", "first intact section")()
ITEM_STEP = say("hit.item", "{item}: {crossed} crossed, now {now} of {boxes}; {excess} (TL-5)")
LOST_NOTHING_PASSES = say("hit.lost_nothing_passes", "{lost} lost, nothing passes inward")
NOTHING_PASSES = say("hit.nothing_passes", "nothing passes inward")()

# -- hit: the narration --------------------------------------------------------------

HITS = say("hit.hits", "{attacker} hits {target}: {roll} on {dice} TL{tl} → {result:; }")
STRIKES = say("hit.strikes", "A hit strikes {target}: {roll} on {dice} TL{tl} → {result:; }")
STRUCK = say("hit.struck", "{layer}, {effect}")
STRUCK_EXCESS = say("hit.struck_excess", "{layer}, {effect}, {excess}")
NAMED_LAYER = say("hit.named_layer", "{layer} {quoted}")
BOXES_CROSSED = say.plural("hit.crossed", "{count} box crossed", "{count} boxes crossed")
FACTOR_EFFECT = say("hit.effect", "{factor}, {crossed}")
FACTOR_EFFECT_LOST = say("hit.effect_lost", "{factor}, {crossed}, {lost} lost")
IMMUNE_EFFECT = say("hit.effect_immune", "immune to {type}, no effect")
EXCESS_INTO_KSK = say("hit.excess", "{excess} excess into KSK")
EXCESS_INTO_KSK_PUBLIC = say("hit.excess_public", "excess into KSK")()
DESTROYED = say("hit.destroyed", "{what} destroyed")
SECTION = say("hit.section_word", "section")()
NOW_STATUS = say("hit.status", "{target} is {status}")

# -- don / doff (TL-9) ---------------------------------------------------------------

PUTS_ON = say("don.narration", "{actor} puts on {item} ({layer})")
MAGICAL_ITEM = say("don.magical", "{name} (magical)")
WORN_THERE = say(
    "don.step",
    "the {layer} was empty: {item} is worn there, {crossed} of {boxes} boxes crossed{tl} (TL-9)",
)
AND_TL = say("don.tl", ", TL{tl}")
TAKES_OFF = say("doff.narration", "{actor} takes off {item}")
ITEM_ON_LAYER = say("doff.item", "{name} ({layer})")
TAKEN_OFF = say("doff.step", "{item} taken off the {layer} and {where}")
TAKEN_OFF_PUBLIC = say("doff.step_public", "the {layer} is taken off and {where}")
DROPPED = say("doff.dropped", "dropped")()
CARRIED = say("doff.carried", "carried")()

# -- enchant / dispel (TL-9) ---------------------------------------------------------

CASTS = say("enchant.casts", "{caster} casts {spell} on {target} ({layer})")
CAST_THERE = say(
    "enchant.cast_step", "the {layer} was empty: {spell} is cast there, {boxes} boxes{tl} (TL-9)"
)
AND_TL_MAGICAL = say("enchant.tl_magical", ", TL{tl}, magical")
IMPROVES = say("enchant.improves", "{caster} improves {target}'s {item} with {spell}")
IMPROVED = say(
    "enchant.improve_step",
    "{item} improved by {spell}: {old_boxes} boxes TL{old_tl} → {boxes} boxes TL{tl}, "
    "{crossed} crossed (TL-9: it takes the spell's boxes)",
)
IMPROVED_PUBLIC = say(
    "enchant.improve_step_public",
    "the {layer} is improved by magic: {boxes} boxes, {crossed} crossed (TL-9)",
)
DISPELS = say("dispel.removed", "{caster} dispels {target}'s {spell} ({layer})")
DISPELS_MAGIC_ON = say("dispel.reverted", "{caster} dispels the magic on {target}'s {item}")
DISPELLED_EMPTY = say("dispel.removed_step", "{item} dispelled: the {layer} is empty")
DISPELLED_EMPTY_PUBLIC = say(
    "dispel.removed_step_public", "the magic on the {layer} is dispelled: the {layer} is empty"
)
DISPELLED_BACK = say(
    "dispel.reverted_step",
    "{spell} dispelled: {item} is back to {boxes} boxes TL{tl}, {crossed} crossed",
)
DISPELLED_BACK_PUBLIC = say(
    "dispel.reverted_step_public",
    "the magic on the {layer} is dispelled: {boxes} boxes, {crossed} crossed",
)

# -- destroy -------------------------------------------------------------------------

IS_DESTROYED = say("destroy.narration", "{target}'s {what} is destroyed")
EVERY_BOX = say("destroy.vehicle_step", "{what}: every box crossed (destroyed: {destroyed})")
EVERY_BOX_PUBLIC = say("destroy.vehicle_step_public", "the {what}: every box crossed")
EVERY_BOX_STAYS = say(
    "destroy.item_step", "{item}: every box crossed; it stays on the layer until taken off"
)

# -- mount / dismount (TL-2, TL-10) --------------------------------------------------

RIDES = say("mount.narration", "{actor} {rides}")
MOUNTS = say("mount.mounts", "mounts {vehicle}")
MOUNTS_UP = say("mount.mounts_public", "mounts up")()
BOARDS = say("mount.boards", "boards {vehicle}")
BOARDS_A_VEHICLE = say("mount.boards_public", "boards a vehicle")()
MOUNTED = say(
    "mount.step", "{vehicle}: {sections} section(s), {crossed} of {boxes} boxes crossed{wearing}"
)
VEHICLE_NAMED = say("mount.vehicle", "{name} ({kind}, TL{tl})")
A_KIND = say("mount.vehicle_public", "a {kind}")
WEARING = say("mount.wearing", ", wearing {items}")
WEARING_LAYERS = say("mount.wearing_public", ", wearing {layers: and }")
ABOVE_THE_RIDER = say("mount.layers", "its layers now lie above the rider's own (TL-2)")()
GETS_OFF = say("dismount.narration", "{actor} gets off {vehicle}")
LEAVES_THE_STACK = say(
    "dismount.step", "{vehicle} leaves the stack with {crossed} boxes crossed{destroyed}; {kept}"
)
WRECKED = say("dismount.destroyed", " (destroyed)")()
LEFT_BEHIND = say("dismount.left", "left behind")()
KEPT = say("dismount.kept", "kept, mount it again by name")()

# -- repair, heal, recover -----------------------------------------------------------

REPAIRED = say("repair.narration", "{target}'s {item}: {count} boxes repaired")
REPAIRED_STEP = say.plural(
    "repair.step", "{item}: {count} box repaired", "{item}: {count} boxes repaired"
)
HEALS = say.plural(
    "heal.narration",
    "{target} heals {count} box ({track})",
    "{target} heals {count} boxes ({track})",
)
GSK_CLEARED = say("heal.gsk", "GSK: {cleared} cleared, now {gsk} of {of}")
KSK_CLEARED = say(
    "heal.ksk",
    "KSK: {shock} shock and {lethal} lethal cleared, now {now_lethal} lethal + "
    "{now_shock} shock of {of}",
)
RECOVERS = say("recover.narration", "{actor} recovers from shock: {count} cleared")
SHOCK_CLEARED = say.plural(
    "recover.step", "{count} shock box cleared (TL-7)", "{count} shock boxes cleared (TL-7)"
)
