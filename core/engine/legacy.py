"""Events stored before texts were data, as players see them.

Until 1 December 2026 (commit 279420a, schema version 2) an event held its texts
as English strings and marked no value private: the server hid an NPC's details
from players when it sent the event, through each ruleset's
:meth:`~rollbridge.contract.Ruleset.player_resolution`. Today's rulesets mark
private values instead (:class:`~rollbridge.text.Private`) and no longer redact
rendered resolutions, so such an event, still in a table's retained log after an
upgrade, would reach players — a resume, ``state``'s events, the web view, ``table
export --as player`` — with every number the GM's dice rolled against the NPC (its
Body, its armour, the target numbers built from them).

Nothing in such an event says which of its values were hidden, so players get
what cannot tell anything: the action, who acted and on whom, and a note, in their
language, that the details are the GM's (``withheld``: true). The GM still sees it
all. A turn hook's result in an ``encounter.*`` event of that time is withheld
the same way when it ran for an NPC or for no actor (a round's start, which may
list every NPC's pool). A ruleset that still overrides ``player_resolution``
redacts these events itself, as before (:mod:`rollbridge.engine.views`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rollbridge.engine import forms
from rollbridge.engine.model import Event
from rollbridge.plain import JSON
from rollbridge.text import Messages

__all__ = ["WITHHELD", "before_texts", "withheld"]

say = Messages("rollbridge")

# Translators: shown to players instead of the details of an event an older
# rollbridge stored (before 1 December 2026), which cannot tell what to hide.
WITHHELD = say(
    "event.legacy_withheld",
    "Recorded by an older rollbridge: the details are shown to the GM only.",
)


def before_texts(event: Event) -> bool:
    """Whether ``event`` was stored before texts were data: no texts, no private
    marks, no time (``at``, recorded since 2 December 2026), and a resolution or
    turn hook narrated in a plain string (:func:`rollbridge.engine.forms.before_texts`,
    which the store's reader asks too: such an event's outcomes are not read)."""
    return forms.before_texts(event.kind, event.data, event.texts, event.private, event.at)


def withheld(
    event: Event,
    data: JSON,
    *,
    locale: str,
    hidden: Callable[[str | None], bool],
    touches_npc: bool,
) -> JSON:
    """``data`` of an event :func:`before_texts` as players see it.

    :param hidden: whether an actor id (None: no actor) is one whose details
        players may not see (an NPC's).
    :param touches_npc: whether the event changed or named an NPC.
    """
    note = WITHHELD().render(locale)
    if event.kind == "resolution":
        if not touches_npc:
            return data
        return {
            **{key: data[key] for key in ("action", "actor", "targets") if key in data},
            "narration": note,
            "withheld": True,
        }
    hooks: list[Any] = []
    for entry in data.get("hooks") or ():
        if isinstance(entry, Mapping) and hidden(entry.get("actor")):
            entry = {
                "hook": entry.get("hook"),
                "actor": entry.get("actor"),
                "narration": note,
                "withheld": True,
            }
        hooks.append(entry)
    return {**data, "hooks": hooks}
