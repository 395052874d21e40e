"""The sr2 ruleset object: dispatch, bookkeeping actions, turn hooks, views."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rollbridge.contract import (
    ActionContext,
    Actor,
    CommonState,
    PlayerView,
    Resolution,
    Ruleset,
    TurnContext,
)
from rollbridge.dice import DiceSource
from rollbridge.exceptions import InvalidParams, RuleViolation, UnknownAction

from . import monitor
from .actions import ACTIONS
from .checks import check_pool, count_param, one_target, signed_param
from .combat import resolve_attack, resolve_damage
from .explain import plural, test_line, tn_text
from .rolls import roll_test
from .sheet import EXAMPLE_SHEETS, SETTINGS_SCHEMA, SHEET_SCHEMA, check_sheet, initial_state
from .visibility import player_resolution

__all__ = ["SR2Ruleset"]

TRACK_KEYS = ("stun", "physical", "overflow")


class SR2Ruleset(Ruleset):
    """Dice pools and staged damage, Shadowrun 2nd edition style (docs/rulesets/sr2.md)."""

    id = "sr2"
    name = "SR2: dice pools and staged damage"
    version = "1.0.0"
    summary = (
        "Shadowrun 2nd-edition-style dice pools: open-ended d6 against a target number, "
        "damage codes like 9M staged by net successes, Stun and Physical condition "
        "monitors with overflow up to Body, and a Combat Pool refilled every combat turn."
    )
    actions = ACTIONS
    sheet_schema = SHEET_SCHEMA
    settings_schema = SETTINGS_SCHEMA
    example_sheets = EXAMPLE_SHEETS

    # -- sheet and state ------------------------------------------------------

    def validate_sheet(self, sheet: Mapping[str, Any]) -> dict[str, Any]:
        checked = super().validate_sheet(sheet)
        check_sheet(checked)
        return checked

    def initial_state(self, sheet: Mapping[str, Any]) -> dict[str, Any]:
        return initial_state(sheet)

    def common_state(self, actor: Actor) -> CommonState:
        return monitor.common_state(actor.state, monitor.body_of(actor.sheet))

    def player_view(self, actor: Actor, settings: Mapping[str, Any]) -> PlayerView:
        """Players see an NPC's status, wound levels and modifier; the boxes
        only with ``show_npc_details``, the sheet only with ``show_npc_sheet``."""
        details = bool(settings.get("show_npc_details", False))
        common = monitor.common_state(actor.state, monitor.body_of(actor.sheet), boxes=details)
        return PlayerView(
            common=common,
            sheet=dict(actor.sheet) if settings.get("show_npc_sheet", False) else None,
            state=dict(actor.state) if details else None,
        )

    def player_resolution(
        self, data: Mapping[str, Any], hidden: frozenset[str], settings: Mapping[str, Any]
    ) -> dict[str, Any]:
        """A resolution as players see it: an NPC's sheet values (Body, armour, pool
        split, the TNs built from them) and its boxes are left out as
        ``player_view`` leaves them out (see :mod:`.visibility`)."""
        return player_resolution(data, hidden, settings)

    def adjust(self, actor: Actor, track: str, delta: int) -> dict[str, Any]:
        """A GM's direct change of ``stun``, ``physical`` or ``overflow``.

        Damage (delta > 0) carries like SR-11 (Stun → Physical → overflow);
        healing (delta < 0) follows SR-15 (healing Physical removes overflow
        first). Unlike the ``heal`` action this also works on the dead (a GM
        correcting a mistake).
        """
        if track not in TRACK_KEYS:
            raise InvalidParams(
                f"track: sr2 has no track {track!r} (tracks: {', '.join(TRACK_KEYS)})",
                details={"field": "track"},
            )
        if isinstance(delta, bool) or not isinstance(delta, int):
            raise InvalidParams(f"delta: must be a whole number, got {delta!r}")
        body = monitor.body_of(actor.sheet)
        if delta > 0:
            if track == "overflow":
                new = dict(actor.state)
                new["overflow"] = min(body + 1, new.get("overflow", 0) + delta)
                new["stabilised"] = False
                return new
            return monitor.apply_damage(actor.state, body, delta, track)[0]
        if delta < 0:
            return monitor.heal(actor.state, track, -delta)[0]
        return dict(actor.state)

    # -- actions ------------------------------------------------------------

    def resolve(self, context: ActionContext, dice: DiceSource) -> Resolution:
        handler = _HANDLERS.get(context.action)
        if handler is None:
            raise UnknownAction(
                f"sr2 has no action {context.action!r} (actions: {', '.join(ACTIONS)})",
                details={"action": context.action},
            )
        return handler(self, context, dice)

    def _attack(self, context: ActionContext, dice: DiceSource) -> Resolution:
        return resolve_attack(context, dice)

    def _damage(self, context: ActionContext, dice: DiceSource) -> Resolution:
        return resolve_damage(context, dice)

    def _success_test(self, context: ActionContext, dice: DiceSource) -> Resolution:
        """SR-16: any dice against any TN, with SR-1 to SR-3."""
        params = context.params
        count = count_param(params, "dice", None)
        tn = signed_param(params, "tn")
        if count is None or tn is None:
            raise InvalidParams(
                "params.dice and params.tn are required", details={"field": "params"}
            )
        pool = count_param(params, "pool")
        label = str(params.get("label", "Success test"))
        actor = context.actor
        if pool and actor is None:
            raise InvalidParams(
                "params.pool: only an acting actor can spend Combat Pool dice",
                details={"field": "params.pool"},
            )
        parts = [{"part": "given TN", "value": tn}]
        states: dict[str, Any] = {}
        if actor is not None:
            if params.get("wound_modifier", False):
                parts.append(
                    {"part": "wound modifier", "value": monitor.wound_modifier(actor.state)}
                )
            if pool:
                left = actor.state.get("pool", 0)
                check_pool(actor, left, pool, "tester")
                states[actor.id] = {**actor.state, "pool": left - pool}
        raw = sum(p["value"] for p in parts)
        roll = roll_test(
            dice, count + pool, raw, rule_of_one=context.settings.get("rule_of_one", True)
        )
        who = f"{actor.name}: " if actor is not None else ""
        result = "botch" if roll.botch else plural(roll.successes, "success")
        steps = []
        if len(parts) > 1 or roll.tn != raw:
            steps.append(f"TN {tn_text(parts, raw, roll.tn)} (SR-2, SR-12)")
        steps.append(
            test_line(label, roll, f"{count} + pool {pool} dice" if pool else f"{count} dice")
        )
        return Resolution(
            narration=f"{who}{label}, {count + pool} dice vs TN {roll.tn}: {result}.",
            outcome={
                "dice": count + pool,
                "pool": pool,
                "tn": roll.tn,
                "tn_raw": raw,
                "tn_parts": parts,
                "successes": roll.successes,
                "botch": roll.botch,
                "success": roll.successes > 0,
            },
            dice=[roll.group(label)],
            states=states,
            steps=steps,
        )

    def _heal(self, context: ActionContext, dice: DiceSource) -> Resolution:
        """SR-15: remove boxes from a monitor; Physical heals overflow first."""
        target = one_target(context)
        which = context.params.get("monitor")
        if which not in ("physical", "stun"):
            raise InvalidParams(
                f"params.monitor: must be 'physical' or 'stun', got {which!r}",
                details={"field": "params.monitor"},
            )
        boxes = count_param(context.params, "boxes", 1, low=1)
        body = monitor.body_of(target.sheet)
        if monitor.is_dead(target.state, body):
            raise RuleViolation(
                f"{target.name} is dead: past the last overflow box there is no help",
                code="actor_dead",
                details={"actor": target.id},
            )
        new, removed = monitor.heal(target.state, which, boxes)
        healed = sum(removed.values())
        parts = ", ".join(f"{k} -{v}" for k, v in removed.items() if v) or "nothing to heal"
        new_status = monitor.status(new, body)
        return Resolution(
            narration=f"{target.name} heals {healed} {which} box(es): {new_status}.",
            outcome={
                "monitor": which,
                "asked": boxes,
                "healed": healed,
                "removed": removed,
                "status": new_status,
            },
            states={target.id: new},
            steps=[f"Heal {boxes} {which} box(es) (SR-15): {parts}"],
        )

    def _bleed(self, context: ActionContext, dice: DiceSource) -> Resolution:
        """SR-13: a dying, unstabilised character takes overflow boxes."""
        target = one_target(context)
        boxes = count_param(context.params, "boxes", 1, low=1)
        body = monitor.body_of(target.sheet)
        state = target.state
        if monitor.is_dead(state, body):
            raise RuleViolation(
                f"{target.name} is already dead", code="actor_dead", details={"actor": target.id}
            )
        if not monitor.is_dying(state, body):
            raise RuleViolation(
                f"{target.name} is not dying (Physical {state.get('physical', 0)}/10)",
                code="not_dying",
                details={"actor": target.id},
            )
        if state.get("stabilised", False):
            raise RuleViolation(
                f"{target.name} is stabilised and does not bleed",
                code="stabilised",
                details={"actor": target.id},
            )
        before = state.get("overflow", 0)
        new = dict(state)
        new["overflow"] = min(body + 1, before + boxes)
        new_status = monitor.status(new, body)
        return Resolution(
            narration=f"{target.name} bleeds: overflow {new['overflow']}/{body}, {new_status}.",
            outcome={
                "boxes": boxes,
                "overflow": new["overflow"],
                "crossed": new["overflow"] - before,
                "status": new_status,
            },
            states={target.id: new},
            steps=[
                f"Bleeding (SR-13): overflow {before} -> {new['overflow']} (Body {body}; "
                f"above Body is dead); status {new_status}"
            ],
        )

    def _stabilise(self, context: ActionContext, dice: DiceSource) -> Resolution:
        """SR-13: a dying character stops bleeding (until hurt again)."""
        target = one_target(context)
        body = monitor.body_of(target.sheet)
        state = target.state
        if monitor.is_dead(state, body):
            raise RuleViolation(
                f"{target.name} is dead", code="actor_dead", details={"actor": target.id}
            )
        if not monitor.is_dying(state, body):
            raise RuleViolation(
                f"{target.name} is not dying", code="not_dying", details={"actor": target.id}
            )
        if state.get("stabilised", False):
            raise RuleViolation(
                f"{target.name} is already stabilised",
                code="already_stabilised",
                details={"actor": target.id},
            )
        new = {**state, "stabilised": True}
        return Resolution(
            narration=f"{target.name} is stabilised.",
            outcome={"stabilised": True, "status": monitor.status(new, body)},
            states={target.id: new},
            steps=["Stabilised (SR-13): no more bleeding until hurt again"],
        )

    def _new_turn(self, context: ActionContext, dice: DiceSource) -> Resolution:
        """SR-14: a new combat turn refills every Combat Pool."""
        return _refill(context.targets)

    # -- turn hooks ----------------------------------------------------------

    def on_round_start(self, context: TurnContext, dice: DiceSource) -> Resolution | None:
        """SR-14: each new combat turn (round) refills every participant's pool."""
        return _refill(context.participants, round_number=context.round)


def _refill(actors: Iterable[Actor], round_number: int | None = None) -> Resolution:
    states: dict[str, Any] = {}
    pools: dict[str, int] = {}
    for actor in actors:
        rating = int(actor.sheet.get("combat_pool", 0))
        states[actor.id] = {**actor.state, "pool": rating}
        pools[actor.id] = rating
    head = "New combat turn" if round_number is None else f"Combat turn {round_number}"
    return Resolution(
        narration=f"{head}: every Combat Pool is refilled.",
        outcome={"pools": pools},
        states=states,
        steps=[
            f"{head} (SR-14): " + (", ".join(f"{k} {v}" for k, v in pools.items()) or "no actors")
        ],
    )


_HANDLERS = {
    "success_test": SR2Ruleset._success_test,
    "attack": SR2Ruleset._attack,
    "damage": SR2Ruleset._damage,
    "heal": SR2Ruleset._heal,
    "bleed": SR2Ruleset._bleed,
    "stabilise": SR2Ruleset._stabilise,
    "new_turn": SR2Ruleset._new_turn,
}
