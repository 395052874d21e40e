"""Every text the ``techlevel`` ruleset says, declared once, in English.

Narration, explanation steps, dice labels, the common state's track labels and
conditions, and every refusal or parameter problem a player or GM reads are texts as data
(:class:`rollbridge.text.Text`: a message id and named arguments); each audience
gets them rendered. Where a sentence names an NPC's own detail — an item's or
vehicle's name, a TL, a TL factor, an immunity, the boxes lost — the argument is
marked private (:mod:`.details`) and players read the wording given ``instead``.
The ids are ``techlevel.<key>``. The source's words SK, KSK, GSK and SSK stay as
they are. The translations are the catalogues in ``locale/`` (cs, de, ru); where a
count is followed by a noun the message is a plural one, even where the English
reads "boxes" for 1 as it always did, so that Czech and Russian can decline it.

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
# Translators: the common statuses, after "{target} is": ok, impaired (damaged but
# standing), down (unconscious), dying, dead.
STATUS: dict[str, Text] = {
    "ok": say("status.ok", "ok")(),
    "impaired": say("status.impaired", "impaired")(),
    "down": say("status.down", "down")(),
    "dying": say("status.dying", "dying")(),
    "dead": say("status.dead", "dead")(),
}
# Translators: "the armour", "the mount" — {what} is a layer or a kind, in another
# sentence; a language without articles gives "{what}".
THE = say("the", "the {what}")
# Translators: a vehicle and one of its sections: "Tank (hull)".
NAMED_SECTION = say("named_section", "{name} ({section})")
# Translators: what players read instead of the name of an NPC's item.
AN_ITEM = say("an_item", "an item")()
# Translators: what players read instead of the name of an NPC's spell.
MAGIC = say("magic", "magic")()
# Translators: the caster when no actor casts (a sentence starts with it).
A_SPELL = say("a_spell", "A spell")()

# -- hit: the damage roll (TL-1) -----------------------------------------------------

# Translators: the label of the damage dice ({dice}: 1d6; TL: tech level, TL-1).
DAMAGE_DICE = say("hit.dice", "Damage {dice} TL{tl}")
DAMAGE_DICE_PART = say("hit.dice_part", "Damage {dice} TL{tl} #{n}")
ROLL_GIVEN = say("hit.roll_given", "damage {dice} TL{tl}: {roll}, rolled at the table")
# Translators: {rolled} is the dice and their total, as "1d6 [5] = 5".
ROLLED = say("hit.rolled", "damage {rolled} (TL{tl})")
ROLLED_ROUNDED = say("hit.rolled_rounded", "damage {rolled} (counts as {roll}) (TL{tl})")

# -- hit: the layer struck (TL-3, TL-8) ----------------------------------------------

# Translators: TL-3, which layer a hit strikes; {why} is "hit.why" or another reason.
LAYER_HIT = say("hit.layer", "layer hit: {why}")
OUTERMOST = say("hit.why", "{layer} is the outermost layer present and intact (TL-3)")
OUTERMOST_PASSING = say(
    "hit.why_passing", "{layer} is the outermost layer present and intact ({passed}) (TL-3)"
)
#: An outer layer passed by a hit, by layer and reason: ``vehicle shield absent``.
# Translators: an outer layer a hit passed by, because the target lacks it (absent)
# or its boxes are all crossed (destroyed); listed in "hit.why_passing".
PASSED: dict[tuple[str, str], Text] = {
    ("vehicle_shield", "absent"): say(
        "hit.passed.vehicle_shield.absent", "vehicle shield absent"
    )(),
    ("vehicle_shield", "destroyed"): say(
        "hit.passed.vehicle_shield.destroyed", "vehicle shield destroyed"
    )(),
    ("vehicle_armour", "absent"): say(
        "hit.passed.vehicle_armour.absent", "vehicle armour absent"
    )(),
    ("vehicle_armour", "destroyed"): say(
        "hit.passed.vehicle_armour.destroyed", "vehicle armour destroyed"
    )(),
    ("vehicle", "absent"): say("hit.passed.vehicle.absent", "vehicle absent")(),
    ("vehicle", "destroyed"): say("hit.passed.vehicle.destroyed", "vehicle destroyed")(),
    ("shield", "absent"): say("hit.passed.shield.absent", "energy shield absent")(),
    ("shield", "destroyed"): say("hit.passed.shield.destroyed", "energy shield destroyed")(),
    ("armour", "absent"): say("hit.passed.armour.absent", "armour absent")(),
    ("armour", "destroyed"): say("hit.passed.armour.destroyed", "armour destroyed")(),
}
MENTAL_BYPASSES = say(
    "hit.why_mental",
    "mental damage bypasses the physical layers and strikes the GSK at TL 1 (TL-8)",
)()

# -- hit: the boxes (TL-4, TL-6) -----------------------------------------------------

IMMUNE_STEP = say("hit.immune_step", "{layer} is immune to {type}: 0 boxes (TL-6)")
# Translators: TL-4, how the roll became boxes: {factor} is "×2" or "/4" (the TL table's
# cell), {n} its number. Plural by {boxes}; the English reads "boxes" even for 1.
TL_TIMES = say.plural(
    "hit.tl_times",
    "weapon TL{weapon_tl} against TL{layer_tl}: {factor} → {roll} × {n} = {boxes} box (TL-4)",
    "weapon TL{weapon_tl} against TL{layer_tl}: {factor} → {roll} × {n} = {boxes} boxes (TL-4)",
    count="boxes",
)
# Translators: as "hit.tl_times", for a weapon of lower TL: ⌊…⌋ rounds down.
TL_DIVIDED = say.plural(
    "hit.tl_divided",
    "weapon TL{weapon_tl} against TL{layer_tl}: {factor} → ⌊{roll} / {n}⌋ = {boxes} box (TL-4)",
    "weapon TL{weapon_tl} against TL{layer_tl}: {factor} → ⌊{roll} / {n}⌋ = {boxes} boxes (TL-4)",
    count="boxes",
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
# Translators: boxes past a vehicle section's free boxes (TL-5); English keeps "boxes" for 1.
BOXES_LOST = say.plural("hit.boxes_lost", "{lost} box lost", "{lost} boxes lost", count="lost")
NOTHING_CROSSED = say("hit.nothing_crossed", "nothing crossed")()
# Translators: TL-10: {reason} is "named by the hit" or "first intact section";
# {lost} is "; 3 lost" or empty.
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

# Translators: the narration of a hit: {roll} on {dice} (the weapon), then what it did,
# joined by "; " ({result:; }: keep the spec).
HITS = say("hit.hits", "{attacker} hits {target}: {roll} on {dice} TL{tl} → {result:; }")
STRIKES = say("hit.strikes", "A hit strikes {target}: {roll} on {dice} TL{tl} → {result:; }")
# Translators: the layer struck and what it took ("armour, /2, 2 boxes crossed").
STRUCK = say("hit.struck", "{layer}, {effect}")
STRUCK_EXCESS = say("hit.struck_excess", "{layer}, {effect}, {excess}")
# Translators: a layer and the quoted name of the item on it: "armour 'Plate'".
NAMED_LAYER = say("hit.named_layer", "{layer} {quoted}")
BOXES_CROSSED = say.plural("hit.crossed", "{count} box crossed", "{count} boxes crossed")
FACTOR_EFFECT = say("hit.effect", "{factor}, {crossed}")
FACTOR_EFFECT_LOST = say("hit.effect_lost", "{factor}, {crossed}, {lost} lost")
IMMUNE_EFFECT = say("hit.effect_immune", "immune to {type}, no effect")
EXCESS_INTO_KSK = say("hit.excess", "{excess} excess into KSK")
EXCESS_INTO_KSK_PUBLIC = say("hit.excess_public", "excess into KSK")()
DESTROYED = say("hit.destroyed", "{what} destroyed")
SECTION = say("hit.section_word", "section")()
# Translators: {status} is one of the "status.*" words.
NOW_STATUS = say("hit.status", "{target} is {status}")

# -- don / doff (TL-9) ---------------------------------------------------------------

PUTS_ON = say("don.narration", "{actor} puts on {item} ({layer})")
MAGICAL_ITEM = say("don.magical", "{name} (magical)")
# Translators: {tl} is ", TL3" or empty (hidden from players). Plural by {boxes}.
WORN_THERE = say.plural(
    "don.step",
    "the {layer} was empty: {item} is worn there, {crossed} of {boxes} box crossed{tl} (TL-9)",
    "the {layer} was empty: {item} is worn there, {crossed} of {boxes} boxes crossed{tl} (TL-9)",
    count="boxes",
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
# Translators: {tl} is ", TL3, magical" or empty (hidden from players). Plural by {boxes}.
CAST_THERE = say.plural(
    "enchant.cast_step",
    "the {layer} was empty: {spell} is cast there, {boxes} box{tl} (TL-9)",
    "the {layer} was empty: {spell} is cast there, {boxes} boxes{tl} (TL-9)",
    count="boxes",
)
AND_TL_MAGICAL = say("enchant.tl_magical", ", TL{tl}, magical")
IMPROVES = say("enchant.improves", "{caster} improves {target}'s {item} with {spell}")
# Translators: TL-9, a spell improving a worn armour: it takes the spell's boxes and TL.
# The box counts follow their word, so that no word agrees with a number.
IMPROVED = say(
    "enchant.improve_step",
    "{item} improved by {spell}: boxes {old_boxes} → {boxes}, TL{old_tl} → TL{tl}, "
    "{crossed} crossed (TL-9: it takes the spell's boxes)",
)
IMPROVED_PUBLIC = say.plural(
    "enchant.improve_step_public",
    "the {layer} is improved by magic: {boxes} box, {crossed} crossed (TL-9)",
    "the {layer} is improved by magic: {boxes} boxes, {crossed} crossed (TL-9)",
    count="boxes",
)
DISPELS = say("dispel.removed", "{caster} dispels {target}'s {spell} ({layer})")
DISPELS_MAGIC_ON = say("dispel.reverted", "{caster} dispels the magic on {target}'s {item}")
DISPELLED_EMPTY = say("dispel.removed_step", "{item} dispelled: the {layer} is empty")
DISPELLED_EMPTY_PUBLIC = say(
    "dispel.removed_step_public", "the magic on the {layer} is dispelled: the {layer} is empty"
)
DISPELLED_BACK = say.plural(
    "dispel.reverted_step",
    "{spell} dispelled: {item} is back to {boxes} box TL{tl}, {crossed} crossed",
    "{spell} dispelled: {item} is back to {boxes} boxes TL{tl}, {crossed} crossed",
    count="boxes",
)
DISPELLED_BACK_PUBLIC = say.plural(
    "dispel.reverted_step_public",
    "the magic on the {layer} is dispelled: {boxes} box, {crossed} crossed",
    "the magic on the {layer} is dispelled: {boxes} boxes, {crossed} crossed",
    count="boxes",
)

# -- destroy -------------------------------------------------------------------------

IS_DESTROYED = say("destroy.narration", "{target}'s {what} is destroyed")
EVERY_BOX = say("destroy.vehicle_step", "{what}: every box crossed (destroyed: {destroyed})")
EVERY_BOX_PUBLIC = say("destroy.vehicle_step_public", "the {what}: every box crossed")
EVERY_BOX_STAYS = say(
    "destroy.item_step", "{item}: every box crossed; it stays on the layer until taken off"
)

# -- mount / dismount (TL-2, TL-10) --------------------------------------------------

# Translators: {rides} is "mounts …" or "boards …", following the actor's name.
RIDES = say("mount.narration", "{actor} {rides}")
MOUNTS = say("mount.mounts", "mounts {vehicle}")
MOUNTS_UP = say("mount.mounts_public", "mounts up")()
BOARDS = say("mount.boards", "boards {vehicle}")
BOARDS_A_VEHICLE = say("mount.boards_public", "boards a vehicle")()
# Translators: TL-10, a vehicle or mount ridden: {wearing} is ", wearing …" or empty.
# Plural by {sections}; the box counts follow their word, so that no word agrees with
# them (a section may have a single box).
MOUNTED = say.plural(
    "mount.step",
    "{vehicle}: {sections} section, boxes crossed: {crossed} of {boxes}{wearing}",
    "{vehicle}: {sections} sections, boxes crossed: {crossed} of {boxes}{wearing}",
    count="sections",
)
VEHICLE_NAMED = say("mount.vehicle", "{name} ({kind}, TL{tl})")
# Translators: players' words for an NPC's vehicle: "a mount" ({kind}: "kind.*").
A_KIND = say("mount.vehicle_public", "a {kind}")
WEARING = say("mount.wearing", ", wearing {items}")
# Translators: {layers: and } joins the layers with " and ": translate the word
# after the colon, keep the spaces.
WEARING_LAYERS = say("mount.wearing_public", ", wearing {layers: and }")
ABOVE_THE_RIDER = say("mount.layers", "its layers now lie above the rider's own (TL-2)")()
GETS_OFF = say("dismount.narration", "{actor} gets off {vehicle}")
# Translators: {destroyed} is " (destroyed)" or empty; {kept}: "left behind" or "kept, …".
LEAVES_THE_STACK = say.plural(
    "dismount.step",
    "{vehicle} leaves the stack with {crossed} box crossed{destroyed}; {kept}",
    "{vehicle} leaves the stack with {crossed} boxes crossed{destroyed}; {kept}",
    count="crossed",
)
WRECKED = say("dismount.destroyed", " (destroyed)")()
LEFT_BEHIND = say("dismount.left", "left behind")()
KEPT = say("dismount.kept", "kept, mount it again by name")()

# -- repair, heal, recover -----------------------------------------------------------

# Translators: {item} is the item's name, or the layer's for players of an NPC.
REPAIRED = say.plural(
    "repair.narration",
    "{target}'s {item}: {count} box repaired",
    "{target}'s {item}: {count} boxes repaired",
)
REPAIRED_STEP = say.plural(
    "repair.step", "{item}: {count} box repaired", "{item}: {count} boxes repaired"
)
HEALS = say.plural(
    "heal.narration",
    "{target} heals {count} box ({track})",
    "{target} heals {count} boxes ({track})",
)
#: The track healed, by the ``heal`` parameter ``track``.
# Translators: the track healed, in "heal.narration": the body (KSK) or the mind (GSK).
HEALED_TRACK: dict[str, Text] = {
    "body": say("heal.track.body", "body")(),
    "mind": say("heal.track.mind", "mind")(),
}
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

# -- the common state: track labels and conditions ----------------------------------

# Translators: a track label: the layer's title and the worn item's name ("Armour: Plate").
TRACK_NAMED = say("track.named", "{layer}: {name}")
# Translators: a vehicle section's track label: "Vehicle Tank: hull", or for players
# of an NPC "Vehicle: hull" ({head} is then only the word).
TRACK_SECTION = say("track.section", "{head}: {section}")
TRACK_VEHICLE = say("track.vehicle", "{what} {name}")
#: ``Mount``, ``Vehicle``: the head of a vehicle's track label, by kind.
KIND_TITLE: dict[str, Text] = {
    "vehicle": say("kind_title.vehicle", "Vehicle")(),
    "mount": say("kind_title.mount", "Mount")(),
}
# Translators: conditions of the common state, each shown on its own (TL-7, TL-8).
DEAD = say("condition.dead", "Dead")()
UNCONSCIOUS_SHOCK = say("condition.unconscious_shock", "Unconscious (shock)")()
UNCONSCIOUS_MIND = say("condition.unconscious_mind", "Unconscious (mind)")()
# Translators: a condition: how many KSK boxes are crossed as shock (SSK).
SHOCK = say("condition.shock", "Shock {count}")
# Translators: a condition: how many KSK boxes are crossed as lethal damage.
WOUNDED = say("condition.wounded", "Wounded {count}")
#: ``Mounted``, ``In vehicle``, by the kind of the vehicle ridden.
RIDING: dict[str, Text] = {
    "mount": say("condition.mounted", "Mounted")(),
    "vehicle": say("condition.in_vehicle", "In vehicle")(),
}
# Translators: a condition: "Mounted: Nightmare" ({what}: "Mounted" or "In vehicle").
RIDING_NAMED = say("condition.riding_named", "{what}: {name}")
#: ``Vehicle destroyed``, ``Mount destroyed``, by kind.
RIDDEN_DESTROYED: dict[str, Text] = {
    "vehicle": say("condition.vehicle_destroyed", "Vehicle destroyed")(),
    "mount": say("condition.mount_destroyed", "Mount destroyed")(),
}
# Translators: a condition: a worn layer's title ("Armour destroyed", "Energy shield magical").
LAYER_DESTROYED = say("condition.layer_destroyed", "{layer} destroyed")
LAYER_MAGICAL = say("condition.layer_magical", "{layer} magical")

# -- refusals (TL-2, TL-9, TL-10) and parameter problems -----------------------------

# Translators: a parameter or sheet problem: {path} is the field (params.section), kept
# as it is; {problem} says what is wrong.
INVALID = say("invalid", "{path}: {problem}")
NOT_MOUNTED = say("refused.not_mounted", "{actor} is not mounted")
NOT_MOUNTED_LAYER = say(
    "refused.not_mounted_layer", "{actor} is not mounted, so there is no {layer} (TL-2)"
)
# Translators: {doing} is what was refused: "put on 'Plate'", "cast 'Ice skin'", …
MAGICAL_STAYS = say(
    "refused.magical_stays",
    "cannot {doing}: {item} on the {layer} is magical and stays "
    "until it is destroyed or dispelled (TL-9)",
)
DOING_PUT_ON = say("refused.doing.put_on", "put on {item}")
DOING_TAKE_OFF = say("refused.doing.take_off", "take off {item}")
DOING_CAST = say("refused.doing.cast", "cast {spell}")
DOING_IMPROVE = say("refused.doing.improve", "improve {item} with {spell}")
OCCUPIED = say(
    "refused.occupied",
    "cannot put on {new}: the {layer} already holds {item}{wreck}; items do not stack "
    "or replace each other, take it off first (TL-9)",
)
STILL_WORN = say("refused.still_worn", " (destroyed, but still worn)")()
WEARS_NOTHING = say("refused.wears_nothing", "{actor} wears nothing on the {layer}")
CARRIES_NO = say("refused.carries_no", "{actor} carries no item named {name} (carried: {names})")
NOTHING = say("refused.nothing", "nothing")()
CAST_ONTO_ARMOUR = say(
    "refused.cast_onto_armour",
    "cannot cast {spell}: no magical armour may be cast onto the {layer} while {item} is "
    "worn there; improve it with the same magic (mode 'improve') or take it off first (TL-9)",
)
NOTHING_TO_IMPROVE = say(
    "refused.nothing_to_improve", "nothing to improve: {actor} wears nothing on the {layer}"
)
CANNOT_IMPROVE_DESTROYED = say(
    "refused.improve_destroyed", "cannot improve {item}: it is destroyed"
)
NOT_MAGICAL = say("refused.not_magical", "{item} on the {layer} is not magical; nothing to dispel")
# What a player reads of a refusal about an NPC's layer whose item it may not see
# (the name, whether it is magical): the layer stands for the item.
# Translators: a whole refusal, given as it is: keep it "{line}".
LINE = say("refused.line", "{line}")
CAST_ONTO_WORN = say(
    "refused.cast_onto_worn",
    "cannot cast {spell}: the {layer} already holds an item, and no magical armour may be "
    "cast onto a layer that holds one (TL-9)",
)
IMPROVE_MAGICAL_PUBLIC = say(
    "refused.improve_magical_public",
    "cannot improve the {layer} with {spell}: it is magical and stays until it is destroyed "
    "or dispelled (TL-9)",
)
IMPROVE_DESTROYED_PUBLIC = say(
    "refused.improve_destroyed_public", "cannot improve the {layer}: it is destroyed"
)
NOT_MAGICAL_PUBLIC = say(
    "refused.not_magical_public", "the {layer} is not magical; nothing to dispel"
)
ALREADY_MOUNTED = say("refused.already_mounted", "{actor} is already on {vehicle}; dismount first")
NO_VEHICLE_NAMED = say(
    "refused.no_vehicle_named", "{actor} has no vehicle or mount named {name} (has: {names})"
)
NONE = say("refused.none", "none")()
# Translators: {track} is a track's key, {keys} the keys the actor has (body, mind, …).
NO_TRACK = say("refused.no_track", "no track {track} on this actor (tracks: {keys})")
# Translators: parameter problems; the quoted words ('item', 'name', 'improve') are
# parameter names and values, kept as they are.
ITEM_OR_NAME = say(
    "invalid.item_or_name", "give exactly one of 'item' (the item's data) or 'name'"
)()
VEHICLE_OR_NAME = say(
    "invalid.vehicle_or_name", "give exactly one of 'vehicle' (its data) or 'name'"
)()
CAST_NEEDS_TL = say("invalid.cast_needs_tl", "casting a magical armour needs the spell's TL")()
NO_SECTION_OF = say(
    "invalid.no_section_of", "{vehicle} has no section {section} (sections: {names})"
)
# Translators: {kind} is "vehicle" or "mount": what players read instead of an NPC's
# vehicle's name.
NO_SECTION_OF_PUBLIC = say(
    "invalid.no_section_of_public", "the {kind} has no section {section} (sections: {names})"
)
NO_SUCH_SECTION = say("invalid.no_such_section", "{vehicle} has no such section")
ONLY_VEHICLE_SECTIONS = say(
    "invalid.only_vehicle_sections", "only the vehicle layer has sections"
)()
NOT_MOUNTED_NO_SECTION = say(
    "invalid.not_mounted_no_section", "{actor} is not mounted, so no section can be hit"
)
ARMOUR_BOXES = say("invalid.armour_boxes", "an armour has 10 or 20 boxes, not {boxes}")
# Translators: the counts stand in parentheses, so that no word agrees with a number.
CROSSED_PAST_BOXES = say(
    "invalid.crossed_past_boxes", "more boxes crossed ({crossed}) than there are ({boxes})"
)
ONLY_MAGICAL_BASE = say(
    "invalid.only_magical_base", "only a magically improved (magical) item has a base"
)()
# Translators: {kind} is the item's kind as the data names it (armour, shield), kept as it is.
SECOND_ON_LAYER = say(
    "invalid.second_on_layer",
    "a second {kind} ({name}) on one layer: only one item may be worn per layer (TL-9)",
)
NAMED_TWICE = say("invalid.section_twice", "section {name} is named twice")
VEHICLE_TWICE = say("invalid.vehicle_twice", "{name} is named twice")
NO_VEHICLE_IN_SHEET = say(
    "invalid.no_vehicle_in_sheet", "no vehicle named {name} in sheet.vehicles"
)


# -- odds (the outcome labels of `rollbridge odds techlevel hit`) ----------------
# Translators: a layer (Armour, Body (KSK), …) taking {count} boxes, in a table of odds.
ODDS_BOXES = say.plural(
    "odds.boxes", "{layer}: {count} box", "{layer}: {count} boxes", count="count"
)
# Translators: a layer taking its last {count} boxes: it is destroyed (TL-5).
ODDS_DESTROYED = say.plural(
    "odds.destroyed",
    "{layer}: {count} box, destroyed",
    "{layer}: {count} boxes, destroyed",
    count="count",
)
# Translators: shock damage crossing {count} KSK boxes (TL-7).
ODDS_SHOCK_BOXES = say.plural(
    "odds.shock_boxes",
    "{layer}: {count} shock box",
    "{layer}: {count} shock boxes",
    count="count",
)
# Translators: {boxes} is "Body (KSK): 3 boxes"; lethal damage also turns {count}
# shock boxes lethal (TL-7).
ODDS_CONVERTED = say.plural(
    "odds.converted",
    "{boxes}, and {count} shock box made lethal",
    "{boxes}, and {count} shock boxes made lethal",
    count="count",
)
# Translators: a mental hit on the GSK ({first}) and its excess carried into KSK (TL-8).
ODDS_AND = say("odds.and", "{first}; {second}")
# Translators: the vehicle layer and the section a hit strikes (TL-10).
ODDS_SECTION = say("odds.section", "{layer}, section {section}")
