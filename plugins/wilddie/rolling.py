"""WD-2 aces and WD-3 trait tests, and the WD-4 chip reroll of such a test.

A trait test is recorded as plain data (a *roll record*) so that a later chip
can reroll one of its dice::

    {
      "id": "req-17",               # the request that made it (or "#<seq>")
      "seq": 12,                    # the event that showed it (absent: unknown)
      "kind": "trait",              # "trait", "attack" or "recovery"
      "trait": "fighting", "faces": 10, "untrained": false,
      "modifiers": [{"value": -1, "note": "1 wound"}],
      "difficulty": 7,              # or "against": "defense" (see below)
      "trait_die": {"faces": 10, "rolls": [10, 3], "value": 13, "tags": ["compounded"]},
      "wild_die": {"faces": 6, "rolls": [4], "value": 4, "tags": ["wild"]},   # null for an npc
      "chip_spent": false,
      ...                           # what the action adds (target, range, ...)
    }

:func:`evaluate` turns a record into its result; nothing about the result is
stored, so a rerolled record is simply evaluated again.

The record lives in the actor's state, and a player character's state is
seen by everyone at the table. A difficulty built from another actor's hidden
values — a melee attack's Defense, 2 + half the target's Fighting die — is
therefore never stored: the record says what it is built from
(``"against": "defense"``, with the ``target``), and whoever evaluates it
recomputes the number from the target's sheet and passes it to
:func:`evaluate`.

Reading of WD-1 with WD-3: the −2 of an untrained skill is a modifier of the
roll, so the wild die gets it too (as in Savage Worlds); the record lists it
among the modifiers with the note ``untrained``.

:func:`group_for` and :func:`steps_for` say what a test shows as texts
(:mod:`rollbridge.plugins.wilddie.messages`); a difficulty that is another
actor's private value is passed to them already marked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from rollbridge.dice import DiceGroup, DiceSource, Die, roll_compounding
from rollbridge.plugins.wilddie.messages import (
    ACES,
    DIE_ROLLED,
    DIE_ROLLED_MODIFIED,
    DIFFICULTY,
    FAILURE,
    KEPT_TRAIT,
    KEPT_WILD,
    MODIFIER_NOTED,
    MODIFIERS,
    NO_WILD_DIE,
    NOTE_RAISES,
    SUCCESS,
    SUCCESS_RAISES,
    TRAIT_LABEL,
    TRAIT_LABEL_UNTRAINED,
    TRAIT_NAMES,
    UNTRAINED_NOTE,
    VERDICT_STEP,
    WILD_DIE,
    WOUNDS_NOTE,
)
from rollbridge.plugins.wilddie.state import PC_MAX_WOUNDS
from rollbridge.plugins.wilddie.traits import UNTRAINED_PENALTY
from rollbridge.text import Text

__all__ = [
    "WILD_FACES",
    "evaluate",
    "group_for",
    "raises",
    "roll_record",
    "shown_modifiers",
    "signed",
    "steps_for",
    "trait_label",
    "untrained_modifier",
    "verdict",
    "wound_modifier_entry",
]

#: The wild die is a d6 (WD-3).
WILD_FACES = 6
#: Each full 4 above the difficulty is a raise (WD-3 Decision).
RAISE_STEP = 4

# texts without arguments, made once
_FAILURE, _SUCCESS, _NO_WILD_DIE = FAILURE(), SUCCESS(), NO_WILD_DIE()
_WILD_DIE = WILD_DIE(faces=WILD_FACES)
_TRAIT_NAMES: dict[str, Text] = {trait: name() for trait, name in TRAIT_NAMES.items()}
_KEPT = {"trait": KEPT_TRAIT, "wild": KEPT_WILD}


def untrained_modifier() -> dict[str, Any]:
    """The modifier of an untrained skill (WD-1) as a roll record keeps it:
    ``{"value": -2, "note": "untrained"}``."""
    return {"value": UNTRAINED_PENALTY, "note": UNTRAINED_NOTE.template}


def wound_modifier_entry(wounds: int) -> dict[str, Any]:
    """The wound modifier (WD-8) of ``wounds`` wounds as a roll record keeps it:
    ``{"value": -2, "note": "2 wounds"}``."""
    return {"value": -wounds, "note": WOUNDS_NOTE.template_for(wounds).format(count=wounds)}


#: The modifiers the ruleset adds itself, as a record keeps them (plain data in the
#: actor's state, noted in English), and the texts their notes read as.
_RULESET_NOTES: dict[tuple[int, str], Text] = {
    (UNTRAINED_PENALTY, UNTRAINED_NOTE.template): UNTRAINED_NOTE(),
    **{
        (entry["value"], entry["note"]): WOUNDS_NOTE(count=wounds)
        for wounds in range(1, PC_MAX_WOUNDS + 1)
        for entry in [wound_modifier_entry(wounds)]
    },
}


def _shown_note(modifier: Mapping[str, Any]) -> Any:
    """A modifier's note as a resolution shows it: the ruleset's own (``untrained``,
    ``1 wound``) as a text, read in each audience's language; a note the table typed
    as it is."""
    note = modifier["note"]
    return _RULESET_NOTES.get((int(modifier["value"]), note), note)


def shown_modifiers(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A record's modifiers as an outcome shows them: ``value`` and ``note``, the
    ruleset's own notes as texts (which read in English exactly as stored)."""
    return [{"value": m["value"], "note": _shown_note(m)} for m in record["modifiers"]]


def signed(value: int) -> str:
    """``+2``, ``−1``, ``+0``: a modifier as people write it."""
    return f"+{value}" if value >= 0 else f"−{-value}"


def raises(total: int, difficulty: int) -> int:
    """WD-3: full 4s above the difficulty of a successful roll; 0 on a failure."""
    return (total - difficulty) // RAISE_STEP if total >= difficulty else 0


def roll_ace(dice: DiceSource, faces: int) -> Die:
    """WD-2: one die that aces (rolls again and adds on its maximum)."""
    return roll_compounding(dice, faces)


def roll_record(
    dice: DiceSource,
    *,
    kind: str,
    trait: str,
    faces: int,
    untrained: bool,
    wild: bool,
    modifiers: Sequence[Mapping[str, Any]],
    difficulty: int | None,
    roll_id: str | None,
    against: str | None = None,
    extra: Mapping[str, Any] | None = None,
    seq: int | None = None,
) -> dict[str, Any]:
    """Roll a trait test (WD-3): the trait die, then the wild die for a pc.

    The record keeps ``difficulty`` when it is public (the request's own
    number, a range band, WD-9's 4). When the difficulty comes from another
    actor's hidden values, ``difficulty`` is None and ``against`` names what
    it is built from (``"defense"``); the number is not stored. ``seq`` is the
    event's that shows the roll (its context's), which a chip's dice group names.
    """
    if (difficulty is None) == (against is None):
        raise ValueError("a roll record has either a difficulty or what it is against")
    trait_die = roll_ace(dice, faces)
    wild_die = roll_ace(dice, WILD_FACES).tagged("wild") if wild else None
    record: dict[str, Any] = {
        "id": roll_id,
        **({"seq": seq} if seq is not None else {}),
        "kind": kind,
        "trait": trait,
        "faces": faces,
        "untrained": untrained,
        "modifiers": [
            {"value": int(m["value"]), "note": str(m.get("note", ""))} for m in modifiers
        ],
        **({"difficulty": difficulty} if against is None else {"against": against}),
        "trait_die": trait_die.to_dict(),
        "wild_die": None if wild_die is None else wild_die.to_dict(),
        "chip_spent": False,
    }
    record.update(extra or {})
    return record


def evaluate(record: Mapping[str, Any], difficulty: int | None = None) -> dict[str, Any]:
    """The result of a roll record: each die with modifiers, the kept one, success, raises.

    ``difficulty`` is required for a record that does not store its own (one
    ``against`` a target's hidden value) and must be left out otherwise.
    """
    if (difficulty is None) != ("difficulty" in record):
        if difficulty is None:
            raise ValueError(
                f"roll {record.get('id')!r} is against the {record.get('against')} of "
                f"{record.get('target')!r}: pass the difficulty recomputed from it"
            )
        raise ValueError(f"roll {record.get('id')!r} stores its own difficulty")
    modifier = sum(int(m["value"]) for m in record["modifiers"])
    trait_die = Die.from_dict(record["trait_die"])
    trait_total = trait_die.value + modifier
    wild_total = None
    if record.get("wild_die") is not None:
        wild_total = Die.from_dict(record["wild_die"]).value + modifier
    kept = "wild" if wild_total is not None and wild_total > trait_total else "trait"
    total = wild_total if kept == "wild" else trait_total
    assert total is not None
    if difficulty is None:
        difficulty = int(record["difficulty"])
    return {
        "modifier": modifier,
        "trait_total": trait_total,
        "wild_total": wild_total,
        "kept": kept,
        "total": total,
        "difficulty": difficulty,
        "success": total >= difficulty,
        "raises": raises(total, difficulty),
    }


def _die_dict(die: Mapping[str, Any], total: int, kept: bool) -> dict[str, Any]:
    return {
        "faces": int(die["faces"]),
        "rolls": list(die["rolls"]),
        "value": int(die["value"]),
        "aces": len(die["rolls"]) - 1,
        "modified": total,
        "kept": kept,
    }


def result_dice(record: Mapping[str, Any], result: Mapping[str, Any]) -> dict[str, Any]:
    """The outcome's view of both dice: every ace step, the modified value, which is kept."""
    out: dict[str, Any] = {
        "trait_die": _die_dict(
            record["trait_die"], result["trait_total"], result["kept"] == "trait"
        ),
        "wild_die": None,
    }
    if record.get("wild_die") is not None:
        out["wild_die"] = _die_dict(
            record["wild_die"], result["wild_total"], result["kept"] == "wild"
        )
    return out


def trait_label(record: Mapping[str, Any]) -> Text:
    """``Fighting d10`` or ``Stealth (untrained d4)``."""
    return _trait_label(record["trait"], int(record["faces"]), bool(record.get("untrained")))


@lru_cache(maxsize=256)
def _trait_label(trait: str, faces: int, untrained: bool) -> Text:
    """:func:`trait_label`, made once per trait and die (texts are immutable values,
    and one that is reused keeps its renderings)."""
    name = _TRAIT_NAMES[trait]
    if untrained:
        return TRAIT_LABEL_UNTRAINED(trait=name, faces=faces)
    return TRAIT_LABEL(trait=name, faces=faces)


def verdict(result: Mapping[str, Any]) -> Text:
    """``failure``, ``success`` or ``success with 2 raises``."""
    if not result["success"]:
        return _FAILURE
    if result["raises"]:
        return SUCCESS_RAISES(count=result["raises"])
    return _SUCCESS


def formula(record: Mapping[str, Any], modifier: int) -> str:
    """Foundry-like formula of the test: ``{1d10!!, 1d6!!}kh-1``."""
    mod = "" if modifier == 0 else (f"+{modifier}" if modifier > 0 else str(modifier))
    if record.get("wild_die") is None:
        return f"1d{record['faces']}!!{mod}"
    return f"{{1d{record['faces']}!!, 1d{WILD_FACES}!!}}kh{mod}"


def group_for(
    record: Mapping[str, Any],
    result: Mapping[str, Any],
    *,
    replaced: Mapping[str, Mapping[str, Any]] | None = None,
    label: Text | None = None,
    difficulty: Any = None,
) -> DiceGroup:
    """The dice group of a test: the trait die, the wild die, kept/dropped tags.

    ``replaced`` maps ``"trait"``/``"wild"`` to the die a chip rerolled; it
    is shown tagged ``rerolled`` before its replacement (tagged ``reroll``), and the
    group is tagged ``reroll``: it shows an earlier roll again, and only its dice
    tagged ``reroll`` were rolled now (what statistics and the dice verifier read);
    it names the event that showed that roll (``earlier``: the record's ``seq``),
    where the dice verifier matches the others. Every group names its roll (``roll``:
    the record's ``id``), which binds a chip's group to the one it shows again.
    ``difficulty`` is the group's target as the resolution shows it (a
    :class:`~rollbridge.text.Private` Defense); None: the result's difficulty.
    """
    replaced = replaced or {}
    dice: list[Die] = []
    for slot in ("trait", "wild"):
        data = record.get(f"{slot}_die")
        if data is None:
            continue
        if slot in replaced:
            dice.append(Die.from_dict(dict(replaced[slot])).tagged("rerolled", kept=False))
        die = Die.from_dict(dict(data))
        if slot in replaced:
            die = die.tagged("reroll")
        if result["kept"] != slot:
            die = die.tagged("dropped", kept=False)
        dice.append(die)
    if not result["success"]:
        note = _FAILURE
    elif result["raises"]:
        note = NOTE_RAISES(count=result["raises"])
    else:
        note = _SUCCESS
    return DiceGroup(
        label=label or trait_label(record),
        dice=tuple(dice),
        formula=formula(record, result["modifier"]),
        total=result["total"],
        target=result["difficulty"] if difficulty is None else difficulty,
        successes=1 if result["success"] else 0,
        note=note,
        tags=("reroll",) if replaced else (),
        earlier=record.get("seq") if replaced else None,
        roll=record.get("id"),
    )


def _die_line(name: Text, die: Mapping[str, Any], modifier: int, total: int) -> Text:
    rolls = list(die["rolls"])
    shown: Any = die["value"]
    if len(rolls) > 1:
        shown = ACES(rolls=rolls, value=die["value"], count=len(rolls) - 1)
    if modifier:
        return DIE_ROLLED_MODIFIED(die=name, shown=shown, modifier=signed(modifier), total=total)
    return DIE_ROLLED(die=name, shown=shown)


def steps_for(
    record: Mapping[str, Any], result: Mapping[str, Any], *, difficulty: Any = None
) -> list[Text]:
    """The lines that explain a test: the modifiers, each die with its aces and
    modifiers, the kept one, the verdict. ``difficulty``: what the verdict is
    against, as the resolution shows it (a :class:`~rollbridge.text.Private`
    text for a Defense); None: ``difficulty <n>``."""
    lines: list[Text] = []
    if record["modifiers"]:
        parts = [
            MODIFIER_NOTED(value=signed(int(m["value"])), note=_shown_note(m))
            if m.get("note")
            else signed(int(m["value"]))
            for m in record["modifiers"]
        ]
        lines.append(MODIFIERS(parts=parts, total=signed(result["modifier"])))
    lines.append(
        _die_line(
            trait_label(record), record["trait_die"], result["modifier"], result["trait_total"]
        )
    )
    if record.get("wild_die") is not None:
        lines.append(
            _die_line(
                _WILD_DIE,
                record["wild_die"],
                result["modifier"],
                result["wild_total"],
            )
        )
        lines.append(_KEPT[result["kept"]](total=result["total"]))
    else:
        lines.append(_NO_WILD_DIE)
    against = DIFFICULTY(difficulty=result["difficulty"]) if difficulty is None else difficulty
    total = result["total"]
    lines.append(VERDICT_STEP(total=total, difficulty=against, verdict=verdict(result)))
    return lines
