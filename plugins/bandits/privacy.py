"""Which values of a bandits resolution are an actor's own, and what players read instead.

Two aspects (the ``aspect`` of each :class:`~rollbridge.text.Private` this ruleset
marks); the table setting ``show_npc_details`` reveals both:

* ``sheet``: an actor's stats (Steady among them), Armour and Pierce — its sheet's
  numbers, or the Pierce the request gave for it — and every number built from them:
  a harm total, a move's modifier and total, the dice group's total and formula;
* ``state``: the full ruleset state of the actor a resolution left changed. Players
  read what :meth:`~rollbridge.plugins.bandits.BanditsRuleset.player_view` shows of
  it instead: an extra's ``{"wounded", "out"}``, nothing (``null``) of a bandit's.

Players always see their own actors' details in full, and the GM sees everything.
The dice, the BD-4 two-weapon terms (a choice made in the open), the harm table's
row, the wounds, slots and results stay visible: the common state's conditions
show them anyway.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rollbridge.text import Private

__all__ = ["ASPECTS", "SHEET", "STATE", "of_sheet", "of_state", "public_state", "reveals"]

SHEET = "sheet"
STATE = "state"
#: Every aspect this ruleset marks.
ASPECTS: tuple[str, ...] = (SHEET, STATE)

_DROP = object()


def reveals(aspect: str, settings: Mapping[str, Any]) -> bool:
    """Whether players see the NPCs' ``aspect``: both aspects with ``show_npc_details``."""
    return aspect in ASPECTS and bool(settings.get("show_npc_details", False))


def of_sheet(value: Any, owners: Sequence[str], instead: Any = _DROP) -> Any:
    """``value`` marked as built from the sheets of ``owners`` (actor ids): hidden from
    players if any of them is an NPC. ``instead``: what players read then; left out,
    the value is dropped (a text argument reads "(hidden)")."""
    if instead is _DROP:
        for owner in owners:
            value = Private(value, owner, SHEET)
    else:
        for owner in owners:
            value = Private(value, owner, SHEET, instead)
    return value


def public_state(state: Mapping[str, Any]) -> dict[str, Any] | None:
    """What players see of an NPC's state: an extra's ``{wounded, out}``; of a bandit, nothing."""
    if state.get("kind") != "extra":
        return None
    return {"wounded": state.get("wounded"), "out": state.get("out")}


def of_state(actor_id: str, state: Mapping[str, Any]) -> Private:
    """An actor's new state in an outcome: players read :func:`public_state` of an NPC's."""
    return Private(state, actor_id, STATE, public_state(state))
