"""Actions that roll a trait: trait tests (WD-3), attacks (WD-6), recovery
from Shaken (WD-9, also the turn hook) and the chip reroll of any of them (WD-4).

A melee attack's difficulty is the target's Defense, derived from its sheet,
which players do not see for an NPC. The roll memory is part of the attacker's
state, which everyone sees for a player's character, so the roll record keeps
``"against": "defense"`` and the target's id instead of the number, and a chip
on it names that target (``targets: [guard]``) to recompute the Defense.

In the resolution the Defense — the difficulty, the dice group's target, the step
that derives it, the narration's number — is marked as the target's private
value (:mod:`rollbridge.plugins.wilddie.privacy`), and so are the actor's chips.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rollbridge.contract import ActionContext, Actor, Resolution
from rollbridge.dice import DiceSource, Die, roll_compounding
from rollbridge.exceptions import InvalidParams, RuleViolation, UnknownRequest
from rollbridge.plugins.wilddie.actions import RANGE_DIFFICULTY, SIZE_ADJUSTMENT
from rollbridge.plugins.wilddie.messages import (
    ATTACK_HITS,
    ATTACK_HITS_RAISES,
    ATTACK_MISSES,
    ATTACK_MODES,
    CANNOT_ACT,
    CHIP_ALREADY_SPENT,
    CHIP_NO_TARGET,
    CHIP_RECOVERS,
    CHIP_REROLLS,
    CHIP_SHAKEN_AGAIN,
    CHIP_SPENT,
    CHIP_SPENT_HIDDEN,
    CHIP_TARGET_REQUIRED,
    CHIP_WRONG_TARGET,
    DEFENSE,
    DEFENSE_FIGHTING,
    DEFENSE_NO_FIGHTING,
    DEFENSE_STEP,
    DEFENSE_STEP_HIDDEN,
    DIFFICULTY,
    MELEE_HAS_NO_RANGE,
    MELEE_HAS_NO_SIZE,
    NEEDS_ACTOR,
    NEEDS_ONE_TARGET,
    NO_CHIPS,
    NO_ROLL,
    NO_SUCH_ROLL,
    NO_WILD_DIE_TO_REROLL,
    NOT_SHAKEN,
    ONE_DIE_TRAIT,
    ONE_DIE_WILD,
    RANGE_BANDS,
    RANGED_NEEDS_RANGE,
    RANGED_STEP,
    RANGED_STEP_SIZED,
    RECOVERS,
    RECOVERY_FAILURE,
    RECOVERY_LABEL,
    RECOVERY_SUCCESS,
    REPLACED_TRAIT,
    REPLACED_TRAIT_ACED,
    REPLACED_WILD,
    REPLACED_WILD_ACED,
    ROLL_KINDS,
    STAYS_SHAKEN,
    TARGET_SIZES,
    TARGETS_DEFENSE,
    TRAIT_ROLLS,
    WHOLE_ROLL,
)
from rollbridge.plugins.wilddie.privacy import chips as private_chips
from rollbridge.plugins.wilddie.privacy import from_sheet, from_state, state_summary
from rollbridge.plugins.wilddie.rolling import (
    evaluate,
    group_for,
    result_dice,
    roll_record,
    shown_modifiers,
    signed,
    steps_for,
    trait_label,
    untrained_modifier,
    verdict,
    wound_modifier_entry,
)
from rollbridge.plugins.wilddie.sheet import is_pc
from rollbridge.plugins.wilddie.state import (
    ROLL_MEMORY,
    find_roll,
    remember_roll,
    replace_roll,
    set_shaken,
    wound_modifier,
)
from rollbridge.plugins.wilddie.traits import defense, die_faces, trait_die
from rollbridge.text import Private, Text

__all__ = [
    "RollPlan",
    "attack",
    "plan_attack",
    "plan_roll",
    "plan_trait",
    "recover",
    "recovery_roll",
    "spend_chip",
    "trait_test",
]

#: WD-9: recovering from Shaken is a Character roll against 4.
RECOVERY_TRAIT = "character"
RECOVERY_DIFFICULTY = 4

# texts without arguments, made once
_DEFENSE, _TARGETS_DEFENSE, _NO_FIGHTING = DEFENSE(), TARGETS_DEFENSE(), DEFENSE_NO_FIGHTING()
_WHOLE_ROLL, _CHIP_RECOVERS = WHOLE_ROLL(), CHIP_RECOVERS()
_CHIP_SHAKEN_AGAIN = CHIP_SHAKEN_AGAIN()
_RECOVERY_SUCCESS, _RECOVERY_FAILURE = RECOVERY_SUCCESS(), RECOVERY_FAILURE()
_MODES: dict[str, Text] = {mode: word() for mode, word in ATTACK_MODES.items()}
_BANDS: dict[str, Text] = {band: word() for band, word in RANGE_BANDS.items()}
_SIZES: dict[str, Text] = {size: word() for size, word in TARGET_SIZES.items()}
_KINDS: dict[str, Text] = {kind: word() for kind, word in ROLL_KINDS.items()}
#: What a chip rerolls, by die slot (WD-4), and how the replaced die is told.
_ONE_DIE: dict[str, Text] = {"trait": ONE_DIE_TRAIT(), "wild": ONE_DIE_WILD()}
_REPLACED = {"trait": REPLACED_TRAIT, "wild": REPLACED_WILD}
_REPLACED_ACED = {"trait": REPLACED_TRAIT_ACED, "wild": REPLACED_WILD_ACED}


def require_actor(context: ActionContext) -> Actor:
    """The acting actor. :raises InvalidParams: when the request names none."""
    if context.actor is None:
        raise InvalidParams(NEEDS_ACTOR(action=repr(context.action)))
    return context.actor


def require_target(context: ActionContext) -> Actor:
    """The one target. :raises InvalidParams: unless the request names exactly one."""
    if len(context.targets) != 1:
        raise InvalidParams(NEEDS_ONE_TARGET(action=repr(context.action)))
    return context.targets[0]


def ensure_can_act(actor: Actor) -> None:
    """WD-8: an incapacitated character (an npc out of the fight) rolls no traits."""
    if actor.state.get("incapacitated"):
        raise RuleViolation(
            CANNOT_ACT(actor=actor.name), code="incapacitated", details={"actor": actor.id}
        )


def base_modifiers(actor: Actor, untrained: bool) -> list[dict[str, Any]]:
    """The modifiers every trait roll of ``actor`` gets: untrained −2 (WD-1), wounds (WD-8)."""
    mods: list[dict[str, Any]] = []
    if untrained:
        mods.append(untrained_modifier())
    wounds = -wound_modifier(actor.state)
    if wounds:
        mods.append(wound_modifier_entry(wounds))
    return mods


@dataclass(frozen=True)
class RollPlan:
    """What a trait roll (WD-3) is before any die: the trait die's faces, whether
    the skill is untrained, whether the wild die is rolled (a pc), every modifier
    as the record keeps it (untrained, wounds, then the request's) and the difficulty.

    The resolver rolls from it and :mod:`.odds` computes from it, so they cannot drift.
    """

    faces: int
    untrained: bool
    wild: bool
    modifiers: tuple[dict[str, Any], ...]
    difficulty: int

    @property
    def modifier(self) -> int:
        """The sum of the modifiers, as :func:`.rolling.evaluate` adds them."""
        return sum(int(m["value"]) for m in self.modifiers)


def plan_roll(
    actor: Actor, *, trait: str, difficulty: int, modifiers: list[Mapping[str, Any]]
) -> RollPlan:
    """The :class:`RollPlan` of ``actor`` rolling ``trait`` against ``difficulty``."""
    faces, untrained = trait_die(actor.sheet, trait)
    return RollPlan(
        faces=faces,
        untrained=untrained,
        wild=is_pc(actor.sheet),
        modifiers=tuple(
            {"value": int(m["value"]), "note": str(m.get("note", ""))}
            for m in [*base_modifiers(actor, untrained), *modifiers]
        ),
        difficulty=difficulty,
    )


def plan_trait(context: ActionContext) -> tuple[Actor, RollPlan]:
    """The actor and plan of a ``trait`` action, refused as :func:`trait_test` refuses."""
    actor = require_actor(context)
    ensure_can_act(actor)
    params = context.params
    plan = plan_roll(
        actor,
        trait=params["trait"],
        difficulty=int(params.get("difficulty", 4)),
        modifiers=list(params.get("modifiers", [])),
    )
    return actor, plan


def _roll_for(
    actor: Actor,
    dice: DiceSource,
    *,
    kind: str,
    trait: str,
    difficulty: int,
    modifiers: list[Mapping[str, Any]],
    roll_id: str | None,
    against: str | None = None,
    extra: Mapping[str, Any] | None = None,
    remember: bool = True,
    seq: int | None = None,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Roll, remember the roll in the actor's state; returns (state, record, result).

    With ``against`` (``"defense"``) the remembered record keeps what the
    difficulty is built from, not ``difficulty`` itself. A secret roll (``remember``
    false) is not kept: the actor's state, which its player sees, would tell the
    dice (WD-4's chips then cannot reroll it).
    """
    plan = plan_roll(actor, trait=trait, difficulty=difficulty, modifiers=modifiers)
    record = roll_record(
        dice,
        kind=kind,
        trait=trait,
        faces=plan.faces,
        untrained=plan.untrained,
        wild=plan.wild,
        modifiers=list(plan.modifiers),
        difficulty=None if against else difficulty,
        roll_id=roll_id,
        against=against,
        extra=extra,
        seq=seq,
    )
    remembered = remember_roll(actor.state, record)
    record = remembered["rolls"][-1]
    state = remembered if remember else dict(actor.state)
    return state, record, evaluate(record, difficulty if against else None)


def _roll_outcome(
    action: str, actor: Actor, record: Mapping[str, Any], result: Mapping[str, Any]
) -> dict[str, Any]:
    return {
        "action": action,
        "actor": actor.id,
        "roll": record["id"],
        "trait": record["trait"],
        "die": f"d{record['faces']}",
        "untrained": record["untrained"],
        "modifiers": shown_modifiers(record),
        "modifier": result["modifier"],
        **result_dice(record, result),
        "kept": result["kept"],
        "total": result["total"],
        "difficulty": result["difficulty"],
        "success": result["success"],
        "raises": result["raises"],
        "chips_spent": 0,
    }


def _chips_outcome(outcome: dict[str, Any], state: Mapping[str, Any], actor: Actor) -> None:
    """The actor's chips left and new state, its chips marked as its own."""
    outcome["chips_left"] = private_chips(int(state["chips"]), actor.id)
    outcome["new_state"] = state_summary(state, actor.id)


def trait_test(context: ActionContext, dice: DiceSource) -> Resolution:
    """WD-3: trait die (+ wild die for a pc) + modifiers against a difficulty."""
    actor, plan = plan_trait(context)
    params = context.params
    state, record, result = _roll_for(
        actor,
        dice,
        kind="trait",
        trait=params["trait"],
        difficulty=plan.difficulty,
        modifiers=list(params.get("modifiers", [])),
        roll_id=context.request_id,
        remember=not context.secret,
        seq=context.seq,
    )
    outcome = _roll_outcome("trait", actor, record, result)
    _chips_outcome(outcome, state, actor)
    return Resolution(
        narration=TRAIT_ROLLS(
            actor=actor.name,
            trait=trait_label(record),
            difficulty=result["difficulty"],
            total=result["total"],
            verdict=verdict(result),
        ),
        outcome=outcome,
        dice=[group_for(record, result)],
        states={actor.id: state},
        steps=steps_for(record, result),
    )


def _defense_how(target: Actor, difficulty: int) -> Private:
    """The step that explains a melee difficulty, the target's Defense (WD-5):
    players read ``difficulty = Defense of Guard (hidden)`` for an NPC."""
    fighting = (target.sheet.get("skills") or {}).get("fighting")
    how = DEFENSE_FIGHTING(faces=die_faces(fighting)) if fighting else _NO_FIGHTING
    return from_sheet(
        DEFENSE_STEP(difficulty=difficulty, target=target.name, how=how),
        target.id,
        instead=DEFENSE_STEP_HIDDEN(target=target.name),
    )


def _private_defense(target_id: str, difficulty: int) -> tuple[Private, Private, Private]:
    """A Defense as a resolution shows it: the number (dropped from the outcome and
    the dice for players), the verdict's ``difficulty 7`` (players: "the target's
    Defense") and the narration's ``7`` (players: "Defense")."""
    return (
        from_sheet(difficulty, target_id),
        from_sheet(DIFFICULTY(difficulty=difficulty), target_id, instead=_TARGETS_DEFENSE),
        from_sheet(difficulty, target_id, instead=_DEFENSE),
    )


def plan_attack(context: ActionContext) -> tuple[Actor, Actor, RollPlan]:
    """The attacker, target and plan of an ``attack`` (WD-6), refused as
    :func:`attack` refuses: melee rolls Fighting against the target's Defense
    (WD-5), ranged Shooting against the range band's difficulty adjusted for size."""
    actor = require_actor(context)
    target = require_target(context)
    ensure_can_act(actor)
    params = context.params
    if params["mode"] == "melee":
        if "range" in params:
            raise InvalidParams(MELEE_HAS_NO_RANGE())
        if "size" in params:
            raise InvalidParams(MELEE_HAS_NO_SIZE())
        trait, difficulty = "fighting", defense(target.sheet)
    else:
        if "range" not in params:
            raise InvalidParams(RANGED_NEEDS_RANGE())
        size = params.get("size", "normal")
        trait = "shooting"
        difficulty = RANGE_DIFFICULTY[params["range"]] + SIZE_ADJUSTMENT[size]
    plan = plan_roll(
        actor, trait=trait, difficulty=difficulty, modifiers=list(params.get("modifiers", []))
    )
    return actor, target, plan


def attack(context: ActionContext, dice: DiceSource) -> Resolution:
    """WD-6: Fighting against the target's Defense, or Shooting against range + size."""
    actor, target, plan = plan_attack(context)
    params = context.params
    mode = params["mode"]
    difficulty = plan.difficulty
    # how the difficulty is shown: in the outcome and dice, the verdict, the narration
    shown: Private | None = None
    verdict_against: Private | None = None
    narrated: int | Private
    if mode == "melee":
        trait = "fighting"
        how: Text | Private = _defense_how(target, difficulty)
        against: str | None = "defense"
        extra: dict[str, Any] = {"mode": "melee", "target": target.id}
        shown, verdict_against, narrated = _private_defense(target.id, difficulty)
    else:
        trait = "shooting"
        band = params["range"]
        size = params.get("size", "normal")
        if SIZE_ADJUSTMENT[size]:
            how = RANGED_STEP_SIZED(
                difficulty=difficulty,
                band=_BANDS[band],
                base=RANGE_DIFFICULTY[band],
                adjust=signed(SIZE_ADJUSTMENT[size]),
                size=_SIZES[size],
            )
        else:
            how = RANGED_STEP(difficulty=difficulty, band=_BANDS[band], base=RANGE_DIFFICULTY[band])
        against = None
        extra = {"mode": "ranged", "target": target.id, "range": band, "size": size}
        narrated = difficulty
    state, record, result = _roll_for(
        actor,
        dice,
        kind="attack",
        trait=trait,
        difficulty=difficulty,
        modifiers=list(params.get("modifiers", [])),
        roll_id=context.request_id,
        remember=not context.secret,
        against=against,
        extra=extra,
        seq=context.seq,
    )
    outcome = _roll_outcome("attack", actor, record, result)
    if shown is not None:
        outcome["difficulty"] = shown
    outcome.update(extra)
    outcome["hit"] = result["success"]
    _chips_outcome(outcome, state, actor)
    said = {
        "actor": actor.name,
        "target": target.name,
        "mode": _MODES[mode],
        "total": result["total"],
    }
    if not result["success"]:
        narration = ATTACK_MISSES(**said, against=narrated)
    elif result["raises"]:
        narration = ATTACK_HITS_RAISES(**said, against=narrated, count=result["raises"])
    else:
        narration = ATTACK_HITS(**said, against=narrated)
    return Resolution(
        narration=narration,
        outcome=outcome,
        dice=[group_for(record, result, difficulty=shown)],
        states={actor.id: state},
        steps=[how, *steps_for(record, result, difficulty=verdict_against)],
    )


def recovery_roll(
    actor: Actor,
    dice: DiceSource,
    *,
    modifiers: list[Mapping[str, Any]],
    roll_id: str | None,
    action: str,
    remember: bool = True,
    seq: int | None = None,
) -> Resolution:
    """WD-9: Character (+ wild die for a pc) against 4; success ends Shaken (a secret
    roll, ``remember`` false, is not kept for a chip); ``seq``: the event's that
    shows it."""
    state, record, result = _roll_for(
        actor,
        dice,
        kind="recovery",
        trait=RECOVERY_TRAIT,
        difficulty=RECOVERY_DIFFICULTY,
        modifiers=modifiers,
        roll_id=roll_id,
        remember=remember,
        seq=seq,
    )
    if result["success"]:  # a secret roll is not remembered: no chip can undo it
        set_shaken(state, False, ended_by=record["id"] if remember else None)
    outcome = _roll_outcome(action, actor, record, result)
    outcome["recovered"] = result["success"]
    _chips_outcome(outcome, state, actor)
    steps: list[Text | Private] = [*steps_for(record, result)]
    steps.append(_RECOVERY_SUCCESS if result["success"] else _RECOVERY_FAILURE)
    ends = RECOVERS if result["success"] else STAYS_SHAKEN
    return Resolution(
        narration=ends(actor=actor.name, total=result["total"], difficulty=RECOVERY_DIFFICULTY),
        outcome=outcome,
        dice=[group_for(record, result, label=RECOVERY_LABEL(trait=trait_label(record)))],
        states={actor.id: state},
        steps=steps,
    )


def recover(context: ActionContext, dice: DiceSource) -> Resolution:
    """The recovery roll of WD-9 asked for as an action."""
    actor = require_actor(context)
    ensure_can_act(actor)
    if not actor.state.get("shaken"):
        raise RuleViolation(
            NOT_SHAKEN(actor=actor.name), code="not_shaken", details={"actor": actor.id}
        )
    return recovery_roll(
        actor,
        dice,
        modifiers=list(context.params.get("modifiers", [])),
        roll_id=context.request_id,
        remember=not context.secret,
        action="recover",
        seq=context.seq,
    )


def spend_chip(context: ActionContext, dice: DiceSource) -> Resolution:
    """WD-4: spend one chip to reroll one die (or, by setting, the whole roll)."""
    actor = require_actor(context)
    params = context.params
    roll_id = params.get("roll")
    record = find_roll(actor.state, roll_id)
    if record is None and roll_id is not None:
        raise UnknownRequest(
            NO_SUCH_ROLL(actor=actor.name, roll=repr(roll_id), count=ROLL_MEMORY),
            details={"roll": roll_id},
        )
    if record is None:
        raise RuleViolation(NO_ROLL(actor=actor.name), code="no_roll", details={"actor": actor.id})
    if record.get("chip_spent"):
        raise RuleViolation(
            CHIP_ALREADY_SPENT(roll=repr(record["id"])),
            code="chip_already_spent",
            details={"roll": record["id"]},
        )
    chips = int(actor.state.get("chips", 0))
    if chips < 1:
        raise RuleViolation(
            NO_CHIPS(actor=actor.name), code="no_chips", details={"actor": actor.id}
        )
    difficulty, how = _chip_difficulty(record, context.targets)
    shown: Private | None = None
    verdict_against: Private | None = None
    if difficulty is not None:  # a melee attack's Defense, the target's own
        shown, verdict_against, _ = _private_defense(str(record.get("target")), difficulty)
    whole = context.settings.get("chip_reroll", "one_die") == "whole_roll"
    has_wild = record.get("wild_die") is not None
    if whole:
        slots = ["trait", "wild"] if has_wild else ["trait"]
    else:
        slots = [params.get("die", "trait")]
        if slots[0] == "wild" and not has_wild:
            raise RuleViolation(
                NO_WILD_DIE_TO_REROLL(roll=repr(record["id"])),
                code="no_wild_die",
                details={"roll": record["id"]},
            )
    before = evaluate(record, difficulty)
    new_record = dict(record)
    replaced: dict[str, Any] = {}
    for slot in slots:
        old = record[f"{slot}_die"]
        new_die = roll_compounding(dice, int(old["faces"]))
        if slot == "wild":
            new_die = new_die.tagged("wild")
        replaced[slot] = old
        new_record[f"{slot}_die"] = new_die.to_dict()
    new_record["chip_spent"] = True
    after = evaluate(new_record, difficulty)
    state = replace_roll(actor.state, new_record)
    state["chips"] = chips - 1
    shaken_again = _shaken_again(actor.state, new_record, before, after)
    if new_record["kind"] == "recovery" and after["success"] and state["shaken"]:
        set_shaken(state, False, ended_by=new_record["id"])
    elif shaken_again:
        set_shaken(state, True)
    outcome: dict[str, Any] = {
        "action": "chip",
        "actor": actor.id,
        "roll": record["id"],
        "roll_kind": record["kind"],
        "setting": "whole_roll" if whole else "one_die",
        "rerolled": slots,
        "replaced": {slot: Die.from_dict(dict(d)).to_dict() for slot, d in replaced.items()},
        "modifiers": shown_modifiers(new_record),
        "modifier": after["modifier"],
        **result_dice(new_record, after),
        "kept": after["kept"],
        "total": after["total"],
        "difficulty": after["difficulty"] if shown is None else shown,
        "success": after["success"],
        "raises": after["raises"],
        "before": {k: before[k] for k in ("kept", "total", "success", "raises")},
        "chips_spent": 1,
    }
    _chips_outcome(outcome, state, actor)
    if record["kind"] == "attack":
        outcome["hit"] = after["success"]
        outcome["target"] = record.get("target")
        outcome["mode"] = record.get("mode")
    if record["kind"] == "recovery":
        outcome["recovered"] = after["success"]
    which = _WHOLE_ROLL if whole else _ONE_DIE[slots[0]]
    spent = {"roll": record["id"], "kind": _KINDS[record["kind"]], "which": which}
    steps: list[Text | Private] = [
        from_state(
            CHIP_SPENT(**spent, before=chips, after=chips - 1),
            actor.id,
            instead=CHIP_SPENT_HIDDEN(**spent),
        )
    ]
    for slot in slots:
        old = Die.from_dict(dict(replaced[slot]))
        if len(old.rolls) > 1:
            steps.append(_REPLACED_ACED[slot](rolls=list(old.rolls), value=old.value))
        else:
            steps.append(_REPLACED[slot](rolls=list(old.rolls)))
    if how is not None:
        steps.append(how)
    steps.extend(steps_for(new_record, after, difficulty=verdict_against))
    if record["kind"] == "recovery" and after["success"] and actor.state.get("shaken"):
        steps.append(_CHIP_RECOVERS)
    elif shaken_again:
        steps.append(_CHIP_SHAKEN_AGAIN)
    return Resolution(
        narration=CHIP_REROLLS(
            actor=actor.name,
            which=which,
            trait=trait_label(record),
            before=before["total"],
            after=after["total"],
            verdict=verdict(after),
        ),
        outcome=outcome,
        dice=[group_for(new_record, after, replaced=replaced, difficulty=shown)],
        states={actor.id: state},
        steps=steps,
    )


def _chip_difficulty(
    record: Mapping[str, Any], targets: tuple[Actor, ...]
) -> tuple[int | None, Private | None]:
    """The difficulty to judge a chip's reroll against, and the step that explains it.

    A record that keeps its difficulty needs no target (one may be named, but
    only the roll's own). A record ``against`` a target's hidden value needs
    that target named, to recompute the value from its current sheet. Returns
    ``(None, None)`` when the record's own difficulty applies.
    """
    roll_id, target_id = record["id"], record.get("target")
    named = [target.id for target in targets]
    if named and named != [target_id]:
        raise RuleViolation(
            CHIP_WRONG_TARGET(roll=repr(roll_id), target=repr(target_id))
            if target_id
            else CHIP_NO_TARGET(roll=repr(roll_id)),
            code="chip_wrong_target",
            details={"roll": roll_id, "target": target_id, "targets": named},
        )
    against = record.get("against")
    if against is None:
        return None, None
    if not named:  # only a melee attack is against a hidden value: its target's Defense
        raise RuleViolation(
            CHIP_TARGET_REQUIRED(roll=repr(roll_id), target=repr(target_id)),
            code="chip_target_required",
            details={"roll": roll_id, "target": target_id},
        )
    (target,) = targets
    difficulty = defense(target.sheet)  # "defense" is the only hidden value a roll is against
    return difficulty, _defense_how(target, difficulty)


def strength_faces(actor: Actor) -> int:
    """The faces of ``actor``'s Strength die (melee damage, WD-7)."""
    return die_faces(actor.sheet["attributes"]["strength"])


def _shaken_again(
    state: Mapping[str, Any],
    record: Mapping[str, Any],
    before: Mapping[str, Any],
    after: Mapping[str, Any],
) -> bool:
    """WD-4 with WD-9: a chip turns a successful recovery roll into a failure. If that
    roll's success is what ended the character's last Shaken (``shaken_ended_by``:
    nothing has changed Shaken since, not damage, a heal, nor another recovery), it
    did not end: Shaken is back."""
    if record["kind"] != "recovery" or not before["success"] or after["success"]:
        return False
    return not state.get("shaken") and state.get("shaken_ended_by") == record["id"]
