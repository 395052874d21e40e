"""A new combat turn refills every Combat Pool (SR-14): the ``new_turn`` action and
the ``on_round_start`` turn hook.

Each actor's refilled pool is its sheet's rating and its state's pool (aspect
``pool``, revealed by ``show_npc_details`` or ``show_npc_sheet``): players who may
see neither read ``Guard (hidden)`` in the step, and the outcome's ``pools`` leave
that actor out.

The step names each actor by its name since sr2's words 2 (:attr:`SR2Ruleset.words
<plugins.sr2.ruleset.SR2Ruleset.words>`); words 1 named it by its id (``tukan 6``),
which ``rollbridge verify`` writes again for an event that version wrote.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rollbridge.contract import Actor, Resolution
from rollbridge.text import Private

from .messages import NEW_ROUND, NEW_ROUND_STEP, NEW_TURN, NEW_TURN_STEP, NO_ACTORS, POOL_OF
from .privacy import POOL

__all__ = ["refill"]


def refill(
    actors: Iterable[Actor], round_number: int | None = None, words: int | None = None
) -> Resolution:
    """Every actor's pool back to its Combat Pool rating; ``round_number`` names the
    encounter's round (the turn hook), None a ``new_turn`` action; ``words``: the
    version of sr2's words to write (None the newest; 1 names actors by their ids)."""
    states: dict[str, Any] = {}
    pools: dict[str, Private] = {}
    listed = []
    for actor in actors:
        rating = int(actor.sheet.get("combat_pool", 0))
        states[actor.id] = {**actor.state, "pool": rating}
        pools[actor.id] = marked = Private(rating, actor.id, POOL)
        named = actor.id if words == 1 else actor.name
        listed.append(POOL_OF(actor=named, pool=marked))
    shown: Any = listed or NO_ACTORS()
    if round_number is None:
        narration, step = NEW_TURN(), NEW_TURN_STEP(pools=shown)
    else:
        narration = NEW_ROUND(round=round_number)
        step = NEW_ROUND_STEP(round=round_number, pools=shown)
    return Resolution(narration=narration, outcome={"pools": pools}, states=states, steps=[step])
